"""--target qemu:ARCH:FLAVOUR: the spec, the initramfs and the framing of the guest's output, the QEMU
process's bounds (rtscope.targets.qemu.machine), reading a file through a target's shell, and — marked
``kernels``, since the first run downloads Debian's kernels into ~/.cache/rtscope/debian — real boots of
each architecture and flavour, the determinism of two runs, a guest that panics and one that hangs."""

import base64
import dataclasses
import hashlib
import json
import lzma
import os
import re
import shutil
import struct
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import Outcome, slow_fixture
from rtscope.analysis import spikes
from rtscope.errors import RtscopeError
from rtscope.loads import guest, kinds
from rtscope.model import result
from rtscope.model.catalogue import Bench, Param, Suite
from rtscope.model.request import RunRequest
from rtscope.model.values import ParamSetting
from rtscope.targets import make_target
from rtscope.targets.qemu import machine as qemu_machine
from rtscope.targets.qemu.debian import QemuTarget, frames, initramfs, parse_spec, pvh_vmlinux
from rtscope.targets.transport import LocalTransport, read_with_cat
from support import builders


def _frame(name: str, content: bytes) -> bytes:
    return (
        f"RTSCOPE-FRAME {name} {len(content)} {hashlib.sha256(content).hexdigest()}\r\n".encode()
        + base64.encodebytes(content).replace(b"\n", b"\r\n")
        + b"RTSCOPE-FRAME end\r\n"
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("qemu:riscv64:rt", "unknown architecture 'riscv64' (expected qemu:x86_64|aarch64:stock|rt["),
        ("qemu:aarch64:lowlatency", "unknown flavour 'lowlatency' (expected qemu:x86_64|aarch64:stock|rt["),
        ("qemu:aarch64", "no ARCH:FLAVOUR (expected qemu:"),
        ("qemu:aarch64:rt:cpus=99", "cpus=99 is not a whole number from 1 to 8"),
        ("qemu:aarch64:rt:cpus=2:cpus=1", "cpus is given twice"),
        ("qemu:aarch64:rt:colour=red", "no option 'colour'"),
        ("qemu:x86_64:rt:cpus=2", "x86_64 guests have at most 1 CPU under -icount"),
    ],
)
def test_bad_specs_are_refused_in_one_line(spec: str, message: str) -> None:
    with pytest.raises(RtscopeError, match=re.escape(message)):
        parse_spec(spec)


def test_spec_defaults_and_options() -> None:
    assert (parse_spec("qemu:aarch64:rt").cpus, parse_spec("qemu:x86_64:stock").cpus) == (2, 1)
    spec = parse_spec("qemu:x86_64:stock:cpus=2:time=host:memory=512")
    assert (spec.cpus, spec.time, spec.memory_mib) == (2, "host", 512)
    target = make_target("qemu:aarch64:rt", Path("unused"))
    assert isinstance(target, QemuTarget)


def test_an_unknown_architecture_exits_2_with_one_line(rtscope: Callable[..., Outcome]) -> None:
    outcome = rtscope("--target", "qemu:mips:rt", "list")
    assert outcome.status == 2
    assert outcome.err.strip().splitlines() == [
        (
            "rtscope: --target qemu:mips:rt: unknown architecture 'mips' "
            "(expected qemu:x86_64|aarch64:stock|rt[:cpus=N][:memory=MIB][:time=icount|host])"
        )
    ]


@pytest.mark.skipif(shutil.which("cpio") is None, reason="cpio is not installed")
def test_initramfs_is_a_reproducible_newc_archive(tmp_path: Path) -> None:
    files = {"init": (b"#!/bin/sh\n", 0o755), "rtscope/job": (b"exec true\n", 0o644)}
    archive = initramfs(files)
    assert archive == initramfs(files)
    listed = subprocess.run(["cpio", "-itv"], input=archive, capture_output=True, check=True).stdout.decode()
    names = [line.split()[-1] for line in listed.splitlines()]
    assert names == ["dev", "dev/console", "proc", "sys", "tmp", "init", "rtscope", "rtscope/job"]
    assert listed.splitlines()[1].startswith("crw-------")
    subprocess.run(["cpio", "-id", "--quiet"], input=archive, cwd=tmp_path, check=True)
    assert (tmp_path / "rtscope" / "job").read_bytes() == b"exec true\n"


def _elf_with_a_note(owner: bytes, kind: int) -> bytes:
    """A 64-bit ELF of one PT_NOTE segment holding one note."""
    note = struct.pack("<III", len(owner) + 1, 4, kind) + owner + b"\0" * (4 - len(owner) % 4) + b"\1\0\0\0"
    header = (
        b"\x7fELF\x02\x01\x01" + bytes(9) + struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, 0, 64, 0, 0, 64, 56, 1, 0, 0, 0)
    )
    segment = struct.pack("<IIQQQQQQ", 4, 4, 64 + 56, 0, 0, len(note), len(note), 4)
    return header + segment + note


def _bzimage(payload: bytes) -> bytes:
    """An x86 boot image of one setup sector, boot protocol 2.15, whose payload is ``payload``."""
    setup = bytearray(1024)
    setup[0x1F1] = 1
    setup[0x202:0x208] = b"HdrS" + struct.pack("<H", 0x20F)
    struct.pack_into("<II", setup, 0x248, 16, len(payload))
    return bytes(setup) + bytes(16) + payload + bytes(32)


def test_an_x86_kernel_boots_by_the_pvh_entry_of_the_vmlinux_inside_its_bzimage(tmp_path: Path) -> None:
    vmlinux = _elf_with_a_note(b"Xen", 18)
    bzimage = tmp_path / "vmlinuz-6.1.0-x"
    # The kernel's build puts the decompressed size after the xz stream.
    bzimage.write_bytes(_bzimage(lzma.compress(vmlinux, format=lzma.FORMAT_XZ) + struct.pack("<I", len(vmlinux))))
    kept = pvh_vmlinux(bzimage)
    assert kept == tmp_path / "vmlinuz-6.1.0-x.pvh" and kept.read_bytes() == vmlinux
    bzimage.write_bytes(b"changed")  # kept: not decompressed again
    assert pvh_vmlinux(bzimage) == kept
    assert sorted(path.name for path in tmp_path.iterdir()) == ["vmlinuz-6.1.0-x", "vmlinuz-6.1.0-x.pvh"]


@pytest.mark.parametrize(
    "image",
    [
        _bzimage(lzma.compress(_elf_with_a_note(b"Linux", 18), format=lzma.FORMAT_XZ)),  # no Xen entry note
        _bzimage(lzma.compress(_elf_with_a_note(b"Xen", 17), format=lzma.FORMAT_XZ)),  # another Xen note
        _bzimage(b"\x1f\x8b" + bytes(100)),  # a gzip payload
        _bzimage(b"\xfd7zXZ\x00" + bytes(100)),  # a damaged xz stream
        b"MZ" + bytes(2000),  # not a bzImage
    ],
    ids=["no-entry-note", "other-note", "gzip", "damaged", "not-a-bzimage"],
)
def test_a_kernel_without_a_pvh_vmlinux_boots_as_its_image(tmp_path: Path, image: bytes) -> None:
    bzimage = tmp_path / "vmlinuz"
    bzimage.write_bytes(image)
    assert pvh_vmlinux(bzimage) is None
    assert [path.name for path in tmp_path.iterdir()] == ["vmlinuz"]


def test_frames_keep_only_whole_blocks() -> None:
    serial = (
        b"[    0.1] booting\r\n"
        + _frame("stdout", b'{"a": 1}\n' * 40)
        + _frame("stderr", b"")
        + _frame("status", b"0\n").replace(b"MAo=", b"MQo=")
        + b"RTSCOPE-FRAME done\r\n"
    )
    found = frames(serial)
    assert found == {"stdout": b'{"a": 1}\n' * 40, "stderr": b""}  # status failed its checksum


def qemu_processes_with(text: str) -> list[str]:
    """The pids of the QEMU processes with ``text`` in an argument (a word unique to one machine)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if any(b"qemu-system-" in arg for arg in argv) and any(text.encode() in arg for arg in argv):
            found.append(cmdline.parent.name)
    return found


@pytest.mark.slow
def test_machine_reports_qemu_failure_and_removes_its_directory() -> None:
    with qemu_machine.Machine("qemu-system-aarch64", "test", None) as machine:
        directory = machine.directory
        machine.start(["-M", "virt", "-kernel", "/nonexistent"])
        ending = machine.run(30)
    assert (ending.why, ending.status) == ("qemu failed", 1)
    assert "could not load kernel '/nonexistent'" in ending.said
    assert not directory.exists()


@pytest.mark.slow
def test_machine_stops_a_guest_that_never_ends() -> None:
    with qemu_machine.Machine("qemu-system-aarch64", "test", None) as machine:
        machine.start(["-M", "virt", "-cpu", "cortex-a57"])  # no kernel: the CPU idles forever
        # Its command line can read empty for a moment as it starts (setpriv turning into QEMU).
        deadline = time.monotonic() + 10
        while not qemu_processes_with(str(machine.serial_path)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert qemu_processes_with(str(machine.serial_path)), "QEMU did not start"
        ending = machine.run(1.0)
        assert ending.why == "timeout"
        assert qemu_processes_with(str(machine.serial_path)) == []


def test_a_missing_emulator_is_one_line() -> None:
    with (
        qemu_machine.Machine("qemu-system-nonesuch", "qemu:nonesuch:rt", None) as machine,
        pytest.raises(
            RtscopeError, match="qemu-system-nonesuch is not installed .Debian: apt install qemu-system-nonesuch."
        ),
    ):
        machine.start([])


# Real boots: Debian's kernels, downloaded on first use (a few hundred MB) and kept in ~/.cache/rtscope.

SHORT = RunRequest(benches=("lat.wakeup",), duration_s=0.2, policy="fifo", priority=80)
# The aarch64 guests boot in seconds: they also read the kernel's timerlat tracer.
WITH_TIMERLAT = dataclasses.replace(SHORT, benches=("lat.wakeup", "lat.timerlat"))
SPECS = ("qemu:x86_64:stock", "qemu:x86_64:rt", "qemu:aarch64:stock", "qemu:aarch64:rt")


@slow_fixture(scope="module")
def short_runs() -> dict[str, dict]:
    """One short run per architecture and flavour (on aarch64 with lat.timerlat too, at seed 1), and on
    aarch64 stock a second at seed 1 ("again") and one at seed 2 ("seed 2")."""
    seeded = dataclasses.replace(WITH_TIMERLAT, seed=1)
    runs = {spec: QemuTarget(spec).run(seeded if "aarch64" in spec else SHORT).doc for spec in SPECS}
    stock = QemuTarget("qemu:aarch64:stock")
    runs["again"] = stock.run(seeded).doc
    runs["seed 2"] = stock.run(dataclasses.replace(seeded, seed=2)).doc
    return runs


@pytest.mark.kernels
@pytest.mark.parametrize("spec", SPECS)
def test_each_kernel_boots_and_measures(short_runs: dict[str, dict], spec: str) -> None:
    doc = short_runs[spec]
    flavour = spec.split(":")[2]
    wakeup = next(metric for metric in doc["metrics"] if metric["id"] == "lat.wakeup")
    assert wakeup["valid"] and wakeup["stats"]["count"] > 100
    # The job started with the guest's high-resolution timers running (x86: after the TSC's calibration),
    # not on the tick.
    assert doc["timing"]["sleep_granularity_ns"] is None
    assert doc["system"]["realtime_kernel"] is (flavour == "rt")
    assert ("-rt-" in doc["system"]["kernel_release"]) is (flavour == "rt")
    target = QemuTarget(spec).record()
    assert (target["kind"], target["time_base"]) == ("qemu", "instructions")
    assert target["detail"]["kernel_package"].startswith("linux-image-6.")


@pytest.mark.kernels
def test_two_runs_give_identical_metrics(short_runs: dict[str, dict]) -> None:
    first, second = short_runs["qemu:aarch64:stock"], short_runs["again"]
    assert first["run"]["id"] != second["run"]["id"]
    # The guest's probe ran under the id stored (given with --run-id), so the id it printed is that one; any
    # id costs the same instructions, so the figures repeat bit for bit.
    for doc in (first, second):
        argv = doc["run"]["argv"]
        assert argv[argv.index("--run-id") + 1] == doc["run"]["id"]
    assert (first["timing"]["cycle_counter_kind"], first["timing"]["cycle_counter_hz"]) == ("timer", 62_500_000)
    assert json.dumps(first["metrics"]) == json.dumps(second["metrics"])


@pytest.mark.kernels
def test_a_seed_moves_the_wake_ups_against_the_tick(short_runs: dict[str, dict]) -> None:
    """Seeds 1 and 2 start lat.wakeup at other phases, and its figures differ (the tail: where a wake-up
    meets the tick); seed 1 twice gives the same metrics to the bit (test_two_runs_give_identical_metrics)."""
    first, other = short_runs["qemu:aarch64:stock"], short_runs["seed 2"]
    assert [doc["benches"][0]["phase_ns"] for doc in (first, other)] == [8_000_056, 2_495_282]
    assert json.dumps(first["metrics"]) != json.dumps(other["metrics"])


@pytest.mark.kernels
def test_timerlat_is_read_where_the_kernel_has_it(short_runs: dict[str, dict]) -> None:
    rt = short_runs["qemu:aarch64:rt"]
    assert [bench["status"] for bench in rt["benches"]] == ["ok", "ok"]
    for metric_id in ("lat.timerlat.irq", "lat.timerlat.thread"):
        metric = next(metric for metric in rt["metrics"] if metric["id"] == metric_id)
        assert metric["valid"] and metric["stats"]["count"] > 100, metric["invalid_reason"]
        assert metric["checks"]["timerlat"] is True and metric["checks"]["lost_events"] == 0
    stock = next(bench for bench in short_runs["qemu:aarch64:stock"]["benches"] if bench["id"] == "lat.timerlat")
    assert stock["status"] == "skipped" and short_runs["qemu:aarch64:stock"]["run"]["status"] == "complete"
    assert stock["error"].startswith("the kernel has no timerlat tracer (its tracers: ")


# rtscope's known culprit (the load hold) against lat.wakeup on the CPU it holds, every trace kept: 500 us
# every 20.25 ms, so that the holds drift across the 1 ms grid of wake-ups instead of always missing it.
CULPRIT = RunRequest(
    benches=("lat.wakeup",),
    duration_s=0.5,
    policy="fifo",
    priority=80,
    cpus=(0,),
    params=tuple(
        ParamSetting(None, key, value)
        for key, value in (("threshold_us", "150"), ("trace", "each"), ("trace_limit", "4"))
    ),
)


@pytest.mark.kernels
@pytest.mark.parametrize(
    ("spec", "what", "late_part"),
    [("qemu:aarch64:stock", "irqs", "to_wakeup_ns"), ("qemu:aarch64:rt", "preempt", "to_running_ns")],
)
def test_the_trace_names_a_known_culprit_and_its_duration(spec: str, what: str, late_part: str) -> None:
    load = kinds.parse([f"hold:what={what}:us=500:every_us=20250"])
    run_result, [hold] = guest.measure(QemuTarget(spec), CULPRIT, load, 0.3)
    assert hold.commands == [["rtscope-kmod-hold", what, "500", "20250", "0", "0"]] and hold.ended_early == []
    metric = run_result.doc["metrics"][0]
    assert metric["checks"]["traced_spikes"] == len(metric["spikes"]) >= 2
    for spike in held_by_the_culprit(metric):
        # Interrupts off: the wake-up itself came late. Preemption off: it came on time, the switch late.
        assert getattr(spike, late_part) > spike.late_ns / 2


def held_by_the_culprit(metric: dict) -> list[spikes.Explanation]:
    """The metric's spikes the trace blames on rtscope-hold, its 500 us run read within 10 %: at least two,
    and most of them. Not every one: the guest's kernel has spikes of its own over the threshold (a 146 us
    timer interrupt on the rt guest, where the holds' drift across the wake-ups left it one)."""
    explained = [spikes.explain(spike) for spike in metric["spikes"]]
    held = [spike for spike in explained if spike.culprit and spike.culprit.what.startswith("rtscope-hold (pid ")]
    assert len(held) >= 2 and len(held) * 4 >= len(explained) * 3, [spike.culprit for spike in explained]
    for spike in held:
        assert spike.culprit is not None and 450_000 <= spike.culprit.ran_ns <= 550_000
    return held


# lat.timerlat against the culprit on the rt guest (the kernel with the tracer): the kernel stops its own trace at a
# thread sample over the threshold; interrupts held off make the IRQ's sample late, and the trace goes on that metric.
TIMERLAT_CULPRIT = dataclasses.replace(CULPRIT, benches=("lat.timerlat",))


@pytest.mark.kernels
@pytest.mark.parametrize("hold", ["what=irqs", "what=fifo:prio=99"], ids=["irqs", "fifo-above-timerlat"])
def test_timerlat_names_a_known_culprit_and_loses_no_sample(hold: str) -> None:
    # A fifo hold at its default 90 never delays timerlat's own thread (SCHED_FIFO 95): prio=99 puts it above.
    run_result, [load] = guest.measure(
        QemuTarget("qemu:aarch64:rt"), TIMERLAT_CULPRIT, kinds.parse([f"hold:{hold}:us=500:every_us=20250"]), 0.3
    )
    assert load.ended_early == []
    irq, thread = run_result.doc["metrics"]
    if hold == "what=irqs":
        # Interrupts held off make the IRQ's sample late: the trace goes on that metric.
        assert irq["checks"]["traced_spikes"] == len(irq["spikes"]) >= 2 and thread["checks"]["traced_spikes"] == 0
        for spike in held_by_the_culprit(irq):
            assert spike.to_wakeup_ns is not None and spike.to_wakeup_ns > spike.late_ns / 2
            assert spike.timerlat is not None and spike.timerlat.irq_ns == spike.late_ns
    else:
        # The IRQ comes on time and wakes timerlat/0; the hold, above it, runs first.
        assert thread["checks"]["traced_spikes"] == len(thread["spikes"]) >= 2 and irq["checks"]["traced_spikes"] == 0
        for spike in held_by_the_culprit(thread):
            assert spike.culprit is not None and spike.culprit.what.endswith(", RT 99)")
            assert spike.to_running_ns is not None and spike.to_running_ns > spike.late_ns / 2
    # Every activation is a sample, or counted apart while the kernel's stop held the trace.
    for metric in (irq, thread):
        checks = metric["checks"]
        assert metric["valid"] and checks["lost_events"] == 0 and checks["trace_skipped"] > 0
        accounted = metric["stats"]["count"] + checks["trace_skipped"]
        assert abs(accounted - checks["expected_activations"]) <= 0.03 * checks["expected_activations"] + 2


def test_the_culprit_is_a_guest_load_only() -> None:
    [spec] = kinds.parse(["hold:what=fifo"])
    with pytest.raises(RtscopeError, match=r"^load hold: only in rtscope's QEMU guests"):
        spec.kind.commands(spec.values(), kinds.Place("/tmp", 5201, 2))
    with pytest.raises(RtscopeError, match=r"^load hold: us=500 must be shorter than every_us=400$"):
        guest.check(kinds.parse(["hold:every_us=400"]), 2)
    with pytest.raises(RtscopeError, match=r"^load hold: cpu=3, but the guest has 2 CPU\(s\)$"):
        guest.check(kinds.parse(["hold:cpu=3"]), 2)
    with pytest.raises(RtscopeError, match=r"'sometimes' is not irqs, preempt or fifo"):
        kinds.parse(["hold:what=sometimes"])


@pytest.mark.kernels
def test_a_load_runs_inside_the_guest() -> None:
    run_result, loads = guest.measure(QemuTarget("qemu:aarch64:rt"), SHORT, kinds.parse(["sched:groups=1"]), 0.2)
    assert run_result.doc["run"]["status"] == "complete"
    [load] = loads
    assert load.commands == [["sh", "-c", "while :; do /bin/true; done"]]
    assert load.cpus_used is not None and load.cpus_used > 0.05
    assert (load.ended_early, load.left_behind) == ([], 0)


@pytest.mark.kernels
@pytest.mark.parametrize("model", ["kmod-hrtimer", "kmod-kthread"])
def test_a_kernel_module_generator_is_seen_by_the_observer(model: str) -> None:
    request = dataclasses.replace(
        SHORT,
        benches=("wave.square",),
        duration_s=0.3,
        params=(ParamSetting(None, "model", model), ParamSetting(None, "period_us", "1000")),
    )
    doc = QemuTarget("qemu:aarch64:rt").run(request).doc
    assert doc["benches"][0]["status"] == "ok", doc["benches"][0]["error"]
    period = next(metric for metric in doc["metrics"] if metric["id"].startswith("wave.period"))
    assert period["labels"] == {"model": model, "period_us": 1000}
    assert period["valid"] and period["stats"]["count"] > 50


def test_kernel_generators_are_refused_outside_a_guest(probe: Path) -> None:
    said = subprocess.run(
        [str(probe), "run", "wave.square", "--param", "model=kmod-hrtimer", "--duration", "0.1"],
        capture_output=True,
        text=True,
        check=False,
    ).stderr
    assert "model kmod-hrtimer: no rtscope-kmod-wave here: the kernel generators run in rtscope's QEMU guests" in said


@pytest.mark.kernels
def test_a_guest_that_panics_is_one_line_and_leaves_nothing() -> None:
    # This process's machines' directories (rtscope.files.make_private_dir's names): another worker's boots
    # come and go meanwhile.
    mine = f"rtscope-qemu-{os.getpid()}-*"
    before = set(Path(tempfile.gettempdir()).glob(mine))
    target = QemuTarget("qemu:aarch64:stock")
    with pytest.raises(
        RtscopeError,
        match=r"^qemu:aarch64:stock: the guest's kernel panicked \(Kernel panic - "
        r"not syncing: sysrq triggered crash\)$",
    ):
        target.transport.run(["sh", "-c", "echo c >/proc/sysrq-trigger"])
    assert set(Path(tempfile.gettempdir()).glob(mine)) <= before


@pytest.mark.kernels
def test_a_guest_that_hangs_is_stopped_at_its_deadline() -> None:
    target = QemuTarget("qemu:aarch64:stock")
    # The deadline is wall time, and the guest never ends however fast it boots: 3 s of a spinning emulator
    # show the stop as well as a minute would.
    with pytest.raises(RtscopeError, match=r"did not finish within 3 s \(hung\?\): QEMU stopped"):
        target.guest.boot(["sh", "-c", "while :; do :; done"], 3)


class _RecordedGuest:
    """A GuestTarget that hands back recorded snapshots instead of booting: what its shell would leave."""

    name, cpus, out_dir = "qemu:test:rt", 1, "/tmp/out"

    def __init__(self, snapshots: dict[str, str]):
        self.snapshots = snapshots
        self.scripts: list[tuple[str, str]] = []

    def run_with(
        self, request: RunRequest, before: str, after: str, guest_s: float, *, kernel_module: bool = False
    ) -> tuple[result.Result, dict[str, bytes]]:
        self.scripts.append((before, after))
        self.kernel_module = kernel_module
        files = {f"load-{name}": text.encode() for name, text in self.snapshots.items()}
        return result.from_doc(builders.result_doc(), "recorded"), {"load-groups": b"100\n", **files}


def _stat(uptime: float, *processes: tuple[int, str, int, int]) -> str:
    """A snapshot: uptime, an idle loopback, /proc/PID/stat lines (pgrp, state, utime, cutime)."""
    lines = [
        f"{pid} (sh) {state} 1 {pgrp} {pgrp} 0 -1 0 0 0 0 0 {utime} 0 {cutime} 0 20 0 1 0"
        for pid, (pgrp, state, utime, cutime) in enumerate(processes, start=100)
    ]
    return "\n".join(["== uptime", f"{uptime} 0.0", "== net", "  lo: 0 0 0 0 0 0 0 0 0 0", "== stat", *lines])


def test_guest_loads_are_judged_from_the_guests_snapshots() -> None:
    # A shell loop forking programs: its own time is nothing, its reaped children's is 9 ticks a 0.1 s.
    recorded = _RecordedGuest(
        {
            "settle-mid": _stat(1.0, (100, "S", 0, 0)),
            "settle-end": _stat(1.1, (100, "S", 0, 9)),
            "run-start": _stat(1.1, (100, "S", 0, 9)),
            "run-end": _stat(1.6, (100, "S", 1, 52)),
            "stopped": _stat(2.7),
        }
    )
    _, [load] = guest.measure(recorded, SHORT, kinds.parse(["sched:groups=1"]), 0.2)
    assert (load.cpus_used, load.ended_early, load.left_behind) == (0.88, [], 0)
    before, after = recorded.scripts[0]
    assert "setsid sh -c 'while :; do /bin/true; done' >/tmp/loads/0.log 2>&1 &" in before
    assert "kill -TERM -$g" in after and "kill -KILL -$g" in after


def test_a_guest_load_that_did_not_run_is_refused_and_one_that_ended_is_noted() -> None:
    idle = _stat(1.0, (100, "S", 0, 0))
    recorded = _RecordedGuest(
        {
            "settle-mid": idle,
            "settle-end": idle.replace("1.0 0.0", "1.1 0.0"),
            "run-start": idle,
            "run-end": idle,
            "stopped": idle,
        }
    )
    with pytest.raises(
        RtscopeError,
        match=r"^load sched:groups=1 is not really running in the guest: its processes "
        r"used 0 CPUs in the settle time, expected about 1$",
    ):
        guest.measure(recorded, SHORT, kinds.parse(["sched:groups=1"]), 0.2)
    busy = _stat(1.1, (100, "S", 0, 10))
    recorded = _RecordedGuest(
        {
            "settle-mid": idle,
            "settle-end": busy,
            "run-start": busy,
            "run-end": _stat(1.6, (100, "Z", 0, 10)),
            "stopped": _stat(2.7, (100, "S", 0, 10)),
        }
    )
    _, [load] = guest.measure(recorded, SHORT, kinds.parse(["sched:groups=1"]), 0.2)
    assert (load.ended_early, load.left_behind) == (["sh ended before the probe did"], 1)


@pytest.mark.parametrize(
    ("load", "message"),
    [("cpu:load=50", "load cpu: in a guest only load=100"), ("net:bitrate=10M", "load net: in a guest only bitrate=0")],
)
def test_loads_a_guest_cannot_run_are_refused(load: str, message: str) -> None:
    with pytest.raises(RtscopeError, match=message):
        guest.check(kinds.parse([load]), 2)


def test_compare_says_the_figures_are_instruction_time(fake: Callable[..., Outcome], tmp_path: Path) -> None:
    paths = []
    for name, run_id in (("stock", "1111111111111111"), ("rt", "2222222222222222")):
        doc = builders.result_doc(run_id=run_id, benches={"lat.wakeup": 5000.0})
        doc["version"] = 4  # the target came with result format 4, labels too
        doc["metrics"][0]["labels"] = {}
        doc["target"] = {"name": f"qemu:aarch64:{name}", "kind": "qemu", "time_base": "instructions"}
        paths.append(builders.write(tmp_path / f"{name}.json", doc))
    outcome = fake("compare", *paths)
    assert "the figures are instruction time on emulated hardware, not a hardware latency" in outcome.out
    assert (
        "instruction time"
        not in fake(
            "compare",
            builders.write(tmp_path / "a.json", builders.result_doc()),
            builders.write(tmp_path / "b.json", builders.result_doc(run_id="3333333333333333")),
        ).out
    )


def test_a_request_bounds_its_boot_by_each_benchs_own_time():
    """Thread-Metric's benches measure period × periods, whatever --duration says: a boot bounded by the
    duration alone stopped a guest measuring the threadmetric suite midway."""

    def bench(bench_id: str, *params: tuple[str, str]) -> Bench:
        return Bench(
            bench_id, "", (bench_id,), tuple(Param(name, "float", default, 0, 1e6, "") for name, default in params)
        )

    benches = [bench("tm.basic", ("period", "30"), ("periods", "3")), bench("lat.wakeup", ("cpu", "-1"))]
    suites = [Suite("both", "", ("tm.basic", "lat.wakeup"))]
    grace = qemu_machine.PROBE_GRACE_S

    def asked(*params: ParamSetting, grace_s: float | None = None) -> qemu_machine.GuestTime:
        request = RunRequest(("both",), 0.5, "fifo", 80, params=params, grace_s=grace_s)
        return qemu_machine.request_guest_time(request, benches, suites)

    assert asked() == qemu_machine.GuestTime(30 * 3 + 0.5, 1 + 2 * grace)
    assert asked().bound_s == (30 * 3 + 1 + grace) + (0.5 + grace)
    assert asked(ParamSetting("tm.basic", "periods", "2"), grace_s=1).bound_s == (30 * 2 + 1 + 1) + (0.5 + 1)


def test_a_file_read_through_a_shell_says_why_it_could_not_be(tmp_path: Path) -> None:
    """read_with_cat, behind the SSH and QEMU transports' read_file, through this machine's own cat."""
    (tmp_path / "here").write_bytes(b"content\n")
    assert read_with_cat(LocalTransport(), str(tmp_path / "here"), timeout_s=30) == b"content\n"
    with pytest.raises(FileNotFoundError):
        read_with_cat(LocalTransport(), str(tmp_path / "nowhere"), timeout_s=30)
    # Write-only even for root: the kernel refuses to read it.
    with pytest.raises(PermissionError, match=r"^cannot read /proc/sys/vm/drop_caches on local: .*Permission denied"):
        read_with_cat(LocalTransport(), "/proc/sys/vm/drop_caches", timeout_s=30)
    with pytest.raises(OSError, match=rf"^cannot read {tmp_path} on local: .*Is a directory") as raised:
        read_with_cat(LocalTransport(), str(tmp_path), timeout_s=30)
    assert type(raised.value) is OSError


@pytest.mark.kernels
def test_a_guest_reads_a_file_or_says_why_it_could_not() -> None:
    transport = QemuTarget("qemu:aarch64:stock").transport
    with pytest.raises(FileNotFoundError):
        transport.read_file("/nowhere")
    with pytest.raises(PermissionError, match=r"^cannot read /proc/sys/vm/drop_caches on qemu:aarch64:stock: "):
        transport.read_file("/proc/sys/vm/drop_caches")


# Every setting lat.timerlat (and the spike trace's instance) changes, read in the guest before and after its run.
TIMERLAT_SETTINGS = " ".join(
    f"/sys/kernel/tracing/{name}"
    for name in (
        "current_tracer",
        "tracing_on",
        "buffer_size_kb",
        "trace_clock",
        "osnoise/timerlat_period_us",
        "osnoise/cpus",
        "osnoise/stop_tracing_us",
        "osnoise/stop_tracing_total_us",
    )
)


def _unexpanded(settings: str) -> str:
    """The settings read, the top-level ring buffer's size as the number it shows: the kernel allocates the
    buffer at a tracer's first use ("7 (expanded: 1408)" then reads "7"), which no setting written undoes."""
    return re.sub(r" \(expanded: \d+\)", "", settings)


TRACED_TIMERLAT = dataclasses.replace(
    SHORT,
    benches=("lat.timerlat",),
    rt_throttling_off=True,
    params=(
        ParamSetting(None, "period_us", "500"),
        ParamSetting(None, "trace", "each"),
        ParamSetting(None, "threshold_us", "1"),
    ),
)


@pytest.mark.kernels
def test_timerlat_puts_every_tracer_setting_back() -> None:
    """Set (a period of its own, the CPUs, the kernel's stop, the instance) and put back as they were."""

    def read(name: str) -> str:
        return (
            f"for f in {TIMERLAT_SETTINGS}; do echo $f: $(cat $f); done > /tmp/out/{name}\n"
            f"ls /sys/kernel/tracing/instances >> /tmp/out/{name}\n"
            f"cat /proc/sys/kernel/sched_rt_runtime_us >> /tmp/out/{name}"
        )

    run_result, files = QemuTarget("qemu:aarch64:rt").run_with(TRACED_TIMERLAT, read("before"), read("after"), 0.0)
    assert [bench["status"] for bench in run_result.doc["benches"]] == ["ok"], run_result.doc["benches"]
    assert run_result.doc["metrics"][0]["checks"]["period_us"] == 500
    before, after = (_unexpanded(files[name].decode()) for name in ("before", "after"))
    assert before == after
    assert "timerlat_period_us: 1000" in after and "current_tracer: nop" in after
