"""A metric's worst sample per window over the run (result format 3's series), with the threshold the
bench counted samples above."""

import math
from typing import Any

from rtscope.model import units
from rtscope.render import fmt, plots, svg
from rtscope.render.document import Figure, Section, heading
from rtscope.render.subjects import Report

MOST_STEPS = 300  # steps of a worst-sample-over-time line: about two pixels each


def build(report: Report, metric_id: str) -> Section | None:
    """The series of the runs that keep one, on a log axis; nothing when none does. Series and
    thresholds are in ns, as measured."""
    kept = [
        (run, m)
        for run, m in report.measured(metric_id)
        if m.get("series") and any(v is not None for v in m["series"]["max"])
    ]
    if not kept:
        return None
    thresholds = sorted({m["threshold"]["ns"] for _, m in report.measured(metric_id) if m.get("threshold")})
    worst = [v for _, m in kept for v in m["series"]["max"] if v is not None] + thresholds
    scale = plots.scale(units.NS, min(worst), max(worst))
    y_axis = scale.axis(min(worst) / plots.MARGIN, max(worst) * plots.MARGIN, "worst sample", floor=1)
    x_axis = svg.Axis(
        0,
        max(len(m["series"]["max"]) * m["series"]["window_s"] for _, m in kept),
        tick_text=svg.tick_number,
        label="time since the bench started, s",
    )
    windows = sorted({fmt.seconds(m["series"]["window_s"]) for _, m in kept})
    notes = [
        (
            f"The worst sample of each {' or '.join(windows)} window, as measured, drawn across its window; "
            "a gap is a window without samples."
        )
    ]
    if any(len(m["series"]["max"]) > MOST_STEPS for _, m in kept):
        notes.append(
            f"A series of more than {MOST_STEPS} windows is drawn in {MOST_STEPS} steps or fewer, each "
            "the worst of the windows it spans."
        )
    notes += [
        f"{run.name}: {fmt.count(m['series']['dropped'])} samples fell outside the windows kept."
        for run, m in kept
        if m["series"]["dropped"]
    ]
    figures = []
    for chart_runs in plots.by_colour(kept):
        chart = svg.Chart(x_axis, y_axis, title=f"{metric_id}: worst sample over time, runs {plots.names(chart_runs)}")
        for threshold in thresholds:
            chart.reference(scale(threshold), f"threshold {fmt.duration(threshold)}")
        for run, m in chart_runs:
            worst_window = max(v for v in m["series"]["max"] if v is not None)
            chart.line(
                [point and (point[0], scale(point[1])) for point in _window_steps(m["series"])],
                run.colour,
                title=f"{run.caption}: worst {fmt.duration(worst_window)}",
            )
        figures.append(Figure(chart, plots.legend([run for run, _ in chart_runs]), tuple(notes)))
    return Section(heading("Worst latency over time"), tuple(figures))


def _window_steps(series: dict[str, Any]) -> list[svg.Point | None]:
    """The worst sample of each window as a level across the window, broken where a window has none;
    a long series in at most MOST_STEPS steps, each the worst of the windows it spans."""
    worst, window = series["max"], series["window_s"]
    span = math.ceil(len(worst) / MOST_STEPS)
    points: list[svg.Point | None] = []
    for first in range(0, len(worst), span):
        kept = [value for value in worst[first : first + span] if value is not None]
        last = min(first + span, len(worst))
        points += [(first * window, max(kept)), (last * window, max(kept))] if kept else [None]
    return points
