"""An RTOS on an emulated microcontroller board: ``qemu:mps2-an385:freertos``, ``qemu:mps2-an385:threadx``.

rtscope builds the probe's image of that kernel for the board (``make -C probe PORT=freertos|threadx
BOARD=…``, against the user's checkout of the kernel: rtscope.targets.kernels) and boots it under QEMU
with instruction counting: the request travels as the semihosting command line (each
argument percent-encoded, since QEMU joins them with spaces), the board's UART is the probe's console
(copied to rtscope's stderr), the result comes back as a file written through semihosting, and the
guest's exit status is QEMU's. QEMU runs as every QEMU machine does (rtscope.targets.qemu.machine):
bounded in time, stopped when it outlives it, on Ctrl-C and with rtscope.

Instruction time repeats itself here: a Thread-Metric period counts the same iterations as the one
before (to within 2 in 100,000) and an operation costs the same instructions every time, so long
measurements buy nothing but emulation time. What a request leaves to the defaults — Thread-Metric's
period and periods, the duration of the others — is sized to what the board delivers (SIZED_*), said in
one line and kept in the result's warnings; what the user sets is measured as set.

``:mcu=small`` boots the probe's microcontroller build instead (``make … MCU=small``: at most 128 KiB of
flash, code and data's first values, and 48 KiB of RAM, the suites micro, threadmetric and latency; docs/rtos.md), built apart.

Time on this target is instruction time: one instruction every 2^shift ns, exception entry and memory
waits free. The shift is 0 by default, as for the Linux guests (rtscope.targets.qemu.debian): a nanosecond is an
instruction on both, so that their figures compare. The board's clock counts 40 ns, 40 instructions at
shift 0; ``:shift=5`` (32 ns an instruction, near the AN385's 25 MHz) resolves about one. Reruns of one
image give the same figures to the bit; only the run id differs (it is drawn from the host's
/dev/urandom, so that the store can hold both).
"""

import contextlib
import dataclasses
import functools
import hashlib
import re
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rtscope.errors import ProbeError, RtscopeError
from rtscope.model import result
from rtscope.model.catalogue import Bench, Catalogue, Suite, parse_bench_list
from rtscope.model.request import RunRequest
from rtscope.model.values import ParamSetting, exact
from rtscope.targets import Nowhere, facts, kernels, local, options, probes, worker
from rtscope.targets.qemu import machine as qemu_machine
from rtscope.targets.registry import BOARD_OPTIONS as OPTIONS
from rtscope.targets.registry import BOARD_USAGE as USAGE
from rtscope.targets.registry import BOARDS, BUILD_CONFIGS
from rtscope.targets.transport import Completed, Process

# The status the image exits with when the guest faults (board.c): neither the probe's nor QEMU's own.
GUEST_FAULT_STATUS = 3
# QEMU's bound beyond the request's own time.
BOOT_ALLOWANCE_S = 60
# Wall-clock seconds allowed per 10^9 guest instructions: TCG with -icount runs this board at about
# 140 million instructions a second on this shared 2-CPU machine; this is a bound, not an estimate.
WALL_S_PER_GIGA_INSTRUCTION = 60

EMULATOR = "qemu-system-arm"


# The CPU of each QEMU machine of the registry's BOARDS, which QEMU's -M implies.
MACHINE_CPUS = {"mps2-an385": "Cortex-M3"}
_SAFE_ARG_BYTES = re.compile(rb"[A-Za-z0-9_./:=+@^-]")
# What a request leaves to the defaults, sized to instruction time: Thread-Metric's period and periods
# (3 periods, Thread-Metric's own number, so that the counts show they repeat; 0.1 s holds about 10^4 to
# 10^6 iterations of each test, and every check of theirs held there) and the duration of the others
# (an operation of hundreds of instructions is then timed thousands of times and more).
SIZED_PERIOD_S = 0.1
SIZED_PERIODS = 3
SIZED_DURATION_S = 0.5


class QemuBoardTarget:
    """An RTOS (FreeRTOS, ThreadX) on QEMU's mps2-an385 (Cortex-M3): the probe image built here, booted per
    request."""

    def __init__(self, spec: str):
        parsed = _parse(spec)
        self.name = spec
        self.board = parsed.board
        self.os_name = parsed.os
        self.shift = parsed.options["shift"]
        self.config = parsed.options["config"]
        self.mcu = parsed.options["mcu"]
        self.machine = BOARDS[(parsed.board, parsed.os)]
        self.transport = BoardTransport(spec)
        self.kernel = kernels.KERNELS[parsed.os]
        self.image = image_path(parsed.os, parsed.board, self.config, mcu=self.mcu)

    def record(self) -> dict[str, Any]:
        """Emulated hardware on instruction time, with what makes a run repeatable: QEMU's version, the
        instruction rate, the image's hash, the kernel it was built from."""
        image = self._image
        named = kernels.named(self.os_name)
        return {
            "name": self.name,
            "kind": "qemu",
            "time_base": "instructions",
            "detail": {
                "emulator": f"{EMULATOR} {qemu_machine.version(EMULATOR)}".strip(),
                "machine": self.machine,
                "board": self.board,
                # The system's name in show, compare and report (rtscope.render.cells).
                "emulated_machine": self.machine,
                "emulated_cpu": MACHINE_CPUS[self.machine],
                # Said as the Linux guests say it: result.ns_per_instruction reads the shift from it.
                "clock": f"-icount shift={self.shift},sleep=off",
                "time": (
                    f"instruction time: one instruction every {2**self.shift} ns; exception entry and "
                    "memory waits cost nothing"
                ),
                "image_sha256": hashlib.sha256(image.read_bytes()).hexdigest(),
                # The user's checkout the image was built from (its identity: system.os_config).
                **({f"{self.os_name}_kernel": str(named.path)} if named else {}),
                # The kernel's configuration (docs/rtos.md); the image's own manifest is system.os_config.
                "config": self.config,
                # The probe's microcontroller build (make MCU=…), where the spec asked for it.
                **({"mcu": self.mcu} if self.mcu else {}),
            },
        }

    @functools.cached_property
    def catalogue(self) -> Catalogue:
        """What the image lists, booted once for it."""
        ending = self._boot(["list", "--json"], BOOT_ALLOWANCE_S)[0]
        if ending.why != "powered off":
            raise ProbeError(f"{self.name}: list failed: {_why(ending, BOOT_ALLOWANCE_S)}")
        return parse_bench_list(ending.serial.decode(errors="replace"), f"{self.name} list --json")

    def load_place(self) -> Nowhere:
        """Nowhere: the board runs the probe's image and nothing beside it."""
        return Nowhere("it runs only the probe's image, with no shell or processes beside it")

    def run(self, request: RunRequest) -> result.Result:
        """Boot the image on ``request`` (what it leaves to the defaults sized to instruction time), written
        to result.json in QEMU's working directory (the path the probe records is the same on every
        rerun)."""
        request, sized = sized_for_instruction_time(request, self.catalogue.benches, self.catalogue.suites)
        if sized:
            print(f"rtscope: {self.name}: {sized}", file=sys.stderr, flush=True)
        guest = qemu_machine.request_guest_time(request, self.catalogue.benches, self.catalogue.suites)
        instructions = guest.bound_s * 1e9 / 2**self.shift
        timeout_s = round(BOOT_ALLOWANCE_S + WALL_S_PER_GIGA_INSTRUCTION * instructions / 1e9)
        started = qemu_machine.utc_now()
        ending, output = self._boot(
            ["run", *request.probe_args(), "--json", "result.json"], timeout_s, qemu_machine.Plan(guest.asked_s)
        )
        if ending.why == "timeout":
            raise ProbeError(f"{self.name}: {_why(ending, timeout_s)}")
        assert ending.status is not None  # QEMU ended by itself, with the guest's exit status
        last_line = _last_words(ending)
        if ending.status == GUEST_FAULT_STATUS:
            raise ProbeError(f"{self.name}: {last_line or 'the guest faulted'}")
        measured = local.read_outcome(ending.status, last_line, output)
        doc = qemu_machine.on_host_clock(measured.doc, started)
        if sized:
            doc["config"] = dict(doc["config"], warnings=[*doc["config"]["warnings"], sized])
        return result.from_doc(doc, "the board's result")

    def probe_system(self) -> dict[str, Any]:
        """What the image knows of the board, booted on ``system``: its console is the answer
        (rtscope.targets.facts.read_system)."""
        ending = self._boot(["system"], BOOT_ALLOWANCE_S)[0]
        if ending.why != "powered off":
            raise ProbeError(f"{self.name}: system failed: {_why(ending, BOOT_ALLOWANCE_S)}")
        return facts.read_system(Completed(0, ending.serial, b""), self.name)

    def _boot(
        self, args: list[str], timeout_s: float, plan: qemu_machine.Plan | None = None
    ) -> tuple[qemu_machine.Ending, bytes]:
        """Boot the image on the probe's ``args``, its console copied to rtscope's stderr when there is a
        ``plan`` (a run), for at most ``timeout_s``: how it ended, and the result.json it left."""
        image = self._image
        with qemu_machine.Machine(EMULATOR, self.name, 2**self.shift) as machine:
            machine.start(qemu_args(self.machine, image, ["rtscope-probe", *args], shift=self.shift))
            ending = machine.run(timeout_s, plan=plan, echo=plan is not None)
            output_path = machine.directory / "result.json"
            return ending, output_path.read_bytes() if output_path.is_file() else b""

    @functools.cached_property
    def _image(self) -> Path:
        """The image for this board, built (or brought up to date) once per target."""
        return build_image(self.os_name, self.board, self.config, mcu=self.mcu)


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


def sized_for_instruction_time(
    request: RunRequest, benches: list[Bench], suites: list[Suite]
) -> tuple[RunRequest, str]:
    """``request`` with what it leaves to the defaults sized to instruction time (SIZED_*): the duration
    when the user gave none, each reporting bench's (Thread-Metric's) period and periods that no --param
    sets. With it, what was sized in one line ("" when nothing was)."""
    members = {suite.id: suite.benches for suite in suites}
    bench_ids = [bench_id for name in request.benches for bench_id in members.get(name, (name,))]
    reporting = [bench_id for bench_id in bench_ids if qemu_machine.reporting_periods(request, bench_id, benches)]
    said, params = [], list(request.params)
    duration_s = request.duration_s
    if not request.duration_given and len(reporting) < len(bench_ids):
        # Never shorter than a series window given: the probe refuses a window longer than the run.
        duration_s = max(SIZED_DURATION_S, request.series_window_s or 0.0)
        said.append(f"--duration {exact(duration_s)} s")
    open_keys: dict[str, list[str]] = {}  # bench: its period settings left open
    for bench_id in reporting:
        given = {setting.key for setting in request.params if setting.applies_to(bench_id)}
        open_keys[bench_id] = [key for key in ("period", "periods") if key not in given]
    sizes = {"period": exact(SIZED_PERIOD_S), "periods": exact(SIZED_PERIODS)}
    params += [ParamSetting(bench_id, key, sizes[key]) for bench_id, keys in open_keys.items() for key in keys]
    for keys in dict.fromkeys(tuple(keys) for keys in open_keys.values() if keys):
        sized_here = [bench_id for bench_id, open_here in open_keys.items() if tuple(open_here) == keys]
        setting = ", ".join(f"{key} {sizes[key]}{' s' if key == 'period' else ''}" for key in keys)
        said.append(f"{setting} for {', '.join(sized_here)}")
    if not said:
        return request, ""
    return dataclasses.replace(request, duration_s=duration_s, params=tuple(params)), (
        "instruction time repeats itself here, so what the request left to the defaults is sized to what "
        f"the board delivers: {'; '.join(said)} (set them to measure longer)"
    )


def _why(ending: qemu_machine.Ending, timeout_s: float) -> str:
    """Why a boot ended as it did, in a line: stopped at its deadline, else its last words, else its exit
    status."""
    if ending.why == "timeout":
        return f"the guest did not finish within {timeout_s:g} s (QEMU stopped)"
    return _last_words(ending) or f"exit status {ending.status}"


def _last_words(ending: qemu_machine.Ending) -> str:
    """QEMU's own last line on its stderr (why it failed), else the guest's last line on its console."""
    return ending.said or worker.last_line(ending.serial.decode(errors="replace"))


def qemu_args(machine: str, image: Path, argv: list[str], *, shift: int) -> list[str]:
    """QEMU's arguments booting ``image`` on ``machine`` with ``argv`` as the semihosting command line,
    under deterministic instruction counting (an instruction every 2^shift ns, no sleeping to catch up
    with real time), and no default devices (qemu_machine.Machine adds the console, its first serial
    port: the board's UART). The board's own Ethernet controller, which the probe never uses, is given a
    user network that reaches nothing (restrict=on, no IPv6 router adverts), or QEMU warns that it has no
    peer."""
    return [
        "-M",
        machine,
        "-nodefaults",
        "-nic",
        "user,restrict=on,ipv6=off,model=lan9118",
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


@dataclasses.dataclass(frozen=True)
class BoardSpec:
    """What "qemu:BOARD:OS[:key=value]…" names: the board, its OS and every option's value."""

    board: str
    os: str
    options: dict[str, Any]


def _parse(spec: str) -> BoardSpec:
    """The board, OS and options of "qemu:BOARD:OS[:key=value]…"; RtscopeError naming what there is."""
    parts = spec.split(":")
    if len(parts) < 3 or parts[0] != "qemu" or (parts[1], parts[2]) not in BOARDS:
        known = ", ".join(f"qemu:{board}:{os_name}" for board, os_name in BOARDS)
        raise options.refuse(spec, f"no such board and OS (rtscope boots {known})", USAGE)
    return BoardSpec(parts[1], parts[2], options.parse(spec, parts[3:], OPTIONS, USAGE))


def image_path(
    os_name: str, board: str, config: str = BUILD_CONFIGS[0], link: str = "semihosting", *, mcu: str = ""
) -> Path:
    """Where the image of kernel ``os_name`` for ``board`` is built: a folder per kernel, configuration,
    microcontroller build and link (probe/port/*/port.mk's own default folders), under probes.BUILD_DIR
    (probe/build in a clone, the user's cache for an installed rtscope)."""
    folder = f"{os_name}-{board}" + ("" if config == BUILD_CONFIGS[0] else f"-{config}")
    folder += (f"-{mcu}" if mcu else "") + ("" if link == "semihosting" else f"-{link}")
    return probes.BUILD_DIR / folder / "rtscope-probe"


def build_image(
    os_name: str, board: str, config: str = BUILD_CONFIGS[0], link: str = "semihosting", *, mcu: str = ""
) -> Path:
    """The image of kernel ``os_name`` for ``board`` in ``config``, reaching its host by ``link``
    (semihosting, or uart: docs/boards.md), the microcontroller build ``mcu`` ("small") or the full one,
    built or brought up to date by the probe's Makefile against the user's checkout of the kernel;
    RtscopeError in one line without that checkout (saying how to name one) or the compiler, or when the
    build fails (a kernel too old for the port: make says what it lacks)."""
    try:
        named = kernels.checkout(os_name)
    except kernels.KernelMissing as error:
        # Said by a target, whose user may not know the kernel is theirs to fetch: where from, which versions.
        raise kernels.KernelMissing(f"{error}; {kernels.kernel(os_name).where_to_get()}") from None
    kernel = named.kernel
    if shutil.which("arm-none-eabi-gcc") is None:
        raise RtscopeError(
            "arm-none-eabi-gcc not found (apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi, or run setup.sh)"
        )
    image = image_path(os_name, board, config, link, mcu=mcu)
    probes.make(
        [
            f"PORT={os_name}",
            f"BOARD={board}",
            f"CONFIG={config}",
            f"LINK={link}",
            f"MCU={mcu}",
            f"{kernel.env}={named.path}",
            f"BUILD={image.parent}",
        ],
        f"the {kernel.name} image for {board} ({config} configuration"
        + (f", MCU={mcu}" if mcu else "")
        + (f", {link} link)" if link != "semihosting" else ")"),
        # Its folder's lock: an image's build writes nothing outside its folder, so that it need not wait for
        # the builds of other images or of the native probe, nor they for it.
        image.parent,
    )
    if not image.is_file():
        raise RtscopeError(f"building the {board} image left no {image}")
    return image
