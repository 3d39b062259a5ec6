"""The latency suite, run briefly by the real probe: every bench measures, records its checks and gives
plausible, ordered figures; a delay injected on the measuring CPU shows in the maximum; and the Metrics
Number of a real run."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest

REPO = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((REPO / "schema" / "result-v2.schema.json").read_text())
BENCHES = ("lat.wakeup", "lat.preempt", "lat.preempt_timer", "lat.irq")
CHECKS = {
    "lat.wakeup": {"interval_ns", "wakeups", "overruns"},
    "lat.preempt": {"rounds", "not_blocked", "woke_before_wake", "preempted_waker", "same_cpu", "busy_ns"},
    "lat.preempt_timer": {"interval_ns", "wakeups", "overruns", "low_spins", "same_cpu"},
    "lat.irq": {"interval_ns", "interrupts", "merged_expiries", "early", "timerlat", "same_cpu"},
}
ORDERED = ("min", "p50", "p90", "p99", "p999", "p9999", "max")


def run_probe(probe: Path, *args: str) -> dict[str, Any]:
    proc = subprocess.run([str(probe), "run", *args, "--quiet", "--json", "-"], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    jsonschema.validate(doc, SCHEMA)
    return doc


@pytest.fixture(scope="module")
def brief(probe: Path) -> dict[str, Any]:
    return run_probe(probe, "latency", "--duration", "0.5", "--cpus", str(os.cpu_count() - 1))


@pytest.mark.parametrize("bench", BENCHES)
def test_each_latency_bench_measures_plausibly(brief, bench):
    m = next(m for m in brief["metrics"] if m["id"] == bench)
    assert set(m["checks"]) == CHECKS[bench]
    stats = m["adjusted"]
    assert stats["count"] > 10
    values = [stats[key] for key in ORDERED]
    assert values == sorted(values) and values[0] >= 0
    assert stats["max"] < 5e9  # a sample is not seconds late


def test_without_privilege_the_latency_benches_still_measure(probe):
    doc = run_probe(probe, "latency", "--duration", "0.3", "--refuse-privilege")
    assert [b["status"] for b in doc["benches"]] == ["ok"] * len(BENCHES)
    assert doc["config"]["granted"]["policy"] == "other"
    assert any("timer slack" in warning for warning in doc["config"]["warnings"])


@pytest.mark.skipif(os.geteuid() != 0, reason="the injected delay runs at a real-time priority")
def test_a_delay_injected_on_the_cpu_shows_in_the_maximum(probe, tmp_path):
    cpu = str(os.cpu_count() - 1)
    # Above the measuring thread (fifo 80), on its CPU: a 20 ms busy stretch every 100 ms.
    hog = subprocess.Popen(["chrt", "-f", "90", "taskset", "-c", cpu, sys.executable, "-c",
                            "import time\nend = time.monotonic() + 3\n"
                            "while time.monotonic() < end:\n"
                            "    t = time.monotonic() + 0.02\n"
                            "    while time.monotonic() < t: pass\n"
                            "    time.sleep(0.08)\n"])
    try:
        time.sleep(0.2)
        doc = run_probe(probe, "lat.wakeup", "--duration", "1", "--cpus", cpu)
    finally:
        hog.wait(timeout=30)
    assert doc["metrics"][0]["adjusted"]["max"] >= 10e6  # 10 ms: the 20 ms stretch, less the slack of its start


def test_the_score_of_a_real_run(probe, rtscope_process):
    outcome = rtscope_process("--probe", probe, "run", "ctxsw.sem", "lat.preempt", "lat.irq", "--duration", "0.3")
    assert outcome.status == 0, outcome.err
    scored = rtscope_process("score", "last")
    assert scored.status == 0, scored.err
    value = float(next(line.split()[1] for line in scored.out.splitlines() if line.strip().startswith("score")))
    assert 0 < value < 1e6
