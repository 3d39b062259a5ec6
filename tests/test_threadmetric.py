"""The Thread-Metric suite (tm.*), run briefly by the real probe: per-period counts, the ratio to
tm.basic, the checks each test records (the harness's share among them), the interrupt tests counting
interrupts, and the verdict without strict priorities; and the report's table of harness shares."""

import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conftest import probe_result
from support import builders
from test_report import report, section_rows

TESTS = ("tm.basic", "tm.coop", "tm.preempt", "tm.irq", "tm.irq_preempt", "tm.message", "tm.sync", "tm.memory")
PERIODS = 3
BRIEF = ["--param", "period=0.2", "--param", f"periods={PERIODS}"]
# Checks every test records, with the value a test that did its job has (None: any value).
COMMON_CHECKS = {
    "strict_priorities": True,
    "cpu": None,
    "same_cpu": True,
    "reporter_late_max_us": None,
    "counters_monotonic": True,
    "harness_ns_per_pass": None,
    "harness_share": None,
}
OWN_CHECKS: dict[str, dict[str, Any]] = {
    "tm.basic": {"work_verified": True},
    "tm.coop": {"counters_spread_max": None},
    "tm.preempt": {"counters_spread_max": None, "preemptions_expected": None, "preemptions_observed": None},
    "tm.irq": {"counters_spread_max": None, "interrupts": None, "take_failed": False},
    "tm.irq_preempt": {"counters_spread_max": None, "preemptions_expected": None, "preemptions_observed": None},
    "tm.message": {"message_intact": True, "queue_failed": False},
    "tm.sync": {"sem_failed": False},
    "tm.memory": {"pool_failed": False, "blocks_after": 16},
}
STRICT_PRIORITIES_NEEDED = "Thread-Metric needs strict priorities on one CPU"


def run_probe(probe: Path, *args: str, status: int = 0) -> dict[str, Any]:
    return probe_result(probe, "threadmetric", *args, status=status)


@pytest.fixture(scope="module")
def brief(probe: Path) -> dict[str, Any]:
    """One brief run of the suite, with whatever privilege the tests have."""
    return run_probe(probe, *BRIEF)


@pytest.fixture(scope="module")
def refused(probe: Path) -> dict[str, Any]:
    """The same, acting unprivileged."""
    return run_probe(probe, *BRIEF, "--refuse-privilege")


def metrics_of(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["id"]: m for m in doc["metrics"]}


def test_the_suite_runs_all_eight_tests_on_one_cpu(brief):
    assert [(b["id"], b["status"]) for b in brief["benches"]] == [(t, "ok") for t in TESTS]
    metrics = metrics_of(brief)
    assert list(metrics) == list(TESTS)
    assert len({m["checks"]["cpu"] for m in metrics.values()}) == 1


@pytest.mark.parametrize("test", TESTS)
def test_each_period_is_counted_and_summarised(brief, test):
    m = metrics_of(brief)[test]
    assert m["unit"] == "count" and m["period_s"] == 0.2
    assert len(m["periods"]) == PERIODS and all(count > 0 for count in m["periods"])
    stats = m["stats"]
    assert stats["count"] == PERIODS
    assert stats["min"] == min(m["periods"]) and stats["max"] == max(m["periods"])
    assert stats["p50"] == sorted(m["periods"])[PERIODS // 2]
    assert m["adjusted"] == stats and m["cycles"] is None and m["histogram"] is None
    assert m["baseline"]["metric"] == "tm.basic"


@pytest.mark.parametrize("test", TESTS)
def test_each_period_runs_from_one_reading_to_the_next_and_says_how_long_it_was(brief, test):
    """As the suite's reporter sleeps a period after each reading: a period is at least the nominal one
    (the reporter never wakes early), as long as it took (a late wake-up lengthens that period alone),
    beside its count, which is never scaled."""
    m = metrics_of(brief)[test]
    lengths = m["period_lengths_s"]
    assert len(lengths) == len(m["periods"]) == PERIODS
    assert all(length >= m["period_s"] for length in lengths)
    late_s = m["checks"]["reporter_late_max_us"] / 1e6
    assert all(length <= m["period_s"] + late_s + 1e-6 for length in lengths)


@pytest.mark.parametrize("test", TESTS)
def test_each_test_records_its_checks_and_is_valid_exactly_when_priorities_were_strict(brief, test):
    m = metrics_of(brief)[test]
    expected = {**COMMON_CHECKS, **OWN_CHECKS[test]}
    assert set(m["checks"]) == set(expected)
    strict = brief["config"]["granted"]["policy"] != "other"
    assert m["checks"]["strict_priorities"] is strict
    if not strict:
        assert not m["valid"] and m["invalid_reason"].startswith(STRICT_PRIORITIES_NEEDED)
        return
    assert m["valid"], m["invalid_reason"]
    for name, value in expected.items():
        if value is not None:
            assert m["checks"][name] == value, name
    if "counters_spread_max" in m["checks"]:
        assert m["checks"]["counters_spread_max"] <= 1
    if "preemptions_expected" in m["checks"]:
        assert m["checks"]["preemptions_observed"] == m["checks"]["preemptions_expected"] > 0


@pytest.mark.parametrize("test", ["tm.irq", "tm.irq_preempt"])
def test_the_interrupt_tests_count_interrupts_not_the_sum_of_their_counters(brief, test):
    """Thread-Metric reports the interrupts handled; the handler's and the threads' counters are checks
    that agree with it within one, so the periods add up to about the interrupts, not two or three times
    as many."""
    m = metrics_of(brief)[test]
    if not m["valid"]:
        pytest.skip("no strict priorities here")
    interrupts_in_periods = sum(m["periods"])
    # Counted as the suite counts: each period runs from one reading to the next and holds what was handled
    # in it, unscaled, so the periods hold no more than were handled (one more each for a handler counted
    # before the thread it woke).
    if "interrupts" in m["checks"]:
        # Every interrupt of the test: the measured periods hold most of them.
        assert 0.5 * m["checks"]["interrupts"] < interrupts_in_periods
        assert interrupts_in_periods <= m["checks"]["interrupts"] + PERIODS
    if "preemptions_expected" in m["checks"]:
        # One preemption per interrupt: the periods count each once.
        assert 0.5 * m["checks"]["preemptions_expected"] < interrupts_in_periods
        assert interrupts_in_periods <= m["checks"]["preemptions_expected"] + PERIODS


@pytest.mark.parametrize("test", TESTS)
def test_each_test_says_what_its_harness_took(brief, test):
    """The loop without its work, timed before the periods: a positive cost per pass, and a share of the
    measured time between 0 and 1 (tm.basic's passes are long, so its share is small)."""
    checks = metrics_of(brief)[test]["checks"]
    assert checks["harness_ns_per_pass"] > 0
    assert 0 < checks["harness_share"] < 1
    if test == "tm.basic":
        assert checks["harness_share"] < 0.05


def test_ratios_are_medians_over_the_calibration_median(brief):
    metrics = metrics_of(brief)
    basic = metrics["tm.basic"]["stats"]["p50"]
    for m in metrics.values():
        if m["valid"] and metrics["tm.basic"]["valid"]:
            assert m["baseline"]["ratio"] == pytest.approx(m["stats"]["p50"] / basic, rel=1e-3)
        else:
            assert m["baseline"]["ratio"] is None


def test_without_privilege_every_test_is_measured_but_invalid(refused):
    for m in refused["metrics"]:
        assert len(m["periods"]) == PERIODS
        assert m["checks"]["strict_priorities"] is False
        assert not m["valid"] and m["invalid_reason"].startswith(STRICT_PRIORITIES_NEEDED)
        assert m["baseline"]["ratio"] is None


def test_ctrl_c_keeps_the_complete_periods(probe):
    process = subprocess.Popen(
        [str(probe), "run", "tm.sync", "--param", "period=0.3", "--param", "periods=100", "--quiet", "--json", "-"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(1.5)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    doc = json.loads(out)
    jsonschema.validate(doc, builders.SCHEMA)
    m = doc["metrics"][0]
    assert doc["benches"][0]["status"] == "interrupted"
    assert 1 <= len(m["periods"]) < 100


@pytest.mark.parametrize(
    ("param", "message"),
    [
        ("period=0", "bench tm.basic: parameter period: must be between 0.05 and 3600, not 0"),
        ("periods=0", "bench tm.basic: parameter periods: must be between 1 and 1000, not 0"),
        ("periods=2.5", "bench tm.basic: parameter periods: '2.5' is not a whole number"),
    ],
)
def test_bad_periods_are_refused_in_one_line(probe, param, message):
    proc = subprocess.run(
        [str(probe), "run", "tm.basic", "--param", param], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 2
    assert proc.stderr == f"rtscope-probe: {message}\n"


def test_the_report_shows_each_runs_harness_share_per_test(rtscope, tmp_path):
    doc = builders.result_doc(run_id="00000000000000a1", benches={})
    doc["metrics"] = [
        builders.count_metric(metric_id, [1000, 1010, 990], baseline_ratio=ratio)
        for metric_id, ratio in (("tm.basic", 1.0), ("tm.coop", 0.5), ("tm.sync", 2.0))
    ]
    doc["metrics"][0]["checks"]["harness_share"] = 0.0009
    doc["metrics"][1]["checks"]["harness_share"] = 0.086
    text = report(rtscope, tmp_path, builders.write(tmp_path / "a1.json", doc))
    rows = section_rows(text, "thread-metric")
    # tm.sync recorded none (a result from before harness shares): a dash.
    assert rows == [["run", "tm.basic", "tm.coop", "tm.sync"], ["A", "0.1 %", "8.6 %", "—"]]
