"""The long-term picture of a metric (rtscope.analysis.longterm), as labs that watch boards for months
publish it: a table with a row per board (and schedule step) — windows, samples, worst, p99.99, last change
— and per board two plots: the histogram cumulated over every window (log counts, its maximum marked), and
the worst sample of each window over time with the kernel releases and the change points marked."""

import math
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from rtscope.analysis import longterm
from rtscope.analysis.changes import ChangePoint
from rtscope.analysis.grouping import SHORT_ID
from rtscope.analysis.longterm import BoardPicture, BoardSeries, Picture, Window
from rtscope.analysis.stats import statistic_name
from rtscope.model.units import Unit
from rtscope.render import fmt, plots, svg
from rtscope.render.document import Cell, Figure, Paragraph, Section, Table, heading, table
from rtscope.render.sections import changes as changes_section
from rtscope.render.sections import distribution
from rtscope.render.subjects import Report

# Up to this many windows a step's windows are each a dot (with its own tooltip); beyond, the line is
# drawn in this many steps, each the worst of the windows it spans (about two pixels each).
MOST_STEPS = 300
_DAY = 86400.0
_LABEL_ROWS = 3  # marks close together stagger their labels over this many lines


def build(picture: Picture, *, figures: bool = True, anchor: str = "longterm") -> Section | None:
    """The picture's table and, with ``figures``, each board's two plots; nothing without a window."""
    series = picture.series
    if not series:
        return None
    measured = sum(s.measured for s in series)
    stored = sum(len(s.windows) for s in series)
    merged = f" (merged by retention into {fmt.count(stored)} stored)" if stored != measured else ""
    about = [
        (
            f"{fmt.count(measured)} windows{merged} of {len(picture.boards)} board"
            f"{'s' if len(picture.boards) != 1 else ''} from {fmt.local_time(picture.first)} to "
            f"{fmt.local_time(picture.last)}; times as measured (the probe's histograms)."
        ),
        (
            f"Worst: the largest sample of any window; p99.99: from the histogram cumulated over the windows "
            f"(within one histogram bucket). Last change: the latest step in the {', '.join(_looked(picture))} "
            f"of the windows ({_first_lower(changes_section.METHOD.split(';')[0])})."
        ),
    ]
    left_out = [
        f"{fmt.count(n)} {what.format(s='s' if n != 1 else '')} not counted"
        for n, what in (
            (picture.interrupted, "interrupted run{s} (a monitor measures such a window again)"),
            (picture.invalid, f"run{{s}} with {picture.metric} invalid"),
        )
        if n
    ]
    if left_out:
        about.append("; ".join(left_out) + ".")
    parts: list[Paragraph | Table] = [Paragraph(tuple(about)), _table(picture)]
    boards = tuple(_board(picture, board) for board in picture.boards) if figures else ()
    return Section(heading(f"Long-term picture of {picture.metric}"), tuple(parts), subsections=boards, anchor=anchor)


def _first_lower(text: str) -> str:
    return text[:1].lower() + text[1:]


def _looked(picture: Picture) -> list[str]:
    stats = ("p50", "p99", "max") if picture.unit.lower_is_better else ("p50",)
    return [statistic_name(stat) for stat in stats]


def _table(picture: Picture) -> Table:
    unit = picture.unit
    rows: list[list[str | Cell]] = []
    for series in picture.series:
        worst = series.worst
        stored = len(series.windows)
        rows.append(
            [
                series.name,
                fmt.count(series.measured) + (f" ({fmt.count(stored)} stored)" if stored != series.measured else ""),
                fmt.count(series.samples),
                fmt.local_time(series.windows[0].started),
                fmt.local_time(series.windows[-1].finished),
                Cell(unit.format(worst.worst), "strong"),
                unit.format(series.tail),
                _last_change(series, unit),
            ]
        )
    header = ["board", "windows", "samples", "first", "last", "worst", "p99.99", "last change"]
    return table(header, rows, "lrrllrrl")


def _last_change(series: BoardSeries, unit: Unit) -> Cell:
    change = series.last_change
    if change is None:
        return Cell(f"none in {fmt.count(len(series.windows))} windows", "muted")
    text = (
        f"{fmt.local_time(change.first_after.started)}: {statistic_name(change.stat)} {change.size_text()} "
        f"{change.direction(unit)} — {change.changed_text()}"
    )
    return Cell(text, "bad" if change.direction(unit) == "worse" else "good")


def _board(picture: Picture, board: BoardPicture) -> Section:
    colours = {series.step: svg.PALETTE[i % len(svg.PALETTE)] for i, series in enumerate(board.series)}
    legend = tuple(Cell(series.step or board.name, swatch=colours[series.step]) for series in board.series)
    parts = [f for f in (_histogram(picture, board, colours, legend), _over_time(picture, board, colours, legend)) if f]
    return Section(heading(board.name), tuple(parts))


def _histogram(
    picture: Picture, board: BoardPicture, colours: dict[str, str], legend: tuple[Cell, ...]
) -> Figure | None:
    """Each step's cumulated histogram as a line on log axes, redrawn over the report's log-spaced bins;
    a dashed line at each step's largest sample."""
    kept = [s for s in board.series if s.histogram is not None and s.histogram.counts]
    if not kept:
        return None
    unit = picture.unit
    step = min(s.histogram.step for s in kept if s.histogram)
    buckets = {s.step: s.histogram.buckets() for s in kept if s.histogram}
    low = max(step, min(b[0][0] for b in buckets.values()))
    # Room right of the largest sample for its mark's label: it lies at most 5/6 of the way along the axis.
    largest = max(s.worst.worst for s in kept)
    high = max(largest * max(plots.MARGIN, (largest / low) ** 0.2), max(b[-1][0] + b[-1][1] for b in buckets.values()))
    edges = distribution.bin_edges(low, high, step)
    counts = {name: distribution.rebin(b, edges) for name, b in buckets.items()}
    scale = plots.scale(unit, edges[0], edges[-1])
    chart = svg.Chart(
        scale.axis(edges[0], edges[-1], unit.quantity, floor=step),
        svg.Axis(
            distribution.COUNT_FLOOR,
            max(max(c) for c in counts.values()) * 2,
            log=True,
            tick_text=svg.tick_number,
            label="samples (log scale)",
        ),
        title=f"{board.name}: {picture.metric} cumulated over {fmt.count(sum(s.measured for s in kept))} windows",
    )
    for row, series in enumerate(kept):
        colour = colours[series.step]
        chart.line(
            [(scale(x), y) for x, y in distribution.outline(edges, counts[series.step])],
            colour,
            title=f"{series.name}: {fmt.count(series.samples)} samples in {fmt.count(series.measured)} windows",
        )
        worst = series.worst
        chart.vertical(
            scale(worst.worst),
            f"max {unit.format(worst.worst)}",
            colour=colour,
            row=row,
            title=f"{series.name}: the largest sample, in window {_window(worst)}",
        )
    overflow = sum(s.histogram.overflow for s in kept if s.histogram)
    notes = [
        "Every sample of every window of the period, per bin (log scale); a dashed line at the largest sample.",
        *([f"{fmt.count(overflow)} samples beyond the histogram are not drawn."] if overflow else []),
    ]
    return Figure(chart, legend if len(kept) > 1 else (), tuple(notes))


def _over_time(picture: Picture, board: BoardPicture, colours: dict[str, str], legend: tuple[Cell, ...]) -> Figure:
    """The worst sample of each window at its start (or, for many windows, the worst of each span of
    windows as a level across it); the kernel releases and change points as dashed lines."""
    unit = picture.unit
    windows = board.windows
    start = _moment(windows[0].started)
    span = max((_moment(w.finished) - start).total_seconds() / _DAY for w in windows)
    worst = [w.worst for w in windows]
    scale = plots.scale(unit, min(worst), max(worst))
    floor = min((v for v in worst if v > 0), default=1.0) / plots.MARGIN
    chart = svg.Chart(
        svg.Axis(0, span, tick_text=_date_ticks(start, span), label="local time"),
        scale.axis(min(worst) / plots.MARGIN, max(worst) * plots.MARGIN, "worst sample", floor=floor),
        title=f"{board.name}: the worst {picture.metric} sample of each window",
    )

    def day(moment: str) -> float:
        return (_moment(moment) - start).total_seconds() / _DAY

    drawn_in_steps = False
    for series in board.series:
        colour = colours[series.step]
        if len(series.windows) <= MOST_STEPS:
            for w in series.windows:
                chart.line([(day(w.started), scale(w.worst))], colour, title=f"{_window(w)}: {unit.format(w.worst)}")
        else:
            drawn_in_steps = True
            chart.line([(day(a), scale(v)) for a, v in _steps(series.windows)], colour, title=series.name)
    for row, release in enumerate(board.releases):
        chart.vertical(
            day(release.started),
            release.kernel,
            row=row % _LABEL_ROWS,
            title=f"kernel {release.previous} → {release.kernel} from window {release.run_id[:SHORT_ID]} "
            f"({fmt.local_time(release.started)})",
        )
    for row, marks in enumerate(_change_marks(board)):
        biggest = max(marks, key=lambda change: abs(math.log(change.step.ratio)))
        chart.vertical(
            day(biggest.first_after.started),
            f"▲ {statistic_name(biggest.stat)} {biggest.size_text().split(' [')[0]}",
            colour="#b00020" if biggest.direction(unit) == "worse" else "#0a7a35",
            row=(len(board.releases) + row) % _LABEL_ROWS,
            title="; ".join(f"{statistic_name(c.stat)} {changes_section.line(c, unit)}" for c in marks),
        )
    notes = [
        (
            f"Kernel {board.first_kernel} at first; a grey dashed line where the board's kernel release changes, "
            "named by the new release; a red (worse) or green (better) one at a change point, its tooltip what changed."
        )
    ]
    if drawn_in_steps:
        notes.append(
            f"More than {MOST_STEPS} windows are drawn in {MOST_STEPS} steps or fewer, each the worst of the "
            "windows it spans; fewer are a dot each."
        )
    return Figure(chart, legend if len(board.series) > 1 else (), tuple(notes))


def _steps(windows: Sequence[Window]) -> list[tuple[str, float]]:
    """Windows in at most MOST_STEPS spans of consecutive windows, each a level from its first start to
    its last finish at the worst of its windows."""
    size = math.ceil(len(windows) / MOST_STEPS)
    points: list[tuple[str, float]] = []
    for first in range(0, len(windows), size):
        span = windows[first : first + size]
        level = max(w.worst for w in span)
        points += [(span[0].started, level), (span[-1].finished, level)]
    return points


def _change_marks(board: BoardPicture) -> list[list[ChangePoint]]:
    """The board's change points, those at one window (in several statistics or steps) together."""
    at: dict[str, list[ChangePoint]] = {}
    for series in board.series:
        for change in series.changes:
            at.setdefault(change.first_after.run_id, []).append(change)
    return sorted(at.values(), key=lambda marks: marks[0].first_after.started)


def _date_ticks(start: datetime, span: float) -> Callable[[float], str]:
    """A tick's text for days since ``start``: its date, or its day and time over a span of days."""
    shape = "%Y-%m-%d" if span >= 3 else "%m-%d %H:%M"
    return lambda days: (start + timedelta(days=days)).strftime(shape)


def _window(window: Window) -> str:
    """ "0123abcd (2026-11-20 10:00, 6.1.0-rt)": a window's short id, start and kernel."""
    return f"{window.run_id[:SHORT_ID]} ({fmt.local_time(window.started)}, {window.kernel})"


def _moment(utc: str) -> datetime:
    """A result timestamp in local time, as the tables show times (fmt.local_time)."""
    return datetime.fromisoformat(utc).astimezone()


def build_report(report: Report, metric_id: str) -> Section | None:
    """In a report of runs some of which are a monitor's windows, the picture of those windows (their
    change points explained from the report's own documents); nothing when none is."""
    docs = [run.doc for run in report.runs if "monitor" in run.doc]
    collector = longterm.collect(docs, [metric_id])
    if metric_id not in collector.metrics():
        return None
    by_id = {doc["run"]["id"]: doc for doc in docs}
    return build(collector.picture(metric_id, by_id.__getitem__), anchor=f"longterm-{metric_id}")
