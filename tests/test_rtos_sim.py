"""The RTOS ports on their kernels' simulators (make -C probe PORT=freertos|threadx BOARD=posix-sim): a
result names the kernel and its configuration, says it measured the simulator's time, and the analyzer
records and shows that time base; bad build input is one line. The ports' contract tests and the benches'
checks on the simulators are make -C probe check-freertos-sim and check-threadx-sim (part of make test).
Each kernel's tests are skipped without that kernel."""

import json
import re
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, assert_kernel_provenance, make_probe, slow_fixture
from rtscope.analysis import compare
from rtscope.model import result
from rtscope.targets import kernels


def sim_probe(os_name: str, config: str) -> Path:
    """The probe built on the kernel's simulator in config; skips without the kernel, saying how to name
    one."""
    if kernels.missing(os_name):
        pytest.skip(kernels.missing(os_name))
    named = kernels.checkout(os_name)
    built = make_probe(f"PORT={os_name}", "BOARD=posix-sim", f"CONFIG={config}", f"{named.kernel.env}={named.path}")
    assert built.returncode == 0, built.stderr
    suffix = "" if config == "dev" else f"-{config}"
    return REPO / "probe" / "build" / f"{os_name}-posix-sim{suffix}" / "rtscope-probe"


@slow_fixture(scope="module")
def freertos_sim() -> Path:
    """The probe on FreeRTOS's POSIX simulator, in its dev configuration."""
    return sim_probe("freertos", "dev")


@slow_fixture(scope="module")
def threadx_sim() -> Path:
    """The probe on ThreadX's Linux simulator, in its bench configuration (check-threadx-sim builds the
    dev one)."""
    return sim_probe("threadx", "bench")


def test_a_simulator_run_is_recorded_and_shown_on_the_simulators_time_base(rtscope, freertos_sim, tmp_path):
    out = tmp_path / "sim.json"
    ran = rtscope("--probe", freertos_sim, "run", "sem.ops", "--duration", "0.2", "--json", out)
    assert ran.status == 0, ran.err
    doc = result.load(out).doc
    assert doc["run"]["port"] == "freertos" and doc["system"]["os"] == "FreeRTOS"
    assert doc["system"]["virtualization"] == "simulator"
    assert doc["system"]["kernel_release"].startswith("V")
    assert_kernel_provenance(doc, "freertos")
    assert doc["target"] == {"name": "local", "kind": "local", "time_base": "simulator"}
    assert all(metric["valid"] for metric in doc["metrics"]), [m["invalid_reason"] for m in doc["metrics"]]
    shown = rtscope("show", "last")
    assert "local: an OS simulator's time, not the OS's" in shown.out


def test_settings_freertos_does_not_have_are_not_applicable_not_warnings(rtscope, freertos_sim, tmp_path):
    out = tmp_path / "setup.json"
    ran = rtscope("--probe", freertos_sim, "run", "clock.read", "--duration", "0.1", "--json", out)
    assert ran.status == 0, ran.err
    config = result.load(out).doc["config"]
    assert config["not_applicable"] == ["mlockall", "cpu_latency_us"]
    assert not any("mlockall" in w or "latency" in w for w in config["warnings"]), config["warnings"]
    shown = rtscope("show", "last").out
    assert re.search(r"^  mlockall +yes +not applicable$", shown, re.MULTILINE), shown
    assert re.search(r"^  CPU latency limit +0 +not applicable$", shown, re.MULTILINE), shown
    assert "not as requested" not in shown


def test_a_simulators_result_without_a_recorded_target_is_still_the_simulators_time(rtscope, freertos_sim, tmp_path):
    out = tmp_path / "alone.json"
    subprocess.run(
        [freertos_sim, "run", "sem.ops", "--duration", "0.1", "--quiet", "--json", out], check=True, timeout=120
    )
    doc = json.loads(out.read_text())
    assert "target" not in doc
    assert result.time_base(doc) == "simulator"
    shown = rtscope("show", out)
    assert shown.status == 0, shown.err
    assert "an OS simulator's time, not the OS's" in shown.out


def test_a_threadx_simulator_run_names_its_kernel_configuration_and_time_base(rtscope, threadx_sim, tmp_path):
    # The simulator switches threads through host signals, 0.2 to 1 ms a switch as the host is loaded: sem.ops
    # takes a set number of rounds rather than a time that a slow host could spend in its warm-up alone.
    out = tmp_path / "sim.json"
    ran = rtscope(
        "--probe",
        threadx_sim,
        "run",
        "sem.ops",
        "tm.memory",
        "--duration",
        "60",
        "--json",
        out,
        "--param",
        "sem.ops:warmup=100",
        "--param",
        "sem.ops:count=200",
        "--param",
        "tm.memory:period=0.2",
        "--param",
        "tm.memory:periods=1",
    )
    assert ran.status == 0, ran.err
    doc = result.load(out).doc
    assert doc["run"]["port"] == "threadx" and doc["system"]["os"] == "ThreadX"
    assert doc["system"]["virtualization"] == "simulator"
    assert "bench configuration" in doc["system"]["kernel_version"]
    assert_kernel_provenance(doc, "threadx")
    assert doc["target"] == {"name": "local", "kind": "local", "time_base": "simulator"}
    assert all(metric["valid"] for metric in doc["metrics"]), [m.get("invalid_reason") for m in doc["metrics"]]
    assert doc["config"]["not_applicable"] == ["mlockall", "cpu_latency_us"]


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
        (("PORT=freertos", "BOARD=no-such-board"), "unknown FreeRTOS board 'no-such-board' (the boards are: "),
        (
            ("PORT=freertos", "BOARD=posix-sim", "FREERTOS_KERNEL=/no/such/kernel"),
            (
                "no FreeRTOS kernel at /no/such/kernel (named by FREERTOS_KERNEL; a FreeRTOS-Kernel checkout has "
                "tasks.c): set FREERTOS_KERNEL=DIR or run: rtscope kernels add freertos DIR"
            ),
        ),
        (("PORT=threadx", "BOARD=no-such-board"), "unknown ThreadX board 'no-such-board' (the boards are: "),
        (("PORT=threadx", "CONFIG=fast"), "unknown ThreadX configuration 'fast' (the configurations are: "),
        (
            ("PORT=threadx", "BOARD=posix-sim", "THREADX=/no/such/kernel"),
            (
                "no ThreadX kernel at /no/such/kernel (named by THREADX; an Eclipse ThreadX checkout has "
                "common/src/tx_thread_create.c): set THREADX=DIR or run: rtscope kernels add threadx DIR"
            ),
        ),
    ],
)
def test_bad_build_input_is_one_line(args, message):
    built = make_probe(*args)
    assert built.returncode == 2
    assert message in built.stderr and len(built.stderr.strip().splitlines()) == 1
