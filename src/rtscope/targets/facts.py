"""Facts about the measured system that matter to real-time work, from the target.

What the probe knows of the system — the ``system`` of every result, with its preemption model and
virtualisation by the probe's own rules (probe/port/posix/sysinfo_posix.h) — comes from the probe
there (``rtscope-probe system``, run by the target as it runs the probe: :func:`probe`). The rest is
read through the target's transport, one function per family of facts. :func:`gather` reads them all.
Each returns a plain dict (what ``rtscope doctor --format json`` prints under ``facts``) in which a
fact that cannot be read — a file the kernel does not have, one the user may not read, a probe that
cannot run there — is None ("unknown"), never an exception. Only a transport that cannot reach the
machine at all (RtscopeError) ends the gathering. Judging the facts is rtscope.analysis.readiness's
job; here they are only read and parsed.
"""

import argparse
import fnmatch
import json
import re
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from rtscope.errors import ProbeError, RtscopeError
from rtscope.model import result, values
from rtscope.targets import Target, kernels, worker
from rtscope.targets.transport import ASK_TIMEOUT_S, FETCH_TIMEOUT_S, Completed, Transport

CPU_SYSFS = "/sys/devices/system/cpu"
THP_SYSFS = "/sys/kernel/mm/transparent_hugepage"
CLOCKSOURCE_SYSFS = "/sys/devices/system/clocksource/clocksource0"
CPU_DMA_LATENCY = "/dev/cpu_dma_latency"
# What ``rtscope-probe system`` prints: the format name and version of its document.
SYSTEM_FORMAT, SYSTEM_VERSION = "rtscope-system", 1
# More idle states than any CPU has: a bound for reading state0, state1, … until one is missing.
_MAX_IDLE_STATES = 32

Facts = dict[str, Any]


# Every file the families read, as shell globs, fetched at once by :func:`gather` (one round trip to a
# board, where one read at a time took 35).
_FILES = (
    "/proc/cmdline",
    "/proc/sys/kernel/sched_rt_runtime_us",
    "/proc/sys/kernel/sched_rt_period_us",
    f"{CPU_SYSFS}/online",
    f"{CPU_SYSFS}/isolated",
    f"{CPU_SYSFS}/nohz_full",
    f"{CPU_SYSFS}/smt/control",
    f"{CPU_SYSFS}/smt/active",
    f"{CPU_SYSFS}/cpu0/topology/thread_siblings_list",
    f"{CPU_SYSFS}/cpu[0-9]*/cpufreq/scaling_governor",
    f"{CPU_SYSFS}/cpu0/cpufreq/scaling_driver",
    f"{CPU_SYSFS}/cpufreq/boost",
    f"{CPU_SYSFS}/intel_pstate/no_turbo",
    f"{CPU_SYSFS}/cpu0/cpuidle/state[0-9]*/name",
    f"{CPU_SYSFS}/cpu0/cpuidle/state[0-9]*/latency",
    f"{CPU_SYSFS}/cpu0/cpuidle/state[0-9]*/disable",
    f"{CPU_SYSFS}/cpuidle/current_driver",
    CPU_DMA_LATENCY,
    f"{THP_SYSFS}/enabled",
    f"{THP_SYSFS}/defrag",
    "/proc/swaps",
    "/proc/sys/vm/swappiness",
    f"{CLOCKSOURCE_SYSFS}/available_clocksource",
    f"{CLOCKSOURCE_SYSFS}/current_clocksource",
    "/proc/self/timerslack_ns",
)


class Source(Protocol):
    """What the families read through: a transport's files and commands."""

    name: str

    def read_file(self, path: str) -> bytes: ...

    def run(self, argv: Sequence[str], *, timeout_s: float | None = None) -> Completed: ...


# The commands the families run, answered in the same job as the files where the transport takes one
# job at a time (OneJobTransport).
_IRQBALANCE = ("pgrep", "-x", "irqbalance")


@runtime_checkable
class OneJobTransport(Protocol):
    """A transport whose every command is a job of its own that costs as much as the machine's start (a
    QEMU guest: a boot each), which can read files and run commands in one job."""

    def read_files_and_run(
        self, patterns: Sequence[str], commands: Sequence[Sequence[str]], *, timeout_s: float
    ) -> tuple[dict[str, bytes | None], list[Completed]]:
        """The files ``patterns`` name, as ``read_files`` gives them, and how each command ended, in order,
        all in one job."""


@runtime_checkable
class ProbeOnTransport(Protocol):
    """A target whose probe runs as a command of its transport (``system_argv``: its ``rtscope-probe
    system``), so that the probe's facts can come in the same job as the others'."""

    name: str
    system_argv: tuple[str, ...]


class _Prefetched:
    """The transport, with the files of _FILES read beforehand, and the ``commands`` run beforehand: a path
    one of its globs covers is answered from them (missing when the glob did not find it), a command from
    its outcome; any other is read or run through."""

    def __init__(
        self,
        transport: Transport,
        files: dict[str, bytes | None] | None = None,
        commands: dict[tuple[str, ...], Completed] | None = None,
    ):
        self.transport, self.name = transport, transport.name
        self.files = transport.read_files(_FILES) if files is None else files
        self.commands = commands or {}

    def read_file(self, path: str) -> bytes:
        if path in self.files:
            content = self.files[path]
            if content is None:
                raise PermissionError(13, "Permission denied", path)
            return content
        if any(fnmatch.fnmatchcase(path, pattern) for pattern in _FILES):
            raise FileNotFoundError(2, "No such file or directory", path)
        return self.transport.read_file(path)

    def run(self, argv: Sequence[str], *, timeout_s: float | None = None) -> Completed:
        if tuple(argv) in self.commands:
            return self.commands[tuple(argv)]
        return self.transport.run(argv, timeout_s=timeout_s)


def gather(target: Target) -> dict[str, Facts]:
    """Every family of facts, by family name: the transport's first (a target it cannot reach ends
    the gathering there), then the probe's. Where the transport takes one job at a time and the probe
    runs on it (a QEMU guest), the files, the commands and the probe's system come in one job (one boot,
    where they took three)."""
    transport = target.transport
    if isinstance(transport, OneJobTransport) and isinstance(target, ProbeOnTransport):
        commands = (_IRQBALANCE, target.system_argv)
        files, outcomes = transport.read_files_and_run(_FILES, commands, timeout_s=FETCH_TIMEOUT_S)
        source = _Prefetched(transport, files, dict(zip(commands, outcomes, strict=True)))
        return _families(source, _probe_answer(outcomes[-1], target.name))
    return _families(_Prefetched(transport), probe(target))


def _families(source: Source, probed: Facts) -> dict[str, Facts]:
    return {
        "kernel": kernel(source),
        "rt_throttling": rt_throttling(source),
        "cpus": cpus(source),
        "cpufreq": cpufreq(source),
        "idle": idle(source),
        "memory": memory(source),
        "clocksource": clocksource(source),
        "timer_slack": timer_slack(source),
        "irqbalance": irqbalance(source),
        "probe": probed,
    }


def _probe_answer(completed: Completed, who: str) -> Facts:
    """probe's facts from what the probe's ``system`` printed and how it ended."""
    try:
        return {"system": read_system(completed, who), "error": None}
    except RtscopeError as error:
        return {"system": None, "error": str(error)}


def probe(target: Target) -> Facts:
    """system: what the probe there knows of the system, as every result records it (kernel,
    preemption model, PREEMPT_RT, virtualisation, …: schema/result-v4.schema.json's ``system``);
    None when the probe cannot run there, and error says why in one line (else None). A board whose image
    has no kernel to be built from (kernels.KernelMissing) is the user's to fix before anything can be
    told of it: that error goes on."""
    try:
        return {"system": target.probe_system(), "error": None}
    except kernels.KernelMissing:
        raise
    except RtscopeError as error:
        return {"system": None, "error": str(error)}


def probe_system(transport: Transport, probe_path: str, who: str) -> dict[str, Any]:
    """The system the probe at ``probe_path`` there reports (``rtscope-probe system``); ``who`` names
    it in messages. ProbeError in one line when it fails or prints something else."""
    return read_system(transport.run([probe_path, "system"], timeout_s=FETCH_TIMEOUT_S), who)


def read_system(completed: Completed, who: str) -> dict[str, Any]:
    """The validated ``system`` of what ``rtscope-probe system`` printed, given how it ended."""
    if completed.status != 0:
        said = completed.stderr.decode(errors="replace") or completed.stdout.decode(errors="replace")
        raise ProbeError(f"{who} system failed: {worker.last_line(said) or f'exit status {completed.status}'}")
    try:
        document = json.loads(completed.stdout.decode())
    except ValueError:  # not UTF-8, or not JSON
        raise ProbeError(f"{who} system printed no JSON document") from None
    header = (document.get("format"), document.get("version")) if isinstance(document, dict) else None
    if header != (SYSTEM_FORMAT, SYSTEM_VERSION):
        raise ProbeError(f"{who} system printed no {SYSTEM_FORMAT} document of version {SYSTEM_VERSION}")
    try:
        return result.validate_system(document.get("system"), f"{who} system")
    except RtscopeError as error:
        raise ProbeError(str(error)) from None


def kernel(source: Source) -> Facts:
    """cmdline: the kernel command line, whole (the probe's copy may be cut)."""
    return {"cmdline": read_text(source, "/proc/cmdline")}


def rt_throttling(source: Source) -> Facts:
    """runtime_us of every period_us that real-time tasks may use (runtime_us -1: no throttling)."""
    return {
        "runtime_us": read_int(source, "/proc/sys/kernel/sched_rt_runtime_us"),
        "period_us": read_int(source, "/proc/sys/kernel/sched_rt_period_us"),
    }


def cpus(source: Source) -> Facts:
    """online, isolated and nohz_full as the kernel lists CPUs ("0-3,6"; isolated "" when none);
    nohz_full is None when the kernel was built without it. smt_control (on, off, forceoff,
    notsupported…) and smt_active where the kernel has SMT control, else cpu0's thread siblings."""
    nohz_full = read_text(source, f"{CPU_SYSFS}/nohz_full")
    return {
        "online": read_text(source, f"{CPU_SYSFS}/online"),
        "isolated": read_text(source, f"{CPU_SYSFS}/isolated"),
        # A kernel with NO_HZ_FULL but none of it in use prints "(null)".
        "nohz_full": "" if nohz_full == "(null)" else nohz_full,
        "smt_control": read_text(source, f"{CPU_SYSFS}/smt/control"),
        "smt_active": _flag(read_int(source, f"{CPU_SYSFS}/smt/active")),
        "cpu0_thread_siblings": read_text(source, f"{CPU_SYSFS}/cpu0/topology/thread_siblings_list"),
    }


def cpufreq(source: Source) -> Facts:
    """governors: each online CPU's scaling governor by CPU number ({} when no CPU has a cpufreq
    policy, None when the online CPUs cannot be read); driver: cpu0's scaling driver; boost: whether
    frequency boost (turbo) is on, from cpufreq/boost or intel_pstate/no_turbo, None without either."""
    try:
        online = values.cpu_list(read_text(source, f"{CPU_SYSFS}/online") or "")
    except argparse.ArgumentTypeError:
        online = None  # not there, or not a CPU list
    governors = None
    if online is not None:
        governors = {}
        for cpu in online:
            governor = read_text(source, f"{CPU_SYSFS}/cpu{cpu}/cpufreq/scaling_governor")
            if governor is not None:
                governors[str(cpu)] = governor
    boost = _flag(read_int(source, f"{CPU_SYSFS}/cpufreq/boost"))
    if boost is None:
        no_turbo = _flag(read_int(source, f"{CPU_SYSFS}/intel_pstate/no_turbo"))
        boost = None if no_turbo is None else not no_turbo
    return {
        "governors": governors,
        "driver": read_text(source, f"{CPU_SYSFS}/cpu0/cpufreq/scaling_driver"),
        "boost": boost,
    }


def idle(source: Source) -> Facts:
    """driver: the cpuidle driver ("none" when there is none); states: cpu0's idle states in order,
    each with name, exit latency_us and disabled; cpu_dma_latency: whether /dev/cpu_dma_latency
    exists (through which rtscope holds idle states shallow while it measures)."""
    states = []
    for number in range(_MAX_IDLE_STATES):
        directory = f"{CPU_SYSFS}/cpu0/cpuidle/state{number}"
        name = read_text(source, f"{directory}/name")
        if name is None:
            break
        states.append(
            {
                "name": name,
                "latency_us": read_int(source, f"{directory}/latency"),
                "disabled": _flag(read_int(source, f"{directory}/disable")),
            }
        )
    return {
        "driver": read_text(source, f"{CPU_SYSFS}/cpuidle/current_driver"),
        "states": states,
        "cpu_dma_latency": exists(source, CPU_DMA_LATENCY),
    }


def memory(source: Source) -> Facts:
    """thp_enabled and thp_defrag: the selected transparent huge page modes; swaps: the active swap
    areas (name, size_kib), [] when none; swappiness."""
    return {
        "thp_enabled": _bracketed(read_text(source, f"{THP_SYSFS}/enabled")),
        "thp_defrag": _bracketed(read_text(source, f"{THP_SYSFS}/defrag")),
        "swaps": _swaps(read_text(source, "/proc/swaps")),
        "swappiness": read_int(source, "/proc/sys/vm/swappiness"),
    }


def clocksource(source: Source) -> Facts:
    """current: the clocksource timestamps are read from; available: the ones the kernel could use."""
    available = read_text(source, f"{CLOCKSOURCE_SYSFS}/available_clocksource")
    return {
        "current": read_text(source, f"{CLOCKSOURCE_SYSFS}/current_clocksource"),
        "available": None if available is None else available.split(),
    }


def timer_slack(source: Source) -> Facts:
    """ns: the timer slack of a process started there, as the probe is (the reader's own, which it
    inherited the way the probe inherits it)."""
    return {"ns": read_int(source, "/proc/self/timerslack_ns")}


def irqbalance(source: Source) -> Facts:
    """running: whether an irqbalance daemon runs (pgrep); None when that cannot be asked."""
    try:
        status = source.run(_IRQBALANCE, timeout_s=ASK_TIMEOUT_S).status
    except RtscopeError:
        return {"running": None}  # no pgrep there
    return {"running": {0: True, 1: False}.get(status)}


def read_text(source: Source, path: str) -> str | None:
    """The file's text without surrounding white space; None when it cannot be read."""
    try:
        return source.read_file(path).decode().strip()
    except (OSError, UnicodeDecodeError):
        return None


def read_int(source: Source, path: str) -> int | None:
    """The integer the file holds; None when it cannot be read or holds no integer."""
    text = read_text(source, path)
    try:
        return None if text is None else int(text)
    except ValueError:
        return None


def exists(source: Source, path: str) -> bool:
    """Whether the file is there. A file that cannot be read still is: a root-only device read by
    another user fails with "Permission denied" (an SSH transport reports that as a plain OSError)."""
    try:
        source.read_file(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True
    return True


def _flag(value: int | None) -> bool | None:
    return None if value is None else value != 0


def _bracketed(text: str | None) -> str | None:
    """The selected choice of a sysfs choice list: "always [madvise] never" gives "madvise"."""
    match = re.search(r"\[([^\]]+)\]", text or "")
    return match[1] if match else None


def _swaps(text: str | None) -> list[dict[str, Any]] | None:
    """The areas of /proc/swaps, after its header line."""
    if text is None:
        return None
    areas = []
    for line in text.splitlines()[1:]:
        fields = line.split()
        if len(fields) >= 3:
            areas.append({"name": fields[0], "size_kib": int(fields[2]) if fields[2].isdigit() else None})
    return areas
