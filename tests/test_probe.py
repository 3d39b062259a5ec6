"""rtscope driving the real probe, briefly: list, a run, a run without privilege, Ctrl-C."""

import json
import os
import signal
import subprocess
import time

import pytest

from conftest import start_rtscope
from rtscope.model import result

BRIEF = ["--duration", "0.3"]


@pytest.fixture
def local(rtscope_process, probe):
    """rtscope as a separate process, running the real probe."""
    return lambda *args: rtscope_process("--probe", probe, *args)


def test_list_shows_the_probes_benches(local):
    outcome = local("list")
    assert outcome.status == 0, outcome.err
    for bench in ("ctxsw.sem", "lat.wakeup", "clock.read"):
        assert bench in outcome.out


def test_every_suite_names_benches_the_probe_has(probe):
    listing = json.loads(subprocess.run([probe, "list", "--json"], capture_output=True, text=True, check=True).stdout)
    benches = {bench["id"] for bench in listing["benches"]}
    assert {suite["id"] for suite in listing["suites"]} >= {"micro", "quick"}
    for suite in listing["suites"]:
        assert "." not in suite["id"] and set(suite["benches"]) <= benches, suite


def test_a_suite_runs_its_benches_once_each(local, tmp_path):
    out = tmp_path / "run.json"
    outcome = local("run", "quick", "ctxsw.sem", *BRIEF, "--json", out)
    assert outcome.status == 0, outcome.err
    assert [b["id"] for b in result.load(out).doc["benches"]] == ["ctxsw.sem", "lat.wakeup"]
    assert "Suites" in local("list").out


def test_policy_other_runs_at_priority_zero(local, tmp_path):
    out = tmp_path / "run.json"
    outcome = local("run", "ctxsw.sem", "--policy", "other", *BRIEF, "--json", out)
    assert outcome.status == 0, outcome.err
    requested = result.load(out).doc["config"]["requested"]
    assert (requested["policy"], requested["priority"]) == ("other", 0)


def test_a_brief_run_is_valid_stored_and_shown(local, tmp_path):
    out = tmp_path / "run.json"
    outcome = local("run", "ctxsw.sem", "clock.read", *BRIEF, "--label", "brief", "--json", out)
    assert outcome.status == 0, outcome.err
    doc = result.load(out).doc
    assert [m["id"] for m in doc["metrics"]] == ["ctxsw.sem", "clock.read"]
    assert all(m["stats"]["count"] > 0 for m in doc["metrics"])
    # Linux's sleeps end on high-resolution timers: the POSIX port declares no tick.
    assert doc["timing"]["sleep_granularity_ns"] is None
    assert "ctxsw.sem" in outcome.out and "p99.9" in outcome.out
    assert local("show", "last", "--json").out == out.read_text()
    if os.geteuid() == 0:
        assert doc["config"]["granted"]["policy"] == "fifo"
        assert doc["config"]["granted"]["mlockall"] is True


def test_a_run_without_privilege_says_so(local, tmp_path):
    out = tmp_path / "run.json"
    outcome = local("run", "clock.read", *BRIEF, "--refuse-privilege", "--json", out)
    assert outcome.status == 0, outcome.err
    doc = result.load(out).doc
    assert doc["config"]["granted"]["policy"] == "other"
    assert doc["config"]["warnings"]
    assert "! not as requested" in outcome.out
    assert f"! {doc['config']['warnings'][0]}" in outcome.out
    assert "warning:" in outcome.err  # the probe's own warnings, streamed as it ran


def test_probe_rejections_come_back_as_one_line(local):
    outcome = local("run", "ctxsw.sem", *BRIEF, "--cpus", "4000")
    assert outcome.status in (0, 2)  # a probe may run unpinned, or refuse the CPU: never a traceback
    assert "Traceback" not in outcome.err


def test_ctrl_c_keeps_what_was_measured(probe, db_path, rtscope_process):
    # A terminal sends Ctrl-C's SIGINT to the whole foreground process group: rtscope and the probe.
    process = start_rtscope(db_path, "--probe", probe, "run", "lat.wakeup", "--duration", "30")
    time.sleep(1.5)
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert "run interrupted" in err and "Traceback" not in err
    assert "interrupted" in out
    shown = rtscope_process("show", "last", "--json")
    assert shown.status == 0, shown.err
    doc = json.loads(shown.out)
    assert doc["run"]["status"] == "interrupted"
    assert doc["metrics"][0]["stats"]["count"] > 0
