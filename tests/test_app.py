"""app.workload run by the real probe at small sizes: every thread's results checked, the figures sane and
labelled, the waiting-time identity of N equal threads sharing one CPU, what it says without a real-time policy,
and bad input refused in one line."""

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import probe_result

METRICS = ("app.exec", "app.response", "app.wait", "app.wait.runqueue", "app.wait.mutex")
SECOND = 1e9


def run_app(probe: Path, *params: str, policy: str = "rr", extra: tuple[str, ...] = ()) -> dict[str, Any]:
    """The result document of app.workload with ``params`` (name=value), validated against the schema."""
    settings = (arg for p in params for arg in ("--param", p))
    return probe_result(probe, "app.workload", "--policy", policy, "--duration", "60", *extra, *settings)


def metrics(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["id"]: m for m in doc["metrics"]}


@pytest.mark.parametrize("threads", [2, 8])
@pytest.mark.parametrize(
    ("op", "size"), [("selection", 300), ("quick", 2000), ("matrix_add", 400), ("matrix_mul", 400), ("mix", 400)]
)
def test_every_result_is_checked_and_the_figures_are_sane(probe: Path, threads: int, op: str, size: int) -> None:
    iterations = 5
    ms = metrics(run_app(probe, f"threads={threads}", f"op={op}", f"size={size}", f"iterations={iterations}"))
    assert set(ms) == set(METRICS)
    for m in ms.values():
        assert m["valid"], m["invalid_reason"]
        assert m["labels"] == {"threads": threads, "op": op, "processes": 1}
        checks = m["checks"]
        assert checks["threads_created"] == threads
        assert checks["iterations_done"] == iterations
        assert checks["results_checked"] == threads * iterations
        assert checks["results_wrong"] == 0
        assert checks["same_cpu"] is True
        assert m["stats"]["count"] == threads * iterations
        assert 0 <= m["stats"]["min"] <= m["stats"]["max"] < 10 * SECOND
    exec_, wait = ms["app.exec"]["stats"], ms["app.wait"]["stats"]
    assert exec_["min"] > 0
    # Waiting happens within the execution, and is made of its two parts.
    assert wait["mean"] <= exec_["mean"]
    parts = ms["app.wait.runqueue"]["stats"]["mean"] + ms["app.wait.mutex"]["stats"]["mean"]
    assert wait["mean"] == pytest.approx(parts, rel=1e-6, abs=1)


def test_processes_are_real_processes_each_checked(probe: Path) -> None:
    """P = 2: the probe starts two processes of its own (app-process), each with its threads, its data and its
    mutex; their threads are released with the others and every result they make is checked."""
    ms = metrics(run_app(probe, "threads=3", "processes=2", "op=mix", "size=1000", "iterations=4"))
    for m in ms.values():
        assert m["valid"], m["invalid_reason"]
        assert m["labels"]["processes"] == 2
        assert m["checks"]["threads_created"] == 6 and m["checks"]["results_checked"] == 24
        assert m["checks"]["processes_are_threads"] is False
        assert m["stats"]["count"] == 24


def test_processes_share_one_cpu_round_robin_like_threads(probe: Path) -> None:
    """2 processes × 2 threads of long selection sorts on one CPU wait about 3/4 of their execution, as 4
    threads of one process do."""
    doc = run_app(probe, "threads=2", "processes=2", "op=selection", "size=40000", "iterations=1")
    if doc["config"]["granted"]["policy"] == "other":
        pytest.skip("no real-time policy was granted: time-sharing slices are not round-robin's")
    ms = metrics(doc)
    assert ms["app.exec"]["valid"], ms["app.exec"]["invalid_reason"]
    ratio = ms["app.wait"]["stats"]["mean"] / ms["app.exec"]["stats"]["mean"]
    assert 0.55 < ratio < 0.9, ratio


def process_of_group(probe_pid: int, group: int) -> int | None:
    """The pid of the probe's app-process of ``group``, if it runs."""
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if (
            b"app-process" in argv
            and argv[-2:] == [str(group).encode(), b""]
            and argv[-3].startswith(f"/proc/{probe_pid}/".encode())
        ):
            return int(entry.name)
    return None


def test_a_process_that_dies_makes_the_run_invalid_and_leaves_nothing_running(probe: Path) -> None:
    run = subprocess.Popen(
        [
            str(probe),
            "run",
            "app.workload",
            "--policy",
            "rr",
            "--duration",
            "3",
            "--quiet",
            "--json",
            "-",
            "--param",
            "processes=2",
            "--param",
            "threads=2",
            "--param",
            "op=selection",
            "--param",
            "size=20000",
            "--param",
            "iterations=1000",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 2
    while (victim := process_of_group(run.pid, 1)) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert victim, "the probe started no app-process for group 1"
    time.sleep(0.3)
    os.kill(victim, signal.SIGKILL)
    out, err = run.communicate(timeout=30)
    assert run.returncode == 0, err
    m = metrics(json.loads(out))["app.exec"]
    assert not m["valid"]
    assert m["invalid_reason"] == "process 1 ended with exit status 137"
    assert process_of_group(run.pid, 0) is None


def test_without_waiting_measurement_only_the_execution_is_valid(probe: Path) -> None:
    ms = metrics(run_app(probe, "threads=2", "op=quick", "size=1000", "iterations=3", "measure=exec"))
    assert ms["app.exec"]["valid"] and ms["app.response"]["valid"]
    for wait in ("app.wait", "app.wait.runqueue", "app.wait.mutex"):
        assert not ms[wait]["valid"]
        assert "measure=exec" in ms[wait]["invalid_reason"]


def test_both_measures_alternate_within_one_run(probe: Path) -> None:
    """measure=both: the even iterations measured in full, the odd ones by two clock reads (app.exec.bare)."""
    ms = metrics(run_app(probe, "threads=2", "op=quick", "size=5000", "iterations=6", "measure=both"))
    assert set(ms) == {*METRICS, "app.exec.bare"}
    for m in ms.values():
        assert m["valid"], m["invalid_reason"]
        assert m["stats"]["count"] == 2 * 3
    # The same operation timed either way: only the instrumentation tells them apart.
    assert 0.5 < ms["app.exec"]["stats"]["p50"] / ms["app.exec.bare"]["stats"]["p50"] < 2


def test_a_run_ended_before_its_iterations_is_invalid_with_the_reason(probe: Path) -> None:
    doc = run_app(probe, "threads=2", "op=selection", "size=100000", "iterations=3", extra=("--duration", "0.3"))
    m = metrics(doc)["app.exec"]
    assert not m["valid"]
    assert "a longer --duration" in m["invalid_reason"]


@pytest.mark.parametrize("threads", [2, 4])
def test_equal_threads_round_robin_on_one_cpu_wait_n_minus_1_over_n_of_their_execution(
    probe: Path, threads: int
) -> None:
    """Each thread's selection sort takes about 4 RR time slices (100 ms each), so the N threads share the CPU
    slice by slice and each one, running 1/N of the time, waits (N−1)/N of its execution time. Slice granularity
    and RT throttling move it by a few tenths of the ratio, hence the generous bounds."""
    doc = run_app(probe, f"threads={threads}", "op=selection", "size=40000", "iterations=2")
    if doc["config"]["granted"]["policy"] == "other":
        pytest.skip("no real-time policy was granted: time-sharing slices are not round-robin's")
    ms = metrics(doc)
    assert ms["app.wait.runqueue"]["checks"]["runqueue_measured"] is True
    ratio = ms["app.wait"]["stats"]["mean"] / ms["app.exec"]["stats"]["mean"]
    expected = (threads - 1) / threads
    assert expected - 0.2 < ratio < expected + 0.15, ratio


def test_without_privilege_it_runs_and_says_what_it_was_granted(probe: Path) -> None:
    doc = run_app(probe, "threads=2", "op=quick", "size=1000", "iterations=3", extra=("--refuse-privilege",))
    assert doc["config"]["granted"]["policy"] == "other"
    m = metrics(doc)["app.exec"]
    assert m["valid"], m["invalid_reason"]
    assert m["checks"]["round_robin"] is False


@pytest.mark.parametrize(
    ("param", "message"),
    [
        ("threads=0", "bench app.workload: parameter threads: must be between 1 and 64, not 0"),
        ("threads=65", "bench app.workload: parameter threads: must be between 1 and 64, not 65"),
        ("processes=17", "bench app.workload: parameter processes: must be between 1 and 16, not 17"),
        ("size=2000000", "bench app.workload: parameter size: must be between 2 and 1000000, not 2000000"),
        (
            "op=bubble",
            "bench app.workload: parameter op: 'bubble' is not one of selection,quick,matrix_add,matrix_mul,mix",
        ),
    ],
)
def test_bad_input_is_refused_in_one_line(probe: Path, param: str, message: str) -> None:
    proc = subprocess.run(
        [str(probe), "run", "app.workload", "--param", param], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 2
    assert proc.stderr == f"rtscope-probe: {message}\n"


def test_data_beyond_the_memory_budget_is_refused_before_anything_runs(probe: Path) -> None:
    proc = subprocess.run(
        [
            str(probe),
            "run",
            "app.workload",
            "--quiet",
            "--json",
            "-",
            "--param",
            "threads=64",
            "--param",
            "processes=16",
            "--param",
            "op=matrix_mul",
            "--param",
            "size=1000000",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == (
        "rtscope-probe: bench app.workload: 1024 threads of matrix_mul on 1000000 integers "
        "need 11840.9 MiB, more than the 1024 MiB this build allows (RTS_MAX_APP_BYTES)\n"
    )
