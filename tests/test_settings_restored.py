"""Every system setting the probe changes is put back, on the real kernel: RT throttling
(sched_rt_runtime_us, lifted by --rt-throttling off), the CPU latency limit (/dev/cpu_dma_latency, held
while the probe's descriptor is open) and the spike trace's tracefs instance with the tracer settings
beside it. Each is read before and after a run that succeeds, one that fails (the watchdog ends a hung
bench), one stopped by SIGINT, and one given a second stop request before it saw the first (which ends
the process at once, from the signal handler). lat.timerlat's settings need a kernel with the timerlat
tracer: test_qemu.py's guest run.
Needs root; the machine is shared, so nothing here times anything. These settings are the whole
machine's, and other tests' probes change them too (any probe holds a CPU latency limit while it runs):
the suite runs this file's tests with no other slow test beside them (conftest's ALONE), and each
reading is taken while no other probe runs (another suite's, on a shared machine), waiting for such a
moment as long as a loaded machine may need."""

import os
import signal
import struct
import subprocess
import time
from pathlib import Path

import pytest

from support.processes import other_probes
from support.waiting import until

RUNTIME = Path("/proc/sys/kernel/sched_rt_runtime_us")
CPU_LATENCY = Path("/dev/cpu_dma_latency")
TRACEFS = Path("/sys/kernel/tracing")
INSTANCE = TRACEFS / "instances" / "rtscope"
# The top-level tracer settings a run could touch (lat.timerlat's among them, where the kernel has them).
TRACER_FILES = ("current_tracer", "tracing_on", "trace_clock", "buffer_size_kb", "osnoise/cpus")
pytestmark = [
    pytest.mark.usefixtures("probe"),
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root to change system settings"),
]
# Lifts RT throttling, asks for a CPU latency limit (the default) and traces into the instance.
TRACED = ("lat.wakeup", "--rt-throttling", "off", "--param", "threshold_us=1", "--param", "trace=each")


def _cpu_latency() -> int | None:
    """The CPU latency limit in force (the kernel's aggregate of every request), in µs."""
    try:
        with CPU_LATENCY.open("rb") as held:
            return int(struct.unpack("i", held.read(4))[0])
    except OSError:
        return None


def _settings() -> dict[str, object]:
    """Every setting a run may change, read at a moment no other probe runs, so the reading is ours."""
    deadline = time.monotonic() + 300.0
    while True:
        others = other_probes(holding=CPU_LATENCY)
        if not others:
            read = _read_settings()
            if not other_probes(holding=CPU_LATENCY):
                return read
        assert time.monotonic() < deadline, f"other probes still running after 300 s: pids {sorted(others)}"
        time.sleep(0.1)


def _read_settings() -> dict[str, object]:
    """Every setting a run may change, as read now."""
    read: dict[str, object] = {
        "sched_rt_runtime_us": RUNTIME.read_text() if RUNTIME.exists() else None,
        "cpu_dma_latency": _cpu_latency(),
        "instance": INSTANCE.exists(),
    }
    for name in TRACER_FILES:
        path = TRACEFS / name
        read[name] = path.read_text() if path.exists() else None
    return read


def _changed() -> bool:
    """Whether the run changed what it changes: throttling lifted, the instance made."""
    return RUNTIME.read_text().strip() == "-1" and INSTANCE.exists()


def test_a_run_that_succeeds_puts_every_setting_back(probe: Path, tmp_path: Path) -> None:
    before = _settings()
    ran = subprocess.run(
        [probe, "run", *TRACED, "--duration", "1", "--quiet", "--json", tmp_path / "run.json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    assert _settings() == before


def test_a_run_that_fails_puts_every_setting_back(probe: Path, tmp_path: Path) -> None:
    """The watchdog ends the hung bench's process (rts_process_end), not the run's own end."""
    before = _settings()
    ran = subprocess.run(
        [probe, "run", "selftest.hang", "--rt-throttling", "off", "--duration", "0.3", "--grace", "0.5"]
        + ["--quiet", "--json", tmp_path / "run.json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert ran.returncode == 1, ran.stderr
    assert _settings() == before


def test_a_run_stopped_by_sigint_puts_every_setting_back(probe: Path) -> None:
    run, before = _traced_run(probe)
    try:
        run.send_signal(signal.SIGINT)
        run.wait(timeout=60)
    finally:
        _reap(run)
    assert run.returncode == 130
    assert _settings() == before


def test_a_second_stop_request_ends_the_run_at_once_and_puts_every_setting_back(probe: Path) -> None:
    # The second request must reach the handler before the run loop sees the first, or the clean stop
    # (a few ms on a quiet machine) ends the run first. So both are sent while the process is stopped:
    # on SIGCONT the main thread takes both before it runs a line of the run, whatever the machine's load.
    run, before = _traced_run(probe)
    try:
        run.send_signal(signal.SIGSTOP)
        until("the probe stopped by SIGSTOP", lambda: _state(run.pid) == "T")
        run.send_signal(signal.SIGINT)
        run.send_signal(signal.SIGTERM)
        run.send_signal(signal.SIGCONT)
        run.wait(timeout=60)
    finally:
        _reap(run)
    # Ended by the second handler's signal (the kernel's order of the two is its own), not the clean stop.
    assert run.returncode in (-signal.SIGINT, -signal.SIGTERM)
    assert _settings() == before


def _traced_run(probe: Path) -> tuple["subprocess.Popen[bytes]", dict[str, object]]:
    """A traced run, once it changed what it changes (its CPU latency limit checked to be in force), and
    every setting as read before it started."""
    before = _settings()
    assert not before["instance"], f"{INSTANCE} is left from another run"
    run = subprocess.Popen(
        [probe, "run", *TRACED, "--duration", "60", "--quiet", "--json", "-"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        until("RT throttling lifted and the trace instance made", _changed)
        during = _cpu_latency()
        assert during is not None and during < 1000, f"the probe's CPU latency limit in force: {during}"
    except BaseException:
        _reap(run)
        raise
    return run, before


def _reap(run: "subprocess.Popen[bytes]") -> None:
    if run.poll() is None:
        run.kill()
        run.wait()


def _state(pid: int) -> str:
    """The process's state letter in /proc (R, S, T, …); after its name, which may hold spaces."""
    return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
