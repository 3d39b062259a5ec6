"""Whether two runs really differ: tests that suit skewed latency data, not a t-test on means.

- Mann–Whitney U on raw samples, where both runs kept them (normal approximation with tie correction
  and continuity correction: latency runs have thousands of samples).
- Otherwise a confidence interval of each run's median read from its histogram. The interval is the
  exact bootstrap interval of the median: a resample's median is at most the value of rank r exactly
  when at least half the resample is, and how many are is Binomial(n, r/n) — so the bootstrap
  distribution needs no resampling (Efron 1979), and its percentile interval is the pair of order
  statistics around n/2 that a Binomial(n, 1/2) puts 1 − confidence outside of.
- For a tail statistic (p90 … max), the tail test: how many samples of one run lie beyond the other's
  percentile, against the binomial share one distribution would put there.
"""

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

CONFIDENCE = 0.95
SIGNIFICANCE = 1 - CONFIDENCE
# Below this many samples the binomial is summed exactly; above, its normal approximation is exact enough.
_EXACT_BINOMIAL_BELOW = 1000
# Up to this many ways of splitting the samples, Mann–Whitney's p-value is counted exactly: the normal
# approximation calls 3 periods against 3 different (p = 0.047) where no split can be rarer than 1 in 10.
_EXACT_MANN_WHITNEY_UP_TO = 20_000


@dataclass(frozen=True)
class Difference:
    """The verdict on B against A: the test used, its p-value, and whether the difference is real."""

    test: str          # "MW" (Mann–Whitney U on raw samples or periods), "CI" (bootstrap interval of the
                       # median) or "tail" (exceedances of the first group's tail statistic)
    p_value: float
    real: bool         # significant, and beyond the run-to-run spread where that is known
    beyond_spread: bool | None = None  # None: a group has a single run


def mann_whitney(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value of the Mann–Whitney U test that a and b come from one distribution."""
    n1, n2 = len(a), len(b)
    if n1 == 0 or n2 == 0:
        raise ValueError("Mann–Whitney U needs samples on both sides")
    # Ranks by distinct value (latencies are whole ns, so there are far fewer values than samples):
    # tied samples share the mean of their ranks.
    in_a, in_b = Counter(a), Counter(b)
    ranks: list[tuple[float, int, int]] = []  # (shared rank, samples of a, samples of b) per value
    below = 0
    for value in sorted(in_a.keys() | in_b.keys()):
        of_a, of_b = in_a[value], in_b[value]
        ranks.append((below + (of_a + of_b + 1) / 2, of_a, of_b))
        below += of_a + of_b
    rank_sum_a = sum(rank * of_a for rank, of_a, _ in ranks)
    n = n1 + n2
    if _comb_at_most(n, min(n1, n2), _EXACT_MANN_WHITNEY_UP_TO):
        every_rank = [rank for rank, of_a, of_b in ranks for _ in range(of_a + of_b)]
        return _exact_mann_whitney(every_rank, n1, rank_sum_a)
    ties = sum((of_a + of_b) ** 3 - (of_a + of_b) for _, of_a, of_b in ranks)
    u = rank_sum_a - n1 * (n1 + 1) / 2
    variance = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    if variance <= 0:
        return 1.0  # every value equal
    z = (abs(u - n1 * n2 / 2) - 0.5) / math.sqrt(variance)
    return min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2)))


def _comb_at_most(n: int, k: int, bound: int) -> bool:
    """Whether C(n, k) ≤ bound, without computing a coefficient of thousands of digits: C(n−k+i, i)
    grows with i, so the product can stop as soon as it passes the bound."""
    coefficient = 1
    for i in range(1, k + 1):
        coefficient = coefficient * (n - k + i) // i
        if coefficient > bound:
            return False
    return True


def _exact_mann_whitney(ranks: list[float], n1: int, rank_sum_a: float) -> float:
    """The share of all ways to pick n1 of the ranks whose sum is at least as far from its mean as a's."""
    mean = n1 * (len(ranks) + 1) / 2
    observed = abs(rank_sum_a - mean) - 1e-9  # ranks are halves at worst: no rounding trouble beyond this
    extreme = sum(1 for pick in itertools.combinations(ranks, n1) if abs(sum(pick) - mean) >= observed)
    return extreme / math.comb(len(ranks), n1)


def median_interval(histogram: dict[str, Any], confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """The bootstrap confidence interval of the median of a metric's histogram (result format), in ns
    as measured: from the lower bound of the bucket holding the lower order statistic to the upper bound
    of the bucket holding the upper one. None for an empty histogram."""
    n = _size(histogram)
    if n == 0:
        return None
    low_rank, high_rank = _median_ranks(n, confidence)
    return _value_at(histogram, low_rank, upper=False), _value_at(histogram, high_rank, upper=True)


def _median_ranks(n: int, confidence: float) -> tuple[int, int]:
    """Ranks (1-based) j ≤ k with P(Binomial(n, ½) < j) and P(Binomial(n, ½) ≥ k) each at most (1 − c)/2."""
    tail = (1 - confidence) / 2
    if n < _EXACT_BINOMIAL_BELOW:
        cumulative, j = 0.0, 0
        while j < n and cumulative + math.comb(n, j) / 2 ** n <= tail:
            cumulative += math.comb(n, j) / 2 ** n
            j += 1
        low = max(1, j)  # P(X < low) ≤ tail
    else:
        half_width = NormalDist().inv_cdf(1 - tail) * math.sqrt(n) / 2
        low = max(1, math.floor(n / 2 - half_width))
    return low, n + 1 - low


def _value_at(histogram: dict[str, Any], rank: int, *, upper: bool) -> float:
    seen = 0
    for lower, width, count in histogram["buckets"]:
        seen += count
        if seen >= rank:
            return float(lower + width - 1 if upper else lower)
    return float(histogram["overflow_above"]) if not upper else math.inf


def compare(a: dict[str, Any], b: dict[str, Any], key: str = "p50") -> Difference | None:
    """Whether statistic ``key`` of metric b in one run differs from a in another (see
    :func:`compare_groups`)."""
    return compare_groups([a], [b], key)


def compare_groups(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]], key: str = "p50"
                   ) -> Difference | None:
    """Whether a metric measured by the runs of group b differs from group a in statistic ``key``.

    The samples of each group are pooled. For the body of a time metric (median, mean …): Mann–Whitney
    U when every run kept raw samples (at least 20 each), else the distance of the pooled histograms'
    medians against their bootstrap intervals. For its tail (p90 … max): the tail test — how many of
    b's samples lie beyond a's percentile (beyond a's largest sample for max) against the binomial
    share expected of one distribution; a test of the median cannot see a tail that doubled. For count
    metrics: Mann–Whitney U on the periods. When both groups have repetitions, the difference must also
    be larger than the run-to-run spread of the statistic — every run of one group beyond every run of
    the other — to be called real: with 10^5 samples a 1 % shift is significant, but not worth a verdict
    when the runs themselves move by 2 %. None when no test applies (no samples, or units differ).
    """
    units = {m["unit"] for m in (*a, *b)}
    if len(units) != 1:
        return None
    if units == {"count"}:
        key = "p50"  # a count metric is judged by its periods
        test, p = "MW", _mann_whitney_or_none([v for m in a for v in m["periods"]],
                                              [v for m in b for v in m["periods"]])
    elif key in TAIL_QUANTILES:
        test, p = "tail", _tail_test(a, b, key)
    else:
        test, p = _time_test(a, b)
    if p is None:
        return None
    beyond = _beyond_spread([m["adjusted"][key] for m in a], [m["adjusted"][key] for m in b])
    return Difference(test, p, p < SIGNIFICANCE and beyond is not False, beyond)


# The tail statistics and the share of samples above each; max is the largest of n: 1 / (n + 1) above it.
TAIL_QUANTILES = {"p90": 0.90, "p99": 0.99, "p999": 0.999, "p9999": 0.9999, "max": None}
# Mann–Whitney takes at most this many raw samples of each run: a shift the test misses at 20,000 is far
# below the run-to-run spread, and 10 runs of 10^5 samples would take seconds in pure Python.
_RAW_PER_RUN = 20_000
# Up to this many samples in the tails the binomial is summed exactly; beyond, its normal approximation.
_EXACT_BINOMIAL_UP_TO = 100_000


def _tail_test(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]], key: str) -> float | None:
    """Two-sided p-value that the samples above a's ``key`` are shared between a and b as their sizes
    say they would be if both came from one distribution.

    The limit is the upper bound of the histogram bucket holding a's statistic, so that both groups'
    samples above it are counted exactly. Given t samples above it in all, b's share of them is
    Binomial(t, n_b / (n_a + n_b)) under that hypothesis: a conditional test that needs no estimate of
    the tail, and serves the maximum too (no sample of a is above its own max bucket: b needs several
    above it, one is no evidence)."""
    pooled_a, pooled_b = _pooled_histogram(a), _pooled_histogram(b)
    n_a, n_b = _size(pooled_a), _size(pooled_b)
    if n_a == 0 or n_b == 0:
        return None
    quantile = TAIL_QUANTILES[key]
    rank = n_a if quantile is None else max(1, math.ceil(quantile * n_a))
    limit = _value_at(pooled_a, rank, upper=True)
    if math.isinf(limit):
        return None  # a's statistic is in its overflow: nothing is known above it
    # Each group's timestamp overhead differs a little: move the limit onto b's measured scale.
    limit_b = limit - _mean_overhead(a) + _mean_overhead(b)
    above_a, above_b = _count_above(pooled_a, limit), _count_above(pooled_b, limit_b)
    return _binomial_two_sided(above_b, above_a + above_b, n_b / (n_a + n_b))


def _count_above(histogram: dict[str, Any], limit: float) -> int:
    """Samples of buckets that lie wholly above ``limit`` (and the overflow, when it starts above it)."""
    above = sum(count for lower, _, count in histogram["buckets"] if lower > limit)
    return above + (histogram["overflow"] if histogram["overflow_above"] > limit else 0)


def _binomial_two_sided(k: int, n: int, p: float) -> float:
    """Two-sided p-value of k successes in n trials of probability p: the probability of every outcome
    no more likely than k (exact, summed in log space; normal beyond a size where that is exact enough)."""
    if n == 0:
        return 1.0
    if n > _EXACT_BINOMIAL_UP_TO:
        sd = math.sqrt(n * p * (1 - p))
        return min(1.0, math.erfc(max(0.0, abs(k - n * p) - 0.5) / sd / math.sqrt(2)))

    def log_pmf(i: int) -> float:
        return (math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
                + i * math.log(p) + (n - i) * math.log1p(-p))
    observed = log_pmf(k) + 1e-7  # equally likely outcomes count too (relative tolerance)
    # The distribution is unimodal: the outcomes no more likely than k are its two tails. Each is summed
    # from its inner end outwards until the terms underflow to 0.0 (all beyond are smaller still).
    mode = min(n, math.floor((n + 1) * p))
    total = 0.0
    for start, step, end in ((mode, -1, -1), (mode + 1, 1, n + 1)):
        i = start
        while i != end and log_pmf(i) > observed:
            i += step
        while i != end and (term := math.exp(log_pmf(i))) > 0.0:
            total += term
            i += step
    return min(1.0, total)


def _size(histogram: dict[str, Any]) -> int:
    return sum(count for _, _, count in histogram["buckets"]) + histogram["overflow"]


def _time_test(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]]) -> tuple[str, float | None]:
    if all(len(m.get("raw") or []) >= 20 for m in (*a, *b)):
        return "MW", mann_whitney(_adjusted_raw(a), _adjusted_raw(b))
    histogram_a, histogram_b = _pooled_histogram(a), _pooled_histogram(b)
    interval_a, interval_b = median_interval(histogram_a), median_interval(histogram_b)
    if interval_a is None or interval_b is None or math.inf in (*interval_a, *interval_b):
        return "CI", None
    z = NormalDist().inv_cdf(1 - SIGNIFICANCE / 2)
    shift = (sum(interval_b) / 2 - _mean_overhead(b)) - (sum(interval_a) / 2 - _mean_overhead(a))
    spread = math.hypot(*((high - low) / (2 * z) for low, high in (interval_a, interval_b)))
    # Buckets are whole nanoseconds wide at least: a median known to within one bucket still has a spread.
    return "CI", math.erfc(abs(shift) / max(spread, 0.5) / math.sqrt(2))


def _mann_whitney_or_none(a: list[float], b: list[float]) -> float | None:
    return mann_whitney(a, b) if a and b else None


def _adjusted_raw(metrics: Sequence[dict[str, Any]]) -> list[float]:
    """The raw samples of the runs, overhead-adjusted: at most the first _RAW_PER_RUN of each run."""
    return [v - m["overhead_ns"] for m in metrics for v in m["raw"][:_RAW_PER_RUN]]


def _mean_overhead(metrics: Sequence[dict[str, Any]]) -> float:
    return sum(m["overhead_ns"] for m in metrics) / len(metrics)


def _pooled_histogram(metrics: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The histogram of all the runs' samples. Every probe uses the same bucket layout, so buckets
    with the same bounds add up; the overflow starts where the lowest run's does."""
    counts: dict[tuple[int, int], int] = {}
    for m in metrics:
        for lower, width, count in m["histogram"]["buckets"]:
            counts[lower, width] = counts.get((lower, width), 0) + count
    return {"buckets": [[lower, width, count] for (lower, width), count in sorted(counts.items())],
            "overflow": sum(m["histogram"]["overflow"] for m in metrics),
            "overflow_above": min(m["histogram"]["overflow_above"] for m in metrics)}


def _beyond_spread(a: list[float | None], b: list[float | None]) -> bool | None:
    """Whether the two groups' per-run medians do not overlap; None unless both groups have
    repetitions (one run says nothing about how runs vary)."""
    if len(a) < 2 or len(b) < 2 or None in a or None in b:
        return None
    return max(a) < min(b) or max(b) < min(a)
