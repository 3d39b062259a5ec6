"""rtscope driving the real probe, briefly: list, a run, a run without privilege, Ctrl-C."""

import json
import os
import signal
import subprocess
import threading
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
    # Interrupted once it has measured: its first progress line counts samples (a busy machine may take
    # seconds to get there, so wait for the line, not for a time).
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(process.stderr or ()), daemon=True)
    reader.start()
    deadline = time.monotonic() + 60
    while not any("samples" in line for line in lines) and time.monotonic() < deadline:
        time.sleep(0.1)
    os.killpg(process.pid, signal.SIGINT)
    process.wait(timeout=30)
    reader.join(timeout=30)
    out, err = (process.stdout.read() if process.stdout else ""), "".join(lines)
    assert process.returncode == 130, err
    assert "run interrupted" in err and "Traceback" not in err
    assert "interrupted" in out
    shown = rtscope_process("show", "last", "--json")
    assert shown.status == 0, shown.err
    doc = json.loads(shown.out)
    assert doc["run"]["status"] == "interrupted"
    assert doc["metrics"][0]["stats"]["count"] > 0


def test_a_given_run_id_is_the_one_printed_and_written(probe, tmp_path):
    """--run-id (what the QEMU guests are given): the summary's run line and the document name it alike;
    anything but 16 hex digits is refused in one line."""
    out = tmp_path / "result.json"
    ran = subprocess.run(
        [str(probe), "run", "clock.read", *BRIEF, "--run-id", "00c0ffee00c0ffee", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    assert json.loads(out.read_text())["run"]["id"] == "00c0ffee00c0ffee"
    assert "\nrun 00c0ffee00c0ffee  complete" in ran.stdout
    bad = subprocess.run(
        [str(probe), "run", "clock.read", "--run-id", "00C0FFEE"], capture_output=True, text=True, check=False
    )
    assert bad.returncode == 2
    assert bad.stderr == "rtscope-probe: --run-id: '00C0FFEE' is not 16 hex digits (0-9, a-f)\n"


def test_a_seed_draws_each_benchs_phase_and_one_seed_draws_it_again(probe, tmp_path):
    """--seed N: each bench starts after a wait drawn from N (0 to 10 ms), recorded with the seed; another
    seed draws other waits, the same seed the same ones. Bad seeds are one line."""

    def phases(seed: str) -> list[int]:
        out = tmp_path / f"seed-{seed}.json"
        ran = subprocess.run(
            [str(probe), "run", "clock.read", "ctxsw.sem", "--duration", "0.05", "--policy", "other"]
            + ["--seed", seed, "--quiet", "--json", str(out)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert ran.returncode == 0, ran.stderr
        doc = result.load(out).doc  # valid against the schema, seed and phases included
        assert doc["run"]["seed"] == int(seed)
        return [bench["phase_ns"] for bench in doc["benches"]]

    first, other, again = phases("1"), phases("4294967295"), phases("1")
    assert first == again and first != other
    assert len(set(first)) == 2  # each bench its own phase
    assert all(0 <= phase < 10_000_000 for phase in first + other)
    for bad in ("-1", "4294967296", "12x", "+3"):
        refused = subprocess.run(
            [str(probe), "run", "clock.read", "--seed", bad], capture_output=True, text=True, check=False
        )
        assert refused.returncode == 2
        assert refused.stderr == f"rtscope-probe: --seed: '{bad}' is not a whole number from 0 to 4294967295\n"
    unseeded = tmp_path / "unseeded.json"
    subprocess.run([str(probe), "run", "clock.read", *BRIEF, "--quiet", "--json", str(unseeded)], check=True)
    doc = result.load(unseeded).doc
    assert "seed" not in doc["run"] and "phase_ns" not in doc["benches"][0]


def test_a_series_window_sets_the_latency_series_and_bad_ones_are_one_line(probe, tmp_path):
    """--series-window 0.25 on a 1 s lat.wakeup: four or five windows (the bench ends a little past its
    second), whose worst is the metric's maximum. Out of range (below 1 ms, above --duration) or not a
    number is one line, exit 2."""
    out = tmp_path / "series.json"
    ran = subprocess.run(
        [str(probe), "run", "lat.wakeup", "--duration", "1", "--series-window", "0.25", "--policy", "other"]
        + ["--quiet", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    [metric] = [m for m in result.load(out).doc["metrics"] if m["id"] == "lat.wakeup"]
    series = metric["series"]
    assert series["window_s"] == 0.25 and len(series["max"]) in (4, 5), series
    assert max(v for v in series["max"] if v is not None) == metric["stats"]["max"]
    for bad in ("0", "-1", "x", "0.0009", "nan", "1e8"):
        refused = subprocess.run(
            [str(probe), "run", "lat.wakeup", "--series-window", bad], capture_output=True, text=True, check=False
        )
        assert refused.returncode == 2
        assert refused.stderr == (
            f"rtscope-probe: --series-window: '{bad}' is not a number of seconds from 0.001 to --duration\n"
        )
    longer = subprocess.run(
        [str(probe), "run", "lat.wakeup", "--series-window", "6", "--duration", "5"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert longer.returncode == 2
    assert longer.stderr == "rtscope-probe: --series-window: 6 s is longer than the run's --duration (5 s)\n"


def test_the_live_table_has_the_summarys_form_and_announces_real_lengths(probe, tmp_path):
    """The probe's table has rtscope show's columns and unit spelling; a Thread-Metric test announces its
    periods and calibration (0.02 + 2 × 0.2 s), not its deadline (1.42 s); the counter says what it counts."""
    out = tmp_path / "result.json"
    ran = subprocess.run(
        [str(probe), "run", "ctxsw.sem", "tm.basic", *BRIEF, "--param", "period=0.2", "--param", "periods=2"]
        + ["--json", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    lines = (ran.stderr + ran.stdout).splitlines()
    assert "rtscope-probe: tm.basic for 0.42 s" in lines and "rtscope-probe: ctxsw.sem for 0.30 s" in lines
    heading = next(line for line in lines if line.startswith("metric "))
    columns = ["metric", "count", "min", "p50", "p90", "p99", "p99.9", "max", "mean", "stddev", "validity"]
    assert heading.split() == columns
    row = next(line for line in lines if line.startswith("ctxsw.sem ")).split()
    assert row[-1] == "valid" and ("µs" in row or "ns" in row) and "us" not in row
    timing = json.loads(out.read_text())["timing"]
    kind = {"rdtscp": "cpu-cycles", "cntvct_el0": "timer", None: None}[timing["cycle_counter"]]
    assert timing["cycle_counter_kind"] == kind
