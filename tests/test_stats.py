"""The significance tests behind compare: reference values, and known distributions — equal ones not
called different, shifted ones detected. Seeds are fixed, so each verdict is reproducible."""

import math
import random

import pytest

import builders
from rtscope import stats


def test_mann_whitney_matches_the_reference_value():
    # scipy.stats.mannwhitneyu([1..5], [6..10], method="asymptotic", use_continuity=True): p = 0.01219
    assert stats.mann_whitney([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]) == pytest.approx(0.01219, abs=1e-5)
    assert stats.mann_whitney([3, 3, 3], [3, 3, 3]) == 1.0  # all tied: nothing to tell apart
    with pytest.raises(ValueError):
        stats.mann_whitney([], [1.0])


def test_median_interval_of_a_known_histogram():
    # 1000 samples, one at each of 1 … 1000 ns: the 95 % interval of the median is ranks 469 … 532.
    histogram = {"buckets": [[v, 1, 1] for v in range(1, 1001)], "overflow": 0, "overflow_above": 1 << 36}
    assert stats.median_interval(histogram) == (469, 532)
    # Few samples: the exact binomial. Of 10, ranks 2 … 9 (P(X < 2) = 0.011 ≤ 0.025 < P(X < 3) = 0.055).
    few = {"buckets": [[v, 1, 1] for v in range(10, 20)], "overflow": 0, "overflow_above": 1 << 36}
    assert stats.median_interval(few) == (11, 18)
    assert stats.median_interval({"buckets": [], "overflow": 0, "overflow_above": 1}) is None


def skewed(rng: random.Random, n: int, shift: float = 0.0) -> list[int]:
    """Latency-like samples: 10 µs plus a lognormal tail, moved by shift ns."""
    return [round(10_000 + shift + rng.lognormvariate(7, 0.8)) for _ in range(n)]


def as_metric(samples: list[int], *, raw: bool) -> dict:
    """A time metric holding samples in log-linear buckets of 1/128 octave, as the probe keeps them."""
    buckets: dict[int, int] = {}
    for value in samples:
        lower = value if value < 128 else value >> (value.bit_length() - 8) << (value.bit_length() - 8)
        buckets[lower] = buckets.get(lower, 0) + 1
    metric = builders.metric("lat.wakeup", 10_000.0)
    metric["histogram"]["buckets"] = [[lower, 1 if lower < 128 else 1 << (lower.bit_length() - 8), count]
                                      for lower, count in sorted(buckets.items())]
    if raw:
        metric["raw"] = samples
    return metric


@pytest.mark.parametrize("raw", [True, False], ids=["mann-whitney", "median-interval"])
def test_equal_distributions_are_not_called_different(raw):
    rng = random.Random(2026)
    verdicts = [stats.compare(as_metric(skewed(rng, 2000), raw=raw), as_metric(skewed(rng, 2000), raw=raw))
                for _ in range(10)]
    assert {v.test for v in verdicts} == {"MW" if raw else "CI"}
    assert sum(v.real for v in verdicts) <= 1  # a 5 % test: at most one false alarm in ten is expected


@pytest.mark.parametrize("raw", [True, False], ids=["mann-whitney", "median-interval"])
def test_a_shift_of_a_few_percent_is_detected(raw):
    rng = random.Random(7)
    a, b = skewed(rng, 5000), skewed(rng, 5000, shift=500)  # medians ≈ 11.1 µs and 11.6 µs
    verdict = stats.compare(as_metric(a, raw=raw), as_metric(b, raw=raw))
    assert verdict.real and verdict.p_value < 0.001


def test_count_metrics_get_no_verdict():
    periods = builders.count_metric("tm.basic", [100, 101, 99])
    assert stats.compare(periods, periods) is None
    assert math.isfinite(stats.mann_whitney([1.0] * 30, [2.0] * 30))
