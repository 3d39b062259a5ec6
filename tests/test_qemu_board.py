"""--target qemu:mps2-an385:freertos: the FreeRTOS image built and booted on QEMU's Cortex-M3 board. The
request's encoding and the bad input need nothing installed; the runs need qemu-system-arm,
arm-none-eabi-gcc and a FreeRTOS kernel (FREERTOS_KERNEL or ../shared/vendor/FreeRTOS-Kernel), and skip
saying which is missing."""

import os
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, slow_fixture
from rtscope.analysis import compare
from rtscope.errors import ProbeError, ProbeRejected, RtscopeError
from rtscope.model.request import RunRequest
from rtscope.model.values import ParamSetting
from rtscope.render.sections.run import measured_on
from rtscope.targets import make_target, qemu_board
from rtscope.targets.qemu_board import QemuBoardTarget

SPEC = "qemu:mps2-an385:freertos"
KERNEL = qemu_board._kernel_path(os.environ, REPO / "probe")
MISSING = [
    what
    for what, present in (
        ("qemu-system-arm", shutil.which("qemu-system-arm")),
        ("arm-none-eabi-gcc", shutil.which("arm-none-eabi-gcc")),
        (f"a FreeRTOS kernel at {KERNEL} (set FREERTOS_KERNEL)", (KERNEL / "tasks.c").is_file()),
    )
    if not present
]
needs_board = pytest.mark.skipif(bool(MISSING), reason=f"needs {', '.join(MISSING)}")


# Thread-Metric's periods are its own (30 s by default), not --duration.
SHORT_THREADMETRIC = (ParamSetting(None, "period", "0.2"), ParamSetting(None, "periods", "2"))


def request(*benches: str, duration_s: float = 0.2, label: str | None = None) -> RunRequest:
    return RunRequest(
        benches=benches,
        duration_s=duration_s,
        policy="fifo",
        priority=80,
        label=label,
        params=SHORT_THREADMETRIC if any(b.startswith(("tm.", "threadmetric")) for b in benches) else (),
    )


@pytest.mark.parametrize(
    ("arg", "encoded"),
    [
        ("run", "run"),
        ("--param", "--param"),
        ("tm.basic:period_ms=10", "tm.basic:period_ms=10"),
        ("a label, with spaces", "a%20label%2C%20with%20spaces"),
        ("100%", "100%25"),
        ("é", "%C3%A9"),
    ],
)
def test_each_argument_travels_percent_encoded(arg: str, encoded: str):
    # QEMU joins semihosting arguments with spaces and splits its options at commas.
    assert qemu_board.encode_arg(arg) == encoded


def test_qemu_counts_instructions_without_sleeping():
    argv = qemu_board.qemu_argv(
        "qemu-system-arm", "mps2-an385", Path("image"), ["rtscope-probe", "list"], console="stdio", shift=5
    )
    assert argv[argv.index("-icount") + 1] == "shift=5,align=off,sleep=off"
    assert argv[argv.index("-semihosting-config") + 1] == "enable=on,target=native,arg=rtscope-probe,arg=list"


@pytest.mark.parametrize(("spec", "shift"), [(SPEC, 0), (f"{SPEC}:shift=5", 5), (f"{SPEC}:shift=10", 10)])
def test_the_shift_is_the_linux_guests_unless_asked(spec: str, shift: int):
    target = make_target(spec, Path("unused"))
    assert isinstance(target, QemuBoardTarget) and target.shift == shift


@pytest.mark.parametrize(
    "spec",
    [
        "qemu:mps2-an385:zephyr",
        "qemu:mps2-an385",
        "qemu:mps2-an385:freertos:extra",
        "qemu:mps2-an385:freertos:shift=11",
        "qemu:mps2-an385:freertos:shift=-1",
    ],
)
def test_an_unknown_board_or_setting_is_one_line(spec: str):
    with pytest.raises(RtscopeError, match=r"qemu:mps2-an385:freertos\[:shift=N\]\)$"):
        make_target(spec, Path("unused"))


def test_a_missing_kernel_is_one_line_before_anything_runs(tmp_path: Path, rtscope, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FREERTOS_KERNEL", str(tmp_path / "nowhere"))
    outcome = rtscope("--target", SPEC, "run", "heap.ops")
    assert outcome.status == 2
    assert outcome.err == (
        f"rtscope: no FreeRTOS kernel at {tmp_path / 'nowhere'} (set FREERTOS_KERNEL to a FreeRTOS-Kernel checkout)\n"
    )


# The runs count an instruction every 32 ns: at the default 1 ns a guest second is 32 times as many
# instructions to emulate (Thread-Metric's start alone is a guest second).
FAST = f"{SPEC}:shift=5"


@slow_fixture(scope="module")
def board() -> QemuBoardTarget:
    return QemuBoardTarget(FAST)


@needs_board
def test_micro_and_threadmetric_run_on_the_emulated_board(board: QemuBoardTarget):
    doc = board.run(request("micro", "threadmetric", "lat.irq", "lat.preempt")).doc
    assert doc["run"]["status"] == "complete"
    assert doc["system"]["os"] == "FreeRTOS" and doc["system"]["hostname"] == "mps2-an385"
    assert "commit" in doc["system"]["kernel_version"] and "-mcpu=cortex-m3" in doc["system"]["kernel_version"]
    benches = {bench["id"]: bench["status"] for bench in doc["benches"]}
    assert set(benches) >= {
        "ctxsw.sem",
        "heap.ops",
        "mutex.ops",
        "thread.ops",
        "tm.basic",
        "tm.irq",
        "tm.irq_preempt",
        "tm.memory",
        "lat.irq",
        "lat.preempt",
    }
    assert all(status == "ok" for status in benches.values()), benches
    metrics = {metric["id"]: metric for metric in doc["metrics"]}
    # Thread-Metric's interrupt preemption really preempted, and the timer interrupt came.
    assert metrics["tm.irq_preempt"]["valid"], metrics["tm.irq_preempt"].get("invalid_reason")
    assert metrics["lat.irq"]["valid"] and metrics["lat.irq"]["stats"]["count"] > 0
    # Sanity only: an operation costs more than one 40 ns count and less than a millisecond of instructions.
    assert 40 <= metrics["mutex.lock"]["stats"]["p50"] < 1_000_000
    record = board.record()
    assert record["kind"] == "qemu" and record["time_base"] == "instructions"
    assert record["detail"]["clock"] == "-icount shift=5,sleep=off"


@needs_board
def test_two_runs_of_one_image_are_identical_to_the_bit_but_for_their_id_and_times(board: QemuBoardTarget):
    first, second = (board.run(request("ctxsw.sem", "mutex.ops", "tm.basic", "lat.irq")).doc for _ in range(2))
    assert first["run"].pop("id") != second["run"].pop("id")  # both can be stored
    # The board has no clock of the day: a run is stamped with the host's times, in order.
    times = [doc["run"].pop(key) for doc in (first, second) for key in ("started", "finished")]
    assert times == sorted(times) and times[0] > "2026"
    assert first == second


@needs_board
def test_a_request_longer_than_the_image_holds_is_refused_in_one_line(board: QemuBoardTarget):
    with pytest.raises(ProbeRejected, match=r"^rtscope-probe: the request is longer than the image holds"):
        board.run(request("heap.ops", label="x" * 3000))


def _with_undefined_instruction(image: Path, symbol: str, into: Path) -> Path:
    """A copy of the ELF ``image`` whose function ``symbol`` starts with an undefined instruction (Thumb
    UDF #254), at the file offset of its load segment."""
    nm = subprocess.run(["arm-none-eabi-nm", str(image)], capture_output=True, text=True, check=True).stdout
    address = next(int(line.split()[0], 16) & ~1 for line in nm.splitlines() if line.endswith(f" {symbol}"))
    data = bytearray(image.read_bytes())
    (phoff,) = struct.unpack_from("<I", data, 0x1C)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x2A)
    for number in range(phnum):
        kind, offset, vaddr, _, filesz = struct.unpack_from("<IIIII", data, phoff + number * phentsize)
        if kind == 1 and vaddr <= address < vaddr + filesz:  # PT_LOAD
            data[offset + address - vaddr : offset + address - vaddr + 2] = b"\xfe\xde"
            into.write_bytes(bytes(data))
            return into
    raise AssertionError(f"{symbol} is in no load segment of {image}")


@needs_board
def test_a_guest_that_faults_is_a_failed_run_with_where_it_faulted(board: QemuBoardTarget, tmp_path: Path):
    faulty = QemuBoardTarget(FAST)
    faulty.__dict__["_image"] = _with_undefined_instruction(board._image, "rts_run_execute", tmp_path / "faulty")
    started = time.monotonic()
    with pytest.raises(
        ProbeError,
        match=r"^qemu:mps2-an385:freertos:shift=5: rtscope-probe: guest fault: UsageFault "
        r"at pc 0x[0-9a-f]{8} .*CFSR 0x00010000",
    ):  # UNDEFINSTR
        faulty.run(request("heap.ops"))
    assert time.monotonic() - started < 30


def _qemu_processes_with(label: str) -> list[str]:
    """The QEMU processes booting a request labelled ``label`` (a word unique to one test run)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if any(b"qemu-system-arm" in arg for arg in argv) and any(label.encode() in arg for arg in argv):
            found.append(cmdline.parent.name)
    return found


def _unique_label() -> str:
    return f"t{os.getpid()}x{time.monotonic_ns()}"


@needs_board
def test_a_guest_that_outlives_its_time_is_stopped(board: QemuBoardTarget, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(qemu_board, "BOOT_ALLOWANCE_S", 2)
    monkeypatch.setattr(qemu_board, "WALL_S_PER_GIGA_INSTRUCTION", 0)
    started = time.monotonic()
    label = _unique_label()
    with pytest.raises(
        ProbeError,
        match=r"^qemu:mps2-an385:freertos:shift=5: the guest did not finish within 2 s "
        r"\(QEMU stopped\)$",
    ):
        board.run(request("lat.wakeup", duration_s=1000, label=label))
    assert time.monotonic() - started < 20
    assert _qemu_processes_with(label) == []


def test_a_run_says_how_long_an_instruction_is():
    target = {
        "name": SPEC,
        "kind": "qemu",
        "time_base": "instructions",
        "detail": {"clock": "-icount shift=5,sleep=off"},
    }
    assert measured_on(target) == (
        f"{SPEC}: instruction time on emulated hardware, not a hardware latency (one instruction every 32 ns)"
    )


@needs_board
@pytest.mark.usefixtures("board")
def test_loads_are_refused_on_the_board_in_one_line(rtscope):
    outcome = rtscope("--target", FAST, "run", "heap.ops", "--load", "cpu")
    assert outcome.status == 2
    assert outcome.err == (
        f"rtscope: {FAST} runs only the probe's image: no commands, processes or files there (cannot run sh)\n"
    )


def test_compare_names_instruction_times_of_different_rates():
    def doc(shift: int) -> dict:
        return {
            "target": {
                "name": SPEC,
                "kind": "qemu",
                "time_base": "instructions",
                "detail": {"clock": f"-icount shift={shift},sleep=off"},
            }
        }

    time_base = dict(compare.SETTINGS_TO_MATCH)["time base"]
    assert (time_base(doc(0)), time_base(doc(5))) == ("instructions (1 ns each)", "instructions (32 ns each)")


@needs_board
@pytest.mark.usefixtures("board")
def test_a_killed_rtscope_leaves_no_qemu():
    label = _unique_label()
    script = (
        f"from rtscope.targets.qemu_board import QemuBoardTarget; from rtscope.model.request import "
        f"RunRequest; QemuBoardTarget({FAST!r}).run(RunRequest(('lat.wakeup',), 1000.0, 'fifo', 80, "
        f"label={label!r}))"
    )
    runner = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
    )
    deadline = time.monotonic() + 30
    while not _qemu_processes_with(label) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _qemu_processes_with(label), "QEMU did not start"
    runner.kill()
    runner.wait()
    deadline = time.monotonic() + 10
    while _qemu_processes_with(label) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _qemu_processes_with(label) == []
