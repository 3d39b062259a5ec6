"""Facts about the measured system that matter to real-time work, read through the target's transport.

One function per family of facts; :func:`gather` reads them all. Each returns a plain dict (what
``rtscope doctor --format json`` prints under ``facts``) in which a fact that cannot be read — a file
the kernel does not have, one the user may not read — is None ("unknown"), never an exception. Only a
transport that cannot reach the machine at all (RtscopeError) ends the gathering. Judging the facts is
rtscope.analysis.readiness's job; here they are only read and parsed.
"""

import argparse
import fnmatch
import re
from collections.abc import Sequence
from typing import Any

from rtscope.errors import RtscopeError
from rtscope.model import values
from rtscope.targets.transport import Completed, Transport

CPU_SYSFS = "/sys/devices/system/cpu"
THP_SYSFS = "/sys/kernel/mm/transparent_hugepage"
CLOCKSOURCE_SYSFS = "/sys/devices/system/clocksource/clocksource0"
CPU_DMA_LATENCY = "/dev/cpu_dma_latency"
# Files whose presence says the system runs in a container (Docker, Podman).
CONTAINER_MARKERS = ("/.dockerenv", "/run/.containerenv")
# More idle states than any CPU has: a bound for reading state0, state1, … until one is missing.
_MAX_IDLE_STATES = 32

Facts = dict[str, Any]


# Every file the families read, as shell globs, fetched at once by :func:`gather` (one round trip to a
# board, where one read at a time took 35).
_FILES = (
    "/proc/sys/kernel/osrelease",
    "/proc/sys/kernel/version",
    "/sys/kernel/realtime",
    "/sys/kernel/debug/sched/preempt",
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
    "/proc/cpuinfo",
    "/sys/class/dmi/id/sys_vendor",
    *CONTAINER_MARKERS,
)


class _Prefetched:
    """The transport, with the files of _FILES read beforehand: a path one of its globs covers is
    answered from them (missing when the glob did not find it); any other is read through."""

    def __init__(self, transport: Transport):
        self.transport, self.name = transport, transport.name
        self.files = transport.read_files(_FILES)

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
        return self.transport.run(argv, timeout_s=timeout_s)


def gather(transport: Transport) -> dict[str, Facts]:
    """Every family of facts, by family name."""
    transport = _Prefetched(transport)  # type: ignore[assignment]
    return {
        "kernel": kernel(transport),
        "rt_throttling": rt_throttling(transport),
        "cpus": cpus(transport),
        "cpufreq": cpufreq(transport),
        "idle": idle(transport),
        "memory": memory(transport),
        "clocksource": clocksource(transport),
        "timer_slack": timer_slack(transport),
        "virtualization": virtualization(transport),
        "irqbalance": irqbalance(transport),
    }


def kernel(transport: Transport) -> Facts:
    """release and version (as uname -r and -v print them), realtime (/sys/kernel/realtime: True on a
    PREEMPT_RT kernel), preempt_mode (the active mode of a PREEMPT_DYNAMIC kernel, from debugfs when
    it is mounted: none, voluntary, full or lazy) and cmdline (the kernel command line)."""
    realtime = read_int(transport, "/sys/kernel/realtime")
    modes = read_text(transport, "/sys/kernel/debug/sched/preempt")
    return {
        "release": read_text(transport, "/proc/sys/kernel/osrelease"),
        "version": read_text(transport, "/proc/sys/kernel/version"),
        "realtime": None if realtime is None else realtime != 0,
        # The active mode is the one in parentheses: "none (voluntary) full".
        "preempt_mode": _parenthesised(modes) if modes is not None else None,
        "cmdline": read_text(transport, "/proc/cmdline"),
    }


def rt_throttling(transport: Transport) -> Facts:
    """runtime_us of every period_us that real-time tasks may use (runtime_us -1: no throttling)."""
    return {
        "runtime_us": read_int(transport, "/proc/sys/kernel/sched_rt_runtime_us"),
        "period_us": read_int(transport, "/proc/sys/kernel/sched_rt_period_us"),
    }


def cpus(transport: Transport) -> Facts:
    """online, isolated and nohz_full as the kernel lists CPUs ("0-3,6"; isolated "" when none);
    nohz_full is None when the kernel was built without it. smt_control (on, off, forceoff,
    notsupported…) and smt_active where the kernel has SMT control, else cpu0's thread siblings."""
    nohz_full = read_text(transport, f"{CPU_SYSFS}/nohz_full")
    return {
        "online": read_text(transport, f"{CPU_SYSFS}/online"),
        "isolated": read_text(transport, f"{CPU_SYSFS}/isolated"),
        # A kernel with NO_HZ_FULL but none of it in use prints "(null)".
        "nohz_full": "" if nohz_full == "(null)" else nohz_full,
        "smt_control": read_text(transport, f"{CPU_SYSFS}/smt/control"),
        "smt_active": _flag(read_int(transport, f"{CPU_SYSFS}/smt/active")),
        "cpu0_thread_siblings": read_text(transport, f"{CPU_SYSFS}/cpu0/topology/thread_siblings_list"),
    }


def cpufreq(transport: Transport) -> Facts:
    """governors: each online CPU's scaling governor by CPU number ({} when no CPU has a cpufreq
    policy, None when the online CPUs cannot be read); driver: cpu0's scaling driver; boost: whether
    frequency boost (turbo) is on, from cpufreq/boost or intel_pstate/no_turbo, None without either."""
    try:
        online = values.cpu_list(read_text(transport, f"{CPU_SYSFS}/online") or "")
    except argparse.ArgumentTypeError:
        online = None  # not there, or not a CPU list
    governors = None
    if online is not None:
        governors = {}
        for cpu in online:
            governor = read_text(transport, f"{CPU_SYSFS}/cpu{cpu}/cpufreq/scaling_governor")
            if governor is not None:
                governors[str(cpu)] = governor
    boost = _flag(read_int(transport, f"{CPU_SYSFS}/cpufreq/boost"))
    if boost is None:
        no_turbo = _flag(read_int(transport, f"{CPU_SYSFS}/intel_pstate/no_turbo"))
        boost = None if no_turbo is None else not no_turbo
    return {
        "governors": governors,
        "driver": read_text(transport, f"{CPU_SYSFS}/cpu0/cpufreq/scaling_driver"),
        "boost": boost,
    }


def idle(transport: Transport) -> Facts:
    """driver: the cpuidle driver ("none" when there is none); states: cpu0's idle states in order,
    each with name, exit latency_us and disabled; cpu_dma_latency: whether /dev/cpu_dma_latency
    exists (through which rtscope holds idle states shallow while it measures)."""
    states = []
    for number in range(_MAX_IDLE_STATES):
        directory = f"{CPU_SYSFS}/cpu0/cpuidle/state{number}"
        name = read_text(transport, f"{directory}/name")
        if name is None:
            break
        states.append(
            {
                "name": name,
                "latency_us": read_int(transport, f"{directory}/latency"),
                "disabled": _flag(read_int(transport, f"{directory}/disable")),
            }
        )
    return {
        "driver": read_text(transport, f"{CPU_SYSFS}/cpuidle/current_driver"),
        "states": states,
        "cpu_dma_latency": exists(transport, CPU_DMA_LATENCY),
    }


def memory(transport: Transport) -> Facts:
    """thp_enabled and thp_defrag: the selected transparent huge page modes; swaps: the active swap
    areas (name, size_kib), [] when none; swappiness."""
    return {
        "thp_enabled": _bracketed(read_text(transport, f"{THP_SYSFS}/enabled")),
        "thp_defrag": _bracketed(read_text(transport, f"{THP_SYSFS}/defrag")),
        "swaps": _swaps(read_text(transport, "/proc/swaps")),
        "swappiness": read_int(transport, "/proc/sys/vm/swappiness"),
    }


def clocksource(transport: Transport) -> Facts:
    """current: the clocksource timestamps are read from; available: the ones the kernel could use."""
    available = read_text(transport, f"{CLOCKSOURCE_SYSFS}/available_clocksource")
    return {
        "current": read_text(transport, f"{CLOCKSOURCE_SYSFS}/current_clocksource"),
        "available": None if available is None else available.split(),
    }


def timer_slack(transport: Transport) -> Facts:
    """ns: the timer slack of a process started there, as the probe is (the reader's own, which it
    inherited the way the probe inherits it)."""
    return {"ns": read_int(transport, "/proc/self/timerslack_ns")}


def virtualization(transport: Transport) -> Facts:
    """hypervisor: whether the CPU reports running under one (the cpuinfo flag; None where the CPU
    has no such flag to show, as on arm64); vendor: the DMI system vendor; container: whether a
    container runtime's marker file is there."""
    cpuinfo = read_text(transport, "/proc/cpuinfo")
    hypervisor = None
    if cpuinfo is not None:
        flags = re.search(r"^flags\s*:(.*)$", cpuinfo, re.MULTILINE)
        hypervisor = None if flags is None else "hypervisor" in flags[1].split()
    return {
        "hypervisor": hypervisor,
        "vendor": read_text(transport, "/sys/class/dmi/id/sys_vendor"),
        "container": any(exists(transport, path) for path in CONTAINER_MARKERS),
    }


def irqbalance(transport: Transport) -> Facts:
    """running: whether an irqbalance daemon runs (pgrep); None when that cannot be asked."""
    try:
        status = transport.run(["pgrep", "-x", "irqbalance"], timeout_s=30).status
    except RtscopeError:
        return {"running": None}  # no pgrep there
    return {"running": {0: True, 1: False}.get(status)}


def read_text(transport: Transport, path: str) -> str | None:
    """The file's text without surrounding white space; None when it cannot be read."""
    try:
        return transport.read_file(path).decode().strip()
    except (OSError, UnicodeDecodeError):
        return None


def read_int(transport: Transport, path: str) -> int | None:
    """The integer the file holds; None when it cannot be read or holds no integer."""
    text = read_text(transport, path)
    try:
        return None if text is None else int(text)
    except ValueError:
        return None


def exists(transport: Transport, path: str) -> bool:
    """Whether the file is there. A file that cannot be read still is: a root-only device read by
    another user fails with "Permission denied" (an SSH transport reports that as a plain OSError)."""
    try:
        transport.read_file(path)
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


def _parenthesised(text: str) -> str | None:
    """The selected choice of a debugfs choice list: "none (voluntary) full" gives "voluntary"."""
    match = re.search(r"\(([^)]+)\)", text)
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
