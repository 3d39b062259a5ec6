"""Debian's Linux kernels in QEMU: ``--target qemu:ARCH:FLAVOUR[:cpus=N][:memory=MIB][:time=host]``.

ARCH is x86_64 or aarch64, FLAVOUR stock (``linux-image-amd64``/``-arm64``) or rt (``linux-image-rt-…``,
PREEMPT_RT). The kernel is Debian's own package, fetched and kept by rtscope.targets.qemu.debian_packages;
the initramfs is rtscope's: Debian's busybox-static for that architecture, the static probe
(rtscope.targets.probes), an init and the job it runs.

**One boot per job.** The guest boots, its init runs the job — the probe's run, or any command the
transport is asked to run — with its output in files, then writes each file on the console as a framed
block (a header with its size and sha256, base64, an end line) and powers off. Nothing comes from the
host while the guest runs: the measurement and everything before it depend only on the images and the
machine's arguments.

**Deterministic by default** (``time=icount``): TCG with ``-icount shift=0,sleep=off`` (the guest's
clock advances one nanosecond per instruction and jumps over idle time), a virtual-time RTC from a fixed
date, no address-space randomisation (``nokaslr norandmaps``), no devices but the console. Two runs of
the same request give identical metrics, in instruction time on emulated hardware, not hardware
latencies: the result's time base says so (``instructions``). ``time=host`` runs the guest on the host's
clock instead (noisy: its time base is ``emulated``).

Faults end in one line, QEMU stopped and its directory removed (rtscope.targets.qemu.machine): a kernel
that panics, a guest that hangs past its time budget, a missing download, a result block that fails its
checksum.
"""

import base64
import contextlib
import functools
import hashlib
import lzma
import re
import secrets
import shlex
import struct
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtscope import files
from rtscope.errors import RtscopeError, did_you_mean
from rtscope.model import result
from rtscope.model.catalogue import Catalogue
from rtscope.model.request import RunRequest
from rtscope.targets import InGuest, facts, options, probes, worker
from rtscope.targets.local import kept_catalogue, read_outcome
from rtscope.targets.qemu import debian_packages, guest_modules
from rtscope.targets.qemu import machine as qemu_machine
from rtscope.targets.registry import DEFAULT_MEMORY_MIB, MAX_CPUS
from rtscope.targets.registry import GUEST_OPTIONS as OPTIONS
from rtscope.targets.registry import GUEST_USAGE as USAGE
from rtscope.targets.transport import Completed, Process, glob_script, parse_globbed, read_with_cat

# Each flavour's kernel metapackage, by Debian architecture (the registry's GUEST_FLAVOURS, which the usage
# names, and tests/test_targets.py holds to these).
FLAVOURS = {"stock": "linux-image-{debarch}", "rt": "linux-image-rt-{debarch}"}
# The guest's wall clock starts here in every boot: a fixed date, so that nothing depends on today's.
RTC_BASE = "2026-01-01T00:00:00"
GUEST_PROBE = "/rtscope/rtscope-probe"
# rtscope's kernel module (rtscope.targets.qemu.guest_modules), when a request names one of wave.square's
# kernel generators or a load needs it (hold).
KERNEL_MODULE = "rtscope/rtscope_wave.ko"
# Host time allowed for a boot and power-off, and per second of guest time a job asks for: TCG runs the
# guest's CPUs in turn, tens of times slower than the hardware it emulates when they are busy.
BOOT_BUDGET_S = 120.0
SLOWDOWN = 60.0
_MARK = "RTSCOPE-FRAME"
# What the init writes on the console as the job starts: the guest time a run asked for counts from there.
_JOB_STARTS = f"{_MARK} job"
_PARTS = ("status", "stdout", "stderr")
# Where a job leaves more files for the host: each comes back framed like its output.
GUEST_OUT = "/tmp/out"

# The guest's init: mounts, the job with its output in files, each file framed on the console, power off.
_INIT = f"""#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin HOME=/tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
ip link set lo up 2>/dev/null
mkdir -p /tmp/out /tmp/work && cd /tmp/work
# High-resolution timers start once the kernel trusts its clocksource (x86: after the TSC's refined
# calibration, about a second in); a job started before would wake on the tick. At most 10 s of guest
# time (idle under -icount's sleep=off: no wall time), for a kernel built without them.
i=0
while grep -q "hres_active *: 0" /proc/timer_list 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
echo "{_JOB_STARTS}"
sh /rtscope/job </dev/null >/tmp/out/stdout 2>/tmp/out/stderr
echo $? >/tmp/out/status
cd /tmp/out
for part in *; do
    echo "{_MARK} $part $(wc -c <$part) $(sha256sum <$part | cut -d' ' -f1)"
    base64 $part
    echo "{_MARK} end"
done
echo "{_MARK} done"
poweroff -f
"""


@dataclass(frozen=True)
class Arch:
    """What a guest architecture needs: Debian's name for it, the emulator, the machine, the console, how
    many CPUs it has by default and at most under -icount, and whether its kernel boots by its PVH entry."""

    debarch: str
    emulator: str
    machine: tuple[str, ...]
    console: str
    default_cpus: int
    icount_max_cpus: int
    pvh: bool = False


# The registry's GUEST_ARCHES, which the usage names (tests/test_targets.py holds them to these).
ARCHES = {
    # QEMU 7.2's x86 TCG under -icount hangs bringing up a second CPU ("x86: Booting SMP configuration"
    # and nothing after, with qemu64, max, Nehalem or Haswell): one CPU there.
    # pvh: a bzImage decompresses itself in the guest, some 6 s of a 17 s boot under TCG; the kernel inside it
    # boots straight by its PVH entry (pvh_vmlinux), with the same code from there on.
    "x86_64": Arch("amd64", "qemu-system-x86_64", ("-M", "pc", "-cpu", "qemu64"), "ttyS0", 1, 1, pvh=True),
    # dtb-randomness=off: the virt machine otherwise hands the kernel a new random seed in its device tree
    # every boot, and two runs' metrics differ.
    "aarch64": Arch(
        "arm64", "qemu-system-aarch64", ("-M", "virt,dtb-randomness=off", "-cpu", "cortex-a57"), "ttyAMA0", 2, MAX_CPUS
    ),
}


@dataclass(frozen=True)
class Spec:
    """A parsed ``qemu:`` target value."""

    text: str
    arch: str
    flavour: str
    cpus: int
    memory_mib: int = DEFAULT_MEMORY_MIB
    time: str = "icount"


def parse_spec(text: str) -> Spec:
    """``qemu:ARCH:FLAVOUR[:cpus=N][:memory=MIB][:time=icount|host]`` as a Spec; RtscopeError naming
    the known architectures, flavours or options otherwise."""
    fields = text.split(":")
    if len(fields) < 3 or fields[0] != "qemu":
        raise options.refuse(text, "no ARCH:FLAVOUR", USAGE)
    arch, flavour = fields[1], fields[2]
    if arch not in ARCHES:
        raise options.refuse(text, f"unknown architecture {arch!r}{did_you_mean(arch, list(ARCHES))}", USAGE)
    if flavour not in FLAVOURS:
        raise options.refuse(text, f"unknown flavour {flavour!r}{did_you_mean(flavour, list(FLAVOURS))}", USAGE)
    settings = options.parse(text, fields[3:], OPTIONS, USAGE)
    cpus = settings["cpus"] or ARCHES[arch].default_cpus
    spec = Spec(text, arch, flavour, cpus, settings["memory"], settings["time"])
    if spec.time == "icount" and spec.cpus > ARCHES[arch].icount_max_cpus:
        raise RtscopeError(
            f"--target {text}: {arch} guests have at most {ARCHES[arch].icount_max_cpus} CPU under "
            f"-icount (QEMU's x86 TCG hangs bringing up a second one); time=host allows more"
        )
    return spec


class Guest:
    """The images a spec boots (fetched on first use) and how to boot them with one job."""

    def __init__(self, spec: Spec):
        self.spec = spec
        self.arch = ARCHES[spec.arch]

    @functools.cached_property
    def kernel(self) -> tuple[debian_packages.Package, Path]:
        """The kernel package and its vmlinuz."""
        package = debian_packages.fetch(
            self.arch.debarch, FLAVOURS[self.spec.flavour].format(debarch=self.arch.debarch)
        )
        boot = debian_packages.extract(package, ("./boot",)) / "boot"
        images = sorted(boot.glob("vmlinuz-*"))
        if not images:
            raise RtscopeError(f"{self.spec.text}: {package.name} has no /boot/vmlinuz-*")
        return package, images[0]

    @functools.cached_property
    def boot_image(self) -> Path:
        """What QEMU boots: the kernel's vmlinux by its PVH entry where the architecture takes it and the
        image holds one, else the package's vmlinuz."""
        vmlinuz = self.kernel[1]
        return (pvh_vmlinux(vmlinuz) if self.arch.pvh else None) or vmlinuz

    @functools.cached_property
    def busybox(self) -> tuple[debian_packages.Package, Path]:
        """Debian's busybox-static for the guest's architecture and its executable."""
        package = debian_packages.fetch(self.arch.debarch, "busybox-static")
        return package, debian_packages.extract(package, ("./bin",)) / "bin" / "busybox"

    @functools.cached_property
    def probe(self) -> Path:
        """The static probe for the guest's architecture."""
        return probes.probe_for(self.spec.arch)

    @functools.cached_property
    def emulator_version(self) -> str:
        return qemu_machine.version(self.arch.emulator)

    def record(self) -> dict[str, Any]:
        """What the result keeps of the machine and its software; the machine type and CPU model QEMU
        emulates by themselves, to name the system by (the guest's hostname is "(none)", and an arm64
        guest's /proc/cpuinfo names no model)."""
        machine = dict(zip(self.arch.machine[::2], self.arch.machine[1::2], strict=True))
        return {
            "emulator": f"{self.arch.emulator} {self.emulator_version}".strip(),
            "machine": " ".join(self.arch.machine),
            "emulated_machine": machine["-M"].split(",")[0],
            "emulated_cpu": machine["-cpu"],
            "cpus": self.spec.cpus,
            "memory_mib": self.spec.memory_mib,
            "clock": "-icount shift=0,sleep=off" if self.spec.time == "icount" else "host clock (noisy)",
            "kernel_package": self.kernel[0].record(),
            "busybox_package": self.busybox[0].record(),
        }

    def boot(self, argv: Sequence[str], timeout_s: float) -> Completed:
        """Boot, run ``argv`` in the guest (as root, from a scratch directory), power off; how it ended.

        RtscopeError in one line when the guest panics, hangs past ``timeout_s``, QEMU fails, or the
        output does not come back whole.
        """
        return completed(self.spec.text, self.boot_files(argv, timeout_s))

    def boot_files(
        self,
        argv: Sequence[str],
        timeout_s: float,
        extra: dict[str, tuple[bytes, int]] | None = None,
        asked_s: float | None = None,
    ) -> dict[str, bytes]:
        """Like :meth:`boot`, with ``extra`` files in the initramfs (path: (content, mode)): the job's
        status, stdout and stderr, and every file it left in GUEST_OUT, by name. ``asked_s``: the guest
        time the job asks for, which the progress line counts down."""
        name = self.spec.text
        plan = None if asked_s is None else qemu_machine.Plan(asked_s, start=_JOB_STARTS.encode())
        with qemu_machine.Machine(self.arch.emulator, name, 1.0 if self.spec.time == "icount" else None) as machine:
            initrd = machine.directory / "initramfs.cpio"
            initrd.write_bytes(
                initramfs(
                    {
                        "init": (_INIT.encode(), 0o755),
                        "bin/busybox": (self.busybox[1].read_bytes(), 0o755),
                        GUEST_PROBE.lstrip("/"): (self.probe.read_bytes(), 0o755),
                        "rtscope/job": (f"exec {shlex.join(argv)}\n".encode(), 0o644),
                        **(extra or {}),
                    }
                )
            )
            machine.start(self._qemu_args(self.boot_image, initrd))
            ending = machine.run(timeout_s, done=lambda serial: f"{_MARK} done".encode() in serial, plan=plan)
        parts = frames(ending.serial)
        if not set(_PARTS) <= set(parts) or f"{_MARK} done".encode() not in ending.serial:
            raise RtscopeError(f"{name}: {failure(ending, timeout_s)}")
        return parts

    def _qemu_args(self, kernel: Path, initrd: Path) -> list[str]:
        cmdline = f"console={self.arch.console} quiet loglevel=1 panic=-1 oops=panic nokaslr norandmaps rdinit=/init"
        clock = (
            ["-icount", "shift=0,sleep=off", "-rtc", f"base={RTC_BASE},clock=vm"]
            if self.spec.time == "icount"
            else ["-rtc", "base=utc"]
        )
        return [
            *self.arch.machine,
            "-accel",
            "tcg",
            "-smp",
            str(self.spec.cpus),
            "-m",
            str(self.spec.memory_mib),
            "-nodefaults",
            "-no-reboot",
            *clock,
            "-kernel",
            str(kernel),
            "-initrd",
            str(initrd),
            "-append",
            cmdline,
        ]


# Xen's ELF note of a 32-bit physical entry point: what QEMU's x86 machines boot a vmlinux by.
_XEN_ELFNOTE_PHYS32_ENTRY = 18


def pvh_vmlinux(bzimage: Path) -> Path | None:
    """The vmlinux inside an x86 ``bzimage`` (its xz payload, decompressed once and kept beside it as
    ``NAME.pvh``), or None when the image is not a bzImage with such a payload or its kernel has no PVH
    entry note (CONFIG_PVH): then the bzImage is booted as it is."""
    kept = bzimage.with_name(f"{bzimage.name}.pvh")
    if kept.exists():
        return kept
    image = bzimage.read_bytes()
    # The boot protocol's header (Documentation/arch/x86/boot.rst): "HdrS" at 0x202, version 2.08 or
    # later for payload_offset and payload_length, which count from the protected-mode code.
    if image[0x202:0x206] != b"HdrS" or struct.unpack_from("<H", image, 0x206)[0] < 0x208:
        return None
    setup_sectors = image[0x1F1] or 4
    offset, length = struct.unpack_from("<II", image, 0x248)
    start = (setup_sectors + 1) * 512 + offset
    payload = image[start : start + length]
    if not payload.startswith(b"\xfd7zXZ\x00"):
        return None
    try:
        # The kernel's build appends the decompressed size after the xz stream: data the decoder leaves.
        vmlinux = lzma.LZMADecompressor(lzma.FORMAT_XZ).decompress(payload)
    except lzma.LZMAError:
        return None
    if not _has_pvh_entry(vmlinux):
        return None
    files.keep(kept, vmlinux)
    return kept


def _has_pvh_entry(elf: bytes) -> bool:
    """Whether a 64-bit little-endian ELF's notes hold Xen's physical entry point."""
    if elf[:6] != b"\x7fELF\x02\x01":
        return False
    (program_headers,) = struct.unpack_from("<Q", elf, 0x20)
    size, count = struct.unpack_from("<HH", elf, 0x36)
    for number in range(count):
        kind, _, file_offset, _, _, file_size = struct.unpack_from("<IIQQQQ", elf, program_headers + number * size)
        if kind != 4:  # PT_NOTE
            continue
        at, end = file_offset, file_offset + file_size
        while at + 12 <= end:
            name_size, description_size, note = struct.unpack_from("<III", elf, at)
            name = elf[at + 12 : at + 12 + name_size].rstrip(b"\0")
            if name == b"Xen" and note == _XEN_ELFNOTE_PHYS32_ENTRY:
                return True
            at += 12 + (name_size + 3) // 4 * 4 + (description_size + 3) // 4 * 4
    return False


def completed(name: str, files: dict[str, bytes]) -> Completed:
    """The job's exit status, stdout and stderr among the files a boot handed back."""
    try:
        status = int(files["status"].decode().strip())
    except ValueError:
        raise RtscopeError(f"{name}: the guest's exit status is not a number") from None
    return Completed(status, files["stdout"], files["stderr"])


def initramfs(files: dict[str, tuple[bytes, int]]) -> bytes:
    """A newc cpio archive of ``files`` (path: (content, mode)), with the directories they need and a
    /dev/console node (the kernel opens it for init before anything is mounted). Every timestamp and
    owner is 0, so the same files give the same bytes."""
    entries: list[tuple[str, int, bytes, int]] = [("dev", 0o40755, b"", 0), ("dev/console", 0o20600, b"", 0x501)]
    for directory in ("proc", "sys", "tmp"):
        entries.append((directory, 0o40755, b"", 0))
    seen = {"dev", "proc", "sys", "tmp"}
    for path in sorted(files):
        parent = ""
        for part in path.split("/")[:-1]:
            parent = f"{parent}/{part}" if parent else part
            if parent not in seen:
                seen.add(parent)
                entries.append((parent, 0o40755, b"", 0))
        content, mode = files[path]
        entries.append((path, 0o100000 | mode, content, 0))
    archive = bytearray()
    for number, (path, mode, content, device) in enumerate([*entries, ("TRAILER!!!", 0, b"", 0)], start=1):
        name = path.encode() + b"\0"
        fields = (number, mode, 0, 0, 1, 0, len(content), 0, 0, device >> 8, device & 0xFF, len(name), 0)
        archive += b"070701" + b"".join(f"{field:08X}".encode() for field in fields) + name
        archive += b"\0" * (-len(archive) % 4) + content
        archive += b"\0" * (-len(archive) % 4)
    return bytes(archive)


def frames(serial: bytes) -> dict[str, bytes]:
    """The files the guest's init framed on the console, by name: those whose size and sha256 match
    (a block garbled by a kernel message is left out)."""
    found: dict[str, bytes] = {}
    lines = serial.replace(b"\r", b"").split(b"\n")
    header = re.compile(rf"{_MARK} ([\w.-]+) (\d+) ([0-9a-f]{{64}})".encode())
    for number, line in enumerate(lines):
        match = header.fullmatch(line.strip())
        if not match:
            continue
        body = []
        for following in lines[number + 1 :]:
            if following.strip() == f"{_MARK} end".encode():
                break
            body.append(following.strip())
        with contextlib.suppress(ValueError):
            content = base64.b64decode(b"".join(body), validate=True)
            if len(content) == int(match[2]) and hashlib.sha256(content).hexdigest().encode() == match[3]:
                found[match[1].decode()] = content
    return found


def failure(ending: qemu_machine.Ending, timeout_s: float) -> str:
    """Why a boot gave no output back, in words."""
    text = ending.serial.replace(b"\r", b"").decode(errors="replace")
    panic = next((line.strip() for line in text.splitlines() if "Kernel panic" in line), "")
    if panic:
        return f"the guest's kernel panicked ({panic[panic.index('Kernel panic') :]})"
    if ending.why == "timeout":
        return f"the guest did not finish within {timeout_s:g} s (hung?): QEMU stopped"
    if ending.why == "qemu failed":
        return f"QEMU failed: {ending.said or f'exit status {ending.status}'}"
    if f"{_MARK} done" in text:
        return "the guest's output came back garbled (a block failed its checksum)"
    last = worker.last_line(text)
    return "the guest powered off without handing back its output" + (f" (last words: {last})" if last else "")


class QemuTransport:
    """A QEMU guest reached one boot per command: run, read_file and read_files each boot the guest.
    Background processes and scratch directories do not outlive a boot, so spawn and temp_dir refuse."""

    def __init__(self, guest: Guest):
        self.guest = guest
        self.name = guest.spec.text

    def run(self, argv: Sequence[str], *, timeout_s: float | None = None) -> Completed:
        return self.guest.boot(argv, BOOT_BUDGET_S + (timeout_s or 0.0))

    def run_streaming(self, argv: Sequence[str]) -> tuple[int, str, bytes]:
        raise RtscopeError(
            f"{self.name}: a QEMU guest hands a command's output back when it powers off, not as it comes"
        )

    def spawn(self, argv: Sequence[str], log: str) -> Process:
        raise RtscopeError(f"{self.name}: a QEMU guest runs one command per boot; {argv[0]} cannot run beside it")

    def read_file(self, path: str) -> bytes:
        return read_with_cat(self, path, timeout_s=0)

    def read_files(self, patterns: Sequence[str]) -> dict[str, bytes | None]:
        token = secrets.token_hex(16)
        return parse_globbed(self.run(["sh", "-c", glob_script(), "sh", token, *patterns]).stdout, token)

    def read_files_and_run(
        self, patterns: Sequence[str], commands: Sequence[Sequence[str]], *, timeout_s: float
    ) -> tuple[dict[str, bytes | None], list[Completed]]:
        """:meth:`read_files` and each command in turn, in one boot (rtscope.targets.facts.OneJobTransport):
        the files' listing on the job's stdout, each command's output and status in files of GUEST_OUT."""
        token = secrets.token_hex(16)
        script = [shlex.join(["sh", "-c", glob_script(), "sh", token, *patterns])]
        for index, argv in enumerate(commands):
            out = f"{GUEST_OUT}/command{index}"
            script.append(f"{shlex.join(argv)} >{out}.stdout 2>{out}.stderr </dev/null; echo $? >{out}.status")
        files = self.guest.boot_files(["sh", "-c", "\n".join(script)], BOOT_BUDGET_S + timeout_s * (1 + len(commands)))
        outcomes = []
        for index in range(len(commands)):
            name = f"command{index}"
            parts = {part: files.get(f"{name}.{part}") for part in _PARTS}
            if any(content is None for content in parts.values()):
                raise RtscopeError(f"{self.name}: the guest handed back no outcome of {commands[index][0]}")
            outcomes.append(completed(self.name, {part: content or b"" for part, content in parts.items()}))
        return parse_globbed(files["stdout"], token), outcomes

    def temp_dir(self) -> contextlib.AbstractContextManager[str]:
        raise RtscopeError(f"{self.name}: a QEMU guest keeps no files from one boot to the next")


class QemuTarget:
    """Runs the static probe in a Debian kernel's QEMU guest, one boot per run."""

    def __init__(self, spec_text: str):
        self.spec = parse_spec(spec_text)
        self.name = spec_text
        self.guest = Guest(self.spec)
        self.transport = QemuTransport(self.guest)
        self.cpus = self.spec.cpus
        self.out_dir = GUEST_OUT
        # The probe's system, run in the boot that reads the other facts (rtscope.targets.facts.gather).
        self.system_argv = (GUEST_PROBE, "system")

    @functools.cached_property
    def catalogue(self) -> Catalogue:
        """What the guest's probe lists, asked in a boot once per build."""
        return kept_catalogue(self.transport, GUEST_PROBE, probes.identity(self.guest.probe), self.name)

    def load_place(self) -> InGuest:
        """In the guest, by its shell around the probe: nothing else outlives a boot."""
        return InGuest(self)

    def record(self) -> dict[str, Any]:
        """The guest, in instruction time (or the host's noisy clock with time=host), and its machine."""
        return {
            "name": self.name,
            "kind": "qemu",
            "time_base": "instructions" if self.spec.time == "icount" else "emulated",
            "detail": self.guest.record(),
        }

    def run(self, request: RunRequest) -> result.Result:
        """Boot, run the probe on ``request``, power off: :meth:`run_with` with nothing around it."""
        return self.run_with(request, "", "", 0.0)[0]

    def run_with(
        self, request: RunRequest, before: str, after: str, guest_s: float, *, kernel_module: bool = False
    ) -> tuple[result.Result, dict[str, bytes]]:
        """Boot and run the probe on ``request`` between the shell text ``before`` and ``after`` (loads
        started and stopped in the guest; ``guest_s`` more seconds of guest time they take), then power
        off: its result, and the files the shell text left in GUEST_OUT. The guest's run id and clock are
        its own (the same in every boot), so the probe is given an id from here (what it prints is what is
        stored) and the result gets the host's start and end times."""
        started = qemu_machine.utc_now()
        run_id = secrets.token_hex(8)
        argv = [GUEST_PROBE, "run", *request.probe_args(), "--run-id", run_id, "--json", "-"]
        wave_models = self._wave_models(request)
        if wave_models:  # loaded before the probe starts: see probe/kmod/rtscope_wave.c
            before = f"insmod /{KERNEL_MODULE} || exit 1\n{before}"
        module = self._kernel_module() if wave_models or kernel_module else {}
        script = f"{before}\n{shlex.join(argv)}\nstatus=$?\n{after}\nexit $status\n"
        asked = qemu_machine.request_guest_time(request, self.catalogue.benches, self.catalogue.suites)
        files = self.guest.boot_files(
            ["sh", "-c", script],
            BOOT_BUDGET_S + SLOWDOWN * (asked.bound_s + guest_s),
            module,
            asked.asked_s + guest_s,
        )
        job = completed(self.name, files)
        said = job.stderr.decode(errors="replace")
        sys.stderr.write(said)
        run_result = read_outcome(job.status, worker.last_line(said), job.stdout)
        doc = qemu_machine.on_host_clock(run_result.doc, started)
        if doc["run"]["id"] != run_id:
            raise RtscopeError(
                f"{self.name}: the guest's probe ran as {doc['run']['id']}, not as {run_id} it was given"
            )
        return result.from_doc(doc, "the guest's result"), files

    @staticmethod
    def _wave_models(request: RunRequest) -> bool:
        """Whether the request names one of wave.square's kernel models."""
        return any(setting.key == "model" and setting.value.startswith("kmod-") for setting in request.params)

    def _kernel_module(self) -> dict[str, tuple[bytes, int]]:
        """rtscope's kernel module for the guest's kernel and its loaders (the wave's generators, the
        load hold), as files of the boot."""
        module = guest_modules.module_for(self.spec.arch, self.guest.kernel[0])
        return {
            KERNEL_MODULE: (module.read_bytes(), 0o644),
            **{f"bin/{loader.name}": (loader.read_bytes(), 0o755) for loader in guest_modules.LOADERS},
        }

    def probe_system(self) -> dict[str, Any]:
        """What the probe knows of the guest, in a boot of its own (rtscope.targets.facts.probe_system)."""
        return facts.probe_system(self.transport, GUEST_PROBE, self.name)
