"""Monitored windows as the probe writes them, for retention's tests and its storage simulation
(evaluation/retention.py): lat.wakeup-like metrics whose samples are a log-normal body with a rare Pareto tail
(tests/support/simulated.py's shape), put in the probe's log-linear histogram by the probe's own arithmetic
(probe/src/stats.c: rts_hist_index, 128 sub-buckets, overflow from 2^36), with its figures as the probe
computes them: count, min, max, mean and standard deviation (n − 1) exact, percentiles from the histogram
(the middle of the bucket of rank ⌈q·n⌉, clamped to min and max), a worst-per-second series and the
samples over a threshold.

Two ways to draw a window: :func:`window_doc` from samples (the tests keep them, to check a merge against
the truth), :func:`drawn_window_doc` from the histogram's bucket probabilities alone (a multinomial draw:
the counts one would get from that many samples, at a fraction of the cost; the simulation's year of
windows).
"""

from __future__ import annotations

import copy
import json
import math
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from rtscope.analysis import stats
from support import builders

SUB_BITS = 7
SUB = 1 << SUB_BITS  # RTS_HIST_SUB: linear buckets per power of two
LIMIT = 1 << 36  # RTS_HIST_LIMIT: samples from here on are overflow
THRESHOLD_NS = 100_000
INTERVAL_US = 1000
TYPICAL_NS = 12_000.0  # the body's median
BODY_SIGMA = 0.25
TAIL_SHARE = 1e-3
TAIL_ALPHA = 2.5
QUANTILES = {"p50": 0.50, "p90": 0.90, "p99": 0.99, "p999": 0.999, "p9999": 0.9999}


def metric_ids(count: int) -> list[tuple[str, dict[str, int]]]:
    """``count`` metrics of one lat.wakeup bench: all CPUs together, then one per CPU."""
    return [("lat.wakeup", {})] + [(f"lat.wakeup{{cpu={cpu}}}", {"cpu": cpu}) for cpu in range(count - 1)]


def bucket_index(values: np.ndarray) -> np.ndarray:
    """rts_hist_index of each value (whole steps below LIMIT)."""
    values = values.astype(np.int64)
    msb = np.floor(np.log2(np.maximum(values, 1))).astype(np.int64)
    shift = np.maximum(msb - SUB_BITS, 0)
    index = SUB + shift * SUB + (values >> shift) - SUB
    return np.where(values < SUB, values, index)


def bucket_lower(index: np.ndarray) -> np.ndarray:
    shift = np.maximum(index - SUB, 0) // SUB
    return np.where(index < SUB, index, (SUB + (index - SUB) % SUB) << shift)


def bucket_width(index: np.ndarray) -> np.ndarray:
    return np.where(index < SUB, 1, 1 << (np.maximum(index - SUB, 0) // SUB))


def samples(rng: np.random.Generator, count: int, *, scale: float = 1.0, tail_scale: float = 1.0) -> np.ndarray:
    """Wake-up latencies in whole ns: a log-normal body, TAIL_SHARE of them from a Pareto tail that starts
    at the body's p99.9 (``tail_scale`` moves the tail alone)."""
    body = scale * TYPICAL_NS * np.exp(rng.normal(0.0, BODY_SIGMA, count))
    tail = rng.random(count) < TAIL_SHARE
    start = scale * TYPICAL_NS * math.exp(3.09 * BODY_SIGMA)
    body[tail] = start * tail_scale * (1 + rng.pareto(TAIL_ALPHA, int(tail.sum())))
    return np.maximum(1, np.round(body)).astype(np.int64)


def metric_from_samples(metric_id: str, labels: dict[str, int], values: np.ndarray, per_second: int) -> dict[str, Any]:
    """A metric of ``values`` (in the order taken, ``per_second`` a second) as the probe writes it."""
    inside = values[values < LIMIT]
    index, counts = np.unique(bucket_index(inside), return_counts=True)
    buckets = [
        [int(lo), int(w), int(n)] for lo, w, n in zip(bucket_lower(index), bucket_width(index), counts, strict=True)
    ]
    seconds = [int(chunk.max()) for chunk in np.array_split(values, max(1, math.ceil(len(values) / per_second)))]
    return _metric(
        metric_id,
        labels,
        buckets,
        overflow=int(len(values) - len(inside)),
        figures=(
            len(values),
            float(values.min()),
            float(values.max()),
            float(values.mean()),
            float(values.std(ddof=1)),
        ),
        series=seconds,
        over=int((values > THRESHOLD_NS).sum()),
    )


def _metric(
    metric_id: str,
    labels: dict[str, int],
    buckets: list[list[int]],
    *,
    overflow: int,
    figures: tuple[int, float, float, float, float],
    series: list[int],
    over: int,
    series_s: int = 1,
) -> dict[str, Any]:
    count, smallest, largest, mean, stddev = figures
    summary: dict[str, Any] = {"count": count, "min": smallest, "max": largest, "mean": round(mean, 4),
                               "stddev": round(stddev, 4)}  # fmt: skip
    for name, quantile in QUANTILES.items():
        summary[name] = min(max(stats.histogram_quantile(buckets, count, quantile), smallest), largest)
    return {
        "id": metric_id,
        "bench": "lat.wakeup",
        "unit": "ns",
        "labels": labels,
        "description": "actual minus planned wake-up of a periodic thread (clock_nanosleep, absolute time)",
        "valid": True,
        "invalid_reason": None,
        "checks": {**labels, "interval_ns": INTERVAL_US * 1000, "wakeups": count, "overruns": 0},
        "overhead_ns": 0,
        "stats": summary,
        "adjusted": copy.deepcopy(summary),
        "cycles": None,
        "histogram": {
            "scheme": "log-linear",
            "sub_buckets": SUB,
            "buckets": buckets,
            "overflow": overflow,
            "overflow_above": LIMIT,
        },
        "threshold": {"ns": THRESHOLD_NS, "over": over},
        "series": {"window_s": series_s, "max": series, "dropped": 0},
    }


def skeleton(
    run_id: str, board: str, window: int, started: datetime, length_s: float, **monitor: Any
) -> dict[str, Any]:
    """A window's document without metrics: format 4, one lat.wakeup bench of ``length_s`` seconds."""
    doc = builders.monitor_window(run_id, board, window, **monitor)
    doc["run"]["started"] = _utc(started)
    doc["run"]["finished"] = _utc(started + timedelta(seconds=length_s))
    doc["run"]["argv"] = ["rtscope-probe", "run", "lat.wakeup", "--duration", f"{length_s:g}s"]
    doc["timing"]["cycle_counter"] = None
    doc["timing"]["cycles_per_ns"] = doc["timing"]["cycle_overhead_cycles"] = None
    doc["benches"] = [
        {"id": "lat.wakeup", "params": {"interval_us": INTERVAL_US, "cpu": -1, "threshold_us": THRESHOLD_NS // 1000,
         "duration_s": length_s}, "status": "ok", "elapsed_s": length_s, "error": None}
    ]  # fmt: skip
    doc["metrics"] = []
    return doc


def window_doc(
    rng: np.random.Generator,
    run_id: str,
    board: str,
    window: int,
    started: datetime,
    *,
    metrics: int = 2,
    per_second: int = 100,
    length_s: int = 60,
    scale: float = 1.0,
    tail_scale: float = 1.0,
    **monitor: Any,
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """A window of ``metrics`` metrics, ``per_second`` samples a second for ``length_s`` seconds, and the
    samples of each metric (by id)."""
    doc = skeleton(run_id, board, window, started, length_s, **monitor)
    drawn = {}
    for metric_id, labels in metric_ids(metrics):
        values = samples(rng, per_second * length_s, scale=scale, tail_scale=tail_scale)
        drawn[metric_id] = values
        doc["metrics"].append(metric_from_samples(metric_id, labels, values, per_second))
    return doc, drawn


class Shape:
    """The shape's bucket probabilities (every bucket up to 2^36 steps), for drawing windows fast."""

    def __init__(self, scale: float = 1.0) -> None:
        index = np.arange(int(bucket_index(np.array([LIMIT - 1]))[0]) + 1)
        self.lower, self.width = bucket_lower(index), bucket_width(index)
        upper = (self.lower + self.width).astype(float)
        cdf = _cdf(upper - 0.5, scale)  # samples are rounded to whole ns
        self.probability = np.diff(np.concatenate([[0.0], cdf]))
        self.probability[-1] += 1.0 - cdf[-1]  # the rest (overflow is rarer than 1e-12): into the last
        self.cumulative = np.cumsum(self.probability)

    def worst_of(self, rng: np.random.Generator, count: int, n: int) -> np.ndarray:
        """``count`` draws of the largest of ``n`` samples: the bucket of quantile U^(1/n), a value in it."""
        at = np.searchsorted(self.cumulative, rng.random(count) ** (1.0 / n) * self.cumulative[-1])
        at = np.minimum(at, len(self.lower) - 1)
        return self.lower[at] + (rng.random(count) * self.width[at]).astype(np.int64)


def _cdf(x: np.ndarray, scale: float) -> np.ndarray:
    from scipy import stats as scipy_stats

    body = scipy_stats.lognorm.cdf(x, BODY_SIGMA, scale=scale * TYPICAL_NS)
    start = scale * TYPICAL_NS * math.exp(3.09 * BODY_SIGMA)
    tail = np.where(x > start, 1.0 - (start / np.maximum(x, start)) ** TAIL_ALPHA, 0.0)
    return (1 - TAIL_SHARE) * body + TAIL_SHARE * tail


def drawn_window_doc(
    rng: np.random.Generator,
    shape: Shape,
    run_id: str,
    board: str,
    window: int,
    started: datetime,
    *,
    metrics: int = 10,
    per_second: int = 1000,
    length_s: int = 300,
    series_s: int = 1,
    **monitor: Any,
) -> dict[str, Any]:
    """A window drawn from ``shape``'s bucket probabilities: counts as ``per_second`` × ``length_s`` samples
    give them, each second's worst drawn as the largest of ``per_second``, the maximum the worst of those
    (its bucket made to hold it and nothing above); mean and spread from the buckets' middles. The series
    holds the worst of every ``series_s`` seconds (the probe's --series-window)."""
    doc = skeleton(run_id, board, window, started, length_s, **monitor)
    count = per_second * length_s
    for metric_id, labels in metric_ids(metrics):
        counts = rng.multinomial(count, shape.probability)
        seconds = shape.worst_of(rng, length_s, per_second)
        largest = int(seconds.max())
        top = int(bucket_index(np.array([largest]))[0])
        counts[top] += counts[top + 1 :].sum()
        counts[top + 1 :] = 0
        if counts[top] == 0:
            counts[top], counts[int(np.argmax(counts))] = 1, counts[int(np.argmax(counts))] - 1
        filled = np.nonzero(counts)[0]
        lower, width, n = shape.lower[filled], shape.width[filled], counts[filled]
        middle = lower + (width - 1) / 2
        mean = float((middle * n).sum() / count)
        stddev = math.sqrt(float((n * (middle - mean) ** 2).sum()) / (count - 1))
        smallest = int(lower[0] + rng.integers(0, width[0]))
        over = int(n[lower > THRESHOLD_NS].sum())
        buckets = [[int(lo), int(w), int(c)] for lo, w, c in zip(lower, width, n, strict=True)]
        doc["metrics"].append(
            _metric(
                metric_id,
                labels,
                buckets,
                overflow=0,
                figures=(count, smallest, largest, mean, stddev),
                series=[int(seconds[at : at + series_s].max()) for at in range(0, length_s, series_s)],
                over=over,
                series_s=series_s,
            )
        )
    return doc


def _utc(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def probe_text(doc: Any, indent: int = 0) -> str:
    """``doc`` as the probe's JSON writer lays it out: objects a key a line, arrays on one line."""
    if isinstance(doc, dict):
        if not doc:
            return "{}"
        inner = " " * (indent + 2)
        items = ",\n".join(f"{inner}{json.dumps(key)}: {probe_text(value, indent + 2)}" for key, value in doc.items())
        return "{\n" + items + "\n" + " " * indent + "}"
    if isinstance(doc, list):
        return "[" + ", ".join(probe_text(item, indent) for item in doc) + "]"
    return json.dumps(doc)
