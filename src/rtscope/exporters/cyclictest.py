"""A run as cyclictest's histogram (cyclictest -h), for the scripts that read and plot it."""

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rtscope.errors import RtscopeError
from rtscope.exporters.base import RunExport, chosen_metrics
from rtscope.model import result, units

NS_PER_US = 1000
# cyclictest has one row per microsecond, and at most this many (it caps its -h there).
MAX_ROWS = 1_000_000
# The metric measured as cyclictest measures, and its metrics per CPU, as cyclictest has one thread per CPU.
DEFAULT_METRIC = "lat.wakeup"
_PER_CPU = re.compile(re.escape(DEFAULT_METRIC) + r"\.cpu[0-9]+")
REBINNING = (
    "the exact min and max are in their own rows; the rest of each histogram bucket is shared among "
    "the microseconds its values cover, in proportion to how many of them each holds (largest "
    "remainders: counts stay whole and add up)"
)


def columns(doc: dict[str, Any], metric_ids: Iterable[str]) -> list[dict[str, Any]]:
    """The time metrics that become cyclictest's columns: those given, else one per CPU of lat.wakeup
    (lat.wakeup.cpuN, as cyclictest has one per thread), else lat.wakeup itself. A metric that is not
    a time is an RtscopeError."""
    ids = list(metric_ids)
    if not ids:
        per_cpu = [m["id"] for m in doc["metrics"] if _PER_CPU.fullmatch(m["id"])]
        ids = per_cpu or [DEFAULT_METRIC]
    metrics = chosen_metrics(doc, ids)
    for metric_doc in metrics:
        unit = result.unit(metric_doc)
        if unit.quantity != units.NS.quantity or result.is_periodic(metric_doc):
            raise RtscopeError(
                f"{metric_doc['id']} measures {unit.quantity}: a cyclictest histogram is of "
                "times (choose time metrics with --metric)"
            )
    return metrics


@dataclass(frozen=True)
class _Column:
    """One metric as a cyclictest thread: samples per µs row, the rest counted as overflows."""

    rows: list[int]
    overflows: int
    min_us: int
    avg_us: int
    max_us: int


def write(export: RunExport) -> str:
    """The histogram of each metric (:func:`columns`) as ``cyclictest -h ROWS`` prints it, one column
    per metric.

    Rows are whole microseconds (a sample of 21.9 µs is in row 21, as cyclictest truncates); see
    REBINNING for how rtscope's log-linear buckets become rows. ``export.rows`` defaults to enough for
    the largest maximum (at most MAX_ROWS); samples beyond the last row, and those beyond the probe's
    histogram, are overflows. Min, Avg and Max are the metric's exact figures, truncated to µs.
    cyclictest's list of the cycles that overflowed is not known: each thread's line gives only their
    number, as cyclictest does for the overflows it did not record.
    """
    doc, adjusted, rows = export.run.doc, export.adjusted, export.rows
    metrics = columns(doc, export.metrics)
    if rows is None:
        highest = max((_whole_us(result.summary(m, adjusted=adjusted)["max"]) for m in metrics), default=0)
        rows = min(highest + 1, MAX_ROWS)
    threads = [_column(m, adjusted, rows) for m in metrics]
    lines = [
        (
            f"# rtscope run {doc['run']['id']}: {' '.join(m['id'] for m in metrics)}, {export.figures_are}, "
            f"1 us rows: {REBINNING}"
        ),
        # One line each, whatever the reason holds: every comment line must start with "#".
        *(f"# {m['id']} is invalid: {' '.join(result.invalid_reason(m).split())}" for m in metrics if not m["valid"]),
        "# Histogram",
    ]
    lines += [f"{row:06d} " + "\t".join(f"{column.rows[row]:06d}" for column in threads) for row in range(rows)]
    lines += [
        "# Total:" + "".join(f" {sum(column.rows):09d}" for column in threads),
        "# Min Latencies:" + "".join(f" {column.min_us:05d}" for column in threads),
        "# Avg Latencies:" + "".join(f" {column.avg_us:05d}" for column in threads),
        "# Max Latencies:" + "".join(f" {column.max_us:05d}" for column in threads),
        "# Histogram Overflows:" + "".join(f" {column.overflows:05d}" for column in threads),
        "# Histogram Overflow at cycle number:",
        *(
            f"# Thread {number}:" + (f" # {column.overflows:05d} others" if column.overflows else "")
            for number, column in enumerate(threads)
        ),
        "",
    ]
    return "\n".join(lines) + "\n"


def _column(metric_doc: dict[str, Any], adjusted: bool, rows: int) -> _Column:
    histogram, measured = metric_doc["histogram"], metric_doc["stats"]
    # The histogram is as measured; adjusted rows take the overhead off each value, as the figures do.
    offset = metric_doc["overhead_ns"] if adjusted else 0.0
    counts, overflows = [0] * rows, histogram["overflow"]
    buckets, step = histogram["buckets"], result.histogram_step(metric_doc)
    for index, (lower, width, count) in enumerate(buckets):
        # The whole ns the bucket's steps cover (a step is 1 ns unless the result says otherwise).
        first, last = math.floor(lower * step), math.ceil((lower + width) * step) - 1
        known: list[float] = []
        if measured["min"] is not None:
            # The exact min and max are samples: each has its own row, and they narrow the buckets that
            # hold them, so that the rows agree with the Min and Max lines.
            low, high = measured["min"], measured["max"]
            ends = ((low, index == 0), (high, index == len(buckets) - 1))
            known = [value for value, at_end in ends if at_end and first <= value <= last][:count]
            narrowed = max(first, math.ceil(low)), min(last, math.floor(high))
            if narrowed[0] <= narrowed[1]:
                first, last = narrowed
        shares = _spread(first, last, count - len(known), offset)
        for value in known:
            shares[_row(value, offset)] = shares.get(_row(value, offset), 0) + 1
        for row, share in shares.items():
            if row < rows:
                counts[row] += share
            else:
                overflows += share
    figures = result.summary(metric_doc, adjusted=adjusted)
    return _Column(counts, overflows, *(_whole_us(figures[key]) for key in ("min", "mean", "max")))


def _spread(first: int, last: int, count: int, offset: float) -> dict[int, int]:
    """Share ``count`` samples with values first..last ns (as measured, all equally likely) among the µs
    rows that the values less ``offset`` fall in, each row in proportion to how many of the values it
    holds."""
    top = _row(first, offset)

    def start(row: int) -> int:
        """The first value (ns, as measured) in ``row``."""
        return first if row == top else math.ceil(row * NS_PER_US + offset)

    weights = {row: min(last + 1, start(row + 1)) - start(row) for row in range(top, _row(last, offset) + 1)}
    return dict(zip(weights, _apportion(count, list(weights.values())), strict=True))


def _row(value: float, offset: float) -> int:
    return int(max(0.0, value - offset) // NS_PER_US)


def _apportion(count: int, weights: list[int]) -> list[int]:
    """``count`` split in proportion to ``weights`` into whole numbers that add up to it: each part's
    whole share, then one more to the largest remainders (the earlier part first on a tie)."""
    total = sum(weights)
    parts = [count * weight // total for weight in weights]
    by_remainder = sorted(range(len(weights)), key=lambda i: (-(count * weights[i] % total), i))
    for i in by_remainder[: count - sum(parts)]:
        parts[i] += 1
    return parts


def _whole_us(ns: float | None) -> int:
    """Whole microseconds, truncated as cyclictest's are; a missing figure (no samples) is 0, as there."""
    return 0 if ns is None else int(ns // NS_PER_US)
