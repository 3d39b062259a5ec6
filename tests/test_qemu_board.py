"""--target qemu:mps2-an385:freertos and qemu:mps2-an385:threadx: each kernel's image built and booted on
QEMU's Cortex-M3 board, the defaults a request leaves sized to instruction time, and the progress line of
a long run. The request's encoding and the bad input need nothing installed; the runs need
qemu-system-arm, arm-none-eabi-gcc and the user's kernel (FREERTOS_KERNEL, THREADX, or rtscope kernels
add), and skip saying which is missing."""

import contextlib
import dataclasses
import fcntl
import json
import os
import re
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import REPO, assert_kernel_provenance, slow_fixture
from rtscope.analysis import compare
from rtscope.errors import ProbeError, ProbeRejected, RtscopeError
from rtscope.model.request import RunRequest
from rtscope.model.values import ParamSetting
from rtscope.render.sections.run import measured_on
from rtscope.targets import kernels, make_target, probes
from rtscope.targets.mcu import qemu_board
from rtscope.targets.mcu.qemu_board import QemuBoardTarget
from rtscope.targets.qemu import machine as qemu_machine
from test_qemu import qemu_processes_with

SPEC = "qemu:mps2-an385:freertos"
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
    argv = qemu_board.qemu_args("mps2-an385", Path("image"), ["rtscope-probe", "list"], shift=5)
    assert argv[argv.index("-icount") + 1] == "shift=5,align=off,sleep=off"
    assert argv[argv.index("-semihosting-config") + 1] == "enable=on,target=native,arg=rtscope-probe,arg=list"


@pytest.mark.parametrize(("spec", "shift"), [(SPEC, 0), (f"{SPEC}:shift=5", 5), (f"{SPEC}:shift=10", 10)])
def test_the_shift_is_the_linux_guests_unless_asked(spec: str, shift: int):
    target = make_target(spec, Path("unused"))
    assert isinstance(target, QemuBoardTarget) and target.shift == shift


@pytest.mark.parametrize(
    ("spec", "shift", "config", "build"),
    [
        (SPEC, 0, "dev", "freertos-mps2-an385"),
        (f"{SPEC}:config=bench", 0, "bench", "freertos-mps2-an385-bench"),
        (f"{SPEC}:config=bench:shift=5", 5, "bench", "freertos-mps2-an385-bench"),
        (f"{SPEC}:shift=5:config=dev", 5, "dev", "freertos-mps2-an385"),
        ("qemu:mps2-an385:threadx:config=bench", 0, "bench", "threadx-mps2-an385-bench"),
        (f"{SPEC}:mcu=small:shift=5", 5, "dev", "freertos-mps2-an385-small"),
        (f"{SPEC}:config=bench:mcu=small", 0, "bench", "freertos-mps2-an385-bench-small"),
        ("qemu:mps2-an385:threadx:mcu=small:config=bench", 0, "bench", "threadx-mps2-an385-bench-small"),
    ],
)
def test_options_come_in_any_order_and_each_configuration_builds_apart(spec: str, shift: int, config: str, build: str):
    target = make_target(spec, Path("unused"))
    assert isinstance(target, QemuBoardTarget)
    assert (target.shift, target.config, target.image.parent.name) == (shift, config, build)


USAGE = r" \(expected qemu:mps2-an385:freertos\|threadx\[:shift=N\]\[:config=dev\|bench\]\[:mcu=small\]\)$"
BOOTS = "no such board and OS (rtscope boots qemu:mps2-an385:freertos, qemu:mps2-an385:threadx)"


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ("qemu:mps2-an385:zephyr", BOOTS),
        ("qemu:mps2-an385", BOOTS),
        (f"{SPEC}:extra", "'extra' is not KEY=VALUE"),
        (f"{SPEC}:colour=red", "no option 'colour'"),
        (f"{SPEC}:shift=11", "shift=11 is not a whole number from 0 to 10"),
        (f"{SPEC}:shift=-1", "shift=-1 is not a whole number from 0 to 10"),
        (f"{SPEC}:config=fast", "config=fast is not one of dev, bench"),
        (f"{SPEC}:config=", "config= is not one of dev, bench"),
        (f"{SPEC}:config=dev:config=bench", "config is given twice"),
        (f"{SPEC}:mcu=large", "mcu=large is not one of small"),
    ],
)
def test_an_unknown_board_or_option_is_one_line_naming_what_there_is(spec: str, why: str):
    with pytest.raises(RtscopeError, match=f"^--target {re.escape(spec)}: " + re.escape(why) + USAGE) as raised:
        make_target(spec, Path("unused"))
    assert "\n" not in str(raised.value)


def test_a_bad_option_ends_rtscope_with_status_2_before_anything_runs(rtscope):
    outcome = rtscope("--target", f"{SPEC}:config=fast", "run", "heap.ops")
    assert outcome.status == 2
    assert outcome.err.count("\n") == 1 and "config=fast is not one of dev, bench" in outcome.err


@pytest.mark.parametrize("os_name", ["freertos", "threadx"])
@pytest.mark.parametrize("command", [["run", "heap.ops"], ["list"], ["doctor"]])
def test_a_kernel_not_named_is_one_line_saying_how_to_name_it(
    os_name: str, command: list[str], tmp_path: Path, rtscope, monkeypatch: pytest.MonkeyPatch
):
    kernel = kernels.KERNELS[os_name]
    monkeypatch.delenv(kernel.env, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    outcome = rtscope("--target", f"qemu:mps2-an385:{os_name}", *command)
    assert outcome.status == 2
    assert outcome.err == (
        f"rtscope: no {kernel.name} kernel is named: set {kernel.env}=DIR or run: rtscope kernels add {os_name} DIR "
        f"(DIR: {kernel.checkout}; docs/rtos.md); to get one (tested: {', '.join(kernel.tested)}): "
        f"git clone --depth 1 --branch {kernel.release} {kernel.repository} DIR\n"
    )


def test_a_kernel_named_where_there_is_none_is_one_line(tmp_path: Path, rtscope, monkeypatch: pytest.MonkeyPatch):
    kernel = kernels.KERNELS["threadx"]
    monkeypatch.setenv("THREADX", str(tmp_path / "nowhere"))
    outcome = rtscope("--target", "qemu:mps2-an385:threadx", "run", "heap.ops")
    assert outcome.status == 2
    assert outcome.err == (
        f"rtscope: no ThreadX kernel at {tmp_path / 'nowhere'} (named by THREADX; an Eclipse ThreadX checkout has "
        f"common/src/tx_thread_create.c): set THREADX=DIR or run: rtscope kernels add threadx DIR (DIR: "
        f"{kernel.checkout}; docs/rtos.md); to get one (tested: {', '.join(kernel.tested)}): git clone --depth 1 "
        f"--branch {kernel.release} {kernel.repository} DIR\n"
    )


def test_each_kernel_has_its_own_image_and_kernel():
    freertos, threadx = (QemuBoardTarget(f"qemu:mps2-an385:{os_name}") for os_name in ("freertos", "threadx"))
    assert freertos.image.parent.name == "freertos-mps2-an385"
    assert threadx.image.parent.name == "threadx-mps2-an385"
    assert (freertos.kernel.name, threadx.kernel.name) == ("FreeRTOS", "ThreadX")


# The runs count an instruction every 32 ns: at the default 1 ns a guest second is 32 times as many
# instructions to emulate (Thread-Metric's start alone is a guest second).
FAST = f"{SPEC}:shift=5"


@slow_fixture(scope="module")
def board(board_tools: None) -> QemuBoardTarget:
    return QemuBoardTarget(FAST)


@pytest.mark.usefixtures("board_tools")
def test_micro_and_threadmetric_run_on_the_emulated_board(board: QemuBoardTarget):
    doc = board.run(request("micro", "threadmetric", "lat.irq", "lat.preempt")).doc
    assert doc["run"]["status"] == "complete"
    assert doc["system"]["os"] == "FreeRTOS" and doc["system"]["hostname"] == "mps2-an385"
    assert "-mcpu=cortex-m3" in doc["system"]["os_config"]["cflags"]
    assert_kernel_provenance(doc, "freertos")
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
    assert record["detail"]["clock"] == "-icount shift=5,sleep=off" and record["detail"]["config"] == "dev"
    manifest = doc["system"]["os_config"]
    assert manifest["config"] == "dev" and manifest["assertions"] is True and manifest["priorities"] == 101
    assert manifest["heap"] == "heap_4" and manifest["kernel_version"] == doc["system"]["kernel_release"]


@pytest.mark.usefixtures("board_tools")
def test_the_bench_configuration_builds_apart_runs_and_says_what_it_is():
    bench = QemuBoardTarget(f"{FAST}:config=bench")
    doc = bench.run(request("mutex.ops", "tm.preempt", "tm.irq_preempt")).doc
    assert bench.image.parent.name == "freertos-mps2-an385-bench"
    assert bench.record()["detail"]["config"] == "bench"
    manifest = doc["system"]["os_config"]
    assert {key: manifest[key] for key in ("config", "assertions", "stack_check", "task_selection", "priorities")} == {
        "config": "bench",
        "assertions": False,
        "stack_check": "off",
        "task_selection": "optimised (the kernel port's)",
        "priorities": 32,
    }
    # Five priorities in a chain above the default, and a thread above an interrupt's: one to one on 32.
    metrics = {metric["id"]: metric for metric in doc["metrics"]}
    for metric_id in ("tm.preempt", "tm.irq_preempt", "mutex.lock"):
        assert metrics[metric_id]["valid"], metrics[metric_id].get("invalid_reason")


@pytest.mark.usefixtures("board_tools")
def test_an_image_is_built_while_another_build_holds_the_probes_folder():
    """An image's build takes its own folder's lock, not probe/build's: the native probe's build, or a
    board's, holding that one does not hold it up."""
    image = qemu_board.build_image("freertos", "mps2-an385")
    built: list[Path] = []
    with open(probes.BUILD_DIR / ".probes.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        again = threading.Thread(target=lambda: built.append(qemu_board.build_image("freertos", "mps2-an385")))
        again.start()
        again.join(120)
        while_held = list(built)
    again.join()
    assert while_held == [image]


@slow_fixture(scope="module")
def threadx_board(board_tools: None) -> QemuBoardTarget:
    if kernels.missing("threadx"):
        pytest.skip(kernels.missing("threadx"))
    return QemuBoardTarget("qemu:mps2-an385:threadx:shift=5")


@pytest.mark.usefixtures("board_tools")
def test_every_suite_that_runs_on_freertos_runs_on_threadx_valid(threadx_board: QemuBoardTarget):
    doc = threadx_board.run(request("micro", "threadmetric", "latency")).doc
    assert doc["run"]["status"] == "complete" and doc["run"]["port"] == "threadx"
    assert doc["system"]["os"] == "ThreadX" and doc["system"]["hostname"] == "mps2-an385"
    assert re.fullmatch(r"\d+\.\d+\.\d+", doc["system"]["kernel_release"])
    assert "dev configuration" in doc["system"]["kernel_version"]
    assert_kernel_provenance(doc, "threadx")
    benches = {bench["id"]: bench["status"] for bench in doc["benches"]}
    assert {
        "ctxsw.sem",
        "heap.ops",
        "thread.ops",
        "tm.basic",
        "tm.memory",
        "tm.irq_preempt",
        "lat.wakeup",
        "lat.irq",
    } <= set(benches)
    assert all(status == "ok" for status in benches.values()), benches
    invalid = {metric["id"]: metric.get("invalid_reason") for metric in doc["metrics"] if not metric["valid"]}
    assert not invalid
    assert threadx_board.record()["detail"]["threadx_kernel"] == str(kernels.checkout("threadx").path)


@pytest.mark.usefixtures("board_tools")
def test_benches_the_board_cannot_run_are_skipped_with_their_reason(board: QemuBoardTarget):
    doc = board.run(request("wave.square", "lat.timerlat", "crypto.sha256", "clock.read")).doc
    assert doc["run"]["status"] == "complete"
    benches = {bench["id"]: (bench["status"], bench["error"]) for bench in doc["benches"]}
    assert benches["wave.square"] == ("skipped", "this target's port: no files; cannot start processes")
    assert benches["lat.timerlat"] == ("skipped", "this target's port: no files")
    assert benches["crypto.sha256"] == (
        "skipped",
        "SHA-256: not in this build of the probe (built without a crypto library)",
    )
    assert benches["clock.read"] == ("ok", None)
    assert {metric["bench"] for metric in doc["metrics"]} == {"clock.read"}


@pytest.mark.usefixtures("board_tools")
def test_two_runs_of_one_image_are_identical_to_the_bit_but_for_their_id_and_times(board: QemuBoardTarget):
    first, second = (board.run(request("ctxsw.sem", "mutex.ops", "tm.basic", "lat.irq")).doc for _ in range(2))
    assert first["run"].pop("id") != second["run"].pop("id")  # both can be stored
    # The board has no clock of the day: a run is stamped with the host's times, in order.
    times = [doc["run"].pop(key) for doc in (first, second) for key in ("started", "finished")]
    assert times == sorted(times) and times[0] > "2026"
    assert first == second


@pytest.mark.usefixtures("board_tools")
def test_a_seed_moves_each_bench_against_the_tick_and_one_seed_repeats_the_run(board: QemuBoardTarget):
    """Another seed, another phase against the 1 ms tick: lat.wakeup's lateness (up to a tick) changes;
    Thread-Metric's counts, instructions over a period of instructions, do not. One seed twice: the same
    run to the bit."""
    seeded = request("lat.wakeup", "tm.basic")
    first, other, again = (board.run(dataclasses.replace(seeded, seed=seed)).doc for seed in (1, 2, 1))
    assert [doc["run"]["seed"] for doc in (first, other, again)] == [1, 2, 1]
    assert [b["phase_ns"] for b in first["benches"]] != [b["phase_ns"] for b in other["benches"]]

    def figures(doc: dict, metric_id: str) -> dict:
        return next(metric for metric in doc["metrics"] if metric["id"] == metric_id)["stats"]

    assert figures(first, "lat.wakeup")["p50"] != figures(other, "lat.wakeup")["p50"]
    assert figures(first, "tm.basic")["p50"] == pytest.approx(figures(other, "tm.basic")["p50"], abs=2)
    assert json.dumps(first["metrics"]) == json.dumps(again["metrics"])


@pytest.mark.usefixtures("board_tools")
def test_a_request_longer_than_the_image_holds_is_refused_in_one_line(board: QemuBoardTarget):
    with pytest.raises(ProbeRejected, match=r"^rtscope-probe: the request is longer than the image holds"):
        board.run(request("heap.ops", label="x" * 3000))


# The microcontroller build against the full one: the benches that take the most of its RAM (tm.preempt's
# six threads and its reporter, thread.ops' stacks, heap.ops' blocks, lat.wakeup's seven parameters) and one of
# each other kind.
MCU_BENCHES = ("ctxsw.sem", "mutex.ops", "heap.ops", "thread.ops", "tm.basic", "tm.preempt", "lat.wakeup", "lat.irq")
# What the full build's defaults would hold at once and 48 KiB does not: heap.ops' 1000 blocks, a 16 KiB
# stack for thread.ops. Both builds take these.
# Woken by the kernel's tick: their latency is where in the 1 ms tick a wait begins, which the harness's
# instructions before it move (measured: 676 µs against 533 µs at shift 5); run and valid, not compared.
TICK_PHASED = {"lat.wakeup", "lat.preempt_timer"}
MCU_PARAMS = (ParamSetting("heap.ops", "batch", "100"), ParamSetting("thread.ops", "stack_kib", "1"))
# The most threads whose iterations one Thread-Metric test counts (tm.coop's and tm.preempt's five).
TM_MOST_COUNTERS = 5


@slow_fixture(scope="module", params=["freertos", "threadx"])
def full_and_small_board(request: pytest.FixtureRequest) -> tuple[QemuBoardTarget, QemuBoardTarget]:
    """Each kernel's full image (the module's board) and its microcontroller build, in the dev configuration,
    whose stack checking (FreeRTOS's, ThreadX's) ends a run that overflows a stack."""
    full = request.getfixturevalue("board" if request.param == "freertos" else "threadx_board")
    return full, QemuBoardTarget(f"{full.name}:mcu=small")


@pytest.mark.usefixtures("board_tools")
def test_the_microcontroller_build_fits_its_regions_and_measures_what_the_full_one_does(
    full_and_small_board: tuple[QemuBoardTarget, QemuBoardTarget],
):
    """Under instruction counting the same bench on the same parameters costs the same instructions in both
    builds; what differs is the harness around it (its code and sizes) and what else the kernel's heap
    holds (2 KiB histograms and 1 KiB stacks against 30 KiB and 16 KiB), which moves where samples fall
    against the board's 40 ns clock and the kernel's tick, and how far the heap (FreeRTOS's heap_4,
    ThreadX's byte pool) walks its free list. So: Thread-Metric's counts per period agree to within 1 in
    10,000 (measured: 2 in 10^5) or one iteration of each counting thread, inside which a period's edge
    falls (tm.preempt's five threads count some 18,000 a period here: measured 2 apart), their ratios to
    tm.basic to within both counts' allowances; a time metric's minimum to within one step of the clock,
    its mean to within 2 % or two steps (one tick's interruption among 1,700 samples moves it 1 %), its
    median to within one step and a bucket of the small build's histogram (12.5 %, config.h), its count
    (samples in the same time, the harness's share in each) to within 5 %. Maxima are single events (a
    tick, a longer walk of the heap's free list) and are not compared."""
    board, small_board = full_and_small_board
    small_request = dataclasses.replace(request(*MCU_BENCHES), params=(*SHORT_THREADMETRIC, *MCU_PARAMS))
    # A trace asked of an RTOS, which has no kernel tracer to read: one warning from either build, the same
    # samples.
    traced = dataclasses.replace(
        small_request, params=(*small_request.params, ParamSetting("lat.wakeup", "trace", "first"))
    )
    small, full = small_board.run(traced).doc, board.run(traced).doc
    assert small["run"]["status"] == "complete", small["benches"]
    for doc in (small, full):
        said = [warning for warning in doc["config"]["warnings"] if "trace=first" in warning]
        assert said == ["lat.wakeup: trace=first: no kernel tracer on this OS"], said
    image = small["run"]["image"]
    # The flash holds the code, the constants and .data's first values; the RAM .data and the rest.
    assert image["text"] + image["data"] <= 128 * 1024 and image["data"] + image["bss"] <= 48 * 1024, image
    assert full["run"]["image"]["text"] > 128 * 1024  # the full image would not fit
    assert small_board.record()["detail"]["mcu"] == "small" and "mcu" not in board.record()["detail"]
    # Sleeps are whole ticks of the kernel's 1000 Hz, as each port declares.
    assert small["timing"]["sleep_granularity_ns"] == full["timing"]["sleep_granularity_ns"] == 1_000_000
    step = full["timing"]["clock_resolution_ns"]
    full_metrics = {metric["id"]: metric for metric in full["metrics"]}
    basic_periods = full_metrics["tm.basic"]["periods"]
    for metric in small["metrics"]:
        other = full_metrics[metric["id"]]
        assert metric["valid"] and other["valid"], metric["id"]
        if metric.get("periods") is not None:
            for mine, theirs in zip(metric["periods"], other["periods"], strict=True):
                assert abs(mine - theirs) <= max(TM_MOST_COUNTERS, 1e-4 * theirs), (
                    metric["id"],
                    metric["periods"],
                    other["periods"],
                )
            # A ratio to tm.basic moves by both counts' allowance.
            allowance = sum(max(TM_MOST_COUNTERS / min(periods), 1e-4) for periods in (other["periods"], basic_periods))
            assert metric["baseline"]["ratio"] == pytest.approx(other["baseline"]["ratio"], rel=allowance)
            continue
        mine, theirs = metric["stats"], other["stats"]
        assert mine["count"] == pytest.approx(theirs["count"], rel=0.05), metric["id"]
        if metric["id"] in TICK_PHASED:
            continue
        assert abs(mine["min"] - theirs["min"]) <= step, (metric["id"], mine, theirs)
        # The whole distribution may sit a step apart, as its minimum may, and the mean a little beyond: the
        # text printed between benches moves where the next one starts against the clock (lat.irq's mean
        # measured 46 ns apart on ThreadX, its minimum 40), and a tick may fall on a sample in one build and
        # not the other: two such single events, each at most the maximum, spread over the samples (lat.irq's
        # 203: one tick of 8.4 µs moves its mean 41 ns, as it did when the result's bench record was reordered).
        single_events = 2 * max(mine["max"] - mine["min"], theirs["max"] - theirs["min"]) / theirs["count"]
        tolerance = max(2 * step, 0.02 * theirs["mean"], single_events)
        assert abs(mine["mean"] - theirs["mean"]) <= tolerance, (metric["id"], mine, theirs)
        assert abs(mine["p50"] - theirs["p50"]) <= step + 0.125 * theirs["p50"], (metric["id"], mine, theirs)


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


@pytest.mark.usefixtures("board_tools")
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


def _unique_label() -> str:
    return f"t{os.getpid()}x{time.monotonic_ns()}"


@pytest.mark.usefixtures("board_tools")
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
    assert qemu_processes_with(label) == []


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


@pytest.mark.usefixtures("board_tools")
@pytest.mark.usefixtures("board")
def test_a_killed_rtscope_leaves_no_qemu():
    label = _unique_label()
    script = (
        f"from rtscope.targets.mcu.qemu_board import QemuBoardTarget; from rtscope.model.request import "
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
    while not qemu_processes_with(label) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert qemu_processes_with(label), "QEMU did not start"
    runner.kill()
    runner.wait()
    deadline = time.monotonic() + 10
    while qemu_processes_with(label) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert qemu_processes_with(label) == []


@pytest.mark.usefixtures("board_tools")
def test_a_run_at_defaults_is_sized_to_instruction_time_and_says_so(rtscope, tmp_path: Path):
    outcome = rtscope("--target", FAST, "run", "tm.basic", "mutex.ops", "--no-store", "--json", tmp_path / "a.json")
    assert outcome.status == 0, outcome.err
    said = [line for line in outcome.err.splitlines() if "sized" in line]
    assert said == [
        (
            f"rtscope: {FAST}: instruction time repeats itself here, so what the request left to the defaults is "
            "sized to what the board delivers: --duration 0.5 s; period 0.1 s, periods 3 for tm.basic (set them to "
            "measure longer)"
        )
    ]
    doc = json.loads((tmp_path / "a.json").read_text())
    assert said[0].removeprefix(f"rtscope: {FAST}: ") in doc["config"]["warnings"]
    params = {bench["id"]: bench["params"] for bench in doc["benches"]}
    assert (params["tm.basic"]["period"], params["tm.basic"]["periods"]) == (0.1, 3)
    assert doc["run"]["argv"][doc["run"]["argv"].index("--duration") + 1] == "0.5"
    # Thread-Metric's checks hold at that size.
    assert all(metric["valid"] for metric in doc["metrics"]), [m.get("invalid_reason") for m in doc["metrics"]]

    # What the user sets is measured as set, and only the rest is sized.
    outcome = rtscope(
        "--target", FAST, "run", "tm.basic", "--param", "period=0.2", "--no-store", "--json", tmp_path / "b.json"
    )
    assert outcome.status == 0, outcome.err
    assert "sized to what the board delivers: periods 3 for tm.basic (set" in outcome.err
    [bench] = json.loads((tmp_path / "b.json").read_text())["benches"]
    assert (bench["params"]["period"], bench["params"]["periods"]) == (0.2, 3)
    outcome = rtscope("--target", FAST, "run", "mutex.ops", "--duration", "0.3", "--no-store")
    assert outcome.status == 0, outcome.err
    assert "sized" not in outcome.err


def test_a_sized_duration_is_never_shorter_than_the_series_window():
    """The probe refuses a series window longer than the run: a duration left to the sizing keeps the one
    given."""
    at_defaults = dataclasses.replace(request("lat.wakeup", duration_s=5.0), duration_given=False)
    sized, _ = qemu_board.sized_for_instruction_time(at_defaults, [], [])
    assert sized.duration_s == qemu_board.SIZED_DURATION_S
    longer = dataclasses.replace(at_defaults, series_window_s=2.0)
    sized, said = qemu_board.sized_for_instruction_time(longer, [], [])
    assert (sized.duration_s, sized.series_window_s) == (2.0, 2.0) and "--duration 2 s" in said


@pytest.mark.usefixtures("board_tools")
def test_the_series_window_reaches_the_boards_probe(rtscope, tmp_path: Path):
    outcome = rtscope(
        "--target", FAST, "run", "lat.wakeup", "--series-window", "0.8", "--no-store", "--json", tmp_path / "w.json"
    )
    assert outcome.status == 0, outcome.err
    [metric] = [m for m in json.loads((tmp_path / "w.json").read_text())["metrics"] if m["id"] == "lat.wakeup"]
    assert metric["series"]["window_s"] == 0.8  # not the probe's 1 s; the duration sized to it
    assert max(v for v in metric["series"]["max"] if v is not None) == metric["stats"]["max"]


@pytest.mark.usefixtures("board_tools")
def test_a_run_longer_than_a_few_seconds_shows_its_progress(rtscope, monkeypatch: pytest.MonkeyPatch):
    # A second of guest time at one instruction a nanosecond is several seconds of emulation; the line is
    # asked for sooner than usual, so that a faster machine shows it too.
    monkeypatch.setattr(qemu_machine, "PROGRESS_AFTER_S", 1.0)
    outcome = rtscope("--target", SPEC, "run", "mutex.ops", "--duration", "1", "--no-store")
    assert outcome.status == 0, outcome.err
    lines = [line for line in outcome.err.splitlines() if line.startswith(f"rtscope: {SPEC}: guest time ")]
    # Not a terminal: a log gets a line now and then, not one a second.
    assert len(lines) == 1, outcome.err
    assert re.fullmatch(rf"rtscope: {SPEC}: guest time \d+\.\d s of 1\.0 s, .* \(\d+:\d\d so far\)", lines[0])


@pytest.mark.usefixtures("board_tools")
def test_on_a_terminal_the_progress_line_redraws_itself_around_the_console(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(qemu_machine, "PROGRESS_AFTER_S", 1.0)
    leader, follower = os.openpty()
    with open(follower, "w", encoding="utf-8") as terminal, monkeypatch.context() as patch:
        patch.setattr(sys, "stderr", terminal)
        QemuBoardTarget(SPEC).run(request("mutex.ops", "sem.ops", duration_s=0.5))
    shown = b""
    with contextlib.suppress(OSError):  # the terminal is read to its end
        while chunk := os.read(leader, 65536):
            shown += chunk
    os.close(leader)
    text = shown.decode()
    assert "\r\x1b[Krtscope: qemu:mps2-an385:freertos: guest time " in text
    # The console's lines stay whole: the line is taken away before each and drawn again after it.
    assert "rtscope-probe: sem.ops for 0.50 s\r\n" in text and "sem.signal " in text
    assert re.search(r"so far\)(?!\r\x1b\[K)", text) is None, text
    # Nothing of it is left at the end: its last drawing is taken away (at the end, or before the console's
    # last line when no redraw came after it).
    assert text.rfind("\r\x1b[K") > text.rfind("\r\x1b[Krtscope: "), text
