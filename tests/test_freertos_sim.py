"""The FreeRTOS port on FreeRTOS's POSIX simulator (make -C probe PORT=freertos BOARD=posix-sim): its result
says it measured the simulator's time, and the analyzer records and shows that time base; bad build input is
one line. The port's contract tests and the benches' checks on the simulator are make -C probe
check-freertos-sim (part of make test). Skipped without a FreeRTOS kernel."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, slow_fixture
from rtscope.analysis import compare
from rtscope.model import result
from rtscope.targets import qemu_board

KERNEL = qemu_board.kernel_path(os.environ, REPO / "probe")


def make(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["make", "-s", "-C", str(REPO / "probe"), "PORT=freertos", *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@slow_fixture(scope="module")
def sim_probe() -> Path:
    """The probe built on FreeRTOS's POSIX simulator."""
    if not (KERNEL / "tasks.c").exists():
        pytest.skip(f"no FreeRTOS kernel at {KERNEL} (set FREERTOS_KERNEL)")
    built = make("BOARD=posix-sim", f"FREERTOS_KERNEL={KERNEL}")
    assert built.returncode == 0, built.stderr
    return REPO / "probe" / "build" / "freertos-posix-sim" / "rtscope-probe"


def test_a_simulator_run_is_recorded_and_shown_on_the_simulators_time_base(rtscope, sim_probe, tmp_path):
    out = tmp_path / "sim.json"
    ran = rtscope("--probe", sim_probe, "run", "sem.ops", "--duration", "0.2", "--json", out)
    assert ran.status == 0, ran.err
    doc = result.load(out).doc
    assert doc["run"]["port"] == "freertos" and doc["system"]["os"] == "FreeRTOS"
    assert doc["system"]["virtualization"] == "simulator"
    assert doc["system"]["kernel_release"].startswith("V") and "commit" in doc["system"]["kernel_version"]
    assert doc["target"] == {"name": "local", "kind": "local", "time_base": "simulator"}
    assert all(metric["valid"] for metric in doc["metrics"]), [m["invalid_reason"] for m in doc["metrics"]]
    shown = rtscope("show", "last")
    assert "local: an OS simulator's time, not the OS's" in shown.out


def test_settings_freertos_does_not_have_are_not_applicable_not_warnings(rtscope, sim_probe, tmp_path):
    out = tmp_path / "setup.json"
    ran = rtscope("--probe", sim_probe, "run", "clock.read", "--duration", "0.1", "--json", out)
    assert ran.status == 0, ran.err
    config = result.load(out).doc["config"]
    assert config["not_applicable"] == ["mlockall", "cpu_latency_us"]
    assert not any("mlockall" in w or "latency" in w for w in config["warnings"]), config["warnings"]
    shown = rtscope("show", "last").out
    assert "mlockall           yes        not applicable" in shown
    assert "CPU latency limit  0          not applicable" in shown
    assert "not as requested" not in shown


def test_a_simulators_result_without_a_recorded_target_is_still_the_simulators_time(rtscope, sim_probe, tmp_path):
    out = tmp_path / "alone.json"
    subprocess.run(
        [sim_probe, "run", "sem.ops", "--duration", "0.1", "--quiet", "--json", out], check=True, timeout=120
    )
    doc = json.loads(out.read_text())
    assert "target" not in doc
    assert result.time_base(doc) == "simulator"
    shown = rtscope("show", out)
    assert shown.status == 0, shown.err
    assert "an OS simulator's time, not the OS's" in shown.out


@pytest.mark.parametrize(
    ("target", "virtualization", "time_base"),
    [
        (None, None, "hardware"),
        (None, "simulator", "simulator"),
        ({"name": "local", "kind": "local", "time_base": "hardware"}, "simulator", "simulator"),
        ({"name": "local", "kind": "local", "time_base": "hardware"}, "kvm", "hardware"),
        ({"name": "fake:d", "kind": "fake", "time_base": "replayed"}, "simulator", "replayed"),
        ({"name": "qemu:mps2-an385:freertos", "kind": "qemu", "time_base": "instructions"}, None, "instructions"),
    ],
)
def test_the_time_base_is_the_targets_unless_the_probe_ran_in_a_simulator(target, virtualization, time_base):
    doc = {"system": {"virtualization": virtualization}, **({"target": target} if target else {})}
    assert result.time_base(doc) == time_base
    assert dict(compare.SETTINGS_TO_MATCH)["time base"](doc) == time_base


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("BOARD=no-such-board",), "unknown FreeRTOS board 'no-such-board' (the boards are: "),
        (
            ("BOARD=posix-sim", "FREERTOS_KERNEL=/no/such/kernel"),
            "no FreeRTOS kernel at /no/such/kernel (set FREERTOS_KERNEL to a FreeRTOS-Kernel checkout)",
        ),
    ],
)
def test_bad_build_input_is_one_line(args, message):
    built = make(*args)
    assert built.returncode == 2
    assert message in built.stderr and len(built.stderr.strip().splitlines()) == 1
