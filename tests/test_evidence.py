"""Whether two groups of runs differ, with the repetition as the unit of evidence (rtscope.analysis.evidence):
Student's t against scipy, Welch's test over runs, one run against several, identical repetitions,
Holm's adjustment, the smallest effect worth reporting, power statements and better by meaning."""

import math
import random

import pytest
from scipy import stats as scipy_stats

from rtscope.analysis import evidence
from support import builders


@pytest.mark.parametrize(("t", "df"), [(0.5, 3), (2.1, 4), (5.0, 2.3), (10.0, 30), (0.01, 100), (3.2, 1)])
def test_students_t_is_scipys(t, df):
    assert evidence.t_sf(t, df) == pytest.approx(scipy_stats.t.sf(t, df), rel=1e-9)


@pytest.mark.parametrize(
    ("p", "df"), [(0.975, 4), (0.9995, 1.5), (0.975, 1), (0.99999, 3), (0.975, 2000), (0.9975, 7.3)]
)
def test_students_quantiles_are_scipys(p, df):
    assert evidence.t_quantile(p, df) == pytest.approx(scipy_stats.t.ppf(p, df), rel=1e-9)


def runs(figures: list[float], metric_id: str = "lat.wakeup", key: str = "p50") -> list[dict]:
    """Runs whose statistic ``key`` is each of ``figures`` (ns), as measured and adjusted alike."""
    made = []
    for figure in figures:
        metric = builders.metric(metric_id, 10_000.0)
        metric["overhead_ns"] = 0.0
        for part in ("stats", "adjusted"):
            metric[part] = {**metric[part], key: figure}
        made.append(metric)
    return made


def test_a_shift_within_the_run_to_run_spread_is_not_a_difference():
    # Runs move by about 4 % between repetitions; B is 1.5 % slower: nothing the runs can tell.
    verdict = evidence.compare_groups(runs([9600, 10000, 10400]), runs([9750, 10150, 10550]))
    assert verdict is not None and verdict.test == "t" and verdict.runs == (3, 3)
    assert not verdict.real and verdict.p_value > 0.5
    low, high = verdict.interval
    assert low < 1 < high  # the interval says so too


def test_a_shift_beyond_the_run_to_run_spread_is_real_with_its_interval():
    verdict = evidence.compare_groups(runs([9900, 10000, 10100]), runs([14800, 15000, 15200]))
    assert verdict.real and verdict.test == "t" and verdict.p_value < 0.001
    assert verdict.ratio == pytest.approx(1.5, rel=0.01)
    low, high = verdict.interval
    assert 1.4 < low < 1.5 < high < 1.6
    # By scipy: Welch's t on the logarithms.
    logs = [[math.log(v) for v in group] for group in ([9900, 10000, 10100], [14800, 15000, 15200])]
    expected = scipy_stats.ttest_ind(logs[1], logs[0], equal_var=False).pvalue
    assert verdict.p_value == pytest.approx(expected, rel=1e-6)


def test_one_run_against_repetitions_is_a_prediction_test():
    # Where would a fourth run of A land? Its three runs spread by 1 %: 12 µs is far outside, 10.1 µs inside.
    baseline = runs([9900, 10000, 10100])
    far, near = (evidence.compare_groups(baseline, runs([figure])) for figure in (12000, 10100))
    assert far.test == near.test == "run" and far.runs == (3, 1)
    assert far.real and not near.real
    logs = [math.log(v) for v in (9900, 10000, 10100)]
    spread = scipy_stats.tstd(logs) * math.sqrt(1 + 1 / 3)
    expected = 2 * scipy_stats.t.sf((math.log(12000) - sum(logs) / 3) / spread, 2)
    assert far.p_value == pytest.approx(expected, rel=1e-6)


def test_identical_repetitions_tell_nothing():
    # An emulator's reruns, bit for bit: their spread is 0, however far apart the groups are.
    verdict = evidence.compare_groups(runs([10000, 10000]), runs([20000, 20000]))
    assert not verdict.real and verdict.blind == evidence.IDENTICAL
    assert "identical repetitions" in str(verdict)


def test_seeded_repetitions_that_did_not_move_differ_exactly():
    # Each run seeded apart (the phase of its start varied) and still identical: a spread of 0, measured.
    verdict = evidence.compare_groups(runs([10000, 10000]), runs([20000, 20000]), varied=True)
    assert verdict.real and verdict.test == "exact" and verdict.p_value == 0.0
    assert verdict.interval == pytest.approx((2.0, 2.0))
    same = evidence.compare_groups(runs([10000, 10000]), runs([10000, 10000]), varied=True)
    assert not same.real and same.p_value == 1.0
    seeded = [{"run": {"seed": seed}} for seed in (1, 2)]
    assert evidence.seeded_apart(seeded) and not evidence.seeded_apart([*seeded, {"run": {"seed": 1}}])
    assert not evidence.seeded_apart([{"run": {}}, {"run": {"seed": 3}}])


def test_one_run_each_is_never_real_but_says_whether_the_runs_differ():
    verdict = evidence.compare_groups(runs([10000]), runs([20000]))
    assert verdict.runs == (1, 1) and verdict.blind == evidence.ONE_RUN_EACH and not verdict.real
    assert verdict.test in evidence.SAMPLE_TESTS


def test_a_real_but_small_effect_is_negligible():
    # 2 % slower in every one of five runs: significant, yet under the 5 % worth reporting.
    a = runs([10000, 10010, 9990, 10005, 9995])
    b = runs([10200, 10210, 10190, 10205, 10195])
    verdict = evidence.compare_groups(a, b)
    assert verdict.significant and verdict.negligible and not verdict.real
    assert evidence.compare_groups(a, b, min_effect=0.01).real
    # Within one clock step (histogram step 40 ns: an emulated board's clock), however significant.
    coarse = [{**m, "histogram": {**m["histogram"], "resolution": 400.0}} for m in (*a, *b)]
    assert evidence.compare_groups(coarse[:5], coarse[5:], min_effect=0.0).negligible


def test_holm_adjusts_over_the_family_it_counts():
    made = [evidence.Difference("t", p, (3, 3), 1.2) for p in (0.01, 0.04, 0.03, 0.005)]
    blind = evidence.Difference("MW", 0.001, (1, 1), 1.2, blind=evidence.ONE_RUN_EACH)
    weighed = evidence.holm([*made, None, blind])
    # Sorted 0.005, 0.01, 0.03, 0.04: × 4, 3, 2, 1 and never below the one before: 0.02, 0.03, 0.06, 0.06.
    assert [d.p_adjusted for d in weighed[:4]] == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert [d.comparisons for d in weighed[:4]] == [4] * 4 and weighed[4] is None
    assert weighed[5] is blind  # a run against a run is no part of a verdict's family
    assert evidence.holm([blind], samples_too=True)[0].p_adjusted == 0.001  # but of check's
    assert [d.real for d in weighed[:4]] == [True, False, False, True]


def test_a_power_statement_names_the_runs_an_effect_would_need():
    # Effect 10 % (log 0.0953) and spread 3 %: Welch's test at 5 % finds it 4 times in 5 with n runs each;
    # the noncentral t (scipy) puts the smallest such n at 4.
    unseen = evidence.Difference("t", 0.2, (2, 2), 1.1, spread=0.03)
    needed = evidence.runs_needed(unseen, 0.05)

    def power(n: int) -> float:
        df = 2 * n - 2
        critical = scipy_stats.t.ppf(0.975, df)
        noncentral = math.log(1.1) / (0.03 * math.sqrt(2 / n))
        return scipy_stats.nct.sf(critical, df, noncentral)

    exact = next(n for n in range(2, 50) if power(n) >= 0.8)
    assert abs(needed - exact) <= 1
    assert evidence.runs_needed(unseen, 0.005) > needed  # a family's stricter level asks more
    assert evidence.runs_needed(evidence.Difference("t", 0.2, (2, 2), 1.5, spread=0.03), 0.05) < needed
    weighed = evidence.holm([unseen])[0]
    assert weighed.needed == needed and f"about {needed} runs each would tell" in str(weighed)


def test_closer_to_the_nominal_value_is_better_for_a_square_wave():
    # Nominal period 1 ms: runs 0.5 % short against runs 2 % long — the short ones are closer.
    def periods(figures: list[float]) -> list[dict]:
        made = runs(figures, "wave.period")
        for metric in made:
            metric["labels"] = {"model": "c-rt", "period_us": 1000}
        return made

    verdict = evidence.compare_groups(periods([995000, 995100, 994900]), periods([1020000, 1020100, 1019900]))
    assert verdict.real and verdict.ratio == pytest.approx(4.0, rel=0.05)  # 2 % off against 0.5 % off


def test_a_null_difference_is_called_real_at_about_the_level_asked():
    # 2,000 pairs of groups of 3 runs from one log-normal (3 % spread): Welch's t calls about 5 % real.
    rng = random.Random(5)
    called = sum(
        evidence.compare_groups(
            runs([10000 * math.exp(rng.gauss(0, 0.03)) for _ in range(3)]),
            runs([10000 * math.exp(rng.gauss(0, 0.03)) for _ in range(3)]),
            min_effect=0.0,
        ).real
        for _ in range(2000)
    )
    assert 0.02 * 2000 <= called <= 0.065 * 2000
