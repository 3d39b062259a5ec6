"""A metric's statistic across stored runs, in time order, in groups (a kernel release, a label, a week):
the shape of OSADL's latency farm, which shows a board's worst case kernel after kernel.

Each run is one point, read from the store's metrics table (Store.metric_history), not from its
document. A group's figure is compare's: the median over its valid runs with their spread (± half the
range, relative); each group after the first is told better or worse than the first as the metric's unit
has it, and the change is called beyond the spread only when the two groups' runs do not overlap.
"""

from dataclasses import dataclass
from datetime import datetime

from rtscope.analysis.compare import median_and_spread
from rtscope.model.units import Unit

# How runs form a trend's groups: the store's kernel release or label of each run, or its ISO week.
GROUPINGS = ("kernel", "label", "week")
NO_LABEL = "(no label)"  # as compare's --by label names runs without one


@dataclass(frozen=True)
class Point:
    """One run's figure: what the store keeps of the run and of its metric."""

    run_id: str
    started: str
    label: str | None
    hostname: str
    kernel: str
    valid: bool
    value: float | None


@dataclass(frozen=True)
class Group:
    """Runs that share a kernel, label or week, in time order, and their figure."""

    name: str
    points: tuple[Point, ...]
    median: float | None  # over its valid runs that have a value
    spread: float | None  # half their range relative to the median; None for fewer than two
    change: float | None  # how much worse than the first group, as a fraction (negative: better); None from 0
    beyond_spread: bool | None  # whether its valid runs and the first group's do not overlap; None for the first

    @property
    def direction(self) -> str | None:
        """ "worse" or "better" than the first group, as the unit has it; None for no change or no figure."""
        if not self.change:
            return None
        return "worse" if self.change > 0 else "better"


@dataclass(frozen=True)
class Trend:
    """A metric's statistic over runs: its unit, how the runs are grouped, the groups in order of their first run."""

    metric: str
    stat: str
    unit: Unit
    by: str
    groups: tuple[Group, ...]

    @property
    def points(self) -> list[Point]:
        """Every run's point, oldest first."""
        return sorted((p for g in self.groups for p in g.points), key=lambda p: (p.started, p.run_id))


def group_name(point: Point, by: str) -> str:
    """The group of a run: its kernel release, its label, or the ISO week it started in ("2026-W47")."""
    if by == "kernel":
        return point.kernel
    if by == "label":
        return point.label or NO_LABEL
    year, week, _ = datetime.fromisoformat(point.started).isocalendar()
    return f"{year}-W{week:02d}"


def build(metric: str, stat: str, unit: Unit, points: list[Point], by: str) -> Trend:
    """The trend of ``points`` (oldest first) in groups by ``by``, in order of each group's first run."""
    members: dict[str, list[Point]] = {}
    for point in points:
        members.setdefault(group_name(point, by), []).append(point)
    figures = {name: _values(group) for name, group in members.items()}
    first = figures[next(iter(figures))] if figures else []
    first_median = median_and_spread(first)[0]
    groups = []
    for index, (name, group) in enumerate(members.items()):
        values = figures[name]
        middle, spread = median_and_spread(values)
        # No change from a first figure of 0, as compare gives no ratio to one.
        change = None if middle is None or not first_median else unit.worse_by(first_median, middle)
        beyond = None if index == 0 or not values or not first else max(values) < min(first) or min(values) > max(first)
        groups.append(Group(name, tuple(group), middle, spread, change, beyond))
    return Trend(metric, stat, unit, by, tuple(groups))


def _values(points: list[Point]) -> list[float]:
    """The figures of the valid runs (an invalid metric's figure says nothing of the system)."""
    return [p.value for p in points if p.valid and p.value is not None]
