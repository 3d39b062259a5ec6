"""A run as CSV: one row per metric, every statistic as a plain number, and the tail quantiles' 95 %
intervals (rtscope.analysis.quantiles)."""

import csv
import io
import math

from rtscope.analysis import quantiles
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
    *(f"{result.STATISTICS[key]}_{side}" for key in quantiles.TAILS for side in ("low", "high")),
)


def write(export: RunExport) -> str:
    """One CSV row per metric asked for (default: every metric): the run, the metric and its labels
    ("cpu=1;model=python", by name), its unit, its validity, every statistic of its summary as plain
    numbers (:func:`csv_number`) in its unit — the statistic count is always a number of samples or
    periods — its threshold where it has one, and the bounds of the 95 % interval of p99, p99.9 and
    p99.99 (a metric of samples; none for a per-period one). A missing value is an empty cell: an
    upper bound is missing where the samples are too few for one (p99.99 needs 36,887)."""
    doc, run = export.run.doc, export.run.doc["run"]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    for metric_doc in chosen_metrics(doc, export.metrics):
        figures = result.summary(metric_doc, adjusted=export.adjusted)
        threshold = metric_doc.get("threshold") or {}
        # The columns are p99's, p99.9's and p99.99's, whichever tail hurts the metric.
        found = quantiles.intervals(metric_doc, adjusted=export.adjusted, tail=quantiles.TAILS)
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
                *(
                    csv_number(bound if key in found and math.isfinite(bound := getattr(found[key], side)) else None)
                    for key in quantiles.TAILS
                    for side in ("low", "high")
                ),
            ]
        )
    return out.getvalue()
