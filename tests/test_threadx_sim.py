"""The ThreadX port on ThreadX's Linux simulator (make -C probe PORT=threadx BOARD=posix-sim): its result
names the kernel, its configuration and the simulator's time base; bad build input is one line. The port's
contract tests and the benches' checks on the simulator are make -C probe check-threadx-sim (part of make
test). Skipped without a ThreadX kernel."""

import os
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, slow_fixture
from rtscope.model import result
from rtscope.targets import qemu_board

KERNEL = qemu_board.kernel_path(os.environ, REPO / "probe", "threadx")


def make(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["make", "-s", "-C", str(REPO / "probe"), "PORT=threadx", *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@slow_fixture(scope="module")
def sim_probe() -> Path:
    """The probe built on ThreadX's Linux simulator, in its bench configuration (check-threadx-sim builds
    the dev one)."""
    if not (KERNEL / qemu_board.KERNELS["threadx"].marker).exists():
        pytest.skip(f"no ThreadX kernel at {KERNEL} (set THREADX)")
    built = make("BOARD=posix-sim", "CONFIG=bench", f"THREADX={KERNEL}")
    assert built.returncode == 0, built.stderr
    return REPO / "probe" / "build" / "threadx-posix-sim-bench" / "rtscope-probe"


def test_a_threadx_simulator_run_names_its_kernel_configuration_and_time_base(rtscope, sim_probe, tmp_path):
    # The simulator switches threads through host signals (some 200 us a switch): sem.ops's 1,000 warm-up
    # rounds take 0.2 s of it.
    out = tmp_path / "sim.json"
    ran = rtscope(
        "--probe",
        sim_probe,
        "run",
        "sem.ops",
        "tm.memory",
        "--duration",
        "0.6",
        "--json",
        out,
        "--param",
        "tm.memory:period=0.2",
        "--param",
        "tm.memory:periods=1",
    )
    assert ran.status == 0, ran.err
    doc = result.load(out).doc
    assert doc["run"]["port"] == "threadx" and doc["system"]["os"] == "ThreadX"
    assert doc["system"]["virtualization"] == "simulator"
    assert "commit" in doc["system"]["kernel_version"] and "bench configuration" in doc["system"]["kernel_version"]
    assert doc["target"] == {"name": "local", "kind": "local", "time_base": "simulator"}
    assert all(metric["valid"] for metric in doc["metrics"]), [m.get("invalid_reason") for m in doc["metrics"]]
    assert doc["config"]["not_applicable"] == ["mlockall", "cpu_latency_us"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("BOARD=no-such-board",), "unknown ThreadX board 'no-such-board' (the boards are: "),
        (("CONFIG=fast",), "unknown ThreadX configuration 'fast' (the configurations are: "),
        (
            ("BOARD=posix-sim", "THREADX=/no/such/kernel"),
            "no ThreadX kernel at /no/such/kernel (set THREADX to an Eclipse ThreadX checkout)",
        ),
    ],
)
def test_bad_build_input_is_one_line(args, message):
    built = make(*args)
    assert built.returncode == 2
    assert message in built.stderr and len(built.stderr.strip().splitlines()) == 1
