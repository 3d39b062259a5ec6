"""rtscope profile: derive Metrics Number weights from a real program by counting what it made the OS do."""

import argparse
import dataclasses
from pathlib import Path

from rtscope.commands.context import Context
from rtscope.errors import RtscopeError
from rtscope.execution.profile import profile
from rtscope.files import AtomicFile
from rtscope.render import fmt

# The metric each counted event weighs (see docs/score.md).
SWITCH_METRIC, PREEMPT_METRIC, IRQ_METRIC = "ctxsw.sem", "lat.preempt", "lat.irq"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """-o FILE, --name, -- COMMAND…"""
    parser.add_argument(
        "-o", "--output", type=Path, required=True, metavar="FILE", help="the profile file to write (TOML)"
    )
    parser.add_argument("--name", help="the profile's name (default: the command)")
    parser.add_argument(
        "program",
        nargs=argparse.REMAINDER,
        metavar="-- COMMAND…",
        help="the program to run, with its arguments, after --",
    )


def run(args: argparse.Namespace, context: Context) -> int:
    """Run COMMAND to its end, count its switches and the interrupts meanwhile, write the profile."""
    command = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not command:
        raise RtscopeError("name the program to profile after --, e.g. rtscope profile -o app.toml -- ./app")
    with AtomicFile(args.output) as output:
        usage = profile(context.target().transport, command)
        counts = dataclasses.asdict(usage)
        name = args.name or " ".join(command)
        output.commit(_profile_text(name, command, counts))
    context.print(
        [
            (
                f"profile {args.output}: {counts['voluntary_switches']:,} voluntary switches, "
                f"{counts['involuntary_switches']:,} preemptions, {counts['interrupts']:,} interrupts "
                f"in {fmt.seconds(counts['seconds'])}"
            )
        ]
    )
    return 0


def _profile_text(name: str, command: list[str], counts: dict[str, float]) -> str:
    quoted = _toml_string
    return "\n".join(
        [
            "# Derived by rtscope profile: the weights are what the program made the OS do while it ran.",
            f"name = {quoted(name)}",
            'statistic = "mean"',
            "",
            "[derived_from]",
            f"command = [{', '.join(quoted(word) for word in command)}]",
            f"seconds = {counts['seconds']:.3f}",
            f"voluntary_switches = {counts['voluntary_switches']}",
            f"involuntary_switches = {counts['involuntary_switches']}",
            f"interrupts = {counts['interrupts']}",
            "",
            "[weights]",
            f"{quoted(SWITCH_METRIC)} = {counts['voluntary_switches']}    # blocked and handed the CPU on",
            f"{quoted(PREEMPT_METRIC)} = {counts['involuntary_switches']}    # preempted",
            f"{quoted(IRQ_METRIC)} = {counts['interrupts']}    # interrupts, all CPUs, from any source",
            "",
        ]
    )


def _toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    escaped = "".join(
        f"\\u{ord(c):04x}" if ord(c) < 0x20 or c == "\x7f" else c
        for c in text.replace("\\", "\\\\").replace('"', '\\"')
    )
    return f'"{escaped}"'
