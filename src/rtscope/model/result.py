"""Result documents: loading, validation against the schema of their version, and metric lookup.

A result document is what the probe writes (schema/result-v3.schema.json). Older versions are read as
they are: a v2 document lacks only the metrics' ``threshold`` and ``series`` (read them with
``metric_doc.get``), and a v1 document also has no count metrics. rtscope keeps the exact text it read next to the parsed document, so that what it stores and
exports is what the probe wrote.
"""

import copy
import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from rtscope import files
from rtscope.errors import RtscopeError
from rtscope.paths import schema_path

FORMAT = "rtscope-result"
VERSION = 3  # what the probe writes, and what rtscope writes for documents it builds
READABLE_VERSIONS = (1, 2, 3)

# Statistic keys of a summary, in display order, with the names people use for them.
STATISTICS = {
    "count": "count", "min": "min", "p50": "p50", "p90": "p90", "p99": "p99",
    "p999": "p99.9", "p9999": "p99.99", "max": "max", "mean": "mean", "stddev": "stddev",
}


@dataclass(frozen=True)
class Result:
    """A validated result document and the exact text it was read from."""

    doc: dict[str, Any]
    text: str

    @property
    def run_id(self) -> str:
        return self.doc["run"]["id"]


def load(path: str | Path) -> Result:
    """Read and validate the result document in the file at ``path``.

    Raises RtscopeError with a one-line message naming the file when it cannot be read, is not JSON,
    is not an rtscope result, has another format version, or breaks the schema.
    """
    return parse(files.read_text(path), str(path))


def parse(text: str, source: str) -> Result:
    """Parse and validate a result document; ``source`` names it in error messages."""
    return Result(validate(_parse_json(text, source), source), text)


def from_doc(doc: dict[str, Any], source: str) -> Result:
    """Validate a document built in memory and give it its canonical text (2-space indented JSON)."""
    return Result(validate(doc, source), json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def validate(doc: Any, source: str) -> dict[str, Any]:
    """Check that ``doc`` is a valid result document of a version rtscope reads and return it.

    The format and version are checked before the schema so that a foreign or newer document gets a
    message saying so, rather than a list of schema violations.
    """
    if not isinstance(doc, dict) or "format" not in doc:
        raise RtscopeError(f"{source} is not an rtscope result (no \"format\" field)")
    if doc["format"] != FORMAT:
        raise RtscopeError(f"{source} is not an rtscope result (format is {json.dumps(doc['format'])})")
    version = doc.get("version")
    if version not in READABLE_VERSIONS or isinstance(version, bool):
        readable = ", ".join(map(str, READABLE_VERSIONS[:-1])) + f" and {READABLE_VERSIONS[-1]}"
        raise RtscopeError(f"{source}: result format version {json.dumps(version)} "
                           f"is not supported (this rtscope reads {readable})")
    error = jsonschema.exceptions.best_match(_validator(version).iter_errors(doc))
    if error is not None:
        raise RtscopeError(f"{source}: invalid result at {error.json_path}: {error.message}")
    _check_unique_metrics(doc, source)
    return doc


def metric(doc: dict[str, Any], metric_id: str) -> dict[str, Any] | None:
    """The metric ``metric_id`` of a result document, or None when the run did not measure it."""
    return next((m for m in doc["metrics"] if m["id"] == metric_id), None)


def current_metric(metric_doc: dict[str, Any]) -> dict[str, Any]:
    """A copy of a metric of any readable version as the current version writes it: the fields older
    versions lack (a v2 metric's ``threshold`` and ``series``) are added as null, which is what they
    mean there."""
    return {**copy.deepcopy(metric_doc), **{key: metric_doc.get(key) for key in ("threshold", "series")}}


def summary(metric_doc: dict[str, Any], *, adjusted: bool = True) -> dict[str, Any]:
    """A metric's statistics: overhead-adjusted by default, else as measured (raw)."""
    return metric_doc["adjusted" if adjusted else "stats"]


# Statistics that move with a constant offset (overhead adjustment); spread and count do not.
_LOCATION_STATISTICS = ("min", "p50", "p90", "p99", "p999", "p9999", "max", "mean")


def cycles_summary(doc: dict[str, Any], metric_doc: dict[str, Any], *, adjusted: bool = True
                   ) -> dict[str, Any] | None:
    """A metric's statistics in cycle-counter ticks (overhead-adjusted by default, as ``summary``),
    or None when the cycle counter did not time it. The result stores cycles as measured; the
    adjustment is the metric's overhead converted with the run's ticks per ns, floored at 0."""
    measured = metric_doc["cycles"]
    if measured is None or not adjusted:
        return measured
    offset = metric_doc["overhead_ns"] * doc["timing"]["cycles_per_ns"]
    return {key: max(0.0, value - offset) if key in _LOCATION_STATISTICS and value is not None else value
            for key, value in measured.items()}


def is_count(metric_doc: dict[str, Any]) -> bool:
    """True for a count metric (iterations per reporting period), False for a time metric (ns)."""
    return metric_doc["unit"] == "count"


def invalid_reason(metric_doc: dict[str, Any]) -> str:
    """Why an invalid metric is invalid, in words even when the probe gave no reason."""
    return metric_doc["invalid_reason"] or "no reason given"


def _parse_json(text: str, source: str) -> Any:
    try:
        # NaN and Infinity are not JSON; Python would accept them unless told otherwise.
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        raise RtscopeError(f"{source} is not valid JSON (line {error.lineno} column {error.colno}: "
                           f"{error.msg})") from None
    except ValueError as error:
        raise RtscopeError(f"{source} is not valid JSON ({error})") from None


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _check_unique_metrics(doc: dict[str, Any], source: str) -> None:
    # The schema cannot say this, but stores and comparisons look metrics up by id.
    seen = set()
    for metric_doc in doc["metrics"]:
        if metric_doc["id"] in seen:
            raise RtscopeError(f"{source}: invalid result: metric {metric_doc['id']} appears twice")
        seen.add(metric_doc["id"])


@functools.cache
def _validator(version: int) -> jsonschema.protocols.Validator:
    schema = json.loads(schema_path(version).read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema)
