"""What held the CPU at a latency spike: the kernel trace a latency bench kept around a sample over its
threshold (``--param trace=first|each``; the result's ``metrics[].spikes``), read as ``rtla timerlat -a``
reads its own.

A spike's time from the planned wake-up to the measuring thread running splits in two:

- **to the wake-up**: planned time until the kernel woke the thread (``sched_waking``): the timer's
  interrupt came late — interrupts were off, or the CPU was not running at all (a VM's vCPU held by its
  host leaves a gap in the trace);
- **to running**: wake-up until the switch to the thread (``sched_switch``): other tasks, interrupts and
  softirqs held the CPU.

Each task that ran on the CPU in that window, each interrupt and softirq, is a *holder*, with the time it
held of the window and, for a task, the whole run it was in (its switch-in to its switch-out, which may
begin before the planned time: a busy loop that started earlier). The trace's clock is the monotonic
clock the sample was taken on (the probe sets ``trace_clock`` to ``mono``), in microseconds.
"""

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

# "COMM-PID [CPU] FLAGS SECONDS.MICROS: EVENT: FIELDS": the flags column is absent when irq-info is off, and
# longer on a PREEMPT_RT kernel (its lazy preemption and migrate-disable counts).
_LINE = re.compile(
    r"^\s*(?P<comm>.*)-(?P<pid>\d+)\s+(?:\(\s*[\d-]+\)\s+)?\[(?P<cpu>\d+)\]\s+(?:[^\s:]+\s+)?"
    r"(?P<secs>\d+)\.(?P<frac>\d+):\s+(?P<event>\w+):\s*(?P<fields>.*)$"
)
_SWITCH = re.compile(
    r"prev_comm=(?P<prev_comm>.*) prev_pid=(?P<prev_pid>-?\d+) prev_prio=(?P<prev_prio>-?\d+) "
    r"prev_state=\S+ ==> next_comm=(?P<next_comm>.*) next_pid=(?P<next_pid>-?\d+) next_prio=(?P<next_prio>-?\d+)"
)
_WAKING = re.compile(r"comm=(?P<comm>.*) pid=(?P<pid>\d+) prio=(?P<prio>-?\d+)")
_IRQ = re.compile(r"irq=(?P<irq>\d+)(?: name=(?P<name>\S+))?")
_SOFTIRQ = re.compile(r"\[action=(?P<action>\w+)\]")

# Interrupt-like events: entry, exit, and how the holder is named from the entry's fields.
_NESTED = {
    "irq_handler_entry": "irq_handler_exit",
    "local_timer_entry": "local_timer_exit",
    "softirq_entry": "softirq_exit",
}


@dataclass(frozen=True)
class Event:
    """One line of a trace: its time (ns, trace clock), the task it ran in, the event and its fields."""

    at_ns: int
    comm: str
    pid: int
    name: str
    fields: str


@dataclass(frozen=True)
class Holder:
    """Something that held the CPU in the window: a task, an interrupt or a softirq."""

    what: str  # "culprit (pid 812, FIFO 90)", "irq 11 (virtio0)", "local timer", "softirq RCU"
    kind: str  # task | irq | softirq
    held_ns: int  # of the window from the planned time to the thread running
    ran_ns: int  # a task: its whole run (switch-in to switch-out); else the same as held_ns
    before_ns: int  # a task: how long before the planned time its run began (0: within the window)


@dataclass(frozen=True)
class Explanation:
    """A spike and what the trace says of it; ``thread`` None when the trace has no switch to the
    measuring thread (then there is nothing to split, and ``problem`` says why)."""

    cpu: int
    planned_ns: int
    late_ns: int
    thread: str | None
    to_wakeup_ns: int | None
    to_running_ns: int | None
    holders: tuple[Holder, ...]
    events: int
    dropped: int
    problem: str | None = None
    at_planned: str | None = None  # the task on the CPU when the wake-up was due: "idle", "itself" or a task

    @property
    def culprit(self) -> Holder | None:
        """The holder that held the CPU longest in the window, when any did."""
        return max(self.holders, key=lambda holder: holder.held_ns, default=None)


def parse(lines: Iterable[str]) -> list[Event]:
    """The events of a trace's lines, in order; lines that are not events are skipped."""
    events = []
    for line in lines:
        match = _LINE.match(line)
        if match:
            frac = match["frac"]
            at_ns = int(match["secs"]) * 1_000_000_000 + int(frac) * 10 ** (9 - len(frac))
            events.append(Event(at_ns, match["comm"].strip(), int(match["pid"]), match["event"], match["fields"]))
    return events


def policy(prio: int) -> str:
    """A kernel priority as its policy and priority: 0..98 are real-time (FIFO or RR: the trace does not
    tell them apart) 99..1, 100..139 are nice -20..19, -1 deadline."""
    if prio < 0:
        return "DEADLINE"
    if prio < 100:
        return f"RT {99 - prio}"
    return f"nice {prio - 120}"


def explain(spike: dict[str, Any]) -> Explanation:
    """What held the CPU at the spike ``spike`` (an item of a metric's ``spikes``)."""
    events = parse(spike["events"])
    planned, late = spike["planned_ns"], spike["late_ns"]
    switches = [
        (event, match)
        for event in events
        if event.name == "sched_switch" and (match := _SWITCH.search(event.fields)) is not None
    ]
    if not switches:
        return Explanation(
            spike["cpu"],
            planned,
            late,
            None,
            None,
            None,
            (),
            len(events),
            spike["dropped"],
            "the trace holds no task switch on this CPU",
        )
    last, to_thread = switches[-1]
    thread_pid = int(to_thread["next_pid"])
    running_ns = last.at_ns
    woken_ns = _woken(events, thread_pid, running_ns)
    holders = [*_tasks(switches, planned, running_ns, thread_pid), *_interrupts(events, planned, running_ns)]
    holders.sort(key=lambda holder: -holder.held_ns)
    return Explanation(
        spike["cpu"],
        planned,
        late,
        thread=f"{to_thread['next_comm']} (pid {thread_pid})",
        to_wakeup_ns=None if woken_ns is None else max(0, woken_ns - planned),
        to_running_ns=None if woken_ns is None else running_ns - max(woken_ns, planned),
        holders=tuple(holder for holder in holders if holder.held_ns > 0),
        events=len(events),
        dropped=spike["dropped"],
        at_planned=_running_at(switches, planned, thread_pid),
    )


def _running_at(switches: Sequence[tuple[Event, re.Match[str]]], at_ns: int, thread_pid: int) -> str:
    """The task on the CPU at at_ns: the last switch's next task before it, else the first one's previous;
    "idle" for none, "itself" for the measuring thread (still on the CPU from its previous period)."""
    before = [match for event, match in switches if event.at_ns <= at_ns]
    comm, pid, prio = (
        (before[-1]["next_comm"], before[-1]["next_pid"], before[-1]["next_prio"])
        if before
        else (switches[0][1]["prev_comm"], switches[0][1]["prev_pid"], switches[0][1]["prev_prio"])
    )
    if int(pid) in (0, thread_pid):
        return "idle" if int(pid) == 0 else "itself"
    return f"{comm} (pid {pid}, {policy(int(prio))})"


def _woken(events: Sequence[Event], pid: int, until_ns: int) -> int | None:
    """When the thread pid was last woken before until_ns: its sched_waking (the wake-up's start), else
    its sched_wakeup on kernels that trace only that."""
    for name in ("sched_waking", "sched_wakeup"):
        for event in reversed(events):
            if (
                event.at_ns <= until_ns
                and event.name == name
                and (match := _WAKING.search(event.fields))
                and int(match["pid"]) == pid
            ):
                return event.at_ns
    return None


def _tasks(switches: Sequence[tuple[Event, re.Match[str]]], start: int, end: int, thread_pid: int) -> list[Holder]:
    """The tasks that ran between start and end, from the switches: the first switch's previous task ran
    since before the trace's first line (its run's beginning unknown: from the first line on)."""
    runs = []
    first_event, first = switches[0]
    since = first_event.at_ns
    runs.append((first["prev_comm"], int(first["prev_pid"]), int(first["prev_prio"]), since, first_event.at_ns))
    for (event, match), (following, _) in zip(switches, [*switches[1:], (None, None)], strict=True):
        until = following.at_ns if following is not None else end
        runs.append((match["next_comm"], int(match["next_pid"]), int(match["next_prio"]), event.at_ns, until))
    holders: dict[tuple[str, int], Holder] = {}
    for comm, pid, prio, began, ended in runs:
        held = min(ended, end) - max(began, start)
        if pid in (0, thread_pid) or held <= 0:
            continue
        what = f"{comm} (pid {pid}, {policy(prio)})"
        earlier = holders.get((what, pid))
        holders[(what, pid)] = Holder(
            what,
            "task",
            held + (earlier.held_ns if earlier else 0),
            max(ended - began, earlier.ran_ns if earlier else 0),
            max(0, start - began) if earlier is None else earlier.before_ns,
        )
    return list(holders.values())


def _interrupts(events: Sequence[Event], start: int, end: int) -> list[Holder]:
    """The interrupts and softirqs handled between start and end, their times summed by name."""
    held: dict[tuple[str, str], int] = {}
    open_at: dict[str, tuple[int, str]] = {}
    for event in events:
        if event.name in _NESTED:
            open_at[_NESTED[event.name]] = (event.at_ns, _interrupt_name(event))
        elif event.name in open_at:
            began, what = open_at.pop(event.name)
            inside = min(event.at_ns, end) - max(began, start)
            if inside > 0:
                kind = "softirq" if event.name == "softirq_exit" else "irq"
                held[(what, kind)] = held.get((what, kind), 0) + inside
    return [Holder(what, kind, ns, ns, 0) for (what, kind), ns in held.items()]


def _interrupt_name(event: Event) -> str:
    if event.name == "local_timer_entry":
        return "local timer interrupt"
    if event.name == "softirq_entry":
        match = _SOFTIRQ.search(event.fields)
        return f"softirq {match['action'] if match else event.fields}"
    match = _IRQ.search(event.fields)
    if not match:
        return f"irq {event.fields}"
    return f"irq {match['irq']}" + (f" ({match['name']})" if match["name"] else "")
