"""The metrics of samples: count and distribution, overhead-adjusted unless asked otherwise, and validity."""

from rtscope.model import result
from rtscope.render import cells, fmt
from rtscope.render.document import Cell, Paragraph, Section, heading, table
from rtscope.render.subjects import OneRun

STAT_COLUMNS = ("min", "p50", "p90", "p99", "p999", "max", "mean", "stddev")


def build(subject: OneRun) -> Section | None:
    """A row per metric of samples, each figure in its metric's unit; "none measured" when the run has
    no metric at all, nothing when it has only per-period ones (the throughput section shows them)."""
    metrics = subject.doc["metrics"]
    sampled = [m for m in metrics if not result.is_periodic(m)]
    if metrics and not sampled:
        return None
    aside = (
        ", overhead-adjusted (--raw-times: as measured)" if subject.adjusted else ", as measured, not overhead-adjusted"
    )
    if not sampled:
        return Section(heading("Metrics", aside), (Paragraph(("none measured",)),))
    with_labels = cells.labels_shown(sampled)
    header = [*cells.metric_header(with_labels), "count", *(result.STATISTICS[key] for key in STAT_COLUMNS), "validity"]
    rows: list[list[str | Cell]] = []
    for m in sampled:
        figures, unit = result.summary(m, adjusted=subject.adjusted), result.unit(m)
        rows.append(
            [
                *cells.metric_cells(m, with_labels),
                fmt.count(figures["count"]),
                *(unit.format(figures[key]) for key in STAT_COLUMNS),
                cells.validity(m),
            ]
        )
    align = "l" * with_labels + "lr" + "r" * len(STAT_COLUMNS) + "l"
    return Section(heading("Metrics", aside), (table(header, rows, align),))
