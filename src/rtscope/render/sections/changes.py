"""Change points of a metric across stored runs (rtscope.analysis.changes): a table of each step, its
size with its interval, and what changed between the runs either side; and the one line trend marks a
step with."""

from collections.abc import Sequence

from rtscope.analysis.changes import ChangePoint
from rtscope.analysis.grouping import SHORT_ID
from rtscope.analysis.stats import statistic_name
from rtscope.model.units import Unit
from rtscope.render import fmt
from rtscope.render.document import Cell, Paragraph, Section, Table, heading, table

METHOD = (
    "Binary segmentation of the logarithms (a CUSUM against the series' own noise), each step confirmed by "
    "a rank test with at least 3 runs either side; the change is after over before, geometric means, with "
    "its 95 % interval (docs/changes.md)."
)


def build(metric: str, unit: Unit, found: Sequence[ChangePoint], runs: dict[str, int]) -> Section:
    """The change points of ``metric`` in every statistic looked at (``runs``: each one's runs)."""
    looked = ", ".join(f"{statistic_name(stat)} ({fmt.count(n)} runs)" for stat, n in runs.items())
    if not found:
        about = Paragraph((f"No change in {looked}.", METHOD))
        return Section(heading(f"Change points of {metric}"), (about,), anchor="changes")
    parts: tuple[Paragraph | Table, ...] = (Paragraph((f"In {looked}:", METHOD)), _table(unit, found))
    return Section(heading(f"Change points of {metric}"), parts, anchor="changes")


def _table(unit: Unit, found: Sequence[ChangePoint]) -> Table:
    rows: list[list[str | Cell]] = [
        [
            statistic_name(change.stat),
            run_name(change),
            fmt.local_time(change.first_after.started),
            f"{unit.format(change.step.before)} → {unit.format(change.step.after)}",
            Cell(change.size_text(), "bad" if change.direction(unit) == "worse" else "good"),
            f"{change.step.runs_before}/{change.step.runs_after}",
            change.changed_text(),
        ]
        for change in found
    ]
    header = ["stat", "first run after", "started", "before → after", "change [95 %]", "runs", "what changed"]
    return table(header, rows, "lllrrrl")


def run_name(change: ChangePoint) -> str:
    """ "0123abcd stock kernel": the first run after the step, by short id and label."""
    point = change.first_after
    return f"{point.run_id[:SHORT_ID]} {point.label or ''}".strip()


def line(change: ChangePoint, unit: Unit) -> str:
    """The step on one line: "from run 0123abcd (2026-11-20 10:00): +20.1 % [+17.9, +22.4] worse — kernel … → …"."""
    return (
        f"from run {run_name(change)} ({fmt.local_time(change.first_after.started)}): {change.size_text()} "
        f"{change.direction(unit)}, {unit.format(change.step.before)} → {unit.format(change.step.after)} — "
        f"{change.changed_text()}"
    )
