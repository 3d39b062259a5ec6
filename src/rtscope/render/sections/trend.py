"""A metric's trend across stored runs (rtscope.analysis.trend): its groups' figures as a table and, on a
page, every run as a point over time with each group's median across its runs, as OSADL's latency farm
draws a board's worst case kernel release after kernel release."""

from collections.abc import Sequence
from datetime import datetime

from rtscope.analysis.changes import ChangePoint
from rtscope.analysis.grouping import SHORT_ID
from rtscope.analysis.stats import statistic_name
from rtscope.analysis.trend import Point, Trend, TrendGroup
from rtscope.model import units
from rtscope.render import fmt, plots, svg
from rtscope.render.document import Cell, Figure, Paragraph, Section, Table, heading, table
from rtscope.render.sections import changes as changes_section

_SECONDS_PER_DAY = 86400


def build(trend: Trend, *, figure: bool, changes: Sequence[ChangePoint] = ()) -> Section:
    """The trend's heading, what it shows, its groups' table, its change points (``changes``: one line
    each, and a marked line on the chart) and, with ``figure``, its chart."""
    points = trend.points
    valid = [(p, p.value) for p in points if p.valid and p.value is not None]
    about = Paragraph(
        (
            (
                f"{statistic_name(trend.stat)} of {trend.metric} (overhead-adjusted) in {len(points)} "
                f"run{'s' if len(points) != 1 else ''} from {_date(points[0])} to {_date(points[-1])}, by {trend.by}; "
                f"{trend.unit.quantity}: {'lower' if trend.unit.lower_is_better else 'higher'} is better."
            ),
            (
                "A group's figure is the median over its valid runs, ± half their range; its change is to the first "
                "group's, stressed when the two groups' runs do not overlap."
            ),
            *((trend.separated,) if trend.separated else ()),
        )
    )
    parts: list[Paragraph | Table | Figure] = [about, _table(trend)]
    if changes:
        marks = [f"▲ {changes_section.line(change, trend.unit)}" for change in changes]
        parts.append(Paragraph((f"Change points ({changes_section.METHOD})", *marks)))
    if figure and valid:
        parts.append(_figure(trend, valid, changes))
    invalid = len(points) - len(valid)
    if invalid:
        parts.append(Paragraph((f"{invalid} run{'s' if invalid != 1 else ''} with an invalid metric: not counted.",)))
    return Section(heading(f"Trend of {trend.metric}", f", {statistic_name(trend.stat)}"), tuple(parts), anchor="trend")


def _table(trend: Trend) -> Table:
    rows: list[list[str | Cell]] = [
        [
            group.name,
            fmt.count(len(group.points)),
            _date(group.points[0]),
            _date(group.points[-1]),
            trend.unit.format(group.median),
            fmt.MISSING if group.spread is None else f"±{units.significant(100 * group.spread, 2)}%",
            _change(group),
        ]
        for group in trend.groups
    ]
    return table([trend.by, "runs", "first", "last", "median", "spread", "change"], rows, "lrllrrl")


def _change(group: TrendGroup) -> Cell:
    """ "+12.3 % worse", stressed when beyond both groups' spread; "—" for the first group or no figure."""
    if group.beyond_spread is None or group.change is None:
        return Cell(fmt.MISSING)
    emphasis = ("bad" if group.direction == "worse" else "good") if group.beyond_spread else ""
    return Cell(f"{100 * group.change:+.1f} % {group.direction or 'same'}", emphasis)


def _figure(trend: Trend, valid: list[tuple[Point, float]], changes: Sequence[ChangePoint]) -> Figure:
    """One dot per valid run (with its value) at its start time, each group's median as a line across its
    runs, in the group's colour (colours repeat after the palette's eight), and a dashed line at each change
    point, what changed in its tooltip."""
    values = [value for _, value in valid]
    scale = plots.scale(trend.unit, min(values), max(values))
    # A log axis has no 0: a run's 0 is drawn at the axis's floor, below the least positive figure.
    floor = min((v for v in values if v > 0), default=1.0) / plots.MARGIN
    y_axis = scale.axis(min(values) / plots.MARGIN, max(values) * plots.MARGIN, statistic_name(trend.stat), floor=floor)
    first = valid[0][0]
    days = {p.run_id: ((_moment(p) - _moment(first)).total_seconds() / _SECONDS_PER_DAY, value) for p, value in valid}
    x_axis = svg.Axis(
        0, max(x for x, _ in days.values()), tick_text=svg.tick_number, label=f"days since {_date(first)}"
    )
    chart = svg.Chart(x_axis, y_axis, title=f"{trend.metric}: {statistic_name(trend.stat)} per run, by {trend.by}")
    legend = []
    for index, group in enumerate(trend.groups):
        colour = svg.PALETTE[index % len(svg.PALETTE)]
        mine = [days[p.run_id] for p in group.points if p.run_id in days]
        for p in group.points:  # a line of one point is a dot, its tooltip the run
            if p.run_id in days:
                x, value = days[p.run_id]
                chart.line([(x, scale(value))], colour, title=f"{_caption(p)}: {trend.unit.format(value)}")
        if group.median is not None and mine:
            chart.line(
                [(mine[0][0], scale(group.median)), (mine[-1][0], scale(group.median))],
                colour,
                title=f"{group.name}: median {trend.unit.format(group.median)}",
            )
        legend.append(Cell(group.name, swatch=colour))
    for change in changes:
        at = (_moment(change.first_after) - _moment(first)).total_seconds() / _SECONDS_PER_DAY
        chart.vertical(at, f"▲ {change.size_text()}", title=changes_section.line(change, trend.unit))
    notes = ["Each dot is a run; a line is its group's median, from its first run to its last."]
    if changes:
        notes.append("A dashed line is a change point, at its first run after; its tooltip says what changed.")
    return Figure(chart, tuple(legend), tuple(notes))


def _caption(point: Point) -> str:
    """ "0123abcd stock kernel (2026-11-20 10:00)": a run's short id, label and start."""
    return f"{point.run_id[:SHORT_ID]} {point.label or ''} ({_date(point)})".replace("  ", " ")


def _moment(point: Point) -> datetime:
    return datetime.fromisoformat(point.started)


def _date(point: Point) -> str:
    return fmt.local_time(point.started)
