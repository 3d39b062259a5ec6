"""wave.import capturing live: the real probe runs the real sigrok-cli on its demo driver (docs/wave.md,
"Imported captures"), analyses the capture as an imported one, and leaves nothing running or behind."""

import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from rtscope.model import result

pytestmark = pytest.mark.skipif(
    shutil.which("sigrok-cli") is None, reason="sigrok-cli is not installed (Debian: apt install sigrok-cli)"
)

# The demo driver counting up at its default 200 kHz: D3 is a wave of 80 us (probe/tests/data/README.md). Its analog
# channels off: libsigrok 0.5.2 writes their samples as text lines into a logic capture.
DEMO = ("driver=demo:analog_channels=0", "config=pattern=incremental", "channel=D3", "period_us=80")


def _argv(probe: Path, out: Path, *params: str) -> list[str]:
    argv = [str(probe), "run", "wave.import", "--policy", "other", "--no-mlock", "--quiet", "--json", str(out)]
    for param in params:
        argv += ["--param", param]
    return argv


def _capture(
    probe: Path, tmp_path: Path, *params: str, duration: str = "5"
) -> tuple[subprocess.CompletedProcess, dict]:
    """Run wave.import with params, its temporary files in tmp_path/tmp (checked empty afterwards)."""
    out, tmp = tmp_path / "run.json", tmp_path / "tmp"
    tmp.mkdir(exist_ok=True)
    ran = subprocess.run(
        _argv(probe, out, *params) + ["--duration", duration],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "TMPDIR": str(tmp)},
        check=False,
    )
    assert list(tmp.iterdir()) == []
    return ran, result.load(out).doc


def _sigrok_pids() -> set[int]:
    """The sigrok-cli processes running now (zombies are gone already)."""
    ps = subprocess.run(["ps", "-eo", "pid,stat,args"], capture_output=True, text=True, check=True).stdout
    return {
        int(line.split()[0])
        for line in ps.splitlines()[1:]
        if line.split()[2:3] == ["sigrok-cli"] and not line.split()[1].startswith("Z")
    }


def _sigrok_of(parent: int) -> list[int]:
    """The sigrok-cli processes that parent started."""
    ps = subprocess.run(["ps", "-eo", "pid,ppid,args"], capture_output=True, text=True, check=True).stdout
    return [
        int(line.split()[0])
        for line in ps.splitlines()[1:]
        if line.split()[1] == str(parent) and line.split()[2:3] == ["sigrok-cli"]
    ]


def _gone(pids: list[int], within_s: float = 5) -> bool:
    deadline = time.monotonic() + within_s
    while set(pids) & _sigrok_pids() and time.monotonic() < deadline:
        time.sleep(0.05)
    return not set(pids) & _sigrok_pids()


def _start_endless_capture(probe: Path, tmp_path: Path) -> tuple[subprocess.Popen, Path, list[int]]:
    """wave.import capturing for ever (its temporary files under tmp_path/tmp), once its sigrok-cli runs."""
    out, tmp = tmp_path / "run.json", tmp_path / "tmp"
    tmp.mkdir()
    argv = _argv(probe, out, "driver=demo:analog_channels=0", "samples=1000000000") + ["--duration", "30"]
    run = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "TMPDIR": str(tmp)}
    )
    deadline = time.monotonic() + 10
    while not (sigrok := _sigrok_of(run.pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sigrok, "the capture did not begin within 10 s"
    return run, tmp, sigrok


@pytest.mark.parametrize("fmt", ["auto", "csv"])
def test_a_live_capture_of_the_demo_driver_is_judged_as_an_imported_one(probe, tmp_path, fmt):
    ran, doc = _capture(probe, tmp_path, *DEMO, f"format={fmt}")
    assert ran.returncode == 0, ran.stderr
    bench = doc["benches"][0]
    assert bench["params"] == {
        "file": "",
        "channel": "D3",
        "period_us": 80,
        "format": fmt,
        "driver": "demo:analog_channels=0",
        "config": "pattern=incremental",
        "group": "Logic",
        "samples": 1000,
    }
    metrics = {m["id"]: m for m in doc["metrics"]}
    checks = metrics["wave.period"]["checks"]
    assert checks["periods_judged"] == 61 and checks["resolution_ns"] == 5000 and checks["missed_periods"] == 0
    assert metrics["wave.rel_error"]["stats"]["max"] < 1e-9 and metrics["wave.duty"]["stats"]["mean"] == 50


@pytest.mark.parametrize(
    ("params", "error"),
    [
        (
            ("driver=nosuch",),
            re.escape(
                "sigrok-cli --driver nosuch ended with exit status 1: nothing on its standard "
                "output (its reason is on standard error)"
            ),
        ),
        (
            ("driver=demo",),
            (
                r"sigrok-cli --driver demo: line \d+: analog samples \('A\d:'\): capture logic channels only "
                r"\(e\.g\. demo:analog_channels=0\)"
            ),
        ),  # which analog channel comes first varies
        (
            ("driver=demo:analog_channels=0", "samples=1000000000"),
            re.escape(
                "sigrok-cli --driver demo:analog_channels=0 did not end within the run's 1 s: stopped (fewer samples, "
                "or a longer --duration)"
            ),
        ),
    ],
)
def test_a_capture_that_fails_fails_the_bench_with_one_line(probe, tmp_path, params, error):
    before = _sigrok_pids()
    ran, doc = _capture(probe, tmp_path, *params, duration="1")
    bench = doc["benches"][0]
    assert ran.returncode == 1 and bench["status"] == "failed" and re.fullmatch(error, bench["error"])
    assert _sigrok_pids() <= before
    if params == ("driver=nosuch",):
        assert "Driver nosuch not found." in ran.stderr


def test_a_file_and_a_driver_together_are_refused(probe, tmp_path):
    ran, doc = _capture(probe, tmp_path, "driver=demo", "file=demo.csv")
    assert ran.returncode == 1
    assert (
        doc["benches"][0]["error"]
        == "file and driver both given: import a capture (file) or capture live (driver), not both"
    )


def test_without_sigrok_cli_the_bench_is_skipped_naming_its_debian_package(probe, tmp_path):
    out = tmp_path / "run.json"
    ran = subprocess.run(
        _argv(probe, out, "driver=demo"),
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "PATH": str(tmp_path)},
        check=False,
    )
    assert ran.returncode == 0
    [bench] = result.load(out).doc["benches"]
    assert bench["status"] == "skipped"
    assert bench["error"] == "sigrok-cli is not installed: a live capture needs it (Debian: apt install sigrok-cli)"


def test_ctrl_c_stops_the_capture_and_leaves_nothing_behind(probe, tmp_path):
    run, tmp, sigrok = _start_endless_capture(probe, tmp_path)
    run.send_signal(signal.SIGINT)
    run.communicate(timeout=30)
    assert run.returncode == 130 and list(tmp.iterdir()) == [] and _gone(sigrok)
    bench = json.loads((tmp_path / "run.json").read_text())["benches"][0]
    assert bench["error"] == "sigrok-cli --driver demo:analog_channels=0: interrupted, the capture stopped"


def test_a_probe_killed_mid_capture_leaves_no_file_and_no_sigrok_cli(probe, tmp_path):
    """SIGKILL gives the probe no chance to clean up: its capture file is unnamed (gone with its last
    descriptor) and its sigrok-cli dies with it."""
    run, tmp, sigrok = _start_endless_capture(probe, tmp_path)
    [capture_file] = [arg for arg in Path(f"/proc/{sigrok[0]}/cmdline").read_text().split("\0") if "/fd/" in arg]
    assert capture_file.startswith(f"/proc/{run.pid}/fd/")
    run.kill()
    run.communicate(timeout=30)
    assert list(tmp.iterdir()) == [] and _gone(sigrok)
