"""What every exporter is: a format with a name, the suffix of the files it is written to, and a
function from what it exports to the whole text — so that a caller writes it at once
(rtscope.files.AtomicFile) or prints it. Run exports take a :class:`RunExport`, comparison exports an
rtscope.analysis.compare.Comparison.

CSV numbers have one format, shared by every CSV rtscope writes: :func:`csv_number`.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from rtscope.analysis.judge import Judge
from rtscope.errors import RtscopeError
from rtscope.model import result, values

Subject = TypeVar("Subject")


@dataclass(frozen=True)
class Exporter(Generic[Subject]):
    """A format: what --format calls it, the suffix of a file in it, what it is (for --help), and how
    what it exports becomes its text."""

    name: str
    suffix: str
    description: str
    write: Callable[[Subject], str]


@dataclass(frozen=True)
class RunExport:
    """One run to export and what was asked of the export; each format reads what applies to it."""

    run: result.Result
    metrics: tuple[str, ...] = ()  # the metrics asked for, in order; none: the format's choice
    adjusted: bool = True  # figures overhead-adjusted, else as measured
    rows: int | None = None  # cyclictest: 1 µs rows; None: enough for the largest maximum
    judge: Judge = field(default_factory=Judge)  # lava, junit: what makes a metric fail

    @property
    def figures_are(self) -> str:
        """How the figures are, in words ("overhead-adjusted" or "as measured")."""
        return "overhead-adjusted" if self.adjusted else "as measured"


def skipped_benches(export: RunExport) -> list[tuple[str, str]]:
    """The benches the run skipped (the target cannot run them), each with its reason, when the export
    has every metric (none asked for): a skipped bench has no metric to stand for it."""
    return [] if export.metrics else list(result.skipped(export.run.doc).items())


def csv_number(value: float | None) -> str:
    """A number as every rtscope CSV writes it: whole numbers without a point ("2792967"), others in
    the shortest text that reads back as the same float ("0.6860320598"; Python's repr, which
    spreadsheets and CSV readers parse as it is), so that no figure loses a digit; empty for None."""
    return "" if value is None else values.exact(value)


def chosen_metrics(doc: dict[str, Any], metric_ids: Iterable[str]) -> list[dict[str, Any]]:
    """The metrics of ``doc`` with the given ids, in the order given (all of them when none are given);
    an id the run lacks is an RtscopeError."""
    ids = list(metric_ids)
    if not ids:
        return list(doc["metrics"])
    chosen = []
    for metric_id in ids:
        metric_doc = result.metric(doc, metric_id)
        if metric_doc is None:
            skipped = result.skip_reason(doc, metric_id)
            has = (
                f"it skipped its bench: {skipped}"
                if skipped
                else f"it has {', '.join(m['id'] for m in doc['metrics'])}"
            )
            raise RtscopeError(f"run {doc['run']['id']} has no metric {metric_id} ({has})")
        chosen.append(metric_doc)
    return chosen
