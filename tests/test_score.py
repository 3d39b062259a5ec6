"""The Metrics Number (rtscope score) and weight profiles (rtscope profile)."""

import sys

import pytest

from rtscope.analysis import score
from rtscope.errors import RtscopeError
from support import builders

PUBLISHED = score.DEFAULT_PROFILE
# T in µs of the published table: context switch, preemption time, interrupt latency.
TIMES = {"FreeRTOS": (7, 15, 3.5), "Salvo": (10, 12, 2.5), "PICOS18": (47, 15, 50)}
METRICS = ("ctxsw.sem", "lat.preempt", "lat.irq")


def _total_us(times, weights=(55, 67, 1134)):
    return sum(t * w for t, w in zip(times, weights, strict=True))


def test_the_published_scores():
    assert _total_us(TIMES["FreeRTOS"]) == 5359
    assert score.metrics_number(5359) == pytest.approx(186.60, abs=0.005)
    # PICOS18: 60290 µs gives 16.5865, printed truncated as 16.58.
    assert score.metrics_number(_total_us(TIMES["PICOS18"])) == pytest.approx(16.5865, abs=5e-5)


def test_salvo_as_published_and_as_computed():
    # The published row prints 510 for 10 × 55 and sums to 4149; the product is 550, the sum 4189.
    assert score.metrics_number(4149) == pytest.approx(241.02, abs=0.005)
    assert _total_us(TIMES["Salvo"]) == 4189
    assert score.metrics_number(4189) == pytest.approx(238.72, abs=0.005)


def _run_with_means(tmp_path, name, run_id, times):
    doc = builders.result_doc(run_id=run_id, label=name, benches={m: t * 1000 for m, t in zip(METRICS, times)})
    for metric_doc, t in zip(doc["metrics"], times, strict=True):
        metric_doc["adjusted"]["mean"] = t * 1000.0  # the published T is the mean
    return builders.write(tmp_path / f"{name}.json", doc)


def test_score_prints_the_breakdown_and_ranks_runs(tmp_path, rtscope):
    paths = [
        _run_with_means(tmp_path, name, f"{i:016x}", times) for i, (name, times) in enumerate(TIMES.items(), start=1)
    ]
    outcome = rtscope("score", *paths)
    assert outcome.status == 0, outcome.err
    lines = outcome.out.splitlines()
    assert ["lat.irq", "3.5", "1,134", "3,969"] in [line.split() for line in lines]
    assert ["score", "186.60"] in [line.split() for line in lines]
    assert ["score", "238.72"] in [line.split() for line in lines]
    ranking = lines[lines.index(next(line for line in lines if line.startswith("Ranking"))) + 1 :]
    assert [row.split()[1] for row in ranking] == ["B", "A", "C"]  # Salvo, FreeRTOS, PICOS18
    assert ranking[0].split()[-1] == "1.00×"


def test_worst_case_scoring_uses_the_statistic_asked_for(tmp_path, rtscope):
    path = _run_with_means(tmp_path, "FreeRTOS", "0000000000000001", TIMES["FreeRTOS"])
    mean = rtscope("score", path).out
    worst = rtscope("score", path, "--stat", "max").out
    assert "T is each metric's mean" in mean and "T is each metric's max" in worst
    assert [line.split() for line in worst.splitlines() if line.strip().startswith("score")] != [
        line.split() for line in mean.splitlines() if line.strip().startswith("score")
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[weights\n", "not a valid profile: "),
        ("name = 'x'\n", "no [weights] table"),
        ("[weights]\n'ctxsw.sem' = 'heavy'\n", "weight of ctxsw.sem must be a number >= 0, not 'heavy'"),
        ("[weights]\n'ctxsw.sem' = -1\n", "weight of ctxsw.sem must be a number >= 0, not -1"),
        ("[weights]\n'ctxsw.sem' = 0\n", "every weight is 0"),
        ("statistic = 'p42'\n[weights]\n'ctxsw.sem' = 1\n", "statistic 'p42' is not one of"),
        ("colour = 'red'\n[weights]\n'ctxsw.sem' = 1\n", "unknown key 'colour'"),
    ],
)
def test_malformed_profiles_get_one_line(tmp_path, rtscope, text, message):
    profile = tmp_path / "bad.toml"
    profile.write_text(text)
    run = _run_with_means(tmp_path, "FreeRTOS", "0000000000000001", TIMES["FreeRTOS"])
    outcome = rtscope("score", run, "--profile", profile)
    assert outcome.status == 2
    assert outcome.err.startswith(f"rtscope: {profile}: ") and outcome.err.count("\n") == 1
    assert message in outcome.err


def test_a_run_without_a_weighed_metric_is_refused(tmp_path, rtscope):
    run = builders.write(tmp_path / "run.json", builders.result_doc(benches={"ctxsw.sem": 3000.0}))
    outcome = rtscope("score", run)
    assert outcome.status == 2
    assert outcome.err == (
        "rtscope: run 0123456789abcdef has no metric lat.preempt, which profile "
        "'published example' weighs (measure it, or give it no weight)\n"
    )


def test_the_shipped_profile_is_the_published_one():
    profile = score.load_profile(PUBLISHED)
    assert profile.weights == {"ctxsw.sem": 55, "lat.preempt": 67, "lat.irq": 1134}
    assert profile.statistic == "mean"


def test_profile_counts_the_switches_of_a_program_that_sleeps(tmp_path, rtscope):
    out = tmp_path / "sleeper.toml"
    sleeps = 40
    outcome = rtscope(
        "profile", "-o", out, "--", sys.executable, "-c", f"import time\nfor _ in range({sleeps}): time.sleep(0.002)"
    )
    assert outcome.status == 0, outcome.err
    profile = score.load_profile(out)
    assert profile.weights["ctxsw.sem"] >= sleeps  # every sleep blocks once at least
    assert profile.weights["lat.irq"] > 0  # a timer interrupt ends each sleep, somewhere
    assert "voluntary switches" in outcome.out


@pytest.mark.parametrize(
    ("program", "message"),
    [
        (["/nonexistent/program"], "cannot start /nonexistent/program: no such program on the target local"),
        ([sys.executable, "-c", "raise SystemExit(3)"], "exited with status 3"),
        ([], "name the program to profile after --"),
    ],
)
def test_profile_of_a_program_that_cannot_run_writes_nothing(tmp_path, rtscope, program, message):
    out = tmp_path / "p.toml"
    outcome = rtscope("profile", "-o", out, "--", *program)
    assert outcome.status == 2 and message in outcome.err and outcome.err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_score_of_an_unreadable_profile(tmp_path):
    with pytest.raises(RtscopeError, match="no such profile file"):
        score.load_profile(tmp_path / "missing.toml")
