"""The probe's watchdog: a bench that hangs (blocked, or spinning without looking at the stop flag) is
stopped, reported failed with what it measured, and the process ends with nothing left running."""

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from conftest import process_env
from rtscope.model import result

HANG = ["selftest.hang", "ctxsw.sem", "--duration", "0.3", "--grace", "1", "--quiet"]
# Generous: the run plans 0.3 s, then waits 1 s of grace; a loaded machine may add seconds.
LIMIT_S = 30


def _leftovers(tag: str) -> list[str]:
    """Processes whose command line holds ``tag`` (the probe runs carry it as their label)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if tag.encode() in cmdline.read():
                    found.append(pid)
        except OSError:
            continue
    return found


def _run_probe(probe, tmp_path, *extra):
    tag = f"watchdog-{uuid.uuid4().hex}"
    out = tmp_path / "hang.json"
    started = time.monotonic()
    completed = subprocess.run(
        [probe, "run", *HANG, "--label", tag, "--json", out, *extra],
        capture_output=True,
        text=True,
        timeout=LIMIT_S,
        check=False,
    )
    return completed, time.monotonic() - started, out, tag


@pytest.mark.parametrize("spin", ["0", "1"], ids=["blocked", "spinning"])
@pytest.mark.parametrize("privilege", [[], ["--refuse-privilege"]], ids=["as-granted", "unprivileged"])
def test_a_hung_bench_is_stopped_and_keeps_what_it_measured(probe, tmp_path, spin, privilege):
    completed, took_s, out, tag = _run_probe(probe, tmp_path, "--param", f"spin={spin}", *privilege)
    assert completed.returncode == 1, completed.stderr
    assert took_s >= 1.0  # the grace was waited out
    doc = result.load(out).doc
    hung, later = doc["benches"]
    assert doc["run"]["status"] == "failed"
    assert hung["status"] == "failed" and "stopped by the watchdog" in hung["error"]
    assert later["status"] == "skipped" and "selftest.hang hung" in later["error"]
    measured = result.metric(doc, "selftest.hang")
    assert measured["stats"]["count"] == 1000  # the samples taken before hanging
    assert not list(tmp_path.glob("*.tmp-*"))
    assert _leftovers(tag) == []


def _start_hanging(probe, tmp_path, duration: str, grace: str) -> tuple[subprocess.Popen[str], str, Path]:
    """The probe running selftest.hang in the background: the process, its tag, where its result goes."""
    tag = f"watchdog-{uuid.uuid4().hex}"
    out = tmp_path / "hang.json"
    process = subprocess.Popen(
        [
            probe,
            "run",
            "selftest.hang",
            "--duration",
            duration,
            "--grace",
            grace,
            "--quiet",
            "--label",
            tag,
            "--json",
            out,
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    return process, tag, out


def test_ctrl_c_on_a_hung_bench_ends_the_run_interrupted(probe, tmp_path):
    process, tag, out = _start_hanging(probe, tmp_path, "60", "1")
    time.sleep(0.5)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=LIMIT_S)
    assert process.returncode == 130, err
    doc = result.load(out).doc
    assert doc["run"]["status"] == "interrupted"
    assert "stopped by the watchdog" in doc["benches"][0]["error"]
    assert _leftovers(tag) == []


def test_rtscope_stores_the_failed_run(probe, db_path, rtscope_process):
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "rtscope",
            "--probe",
            str(probe),
            "run",
            "selftest.hang",
            "--duration",
            "0.3",
            "--grace",
            "1",
        ],
        env=process_env(db_path),
        capture_output=True,
        text=True,
        timeout=LIMIT_S,
        check=False,
    )
    assert completed.returncode == 1, completed.stderr
    assert "Traceback" not in completed.stderr
    assert "stopped by the watchdog" in completed.stdout
    shown = rtscope_process("show", "last", "--json")
    assert shown.status == 0, shown.err
    assert json.loads(shown.out)["run"]["status"] == "failed"


def test_a_bench_that_stops_in_time_is_not_touched(probe, tmp_path):
    out = tmp_path / "run.json"
    completed = subprocess.run(
        [probe, "run", "ctxsw.sem", "--duration", "0.3", "--grace", "1", "--quiet", "--json", out],
        capture_output=True,
        text=True,
        timeout=LIMIT_S,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert result.load(out).doc["benches"][0]["status"] == "ok"


def test_bad_grace_is_refused(probe):
    completed = subprocess.run([probe, "run", "ctxsw.sem", "--grace", "0"], capture_output=True, text=True, check=False)
    assert completed.returncode == 2
    assert completed.stderr == "rtscope-probe: --grace: '0' is not a positive number of seconds\n"


def test_a_stall_of_the_whole_process_does_not_count_towards_the_grace(probe, tmp_path):
    # A virtual machine paused by its host stops every thread, the watchdog's too: as here, a SIGSTOP of
    # the probe for 3 s, well into a 2 s grace. Counted in wall time, the watchdog would give up as soon
    # as the process ran again; it must wait out the grace's remainder in time it saw pass.
    process, tag, out = _start_hanging(probe, tmp_path, "0.2", "2")
    time.sleep(0.8)  # asked to stop at 0.2 s: the grace is running
    process.send_signal(signal.SIGSTOP)
    time.sleep(3)
    process.send_signal(signal.SIGCONT)
    resumed = time.monotonic()
    _, err = process.communicate(timeout=LIMIT_S)
    took_after_s = time.monotonic() - resumed
    assert process.returncode == 1, err
    assert took_after_s >= 0.5  # the grace's remainder (about 1.4 s), not at once
    error = result.load(out).doc["benches"][0]["error"]
    assert "stopped by the watchdog" in error and "s more when the process did not run at all" in error
    assert _leftovers(tag) == []
