"""A metric's statistic across stored runs, in time order, in groups (a kernel release, a label, a week):
the shape of OSADL's latency farm, which shows a board's worst case kernel after kernel.

Each run is one point, read from the store's metrics table (Store.metric_history), not from its
document. A group's figure is compare's: the median over its valid runs with their spread (± half the
range, relative); each group after the first is told better or worse than the first as the metric's unit
has it, and the change is called beyond the spread only when the two groups' runs do not overlap.

Runs of different time bases (hardware time beside an emulator's instruction time) are never ranked
together: a group holds runs of one time base, and is held to the first group of its own time base.
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
    time_base: str = "hardware"  # result.time_base_text of its document, as the store keeps it


@dataclass(frozen=True)
class TrendGroup:
    """Runs that share a kernel, label or week, and a time base, in time order, and their figure (its change
    against the first group of its time base)."""

    name: str
    points: tuple[Point, ...]
    median: float | None  # over its valid runs that have a value
    spread: float | None  # half their range relative to the median; None for fewer than two
    change: float | None  # how much worse than the first group, as a fraction (negative: better); None from 0
    beyond_spread: bool | None  # whether its valid runs and the first group's do not overlap; None for the first
    time_base: str = "hardware"

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
    groups: tuple[TrendGroup, ...]

    @property
    def time_bases(self) -> tuple[str, ...]:
        """The time bases of its runs, in order of first appearance."""
        return tuple(dict.fromkeys(g.time_base for g in self.groups))

    @property
    def separated(self) -> str | None:
        """The one line that says runs of several time bases were not ranked together; None for one."""
        bases = self.time_bases
        if len(bases) < 2:
            return None
        return (
            f"Runs on {len(bases)} time bases ({', '.join(bases)}) are not ranked together: each group is held "
            "to the first group of its own time base."
        )

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
    """The trend of ``points`` (oldest first) in groups by ``by`` and time base, in order of each group's
    first run; a group's change is against the first group of its time base. A group's name carries its
    time base when the runs have several ("6.1.0-rt [instructions (1 ns each)]")."""
    several = len({point.time_base for point in points}) > 1
    members: dict[tuple[str, str], list[Point]] = {}
    for point in points:
        members.setdefault((group_name(point, by), point.time_base), []).append(point)
    figures = {key: _values(group) for key, group in members.items()}
    firsts: dict[str, list[float]] = {}
    for (_, base), values in figures.items():
        firsts.setdefault(base, values)
    groups = []
    for (name, base), group in members.items():
        values = figures[(name, base)]
        first = firsts[base]
        first_median = median_and_spread(first)[0]
        middle, spread = median_and_spread(values)
        # No change from a first figure of 0, as compare gives no ratio to one.
        change = None if middle is None or not first_median else unit.worse_by(first_median, middle)
        is_first = values is first
        beyond = None if is_first or not values or not first else max(values) < min(first) or min(values) > max(first)
        shown = f"{name} [{base}]" if several else name
        groups.append(TrendGroup(shown, tuple(group), middle, spread, change, beyond, base))
    return Trend(metric, stat, unit, by, tuple(groups))


def _values(points: list[Point]) -> list[float]:
    """The figures of the valid runs (an invalid metric's figure says nothing of the system)."""
    return [p.value for p in points if p.valid and p.value is not None]
