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

In ``lat.preempt`` no timer starts the window: a thread of the probe, the *giver*, stamps and gives the
semaphore the measured thread takes. Its ``sched_waking`` is the give itself, traced in the giver's
context; "to the wake-up" is then the give's own path (and whatever took the CPU from the giver before it
gave), and the giver is the bench's own, not a holder.

``lat.timerlat``'s traces hold the kernel's timerlat tracer's own lines beside the events
(``#74 context irq timer_latency 366816 ns``, then ``thread``): the measuring thread is its ``timerlat/N``,
the spike's activation is the trace's last thread sample, and the IRQ sample of the same activation is
when the timer's handler ran and woke it.
"""

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

# "COMM-PID [CPU] FLAGS SECONDS.MICROS: EVENT: FIELDS": the flags column is absent when irq-info is off, and
# longer on a PREEMPT_RT kernel (its lazy preemption and migrate-disable counts).
# A timerlat sample has no event name: "SECONDS.MICROS: #N context irq|thread timer_latency NS ns".
_LINE = re.compile(
    r"^\s*(?P<comm>.*)-(?P<pid>\d+)\s+(?:\(\s*[\d-]+\)\s+)?\[(?P<cpu>\d+)\]\s+(?:[^\s:]+\s+)?"
    r"(?P<secs>\d+)\.(?P<frac>\d+):\s+(?:(?P<event>\w+):\s*(?P<fields>.*)|(?P<timerlat>#\d+\s+context\s.*))$"
)
_TIMERLAT = re.compile(r"#(?P<seq>\d+)\s+context\s+(?P<context>irq|thread)\s+timer_latency\s+(?P<ns>\d+) ns")
_SWITCH = re.compile(
    r"prev_comm=(?P<prev_comm>.*) prev_pid=(?P<prev_pid>-?\d+) prev_prio=(?P<prev_prio>-?\d+) "
    r"prev_state=\S+ ==> next_comm=(?P<next_comm>.*) next_pid=(?P<next_pid>-?\d+) next_prio=(?P<next_prio>-?\d+)"
)
_WAKING = re.compile(r"comm=(?P<comm>.*) pid=(?P<pid>\d+) prio=(?P<prio>-?\d+)")
_IRQ = re.compile(r"irq=(?P<irq>\d+)(?: name=(?P<name>\S+))?")
_SOFTIRQ = re.compile(r"\[action=(?P<action>\w+)\]")

# The events that wake a task: sched_waking (the wake-up's start), else sched_wakeup where only that is traced.
_WAKE_EVENTS = ("sched_waking", "sched_wakeup")
# The metrics whose window starts at a give by the probe's own thread, not at a timer.
GIVEN = frozenset({"lat.preempt"})
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
class Activation:
    """An activation of the timerlat tracer as its samples in the trace give it: its number, the latency
    of its IRQ (None when the trace lacks that sample) and of its thread, and when the IRQ sample was
    written (ns, trace clock): its handler ran, and woke the thread."""

    seq: int
    irq_ns: int | None
    thread_ns: int
    irq_at_ns: int | None


@dataclass(frozen=True)
class Instead:
    """What the CPU did while the woken thread waited, from its wake-up until it was switched in (or, where
    the trace shows no switch-in, its stamp): the time idle, the time of other tasks (the longest first, named), and whether
    that was throttling — a real-time thread kept runnable while the CPU idled or ran lower-priority tasks
    for longer than a wake-up takes (RT throttling, or the fair server of newer kernels)."""

    waited_ns: int
    idle_ns: int
    tasks: tuple[tuple[str, int], ...]  # (task named, ns), the longest first
    throttled: bool
    switched_in: bool = False  # the trace shows it switched in at the end (after the wait), not only its stamp


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
    giver: str | None = None  # a window started by a give (GIVEN): the task that gave, named
    timerlat: Activation | None = None  # lat.timerlat: the tracer's own samples of the spike's activation
    instead: Instead | None = None  # the trace never shows the thread switched in after its wake-up

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
            name, fields = (match["event"], match["fields"]) if match["event"] else ("timerlat", match["timerlat"])
            events.append(Event(at_ns, match["comm"].strip(), int(match["pid"]), name, fields))
    return events


def activation(events: Sequence[Event]) -> Activation | None:
    """The timerlat activation the trace ends at: its last thread sample, with the IRQ sample of the same
    number; None when the trace holds no thread sample (not a lat.timerlat trace)."""
    samples = [
        (event, match) for event in events if event.name == "timerlat" and (match := _TIMERLAT.search(event.fields))
    ]
    thread = next((match for _, match in reversed(samples) if match["context"] == "thread"), None)
    if thread is None:
        return None
    irq = next(
        ((event, match) for event, match in samples if match["context"] == "irq" and match["seq"] == thread["seq"]),
        None,
    )
    return Activation(
        int(thread["seq"]),
        int(irq[1]["ns"]) if irq else None,
        int(thread["ns"]),
        irq[0].at_ns if irq else None,
    )


def policy(prio: int) -> str:
    """A kernel priority as its policy and priority: 0..98 are real-time (FIFO or RR: the trace does not
    tell them apart) 99..1, 100..139 are nice -20..19, -1 deadline."""
    if prio < 0:
        return "DEADLINE"
    if prio < 100:
        return f"RT {99 - prio}"
    return f"nice {prio - 120}"


@dataclass(frozen=True)
class _Run:
    """A task's time on the CPU, as the trace shows it."""

    comm: str
    pid: int
    began: int
    ended: int


def explain(spike: dict[str, Any], metric_id: str = "") -> Explanation:
    """What held the CPU at the spike ``spike`` (an item of the ``spikes`` of metric ``metric_id``)."""
    events = parse(spike["events"])
    planned, late = spike["planned_ns"], spike["late_ns"]
    actual = planned + late
    measured = _measured(events, planned)
    if measured is not None:
        thread, thread_pid = measured
    else:
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
            "the trace holds no task switch or wake-up on this CPU",
        )
    runs = _runs(events, actual)
    waking = _waking(events, thread_pid, actual + _CLOCK_SLACK_NS)
    woken_ns = None if waking is None else waking.at_ns
    # It runs from its switch-in after its wake-up: an earlier one is a run of an earlier period. Where the
    # trace shows none, it ran by its stamp (the sample's end): the CPU did something else until then.
    since = planned - _CLOCK_SLACK_NS if woken_ns is None else woken_ns
    switched_in = [
        run.began for run in runs if run.pid == thread_pid and since <= run.began <= actual + _CLOCK_SLACK_NS
    ]
    running_ns = switched_in[-1] if switched_in else actual
    instead = None
    if woken_ns is not None:
        # Kept off, or switched in late after a throttled stretch: said as what the CPU did instead.
        waited = _instead(runs, woken_ns, running_ns, thread_pid, _priorities(events), bool(switched_in))
        instead = waited if not switched_in or waited.throttled else None
    timerlat = activation(events)
    # timerlat's IRQ handler wakes its thread: its sample stands for the wake-up where that is not traced.
    if woken_ns is None and timerlat is not None:
        woken_ns = timerlat.irq_at_ns
    priorities = _priorities(events)
    # A give is traced in the giver's context: the probe's own thread, not a holder.
    giver = waking if metric_id in GIVEN and waking is not None and waking.pid != thread_pid else None
    holders = [
        *_tasks(runs, priorities, planned, running_ns, thread_pid, None if giver is None else giver.pid),
        *_interrupts(events, planned, running_ns),
    ]
    holders.sort(key=lambda holder: -holder.held_ns)
    on_cpu = next((run for run in runs if run.began <= planned < run.ended), None)
    return Explanation(
        spike["cpu"],
        planned,
        late,
        thread=f"{thread} (pid {thread_pid})",
        to_wakeup_ns=None if woken_ns is None else max(0, woken_ns - planned),
        to_running_ns=None if woken_ns is None else max(0, running_ns - max(woken_ns, planned)),
        holders=tuple(holder for holder in holders if holder.held_ns > 0),
        events=len(events),
        dropped=spike["dropped"],
        at_planned=None if on_cpu is None else _task_name(on_cpu, priorities, thread_pid),
        giver=None if giver is None else _task_name(_Run(giver.comm, giver.pid, 0, 0), priorities, thread_pid),
        timerlat=timerlat,
        instead=instead,
    )


# The trace clock and the probe's stamps are one monotonic clock, read a few microseconds apart.
_CLOCK_SLACK_NS = 20_000
# Longer than this with a real-time thread runnable and the CPU idle or on lower-priority tasks is not a
# wake-up path: the kernel kept the thread off the CPU (RT throttling, the fair server).
THROTTLED_FROM_NS = 1_000_000


def _measured(events: Sequence[Event], planned: int) -> tuple[str, int] | None:
    """The measuring thread, named and its pid: of the tasks woken from the planned time on, the one of
    highest priority that the trace never shows switched in after its wake-up (kept off the CPU), else
    the task the last switch went to (the trace ends as the thread runs). Without such a switch (some
    kernels trace none from the idle task), the last task woken; None when there is no switch nor wake-up."""
    switches = [
        (event, match) for event in events if event.name == "sched_switch" and (match := _SWITCH.search(event.fields))
    ]
    wakings = [
        (event, match) for event in events if event.name in _WAKE_EVENTS and (match := _WAKING.search(event.fields))
    ]
    last = next(((e, m) for e, m in reversed(switches) if int(m["next_pid"]) != 0), None)
    woken: dict[int, tuple[int, str, int]] = {}  # pid: (its last wake-up from the planned time on, comm, prio)
    for event, match in wakings:
        if event.at_ns >= planned - _CLOCK_SLACK_NS:
            woken[int(match["pid"])] = (event.at_ns, match["comm"], int(match["prio"]))
    kept_off = [
        (prio, comm, pid)
        for pid, (at, comm, prio) in woken.items()
        if not any(int(m["next_pid"]) == pid and e.at_ns >= at for e, m in switches)
        and not any(e.pid == pid and e.at_ns > at for e in events)
    ]
    if last is not None and int(last[1]["next_pid"]) in woken:
        last_pid = int(last[1]["next_pid"])
        if not kept_off or min(kept_off)[0] >= woken[last_pid][2]:
            return last[1]["next_comm"], last_pid
    if kept_off:
        _, comm, pid = min(kept_off)
        return comm, pid
    if last is not None:
        return last[1]["next_comm"], int(last[1]["next_pid"])
    if wakings:
        return wakings[-1][1]["comm"], int(wakings[-1][1]["pid"])
    return None


def _instead(
    runs: Sequence[_Run], woken: int, stamp: int, thread_pid: int, priorities: dict[int, int], switched_in: bool
) -> Instead:
    """What the CPU did from the thread's wake-up to stamp (its switch-in, or its stamp), by the runs the
    trace shows (a stretch without events is the task before it going on: idle, when the CPU had gone idle)."""
    idle = 0
    tasks: dict[str, int] = {}
    below = 0  # time of tasks a runnable real-time thread would have preempted, and of idle
    prio = priorities.get(thread_pid)
    for run in runs:
        held = min(run.ended, stamp) - max(run.began, woken)
        if held <= 0 or run.pid == thread_pid:
            continue
        if run.pid == 0:
            idle += held
            below += held
            continue
        name = _task_name(run, priorities, thread_pid)
        tasks[name] = tasks.get(name, 0) + held
        other = priorities.get(run.pid)
        if prio is not None and (other is None or other > prio):
            below += held
    waited = stamp - woken
    named = tuple(sorted(tasks.items(), key=lambda item: -item[1]))
    real_time = prio is not None and prio < 100
    throttled = real_time and waited >= THROTTLED_FROM_NS and 2 * below >= waited
    return Instead(waited, idle, named, throttled, switched_in)


def _runs(events: Sequence[Event], end: int) -> list[_Run]:
    """The tasks on the CPU, in order, until end. Every line names the task it ran in; a switch gives
    the next task its start; a task first seen without one (a switch the kernel did not trace) ran from
    its wake-up when the line before is that, else from its first line. The first task ran at least since
    the trace's first line."""
    runs: list[_Run] = []
    current: tuple[str, int, int] | None = None
    for index, event in enumerate(events):
        if current is None:
            current = (event.comm, event.pid, event.at_ns)
        elif event.pid != current[1]:
            before = events[index - 1]
            woke = (
                before.name in _WAKE_EVENTS
                and (match := _WAKING.search(before.fields))
                and int(match["pid"]) == event.pid
            )
            began = before.at_ns if woke else event.at_ns
            runs.append(_Run(current[0], current[1], current[2], began))
            current = (event.comm, event.pid, began)
        if event.name == "sched_switch" and (switch := _SWITCH.search(event.fields)):
            runs.append(_Run(current[0], current[1], current[2], event.at_ns))
            current = (switch["next_comm"], int(switch["next_pid"]), event.at_ns)
    if current is not None:
        runs.append(_Run(current[0], current[1], current[2], max(end, current[2])))
    return [run for run in runs if run.ended > run.began or run is runs[-1]]


def _priorities(events: Sequence[Event]) -> dict[int, int]:
    """Each task's kernel priority, as the switches and wake-ups give it."""
    priorities: dict[int, int] = {}
    for event in events:
        if event.name == "sched_switch" and (switch := _SWITCH.search(event.fields)):
            priorities[int(switch["prev_pid"])] = int(switch["prev_prio"])
            priorities[int(switch["next_pid"])] = int(switch["next_prio"])
        elif event.name in _WAKE_EVENTS and (waking := _WAKING.search(event.fields)):
            priorities[int(waking["pid"])] = int(waking["prio"])
    return priorities


def _task_name(run: _Run, priorities: dict[int, int], thread_pid: int) -> str:
    """A task as the explanation names it: "idle", "itself" (the measuring thread), or its name, pid and
    policy."""
    if run.pid in (0, thread_pid):
        return "idle" if run.pid == 0 else "itself"
    prio = priorities.get(run.pid)
    return f"{run.comm} (pid {run.pid}" + (f", {policy(prio)})" if prio is not None else ")")


def _waking(events: Sequence[Event], pid: int, until_ns: int) -> Event | None:
    """The thread pid's last wake-up before until_ns: its sched_waking (the wake-up's start), else its
    sched_wakeup on kernels that trace only that. The event is traced in the context of the task that woke
    it (or the one an interrupt that woke it came in)."""
    for name in _WAKE_EVENTS:
        for event in reversed(events):
            if (
                event.at_ns <= until_ns
                and event.name == name
                and (match := _WAKING.search(event.fields))
                and int(match["pid"]) == pid
            ):
                return event
    return None


def _tasks(
    runs: Sequence[_Run], priorities: dict[int, int], start: int, end: int, thread_pid: int, giver_pid: int | None
) -> list[Holder]:
    """The tasks that ran between start and end but the thread, its giver and idle, their times there
    summed; a task's run is its longest one, and how long before start it began."""
    holders: dict[int, Holder] = {}
    for run in runs:
        held = min(run.ended, end) - max(run.began, start)
        if run.pid in (0, thread_pid, giver_pid) or held <= 0:
            continue
        earlier = holders.get(run.pid)
        holders[run.pid] = Holder(
            _task_name(run, priorities, thread_pid),
            "task",
            held + (earlier.held_ns if earlier else 0),
            max(run.ended - run.began, earlier.ran_ns if earlier else 0),
            max(0, start - run.began) if earlier is None else earlier.before_ns,
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
