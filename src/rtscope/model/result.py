"""Result documents: loading, validation against the schema of their version, and metric lookup.

A result document is what the probe writes (schema/result-v4.schema.json). Older versions are read as
they are: a v3 document lacks the metrics' ``labels`` (read them with :func:`labels`) and knows only the
units ns and count; a v2 document also lacks ``threshold`` and ``series`` (read them with
``metric_doc.get``); a v1 document has no per-period metrics either. rtscope keeps the exact text it
read next to the parsed document, so that what it stores and exports is what the probe wrote.

Validation is the schema of the document's version, less the per-item checks of the long arrays
(histogram buckets, raw samples, periods, series), which :func:`_check_arrays` does in a fraction of the
time. A file of any shape — not JSON, nested without end, binary, huge, a directory — is one line.
"""

import copy
import functools
import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from rtscope import files
from rtscope.errors import RtscopeError
from rtscope.model import units
from rtscope.paths import schema_path

if TYPE_CHECKING:
    import jsonschema

FORMAT = "rtscope-result"
VERSION = 4  # what the probe writes, and what rtscope writes for documents it builds
READABLE_VERSIONS = (1, 2, 3, 4)
# A result of a long run with every raw sample kept is tens of MB; a file larger than this is not one.
MAX_FILE_BYTES = 1 << 30
# What a run's seed varies (rtscope-probe run --seed: a wait before each bench), in words.
SEED_VARIES = "the phase of each bench's start against the tick, the timers and any loads"
# Seeds a sentence names before it counts the rest.
SEEDS_NAMED = 5

# Statistic keys of a summary, in display order, with the names people use for them.
STATISTICS = {
    "count": "count",
    "min": "min",
    "p50": "p50",
    "p90": "p90",
    "p99": "p99",
    "p999": "p99.9",
    "p9999": "p99.99",
    "max": "max",
    "mean": "mean",
    "stddev": "stddev",
}


class Result:
    """A validated result document and the exact text it was read from. ``text`` may be given as what makes
    it, made when first asked for: a stored document is parsed from its packed form faster than its text is
    written back (rtscope.store.encoding), and most readers want the document alone."""

    __slots__ = ("_text", "doc")

    def __init__(self, doc: dict[str, Any], text: str | Callable[[], str]) -> None:
        self.doc = doc
        self._text = text

    @property
    def text(self) -> str:
        if not isinstance(self._text, str):
            self._text = self._text()
        return self._text

    @property
    def run_id(self) -> str:
        run_id: str = self.doc["run"]["id"]
        return run_id


def load(path: str | Path) -> Result:
    """Read and validate the result document in the file at ``path``.

    Raises RtscopeError with a one-line message naming the file when it cannot be read, is not JSON,
    is not an rtscope result, has another format version, or breaks the schema.
    """
    try:
        size = os.path.getsize(path)
    except OSError:
        size = 0  # missing or unreadable: read_text says which
    if size > MAX_FILE_BYTES:
        raise RtscopeError(f"{path} is not an rtscope result ({size / 2**30:.1f} GiB: larger than any result)")
    return parse(files.read_text(path), str(path))


def parse(text: str, source: str) -> Result:
    """Parse and validate a result document; ``source`` names it in error messages."""
    return Result(validate(_parse_json(text, source), source), text)


def from_doc(doc: dict[str, Any], source: str) -> Result:
    """Validate a document built in memory and give it its canonical text (:func:`text_of`)."""
    return Result(validate(doc, source), text_of(doc))


# What stands for an array of numbers while the rest of a document is indented (json.dumps escapes the NUL).
_INLINE = "\0"


def text_of(doc: dict[str, Any]) -> str:
    """A document's canonical text: JSON indented by 2 spaces, as the probe writes it, with each array of
    numbers, or of arrays of numbers (a histogram's buckets), on one line, as the probe writes those too:
    a histogram is one line, not five per bucket, to read and to store (rtscope.store.encoding keeps such
    arrays as numbers)."""
    arrays: list[str] = []

    def marked(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: marked(item) for key, item in value.items()}
        if isinstance(value, list):
            if value and all(_scalar(item) or (isinstance(item, list) and all(map(_scalar, item))) for item in value):
                arrays.append(json.dumps(value))
                return _INLINE
            return [marked(item) for item in value]
        return value

    indented = json.dumps(marked(doc), indent=2, ensure_ascii=False)
    parts = indented.split(json.dumps(_INLINE))
    if len(parts) != len(arrays) + 1:  # the document has a string of its own that is a NUL alone
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    return "".join(part + array for part, array in zip(parts, arrays + [""], strict=True)) + "\n"


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (int, float))


def tagged(run: Result, key: str, value: dict[str, Any], source: str) -> Result:
    """``run`` with the analyzer's top-level object ``key`` (``campaign``, ``monitor``) set to ``value``. Only
    that object is validated, against its part of the schema: the rest was when ``run`` was made, and the
    whole document again is most of what storing a monitor's window costs (10 of 16 ms)."""
    version = run.doc["version"]
    validator = _part_validator(version, key)
    if validator is None:
        raise RtscopeError(f"{source}: result format version {version} has no {key!r}")
    import jsonschema.exceptions  # as in validate

    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is not None:
        raise RtscopeError(f"{source}: invalid result at $.{key}{error.json_path[1:]}: {error.message}")
    doc = dict(run.doc, **{key: value})
    return Result(doc, text_of(doc))


def validate(doc: Any, source: str) -> dict[str, Any]:
    """Check that ``doc`` is a valid result document of a version rtscope reads and return it.

    The format and version are checked before the schema so that a foreign or newer document gets a
    message saying so, rather than a list of schema violations.
    """
    if not isinstance(doc, dict) or "format" not in doc:
        raise RtscopeError(f'{source} is not an rtscope result (no "format" field)')
    if doc["format"] != FORMAT:
        raise RtscopeError(f"{source} is not an rtscope result (format is {json.dumps(doc['format'])})")
    version = doc.get("version")
    if version not in READABLE_VERSIONS or isinstance(version, bool):
        readable = ", ".join(map(str, READABLE_VERSIONS[:-1])) + f" and {READABLE_VERSIONS[-1]}"
        raise RtscopeError(
            f"{source}: result format version {json.dumps(version)} is not supported (this rtscope reads {readable})"
        )
    import jsonschema.exceptions  # only where a document is validated: its import is most of a command's start-up

    error = jsonschema.exceptions.best_match(_validator(version).iter_errors(doc))
    if error is not None:
        raise RtscopeError(f"{source}: invalid result at {error.json_path}: {error.message}")
    _check_arrays(doc, source)
    _check_unique_metrics(doc, source)
    return doc


def validate_system(system: Any, source: str) -> dict[str, Any]:
    """Check that ``system`` is a valid ``system`` of a current result document (what ``rtscope-probe
    system`` prints alone) and return it."""
    import jsonschema.exceptions

    validator = _validator(VERSION)
    schema = cast(Mapping[str, Any], validator.schema)  # an object (a schema may also be a bare true or false)
    error = jsonschema.exceptions.best_match(
        validator.evolve(schema=schema["properties"]["system"]).iter_errors(system)
    )
    if error is not None:
        raise RtscopeError(f"{source}: invalid system at {error.json_path}: {error.message}")
    return dict(system)


def metric(doc: dict[str, Any], metric_id: str) -> dict[str, Any] | None:
    """The metric ``metric_id`` of a result document, or None when the run did not measure it."""
    return next((m for m in doc["metrics"] if m["id"] == metric_id), None)


def skipped(doc: dict[str, Any]) -> dict[str, str]:
    """The benches the run skipped — not started: the target cannot run them (the reason the probe gave),
    or the run ended before them — each with its reason."""
    return {bench["id"]: why_skipped(bench) for bench in doc["benches"] if bench["status"] == "skipped"}


def why_skipped(bench_doc: dict[str, Any]) -> str:
    """Why a skipped bench was not started, in words even when the probe gave no reason."""
    return bench_doc["error"] or "no reason given"


def skip_reason(doc: dict[str, Any], metric_id: str, bench: str | None = None) -> str | None:
    """Why the run has no metric ``metric_id`` when a bench that measures it was skipped: that bench's
    reason, else None. ``bench``: the bench that measures it, when known (another run's metric names
    it); else a metric is a bench's when its name is the bench's id or below it (lat.timerlat.irq), or when
    it is of the bench's family (wave.period: wave.square) and no bench of that family ran."""
    reasons = skipped(doc)
    if bench is not None:
        return reasons.get(bench)
    name = metric_id.split("{", 1)[0]
    family = name.split(".", 1)[0]
    mine = [why for skipped_id, why in reasons.items() if name == skipped_id or name.startswith(skipped_id + ".")]
    kin = [why for skipped_id, why in reasons.items() if skipped_id.split(".", 1)[0] == family]
    kin_ran = any(b["id"].split(".", 1)[0] == family for b in doc["benches"] if b["id"] not in reasons)
    return next(iter(mine or ([] if kin_ran else kin)), None)


def current_metric(metric_doc: dict[str, Any]) -> dict[str, Any]:
    """A copy of a metric of any readable version as the current version writes it: the fields older
    versions lack are added with what they mean there (a v2 metric's ``threshold`` and ``series`` are
    null, a v3 metric's ``labels`` empty)."""
    return {
        **copy.deepcopy(metric_doc),
        **{key: metric_doc.get(key) for key in ("threshold", "series")},
        "labels": labels(metric_doc),
    }


def unit(metric_doc: dict[str, Any]) -> units.Unit:
    """The unit of a metric: how its figures are shown and which way is better."""
    return units.get(metric_doc["unit"])


# Metrics better the closer they are to a nominal value rather than the lower or higher: a square wave's
# period, high time and duty, whose nominal values follow from its period_us label.
_NOMINAL: dict[str, Callable[[float], float]] = {
    "wave.period": lambda period_us: period_us * 1e3,
    "wave.high": lambda period_us: period_us * 1e3 / 2,
    "wave.duty": lambda period_us: 50.0,
}


def nominal(metric_doc: dict[str, Any]) -> float | None:
    """The value a metric is better the closer to (a square wave's period: its nominal period, in the
    metric's unit); None for a metric better lower or higher, as its unit says."""
    make = _NOMINAL.get(metric_doc["id"].split("{")[0])
    period_us = labels(metric_doc).get("period_us")
    if make is None or period_us is None:
        return None
    try:
        return float(make(float(period_us)))
    except ValueError:
        return None


def labels(metric_doc: dict[str, Any]) -> dict[str, str | int]:
    """What tells the metric apart from others of its family ({"cpu": 1}); empty before format 4."""
    return metric_doc.get("labels") or {}


def histogram_step(metric_doc: dict[str, Any]) -> float:
    """The size of one histogram step in the metric's unit (1: a nanosecond for a time metric)."""
    step: float = (metric_doc.get("histogram") or {}).get("resolution", 1.0)
    return step


def summary(metric_doc: dict[str, Any], *, adjusted: bool = True) -> dict[str, Any]:
    """A metric's statistics: overhead-adjusted by default, else as measured (raw)."""
    figures: dict[str, Any] = metric_doc["adjusted" if adjusted else "stats"]
    return figures


# Statistics that move with a constant offset (overhead adjustment); spread and count do not.
_LOCATION_STATISTICS = ("min", "p50", "p90", "p99", "p999", "p9999", "max", "mean")


def cycles_summary(doc: dict[str, Any], metric_doc: dict[str, Any], *, adjusted: bool = True) -> dict[str, Any] | None:
    """A metric's statistics in cycle-counter ticks (overhead-adjusted by default, as ``summary``),
    or None when the cycle counter did not time it. The result stores cycles as measured; the
    adjustment is the metric's overhead converted with the run's ticks per ns, floored at 0."""
    measured: dict[str, Any] | None = metric_doc["cycles"]
    if measured is None or not adjusted:
        return measured
    offset = metric_doc["overhead_ns"] * doc["timing"]["cycles_per_ns"]
    return {
        key: max(0.0, value - offset) if key in _LOCATION_STATISTICS and value is not None else value
        for key, value in measured.items()
    }


def clock_step(doc: dict[str, Any], metric_doc: dict[str, Any]) -> float | None:
    """The step of the clock a time metric's figures were read in (``timing.clock_resolution_ns``); None
    for a metric of another unit, one stamped on the cycle counter (its ``cycles`` recorded: finer than
    the clock) and a clock of unknown resolution (0)."""
    if metric_doc["unit"] != units.NS.name or metric_doc.get("cycles") is not None:
        return None
    step: float = doc["timing"]["clock_resolution_ns"]
    return step or None


def below_resolution(step: float | None, key: str, value: float | None) -> bool:
    """Whether statistic ``key`` of a time metric, ``value`` ns, is less than one ``step`` of its clock
    (clock_step): not a measured figure but a reading of no step (lat.irq on a board whose exception costs
    no instruction reads 0 on its 40 ns clock), shown as below the resolution. Spread and counts are not
    readings of the clock."""
    return step is not None and value is not None and key in _LOCATION_STATISTICS and value < step


# The metrics whose samples are a thread's wake-up from a sleep until an absolute time: where the port
# declares its sleeps whole ticks (timing.sleep_granularity_ns), their latency is mostly where in the tick
# the sleep began, not the scheduler's.
WOKEN_FROM_SLEEP = ("lat.wakeup", "lat.preempt_timer")


def sleep_granularity(doc: dict[str, Any]) -> float | None:
    """The granularity of the run's sleeps in ns as the port declared it (an RTOS's tick); None where a
    sleep ends at the clock's time (Linux) and in results before 2026-11-28, which do not record it."""
    granularity: float | None = doc["timing"].get("sleep_granularity_ns")
    return granularity


# What a counter counts, by its name, for results that do not say (before timing.cycle_counter_kind):
# only names whose meaning is certain; any other is "unknown".
_COUNTER_KINDS = {"rdtscp": "cpu-cycles", "rdtsc": "cpu-cycles", "cntvct_el0": "timer", "cntpct_el0": "timer"}
COUNTER_KIND_NAMES = {
    "cpu-cycles": "CPU cycles",
    "timer": "a fixed-rate timer, not CPU cycles",
    "instructions": "instructions, not CPU cycles",
    "unknown": "a counter of unknown kind",
}


def counter_kind(doc: dict[str, Any]) -> str | None:
    """What the run's cycle counter counts: "cpu-cycles", "timer", "instructions", or "unknown" (an older
    result whose counter's name does not tell); None when the run used none."""
    timing = doc["timing"]
    name = timing.get("cycle_counter")
    if name is None:
        return None
    recorded: str | None = timing.get("cycle_counter_kind")
    return recorded or _COUNTER_KINDS.get(name, "unknown")


def counts_cpu_cycles(doc: dict[str, Any]) -> bool:
    """Whether the run's figures in cycle-counter ticks are a real CPU's cycles: its counter counts CPU
    cycles and the run was on hardware time, or replays figures recorded there (an emulator's TSC counts
    its own time, not a CPU's cycles)."""
    return counter_kind(doc) == "cpu-cycles" and time_base(doc) in ("hardware", "replayed")


def counter_hz(doc: dict[str, Any]) -> float | None:
    """The counter's rate in Hz: as the hardware states it where recorded, else as measured; None
    without a counter."""
    timing = doc["timing"]
    stated = timing.get("cycle_counter_hz")
    if stated:
        return float(stated)
    measured = timing.get("cycles_per_ns")
    return measured * 1e9 if measured else None


def is_periodic(metric_doc: dict[str, Any]) -> bool:
    """True for a per-period metric (a figure per reporting period, e.g. Thread-Metric's iterations),
    False for a metric of samples (a histogram of them)."""
    return metric_doc.get("periods") is not None


def time_base(doc: dict[str, Any]) -> str:
    """What the result's times are: the time base the analyzer recorded of its target ("hardware" before
    format 4 recorded one), except that a probe which says it ran in an OS simulator (system.virtualization
    "simulator": FreeRTOS's POSIX simulator board) measured the simulator's time on whatever machine ran it."""
    recorded = (doc.get("target") or {}).get("time_base", "hardware")
    simulated = (doc.get("system") or {}).get("virtualization") == "simulator"
    return "simulator" if recorded == "hardware" and simulated else recorded


def time_base_text(doc: dict[str, Any]) -> str:
    """The result's time base as runs are told apart by it: :func:`time_base`, with the length of an
    instruction where its emulator recorded it, since two instruction times of different rates do not
    compare ("instructions (32 ns each)")."""
    rate = ns_per_instruction(doc)
    return f"{time_base(doc)} ({rate} ns each)" if rate else time_base(doc)


def deterministic(doc: dict[str, Any]) -> bool:
    """Whether a rerun of the result's request repeats it to the bit: measured in instruction time (an
    emulator counting instructions, rtscope.targets.qemu.debian and qemu_board), unless a seed varied it."""
    return time_base(doc) == "instructions"


def varied(doc: dict[str, Any]) -> str | None:
    """What the run's seed varied, in words, for a sentence: "the phase of each bench's start against the
    tick, the timers and any loads (seed 1234)"; None for a run without a seed (on hardware the machine
    varies by itself; in instruction time nothing did)."""
    seed = doc["run"].get("seed")
    if seed is None:
        return None
    return f"{SEED_VARIES} (seed {seed})"


def repetitions_note(docs: Sequence[dict[str, Any]]) -> str | None:
    """One sentence on what the repetitions of runs in instruction time can tell, for a verdict: what
    their seeds varied, or that unseeded ones are identical and their spread tells nothing; None where
    no run is in instruction time."""
    timed = [doc for doc in docs if deterministic(doc)]
    if not timed:
        return None
    seeds = sorted({doc["run"]["seed"] for doc in timed if doc["run"].get("seed") is not None})
    unseeded = sum(doc["run"].get("seed") is None for doc in timed)
    what = SEED_VARIES
    shown = ", ".join(map(str, seeds[:SEEDS_NAMED]))
    if len(seeds) > SEEDS_NAMED:
        shown += f" and {len(seeds) - SEEDS_NAMED} more"
    if not unseeded:
        return (
            f"In instruction time a rerun repeats to the bit; these runs' repetitions varied {what} "
            f"(seed{'s' if len(seeds) > 1 else ''} {shown}), so their spread is that of the phase alone."
        )
    if unseeded == len(docs):
        lacking = "These runs are"
    else:
        lacking = f"{unseeded} of the {len(docs)} runs {'is' if unseeded == 1 else 'are'}"
    return (
        f"{lacking} in instruction time without a seed: a rerun repeats such a run to the bit, so its "
        "repetitions are identical and their spread tells nothing"
        + (f" (the others varied {what}: seed{'s' if len(seeds) > 1 else ''} {shown})." if seeds else ".")
    )


_ICOUNT_SHIFT = re.compile(r"-icount shift=(\d+)\b")


def ns_per_instruction(doc: dict[str, Any]) -> int | None:
    """How many nanoseconds an instruction lasts on a result's instruction time: 2^N for the
    ``-icount shift=N`` its QEMU target records as its clock (target.detail.clock); None on any other
    time base, or when the target did not record it."""
    target = doc.get("target") or {}
    match = _ICOUNT_SHIFT.search(str((target.get("detail") or {}).get("clock", "")))
    return 2 ** int(match[1]) if match and target.get("time_base") == "instructions" else None


def invalid_reason(metric_doc: dict[str, Any]) -> str:
    """Why an invalid metric is invalid, in words even when the probe gave no reason."""
    return metric_doc["invalid_reason"] or "no reason given"


def throttled_text(metric_doc: dict[str, Any]) -> str | None:
    """ "throttled: 3 samples across RT throttling's stops (up to 47.8 ms, first at 1.0 s; stopped for 50 of
    every 1000 ms)" when RT
    throttling stopped the metric's threads across some of its samples (``throttled``, absent from results
    before 2026-11-28), else None."""
    throttled = metric_doc.get("throttled")
    if not throttled or not throttled["samples"]:
        return None
    count = throttled["samples"]
    first = f", first at {throttled['at_s'][0]:.1f} s" if throttled["at_s"] else ""
    return (
        f"throttled: {count} sample{'s' if count != 1 else ''} across RT throttling's stops "
        f"(up to {throttled['longest_ns'] / 1e6:.1f} ms{first}; "
        f"stopped for {(throttled['period_us'] - throttled['runtime_us']) / 1e3:g} of every "
        f"{throttled['period_us'] / 1e3:g} ms)"
    )


def _parse_json(text: str, source: str) -> Any:
    try:
        # NaN and Infinity are not JSON; Python would accept them unless told otherwise.
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise RtscopeError(f"{source} is not an rtscope result (JSON nested too deeply)") from None
    except json.JSONDecodeError as error:
        raise RtscopeError(
            f"{source} is not valid JSON (line {error.lineno} column {error.colno}: {error.msg})"
        ) from None
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


_LABELLED_ID = re.compile(r"(?P<name>[^{]+)\{(?P<labels>[^}]*)\}")


def _check_arrays(doc: dict[str, Any], source: str) -> None:
    """What the fast schema leaves out: histogram buckets are [lower, width, count] whole numbers (width
    and count at least 1), raw samples whole numbers, periods numbers, series windows whole numbers or
    null, all at least 0; and a metric id with labels in braces names the labels the metric has."""
    for metric_doc in doc["metrics"]:
        where = f"{source}: invalid result: metric {metric_doc['id']}"
        histogram = metric_doc.get("histogram")
        if histogram is not None and not all(
            type(bucket) is list
            and len(bucket) == 3
            and all(type(v) is int for v in bucket)
            and bucket[0] >= 0
            and bucket[1] >= 1
            and bucket[2] >= 1
            for bucket in histogram["buckets"]
        ):
            raise RtscopeError(f"{where}: a histogram bucket is not [lower, width, count] in whole numbers")
        if not _all_of(metric_doc.get("raw"), {int}):
            raise RtscopeError(f"{where}: a raw sample is not a whole number of at least 0")
        if not _all_of(metric_doc.get("periods"), {int, float}):
            raise RtscopeError(f"{where}: a period's figure is not a number of at least 0")
        lengths, periods = metric_doc.get("period_lengths_s"), metric_doc.get("periods") or []
        if lengths is not None and len(lengths) != len(periods):
            raise RtscopeError(f"{where}: {len(lengths)} period lengths for {len(periods)} periods")
        series = metric_doc.get("series")
        if series and not all(v is None or (type(v) is int and v >= 0) for v in series["max"]):
            raise RtscopeError(f"{where}: a series window is not a whole number of at least 0 or null")
        match = _LABELLED_ID.fullmatch(metric_doc["id"])
        if match:
            named = dict(pair.split("=", 1) for pair in match["labels"].split(","))
            if named != {key: str(value) for key, value in labels(metric_doc).items()}:
                raise RtscopeError(f"{where}: its id names labels {named} but it has {labels(metric_doc)}")


def _all_of(items: list[Any] | None, types: set[type]) -> bool:
    """Whether every item is of one of ``types`` and at least 0 (type and min at C speed: 10^5 samples)."""
    return not items or (set(map(type, items)) <= types and min(items) >= 0)


# The long arrays whose items _check_arrays checks instead of the schema (jsonschema takes seconds on a
# run with 10^5 raw samples): wherever a schema of any version describes one, its item schemas go.
_LONG_ARRAYS = ("buckets", "raw", "periods", "max")


def _without_item_checks(node: Any) -> None:
    if isinstance(node, dict):
        for key, child in node.items():
            if key in _LONG_ARRAYS and isinstance(child, dict) and child.get("type") == "array":
                child.pop("items", None)
                child.pop("prefixItems", None)
            _without_item_checks(child)
    elif isinstance(node, list):
        for child in node:
            _without_item_checks(child)


@functools.cache
def _part_validator(version: int, key: str) -> "jsonschema.protocols.Validator | None":
    """The validator of top-level object ``key`` of format ``version`` (None: the format has none)."""
    schema = json.loads(schema_path(version).read_text(encoding="utf-8"))
    part = schema["properties"].get(key)
    if part is None:
        return None
    return _validator(version).__class__({**part, "$defs": schema.get("$defs", {})})


@functools.cache
def _validator(version: int) -> "jsonschema.protocols.Validator":
    import jsonschema.validators

    schema = json.loads(schema_path(version).read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    _without_item_checks(schema)
    return validator_class(schema)
