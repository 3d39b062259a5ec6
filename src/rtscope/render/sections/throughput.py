"""The per-period metrics (Thread-Metric's iterations): periods, median, range and the ratio to the
calibration metric."""

from typing import Any

from rtscope.model import result
from rtscope.render import cells, fmt
from rtscope.render.document import Cell, Section, heading, table
from rtscope.render.fmt import MISSING
from rtscope.render.subjects import OneRun


def build(subject: OneRun) -> Section | None:
    """A row per per-period metric, each figure in its unit."""
    metrics = [m for m in subject.doc["metrics"] if result.is_periodic(m)]
    if not metrics:
        return None
    with_labels = cells.labels_shown(metrics)
    header = [*cells.metric_header(with_labels), "periods", "period", "median", "min", "max", "vs baseline", "validity"]
    rows: list[list[str | Cell]] = [
        [
            *cells.metric_cells(m, with_labels),
            fmt.count(m["stats"]["count"]),
            fmt.seconds(m["period_s"]),
            *(result.unit(m).format(m["stats"][key]) for key in ("p50", "min", "max")),
            baseline_text(m),
            cells.validity(m),
        ]
        for m in metrics
    ]
    quantities = " and ".join(dict.fromkeys(result.unit(m).quantity for m in metrics))
    return Section(
        heading("Throughput", f", {quantities} per reporting period"),
        (table(header, rows, "l" * with_labels + "lrrrrrrl"),),
    )


def baseline_text(metric: dict[str, Any]) -> str:
    """ "0.512× tm.basic": the metric's median over its calibration metric's, or "—"."""
    baseline = metric["baseline"]
    if baseline is None or baseline["ratio"] is None:
        return MISSING
    return f"{fmt.ratio(baseline['ratio'])} {baseline['metric']}"
