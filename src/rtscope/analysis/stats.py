"""The statistics of a metric's samples and the tests of one run's samples against another's: tests that
suit skewed latency data, not a t-test on means. Whether two *conditions* differ is judged over their
repetitions (rtscope.analysis.evidence); these tests say whether two runs do, where each condition has
one run.

- Mann–Whitney U on raw samples, where every run kept them; every sample counts. For small samples
  its p-value is exact (scipy.stats' permutation distribution, ties included: 3 Thread-Metric
  periods against 3 can be no rarer than p = 0.1); for large ones it is the normal approximation
  with tie and continuity correction, reckoned from how many samples each group has of each
  distinct value — samples are whole histogram steps, so there are far fewer values than samples.
- Otherwise a confidence interval of each group's median read from its pooled histogram. The
  interval is the exact bootstrap interval of the median: a resample's median is at most the value
  of rank r exactly when at least half the resample is, and how many are is Binomial(n, r/n) — so
  the bootstrap distribution needs no resampling (Efron 1979), and its percentile interval is the
  pair of order statistics around n/2 that a Binomial(n, 1/2) puts 1 − confidence outside of.
- For a tail statistic (p90 … max), the tail test: how many samples of one group lie beyond the
  other's percentile, against the binomial share one distribution would put there. Where higher is
  better (a throughput: rtscope.model.units), the tail that hurts is the low one: its statistics are
  p10 … min (LOW_TAIL_QUANTILES, read from the histogram), tested the same way from below.

Histograms are counted in steps (rtscope.model.result.histogram_step: 1 ns for a time metric) and
read here in the metric's unit; the runs of a group are pooled only when their steps agree.

numpy and scipy are imported by the functions that use them, not with this module: the command line
imports every command and so this module, and a command that tests nothing (show, export, run …)
need not pay their start-up — 0.15 s for numpy, 0.5 to 1 s for scipy.stats on a two-core machine,
which is why scipy serves only the exact small-sample test here (compare and report of 20 runs must
take under 2 s together: evaluation/analyzer.sh).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

from rtscope.analysis import quantiles
from rtscope.model import result

if TYPE_CHECKING:
    import numpy as np

CONFIDENCE = 0.95
SIGNIFICANCE = 1 - CONFIDENCE
# Up to this many ways of splitting the samples, Mann–Whitney's p-value is exact: the normal
# approximation calls 3 periods against 3 different (p = 0.047) where no split can be rarer than 1 in 10.
_EXACT_MANN_WHITNEY_UP_TO = 20_000
# Up to this many samples in the tails the binomial is summed exactly; beyond, its normal approximation.
_EXACT_BINOMIAL_UP_TO = 100_000
# The tail statistics and the share of samples above each; max is the largest of n: 1 / (n + 1) above it.
TAIL_QUANTILES = {"p90": 0.90, "p99": 0.99, "p999": 0.999, "p9999": 0.9999, "max": None}
# The low tail's statistics, where higher is better: each with the share of samples below it; min is the
# smallest of n. A summary has min; the others are read from the histogram (statistic).
_LOW_TAIL_SHARES = {"p10": 0.10, "p1": 0.01, "p01": 0.001, "p001": 0.0001}
LOW_TAIL_QUANTILES = {**_LOW_TAIL_SHARES, "min": None}
LOW_TAIL_NAMES = {"p10": "p10", "p1": "p1", "p01": "p0.1", "p001": "p0.01", "min": "min"}
# Each high-tail statistic's mirror on the low side.
LOW_SIDE = {"p90": "p10", "p99": "p1", "p999": "p01", "p9999": "p001", "max": "min"}
# Mann–Whitney needs this many raw samples in every run; fewer, and the histograms' medians are compared.
_RAW_AT_LEAST = 20


# --- Mann–Whitney U -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Tally:
    """Samples as values (numpy) and how many samples have each; a value may come more than once."""

    values: np.ndarray
    counts: np.ndarray


def mann_whitney(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value of the Mann–Whitney U test that samples a and b come from one distribution."""
    import numpy as np

    return _mann_whitney(*(_tally([(np.asarray(samples, dtype=float), 1.0, 0.0)]) for samples in (a, b)))


def _mann_whitney(a: _Tally, b: _Tally) -> float:
    n1, n2 = int(a.counts.sum()), int(b.counts.sum())
    if n1 == 0 or n2 == 0:
        raise ValueError("Mann–Whitney U needs samples on both sides")
    if _comb_at_most(n1 + n2, min(n1, n2), _EXACT_MANN_WHITNEY_UP_TO):
        return _exact_mann_whitney(a, b)
    return _asymptotic_mann_whitney(a, b)


def _comb_at_most(n: int, k: int, bound: int) -> bool:
    """Whether C(n, k) ≤ bound, without computing a coefficient of thousands of digits: C(n−k+i, i)
    grows with i, so the product can stop as soon as it passes the bound."""
    coefficient = 1
    for i in range(1, k + 1):
        coefficient = coefficient * (n - k + i) // i
        if coefficient > bound:
            return False
    return True


def _exact_mann_whitney(a: _Tally, b: _Tally) -> float:
    """The permutation p-value over every way of splitting the samples (at most
    _EXACT_MANN_WHITNEY_UP_TO of them, so scipy enumerates them all rather than drawing some)."""
    import numpy as np
    from scipy import stats as scipy_stats

    every_split = scipy_stats.PermutationMethod(n_resamples=_EXACT_MANN_WHITNEY_UP_TO)
    samples_a, samples_b = (np.repeat(tally.values, tally.counts.astype(np.int64)) for tally in (a, b))
    return float(scipy_stats.mannwhitneyu(samples_a, samples_b, method=every_split).pvalue)


def _asymptotic_mann_whitney(a: _Tally, b: _Tally) -> float:
    """The normal approximation of U with tie and continuity correction (as scipy.stats.mannwhitneyu's
    "asymptotic" method; tests/test_stats.py holds it to that), from the tallies: tied samples share
    the mean of their ranks. Sorting each run's distinct values, not every sample, is what lets every
    raw sample count: two cells of ten runs, 920,000 samples each, take 0.07 s from the documents'
    lists to the p-value, where scipy.stats.mannwhitneyu takes 0.24 s on ready arrays alone."""
    import numpy as np

    values, where = np.unique(np.concatenate([a.values, b.values]), return_inverse=True)
    where = where.ravel()  # numpy 2.0.0 gave it the input's shape
    of_a = np.bincount(where[: len(a.values)], weights=a.counts, minlength=len(values))
    of_b = np.bincount(where[len(a.values) :], weights=b.counts, minlength=len(values))
    tied = of_a + of_b
    shared_rank = np.cumsum(tied) - (tied - 1) / 2
    n1, n2 = float(of_a.sum()), float(of_b.sum())
    n = n1 + n2
    u = float((shared_rank * of_a).sum()) - n1 * (n1 + 1) / 2
    variance = n1 * n2 / 12 * ((n + 1) - float((tied**3 - tied).sum()) / (n * (n - 1)))
    if variance <= 0:
        return 1.0  # every value equal
    z = (abs(u - n1 * n2 / 2) - 0.5) / math.sqrt(variance)
    return min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2)))


def _tally(runs: Sequence[tuple[np.ndarray, float, float]]) -> _Tally:
    """The tally of the samples of runs given as (samples, step, offset), a sample counting
    ``step`` × sample − ``offset``: each run's samples are whole steps, with few distinct values."""
    import numpy as np

    parts = [(*np.unique(samples, return_counts=True), step, offset) for samples, step, offset in runs]
    return _Tally(
        np.concatenate([values * step - offset for values, _, step, offset in parts]),
        np.concatenate([counts for _, counts, _, _ in parts]),
    )


def _raw_tally(metrics: Sequence[dict[str, Any]]) -> _Tally:
    """Every raw sample of the runs, in the metric's unit and overhead-adjusted."""
    import numpy as np

    # Raw samples are whole numbers: read as such, a run of 10^5 takes half the time a float array would.
    return _tally(
        [
            (np.fromiter(m["raw"], dtype=np.int64, count=len(m["raw"])), result.histogram_step(m), m["overhead_ns"])
            for m in metrics
        ]
    )


# --- Histograms -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Histogram:
    """Samples in buckets, in the metric's unit: per bucket (numpy arrays, ascending) its lowest and
    highest value, its count and the running total of counts; and the samples at or above
    ``overflow_above``, which no bucket holds."""

    lowest: np.ndarray
    highest: np.ndarray
    counts: np.ndarray
    cumulative: np.ndarray
    overflow: int
    overflow_above: float

    @property
    def size(self) -> int:
        """How many samples it holds, the overflow included."""
        return int(self.counts.sum()) + self.overflow

    def value_at(self, rank: int, *, upper: bool) -> float:
        """The lowest (``upper``: the highest) value of the bucket that holds the sample of ``rank``
        (1-based, ascending); in the overflow, where the overflow starts (``upper``: infinity)."""
        bucket = int(self.cumulative.searchsorted(rank))
        if bucket == len(self.cumulative):
            return math.inf if upper else self.overflow_above
        return float(self.highest[bucket] if upper else self.lowest[bucket])

    def count_above(self, limit: float) -> int:
        """The samples of buckets wholly above ``limit``, and the overflow when it starts above it."""
        return int(self.counts[self.lowest > limit].sum()) + (self.overflow if self.overflow_above > limit else 0)

    def count_below(self, limit: float) -> int:
        """The samples of buckets wholly below ``limit`` (the overflow is above every bucket)."""
        return int(self.counts[self.highest < limit].sum())


def pooled(metrics: Sequence[dict[str, Any]]) -> Histogram | None:
    """The histogram of all the metrics' samples: buckets with the same bounds add up, and the overflow
    starts where the lowest one's does. None when their histogram steps differ: such buckets do not
    line up."""
    import numpy as np

    steps = {result.histogram_step(m) for m in metrics}
    if len(steps) != 1:
        return None
    (step,) = steps
    buckets = np.concatenate([np.asarray(m["histogram"]["buckets"], dtype=np.int64).reshape(-1, 3) for m in metrics])
    bounds, where = np.unique(buckets[:, :2], axis=0, return_inverse=True)
    counts = np.bincount(where.ravel(), weights=buckets[:, 2], minlength=len(bounds)).astype(np.int64)
    lowest, width = bounds[:, 0], bounds[:, 1]
    return Histogram(
        lowest * step,
        (lowest + width - 1) * step,
        counts,
        np.cumsum(counts),
        sum(m["histogram"]["overflow"] for m in metrics),
        min(m["histogram"]["overflow_above"] for m in metrics) * step,
    )


def median_interval(histogram: Histogram, confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """The bootstrap confidence interval of the median of ``histogram``, in its unit: from the lowest
    value of the bucket holding the lower order statistic to the highest of the bucket holding the
    upper one. None for an empty histogram."""
    n = histogram.size
    if n == 0:
        return None
    low_rank, high_rank = _median_ranks(n, confidence)
    return histogram.value_at(low_rank, upper=False), histogram.value_at(high_rank, upper=True)


def _median_ranks(n: int, confidence: float) -> tuple[int, int]:
    """Ranks (1-based) j ≤ k with P(Binomial(n, ½) < j) and P(Binomial(n, ½) ≥ k) each at most (1 − c)/2:
    rtscope.analysis.quantiles.ranks of the median, at least the first and last sample."""
    low = max(1, quantiles.ranks(n, 0.5, confidence)[0])
    return low, n + 1 - low


# --- Verdicts -------------------------------------------------------------------------------------------


def tail_test(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]], key: str) -> float | None:
    """Two-sided p-value that the samples above a's ``key`` are shared between a and b as their sizes
    say they would be if both came from one distribution.

    The limit is the highest value of the histogram bucket holding a's statistic, so that both groups'
    samples above it are counted exactly. Given t samples above it in all, b's share of them is
    Binomial(t, n_b / (n_a + n_b)) under that hypothesis: a conditional test that needs no estimate of
    the tail, and serves the maximum too (no sample of a is above its own max bucket: b needs several
    above it, one is no evidence)."""
    pooled_a, pooled_b = pooled(a), pooled(b)
    if pooled_a is None or pooled_b is None or pooled_a.size == 0 or pooled_b.size == 0:
        return None
    n_a, n_b = pooled_a.size, pooled_b.size
    quantile = TAIL_QUANTILES[key]
    rank = n_a if quantile is None else max(1, math.ceil(quantile * n_a))
    limit = pooled_a.value_at(rank, upper=True)
    if math.isinf(limit):
        return None  # a's statistic is in its overflow: nothing is known above it
    # Each group's timestamp overhead differs a little: move the limit onto b's measured scale.
    limit_b = limit - _mean_overhead(a) + _mean_overhead(b)
    above_a, above_b = pooled_a.count_above(limit), pooled_b.count_above(limit_b)
    return _binomial_two_sided(above_b, above_a + above_b, n_b / (n_a + n_b))


def low_tail_test(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]], key: str) -> float | None:
    """As :func:`tail_test`, from below: whether the samples below a's low statistic ``key`` (p10 …
    min) are shared between a and b as their sizes say; the limit is the lowest value of the bucket
    holding a's statistic."""
    pooled_a, pooled_b = pooled(a), pooled(b)
    if pooled_a is None or pooled_b is None or pooled_a.size == 0 or pooled_b.size == 0:
        return None
    n_a, n_b = pooled_a.size, pooled_b.size
    quantile = LOW_TAIL_QUANTILES[key]
    rank = 1 if quantile is None else max(1, math.floor(quantile * n_a))
    limit = pooled_a.value_at(rank, upper=False)
    limit_b = limit - _mean_overhead(a) + _mean_overhead(b)
    below_a, below_b = pooled_a.count_below(limit), pooled_b.count_below(limit_b)
    return _binomial_two_sided(below_b, below_a + below_b, n_b / (n_a + n_b))


def bad_side(key: str, lower_is_better: bool) -> str:
    """The statistic that reads tail ``key`` (p90 … max) on the side that hurts: itself where lower is
    better, its mirror (p10 … min) where higher is (a throughput's worst batch is its lowest)."""
    return key if lower_is_better else LOW_SIDE.get(key, key)


def statistic_name(key: str) -> str:
    """What people call statistic ``key``: "p99.9", "p1"."""
    return result.STATISTICS.get(key) or LOW_TAIL_NAMES[key]


def statistic(metric_doc: dict[str, Any], key: str, *, adjusted: bool = True) -> float | None:
    """Statistic ``key`` of a metric (overhead-adjusted unless ``adjusted`` is False): a summary's, or a
    low-tail one (p10 … p0.01) read as the probe reads its percentiles — from the raw samples when it
    kept them (linear between the closest ranks), else from the histogram (the middle of the bucket of
    rank ⌈q·n⌉), within the smallest and largest sample. None when the metric has no samples."""
    summary = result.summary(metric_doc, adjusted=adjusted)
    if key in summary:
        figure: float | None = summary[key]
        return figure
    quantile = _LOW_TAIL_SHARES[key]
    measured = metric_doc["stats"]
    if not measured["count"]:
        return None
    step, raw = result.histogram_step(metric_doc), metric_doc.get("raw")
    value: float
    if raw:
        ordered = sorted(raw)
        rank = quantile * (len(ordered) - 1)
        low = int(rank)
        high = ordered[min(low + 1, len(ordered) - 1)]
        value = (ordered[low] + (rank - low) * (high - ordered[low])) * step
    else:
        value = histogram_quantile(metric_doc["histogram"]["buckets"], measured["count"], quantile) * step
    value = min(max(value, measured["min"]), measured["max"])
    return max(0.0, value - metric_doc["overhead_ns"]) if adjusted else value


def histogram_quantile(buckets: Sequence[Sequence[int]], count: int, quantile: float) -> float:
    """Quantile ``quantile`` of ``count`` samples (the overflow included) as the probe reads it from its
    histogram (rts_hist_quantile): the middle of the bucket holding rank ⌈q·count⌉, in histogram steps;
    infinity when that rank lies in the overflow. ``buckets`` are [lower, width, count], ascending; the
    caller clamps the figure to the smallest and largest sample, as the probe does."""
    rank, seen = max(1, math.ceil(quantile * count)), 0
    for lower, width, bucket_count in buckets:
        seen += bucket_count
        if seen >= rank:
            return lower + (width - 1) / 2
    return math.inf


def _binomial_two_sided(k: int, n: int, p: float) -> float:
    """Two-sided p-value of k successes in n trials of probability p: the probability of every outcome
    no more likely than k (exact, summed in log space; normal beyond a size where that is exact enough).

    As scipy.stats.binomtest(k, n, p).pvalue (tests/test_stats.py holds it to that), without importing
    scipy.stats for it: every compare runs this test, and that import alone would take longer than
    compare itself."""
    if n == 0:
        return 1.0
    if n > _EXACT_BINOMIAL_UP_TO:
        sd = math.sqrt(n * p * (1 - p))
        return min(1.0, math.erfc(max(0.0, abs(k - n * p) - 0.5) / sd / math.sqrt(2)))

    def log_pmf(i: int) -> float:
        return (
            math.lgamma(n + 1)
            - math.lgamma(i + 1)
            - math.lgamma(n - i + 1)
            + i * math.log(p)
            + (n - i) * math.log1p(-p)
        )

    observed = log_pmf(k) + 1e-7  # equally likely outcomes count too (relative tolerance)
    # The distribution is unimodal: the outcomes no more likely than k are its two tails. Each is summed
    # from its inner end outwards until the terms underflow to 0.0 (all beyond are smaller still). The
    # inner end is found by bisection, the pmf falling away from the mode: a linear walk to it took as
    # many steps as half the samples when k is far out (compare's verdict on a study of 192 cells runs
    # a thousand such tests).
    mode = min(n, math.floor((n + 1) * p))
    total = 0.0
    for start, step, end in ((mode, -1, -1), (mode + 1, 1, n + 1)):
        inside, outside = -1, abs(end - start)  # steps from start: the last more likely than k, the first not
        while outside - inside > 1:
            middle = (inside + outside) // 2
            if log_pmf(start + step * middle) > observed:
                inside = middle
            else:
                outside = middle
        i = start + step * outside
        while i != end and (term := math.exp(log_pmf(i))) > 0.0:
            total += term
            i += step
    return min(1.0, total)


def body_test(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]]) -> tuple[str, float | None]:
    """Mann–Whitney U on every raw sample where each run kept enough, else the bootstrap intervals of
    the pooled histograms' medians: how far apart they are against how wide."""
    if all(len(m.get("raw") or ()) >= _RAW_AT_LEAST for m in (*a, *b)):
        return "MW", _mann_whitney(_raw_tally(a), _raw_tally(b))
    pooled_a, pooled_b = pooled(a), pooled(b)
    if pooled_a is None or pooled_b is None:
        return "CI", None
    interval_a, interval_b = median_interval(pooled_a), median_interval(pooled_b)
    if interval_a is None or interval_b is None or math.inf in (*interval_a, *interval_b):
        return "CI", None
    z = NormalDist().inv_cdf(1 - SIGNIFICANCE / 2)
    shift = (sum(interval_b) / 2 - _mean_overhead(b)) - (sum(interval_a) / 2 - _mean_overhead(a))
    spread = math.hypot(*((high - low) / (2 * z) for low, high in (interval_a, interval_b)))
    # Samples are whole steps: a median known to within one bucket still has a spread.
    step = result.histogram_step(a[0])
    return "CI", math.erfc(abs(shift) / max(spread, step / 2) / math.sqrt(2))


def mean_test(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]]) -> float | None:
    """Two-sided p-value of Welch's z test that the pooled samples of a and b have one mean (their
    counts are thousands: the means are near normal whatever the samples' shape). Samples that do not
    vary at all (instruction time) leave no doubt: p is 1 for equal means, 0 for different ones."""
    pooled_a, pooled_b = _pooled_moments(a), _pooled_moments(b)
    if pooled_a is None or pooled_b is None:
        return None
    (n_a, mean_a, var_a), (n_b, mean_b, var_b) = pooled_a, pooled_b
    shift = (mean_b - _mean_overhead(b)) - (mean_a - _mean_overhead(a))
    error = math.sqrt(var_a / n_a + var_b / n_b)
    if error == 0:
        return 1.0 if shift == 0 else 0.0
    return math.erfc(abs(shift) / error / math.sqrt(2))


def _pooled_moments(metrics: Sequence[dict[str, Any]]) -> tuple[int, float, float] | None:
    """The count, mean and variance of the runs' samples taken together (unadjusted), from each run's
    exact count, mean and standard deviation; None when there are fewer than two samples."""
    # A run without samples has no mean (null), one sample no spread.
    parts = [
        (m["stats"]["count"], m["stats"]["mean"], m["stats"]["stddev"] or 0.0) for m in metrics if m["stats"]["count"]
    ]
    n = sum(count for count, _, _ in parts)
    if n < 2:
        return None
    mean = sum(count * part_mean for count, part_mean, _ in parts) / n
    squares = sum(count * (sd**2 + (part_mean - mean) ** 2) for count, part_mean, sd in parts)
    return n, mean, squares / n


def _mean_overhead(metrics: Sequence[dict[str, Any]]) -> float:
    overheads: list[float] = [m["overhead_ns"] for m in metrics]
    return sum(overheads) / len(overheads)
