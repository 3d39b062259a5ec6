"""When the worst samples came: per metric that keeps a series or a threshold (result format 3), the
worst sample of a typical window and of the worst one, when that was, and the samples over the threshold."""

from statistics import median
from typing import Any

from rtscope.model import result, units, values
from rtscope.render import cells, fmt
from rtscope.render.document import Section, heading, table
from rtscope.render.fmt import MISSING
from rtscope.render.subjects import OneRun


def build(subject: OneRun) -> Section | None:
    """A row per metric with a series or a threshold, as measured (series and thresholds are in ns)."""
    metrics = [
        m for m in subject.doc["metrics"] if not result.is_periodic(m) and (m.get("series") or m.get("threshold"))
    ]
    if not metrics:
        return None
    with_labels = cells.labels_shown(metrics)
    header = [*cells.metric_header(with_labels), "windows", "median window", "worst window", "at", "over threshold"]
    rows = [[*cells.metric_cells(m, with_labels), *_cells(m)] for m in metrics]
    return Section(
        heading("Over time", ", as measured: worst sample per window"),
        (table(header, rows, "l" * with_labels + "lrrrrl"),),
    )


def _cells(metric: dict[str, Any]) -> list[str]:
    series, threshold = metric.get("series"), metric.get("threshold")
    row = [MISSING] * 5
    if series and (worst := [value for value in series["max"] if value is not None]):
        at = series["max"].index(max(worst))
        row[:4] = [
            f"{fmt.count(len(series['max']))} × {fmt.seconds(series['window_s'])}",
            fmt.duration(median(worst)),
            fmt.duration(max(worst)),
            f"{values.exact(at * series['window_s'])} s",
        ]
    if threshold:
        samples = metric["stats"]["count"]
        share = f" ({units.significant(100 * threshold['over'] / samples)} %)" if samples else ""
        row[4] = f"{fmt.count(threshold['over'])} above {fmt.duration(threshold['ns'])}{share}"
    return row
