"""Every kind of target, in one place: its scheme, its class, its options, its usage and what it is.

``make_target`` is a lookup here, and ``--target``'s help, the "unknown target" message and the table of
kinds in docs/targets.md are generated from KINDS: ``python -m rtscope.targets.registry docs/targets.md``
writes that table (``--check``: exit 1 when the file's table differs, which the tests run).

This is the one module of the core that names the families (rtscope.targets.remote, .qemu, .mcu). It names
each kind's class by its module and imports that module only when a target of the kind is made: every
command builds ``--target``'s help from here, and importing every family cost the CLI's start-up some
140 ms (issue 32). So a kind's options, and the few constants they name, are declared here, as data, and
its module takes them from here.
"""

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtscope.errors import RtscopeError, did_you_mean
from rtscope.targets import Target, TargetOptions
from rtscope.targets import options as options_
from rtscope.targets.options import Option


@dataclass(frozen=True)
class Kind:
    """One kind of target. ``scheme`` is how its values start ("local" is a whole value); ``target`` names
    its class, "module.Class", imported on first use; ``build`` makes one from that class and a value (the
    probe and the command line's target options at hand); ``options`` are its ``key=value`` options
    (rtscope.targets.options), which ``usage`` names."""

    scheme: str
    target: str
    usage: str
    description: str
    build: Callable[[Any, str, Path, TargetOptions], Target]
    options: tuple[Option, ...] = ()

    @property
    def cls(self) -> Any:
        """The kind's class (its module imported now, if it was not)."""
        module, _, name = self.target.rpartition(".")
        return getattr(importlib.import_module(module), name)

    def make(self, spec: str, probe: Path, given: TargetOptions) -> Target:
        """The target ``spec`` names."""
        return self.build(self.cls, spec, probe, given)

    def takes(self, spec: str) -> bool:
        """Whether ``spec`` is of this kind by its scheme (the two qemu: kinds share theirs: see kind_of)."""
        return spec == self.scheme if not self.scheme.endswith((":", "/")) else spec.startswith(self.scheme)


# How each kind's class is made from a value: from the value, from the value and the command line's
# target options, or (local) from the probe it runs.
def _of_spec(cls: Any, spec: str, probe: Path, given: TargetOptions) -> Target:
    return cls(spec)  # type: ignore[no-any-return]


def _of_spec_and_options(cls: Any, spec: str, probe: Path, given: TargetOptions) -> Target:
    return cls(spec, given)  # type: ignore[no-any-return]


def _of_probe(cls: Any, spec: str, probe: Path, given: TargetOptions) -> Target:
    return cls(probe)  # type: ignore[no-any-return]


def _of_directory(cls: Any, spec: str, probe: Path, given: TargetOptions) -> Target:
    directory = spec.removeprefix("fake:")
    if not directory:
        raise options_.refuse(spec, "no DIR", "fake:DIR")
    return cls(Path(directory))  # type: ignore[no-any-return]


# ssh:// and labgrid: (rtscope.targets.remote).
SSH_USAGE = "ssh://[user@]host[:port]"
LABGRID = "labgrid:"
LABGRID_USAGE = "labgrid:ENV.yaml[:NAME]"
PLACE = "labgrid-place:"
TAG = "labgrid-tag:"
PLACE_USAGE = "labgrid-place:NAME"
TAG_OPTIONS = (
    options_.integer("count", 1, None, 1, "how many places, each a board of its own (a campaign's targets)"),
)
TAG_USAGE = options_.usage("labgrid-tag:KEY=VALUE[,KEY=VALUE]", TAG_OPTIONS)

# qemu:ARCH:FLAVOUR (rtscope.targets.qemu.debian, whose ARCHES and FLAVOURS say what each one is).
GUEST_ARCHES = ("x86_64", "aarch64")
GUEST_FLAVOURS = ("stock", "rt")
TIME_MODES = ("icount", "host")
MAX_CPUS = 8
# The guest's RAM (QEMU takes from the host only what the guest touches). 256 MiB ran out in thread.ops on
# the stock arm64 kernel: some 20,000 threads a second exit there while the probe's SCHED_FIFO threads keep
# the CPUs, and their memory waits to be freed; the OOM killer ended the probe within a second.
DEFAULT_MEMORY_MIB = 1024
# The options after "qemu:ARCH:FLAVOUR", each at most once, in any order (rtscope.targets.options).
GUEST_OPTIONS = (
    options_.integer("cpus", 1, MAX_CPUS, None, "the guest's CPUs (default: 1 on x86_64, 2 on aarch64)"),
    options_.integer("memory", 64, 4096, DEFAULT_MEMORY_MIB, "the guest's RAM in MiB", values="MIB"),
    options_.choice("time", TIME_MODES, TIME_MODES[0], "icount: instruction time, repeatable; host: the host's clock"),
)
GUEST_USAGE = options_.usage(f"qemu:{'|'.join(GUEST_ARCHES)}:{'|'.join(GUEST_FLAVOURS)}", GUEST_OPTIONS)

# qemu:BOARD:OS (rtscope.targets.mcu.qemu_board): the boards rtscope can boot, their OS and QEMU machine,
# (board, os) -> QEMU's -M. One board layer serves every kernel (probe/boards/).
BOARDS = {("mps2-an385", "freertos"): "mps2-an385", ("mps2-an385", "threadx"): "mps2-an385"}
# One instruction a nanosecond, as the Linux guests count (rtscope.targets.qemu.debian); at most QEMU's 10.
DEFAULT_ICOUNT_SHIFT = 0
MAX_ICOUNT_SHIFT = 10
# The kernels' configurations (probe/port/*/port.mk's CONFIG), the default first: dev, as developed
# (assertions, stack checking), and bench, as benchmarks are run (docs/rtos.md).
BUILD_CONFIGS = ("dev", "bench")
# The probe's microcontroller builds (mcu=…, make MCU=…: 128 KiB of flash, 48 KiB of RAM; docs/rtos.md).
MCU_BUILDS = ("small",)
# The options after "qemu:BOARD:OS", each at most once, in any order (rtscope.targets.options).
BOARD_OPTIONS = (
    options_.integer(
        "shift", 0, MAX_ICOUNT_SHIFT, DEFAULT_ICOUNT_SHIFT, "one instruction every 2^N ns (5: near the AN385's 25 MHz)"
    ),
    options_.choice("config", BUILD_CONFIGS, BUILD_CONFIGS[0], "the kernel's configuration: dev (checks on) or bench"),
    # "": the full build.
    options_.choice("mcu", MCU_BUILDS, "", "the microcontroller build: 128 KiB of flash, 48 KiB of RAM"),
)
BOARD_USAGE = options_.usage(
    "qemu:"
    + "|".join(dict.fromkeys(board for board, _ in BOARDS))
    + ":"
    + "|".join(dict.fromkeys(os_name for _, os_name in BOARDS)),
    BOARD_OPTIONS,
)

# serial:DEVICE and gdb://HOST:PORT (rtscope.targets.mcu.serial_board, .gdb_board).
SERIAL = "serial:"
GDB = "gdb://"
DEFAULT_BAUD = 115200
BAUD = options_.integer("baud", 1, None, DEFAULT_BAUD, "the line's baud rate")
# The options after "serial:DEVICE", each at most once, in any order (rtscope.targets.options).
SERIAL_OPTIONS = (
    BAUD,
    options_.text("board", "NAME", None, "the board the image must say it is (checked)"),
    options_.text("rtos", "NAME", None, "the RTOS the image must say it runs (checked)"),
)
SERIAL_USAGE = options_.usage("serial:DEVICE", SERIAL_OPTIONS)
# The server's command that resets the board and holds it (OpenOCD's, pyOCD's, J-Link's).
DEFAULT_RESET = "reset halt"
GDB_BEFORE_SERIAL = (
    options_.text("board", "NAME", "mps2-an385", "the board, whose image rtscope builds"),
    options_.text("rtos", "NAME", "freertos", "the RTOS of that image"),
    options_.text("reset", "COMMAND", DEFAULT_RESET, "the server's command that resets and holds the board"),
)
# The options of a gdb:// target (rtscope.targets.options): baud after serial=DEVICE, since a device may hold
# colons; the others before it, in any order; each at most once.
GDB_OPTIONS = (*GDB_BEFORE_SERIAL, BAUD)
GDB_USAGE = options_.usage("gdb://HOST:PORT", GDB_BEFORE_SERIAL) + options_.usage(":serial=DEVICE", (BAUD,))


KINDS = (
    Kind("local", "rtscope.targets.local.LocalTarget", "local", "this machine (the default)", _of_probe),
    Kind(
        "ssh://",
        "rtscope.targets.remote.ssh.SshTarget",
        SSH_USAGE,
        "a Linux board reached over SSH; the static probe for its architecture goes there by itself",
        _of_spec,
    ),
    Kind(
        LABGRID,
        "rtscope.targets.remote.labgrid.LabgridTarget",
        LABGRID_USAGE,
        "a board of a labgrid environment, through its SSHDriver",
        _of_spec,
    ),
    Kind(
        PLACE,
        "rtscope.targets.remote.labgrid_places.PlaceTarget",
        PLACE_USAGE,
        "a board reserved by its place through the lab's labgrid coordinator (--coordinator), taken on first use",
        _of_spec_and_options,
    ),
    Kind(
        TAG,
        "rtscope.targets.remote.labgrid_places.PlaceTarget",
        TAG_USAGE,
        "a board reserved by its tags through the labgrid coordinator; count=N: N boards, for a campaign",
        _of_spec_and_options,
        TAG_OPTIONS,
    ),
    Kind(
        "qemu:",
        "rtscope.targets.qemu.debian.QemuTarget",
        GUEST_USAGE,
        "Debian's stock or PREEMPT_RT Linux kernel in QEMU, in instruction time",
        _of_spec,
        GUEST_OPTIONS,
    ),
    Kind(
        "qemu:",
        "rtscope.targets.mcu.qemu_board.QemuBoardTarget",
        BOARD_USAGE,
        "FreeRTOS or ThreadX on QEMU's Cortex-M3 board, built from your kernel checkout, in instruction time",
        _of_spec,
        BOARD_OPTIONS,
    ),
    Kind(
        SERIAL,
        "rtscope.targets.mcu.serial_board.SerialBoardTarget",
        SERIAL_USAGE,
        "a board you flashed with the probe's LINK=uart image, on its serial line",
        _of_spec,
        SERIAL_OPTIONS,
    ),
    Kind(
        GDB,
        "rtscope.targets.mcu.gdb_board.GdbBoardTarget",
        GDB_USAGE,
        "a board whose LINK=uart image rtscope loads through a GDB server, then reaches on its serial line",
        _of_spec,
        GDB_OPTIONS,
    ),
    Kind(
        "fake:",
        "rtscope.targets.fake.FakeTarget",
        "fake:DIR",
        "replays the result files recorded in DIR (for tests)",
        _of_directory,
    ),
)


def names_a_board(spec: str) -> bool:
    """Whether the --target value ``spec`` ("qemu:NAME:…") names one of BOARDS rather than a Linux
    guest's architecture."""
    parts = spec.split(":")
    return len(parts) > 1 and parts[1] in {board for board, _ in BOARDS}


def kind_of(spec: str) -> Kind:
    """The kind of the ``--target`` value ``spec``; RtscopeError naming every kind otherwise.

    The one rule for "qemu:": ``qemu:NAME:…`` is an RTOS board when NAME is a board rtscope boots
    (BOARDS), else a Debian kernel's architecture."""
    kinds = [kind for kind in KINDS if kind.takes(spec)]
    if len(kinds) > 1:
        board = names_a_board(spec)
        kinds = [kind for kind in kinds if (kind.options is BOARD_OPTIONS) == board]
    if not kinds:
        schemes = [kind.scheme for kind in KINDS]
        scheme = spec.partition("//")[0] + "//" if "://" in spec else spec.partition(":")[0] + ":"
        hint = did_you_mean(scheme, schemes) if ":" in spec else did_you_mean(spec, schemes)
        raise RtscopeError(f"unknown target {spec!r}{hint} (one of: {', '.join(usages())})")
    return kinds[0]


def make_target(spec: str, probe: Path, options: TargetOptions | None = None) -> Target:
    """The target the ``--target`` value ``spec`` names (``probe``: the probe a local target runs;
    ``options``: the command line's --coordinator and --wait)."""
    return kind_of(spec).make(spec, probe, options or TargetOptions())


def boards(spec: str) -> int:
    """How many boards ``spec`` names at once: N for labgrid-tag:…:count=N, else 1."""
    if not spec.startswith(TAG):
        return 1
    from rtscope.targets.remote import labgrid_places

    return labgrid_places.boards(spec)


def usages() -> list[str]:
    """Every kind's usage line, in the registry's order."""
    return [kind.usage for kind in KINDS]


def help_text() -> str:
    """``--target``'s help: every kind's usage and what it is."""
    return "where benches run: " + "; ".join(f"{kind.usage}: {kind.description}" for kind in KINDS)


TABLE_START = "<!-- kinds: generated from rtscope.targets.registry (python -m rtscope.targets.registry FILE) -->"
TABLE_END = "<!-- end of kinds -->"


def doc_table() -> list[str]:
    """docs/targets.md's table of kinds, as Markdown lines between its markers."""
    rows = ["| `--target` | what it is | options |", "|---|---|---|"]
    for kind in KINDS:
        options = "<br>".join(
            f"`{option.usage}`: {option.help}"
            + (f" (default: {option.default})" if option.default not in (None, "") else "")
            for option in kind.options
        )
        # A "|" in a cell ends it, unless escaped (GitHub's tables, code spans included).
        cells = [f"`{kind.usage}`", kind.description, options or "—"]
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return [TABLE_START, *rows, TABLE_END]


def with_table(text: str) -> str:
    """``text`` (a document holding the table's markers) with the table regenerated."""
    head, start, rest = text.partition(TABLE_START)
    _, end, tail = rest.partition(TABLE_END)
    if not start or not end:
        raise RtscopeError(f"no table of kinds: the document lacks the lines {TABLE_START} and {TABLE_END}")
    return head + "\n".join(doc_table()) + tail


def main(argv: Sequence[str]) -> int:
    """Write the table of kinds into FILE; with --check, only say whether it is up to date (exit 1: not)."""
    parser = argparse.ArgumentParser(prog="python -m rtscope.targets.registry", description=main.__doc__)
    parser.add_argument("file", type=Path, metavar="FILE", help="the document holding the table (docs/targets.md)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when the table is stale")
    args = parser.parse_args(argv)
    try:
        text = args.file.read_text(encoding="utf-8")
        fresh = with_table(text)
    except (OSError, RtscopeError) as error:
        print(f"{parser.prog}: {error}", file=sys.stderr)
        return 2
    if fresh == text:
        return 0
    if args.check:
        print(f"{args.file}: the table of kinds is stale ({parser.prog} {args.file} rewrites it)", file=sys.stderr)
        return 1
    args.file.write_text(fresh, encoding="utf-8")
    print(f"{args.file}: table of kinds rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
