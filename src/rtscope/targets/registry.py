"""Every kind of target, in one place: its scheme, its class, its options, its usage and what it is.

``make_target`` is a lookup here, and ``--target``'s help, the "unknown target" message and the table of
kinds in docs/targets.md are generated from KINDS: ``python -m rtscope.targets.registry docs/targets.md``
writes that table (``--check``: exit 1 when the file's table differs, which the tests run).

This is the one module of the core that names the families (rtscope.targets.remote, .qemu, .mcu).
"""

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rtscope.errors import RtscopeError, did_you_mean
from rtscope.targets import Target, TargetOptions
from rtscope.targets import options as options_
from rtscope.targets.fake import FakeTarget
from rtscope.targets.local import LocalTarget
from rtscope.targets.mcu import gdb_board, qemu_board, serial_board
from rtscope.targets.options import Option
from rtscope.targets.qemu import debian
from rtscope.targets.remote import labgrid, labgrid_places, ssh


@dataclass(frozen=True)
class Kind:
    """One kind of target. ``scheme`` is how its values start ("local" is a whole value); ``make`` builds
    one from a value (the probe and the command line's target options at hand); ``options`` are its
    ``key=value`` options (rtscope.targets.options), which ``usage`` names."""

    scheme: str
    cls: type
    usage: str
    description: str
    make: Callable[[str, Path, TargetOptions], Target]
    options: tuple[Option, ...] = ()

    def takes(self, spec: str) -> bool:
        """Whether ``spec`` is of this kind by its scheme (the two qemu: kinds share theirs: see kind_of)."""
        return spec == self.scheme if not self.scheme.endswith((":", "/")) else spec.startswith(self.scheme)


def _fake(spec: str, probe: Path, options: TargetOptions) -> Target:
    directory = spec.removeprefix("fake:")
    if not directory:
        raise options_.refuse(spec, "no DIR", "fake:DIR")
    return FakeTarget(Path(directory))


KINDS = (
    Kind("local", LocalTarget, "local", "this machine (the default)", lambda spec, probe, _: LocalTarget(probe)),
    Kind(
        "ssh://",
        ssh.SshTarget,
        ssh.USAGE,
        "a Linux board reached over SSH; the static probe for its architecture goes there by itself",
        lambda spec, probe, _: ssh.SshTarget(spec),
    ),
    Kind(
        labgrid.PREFIX,
        labgrid.LabgridTarget,
        labgrid.USAGE,
        "a board of a labgrid environment, through its SSHDriver",
        lambda spec, probe, _: labgrid.LabgridTarget(spec),
    ),
    Kind(
        labgrid_places.PLACE,
        labgrid_places.PlaceTarget,
        labgrid_places.PLACE_USAGE,
        "a board reserved by its place through the lab's labgrid coordinator (--coordinator), taken on first use",
        lambda spec, probe, given: labgrid_places.PlaceTarget(spec, given),
    ),
    Kind(
        labgrid_places.TAG,
        labgrid_places.PlaceTarget,
        labgrid_places.TAG_USAGE,
        "a board reserved by its tags through the labgrid coordinator; count=N: N boards, for a campaign",
        lambda spec, probe, given: labgrid_places.PlaceTarget(spec, given),
        labgrid_places.TAG_OPTIONS,
    ),
    Kind(
        "qemu:",
        debian.QemuTarget,
        debian.USAGE,
        "Debian's stock or PREEMPT_RT Linux kernel in QEMU, in instruction time",
        lambda spec, probe, _: debian.QemuTarget(spec),
        debian.OPTIONS,
    ),
    Kind(
        "qemu:",
        qemu_board.QemuBoardTarget,
        qemu_board.USAGE,
        "FreeRTOS or ThreadX on QEMU's Cortex-M3 board, built from your kernel checkout, in instruction time",
        lambda spec, probe, _: qemu_board.QemuBoardTarget(spec),
        qemu_board.OPTIONS,
    ),
    Kind(
        serial_board.PREFIX,
        serial_board.SerialBoardTarget,
        serial_board.USAGE,
        "a board you flashed with the probe's LINK=uart image, on its serial line",
        lambda spec, probe, _: serial_board.SerialBoardTarget(spec),
        serial_board.OPTIONS,
    ),
    Kind(
        gdb_board.PREFIX,
        gdb_board.GdbBoardTarget,
        gdb_board.USAGE,
        "a board whose LINK=uart image rtscope loads through a GDB server, then reaches on its serial line",
        lambda spec, probe, _: gdb_board.GdbBoardTarget(spec),
        gdb_board.OPTIONS,
    ),
    Kind("fake:", FakeTarget, "fake:DIR", "replays the result files recorded in DIR (for tests)", _fake),
)


def kind_of(spec: str) -> Kind:
    """The kind of the ``--target`` value ``spec``; RtscopeError naming every kind otherwise.

    The one rule for "qemu:": ``qemu:NAME:…`` is an RTOS board when NAME is a board rtscope boots
    (rtscope.targets.mcu.qemu_board.BOARDS), else a Debian kernel's architecture."""
    kinds = [kind for kind in KINDS if kind.takes(spec)]
    if len(kinds) > 1:
        board = qemu_board.names_a_board(spec)
        kinds = [kind for kind in kinds if (kind.cls is qemu_board.QemuBoardTarget) == board]
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
    return labgrid_places.boards(spec) if spec.startswith(labgrid_places.TAG) else 1


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
