"""Profiling a program on the target: what it made the OS do, for Metrics Number weights.

The program runs through the target's transport under GNU time, which reports the voluntary and
involuntary context switches of the program and the children it waited for (wait4's rusage); the
interrupts all CPUs took meanwhile come from the target's /proc/stat, read before and after.
"""

import time
from collections.abc import Sequence
from dataclasses import dataclass

from rtscope.errors import RtscopeError
from rtscope.targets.transport import Transport, has_command


@dataclass(frozen=True)
class Usage:
    """What a program made the OS do while it ran."""

    voluntary_switches: int
    involuntary_switches: int
    interrupts: int
    seconds: float


def profile(transport: Transport, command: Sequence[str]) -> Usage:
    """Run ``command`` to its end on the target and count what it did. RtscopeError when it cannot be
    started or exits with a status other than 0 (a profile of a failed run is not one)."""
    # Checked first, so that a mistyped program is one line, not time's complaint and then ours.
    if not has_command(transport, command[0]):
        raise RtscopeError(f"cannot start {command[0]}: no such program on the target {transport.name}")
    # Asked before, so that any error of the run itself (a lost connection) is told as it is.
    if not has_command(transport, "time"):
        raise RtscopeError(f"profile needs GNU time on the target {transport.name} (Debian package time)")
    with transport.temp_dir() as scratch:
        usage_file = f"{scratch}/usage"
        before, started = interrupts(transport), time.monotonic()
        status, _, _ = transport.run_streaming(["time", "-o", usage_file, "-f", "%w %c", "--", *command])
        seconds, after = time.monotonic() - started, interrupts(transport)
        if status != 0:
            raise RtscopeError(f"{command[0]} exited with status {status}: a profile of a failed run is not written")
        try:
            usage = transport.read_file(usage_file).decode(errors="replace")
        except FileNotFoundError:
            raise RtscopeError("time wrote no usage file for the program (is the target's time GNU time?)") from None
        except OSError as error:
            raise RtscopeError(
                f"cannot read time's usage file on {transport.name}: {error.strerror or error}"
            ) from None
    try:
        voluntary, involuntary = map(int, usage.split()[-2:])
    except ValueError:
        raise RtscopeError(f"time's usage file is not two counts: {usage.strip()[:80]!r} (is it GNU time?)") from None
    return Usage(voluntary, involuntary, after - before, seconds)


def interrupts(transport: Transport) -> int:
    """Interrupts serviced since boot, all CPUs (the first figure of the "intr" line of /proc/stat)."""
    try:
        stat = transport.read_file("/proc/stat")
    except OSError as error:
        raise RtscopeError(
            f"cannot count interrupts: cannot read /proc/stat on {transport.name}: {error.strerror or error}"
        ) from None
    for line in stat.decode(errors="replace").splitlines():
        if line.startswith("intr "):
            return int(line.split()[1])
    raise RtscopeError(
        f"cannot count interrupts: /proc/stat on {transport.name} has no intr line (profile needs Linux)"
    )
