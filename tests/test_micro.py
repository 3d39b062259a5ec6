"""The per-operation microbenchmarks (the micro family), run briefly by the real probe: every metric is
measured, valid, ordered and plausible, and records the checks that say the bench did what it claims."""

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import probe_result

BENCHES = ("heap.ops", "mutex.ops", "mutex.handoff", "thread.ops", "ctxsw.yield", "sem.ops", "msgq.ops")
WAKE_CHECKS = {"rounds": None, "not_blocked": None, "woke_before_wake": 0, "preempted_waker": None, "same_cpu": True}
# Each metric's checks: None where any value will do, else the value a run that did its job has.
CHECKS: dict[str, dict[str, Any]] = {
    "heap.malloc": {"rounds": None, "null_returns": 0},
    "heap.free": {"rounds": None},
    "mutex.lock": {"pairs": None},
    "mutex.unlock": {"pairs": None},
    "mutex.handoff": WAKE_CHECKS,
    "thread.create": {"threads": None, "ran_during_create": None},
    "thread.start": {"threads": None},
    "thread.join": {"threads": None},
    "ctxsw.yield": {
        "turns_a": None,
        "turns_b": None,
        "idle_returns": None,
        "same_cpu": True,
        "switches_per_turn": None,
    },
    "sem.signal": {"signals": None, "lost_tokens": 0},
    "sem.wake": WAKE_CHECKS,
    "msgq.send": {"messages": None},
    "msgq.receive": {"messages": None, "mismatches": 0},
    "msgq.wake": {**WAKE_CHECKS, "mismatches": 0},
}
# Metrics whose every sample holds a context switch: never 0 ns.
SWITCHING = {"mutex.handoff", "thread.start", "ctxsw.yield", "sem.wake", "msgq.wake"}
YIELD_NEEDS_RT = "relinquish did not switch: needs an equal-priority real-time policy"


def run_probe(probe: Path, *args: str) -> dict[str, Any]:
    """Run the micro benches with args (default policy: fifo when permitted) and return the validated result."""
    doc = probe_result(probe, *BENCHES, *args)
    assert [(b["id"], b["status"]) for b in doc["benches"]] == [(b, "ok") for b in BENCHES]
    return doc


# What the probe says when RT throttling stopped a bench's real-time threads: the machine's other work kept
# them from the CPU, not the bench (the probe's own check; tests/test_rt_throttling.py).
THROTTLED = "throttled: "


@pytest.fixture(scope="module")
def brief(probe: Path) -> dict[str, Any]:
    """One brief run of every micro bench; run again, up to three runs in all, while RT throttling stopped a
    bench's threads (on a busy machine), so that every metric is judged on a run it was not stopped in."""
    for _ in range(3):
        doc = run_probe(probe, "--duration", "0.3")
        if not any((metric["invalid_reason"] or "").startswith(THROTTLED) for metric in doc["metrics"]):
            break
    return doc


def metrics_of(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["id"]: m for m in doc["metrics"]}


def assert_valid(doc: dict[str, Any], metric: dict[str, Any]) -> None:
    """Valid; only ctxsw.yield without a real-time policy may be invalid, and then for the reason that says so."""
    if metric["id"] == "ctxsw.yield" and doc["config"]["granted"]["policy"] == "other" and not metric["valid"]:
        assert metric["invalid_reason"].startswith(YIELD_NEEDS_RT)
        return
    assert metric["valid"], metric["invalid_reason"]


def test_every_metric_is_measured(brief):
    assert list(metrics_of(brief)) == list(CHECKS)


@pytest.mark.parametrize("metric_id", CHECKS)
def test_metric_is_valid_ordered_and_plausible(brief, metric_id):
    metric = metrics_of(brief)[metric_id]
    assert_valid(brief, metric)
    for stats in (metric["stats"], metric["adjusted"]):
        assert stats["count"] > 0
        assert 0 <= stats["min"] <= stats["p50"] <= stats["p99"] <= stats["max"], stats
    assert metric["adjusted"]["p50"] < 1e6  # ns: any of these operations takes far under a millisecond
    if metric_id in SWITCHING:
        assert metric["adjusted"]["min"] > 0
    assert metric["cycles"] is None or metric["cycles"]["count"] == metric["stats"]["count"]


@pytest.mark.parametrize("metric_id", CHECKS)
def test_metric_records_its_checks(brief, metric_id):
    metric = metrics_of(brief)[metric_id]
    assert set(metric["checks"]) == set(CHECKS[metric_id])
    for name, want in CHECKS[metric_id].items():
        if want is not None:
            assert metric["checks"][name] == want, name
    if metric_id == "ctxsw.yield" and metric["valid"]:
        assert metric["checks"]["idle_returns"] == 0
        assert metric["checks"]["turns_a"] + metric["checks"]["turns_b"] == metric["stats"]["count"]


def test_a_count_limit_gives_that_many_samples_and_inheritance_works(probe):
    doc = run_probe(probe, "--duration", "10", "--param", "count=500", "--param", "inherit=1")
    assert all(b["elapsed_s"] < 5 for b in doc["benches"])  # the limit, not the duration, ended each bench
    for metric in doc["metrics"]:
        assert_valid(doc, metric)
        if metric["id"] == "thread.create":  # creations the new thread interrupted are not timed
            assert 0 < metric["stats"]["count"] <= 500
        else:
            assert metric["stats"]["count"] == 500, metric["id"]
    params = {b["id"]: b["params"] for b in doc["benches"]}
    assert params["mutex.ops"]["inherit"] == params["mutex.handoff"]["inherit"] == 1


@pytest.mark.parametrize(
    ("param", "message"),
    [
        ("size=0", "bench heap.ops: parameter size: must be between 1 and 1048576, not 0"),
        ("inherit=2", "bench mutex.ops: parameter inherit: must be between 0 and 1, not 2"),
        ("stack_kib=1.5", "bench thread.ops: parameter stack_kib: '1.5' is not a whole number"),
    ],
)
def test_bad_parameters_are_refused_in_one_line(probe, param, message):
    bench = message.split()[1].rstrip(":")
    proc = subprocess.run(
        [str(probe), "run", bench, "--param", f"{bench}:{param}", "--duration", "0.1"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr == f"rtscope-probe: {message}\n"
    assert proc.stdout == ""


def test_a_thread_stack_below_the_platforms_least_is_refused_and_the_default_takes_it(probe):
    least_kib = -(-os.sysconf("SC_THREAD_STACK_MIN") // 1024)
    refused = subprocess.run(
        [str(probe), "run", "thread.ops", "--param", f"stack_kib={least_kib - 1}"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr == (
        f"rtscope-probe: bench thread.ops: stack_kib {least_kib - 1} is less than this "
        f"platform's least thread stack, {least_kib} KiB (0 takes it, or 64 KiB where that "
        "is more)\n"
    )
    ran = probe_result(
        probe, "thread.ops", "--param", "count=50", "--duration", "5", "--policy", "other", "--no-mlock", timeout=30
    )
    # The default (0) is recorded as the stack measured with: 64 KiB, or the platform's least (arm64 glibc: 128).
    assert ran["benches"][0]["params"]["stack_kib"] == max(64, least_kib)


def test_a_round_too_large_fails_the_bench_plainly(probe):
    proc = subprocess.run(
        [str(probe), "run", "heap.ops", "--param", "size=1048576", "--duration", "0.1", "--quiet", "--json", "-"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 1
    bench = json.loads(proc.stdout)["benches"][0]
    assert bench["status"] == "failed" and "at most 268435456 may be held at once" in bench["error"]
