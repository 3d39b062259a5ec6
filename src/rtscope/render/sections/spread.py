"""A metric's spread across the report's groups (compare's groups): one box plot per group, its runs'
samples pooled."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rtscope.model import result
from rtscope.render import plots, svg
from rtscope.render.document import Figure, Section, heading
from rtscope.render.subjects import Report

BOX_QUANTILES = (0.25, 0.5, 0.75, 0.99)
BOX_COLOUR = svg.PALETTE[0]


@dataclass(frozen=True)
class Box:
    """What a box plot draws of a distribution (in the metric's unit, as measured)."""

    low: float
    quartile1: float
    median: float
    quartile3: float
    p99: float
    high: float


def build(report: Report, metric_id: str) -> Section | None:
    """One box per group with samples of ``metric_id``, on a log axis; nothing when no run has one."""
    groups = []
    for of in report.groups:
        members = [
            (run, m)
            for run, m in report.measured(metric_id)
            if run.group is of and not result.is_periodic(m) and plots.samples(m)
        ]
        if members:
            names = f" ({plots.names(members)})" if len(members) > 1 else ""
            groups.append((report.caption(of) + names, members))
    if not groups:
        return None
    unit, step = result.unit(groups[0][1][0][1]), result.histogram_step(groups[0][1][0][1])
    boxes = [_box([m for _, m in members]) for _, members in groups]
    low, high = min(b.low for b in boxes) / plots.MARGIN, max(b.high for b in boxes) * plots.MARGIN
    scale = plots.scale(unit, low, high)
    chart = svg.Chart(
        scale.axis(low, high, unit.quantity, floor=step),
        svg.Bands([name for name, _ in groups]),
        title=f"{metric_id}: spread across runs",
        height=svg.BAND_HEIGHT * len(groups) + 70,
    )
    for index, ((name, members), b) in enumerate(zip(groups, boxes, strict=True)):
        dots = [scale(m["stats"]["p99"]) for _, m in members if len(members) > 1 and m["stats"]["p99"] is not None]
        chart.box(
            index,
            (scale(b.low), scale(b.p99)),
            (scale(b.quartile1), scale(b.quartile3)),
            scale(b.median),
            extreme=scale(b.high),
            dots=dots,
            colour=BOX_COLOUR,
            title=f"{name}: "
            + ", ".join(
                f"{what} {unit.format(value)}"
                for what, value in (
                    ("min", b.low),
                    ("p25", b.quartile1),
                    ("p50", b.median),
                    ("p75", b.quartile3),
                    ("p99", b.p99),
                    ("max", b.high),
                )
            ),
        )
    return Section(
        heading("Spread across runs"),
        (
            Figure(
                chart,
                (),
                (
                    (
                        "Box p25 to p75, thick line p50 (read from the histograms, a group's runs pooled); "
                        "whiskers min to p99; ring max; dots: each run's own p99 in a group of several. Groups as "
                        "rtscope compare forms them."
                    ),
                ),
            ),
        ),
    )


def _box(metric_docs: Sequence[dict[str, Any]]) -> Box:
    """The box of the metrics' samples together: quantiles read from their histograms (interpolated in
    the bucket, as measured), min and max exact."""
    buckets = sorted(bucket for m in metric_docs for bucket in plots.buckets(m))
    total = sum(plots.samples(m) for m in metric_docs)
    low: float = min(m["stats"]["min"] for m in metric_docs if m["stats"]["min"] is not None)
    high: float = max(m["stats"]["max"] for m in metric_docs if m["stats"]["max"] is not None)

    def quantile(share: float) -> float:
        rank, seen = share * total, 0
        for lower, width, count in buckets:
            if seen + count >= rank:
                return min(max(lower + width * (rank - seen) / count, low), high)
            seen += count
        return high  # the rank lies among the samples beyond the histogram

    quartile1, median, quartile3, p99 = (quantile(share) for share in BOX_QUANTILES)
    return Box(low, quartile1, median, quartile3, p99, high)
