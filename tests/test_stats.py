"""The tests of one run's samples against another's (rtscope.analysis.stats), as compare and check use
them where each side is one run: reference values, and known distributions — equal ones not called
different, shifted ones detected. The tests over repetitions are tests/test_evidence.py's. Seeds are
fixed, so each verdict is reproducible."""

import math
import random

import pytest
from scipy import stats as scipy_stats

from rtscope.analysis import evidence, stats
from support import builders


def test_mann_whitney_matches_the_reference_values():
    # Exact for small samples: of the 252 ways to split 1..10 in two fives, 2 are as extreme
    # (scipy.stats.mannwhitneyu([1..5], [6..10], method="exact"): p = 0.00794).
    assert stats.mann_whitney([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]) == pytest.approx(2 / 252)
    # Three periods against three: no split is rarer than 2 in 20, however different they are.
    assert stats.mann_whitney([5e6] * 3, [2e7] * 3) == pytest.approx(0.1)
    # Ties across the groups: of the 126 splits of 1 2 2 3 | 2 3 3 4 5, 10 have a U as low as this one's
    # (scipy.stats.mannwhitneyu with a PermutationMethod: p = 20 / 126).
    assert stats.mann_whitney([1, 2, 2, 3], [2, 3, 3, 4, 5]) == pytest.approx(20 / 126)
    # Large samples: normal approximation with continuity correction; 1..30 against 31..60 has U = 0,
    # mean 450 and variance 30·30·61/12, so z = 449.5 / 67.64 and p = erfc(z / √2).
    assert stats.mann_whitney(range(1, 31), range(31, 61)) == pytest.approx(
        math.erfc(449.5 / math.sqrt(30 * 30 * 61 / 12) / math.sqrt(2))
    )
    assert stats.mann_whitney([3, 3, 3], [3, 3, 3]) == 1.0  # all tied: nothing to tell apart
    with pytest.raises(ValueError):
        stats.mann_whitney([], [1.0])


def histogram_metric(buckets: list[list[int]], *, step: float | None = None) -> dict:
    """A time metric whose histogram has these buckets (and, given, this step)."""
    metric = builders.metric("lat.wakeup", 10_000.0)
    metric["histogram"]["buckets"] = buckets
    if step is not None:
        metric["histogram"]["resolution"] = step
    return metric


def test_median_interval_of_a_known_histogram():
    # 1000 samples, one at each of 1 … 1000 ns: the 95 % interval of the median is ranks 469 … 532.
    thousand = stats.pooled([histogram_metric([[v, 1, 1] for v in range(1, 1001)])])
    assert stats.median_interval(thousand) == (469, 532)
    # Few samples: the exact binomial. Of 10, ranks 2 … 9 (P(X < 2) = 0.011 ≤ 0.025 < P(X < 3) = 0.055).
    assert stats.median_interval(stats.pooled([histogram_metric([[v, 1, 1] for v in range(10, 20)])])) == (11, 18)
    assert stats.median_interval(stats.pooled([histogram_metric([])])) is None


def test_histograms_are_read_in_their_step_and_pooled_only_when_steps_agree():
    # Steps of 0.5 (say, half a percent): bucket [40, 4] holds 20.0 … 21.5.
    half = histogram_metric([[10, 1, 3], [40, 4, 5]], step=0.5)
    histogram = stats.pooled([half, half])
    assert histogram.size == 16 and histogram.value_at(7, upper=False) == 20.0
    assert histogram.value_at(7, upper=True) == 21.5 and histogram.count_above(5.0) == 10
    assert histogram.value_at(17, upper=True) == math.inf  # beyond the buckets: in the overflow
    assert stats.pooled([half, histogram_metric([[10, 1, 3]])]) is None


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
    metric["histogram"]["buckets"] = [
        [lower, 1 if lower < 128 else 1 << (lower.bit_length() - 8), count] for lower, count in sorted(buckets.items())
    ]
    if raw:
        metric["raw"] = samples
    return metric


def one_each(a: dict, b: dict, key: str = "p50") -> evidence.Difference:
    """The verdict on one run against one: its sample test says whether these runs differ."""
    verdict = evidence.compare_groups([a], [b], key)
    assert verdict is not None and not verdict.real and verdict.runs == (1, 1)  # one run each: never real
    return verdict


@pytest.mark.parametrize("raw", [True, False], ids=["mann-whitney", "median-interval"])
def test_equal_distributions_are_not_called_different(raw):
    rng = random.Random(2026)
    verdicts = [
        one_each(as_metric(skewed(rng, 2000), raw=raw), as_metric(skewed(rng, 2000), raw=raw)) for _ in range(10)
    ]
    assert {v.test for v in verdicts} == {"MW" if raw else "CI"}
    assert sum(v.runs_differ for v in verdicts) <= 1  # a 5 % test: at most one false alarm in ten is expected


@pytest.mark.parametrize("raw", [True, False], ids=["mann-whitney", "median-interval"])
def test_a_shift_of_a_few_percent_is_detected(raw):
    rng = random.Random(7)
    a, b = skewed(rng, 5000), skewed(rng, 5000, shift=800)  # medians ≈ 11.1 µs and 11.9 µs
    verdict = one_each(as_metric(a, raw=raw), as_metric(b, raw=raw))
    assert verdict.runs_differ and verdict.p_value < 0.001
    assert str(verdict) == f"p<0.001 {'MW' if raw else 'CI'}, one run each"


def with_moments(samples: list[int]) -> dict:
    """as_metric's histogram, with the exact count, mean and standard deviation the probe records."""
    metric = as_metric(samples, raw=False)
    mean = sum(samples) / len(samples)
    stddev = math.sqrt(sum((v - mean) ** 2 for v in samples) / len(samples))
    metric["stats"] = {**metric["stats"], "count": len(samples), "mean": mean, "stddev": stddev}
    return metric


def test_the_mean_is_tested_as_a_mean_where_the_median_cannot_see_it_move():
    # An emulated board's clock counts 40 ns steps: one operation takes 120 or 200 ns, and a costlier
    # path taken more often moves the mean while the median stays at 120.
    a = with_moments([120] * 3500 + [200] * 1500)  # mean 144
    b = with_moments([120] * 3000 + [200] * 2000)  # mean 152
    assert not one_each(a, b, "p50").runs_differ
    verdict = one_each(a, b, "mean")
    assert verdict.test == "z" and verdict.runs_differ and verdict.p_value < 0.001
    assert not one_each(a, with_moments([120] * 3500 + [200] * 1500), "mean").runs_differ


def test_samples_that_never_vary_differ_in_mean_exactly_when_their_means_do():
    # Instruction time: every sample the same number of instructions, no spread to weigh a shift by.
    same, other = with_moments([152] * 1000), with_moments([177] * 1000)
    assert one_each(same, with_moments([152] * 1000), "mean").p_value == 1.0
    assert one_each(same, other, "mean").runs_differ


def test_a_run_without_samples_takes_no_part_in_the_mean():
    empty = with_moments([152] * 2)
    empty["stats"] = {**empty["stats"], "count": 0, "mean": None, "stddev": None}
    assert stats.mean_test([with_moments([152] * 1000), empty], [with_moments([177] * 1000)]) == 0.0
    assert evidence.compare_groups([empty], [with_moments([177] * 1000)], "mean") is None


def test_equal_means_are_not_called_different():
    rng = random.Random(11)
    verdicts = [one_each(with_moments(skewed(rng, 500)), with_moments(skewed(rng, 500)), "mean") for _ in range(200)]
    assert sum(v.runs_differ for v in verdicts) <= 20  # a 5 % test: ten false alarms expected, 20 is 3.5 sigma


def test_count_metrics_compare_their_periods():
    same = builders.count_metric("tm.basic", [100, 101, 99])
    assert not one_each(same, same).runs_differ
    # Three periods each: however far apart, Mann–Whitney cannot reach 95 %.
    apart = one_each(same, builders.count_metric("tm.basic", [200, 201, 199]))
    assert not apart.runs_differ and str(apart) == "p=0.100 MW, one run each"
    faster = one_each(
        builders.count_metric("tm.basic", [100, 101, 99, 100, 102, 98]),
        builders.count_metric("tm.basic", [200, 201, 199, 200, 202, 198]),
    )
    assert faster.runs_differ and faster.test == "MW"
    assert math.isfinite(stats.mann_whitney([1.0] * 30, [2.0] * 30))


def with_tail(rng: random.Random, n: int, share: float, factor: float) -> list[int]:
    """Latency-like samples, a share of which (drawn at random) is ``factor`` times slower."""
    return [round(v * factor) if rng.random() < share else v for v in skewed(rng, n)]


def test_equal_tails_are_not_called_different():
    rng = random.Random(31)
    for key in ("p99", "max"):
        verdicts = [
            one_each(as_metric(skewed(rng, 5000), raw=False), as_metric(skewed(rng, 5000), raw=False), key)
            for _ in range(10)
        ]
        assert {v.test for v in verdicts} == {"tail"}
        assert sum(v.runs_differ for v in verdicts) <= 1


def test_a_heavier_tail_is_found():
    rng = random.Random(32)
    a, b = skewed(rng, 20000), with_tail(rng, 20000, share=0.02, factor=3)
    verdict = one_each(as_metric(a, raw=True), as_metric(b, raw=True), "p99")
    assert verdict.runs_differ and verdict.test == "tail" and verdict.p_value < 0.001
    # Ten samples beyond the largest of 20,000 (none of a's is): a worse maximum. One is no evidence.
    body = skewed(rng, 19990)
    assert one_each(as_metric(a, raw=False), as_metric(body + [max(a) * 2] * 10, raw=False), "max").runs_differ
    assert not one_each(as_metric(a, raw=False), as_metric(body + [max(a) * 2], raw=False), "max").runs_differ


def test_the_binomial_test_matches_reference_values():
    # scipy.stats.binomtest(3, 10, 0.5).pvalue = 0.34375; binomtest(10, 10, 0.5) = 2 / 1024.
    assert stats._binomial_two_sided(3, 10, 0.5) == pytest.approx(0.34375)
    assert stats._binomial_two_sided(10, 10, 0.5) == pytest.approx(2 / 1024)
    assert stats._binomial_two_sided(0, 0, 0.5) == 1.0


@pytest.mark.parametrize(
    ("k", "n", "p"),
    [(0, 7, 0.3), (17, 40, 0.25), (120, 1000, 0.1), (4990, 10000, 0.5), (3, 20000, 0.0004), (60000, 100000, 0.6)],
)
def test_the_binomial_test_is_scipys(k, n, p):
    assert stats._binomial_two_sided(k, n, p) == pytest.approx(scipy_stats.binomtest(k, n, p).pvalue, rel=1e-6)


def test_mann_whitney_is_scipys_on_large_samples_with_ties():
    rng = random.Random(41)
    for shift in (0, 3, 30):
        a = [round(rng.lognormvariate(4, 0.5)) for _ in range(3000)]
        b = [round(rng.lognormvariate(4, 0.5)) + shift for _ in range(2000)]
        expected = scipy_stats.mannwhitneyu(a, b, method="asymptotic").pvalue
        assert stats.mann_whitney(a, b) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_mann_whitney_counts_every_raw_sample():
    # Two runs a side, 30,000 raw samples each: the test sees all 60,000 of each group, overhead taken off.
    rng = random.Random(42)
    runs = [[round(rng.lognormvariate(8, 0.3)) for _ in range(30_000)] for _ in range(4)]
    metrics = []
    for samples in runs:
        metric = as_metric(samples, raw=True)
        metric["overhead_ns"] = 25.0
        metrics.append(metric)
    every = [v - 25.0 for samples in runs for v in samples]
    expected = scipy_stats.mannwhitneyu(every[:60_000], every[60_000:], method="asymptotic").pvalue
    assert stats.body_test(metrics[:2], metrics[2:]) == ("MW", pytest.approx(expected, rel=1e-9))
