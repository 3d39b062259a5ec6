"""A run as CSV: one row per metric, every statistic as a plain number."""

import csv
import io

from rtscope.exporters.base import RunExport, chosen_metrics, csv_number
from rtscope.model import result

HEADER = (
    "run",
    "label",
    "hostname",
    "metric",
    "labels",
    "unit",
    "figures",
    "valid",
    "invalid_reason",
    *result.STATISTICS.values(),
    "threshold_ns",
    "over_threshold",
)


def write(export: RunExport) -> str:
    """One CSV row per metric asked for (default: every metric): the run, the metric and its labels
    ("cpu=1;model=python", by name), its unit, its validity, every statistic of its summary as plain
    numbers (:func:`csv_number`) in its unit — the statistic count is always a number of samples or
    periods — and its threshold where it has one. A missing value is an empty cell."""
    doc, run = export.run.doc, export.run.doc["run"]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    for metric_doc in chosen_metrics(doc, export.metrics):
        figures = result.summary(metric_doc, adjusted=export.adjusted)
        threshold = metric_doc.get("threshold") or {}
        # Sorted: one text for one set of labels, whatever order a probe wrote them in.
        labels = ";".join(f"{name}={value}" for name, value in sorted(result.labels(metric_doc).items()))
        writer.writerow(
            [
                run["id"],
                run["label"] or "",
                doc["system"]["hostname"],
                metric_doc["id"],
                labels,
                metric_doc["unit"],
                export.figures_are,
                "true" if metric_doc["valid"] else "false",
                metric_doc["invalid_reason"] or "",
                *(csv_number(figures[key]) for key in result.STATISTICS),
                csv_number(threshold.get("ns")),
                csv_number(threshold.get("over")),
            ]
        )
    return out.getvalue()
