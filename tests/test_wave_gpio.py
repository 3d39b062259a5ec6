"""wave.square on GPIO lines (pin=gpio, docs/wave.md "The pin"). This machine has no GPIO chip, so two things
are tested: every refusal says in one line where pin=gpio cannot run, and the whole path (the generator's
output requests and writes, the observer's input request and its reading of the kernel's stamped edges, the
judging) runs against a wired pair of lines that probe/tests/fake_gpio.c answers with the uAPI's own
structures, loaded with LD_PRELOAD. The virtual boards run it against a kernel's GPIO chip."""

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rtscope.model import result

pytestmark = pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="the generator needs a CPU beside the observer's")

CHIP = "/fake/gpiochip0"
PERIODS = 40


@pytest.fixture(scope="module")
def fake_gpio(probe) -> Path:
    built = subprocess.run(
        ["make", "-s", "-C", str(probe.parent.parent), "fake-gpio"], capture_output=True, text=True, check=False
    )
    assert built.returncode == 0, built.stderr
    return probe.parent / "fake-gpio.so"


def _run(
    probe: Path, tmp_path: Path, *params: str, env: dict[str, str] | None = None, duration: str = "3"
) -> tuple[subprocess.CompletedProcess, dict[str, Any]]:
    out = tmp_path / "run.json"
    argv = [str(probe), "run", "wave.square", "--quiet", "--json", str(out), "--duration", duration]
    for param in params:
        argv += ["--param", param]
    ran = subprocess.run(
        argv, capture_output=True, text=True, timeout=60, env={**os.environ, **(env or {})}, check=False
    )
    return ran, result.load(out).doc


def _wired(fake_gpio: Path, tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment that makes CHIP a wired pair of lines (a FIFO carries the edges)."""
    wire = tmp_path / "wire"
    if not wire.exists():
        os.mkfifo(wire)
    return {"LD_PRELOAD": str(fake_gpio), "FAKE_GPIO_CHIP": CHIP, "FAKE_GPIO_WIRE": str(wire), **extra}


def _error(doc: dict[str, Any]) -> str:
    return doc["benches"][0]["error"]


@pytest.mark.parametrize("model", ["c-file", "c-rt", "c-busy", "c-timerfd"])
def test_each_c_model_drives_a_gpio_line_the_observer_takes_edges_of(probe, fake_gpio, tmp_path, model):
    ran, doc = _run(
        probe,
        tmp_path,
        "pin=gpio",
        f"chip={CHIP}",
        f"model={model}",
        "period_us=2000",
        f"periods={PERIODS}",
        env=_wired(fake_gpio, tmp_path),
    )
    if model == "c-rt" and ran.returncode and "real-time policy" in (_error(doc) or ""):
        pytest.skip("c-rt needs a real-time policy, and this run was not granted one")
    assert ran.returncode == 0, _error(doc)
    metrics = {m["id"]: m for m in doc["metrics"]}
    assert all(m["valid"] for m in metrics.values()), [m["invalid_reason"] for m in metrics.values()]
    checks = metrics["wave.period"]["checks"]
    # Every edge reaches the observer with the kernel's stamp: none lost, so none blind, and the 40 rising
    # edges bound 39 periods, each judged. The resolution is the clock's.
    assert checks["generator_toggles"] == checks["edges_seen"] == 2 * PERIODS
    assert checks["periods_judged"] == PERIODS - 1 and checks["periods_blind"] == 0
    assert checks["blind_fraction"] == 0 and checks["extra_edges"] == 0 and checks["resolution_ns"] >= 1
    # Never early where a model sleeps a half-period after each toggle (c-file): every period at least nominal.
    # The others keep absolute times and catch up after a late turn with periods as short as a toggle (a busy
    # machine made c-busy's median period 2 µs): of them, the count of edges above holds whatever the load.
    if model == "c-file":
        assert metrics["wave.period"]["stats"]["min"] >= 2e6 * 0.99


def test_edges_the_kernel_dropped_leave_their_periods_unjudged(probe, fake_gpio, tmp_path):
    """The kernel numbers every edge it takes; a gap in the numbers is edges it dropped (its buffer was full),
    and the time between the edges around them is blind."""
    # c-rt (SCHED_FIFO, absolute sleeps): a generator the machine's other work rarely stalls. A pause of the VM
    # can still make a judged period long (missed), so missed periods are no part of what this test checks.
    ran, doc = _run(
        probe,
        tmp_path,
        "pin=gpio",
        f"chip={CHIP}",
        "model=c-rt",
        "period_us=2000",
        f"periods={PERIODS}",
        "max_blind=0.5",
        env=_wired(fake_gpio, tmp_path, FAKE_GPIO_DROP_EVERY="10"),
    )
    assert ran.returncode == 0, _error(doc)
    period = next(m for m in doc["metrics"] if m["id"] == "wave.period")
    checks = period["checks"]
    dropped = 2 * PERIODS // 10  # every 10th toggle: falling edges, the last one among them
    # The analysis counts changes of level: after each dropped edge but the last, the next one repeats a level.
    assert checks["generator_toggles"] == 2 * PERIODS
    assert checks["edges_seen"] == 2 * PERIODS - dropped - (dropped - 1)
    assert checks["periods_blind"] >= dropped - 1 and checks["blind_fraction"] > 0
    assert checks["periods_judged"] + checks["periods_blind"] <= PERIODS - 1
    assert period["valid"]


def test_a_blind_share_over_max_blind_makes_the_wave_invalid(probe, fake_gpio, tmp_path):
    ran, doc = _run(
        probe,
        tmp_path,
        "pin=gpio",
        f"chip={CHIP}",
        "model=c-file",
        "period_us=2000",
        f"periods={PERIODS}",
        env=_wired(fake_gpio, tmp_path, FAKE_GPIO_DROP_EVERY="3"),
    )
    assert ran.returncode == 0, _error(doc)  # an invalid metric is measured, not a failed run
    period = next(m for m in doc["metrics"] if m["id"] == "wave.period")
    assert not period["valid"] and period["invalid_reason"].startswith("the observer was blind for")


def test_a_custom_program_is_told_the_chip_and_line(probe, fake_gpio, tmp_path):
    seen = tmp_path / "env.json"
    script = tmp_path / "gen.py"
    script.write_text(
        "import json, os, sys\n"
        f"json.dump({{k: v for k, v in os.environ.items() if k.startswith('RTSCOPE_')}}, open({str(seen)!r}, 'w'))\n"
        "print('toggles 0')\n",
        encoding="utf-8",
    )
    ran, doc = _run(
        probe,
        tmp_path,
        "pin=gpio",
        f"chip={CHIP}",
        "model=custom",
        f"command=python3 {script}",
        "out_line=7",
        "in_line=3",
        env=_wired(fake_gpio, tmp_path),
    )
    env = json.loads(seen.read_text())
    assert env["RTSCOPE_GPIO_CHIP"] == CHIP and env["RTSCOPE_GPIO_LINE"] == "7" and "RTSCOPE_PIN" not in env
    assert ran.returncode == 1 and _error(doc).startswith("the generator never toggled the pin")


def test_a_machine_without_the_chip_skips_it_saying_why(probe, tmp_path):
    ran, doc = _run(probe, tmp_path, "pin=gpio", "model=c-file", f"chip={tmp_path}/gpiochip9")
    assert ran.returncode == 0 and doc["run"]["status"] == "complete"
    assert doc["benches"][0]["status"] == "skipped" and doc["metrics"] == []
    assert _error(doc) == (
        f"pin gpio: cannot open {tmp_path}/gpiochip9: No such file or directory (it needs a board's GPIO chip; "
        "pin=shared works everywhere)"
    )


def test_a_file_that_is_not_a_gpio_chip_fails_it_in_one_line(probe, tmp_path):
    ran, doc = _run(probe, tmp_path, "pin=gpio", "model=c-file", "chip=/dev/null")
    assert ran.returncode == 1 and doc["metrics"] == []
    assert _error(doc) == (
        "pin gpio: /dev/null is not a GPIO chip (or its kernel predates the v2 uAPI, Linux 5.10) (it needs a board's "
        "GPIO chip with out_line wired to in_line; pin=shared works everywhere)"
    )


@pytest.mark.parametrize(
    ("params", "error"),
    [
        (
            ("model=c-file", "in_line=4", "out_line=4"),
            "pin gpio: in_line and out_line are both 4; the observer's input is another line, wired to the output",
        ),
        (
            ("model=bash",),
            (
                "model bash cannot drive a GPIO line (it writes a file: the shared pin); with pin=gpio use c-file, "
                "c-rt, c-busy, c-timerfd or custom"
            ),
        ),
        (
            ("model=c-mmap",),
            (
                "model c-mmap cannot drive a GPIO line (it stores to a mapped page, which a GPIO line has no portable "
                "one of); with pin=gpio use c-file, c-rt, c-busy, c-timerfd or custom"
            ),
        ),
    ],
)
def test_parameters_that_cannot_go_together_are_refused_before_the_run(probe, tmp_path, params, error):
    out = tmp_path / "run.json"
    argv = [str(probe), "run", "wave.square", "--quiet", "--json", str(out), "--param", "pin=gpio"]
    for param in params:
        argv += ["--param", param]
    ran = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert ran.returncode == 2 and ran.stderr == f"rtscope-probe: bench wave.square: {error}\n"
    assert not out.exists()


@pytest.mark.parametrize(
    ("model", "env", "error"),
    [
        (
            "c-file",
            {"RTSCOPE_GPIO_CHIP": "/nonexistent/gpiochip0", "RTSCOPE_GPIO_LINE": "0"},
            "cannot open /nonexistent/gpiochip0: No such file or directory",
        ),
        (
            "c-mmap",
            {"RTSCOPE_GPIO_CHIP": "/dev/null", "RTSCOPE_GPIO_LINE": "0"},
            "model c-mmap stores to a mapped pin: it cannot drive a GPIO line",
        ),
        (
            "c-busy",
            {"RTSCOPE_GPIO_CHIP": "/dev/null", "RTSCOPE_GPIO_LINE": "x"},
            "RTSCOPE_GPIO_LINE must be the output line's offset on the chip",
        ),
    ],
)
def test_the_c_generator_refuses_a_gpio_line_it_cannot_drive(probe, model, env, error):
    ran = subprocess.run(
        [str(probe), "generate", model],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "RTSCOPE_HALF_PERIOD_NS": "1000", "RTSCOPE_PERIODS": "3", **env},
        check=False,
    )
    assert ran.returncode != 0 and ran.stderr.strip() == f"rtscope-probe: generate: {error}"
