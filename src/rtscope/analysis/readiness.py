"""Real-time readiness: the system's facts judged, one small check per setting (as pyperf's system
command does).

Pure: the facts come in (the dicts rtscope.targets.facts gathers; None is a fact not known) and a
list of :class:`SettingCheck` goes out. The preemption model and virtualisation are judged as the probe
classified them (its ``system``, as every result records it): rtscope has one rule for each, the
probe's. A check's verdict is
- ok: as it should be for measuring;
- warn: measurements are true of the system as it is, but a tuned system would do better, or some
  benches would see it (RT throttling stops only a thread that keeps a CPU busy);
- bad: the setting would distort measurements — the figures would show it rather than the OS, and
  move from run to run;
- unknown: the facts to judge it could not be read there.
"""

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rtscope.model import values

# The facts by family, as rtscope.targets.facts.gather returns them.
SystemFacts = dict[str, dict[str, Any]]

OK, WARN, BAD, UNKNOWN = "ok", "warn", "bad", "unknown"
VERDICTS = (OK, WARN, BAD, UNKNOWN)

# An idle state that takes longer than this to leave adds visibly to a wake-up (C1 takes 1-2 µs).
DEEP_IDLE_LATENCY_US = 10
# The kernel's default timer slack: sleeps of SCHED_OTHER threads may end this much late.
DEFAULT_TIMER_SLACK_NS = 50_000
# Clocksources that are slow to read (a bus access per timestamp) or coarse (a tick).
SLOW_CLOCKSOURCES = frozenset({"hpet", "acpi_pm", "jiffies", "refined-jiffies", "pit"})
# Kernel command-line parameters that set something real-time work depends on.
RT_PARAMETERS = (
    "isolcpus",
    "nohz_full",
    "rcu_nocbs",
    "rcu_nocb_poll",
    "irqaffinity",
    "kthread_cpus",
    "housekeeping",
    "idle",
    "intel_idle.max_cstate",
    "processor.max_cstate",
    "intel_pstate",
    "cpufreq.default_governor",
    "nosmt",
    "skew_tick",
    "threadirqs",
    "preempt",
    "tsc",
    "clocksource",
    "nosoftlockup",
    "nowatchdog",
    "nmi_watchdog",
    "transparent_hugepage",
    "mitigations",
)
EDIT_CMDLINE = "add it to GRUB_CMDLINE_LINUX in /etc/default/grub, then sudo update-grub and reboot"


@dataclass(frozen=True)
class SettingCheck:
    """One setting judged: ``id`` (stable, for scripts), ``title``, ``state`` (what it is there),
    ``verdict`` (one of VERDICTS), ``why`` it matters to latency, and ``fix``: the command that would
    make it ok (None when it is ok, or when no command can change it)."""

    id: str
    title: str
    state: str
    verdict: str
    why: str
    fix: str | None

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r} is not one of {VERDICTS}")


def assess(facts: SystemFacts) -> list[SettingCheck]:
    """The checks that apply, in the order doctor shows them, on ``facts`` (families as facts.gather
    returns): all of them on Linux, or where the probe could not say what OS runs there; on another
    OS (an RTOS) only those that are not Linux settings."""
    linux = os_name(facts) in (None, "Linux")
    return [check(facts) for check in CHECKS if linux or check in ANY_OS]


def os_name(facts: SystemFacts) -> str | None:
    """The OS the probe found there ("Linux", "FreeRTOS"); None when the probe could not run."""
    system = facts["probe"]["system"]
    return None if system is None else str(system["os"])


def notes(facts: SystemFacts) -> list[str]:
    """What the reader of the checks should know: the probe could not run there (and what that leaves
    unknown), or the checks left out on an OS other than Linux."""
    if facts["probe"]["system"] is None:
        return [
            f"the probe could not run there ({facts['probe']['error']}): preemption model and virtualization unknown"
        ]
    name = os_name(facts)
    if name != "Linux":
        return [f"{name} has none of the Linux settings the other checks read: only what applies is shown"]
    return []


def _ok_unless(
    id_: str, title: str, state: str, why: str, fix: str | None, *, flagged: bool, verdict: str = WARN
) -> SettingCheck:
    """The check at ``verdict`` with its fix when the setting is ``flagged``, else ok: an ok setting
    needs no command."""
    return SettingCheck(id_, title, state, verdict if flagged else OK, why, fix if flagged else None)


def distorting(checks: list[SettingCheck]) -> list[SettingCheck]:
    """The checks whose setting would distort measurements."""
    return [check for check in checks if check.verdict == BAD]


# The benches a setting that is not ok distorts, where it distorts some only (a warning, not a verdict on
# every measurement).
_BENCHES_DISTORTED = {
    "rt-throttling": (
        "those whose real-time threads keep a CPU busy without a pause: the per-operation benches (micro), "
        "ctxsw.yield, sem.wake, msgq.wake, mutex.handoff, Thread-Metric (threadmetric), wave's c-busy model, "
        "app.workload and crypto (lat.preempt, lat.preempt_timer and ctxsw.sem pause to stay under it, "
        "unless rest=0; lat.wakeup and lat.irq sleep)"
    ),
}


def benches_distorted(checks: list[SettingCheck]) -> list[tuple[SettingCheck, str]]:
    """The checks not ok that distort some benches only, each with those benches in words."""
    return [
        (check, _BENCHES_DISTORTED[check.id])
        for check in checks
        if check.verdict in (WARN, UNKNOWN) and check.id in _BENCHES_DISTORTED
    ]


def _rt_throttling(facts: SystemFacts) -> SettingCheck:
    runtime, period = facts["rt_throttling"]["runtime_us"], facts["rt_throttling"]["period_us"]
    why = (
        "a real-time thread that keeps a CPU busy is stopped for the rest of each period once it has used "
        "its runtime: a sample taken across that stop holds it (tens of ms), and the run marks such a metric "
        "throttled, not valid; Thread-Metric counts, busy-waiting wave models and the application workload "
        "carry the pauses too (threads that sleep, as lat.wakeup's, are not held back). rtscope run "
        "--rt-throttling off lifts it for one run and puts it back"
    )
    fix = "sudo sysctl -w kernel.sched_rt_runtime_us=-1   (or: rtscope run --rt-throttling off …)"
    if runtime == -1:
        return SettingCheck(
            "rt-throttling", "RT throttling", "off (real-time threads may use all CPU time)", OK, why, None
        )
    if runtime is None or not period:
        return SettingCheck("rt-throttling", "RT throttling", "unknown", UNKNOWN, why, fix)
    state = (
        f"{100 * runtime / period:.3g} % ({runtime / 1000:g} ms of every {period / 1000:g} ms; "
        f"paused {(period - runtime) / 1000:g} ms)"
    )
    return _ok_unless("rt-throttling", "RT throttling", state, why, fix, flagged=runtime < period)


def _cpu_governor(facts: SystemFacts) -> SettingCheck:
    governors = facts["cpufreq"]["governors"]
    why = (
        "a governor other than performance changes the clock frequency with load: the same code takes "
        "longer at low frequency, and the change itself stalls the CPU, so figures move with what else ran"
    )
    fix = "sudo cpupower frequency-set -g performance"
    if governors is None:
        return SettingCheck("cpu-governor", "CPU frequency governor", "unknown", UNKNOWN, why, fix)
    if not governors:
        return SettingCheck(
            "cpu-governor",
            "CPU frequency governor",
            "no cpufreq driver (the frequency is the firmware's or the hypervisor's)",
            OK,
            why,
            None,
        )
    by_governor: dict[str, list[str]] = {}
    for cpu, governor in governors.items():
        by_governor.setdefault(governor, []).append(cpu)
    state = "; ".join(
        f"{governor} (CPU {','.join(cpus)})" if len(by_governor) > 1 else governor
        for governor, cpus in by_governor.items()
    )
    if facts["cpufreq"]["driver"]:
        state += f", driver {facts['cpufreq']['driver']}"
    slowed = set(by_governor) != {"performance"}
    return _ok_unless("cpu-governor", "CPU frequency governor", state, why, fix, flagged=slowed, verdict=BAD)


def _cpu_boost(facts: SystemFacts) -> SettingCheck:
    boost = facts["cpufreq"]["boost"]
    why = (
        "boost (turbo) runs the CPU above its base clock only while temperature and the other cores' load "
        "allow: the same run is faster or slower depending on what came before it"
    )
    if boost is None and facts["cpufreq"]["governors"] is None:
        return SettingCheck("cpu-boost", "CPU frequency boost", "unknown", UNKNOWN, why, None)
    if boost is None:
        return SettingCheck("cpu-boost", "CPU frequency boost", "no boost control", OK, why, None)
    if not boost:
        return SettingCheck("cpu-boost", "CPU frequency boost", "off", OK, why, None)
    return SettingCheck(
        "cpu-boost",
        "CPU frequency boost",
        "on",
        WARN,
        why,
        "echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost  "
        "(intel_pstate: echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo)",
    )


def _idle_states(facts: SystemFacts) -> SettingCheck:
    idle = facts["idle"]
    why = (
        "a CPU woken from a deep idle state first spends its exit latency getting back: wake-up latency "
        "then includes it, and more when the system is idle than when loaded; rtscope holds CPUs "
        "shallow through /dev/cpu_dma_latency while it measures, when it has the privilege"
    )
    fix = "boot with intel_idle.max_cstate=1 processor.max_cstate=1 (" + EDIT_CMDLINE + ")"
    device = "/dev/cpu_dma_latency present" if idle["cpu_dma_latency"] else "no /dev/cpu_dma_latency"
    if idle["driver"] is None and not idle["states"]:
        return SettingCheck("idle-states", "CPU idle states", f"unknown; {device}", UNKNOWN, why, fix)
    deep = [
        state for state in idle["states"] if not state["disabled"] and (state["latency_us"] or 0) > DEEP_IDLE_LATENCY_US
    ]
    if not deep:
        shallow = (
            f"driver {idle['driver']}, no state deeper than {DEEP_IDLE_LATENCY_US} µs"
            if idle["states"]
            else f"driver {idle['driver']}: the default idle (halt or wfi) only"
        )
        return SettingCheck("idle-states", "CPU idle states", f"{shallow}; {device}", OK, why, None)
    listed = ", ".join(f"{state['name']} {state['latency_us']} µs" for state in deep)
    state = f"driver {idle['driver']}, deep states enabled ({listed}); {device}"
    unheld = not idle["cpu_dma_latency"]
    return _ok_unless("idle-states", "CPU idle states", state, why, fix, flagged=unheld, verdict=BAD)


def _cpu_isolation(facts: SystemFacts) -> SettingCheck:
    cpus, cmdline = facts["cpus"], facts["kernel"]["cmdline"]
    why = (
        "on a CPU shared with everything else, other tasks, kernel workers, interrupts, the scheduler "
        "tick and RCU callbacks all come between a measured thread and its deadline; isolcpus keeps "
        "tasks away, nohz_full stops the tick and rcu_nocbs moves RCU callbacks off the isolated CPUs"
    )
    isolated = cpus["isolated"]
    if isolated is None:
        return SettingCheck(
            "cpu-isolation",
            "CPU isolation",
            "unknown",
            UNKNOWN,
            why,
            "boot with isolcpus=CPUS nohz_full=CPUS rcu_nocbs=CPUS (" + EDIT_CMDLINE + ")",
        )
    rcu_nocbs = None if cmdline is None else _parameter(cmdline, "rcu_nocbs")
    if rcu_nocbs == "":
        rcu_nocbs = "all"  # a bare rcu_nocbs offloads every CPU (Linux 5.17 on)
    nohz_full = "not in this kernel" if cpus["nohz_full"] is None else cpus["nohz_full"] or "none"
    state = (
        f"isolated {isolated or 'none'}; nohz_full {nohz_full}; "
        f"rcu_nocbs {'unknown' if cmdline is None else rcu_nocbs or 'none'}"
    )
    if not isolated:
        return SettingCheck(
            "cpu-isolation",
            "CPU isolation",
            state,
            WARN,
            why,
            "boot with isolcpus=N nohz_full=N rcu_nocbs=N for the CPUs to measure on, then rtscope run "
            "--cpus N (" + EDIT_CMDLINE + ")",
        )
    quiet = all(_covers(cpu_list, isolated) for cpu_list in (cpus["nohz_full"], rcu_nocbs))
    fix = f"boot with nohz_full={isolated} rcu_nocbs={isolated} as well (" + EDIT_CMDLINE + ")"
    return _ok_unless("cpu-isolation", "CPU isolation", state, why, fix, flagged=not quiet)


def _smt(facts: SystemFacts) -> SettingCheck:
    cpus = facts["cpus"]
    why = (
        "two hardware threads of one core share its execution units and caches: work on the sibling "
        "slows the measured thread by an amount that depends on what the sibling does"
    )
    fix = "echo off | sudo tee /sys/devices/system/cpu/smt/control  (or boot with nosmt)"
    active = cpus["smt_active"]
    if active is None and cpus["cpu0_thread_siblings"] is not None:
        # No SMT control in this kernel: cpu0's siblings tell whether a core runs two threads.
        active = "," in cpus["cpu0_thread_siblings"] or "-" in cpus["cpu0_thread_siblings"]
    if active is None:
        return SettingCheck("smt", "SMT (hyper-threading)", "unknown", UNKNOWN, why, fix)
    state = ("active" if active else "inactive") + (f" (control {cpus['smt_control']})" if cpus["smt_control"] else "")
    return _ok_unless("smt", "SMT (hyper-threading)", state, why, fix, flagged=active)


def _irqbalance(facts: SystemFacts) -> SettingCheck:
    running = facts["irqbalance"]["running"]
    why = (
        "irqbalance moves interrupts between CPUs every few seconds, onto the measured CPU too: its "
        "handlers then interrupt the measurement at times that change from run to run"
    )
    fix = "sudo systemctl stop irqbalance  (or IRQBALANCE_BANNED_CPULIST=CPUS in /etc/default/irqbalance)"
    if running is None:
        return SettingCheck("irqbalance", "irqbalance", "unknown (no pgrep there)", UNKNOWN, why, fix)
    return _ok_unless("irqbalance", "irqbalance", "running" if running else "not running", why, fix, flagged=running)


def _transparent_hugepages(facts: SystemFacts) -> SettingCheck:
    enabled, defrag = facts["memory"]["thp_enabled"], facts["memory"]["thp_defrag"]
    why = (
        "with huge pages always on, a page fault may stop to compact memory and khugepaged rewrites the "
        "page tables of running processes: stalls of milliseconds that no setting of the thread avoids"
    )
    fix = "echo madvise | sudo tee /sys/kernel/mm/transparent_hugepage/enabled"
    if enabled is None:
        return SettingCheck(
            "transparent-hugepages", "transparent huge pages", "unknown (or not built in)", UNKNOWN, why, None
        )
    state = f"enabled {enabled}" + (f", defrag {defrag}" if defrag else "")
    return _ok_unless("transparent-hugepages", "transparent huge pages", state, why, fix, flagged=enabled == "always")


def _swap(facts: SystemFacts) -> SettingCheck:
    swaps, swappiness = facts["memory"]["swaps"], facts["memory"]["swappiness"]
    why = (
        "rtscope locks its own memory, but a load or another process paged out waits for the disk, and "
        "reclaim competes for CPU time; a system meant for real-time work runs without swap"
    )
    if swaps is None:
        return SettingCheck("swap", "swap", "unknown", UNKNOWN, why, "sudo swapoff -a")
    if not swaps:
        return SettingCheck("swap", "swap", "none", OK, why, None)
    areas = ", ".join(
        area["name"] + (f" {area['size_kib'] // 1024} MiB" if area["size_kib"] is not None else "") for area in swaps
    )
    state = areas + (f"; swappiness {swappiness}" if swappiness is not None else "")
    return SettingCheck("swap", "swap", state, WARN, why, "sudo swapoff -a")


def _clocksource(facts: SystemFacts) -> SettingCheck:
    current, available = facts["clocksource"]["current"], facts["clocksource"]["available"] or []
    why = (
        "every timestamp is read from the clocksource: a slow one (hpet, acpi_pm: a bus access each) adds "
        "microseconds to each reading, a coarse one (jiffies) rounds to the tick"
    )
    better = next((name for name in available if name not in SLOW_CLOCKSOURCES), None)
    fix = (
        f"echo {better} | sudo tee /sys/devices/system/clocksource/clocksource0/current_clocksource" if better else None
    )
    if current is None:
        return SettingCheck("clocksource", "clocksource", "unknown", UNKNOWN, why, None)
    state = current + (f" (available: {' '.join(available)})" if available else "")
    slow = current in SLOW_CLOCKSOURCES
    return _ok_unless("clocksource", "clocksource", state, why, fix, flagged=slow, verdict=BAD)


def _timer_slack(facts: SystemFacts) -> SettingCheck:
    slack = facts["timer_slack"]["ns"]
    why = (
        "the kernel may end a sleep of a normal (SCHED_OTHER) thread up to its timer slack late, to "
        "group wake-ups; real-time threads have none, but a run without the privilege for SCHED_FIFO, "
        "and a wave generator in bash or Python, wakes up that much later"
    )
    fix = "start rtscope from a shell whose timer slack is 50 µs or less (systemd: TimerSlackNSec= of its unit)"
    if slack is None:
        return SettingCheck("timer-slack", "timer slack", "unknown", UNKNOWN, why, fix)
    state = f"{slack / 1000:g} µs" + (" (the default)" if slack == DEFAULT_TIMER_SLACK_NS else "")
    high = slack > DEFAULT_TIMER_SLACK_NS
    return _ok_unless("timer-slack", "timer slack", state, why, fix, flagged=high)


def _preemption(facts: SystemFacts) -> SettingCheck:
    system = facts["probe"]["system"]
    why = (
        "the preemption model bounds how long the kernel keeps a waiting high-priority thread from running: "
        "without preemption, until the running system call ends; with full preemption, until a spinlock "
        "or interrupt handler ends; PREEMPT_RT makes those preemptible too, for the lowest worst case"
    )
    rt_kernel = "sudo apt install linux-image-rt-$(dpkg --print-architecture)  (Debian; then reboot into it)"
    model = "unknown" if system is None else system["preempt_model"]
    if model == "unknown":
        return SettingCheck("preemption", "preemption model", "unknown", UNKNOWN, why, None)
    if system["os"] != "Linux":
        # An RTOS's scheduler: preemptive (full) or cooperative (none), as its configuration says.
        preemptive = model != "none"
        state = f"{'preemptive' if preemptive else 'cooperative'} scheduling"
        why = (
            "a preemptive scheduler runs a task the moment it is the highest-priority ready one; a "
            "cooperative one lets it wait until the running task yields, however long that takes"
        )
        return SettingCheck("preemption", "preemption model", state, OK if preemptive else WARN, why, None)
    if model == "rt":
        return SettingCheck("preemption", "preemption model", "PREEMPT_RT", OK, why, None)
    described = {
        "none": "no forced preemption, or voluntary (uname -v does not tell them apart), not PREEMPT_RT",
        "voluntary": "voluntary preemption (desktop)",
        "full": "full preemption, not PREEMPT_RT",
        "lazy": "lazy preemption, not PREEMPT_RT",
        "dynamic": "PREEMPT_DYNAMIC, mode unknown (debugfs not mounted), not PREEMPT_RT",
    }[model]
    fix = rt_kernel
    if model == "dynamic":
        fix = f"boot with preempt=full ({EDIT_CMDLINE}), or for PREEMPT_RT: {rt_kernel}"
    elif model != "full":
        fix += f"; or, on a PREEMPT_DYNAMIC kernel, boot with preempt=full ({EDIT_CMDLINE})"
    return SettingCheck("preemption", "preemption model", described, WARN, why, fix)


def _virtualization(facts: SystemFacts) -> SettingCheck:
    system = facts["probe"]["system"]
    why = (
        "a virtual CPU is paused whenever the host runs something else: those pauses show as spikes of "
        "milliseconds in every maximum; a container shares its kernel and may have its CPU time capped; "
        "an emulator's figures are the emulator's, not the hardware's"
    )
    found = None if system is None else system["virtualization"]
    if not found:
        return SettingCheck("virtualization", "virtualization", "unknown", UNKNOWN, why, None)
    if found == "none":
        return SettingCheck("virtualization", "virtualization", "none", OK, why, None)
    # An emulated RTOS board has no real one rtscope can reach yet: no command to offer.
    fix = "measure on the machine itself: rtscope --target ssh://HOST doctor" if system["os"] == "Linux" else None
    return SettingCheck("virtualization", "virtualization", found, WARN, why, fix)


def _kernel_cmdline(facts: SystemFacts) -> SettingCheck:
    cmdline = facts["kernel"]["cmdline"]
    why = (
        "the command line is where CPUs are isolated, idle states capped and the tick stopped: what it "
        "sets for real-time work, for the record"
    )
    if cmdline is None:
        return SettingCheck("kernel-cmdline", "kernel command line", "unknown", UNKNOWN, why, None)
    found = [word for word in _kernel_words(cmdline) if word.partition("=")[0] in RT_PARAMETERS]
    state = " ".join(found) if found else "none of the real-time parameters (isolcpus, nohz_full, rcu_nocbs, …)"
    return SettingCheck("kernel-cmdline", "kernel command line", state, OK, why, None)


# Every check, in the order doctor shows them: one function per setting, facts in, a SettingCheck out.
CHECKS: tuple[Callable[[SystemFacts], SettingCheck], ...] = (
    _rt_throttling,
    _cpu_governor,
    _cpu_boost,
    _idle_states,
    _cpu_isolation,
    _smt,
    _irqbalance,
    _transparent_hugepages,
    _swap,
    _clocksource,
    _timer_slack,
    _preemption,
    _virtualization,
    _kernel_cmdline,
)
# The checks that are not Linux settings: they apply to any OS the probe runs on.
ANY_OS = (_preemption, _virtualization)


def _kernel_words(cmdline: str) -> list[str]:
    """The kernel's own parameters: the words before "--" (what follows is init's)."""
    words = cmdline.split()
    return words[: words.index("--")] if "--" in words else words


def _parameter(cmdline: str, name: str) -> str | None:
    """The value of the last ``name=value`` on the kernel command line, None when it is not there."""
    values = [word.partition("=")[2] for word in _kernel_words(cmdline) if word.partition("=")[0] == name]
    return values[-1] if values else None


def _covers(cpu_list: str | None, isolated: str) -> bool:
    """Whether a kernel CPU list ("1-3", or "all" for rcu_nocbs) holds every isolated CPU."""
    if cpu_list == "all":
        return True
    try:
        return cpu_list is not None and set(values.cpu_list(isolated)) <= set(values.cpu_list(cpu_list))
    except argparse.ArgumentTypeError:
        return False  # not a list rtscope can read: not known to cover them
