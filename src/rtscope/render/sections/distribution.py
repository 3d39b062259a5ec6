"""A metric's distribution in each run: its histogram redrawn over log-spaced bins, on log axes."""

import bisect
import math
from collections.abc import Sequence

from rtscope.model import result, units
from rtscope.render import fmt, plots, svg
from rtscope.render.document import Figure, Section, heading
from rtscope.render.subjects import Report

# A histogram is redrawn in about this many bins, evenly spaced on its log axis, so that runs overlay
# readably; never finer than the probe's buckets (at most 0.78 % wide).
HISTOGRAM_BINS = 160
FINEST_BIN = 1.008
COUNT_FLOOR = 0.6  # bottom of a log count axis: a bin of one sample stands clear of an empty one


def build(report: Report, metric_id: str) -> Section | None:
    """Each run's histogram of ``metric_id`` as a line; runs overlaid, up to one per colour in a chart,
    every chart with the same axes. Nothing when no run has a sample of it."""
    measured = [(run, m) for run, m in report.measured(metric_id) if not result.is_periodic(m) and plots.samples(m)]
    if not measured:
        return None
    unit, step = result.unit(measured[0][1]), result.histogram_step(measured[0][1])
    # Runs whose every sample lies beyond the histogram have no bucket (the notes say so).
    bucketed = [buckets for _, m in measured if (buckets := plots.buckets(m))]
    low = max(step, min((buckets[0][0] for buckets in bucketed), default=step))
    edges = bin_edges(low, max((buckets[-1][0] + buckets[-1][1] for buckets in bucketed), default=2 * low), step)
    counts = {run.index: rebin(plots.buckets(m), edges) for run, m in measured}
    bin_width = 100 * (edges[-1] / edges[0]) ** (1 / (len(edges) - 1)) - 100
    notes = [f"Samples per bin; bins about {units.significant(bin_width, 2)} % wide, evenly spaced on the log axis."]
    notes += [
        f"{run.name}: {fmt.count(m['histogram']['overflow'])} samples at or above "
        f"{unit.format(m['histogram']['overflow_above'] * step)} lie beyond the histogram and are not drawn."
        for run, m in measured
        if m["histogram"]["overflow"]
    ]
    scale = plots.scale(unit, edges[0], edges[-1])
    figures = []
    for chart_runs in plots.by_colour(measured):
        chart = svg.Chart(
            scale.axis(edges[0], edges[-1], unit.quantity, floor=step),
            svg.Axis(
                COUNT_FLOOR,
                max(max(c) for c in counts.values()) * 2,
                log=True,
                tick_text=svg.tick_number,
                label="samples (log scale)",
            ),
            title=f"{metric_id}: histogram of runs {plots.names(chart_runs)}",
        )
        for run, m in chart_runs:
            chart.line(
                [(scale(x), y) for x, y in outline(edges, counts[run.index])],
                run.colour,
                title=f"{run.caption}: {fmt.count(plots.samples(m))} samples",
            )
        figures.append(Figure(chart, plots.legend([run for run, _ in chart_runs]), tuple(notes)))
    return Section(heading("Distribution"), tuple(figures))


def bin_edges(low: float, high: float, step: float) -> list[float]:
    """Bin edges from ``low`` to past ``high``, evenly spaced on a log scale but at least one histogram
    ``step`` apart: samples are whole steps, and narrower bins would leave every other one empty."""
    ratio = max(FINEST_BIN, (high / low) ** (1 / HISTOGRAM_BINS))
    edges = [math.floor(low / step)]
    # At least one bin: every sample of a run may be 0 (app.wait.runqueue when nothing preempted).
    while edges[-1] * step < high or len(edges) < 2:
        edges.append(max(edges[-1] + 1, math.ceil(edges[-1] * ratio)))
    return [edge * step for edge in edges]


def rebin(buckets: Sequence[tuple[float, float, int]], edges: Sequence[float]) -> list[int]:
    """The samples of ``buckets`` per bin of ``edges``, each bucket in the bin of its middle."""
    counts = [0] * (len(edges) - 1)
    for lower, width, count in buckets:
        index = bisect.bisect_right(edges, lower + width / 2) - 1
        counts[min(max(index, 0), len(counts) - 1)] += count
    return counts


def outline(edges: Sequence[float], counts: Sequence[int]) -> list[svg.Point]:
    """The outline of a histogram: a corner wherever the count changes, so that a run of equal (often
    empty) bins is one stretch. An empty bin lies on the x axis: a log axis has no 0, the chart puts it
    at its bottom."""
    points: list[svg.Point] = []
    level = 0
    for edge, count in zip(edges, [*counts, 0], strict=True):
        if count != level:
            points += [(edge, level), (edge, count)]
            level = count
    return points
