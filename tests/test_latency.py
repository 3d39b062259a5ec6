"""The latency suite, run briefly by the real probe: every bench measures, records its checks and gives
plausible, ordered figures; a delay injected on the measuring CPU shows in the maximum; and the Metrics
Number of a real run."""

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import Outcome, probe_result
from rtscope.analysis import spikes

BENCHES = ("lat.wakeup", "lat.preempt", "lat.preempt_timer", "lat.irq")
CHECKS = {
    "lat.wakeup": {"interval_ns", "wakeups", "overruns", "same_cpu"},
    "lat.preempt": {"rounds", "not_blocked", "woke_before_wake", "preempted_waker", "same_cpu", "busy_ns", "rests"},
    "lat.preempt_timer": {"interval_ns", "wakeups", "overruns", "low_spins", "rests", "same_cpu"},
    "lat.irq": {"interval_ns", "interrupts", "merged_expiries", "early", "timerlat", "same_cpu"},
}
ORDERED = ("min", "p50", "p90", "p99", "p999", "p9999", "max")


@pytest.fixture(scope="module")
def brief(probe: Path) -> dict[str, Any]:
    return probe_result(probe, "latency", "--duration", "0.5", "--cpus", str(os.cpu_count() - 1))


@pytest.mark.parametrize("bench", BENCHES)
def test_each_latency_bench_measures_plausibly(brief, bench):
    m = next(m for m in brief["metrics"] if m["id"] == bench)
    assert set(m["checks"]) == CHECKS[bench]
    stats = m["adjusted"]
    assert stats["count"] > 10
    values = [stats[key] for key in ORDERED]
    assert values == sorted(values) and values[0] >= 0
    assert stats["max"] < 5e9  # a sample is not seconds late


def over_threshold_bounds(metric: dict[str, Any]) -> tuple[int, int]:
    """How many samples the histogram says are above the metric's threshold: at least those in buckets
    wholly above it, at most those in buckets reaching above it (plus the overflow)."""
    threshold, histogram = metric["threshold"]["ns"], metric["histogram"]
    surely = sum(count for lower, _, count in histogram["buckets"] if lower > threshold)
    maybe = sum(count for lower, width, count in histogram["buckets"] if lower + width - 1 > threshold)
    return surely + histogram["overflow"], maybe + histogram["overflow"]


def check_series_and_threshold(metric: dict[str, Any]) -> None:
    """The series holds the worst sample of each window: its maximum is the metric's (as measured), no
    window is worse; the threshold count agrees with the histogram."""
    series = metric["series"]
    assert series["window_s"] == 1 and series["dropped"] == 0
    worst = [value for value in series["max"] if value is not None]
    assert worst and max(worst) == metric["stats"]["max"] and min(worst) >= metric["stats"]["min"]
    low, high = over_threshold_bounds(metric)
    assert low <= metric["threshold"]["over"] <= high


@pytest.mark.parametrize("privilege", ["granted", "refused"])
def test_lat_wakeup_measures_on_each_cpu_and_merges_them(probe, privilege):
    if os.cpu_count() < 2:
        pytest.skip("needs two CPUs")
    if privilege == "granted" and os.geteuid() != 0:
        pytest.skip("real-time priority needs root")
    refuse = ["--refuse-privilege"] if privilege == "refused" else []
    doc = probe_result(probe, "lat.wakeup", "--duration", "1.2", "--cpus", "0,1", *refuse)
    merged, *per_cpu = doc["metrics"]
    assert [m["id"] for m in doc["metrics"]] == ["lat.wakeup", "lat.wakeup.cpu0", "lat.wakeup.cpu1"]
    assert [m["checks"]["cpu"] for m in per_cpu] == [0, 1]
    assert all(m["checks"]["same_cpu"] for m in per_cpu)
    assert merged["checks"]["threads"] == 2
    assert merged["checks"]["wakeups"] == sum(m["checks"]["wakeups"] for m in per_cpu)
    stats = [m["stats"] for m in per_cpu]
    assert merged["stats"]["count"] == sum(s["count"] for s in stats) > 1000
    assert merged["stats"]["max"] == max(s["max"] for s in stats)
    assert merged["stats"]["min"] == min(s["min"] for s in stats)
    assert merged["threshold"]["over"] == sum(m["threshold"]["over"] for m in per_cpu)
    windows = [m["series"]["max"] for m in per_cpu]
    assert len(merged["series"]["max"]) == max(map(len, windows)) >= 2
    for k, value in enumerate(merged["series"]["max"]):
        in_window = [w[k] for w in windows if k < len(w) and w[k] is not None]
        assert value == (max(in_window) if in_window else None)
    for metric in doc["metrics"]:
        check_series_and_threshold(metric)


def test_lat_wakeup_on_one_cpu_keeps_one_metric(probe):
    doc = probe_result(probe, "lat.wakeup", "--duration", "0.3", "--cpus", "0", "--param", "threshold_us=0")
    assert [m["id"] for m in doc["metrics"]] == ["lat.wakeup"]
    assert doc["metrics"][0]["threshold"] is None  # 0: no threshold
    assert doc["benches"][0]["params"]["duration_s"] == 0.3  # the run's duration, as used


def test_the_cpu_parameter_gives_one_thread_and_its_own_duration(probe):
    doc = probe_result(
        probe,
        "lat.wakeup",
        "--duration",
        "0.2",
        "--cpus",
        "0",
        "--param",
        f"cpu={os.cpu_count() - 1}",
        "--param",
        "duration_s=0.7",
    )
    assert [m["id"] for m in doc["metrics"]] == ["lat.wakeup"]
    bench = doc["benches"][0]
    assert bench["params"]["cpu"] == os.cpu_count() - 1 and bench["params"]["duration_s"] == 0.7
    assert bench["elapsed_s"] >= 0.65
    assert len(doc["metrics"][0]["series"]["max"]) >= 1


def test_without_privilege_the_latency_benches_still_measure(probe):
    doc = probe_result(probe, "latency", "--duration", "0.3", "--refuse-privilege")
    assert [b["status"] for b in doc["benches"]] == ["ok"] * len(BENCHES)
    assert doc["config"]["granted"]["policy"] == "other"
    assert any("timer slack" in warning for warning in doc["config"]["warnings"])


def fifo_hog(cpu: str, *, busy_s: float, every_s: float, name: str | None = None) -> subprocess.Popen[bytes]:
    """A process at SCHED_FIFO 90 on cpu (above the measuring thread's 80) busy for busy_s every every_s, for
    3 s; ``name``: its comm, so that a trace can tell it."""
    rename = f"open('/proc/self/comm', 'w').write({name!r})\n" if name else ""
    loop = (
        f"import time\n{rename}end = time.monotonic() + 3\n"
        "while time.monotonic() < end:\n"
        f"    t = time.monotonic() + {busy_s}\n"
        "    while time.monotonic() < t: pass\n"
        f"    time.sleep({every_s - busy_s})\n"
    )
    return subprocess.Popen(["chrt", "-f", "90", "taskset", "-c", cpu, sys.executable, "-c", loop])


@pytest.mark.skipif(os.geteuid() != 0, reason="the injected delay runs at a real-time priority")
def test_a_delay_injected_on_the_cpu_shows_in_the_maximum(probe, tmp_path):
    cpu = str(os.cpu_count() - 1)
    # Above the measuring thread (fifo 80), on its CPU: a 20 ms busy stretch every 100 ms.
    hog = fifo_hog(cpu, busy_s=0.02, every_s=0.1)
    try:
        time.sleep(0.2)
        doc = probe_result(probe, "lat.wakeup", "--duration", "1", "--cpus", cpu)
    finally:
        hog.wait(timeout=30)
    metric = doc["metrics"][0]
    assert metric["adjusted"]["max"] >= 10e6  # 10 ms: the 20 ms stretch, less the slack of its start
    assert metric["threshold"]["over"] >= 5  # about ten stretches in the second, each delays a wake-up
    assert max(value for value in metric["series"]["max"] if value is not None) >= 10e6
    check_series_and_threshold(metric)


@pytest.fixture
def tracefs() -> Path:
    """tracefs, mounted where the kernel has it and this machine has not mounted it yet (root only)."""
    mount = Path("/sys/kernel/tracing")
    if os.geteuid() != 0:
        pytest.skip("tracing the kernel needs root")
    if not (mount / "available_tracers").exists():
        subprocess.run(["mount", "-t", "tracefs", "tracefs", str(mount)], capture_output=True, check=False)
    if not (mount / "available_tracers").exists():
        pytest.skip("this kernel has no tracefs to mount")
    return mount


# lat.irq's samples stop at its interval however long the CPU is held (the held expiries merge: the
# handler times the last), so its threshold is lower. lat.preempt's low thread gives without computing
# between gives, so that the hog's wake-ups fall in its samples (give to take), not between them.
@pytest.mark.parametrize(
    ("bench", "params"),
    [
        ("lat.wakeup", ("threshold_us=1000",)),
        ("lat.irq", ("threshold_us=300",)),
        ("lat.preempt", ("threshold_us=1000", "busy_us=0")),
    ],
)
def test_the_trace_at_a_spike_names_the_process_that_held_the_cpu(probe, tracefs, bench, params):
    cpu = str(os.cpu_count() - 1)
    # Above the measuring thread (fifo 80), on its CPU, named so the trace can tell it: 2 ms busy every 50 ms.
    hog = fifo_hog(cpu, busy_s=0.002, every_s=0.05, name="rtscope-hog")
    try:
        time.sleep(0.2)
        doc = probe_result(
            probe,
            bench,
            "--duration",
            "1.5",
            "--cpus",
            cpu,
            *(arg for param in params for arg in ("--param", param)),
            "--param",
            "trace=each",
            "--param",
            "trace_limit=4",
        )
    finally:
        hog.wait(timeout=30)
    metric = doc["metrics"][0]
    assert 1 <= metric["checks"]["traced_spikes"] == len(metric["spikes"]) <= 4
    assert metric["checks"]["trace_failures"] == 0
    if bench == "lat.preempt":  # the round after each kept trace is not recorded (after the last, maybe none)
        traced = metric["checks"]["traced_spikes"]
        assert traced - 1 <= metric["checks"]["trace_skipped"] <= traced
    assert not (tracefs / "instances" / "rtscope").exists()  # the instance went with the run
    culprits = [spikes.explain(spike, bench).culprit for spike in metric["spikes"]]
    runs = [c.ran_ns for c in culprits if c is not None and c.what.startswith("rtscope-hog (pid ")]
    assert runs, [c and c.what for c in culprits]  # a VM pause may explain a spike too, not all of them
    assert all(c.what.endswith(", RT 90)") for c in culprits if c is not None and c.what.startswith("rtscope-hog"))
    # The injected 2 ms, within 10 %: the trace's own clock, not the hog's.
    assert 1.8e6 <= statistics.median(runs) <= 2.2e6


def test_without_tracefs_the_bench_says_so_and_measures_untraced(probe):
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    if (
        os.geteuid() != 0
        or subprocess.run([*nobody, str(probe), "version"], check=False, capture_output=True).returncode
    ):
        pytest.skip("drops to nobody from root, who must be able to run the probe where it was built")
    doc = probe_result(probe, "lat.wakeup", "--duration", "0.3", "--param", "trace=first", as_user=nobody, timeout=60)
    assert doc["benches"][0]["status"] == "ok" and doc["metrics"][0]["valid"]
    assert "spikes" not in doc["metrics"][0]
    [warning] = [w for w in doc["config"]["warnings"] if "trace=first" in w]
    # "tracefs is not readable by this user: …" where root mounted it, "no tracefs: …" where nobody did.
    assert warning.startswith("lat.wakeup: trace=first: ") and warning.endswith(": measuring without a trace")
    assert "tracefs" in warning


def test_the_score_of_a_real_run(probe, rtscope_process):
    def run_and_score() -> Outcome:
        outcome = rtscope_process("--probe", probe, "run", "ctxsw.sem", "lat.preempt", "lat.irq", "--duration", "0.3")
        assert outcome.status == 0, outcome.err
        return rtscope_process("score", "last")

    scored = run_and_score()
    # On a busy machine (other suites' real-time probes on the CPU) ctxsw.sem's threads can start after its 0.3 s
    # (1 run in 6, elapsed 1.0 s): the score then says which metric has no samples, and one more run is measured.
    if "has no mean (no samples)" in scored.err:
        scored = run_and_score()
    assert scored.status == 0, scored.err
    value = float(next(line.split()[1] for line in scored.out.splitlines() if line.strip().startswith("score")))
    assert 0 < value < 1e6
