"""The probes still running on this machine (the boards of the tests' labs are this machine too), found by
the label a campaign gives each run ("NAME: cell #N"); the processes there are, and what rtscope says when a
busy machine keeps a load from its CPUs."""

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest


def probes_labelled(spec_name: str) -> list[int]:
    """Probe processes still running for campaign ``spec_name`` (their label names it): the probes only, not
    an rtscope given the label itself (``run --label``)."""
    return [
        pid
        for pid, argv in _command_lines()
        if _is_probe(argv) and any(arg.startswith(f"{spec_name}: ".encode()) for arg in argv)
    ]


def other_probes(holding: Path) -> set[int]:
    """Processes other than this one that are a probe (on this machine or under qemu-user) or hold the device
    ``holding`` open (e.g. /dev/cpu_dma_latency, whose limit is the machine's while any holder runs)."""
    found = set()
    for pid, argv in _command_lines():
        if pid == os.getpid():
            continue
        try:
            if _is_probe(argv) or any(os.readlink(fd) == str(holding) for fd in Path(f"/proc/{pid}/fd").iterdir()):
                found.add(pid)
        except OSError:
            continue  # gone meanwhile, or a descriptor closed while it was read
    return found


def _is_probe(argv: list[bytes]) -> bool:
    """A probe's command line, on this machine or under qemu-user (the probe then its second argument)."""
    return any(Path(os.fsdecode(arg)).name.startswith("rtscope-probe") for arg in argv[:2] if arg)


def _command_lines() -> Iterator[tuple[int, list[bytes]]]:
    """Each process now, by pid, with its arguments (those gone while read are left out)."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            yield int(pid), Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue


# What rtscope says when other work kept a load from its CPUs while it settled (src/rtscope/loads/session.py): the
# run is refused on a busy machine, and a test that needed the load running ends with that reason.
BUSY_MACHINE = "did not get its CPUs on a busy machine"


def processes() -> dict[int, tuple[int, str]]:
    """Every process now, by pid: its parent's pid and its command line (``ps -o args``: its name in brackets
    where it has none)."""
    ps = subprocess.run(["ps", "-eo", "pid=,ppid=,args="], capture_output=True, text=True, check=True).stdout
    found = {}
    for line in ps.splitlines():
        pid, ppid, args = (line.split(None, 2) + [""])[:3]
        found[int(pid)] = (int(ppid), args)
    return found


# The processes that ran before the test began (a stress-ng beside the suite, other suites' probes and loads on
# this shared machine): not a board's. A test module that looks at its boards' processes imports the fixture
# below, which takes them before each of its tests.
_before_test: frozenset[int] = frozenset()


@pytest.fixture(autouse=True)
def processes_before_test() -> None:
    """Take the processes that run before the test (``before_test``)."""
    global _before_test
    _before_test = frozenset(processes())


def before_test() -> frozenset[int]:
    """The processes that ran before the test began (``processes_before_test``)."""
    return _before_test


def started_under(root: int, match: Callable[[str], bool]) -> list[str]:
    """The command lines of the processes ``match`` takes that started during the test and run under
    ``root`` (a test's sshd: what its logins started) or were orphaned (their parent gone, as a connection's
    leftovers are): not those of other work on this shared machine (a stress-ng beside the suite, other suites'
    boards)."""
    now = processes()

    def under_root(pid: int) -> bool:
        seen = set()
        while pid not in seen and pid in now:
            seen.add(pid)
            pid = now[pid][0]
            if pid == root:
                return True
        return False

    return [
        args
        for pid, (ppid, args) in now.items()
        if pid not in _before_test and match(args) and (ppid == 1 or under_root(pid))
    ]
