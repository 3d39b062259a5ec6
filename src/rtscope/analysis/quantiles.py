"""Tail quantiles with their uncertainty: distribution-free confidence intervals from order statistics,
and how many samples a claim about a quantile needs (docs/statistics.md).

Of n samples of any continuous distribution, the number below its quantile q is Binomial(n, q). So
the j-th smallest sample lies above the quantile with probability P(Bin(n, q) < j), and the k-th below
it with probability P(Bin(n, q) ≥ k): the ranks j < k that put at most (1 − confidence)/2 on each side
bound the quantile with at least that confidence, whatever the distribution (the distribution-free
interval of Hahn & Meeker's Statistical Intervals). With ties (whole clock steps) or histogram buckets the interval only widens: read
from a histogram, the lower bound is the lowest value of the bucket holding rank j and the upper the
highest of the bucket holding rank k (within the smallest and largest sample, which the probe records
exactly: a rank in the histogram's overflow is bounded by the largest), so each bound stays on its side
of the order statistic it stands for.

A two-sided interval exists only when n is large enough that all n samples fall below the quantile
with probability at most (1 − confidence)/2 — q^n ≤ (1 − c)/2: p99.99 at 95 % needs 36,887 samples.
Below that the interval is open above (:attr:`Interval.enough` False): the run's p99.99 is then little
more than its largest sample.

The binomial is summed exactly while its variance n·q·(1 − q) is below 250 (the median's n < 1000,
where rtscope.analysis.stats summed it before); beyond, its normal approximation is exact to within a
rank. No numpy for a histogram: `show` of a run without raw samples reads these without paying numpy's
start-up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from rtscope.model import result

CONFIDENCE = 0.95
# Below this variance of Binomial(n, q) its tails are summed exactly; from it, the normal approximation.
_EXACT_BELOW_VARIANCE = 250.0
# The exact sums start this many standard deviations (plus as many ranks) from n·q: beyond, Bernstein's
# inequality leaves less than e^-30 of probability, far below any confidence asked.
_WINDOW_SDS = 20.0
# The tail statistics of a metric of samples that get an interval, with the quantile each stands for.
TAILS = {"p99": 0.99, "p999": 0.999, "p9999": 0.9999}
# Where higher is better (a throughput), the tail that hurts is the low one: the mirror statistics
# (rtscope.analysis.stats.LOW_TAIL_QUANTILES).
LOW_TAILS = {"p1": 0.01, "p01": 0.001, "p001": 0.0001}


@dataclass(frozen=True)
class Interval:
    """The confidence interval of quantile ``quantile`` (statistic ``key``) of a metric's ``samples``.

    ``low`` is -inf where no sample bounds it from below, ``high`` inf where none bounds it from above:
    the samples are too few (``enough`` False) — for p99 … p99.99 the upper bound is the one missing,
    for p1 … p0.01 the lower. Bounds are in the metric's unit, overhead-adjusted when the interval was read so (floored at 0).
    """

    key: str
    quantile: float
    samples: int
    low: float
    high: float
    confidence: float

    @property
    def needed(self) -> int:
        """The samples a two-sided interval of this quantile needs at this confidence."""
        return samples_needed(self.quantile, self.confidence)

    @property
    def enough(self) -> bool:
        """Whether the samples are enough for a two-sided interval."""
        return self.samples >= self.needed


def ranks(n: int, q: float, confidence: float = CONFIDENCE) -> tuple[int, int]:
    """Ranks (1-based) j < k of the order statistics that bound quantile q of n samples with at least
    ``confidence``: the largest j with P(Bin(n, q) < j) ≤ (1 − c)/2 and the smallest k with
    P(Bin(n, q) ≥ k) ≤ (1 − c)/2. j is 0 where no sample bounds the quantile from below, k is n + 1
    where none bounds it from above. Raises ValueError unless 0 < q < 1 and 0 < confidence < 1."""
    if not 0 < q < 1 or not 0 < confidence < 1:
        raise ValueError(f"a quantile and a confidence lie strictly between 0 and 1, not {q} and {confidence}")
    if n <= 0:
        return 0, n + 1
    tail = (1 - confidence) / 2
    variance = n * q * (1 - q)
    if variance >= _EXACT_BELOW_VARIANCE:
        # With continuity correction each bound is half a rank wider than it need be: never narrower.
        half_width = NormalDist().inv_cdf(1 - tail) * math.sqrt(variance)
        return max(1, math.floor(n * q - half_width)), min(n + 1, math.ceil(n * q + half_width) + 1)
    reach = _WINDOW_SDS * (math.sqrt(variance) + 1)
    first, last = max(0, math.floor(n * q - reach)), min(n, math.ceil(n * q + reach))
    pmf = [_log_pmf(n, q, i) for i in range(first, last + 1)]
    below, j = 0.0, first  # P(X < j), what lies below the window counted as nothing
    for log_p in pmf:
        if below + math.exp(log_p) > tail:
            break
        below += math.exp(log_p)
        j += 1
    above, k = 0.0, last + 1  # P(X ≥ k)
    for log_p in reversed(pmf):
        if above + math.exp(log_p) > tail:
            break
        above += math.exp(log_p)
        k -= 1
    return j, k


def _log_pmf(n: int, q: float, i: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * math.log(q) + (n - i) * math.log1p(-q)


def samples_needed(q: float, confidence: float = CONFIDENCE) -> int:
    """The smallest n for which quantile q has a two-sided interval at ``confidence`` (:func:`ranks` gives
    1 ≤ j and k ≤ n): the smallest n with both q^n and (1 − q)^n at most (1 − confidence)/2 — the
    largest (smallest) sample must fall short of (beyond) the quantile that rarely. 36,887 for p99.99 at
    95 %, 3,688 for p99.9, 368 for p99, 6 for the median."""
    if not 0 < q < 1 or not 0 < confidence < 1:
        raise ValueError(f"a quantile and a confidence lie strictly between 0 and 1, not {q} and {confidence}")
    tail = (1 - confidence) / 2
    return max(_first_power_at_most(math.log(q), tail), _first_power_at_most(math.log1p(-q), tail))


def _first_power_at_most(log_base: float, limit: float) -> int:
    """The smallest n ≥ 1 with exp(n · log_base) ≤ limit: P(Bin(n, q) = n) and P(Bin(n, q) = 0) as
    :func:`ranks` reckons them, so that the two agree on the boundary to the last bit."""
    n = max(1, math.ceil(math.log(limit) / log_base))
    # The division's rounding may put the estimate one off either way.
    while n > 1 and math.exp((n - 1) * log_base) <= limit:
        n -= 1
    while math.exp(n * log_base) > limit:
        n += 1
    return n


def bad_tail(metric_doc: dict[str, Any]) -> dict[str, float]:
    """The tail statistics that hurt for a metric, with their quantiles: :data:`TAILS` where lower is
    better (a time), :data:`LOW_TAILS` where higher is (a throughput), as its unit has it."""
    return TAILS if result.unit(metric_doc).lower_is_better else LOW_TAILS


def intervals(
    metric_doc: dict[str, Any],
    confidence: float = CONFIDENCE,
    *,
    adjusted: bool = True,
    tail: dict[str, float] | None = None,
) -> dict[str, Interval]:
    """The interval of each statistic of ``tail`` (by default the metric's :func:`bad_tail`), by
    statistic key; empty for a metric without samples and a per-period one (its periods are a handful
    of figures, not samples).

    Read from the raw samples where the metric kept every one, else from its histogram; overhead-adjusted
    as rtscope.analysis.stats.statistic adjusts (the metric's overhead subtracted, floored at 0) unless
    ``adjusted`` is False."""
    if result.is_periodic(metric_doc) or not metric_doc["stats"]["count"]:
        return {}
    raw = metric_doc.get("raw") or []
    if len(raw) != metric_doc["stats"]["count"] and not metric_doc.get("histogram"):
        return {}  # neither every sample nor their histogram: nothing to read order statistics from
    histogram = None if len(raw) == metric_doc["stats"]["count"] else _HistogramReader(metric_doc)
    n = histogram.size if histogram else len(raw)
    if n == 0:
        return {}
    tail = bad_tail(metric_doc) if tail is None else tail
    bounds = {key: ranks(n, q, confidence) for key, q in tail.items()}
    wanted = sorted({rank for pair in bounds.values() for rank in pair if 1 <= rank <= n})
    step, offset = result.histogram_step(metric_doc), metric_doc["overhead_ns"] if adjusted else 0.0
    if histogram is None:
        lows = highs = _order_statistics(raw, wanted, step)
    else:
        # A bucket may reach past the smallest or largest sample, which no order statistic does.
        smallest, largest = metric_doc["stats"]["min"], metric_doc["stats"]["max"]
        lows = {rank: max(histogram.value_at(rank, upper=False), smallest) for rank in wanted}
        highs = {rank: min(histogram.value_at(rank, upper=True), largest) for rank in wanted}
    return {
        key: Interval(
            key,
            tail[key],
            n,
            _less(lows[j], offset) if j >= 1 else -math.inf,
            _less(highs[k], offset) if k <= n else math.inf,
            confidence,
        )
        for key, (j, k) in bounds.items()
    }


def _less(value: float, offset: float) -> float:
    return value if math.isinf(value) else max(0.0, value - offset)


def _order_statistics(raw: list[int], wanted: list[int], step: float) -> dict[int, float]:
    """The raw samples (in histogram steps) of the ``wanted`` ranks (1-based, ascending), in the metric's
    unit. numpy's partition, not a sort: a report reads a run of 90,000 raw samples twice, and sorting
    them as a list took 60 ms each time."""
    import numpy as np

    ordered = np.partition(np.fromiter(raw, dtype=np.int64, count=len(raw)), [rank - 1 for rank in wanted])
    return {rank: float(ordered[rank - 1] * step) for rank in wanted}


class _HistogramReader:
    """Order statistics of a metric's histogram, each as the bucket that holds it: its lowest or
    highest value (rtscope.analysis.stats.Histogram.value_at, without numpy)."""

    def __init__(self, metric_doc: dict[str, Any]) -> None:
        histogram = metric_doc["histogram"]
        self._step = result.histogram_step(metric_doc)
        self._buckets: list[tuple[int, int, int]] = sorted(
            (lower, width, count) for lower, width, count in histogram["buckets"] if count
        )
        self._overflow_above = histogram["overflow_above"] * self._step
        self.size = sum(count for _, _, count in self._buckets) + histogram["overflow"]

    def value_at(self, rank: int, *, upper: bool) -> float:
        """The lowest (``upper``: the highest) value of the bucket holding the sample of ``rank``
        (1-based, ascending); in the overflow, where the overflow starts (``upper``: infinity)."""
        seen = 0
        for lower, width, count in self._buckets:
            seen += count
            if seen >= rank:
                return float((lower + width - 1 if upper else lower) * self._step)
        return math.inf if upper else self._overflow_above
