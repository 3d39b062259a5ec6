"""Whether two runs really differ: tests that suit skewed latency data, not a t-test on means.

- Mann–Whitney U on raw samples, where both runs kept them (normal approximation with tie correction
  and continuity correction: latency runs have thousands of samples).
- Otherwise a confidence interval of each run's median read from its histogram. The interval is the
  exact bootstrap interval of the median: a resample's median is at most the value of rank r exactly
  when at least half the resample is, and how many are is Binomial(n, r/n) — so the bootstrap
  distribution needs no resampling (Efron 1979), and its percentile interval is the pair of order
  statistics around n/2 that a Binomial(n, 1/2) puts 1 − confidence outside of.
"""

import itertools
import math
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

    test: str          # "MW" (Mann–Whitney U on raw samples or periods) or "CI" (bootstrap interval of the median)
    p_value: float
    real: bool         # significant, and beyond the run-to-run spread where that is known
    beyond_spread: bool | None = None  # None: a group has a single run


def mann_whitney(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value of the Mann–Whitney U test that a and b come from one distribution."""
    n1, n2 = len(a), len(b)
    if n1 == 0 or n2 == 0:
        raise ValueError("Mann–Whitney U needs samples on both sides")
    ranked = sorted([(value, 0) for value in a] + [(value, 1) for value in b])
    ranks, ties, i = [0.0] * len(ranked), 0.0, 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        ranks[i:j] = [(i + j + 1) / 2] * (j - i)  # tied values share the mean of ranks i+1 … j
        ties += (j - i) ** 3 - (j - i)
        i = j
    rank_sum_a = sum(rank for rank, (_, side) in zip(ranks, ranked, strict=True) if side == 0)
    n = n1 + n2
    if math.comb(n, n1) <= _EXACT_MANN_WHITNEY_UP_TO:
        return _exact_mann_whitney(ranks, n1, rank_sum_a)
    u = rank_sum_a - n1 * (n1 + 1) / 2
    variance = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1))) if n > 1 else 0.0
    if variance <= 0:
        return 1.0  # every value equal
    z = (abs(u - n1 * n2 / 2) - 0.5) / math.sqrt(variance)
    return min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2)))


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
    n = sum(count for _, _, count in histogram["buckets"]) + histogram["overflow"]
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


def compare(a: dict[str, Any], b: dict[str, Any]) -> Difference | None:
    """Whether metric b of one run differs from metric a of another (see :func:`compare_groups`)."""
    return compare_groups([a], [b])


def compare_groups(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]]) -> Difference | None:
    """Whether a metric measured by the runs of group b differs from the same metric in group a.

    The samples of each group are pooled: for time metrics, Mann–Whitney U when every run kept raw
    samples (at least 20 each), else the distance of the pooled histograms' medians against their
    bootstrap intervals; for count metrics, Mann–Whitney U on the periods. When both groups have
    repetitions, the difference must also be larger than the run-to-run spread — every run of one group
    has its median beyond every run of the other — to be called real: with 10^5 samples a 1 % shift
    is significant, but not worth a verdict when the runs themselves move by 2 %. None when no test
    applies (no samples, or the groups' units differ).
    """
    units = {m["unit"] for m in (*a, *b)}
    if len(units) != 1:
        return None
    if units == {"count"}:
        test, p = "MW", _mann_whitney_or_none([v for m in a for v in m["periods"]],
                                              [v for m in b for v in m["periods"]])
    else:
        test, p = _time_test(a, b)
    if p is None:
        return None
    beyond = _beyond_spread([m["adjusted"]["p50"] for m in a], [m["adjusted"]["p50"] for m in b])
    return Difference(test, p, p < SIGNIFICANCE and beyond is not False, beyond)


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
    return [v - m["overhead_ns"] for m in metrics for v in m["raw"]]


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
