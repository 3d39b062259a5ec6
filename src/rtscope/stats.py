"""Whether two runs really differ: tests that suit skewed latency data, not a t-test on means.

- Mann–Whitney U on raw samples, where both runs kept them (normal approximation with tie correction
  and continuity correction: latency runs have thousands of samples).
- Otherwise a confidence interval of each run's median read from its histogram. The interval is the
  exact bootstrap interval of the median: a resample's median is at most the value of rank r exactly
  when at least half the resample is, and how many are is Binomial(n, r/n) — so the bootstrap
  distribution needs no resampling (Efron 1979), and its percentile interval is the pair of order
  statistics around n/2 that a Binomial(n, 1/2) puts 1 − confidence outside of.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

CONFIDENCE = 0.95
SIGNIFICANCE = 1 - CONFIDENCE
# Below this many samples the binomial is summed exactly; above, its normal approximation is exact enough.
_EXACT_BINOMIAL_BELOW = 1000


@dataclass(frozen=True)
class Difference:
    """The verdict on B against A: the test used, its p-value, and whether the difference is real."""

    test: str          # "MW" (Mann–Whitney U on raw samples) or "CI" (bootstrap interval of the median)
    p_value: float
    real: bool


def mann_whitney(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value of the Mann–Whitney U test that a and b come from one distribution."""
    n1, n2 = len(a), len(b)
    if n1 == 0 or n2 == 0:
        raise ValueError("Mann–Whitney U needs samples on both sides")
    ranked = sorted([(value, 0) for value in a] + [(value, 1) for value in b])
    rank_sum_a, ties, i = 0.0, 0.0, 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        average_rank = (i + j + 1) / 2  # ranks i+1 … j
        rank_sum_a += average_rank * sum(1 for _, side in ranked[i:j] if side == 0)
        ties += (j - i) ** 3 - (j - i)
        i = j
    n = n1 + n2
    u = rank_sum_a - n1 * (n1 + 1) / 2
    variance = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1))) if n > 1 else 0.0
    if variance <= 0:
        return 1.0  # every value equal
    z = (abs(u - n1 * n2 / 2) - 0.5) / math.sqrt(variance)
    return min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2)))


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
    """Whether time metric b differs from a: Mann–Whitney U when both kept raw samples (at least 20 each),
    else the distance of the medians against their bootstrap intervals. None when neither test applies
    (a count metric, or no samples)."""
    if a["unit"] != "ns" or b["unit"] != "ns":
        return None
    raw_a, raw_b = a.get("raw") or [], b.get("raw") or []
    if len(raw_a) >= 20 and len(raw_b) >= 20:
        p = mann_whitney([v - a["overhead_ns"] for v in raw_a], [v - b["overhead_ns"] for v in raw_b])
        return Difference("MW", p, p < SIGNIFICANCE)
    interval_a, interval_b = median_interval(a["histogram"]), median_interval(b["histogram"])
    if interval_a is None or interval_b is None or math.inf in (*interval_a, *interval_b):
        return None
    z = NormalDist().inv_cdf(1 - SIGNIFICANCE / 2)
    shift = (sum(interval_b) / 2 - b["overhead_ns"]) - (sum(interval_a) / 2 - a["overhead_ns"])
    spread = math.hypot(*((high - low) / (2 * z) for low, high in (interval_a, interval_b)))
    # Buckets are whole nanoseconds wide at least: a median known to within one bucket still has a spread.
    p = math.erfc(abs(shift) / max(spread, 0.5) / math.sqrt(2))
    return Difference("CI", p, p < SIGNIFICANCE)

