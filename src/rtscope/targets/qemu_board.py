"""An RTOS on an emulated microcontroller board: ``qemu:mps2-an385:freertos``.

rtscope builds the probe's FreeRTOS image for the board (``make -C probe PORT=freertos BOARD=…``, the
kernel from $FREERTOS_KERNEL or ../shared/vendor/FreeRTOS-Kernel beside the repository) and boots it
under QEMU with instruction counting: the request travels as the semihosting command line (each
argument percent-encoded, since QEMU joins them with spaces), the board's UART is the probe's console
(copied to rtscope's stderr), the result comes back as a file written through semihosting, and the
guest's exit status is QEMU's. Every run is bounded in time: QEMU is stopped when it outlives it.

Time on this target is instruction time: one instruction every 2^shift ns, exception entry and memory
waits free. The shift is 0 by default, as for the Linux guests (rtscope.targets.qemu): a nanosecond is an
instruction on both, so that their figures compare. The board's clock counts 40 ns, 40 instructions at
shift 0; ``:shift=5`` (32 ns an instruction, near the AN385's 25 MHz) resolves about one. Reruns of one
image give the same figures to the bit; only the run id differs (it is drawn from the host's
/dev/urandom, so that the store can hold both).
"""

import contextlib
import functools
import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rtscope import files, paths
from rtscope.errors import ProbeError, RtscopeError
from rtscope.model import result
from rtscope.model.catalogue import Catalogue, parse_bench_list
from rtscope.model.request import RunRequest
from rtscope.targets import Nowhere, facts, local, qemu_machine, worker
from rtscope.targets.transport import Completed, Process

# One instruction a nanosecond, as the Linux guests count (rtscope.targets.qemu); at most QEMU's 10.
DEFAULT_ICOUNT_SHIFT = 0
MAX_ICOUNT_SHIFT = 10
# The status the image exits with when the guest faults (board.c): neither the probe's nor QEMU's own.
GUEST_FAULT_STATUS = 3
# coreutils timeout's status when it stopped QEMU.
TIMEOUT_STATUS = 124
# QEMU's and the build's bounds, beyond the request's own time.
BOOT_ALLOWANCE_S = 60
BUILD_TIMEOUT_S = 900
# Wall-clock seconds allowed per 10^9 guest instructions: TCG with -icount runs this board at about
# 140 million instructions a second on this shared 2-CPU machine; this is a bound, not an estimate.
WALL_S_PER_GIGA_INSTRUCTION = 60

EMULATOR = "qemu-system-arm"
# The boards rtscope can boot, their OS and QEMU machine: (board, os) -> QEMU's -M.
BOARDS = {("mps2-an385", "freertos"): "mps2-an385"}
_SAFE_ARG_BYTES = re.compile(rb"[A-Za-z0-9_./:=+@^-]")


class QemuBoardTarget:
    """FreeRTOS on QEMU's mps2-an385 (Cortex-M3): the probe image built here, booted per request."""

    def __init__(self, spec: str, *, kernel: Path | None = None, probe_dir: Path | None = None):
        board, os_name, self.shift = _parse(spec)
        self.name = spec
        self.board = board
        self.machine = BOARDS[(board, os_name)]
        self.transport = BoardTransport(spec)
        self.probe_dir = probe_dir or paths.REPO_DIR / "probe"
        self.kernel = kernel or _kernel_path(os.environ, self.probe_dir)
        self.build_dir = self.probe_dir / "build" / f"freertos-{board}"
        self.image = self.build_dir / "rtscope-probe"

    def record(self) -> dict[str, Any]:
        """Emulated hardware on instruction time, with what makes a run repeatable: QEMU's version, the
        instruction rate, the image's hash, the kernel it was built from."""
        image = self._image
        return {
            "name": self.name,
            "kind": "qemu",
            "time_base": "instructions",
            "detail": {
                "emulator": f"{EMULATOR} {qemu_machine.version(EMULATOR)}".strip(),
                "machine": self.machine,
                "board": self.board,
                # Said as the Linux guests say it: result.ns_per_instruction reads the shift from it.
                "clock": f"-icount shift={self.shift},sleep=off",
                "time": (
                    f"instruction time: one instruction every {2**self.shift} ns; exception entry and "
                    "memory waits cost nothing"
                ),
                "image_sha256": hashlib.sha256(image.read_bytes()).hexdigest(),
                "freertos_kernel": str(self.kernel),
            },
        }

    @functools.cached_property
    def catalogue(self) -> Catalogue:
        """What the image lists, booted once for it."""
        with files.private_dir("rtscope-qemu-") as directory:
            completed = subprocess.run(
                self._command(["list", "--json"], BOOT_ALLOWANCE_S, console="stdio"),
                cwd=directory,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                check=False,
            )
        console = completed.stdout.decode(errors="replace")
        if completed.returncode != 0:
            why = worker.last_line(console + completed.stderr.decode(errors="replace"))
            raise ProbeError(f"{self.name}: list failed: {why or f'exit status {completed.returncode}'}")
        return parse_bench_list(console, f"{self.name} list --json")

    def load_place(self) -> Nowhere:
        """Nowhere: the board runs the probe's image and nothing beside it."""
        return Nowhere("it runs only the probe's image, with no shell or processes beside it")

    def run(self, request: RunRequest) -> result.Result:
        """Boot the image on ``request``, written to result.json in a directory of its own (QEMU's
        working directory: the path the probe records is the same on every rerun)."""
        guest_s = qemu_machine.request_guest_s(request, self.catalogue.benches, self.catalogue.suites)
        instructions = guest_s * 1e9 / 2**self.shift
        timeout_s = round(BOOT_ALLOWANCE_S + WALL_S_PER_GIGA_INSTRUCTION * instructions / 1e9)
        started = qemu_machine.utc_now()
        with files.private_dir("rtscope-qemu-") as directory:
            # The console streams to rtscope's stderr, as a local probe's diagnostics do.
            command = self._command(
                ["run", *request.probe_args(), "--json", "result.json"], timeout_s, console="file:/dev/stderr"
            )
            status, last_line, _ = worker.run(command, cwd=directory)
            output_path = Path(directory) / "result.json"
            output = output_path.read_bytes() if output_path.is_file() else b""
        if status == TIMEOUT_STATUS:
            raise ProbeError(f"{self.name}: the guest did not finish within {timeout_s:g} s (QEMU stopped)")
        if status == GUEST_FAULT_STATUS:
            raise ProbeError(f"{self.name}: {last_line or 'the guest faulted'}")
        if status == 0 and not output and "terminating on signal" in last_line:
            raise KeyboardInterrupt  # Ctrl-C stopped QEMU; the guest cannot be asked to write what it has
        measured = local.read_outcome(status, last_line, output)
        return result.from_doc(qemu_machine.on_host_clock(measured.doc, started), "the board's result")

    @functools.cached_property
    def _image(self) -> Path:
        """The image for this board, built (or brought up to date) by the probe's Makefile, once per
        target."""
        if not (self.kernel / "tasks.c").is_file():
            raise RtscopeError(
                f"no FreeRTOS kernel at {self.kernel} (set FREERTOS_KERNEL to a FreeRTOS-Kernel checkout)"
            )
        if shutil.which("arm-none-eabi-gcc") is None:
            raise RtscopeError(
                "arm-none-eabi-gcc not found (apt-get install gcc-arm-none-eabi "
                "libnewlib-arm-none-eabi, or run setup.sh)"
            )
        make = [
            "make",
            "-s",
            "-C",
            str(self.probe_dir),
            "PORT=freertos",
            f"BOARD={self.board}",
            f"FREERTOS_KERNEL={self.kernel}",
        ]
        try:
            completed = subprocess.run(
                make, stdin=subprocess.DEVNULL, capture_output=True, timeout=BUILD_TIMEOUT_S, check=False
            )
        except subprocess.TimeoutExpired:
            raise RtscopeError(f"building the {self.board} image took longer than {BUILD_TIMEOUT_S} s") from None
        if completed.returncode != 0 or not self.image.is_file():
            why = worker.last_line(completed.stderr.decode(errors="replace")) or f"exit status {completed.returncode}"
            raise RtscopeError(f"cannot build the {self.board} image: {why}")
        return self.image

    def _command(self, args: list[str], timeout_s: float, *, console: str) -> list[str]:
        """QEMU booting the image on ``args``, its UART on ``console``, stopped (TERM, then KILL) once
        it outlives ``timeout_s``."""
        qemu = shutil.which(EMULATOR)
        if qemu is None:
            raise RtscopeError(
                f"{self.name}: {EMULATOR} is not installed (Debian: apt install "
                f"{qemu_machine.emulator_package(EMULATOR)}, or run setup.sh)"
            )
        return bounded(
            qemu_argv(qemu, self.machine, self._image, ["rtscope-probe", *args], console=console, shift=self.shift),
            timeout_s,
        )

    def probe_system(self) -> dict[str, Any]:
        """What the image knows of the board, booted on ``system``: its console is the answer
        (rtscope.targets.facts.read_system)."""
        with files.private_dir("rtscope-qemu-") as directory:
            booted = subprocess.run(
                self._command(["system"], BOOT_ALLOWANCE_S, console="stdio"),
                cwd=directory,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                check=False,
            )
        return facts.read_system(Completed(booted.returncode, booted.stdout, booted.stderr), self.name)


class BoardTransport:
    """The emulated board as a transport: a microcontroller running one program, with no shell, no
    processes and no files of its own, so the loads and the system facts that need them are refused in
    one line instead of running on the host, where they would not disturb the guest (nor, under
    instruction counting, change its figures)."""

    def __init__(self, name: str):
        self.name = name
        self._refusal = f"{name} runs only the probe's image: no commands, processes or files there"

    def run(self, argv: Sequence[str], *, timeout_s: float | None = None) -> Completed:
        raise RtscopeError(f"{self._refusal} (cannot run {argv[0]})")

    def run_streaming(self, argv: Sequence[str]) -> tuple[int, str, bytes]:
        raise RtscopeError(f"{self._refusal} (cannot run {argv[0]})")

    def spawn(self, argv: Sequence[str], log: str) -> Process:
        raise RtscopeError(f"{self._refusal} (cannot start {argv[0]}: loads need a Linux target)")

    def read_file(self, path: str) -> bytes:
        raise FileNotFoundError(path)

    def read_files(self, patterns: Sequence[str]) -> dict[str, bytes | None]:
        return {}

    def temp_dir(self) -> contextlib.AbstractContextManager[str]:
        raise RtscopeError(self._refusal)


def bounded(command: list[str], timeout_s: float) -> list[str]:
    """``command`` under coreutils timeout: TERM after ``timeout_s``, KILL 5 s later. In the foreground,
    so that a Ctrl-C at the terminal still reaches QEMU. Each of the two is killed when its parent ends
    (util-linux setpriv --pdeathsig): a killed rtscope leaves no QEMU behind."""
    die_with_parent = ["setpriv", "--pdeathsig", "KILL"]
    return [*die_with_parent, "timeout", "--foreground", "--kill-after=5", f"{timeout_s:g}", *die_with_parent, *command]


def qemu_argv(qemu: str, machine: str, image: Path, argv: list[str], *, console: str, shift: int) -> list[str]:
    """QEMU booting ``image`` on ``machine`` with ``argv`` as the semihosting command line, under
    deterministic instruction counting (an instruction every 2^shift ns, no sleeping to catch up with
    real time), the board's UART on ``console`` (a QEMU character device: stdio, file:PATH) and nothing
    else: no display, no monitor, no default devices. The board's own Ethernet controller, which the probe
    never uses, is given a user network that reaches nothing (restrict=on, no IPv6 router adverts), or
    QEMU warns that it has no peer."""
    return [
        qemu,
        "-M",
        machine,
        "-nodefaults",
        "-nic",
        "user,restrict=on,ipv6=off,model=lan9118",
        "-display",
        "none",
        "-monitor",
        "none",
        "-serial",
        console,
        "-icount",
        f"shift={shift},align=off,sleep=off",
        "-semihosting-config",
        "enable=on,target=native," + ",".join(f"arg={encode_arg(a)}" for a in argv),
        "-kernel",
        str(image),
    ]


def encode_arg(arg: str) -> str:
    """``arg`` percent-encoded for the board's command line (board.c decodes it): QEMU joins arguments
    with spaces and reads commas as its own separators, so every byte outside a plain set is %XX."""
    return "".join(chr(byte) if _SAFE_ARG_BYTES.fullmatch(bytes([byte])) else f"%{byte:02X}" for byte in arg.encode())


def names_a_board(spec: str) -> bool:
    """Whether the --target value ``spec`` ("qemu:NAME:…") names one of these boards rather than a Linux
    guest's architecture."""
    parts = spec.split(":")
    return len(parts) > 1 and parts[1] in {board for board, _ in BOARDS}


def _parse(spec: str) -> tuple[str, str, int]:
    """(board, os, shift) of "qemu:BOARD:OS[:shift=N]"; RtscopeError naming what there is."""
    usage = "expected " + " or ".join(f"qemu:{board}:{os_name}[:shift=N]" for board, os_name in BOARDS)
    parts = spec.split(":")
    if len(parts) not in (3, 4) or parts[0] != "qemu" or (parts[1], parts[2]) not in BOARDS:
        raise RtscopeError(f"unknown QEMU board {spec!r} ({usage})")
    shift = DEFAULT_ICOUNT_SHIFT
    if len(parts) == 4:
        key, _, value = parts[3].partition("=")
        if key != "shift" or not value.isdigit() or int(value) > MAX_ICOUNT_SHIFT:
            raise RtscopeError(f"--target {spec}: {parts[3]!r} is not shift=N with N 0..{MAX_ICOUNT_SHIFT} ({usage})")
        shift = int(value)
    return parts[1], parts[2], shift


def _kernel_path(env: Any, probe_dir: Path) -> Path:
    """$FREERTOS_KERNEL, else the vendored kernel beside the repository (probe/Makefile's default)."""
    if env.get("FREERTOS_KERNEL"):
        return Path(env["FREERTOS_KERNEL"]).resolve()
    return (probe_dir / ".." / ".." / "shared" / "vendor" / "FreeRTOS-Kernel").resolve()
