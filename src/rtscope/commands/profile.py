"""rtscope profile: derive Metrics Number weights from a real program by counting what it made the OS do."""

import argparse
import os
import subprocess
import time
from pathlib import Path

from rtscope.render import fmt
from rtscope.commands.context import Context
from rtscope.errors import RtscopeError
from rtscope.files import AtomicFile

NAME = "profile"
HELP = "run a program and write a score profile from its context switches, preemptions and interrupts"
# The metric each counted event weighs (see docs/score.md).
SWITCH_METRIC, PREEMPT_METRIC, IRQ_METRIC = "ctxsw.sem", "lat.preempt", "lat.irq"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """-o FILE, --name, -- COMMAND…"""
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="FILE",
                        help="the profile file to write (TOML)")
    parser.add_argument("--name", help="the profile's name (default: the command)")
    parser.add_argument("program", nargs=argparse.REMAINDER, metavar="-- COMMAND…",
                        help="the program to run, with its arguments, after --")


def run(args: argparse.Namespace, context: Context) -> int:
    """Run COMMAND to its end, count its switches and the interrupts meanwhile, write the profile."""
    command = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not command:
        raise RtscopeError("name the program to profile after --, e.g. rtscope profile -o app.toml -- ./app")
    with AtomicFile(args.output) as output:
        counts = _measure(command)
        name = args.name or " ".join(command)
        output.commit(_profile_text(name, command, counts))
    context.print([f"profile {args.output}: {counts['voluntary_switches']:,} voluntary switches, "
                   f"{counts['involuntary_switches']:,} preemptions, {counts['interrupts']:,} interrupts "
                   f"in {fmt.seconds(counts['seconds'])}"])
    return 0


def _measure(command: list[str]) -> dict[str, float]:
    """Run ``command`` and return what it did: its threads' voluntary and involuntary context switches
    (of the program and the children it waited for) and the interrupts all CPUs took meanwhile."""
    interrupts_before = _interrupts()
    started = time.monotonic()
    try:
        process = subprocess.Popen(command)
    except OSError as error:
        raise RtscopeError(f"cannot start {command[0]}: {error.strerror or error}") from None
    try:
        _, status, usage = os.wait4(process.pid, 0)
    except KeyboardInterrupt:
        process.kill()
        process.wait()
        raise
    seconds = time.monotonic() - started
    interrupts = _interrupts() - interrupts_before
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise RtscopeError(f"{command[0]} exited with status {code}: a profile of a failed run is not written")
    return {"voluntary_switches": usage.ru_nvcsw, "involuntary_switches": usage.ru_nivcsw,
            "interrupts": interrupts, "seconds": seconds}


def _interrupts() -> int:
    """Interrupts serviced since boot, all CPUs (the first figure of the "intr" line of /proc/stat)."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            for line in stat:
                if line.startswith("intr "):
                    return int(line.split()[1])
    except OSError:
        pass
    raise RtscopeError("cannot count interrupts: /proc/stat has no intr line (profile needs Linux)")


def _profile_text(name: str, command: list[str], counts: dict[str, float]) -> str:
    quoted = _toml_string
    return "\n".join([
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
    ])


def _toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    escaped = "".join(f"\\u{ord(c):04x}" if ord(c) < 0x20 or c == "\x7f" else c
                      for c in text.replace("\\", "\\\\").replace('"', '\\"'))
    return f'"{escaped}"'
