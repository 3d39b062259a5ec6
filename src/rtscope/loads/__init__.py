"""Disturbance loads: the conditions a run measures under (idle, CPU, memory, disk I/O, network, scheduler).

Each load is the real tool (stress-ng, iperf3, hackbench) started in its own process group before the
probe, given time to settle, checked to be really running — its CPU use, and for ``net`` the bytes
through loopback, are measured and recorded in the result — and always stopped afterwards: on success,
error or Ctrl-C (the ``with`` block of :func:`running`), and if rtscope itself dies (each tool gets
SIGKILL when its parent ends). A load that has ended by the time the probe ends did not hold for the
whole run; the result says so.
"""

import contextlib
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtscope.model import values
from rtscope.errors import RtscopeError

DEFAULT_SETTLE_S = 2.0
# Longest a load may run: it bounds the network stream even if everything else failed.
MAX_LOAD_S = 3600
STOP_TIMEOUT_S = 5.0
# A load is running when its processes use at least this share of the CPU time it should take (a
# stalled or failed tool uses next to none; loads that together ask for more CPUs than there are get
# their share of what there is).
MIN_EXPECTED_SHARE = 0.25
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class Param:
    """A load parameter: its default (as text), what it means, and how its text is read."""

    default: str
    description: str
    convert: Callable[[str], Any]


def _percent(text: str) -> int:
    value = values.positive(text)
    if value > 100:
        raise ValueError(f"{text!r} is not a percentage of 1..100")
    return value


def _size(text: str) -> str:
    """A size stress-ng reads: a number with an optional K, M or G."""
    digits = text[:-1] if text[-1:].upper() in ("K", "M", "G") else text
    if not digits.isdigit() or int(digits) == 0:
        raise ValueError(f"{text!r} is not a size such as 256M")
    return text


def _cpus(text: str) -> str:
    """CPUs as stress-ng's --taskset reads them; "all": every CPU."""
    return text if text == "all" else ",".join(map(str, values.cpu_list(text.replace("+", ","))))


@dataclass(frozen=True)
class LoadKind:
    """One kind of load: the tool behind it, its parameters, the processes it starts, what it should use."""

    name: str
    summary: str
    tool: str | None          # the executable it needs (None: idle)
    package: str | None       # the Debian package that provides it
    params: dict[str, Param]
    # (settings, scratch directory, loopback port) -> the commands to start, in order
    commands: Callable[[dict[str, Any], Path, int], list[list[str]]]
    # settings -> CPUs' worth of time its processes should use when running
    expected_cpus: Callable[[dict[str, Any]], float]


def _cpu_count(settings: dict[str, Any]) -> int:
    return (os.cpu_count() or 1) if settings["cpus"] == "all" else len(settings["cpus"].split(","))


def _taskset(settings: dict[str, Any]) -> list[str]:
    return [] if settings["cpus"] == "all" else ["--taskset", settings["cpus"]]


def _stress(*args: str) -> list[str]:
    return ["stress-ng", *args, "--timeout", f"{MAX_LOAD_S}s", "--quiet"]


_CPUS = Param("all", "CPUs to load, e.g. 1 or 0-1 (+ joins CPUs: 0+2)", _cpus)
_WORKERS = Param("1", "worker processes", values.positive)

KINDS = {kind.name: kind for kind in (
    LoadKind("idle", "no load: the system as it is", None, None, {},
             lambda s, d, p: [], lambda s: 0.0),
    LoadKind("cpu", "stress-ng CPU stressors, one per CPU", "stress-ng", "stress-ng",
             {"cpus": _CPUS, "load": Param("100", "percent of each CPU to use", _percent)},
             lambda s, d, p: [_stress("--cpu", str(_cpu_count(s)), "--cpu-load", str(s["load"]), *_taskset(s))],
             lambda s: _cpu_count(s) * s["load"] / 100),
    LoadKind("memory", "stress-ng vm: workers writing and checking memory", "stress-ng", "stress-ng",
             {"workers": _WORKERS, "bytes": Param("256M", "memory per worker", _size)},
             lambda s, d, p: [_stress("--vm", str(s["workers"]), "--vm-bytes", s["bytes"])],
             lambda s: s["workers"] * 0.5),
    LoadKind("io", "stress-ng hdd: workers writing and reading files in a scratch directory", "stress-ng",
             "stress-ng", {"workers": _WORKERS, "bytes": Param("64M", "file size per worker", _size)},
             lambda s, d, p: [_stress("--hdd", str(s["workers"]), "--hdd-bytes", s["bytes"], "--temp-path", str(d))],
             lambda s: s["workers"] * 0.1),
    LoadKind("net", "iperf3 UDP stream over loopback at full speed (server and client)", "iperf3", "iperf3",
             {"bitrate": Param("0", "target bits/s, e.g. 100M; 0: as fast as it goes", lambda t: t if t == "0"
                               else _size(t))},
             lambda s, d, p: [["iperf3", "-s", "-B", "127.0.0.1", "-p", str(p)],
                              ["iperf3", "-c", "127.0.0.1", "-p", str(p), "-u", "-b", s["bitrate"],
                               "-t", str(MAX_LOAD_S)]],
             lambda s: 0.5),
    LoadKind("sched", "hackbench: groups of processes passing messages, scheduler-heavy", "hackbench",
             "rt-tests", {"groups": Param("2", "hackbench groups of 20 processes", values.positive)},
             lambda s, d, p: [["hackbench", "-P", "-g", str(s["groups"]), "-l", "1000000000"]],
             lambda s: 1.0),
)}


@dataclass(frozen=True)
class LoadSpec:
    """A load to run: its kind and parameter settings (text, as given)."""

    kind: LoadKind
    settings: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        return ":".join([self.kind.name, *(f"{key}={value}" for key, value in self.settings)])

    def values(self) -> dict[str, Any]:
        """Every parameter's value: the settings given, the defaults for the rest."""
        given = dict(self.settings)
        return {name: param.convert(given.get(name, param.default)) for name, param in self.kind.params.items()}


def parse(texts: list[str]) -> tuple[LoadSpec, ...]:
    """The loads of ``--load`` values: "cpu,net" (names), or one load with parameters, "cpu:cpus=1:load=50".

    Raises RtscopeError naming the value for an unknown load or parameter, a bad value, a load named
    twice, or idle combined with another load.
    """
    specs: list[LoadSpec] = []
    for text in texts:
        specs += [_parse_one(text)] if ":" in text else [_parse_one(name) for name in text.split(",")]
    names = [spec.kind.name for spec in specs]
    for name in names:
        if names.count(name) > 1:
            raise RtscopeError(f"--load: {name} is named twice")
    if "idle" in names and len(names) > 1:
        raise RtscopeError("--load: idle cannot be combined with another load")
    return tuple(specs)


def _parse_one(text: str) -> LoadSpec:
    name, *pairs = text.strip().split(":")
    kind = KINDS.get(name)
    if kind is None:
        raise RtscopeError(f"--load {text}: unknown load {name!r} (known: {', '.join(KINDS)})")
    settings = []
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or key not in kind.params:
            known = ", ".join(kind.params) or "none"
            raise RtscopeError(f"--load {text}: {pair!r} is not KEY=VALUE with a parameter of {name} "
                               f"(its parameters: {known})")
        settings.append((key, value))
    spec = LoadSpec(kind, tuple(settings))
    try:
        spec.values()
    except ValueError as error:
        raise RtscopeError(f"--load {text}: {error}") from None
    return spec


def check_tools(specs: tuple[LoadSpec, ...]) -> None:
    """Raise RtscopeError naming the package to install when a load's tool is missing."""
    for spec in specs:
        kind = spec.kind
        if kind.tool and shutil.which(kind.tool) is None:
            raise RtscopeError(f"load {kind.name} needs {kind.tool}, which is not installed "
                               f"(Debian package {kind.package}; ./setup.sh installs it)")


@dataclass
class ActiveLoad:
    """A started load: its processes (each leads its own process group) and what was measured of it."""

    spec: LoadSpec
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    commands: list[list[str]] = field(default_factory=list)
    stderr_paths: list[Path] = field(default_factory=list)
    cpus_used: float | None = None
    loopback_bytes_per_s: float | None = None
    ended_early: list[str] = field(default_factory=list)
    left_behind: int = 0

    def record(self) -> dict[str, Any]:
        """What the result keeps of this load."""
        return {"name": self.spec.kind.name, "settings": {k: str(v) for k, v in self.spec.values().items()},
                "commands": self.commands, "cpus_used": self.cpus_used,
                "loopback_bytes_per_s": self.loopback_bytes_per_s,
                "held": not self.ended_early, "ended_early": self.ended_early}


@contextlib.contextmanager
def running(specs: tuple[LoadSpec, ...], settle_s: float = DEFAULT_SETTLE_S,
            progress: Callable[[str], None] = lambda line: None) -> Iterator[list[ActiveLoad]]:
    """Start ``specs``, let them settle, verify each runs; yield them; stop them all on leaving.

    On leaving, each load notes whether it was still running (``held``), and every process group is
    stopped (SIGTERM, then SIGKILL after STOP_TIMEOUT_S). Raises RtscopeError when a load cannot start
    or is not really running after the settle time (the loads started are stopped first).
    """
    check_tools(specs)
    active = [ActiveLoad(spec) for spec in specs]
    started = [load for load in active if load.spec.kind.tool]
    with tempfile.TemporaryDirectory(prefix="rtscope-load-") as scratch:
        try:
            for load in started:
                _start(load, Path(scratch))
            if started:
                progress(f"load {', '.join(str(load.spec) for load in started)}: settling {settle_s:g} s")
                _settle_and_verify(started, settle_s)
            yield active
        finally:
            for load in active:
                _note_ended(load)
            for load in active:
                _stop(load)


def _start(load: ActiveLoad, scratch: Path) -> None:
    settings = load.spec.values()
    port = _free_loopback_port()
    for number, command in enumerate(load.spec.kind.commands(settings, scratch, port)):
        # stderr to a file: a pipe nobody reads could fill and stall the tool.
        with open(scratch / f"{load.spec.kind.name}-{number}.stderr", "wb") as stderr:
            try:
                process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                           stderr=stderr, start_new_session=True, preexec_fn=_die_with_parent)
            except OSError as error:
                raise RtscopeError(f"load {load.spec}: cannot start {command[0]}: {error.strerror}") from None
        load.processes.append(process)
        load.commands.append(command)
        load.stderr_paths.append(scratch / f"{load.spec.kind.name}-{number}.stderr")
        if command[:2] == ["iperf3", "-s"]:
            _await_listening(port, process)


def _die_with_parent() -> None:
    """In the child before exec: SIGKILL it when rtscope ends, however it ends (Linux)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _free_loopback_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _await_listening(port: int, server: subprocess.Popen[bytes], timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and server.poll() is None:
        with socket.socket() as client:
            if client.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RtscopeError(f"load net: the iperf3 server did not start listening on 127.0.0.1:{port}")


def _settle_and_verify(active: list[ActiveLoad], settle_s: float) -> None:
    """Wait half the settle time, then measure each load over the other half."""
    time.sleep(settle_s / 2)
    start, cpu_start, lo_start = time.monotonic(), [_group_cpu_s(load) for load in active], _loopback_bytes()
    time.sleep(settle_s / 2)
    elapsed = time.monotonic() - start
    expected_cpus = [load.spec.kind.expected_cpus(load.spec.values()) for load in active]
    wanted = sum(expected_cpus)
    crowding = min(1.0, (os.cpu_count() or 1) / wanted) if wanted else 1.0
    for load, before, expected in zip(active, cpu_start, expected_cpus):
        load.cpus_used = round((_group_cpu_s(load) - before) / elapsed, 3)
        if load.spec.kind.name == "net":
            load.loopback_bytes_per_s = round((_loopback_bytes() - lo_start) / elapsed)
        _note_ended(load)
        if load.ended_early:
            raise RtscopeError(f"load {load.spec} ended while settling: {'; '.join(load.ended_early)}")
        if load.cpus_used < expected * crowding * MIN_EXPECTED_SHARE:
            raise RtscopeError(f"load {load.spec} is not really running: its processes used {load.cpus_used:g} "
                               f"CPUs in the settle time, expected about {expected * crowding:.3g}")


def _processes() -> Iterator[tuple[int, str, int]]:
    """Each process now: its process group, its state letter, and the CPU ticks it has used (/proc)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):  # it ended while being read
            # Fields after the parenthesised command: state ppid pgrp … utime(14) stime(15).
            fields = stat.read_text().rsplit(")", 1)[1].split()
            yield int(fields[2]), fields[0], int(fields[11]) + int(fields[12])


def _group_cpu_s(load: ActiveLoad) -> float:
    """CPU seconds used so far by the live processes of the load's process groups."""
    groups = {process.pid for process in load.processes}
    return sum(ticks for group, _, ticks in _processes() if group in groups) / os.sysconf("SC_CLK_TCK")


def _loopback_bytes() -> int:
    """Bytes sent over the loopback interface since boot (/proc/net/dev)."""
    for line in Path("/proc/net/dev").read_text().splitlines():
        name, _, counters = line.partition(":")
        if name.strip() == "lo":
            return int(counters.split()[8])
    return 0


def _note_ended(load: ActiveLoad) -> None:
    """Note each of the load's processes that is no longer running, with its status and last words."""
    for process, command, stderr in zip(load.processes, load.commands, load.stderr_paths):
        if process.poll() is not None and not any(note.startswith(command[0]) for note in load.ended_early):
            said: list[str] = []
            with contextlib.suppress(OSError):
                said = stderr.read_text(errors="replace").strip().splitlines()
            tail = f" ({said[-1].strip()})" if said else ""
            load.ended_early.append(f"{command[0]} exited with status {process.returncode}{tail}")


def _stop(load: ActiveLoad) -> None:
    """SIGTERM each process group, SIGKILL what is left after STOP_TIMEOUT_S; count what survived."""
    for process in load.processes:
        _signal_group(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT_S
    for process in load.processes:
        while _group_alive(process.pid) and time.monotonic() < deadline:
            process.poll()
            time.sleep(0.02)
        if _group_alive(process.pid):
            _signal_group(process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=STOP_TIMEOUT_S)
    load.left_behind = sum(_group_alive(process.pid) for process in load.processes)


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def _group_alive(pgid: int) -> bool:
    """Whether a process of group pgid other than a zombie remains."""
    return any(group == pgid and state != "Z" for group, state, _ in _processes())
