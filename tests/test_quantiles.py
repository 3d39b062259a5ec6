"""Tail quantiles' distribution-free intervals: their ranks against exact binomial sums, the samples a
quantile needs against a brute-force search, their coverage of known distributions' true quantiles over
1,000 draws (raw samples, whole steps and coarse histogram buckets), and what show says of them.

Seeds are fixed, so each figure is reproducible. The exact coverage of an interval of order statistics
is at least the confidence and, being a sum over whole ranks, somewhat above it: the sample sizes here
(917 for p99, 9,148 for p99.9, 91,456 for p99.99: about 9 samples beyond the quantile) are where it is
closest to 95 % (95.6 %), so that 1,000 draws can tell a wrong rank from the right one."""

import csv
import io
import math
from fractions import Fraction
from statistics import NormalDist

import numpy as np
import pytest
from scipy import stats as scipy_stats

from conftest import REPO
from rtscope.analysis import quantiles, stats
from support import builders

DRAWS = 1000
# Where the exact coverage of the 95 % interval is nearest 95 % for each quantile (module docstring).
SIZES = {0.99: 917, 0.999: 9_148, 0.9999: 91_456}
LOGNORMAL_SIGMA = 0.5
TYPICAL_NS = 20_000  # the scale of the whole-step distribution: a latency of about 20 µs in whole ns


def _exact_ranks(n: int, q: float, confidence: float) -> tuple[int, int]:
    """The definition, in whole numbers: with q = a / d and (1 − confidence) / 2 = 1 / m, the largest j
    with P(Bin(n, q) < j) ≤ 1 / m and the smallest k with P(Bin(n, q) ≥ k) ≤ 1 / m, each probability
    times d^n being a sum of C(n, i)·a^i·(d − a)^(n − i)."""
    a, d = Fraction(q).limit_denominator(10_000).as_integer_ratio()
    m = round(2 / (1 - confidence))
    scaled = [math.comb(n, i) * a**i * (d - a) ** (n - i) for i in range(n + 1)]
    limit = d**n
    j, below = 0, 0
    while j < n and m * (below + scaled[j]) <= limit:
        below += scaled[j]
        j += 1
    k, above = n + 1, 0
    while k > 1 and m * (above + scaled[k - 1]) <= limit:
        above += scaled[k - 1]
        k -= 1
    return j, k


@pytest.mark.parametrize("q", [0.5, 0.9, 0.99, 0.999])
@pytest.mark.parametrize("confidence", [0.95, 0.9])
def test_ranks_are_the_exact_binomial_ones(q, confidence):
    for n in [*range(1, 60), *range(60, 420, 17)]:
        assert quantiles.ranks(n, q, confidence) == _exact_ranks(n, q, confidence), n


@pytest.mark.parametrize(("n", "q"), [(1_000, 0.5), (30_000, 0.99), (300_000, 0.999), (5_000_000, 0.9999)])
def test_the_normal_approximation_is_within_a_rank_and_keeps_the_confidence(n, q):
    # Beyond a binomial variance of 250 the ranks come from the normal approximation.
    assert n * q * (1 - q) >= 250
    j, k = quantiles.ranks(n, q)
    exact_j = int(scipy_stats.binom.ppf(0.025, n, q))  # the smallest j with P(X ≤ j) ≥ 0.025
    exact_j = exact_j if scipy_stats.binom.cdf(exact_j - 1, n, q) <= 0.025 else exact_j - 1
    exact_k = int(scipy_stats.binom.isf(0.025, n, q)) + 1  # P(X ≥ k) ≤ 0.025
    assert abs(j - exact_j) <= 1 and abs(k - exact_k) <= 1
    assert scipy_stats.binom.cdf(k - 1, n, q) - scipy_stats.binom.cdf(j - 1, n, q) >= 0.95


def test_ranks_say_where_no_sample_bounds_the_quantile():
    assert quantiles.ranks(0, 0.99) == (0, 1)
    assert quantiles.ranks(100, 0.99)[1] == 101  # no upper bound: the largest sample is not beyond p99 often enough
    assert quantiles.ranks(3, 0.5) == (0, 4)
    with pytest.raises(ValueError):
        quantiles.ranks(10, 1.0)


def test_the_median_interval_is_the_quantile_one():
    # stats' bootstrap interval of the median delegates its ranks here, at least the first and last sample.
    for n in (1, 5, 6, 20, 999, 1000, 123_457):
        low = max(1, quantiles.ranks(n, 0.5)[0])
        assert stats._median_ranks(n, 0.95) == (low, n + 1 - low)


@pytest.mark.parametrize(
    ("q", "needed"),
    [(0.5, 6), (0.9, 36), (0.99, 368), (0.999, 3_688), pytest.param(0.9999, 36_887, marks=pytest.mark.slow)],
)
def test_samples_needed_is_the_first_size_with_a_two_sided_interval(q, needed):
    # Brute force in whole numbers: with q = a / d, the sample of rank n bounds the quantile from above
    # (P(Bin(n, q) ≥ n) = q^n ≤ 2.5 %) exactly when 40·a^n ≤ d^n, and the one of rank 1 from below when
    # 40·(d − a)^n ≤ d^n; the first n where both hold.
    a, d = Fraction(q).limit_denominator(10_000).as_integer_ratio()
    n, power_a, power_b, power_d = 0, 1, 1, 1
    while True:
        n, power_a, power_b, power_d = n + 1, power_a * a, power_b * (d - a), power_d * d
        if 40 * power_a <= power_d and 40 * power_b <= power_d:
            break
    assert quantiles.samples_needed(q) == n == needed
    j, k = quantiles.ranks(needed, q)
    assert 1 <= j < k <= needed
    assert quantiles.ranks(needed - 1, q)[1] == needed  # one fewer: open above


def test_p9999_needs_36887_samples():
    # As above at the two sizes that matter (the search up to them takes seconds): 0.9999^36,887 is at
    # most 2.5 %, 0.9999^36,886 is not.
    assert 40 * 9_999**36_887 <= 10_000**36_887 < 40 * 9_999**36_886 * 10_000
    assert quantiles.samples_needed(0.9999) == 36_887


def _exponential(rng, shape, q):
    return rng.exponential(1.0, shape), -math.log1p(-q)


def _lognormal(rng, shape, q):
    return rng.lognormal(0.0, LOGNORMAL_SIGMA, shape), math.exp(LOGNORMAL_SIGMA * NormalDist().inv_cdf(q))


def _whole_steps(rng, shape, q):
    """A log-normal latency in whole nanoseconds, as a probe's samples are: a distribution of steps with
    ties, whose quantile q is the smallest step x with P(sample ≤ x) ≥ q."""
    samples, continuous = _lognormal(rng, shape, q)
    return np.rint(TYPICAL_NS * samples), math.ceil(TYPICAL_NS * continuous - 0.5)


def _coverage(draw, q: float, n: int, seed: int) -> float:
    """The share of DRAWS draws of n samples whose interval (the order statistics of quantiles.ranks)
    holds the true quantile; drawn 100 at a time to bound the memory."""
    rng = np.random.default_rng(seed)
    j, k = quantiles.ranks(n, q)
    covered = 0
    for _ in range(DRAWS // 100):
        samples, truth = draw(rng, (100, n), q)
        ordered = np.partition(samples, [j - 1, k - 1], axis=1)
        covered += int(((ordered[:, j - 1] <= truth) & (truth <= ordered[:, k - 1])).sum())
    return covered / DRAWS


@pytest.mark.parametrize("draw", [_exponential, _lognormal, _whole_steps])
@pytest.mark.parametrize("q", [0.99, 0.999])
def test_intervals_cover_the_true_quantile_95_percent_of_the_time(draw, q):
    assert 0.93 <= _coverage(draw, q, SIZES[q], seed=31) <= 0.97


@pytest.mark.slow
@pytest.mark.parametrize("draw", [_exponential, _lognormal, _whole_steps])
def test_the_p9999_interval_covers_too(draw):
    assert 0.93 <= _coverage(draw, 0.9999, SIZES[0.9999], seed=31) <= 0.97


def _metric(*, raw=None, buckets=None, overflow=0, overflow_above=1 << 40, overhead=0.0):
    """A metric of samples as the probe writes it, for the fields quantiles reads."""
    count = len(raw) if raw is not None else sum(c for _, _, c in buckets) + overflow
    metric = builders.metric("lat.wakeup", 10_000.0)
    metric["stats"]["count"] = metric["adjusted"]["count"] = count
    if raw:
        metric["stats"]["min"], metric["stats"]["max"] = min(raw), max(raw)
    elif buckets:
        top = buckets[-1][0] + buckets[-1][1] - 1
        metric["stats"]["min"], metric["stats"]["max"] = buckets[0][0], 2 * overflow_above if overflow else top
    metric["overhead_ns"] = overhead
    metric["histogram"] = builders.histogram(buckets or [], overflow_above=overflow_above)
    metric["histogram"]["overflow"] = overflow
    if raw is not None:
        metric["raw"] = raw
    return metric


def test_raw_samples_give_their_order_statistics_overhead_adjusted():
    rng = np.random.default_rng(7)
    raw = [int(v) for v in rng.integers(1_000, 100_000, 40_000)]
    ordered = sorted(raw)
    found = quantiles.intervals(_metric(raw=raw, overhead=20.0))
    for key, q in quantiles.TAILS.items():
        j, k = quantiles.ranks(40_000, q)
        assert (found[key].low, found[key].high) == (ordered[j - 1] - 20.0, ordered[k - 1] - 20.0)
        assert found[key].enough and found[key].samples == 40_000
    as_measured = quantiles.intervals(_metric(raw=raw, overhead=20.0), adjusted=False)
    assert as_measured["p99"].low == ordered[quantiles.ranks(40_000, 0.99)[0] - 1]


def test_a_histogram_gives_the_buckets_that_hold_the_ranks():
    # 1,000 samples in ten buckets of 100, each 10 ns wide from 1,000 ns; and 5 beyond the histogram.
    buckets = [[1_000 + 10 * i, 10, 100] for i in range(10)]
    found = quantiles.intervals(_metric(buckets=buckets, overflow=5, overflow_above=1_100))
    j, k = quantiles.ranks(1_005, 0.99)  # ranks 988 and 1,002: the last bucket, and the overflow,
    assert (j, k) == (988, 1_002)  # where no bucket bounds it, but the largest sample does
    assert found["p99"].low == 1_090 and found["p99"].high == 2_200 and found["p99"].enough
    # A run with fewer samples than p99.99 needs: open above, and it says so.
    assert not found["p9999"].enough and found["p9999"].needed == 36_887 and found["p9999"].high == math.inf


def test_bounds_from_buckets_stay_within_the_smallest_and_largest_sample():
    # One bucket 1,000–1,099 ns, its samples measured from 1,020 to 1,060 ns: no order statistic lies
    # beyond them.
    metric = _metric(buckets=[[1_000, 100, 50_000]])
    metric["stats"]["min"], metric["stats"]["max"] = 1_020, 1_060
    assert {(i.low, i.high) for i in quantiles.intervals(metric).values()} == {(1_020, 1_060)}


def test_no_interval_for_a_metric_without_samples_or_of_periods():
    assert quantiles.intervals(_metric(buckets=[])) == {}
    assert quantiles.intervals(builders.count_metric("tm.basic", [100, 101, 102])) == {}


def _coarse(values: np.ndarray) -> list[list[int]]:
    """Whole-step samples in log-linear buckets of 8 per power of two (each up to 12.5 % wide, where the
    probe's are at most 0.78 %), as [lowest, width, count]."""
    width = np.left_shift(1, np.floor(np.log2(np.maximum(values, 8))).astype(np.int64) - 3)
    lowest, counts = np.unique(values.astype(np.int64) // width * width, return_counts=True)
    widths = np.left_shift(1, np.floor(np.log2(np.maximum(lowest, 8))).astype(np.int64) - 3)
    return np.stack([lowest, widths, counts], axis=1).tolist()


@pytest.mark.parametrize("q", [0.99, 0.999])
def test_coarse_histogram_buckets_cover_too(q):
    # Read from buckets up to 12.5 % wide the interval only widens: it covers at least as often.
    rng = np.random.default_rng(31)
    key = next(key for key, share in quantiles.TAILS.items() if share == q)
    metric = _metric(buckets=[])
    covered = 0
    for _ in range(DRAWS // 100):
        samples, truth = _whole_steps(rng, (100, SIZES[q]), q)
        for row in samples:
            metric["histogram"]["buckets"] = _coarse(row)
            metric["stats"].update(count=len(row), min=float(row.min()), max=float(row.max()))
            interval = quantiles.intervals(metric)[key]
            covered += interval.low <= truth <= interval.high
    assert covered / DRAWS >= 0.95


def test_show_gives_each_tail_its_interval_or_the_samples_it_needs(rtscope, tmp_path):
    # 12,000 raw samples 1..12,000 ns: p99 and p99.9 have intervals, p99.99 needs more samples.
    doc = builders.result_doc(benches={"lat.wakeup": 6_000.0})
    (metric,) = doc["metrics"]
    metric.update(_metric(raw=list(range(1, 12_001)), overhead=20.0))
    outcome = rtscope("show", builders.write(tmp_path / "run.json", doc))
    assert outcome.status == 0, outcome.err
    tails = outcome.out.split("Tails, 95 % confidence intervals")[1].splitlines()
    assert tails[1].split() == ["metric", "p99", "p99.9", "p99.99", "max"]
    # The figures are the document's (builders' made-up ones); the bounds are samples of ranks 11,858
    # and 11,902 for p99 (11,838 and 11,882 ns once the overhead is subtracted).
    assert quantiles.ranks(12_000, 0.99) == (11_858, 11_902)
    assert tails[2].split()[1:5] == ["15.0", "µs", "(11.8–11.9", "µs)"]
    assert tails[2].endswith("too few samples  70.0 µs of 12,000")
    assert "  lat.wakeup: p99.99 needs ≥ 36,887 samples; this run has 12,000" in tails


def test_the_csv_export_gives_each_tail_its_bounds(rtscope, tmp_path):
    # Thread-Metric's per-period metrics get no bounds; ctxsw.sem (62,984 samples) all three, each around
    # its figure; a run short of p99.99's samples has its lower bound only.
    golden = REPO / "tests" / "golden" / "result-v2-threadmetric.json"
    outcome = rtscope("export", golden, "--format", "csv")
    rows = {row["metric"]: row for row in csv.DictReader(io.StringIO(outcome.out))}
    assert all(row["p99_low"] == row["p99.99_high"] == "" for name, row in rows.items() if name.startswith("tm."))
    sem = rows["ctxsw.sem"]
    for name in ("p99", "p99.9", "p99.99"):
        assert float(sem[f"{name}_low"]) <= float(sem[name]) <= float(sem[f"{name}_high"])
    doc = builders.result_doc(benches={"lat.wakeup": 6_000.0})
    doc["metrics"][0].update(_metric(raw=list(range(1, 12_001))))
    outcome = rtscope("export", builders.write(tmp_path / "run.json", doc), "--format", "csv")
    (row,) = csv.DictReader(io.StringIO(outcome.out))
    assert row["p99.99_low"] != "" and row["p99.99_high"] == ""


def test_a_throughput_gets_its_low_tail_and_its_minimum(rtscope, tmp_path):
    # Higher is better: the tail that hurts is p1 … p0.01, and its extreme the minimum. 400 batches of
    # 1,000 to 400,000 bytes/s (steps of 1,000): p1's interval is between the samples of ranks 1 and 9.
    batches = [1_000 * i for i in range(1, 401)]
    doc = builders.throughput_doc("crypto.sha256", batches, raw=True)
    found = quantiles.intervals(doc["metrics"][0])
    assert set(found) == {"p1", "p01", "p001"} and quantiles.ranks(400, 0.01) == (1, 9)
    assert (found["p1"].low, found["p1"].high) == (1_000, 9_000) and not found["p01"].enough
    outcome = rtscope("show", builders.write(tmp_path / "run.json", doc))
    tails = outcome.out.split("Tails, 95 % confidence intervals")[1].splitlines()
    assert tails[1].split()[-4:] == ["p1", "p0.1", "p0.01", "min"]
    assert tails[2].endswith("4.99 kB/s (1.00–9.00 kB/s)  too few samples  too few samples  1.00 kB/s of 400")
    assert (
        "  crypto.sha256 (size=1024 library=openssl): p0.1 needs ≥ 3,688 samples and p0.01 ≥ 36,887; this run has 400"
        in tails
    )
