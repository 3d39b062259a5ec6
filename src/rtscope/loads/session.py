"""Running disturbance loads on the target, through its transport.

Each load is the real tool started in its own process group before the probe, given time to settle,
checked to be really running (its processes' CPU use, and for ``net`` the bytes through loopback), and
always stopped: on success, error or Ctrl-C (leaving the :class:`Session`), and if rtscope itself dies
(the transport kills what it spawned). A session keeps a load running from one run to the next while
the next run asks for the same loads — a campaign's consecutive cells of one load settle it once — and
checks it again for every run: still running before the probe starts, and its CPU use during the run
recorded. A load that ended before the probe did held not for the whole run; the result says so.
"""

import contextlib
import random
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Self

from rtscope.errors import RtscopeError
from rtscope.loads.kinds import LoadSpec, Place
from rtscope.targets.transport import ASK_TIMEOUT_S, Process, Transport, cpu_count

DEFAULT_SETTLE_S = 2.0
STOP_TIMEOUT_S = 5.0
# A load is running when its processes use at least this share of the CPU time it should take (a
# stalled or failed tool uses next to none; loads that together ask for more CPUs than there are get
# their share of what there is).
MIN_EXPECTED_SHARE = 0.25
# More half-settle windows a load below its share gets before it is declared not running.
_EXTRA_WINDOWS = 3
# A load whose processes used less than this many CPUs did not run at all: one crowded out by other work
# still gets its fair share of the CPUs (two CPU hogs beside it left a cpu load over 0.2).
_RAN_CPUS = 0.02
# /proc/stat's unit (USER_HZ), 100 on every Linux architecture rtscope targets.
_TICKS_PER_S = 100
# Every process's stat line, read in one command on the target (fixed text: no user input in it).
_ALL_STATS = ["sh", "-c", "cat /proc/[0-9]*/stat 2>/dev/null; true"]
_PORTS = (20000, 60000)  # where a loopback port for iperf3 is drawn from
_LISTEN_TIMEOUT_S = 5.0


@dataclass
class ActiveLoad:
    """A started load: its processes (each leads its own process group) and what was measured of it."""

    spec: LoadSpec
    place: Place
    processes: list[Process] = field(default_factory=list)
    commands: list[list[str]] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    cpus_used: float | None = None
    loopback_bytes_per_s: float | None = None
    ended_early: list[str] = field(default_factory=list)
    left_behind: int = 0

    @property
    def expected_cpus(self) -> float:
        return self.spec.kind.expected_cpus(self.spec.values(), self.place)

    def record(self) -> dict[str, Any]:
        """What the result keeps of this load."""
        return {
            "name": self.spec.kind.name,
            "settings": {k: str(v) for k, v in self.spec.values().items()},
            "commands": self.commands,
            "cpus_used": self.cpus_used,
            "loopback_bytes_per_s": self.loopback_bytes_per_s,
            "held": not self.ended_early,
            "ended_early": self.ended_early,
        }


class Session:
    """Loads on one target, kept from run to run while they stay the same. Use as a ``with`` block:
    whatever runs is stopped on leaving it."""

    def __init__(
        self,
        transport: Transport,
        settle_s: float = DEFAULT_SETTLE_S,
        progress: Callable[[str], None] = lambda line: None,
    ):
        self.transport, self.settle_s, self.progress = transport, settle_s, progress
        self._specs: tuple[LoadSpec, ...] | None = None
        self._active: list[ActiveLoad] = []
        self._scratch: contextlib.ExitStack | None = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop_all()

    @contextlib.contextmanager
    def hold(self, specs: tuple[LoadSpec, ...]) -> Iterator[list[ActiveLoad]]:
        """Have ``specs`` running for the length of the ``with`` block and yield them: started and
        settled when they are not what ran before, else checked to be still running. On leaving, each
        notes whether it held and the CPUs' worth of time it used meanwhile. RtscopeError when a load
        cannot start, is not really running, or has ended since the run before."""
        if specs != self._specs:
            self._stop_all()
            self._start_all(specs)
        started = [load for load in self._active if load.processes]
        for load in started:
            _note_ended(self.transport, load)
            if load.ended_early:
                raise RtscopeError(f"load {load.spec} ended since the run before: {'; '.join(load.ended_early)}")
        meter = _Meter(self.transport, started)
        try:
            yield self._active
        finally:
            meter.record()
            for load in started:
                _note_ended(self.transport, load)

    def _start_all(self, specs: tuple[LoadSpec, ...]) -> None:
        self._specs = specs
        tools = [spec for spec in specs if spec.kind.tool]
        self._scratch = contextlib.ExitStack()
        place = Place(
            self._scratch.enter_context(self.transport.temp_dir()) if tools else "",
            random.randint(*_PORTS),
            cpu_count(self.transport),
        )
        self._active = [ActiveLoad(spec, place) for spec in specs]
        started = [load for load in self._active if load.spec.kind.tool]
        if not started:
            return
        try:
            for load in started:
                _start(self.transport, load)
            self.progress(f"load {', '.join(str(load.spec) for load in started)}: settling {self.settle_s:g} s")
            self._settle_and_verify(started)
        except BaseException:
            self._stop_all()
            raise

    def _settle_and_verify(self, started: list[ActiveLoad]) -> None:
        """Wait half the settle time, then check each load's CPU use over the other half. A load below
        its share gets up to _EXTRA_WINDOWS more such windows: a tool that forks dozens of processes
        (hackbench) can take longer than a short settle time to get going on a busy machine, and that
        is not a tool that does not run."""
        time.sleep(self.settle_s / 2)
        for _ in range(1 + _EXTRA_WINDOWS):
            meter = _Meter(self.transport, started)
            time.sleep(self.settle_s / 2)
            meter.record()
            lagging = self._lagging(started)
            if not lagging:
                return
        load, expected = lagging[0]
        used = load.cpus_used or 0.0
        # A load that ran (any fair share is some) while other work had the CPUs it lacked was crowded out,
        # not broken: the reason is the machine, and a run under it would not be under the load asked for.
        if used >= _RAN_CPUS and meter.idle_cpus is not None and meter.idle_cpus < (expected - used) / 2:
            raise RtscopeError(
                f"load {load.spec} did not get its CPUs on a busy machine: its processes used {used:g} CPUs "
                f"in the settle time, expected about {expected:.3g}, while other work kept the rest busy "
                f"({meter.idle_cpus:.2g} CPUs idle)"
            )
        raise RtscopeError(
            f"load {load.spec} is not really running: its processes used {used:g} "
            f"CPUs in the settle time, expected about {expected:.3g}"
        )

    def _lagging(self, started: list[ActiveLoad]) -> list[tuple[ActiveLoad, float]]:
        """The loads that used less than MIN_EXPECTED_SHARE of the CPU time they should have in the last
        window, each with that time (loads that together ask for more CPUs than there are share them).
        RtscopeError for a load that has ended."""
        wanted = sum(load.expected_cpus for load in started)
        crowding = min(1.0, started[0].place.cpus / wanted) if wanted else 1.0
        lagging = []
        for load in started:
            _note_ended(self.transport, load)
            if load.ended_early:
                raise RtscopeError(f"load {load.spec} ended while settling: {'; '.join(load.ended_early)}")
            assert load.cpus_used is not None  # the meter recorded it
            if load.cpus_used < load.expected_cpus * crowding * MIN_EXPECTED_SHARE:
                lagging.append((load, load.expected_cpus * crowding))
        return lagging

    def _stop_all(self) -> None:
        for load in self._active:
            _stop(self.transport, load)
        self._active, self._specs = [], None
        if self._scratch is not None:
            self._scratch.close()
            self._scratch = None


class _Meter:
    """The CPU time of the loads' process groups and the loopback traffic from now to :meth:`record`."""

    def __init__(self, transport: Transport, loads: list[ActiveLoad]):
        self.transport, self.loads = transport, loads
        self.started = time.monotonic()
        snapshot = _processes(transport) if loads else []
        self.cpu = [_group_cpu_s(snapshot, load) for load in loads]
        self.loopback = _loopback_bytes(transport) if any(load.spec.kind.name == "net" for load in loads) else 0
        self.idle_s = _idle_s(transport) if loads else None
        self.idle_cpus: float | None = None  # the CPUs' worth of idle time, once recorded (None: unknown)

    def record(self) -> None:
        """Set each load's CPUs' worth of time used, and for net the bytes per second through loopback."""
        if not self.loads:
            return
        elapsed = max(time.monotonic() - self.started, 1e-3)
        snapshot = _processes(self.transport)
        idle_s = _idle_s(self.transport)
        if idle_s is not None and self.idle_s is not None:
            self.idle_cpus = round((idle_s - self.idle_s) / elapsed, 3)
        for load, before in zip(self.loads, self.cpu, strict=True):
            load.cpus_used = round((_group_cpu_s(snapshot, load) - before) / elapsed, 3)
            if load.spec.kind.name == "net":
                load.loopback_bytes_per_s = round((_loopback_bytes(self.transport) - self.loopback) / elapsed)


def _start(transport: Transport, load: ActiveLoad) -> None:
    for number, command in enumerate(load.spec.kind.commands(load.spec.values(), load.place)):
        log = f"{load.place.scratch}/{load.spec.kind.name}-{number}.log"
        try:
            process = transport.spawn(command, log)
        except RtscopeError as error:
            raise RtscopeError(f"load {load.spec}: {error}") from None
        load.processes.append(process)
        load.commands.append(command)
        load.logs.append(log)
        if command[:2] == ["iperf3", "-s"]:
            _await_listening(transport, load.place.port, process)


def _await_listening(transport: Transport, port: int, server: Process) -> None:
    """Wait until a socket listens on 127.0.0.1:port there (/proc/net/tcp, state 0A: LISTEN)."""
    wanted = f"0100007F:{port:04X}"
    deadline = time.monotonic() + _LISTEN_TIMEOUT_S
    while time.monotonic() < deadline and server.poll() is None:
        table = transport.read_file("/proc/net/tcp").decode(errors="replace").splitlines()[1:]
        if any(
            fields[1] == wanted and fields[3] == "0A" for fields in (line.split() for line in table) if len(fields) > 3
        ):
            return
        time.sleep(0.05)
    raise RtscopeError(f"load net: the iperf3 server did not start listening on 127.0.0.1:{port}")


Snapshot = list[tuple[int, str, int]]  # each process: its group, its state letter, CPU ticks used


def _processes(transport: Transport) -> Snapshot:
    """Every process on the target now (/proc/PID/stat)."""
    return parse_stats(transport.run(_ALL_STATS, timeout_s=ASK_TIMEOUT_S).stdout.decode(errors="replace"))


def parse_stats(text: str, *, reaped: bool = False) -> Snapshot:
    """The processes of /proc/PID/stat lines, one a line; with ``reaped``, a process's CPU time includes
    that of its children it has waited for (a load of short-lived processes)."""
    snapshot = []
    for line in text.splitlines():
        # Fields after the parenthesised command: state ppid pgrp … utime(14) stime(15) cutime cstime.
        fields = line.rsplit(")", 1)[-1].split()
        if len(fields) > 14:
            children = int(fields[13]) + int(fields[14]) if reaped else 0
            snapshot.append((int(fields[2]), fields[0], int(fields[11]) + int(fields[12]) + children))
    return snapshot


# Linux counts CPU time in USER_HZ ticks, 100 per second on every architecture.
_TICKS_PER_S = 100


def _group_cpu_s(snapshot: Snapshot, load: ActiveLoad) -> float:
    return groups_cpu_s(snapshot, {process.pid for process in load.processes})


def groups_cpu_s(snapshot: Snapshot, groups: set[int]) -> float:
    """CPU seconds used so far by the live processes of the process groups ``groups``."""
    return sum(ticks for group, _, ticks in snapshot if group in groups) / _TICKS_PER_S


def _idle_s(transport: Transport) -> float | None:
    """The seconds every CPU of the target has been idle (idle and iowait) since boot; None where
    /proc/stat does not say."""
    try:
        fields = transport.read_file("/proc/stat").decode(errors="replace").split("\n", 1)[0].split()
        return (int(fields[4]) + int(fields[5])) / _TICKS_PER_S
    except (OSError, IndexError, ValueError):
        return None


def _loopback_bytes(transport: Transport) -> int:
    return loopback_bytes(transport.read_file("/proc/net/dev").decode(errors="replace"))


def loopback_bytes(net_dev: str) -> int:
    """Bytes sent over the loopback interface since boot, from the text of /proc/net/dev."""
    for line in net_dev.splitlines():
        name, _, counters = line.partition(":")
        if name.strip() == "lo":
            return int(counters.split()[8])
    return 0


def _note_ended(transport: Transport, load: ActiveLoad) -> None:
    """Note each of the load's processes that is no longer running, with its status and last words."""
    for process, command, log in zip(load.processes, load.commands, load.logs, strict=True):
        status = process.poll()
        if status is not None and not any(note.startswith(command[0]) for note in load.ended_early):
            said: list[str] = []
            with contextlib.suppress(OSError):
                said = transport.read_file(log).decode(errors="replace").strip().splitlines()
            tail = f" ({said[-1].strip()})" if said else ""
            load.ended_early.append(f"{command[0]} exited with status {status}{tail}")


def _stop(transport: Transport, load: ActiveLoad) -> None:
    """SIGTERM each process group, SIGKILL what is left after STOP_TIMEOUT_S; count what survived.

    A group's leader ending is seen here (a tool waits for its workers before it ends); only then is the
    target asked about the rest of its group, each question a round trip to a remote target."""
    for process in load.processes:
        process.signal_group(signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT_S
    left_behind = 0
    for process in load.processes:
        process.wait(max(0.0, deadline - time.monotonic()))
        while (alive := _group_alive(transport, process.pid)) and time.monotonic() < deadline:
            time.sleep(0.02)
        if alive:
            process.signal_group(signal.SIGKILL)
            process.wait(STOP_TIMEOUT_S)
            alive = _group_alive(transport, process.pid)
        left_behind += alive
    load.left_behind = left_behind


def _group_alive(transport: Transport, pgid: int) -> bool:
    """Whether a process of group pgid other than a zombie remains."""
    return any(group == pgid and state != "Z" for group, state, _ in _processes(transport))
