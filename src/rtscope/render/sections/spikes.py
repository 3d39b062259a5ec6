"""What held the CPU at each latency spike whose kernel trace the run kept (analysis.spikes)."""

from rtscope.analysis import spikes
from rtscope.render import fmt
from rtscope.render.document import Cell, Items, Paragraph, Part, Section, heading, table
from rtscope.render.subjects import OneRun

# The holders listed per spike, the longest first; the rest are counted.
MOST_HOLDERS = 6


def build(subject: OneRun) -> Section | None:
    """A subsection per traced spike: the sample, its two parts (to the wake-up, to running) and the
    tasks, interrupts and softirqs that held the CPU; nothing when no metric kept a trace."""
    parts = []
    for metric in subject.doc["metrics"]:
        for number, spike in enumerate(metric.get("spikes", ()), start=1):
            parts.append(_spike(metric["id"], number, len(metric["spikes"]), spikes.explain(spike, metric["id"])))
    if not parts:
        return None
    traced = {metric["id"] for metric in subject.doc["metrics"] if metric.get("spikes")}
    notes = [Cell(_TIMED)] if traced - spikes.GIVEN else []
    notes += [Cell(f"{metric_id}{_GIVEN}") for metric_id in sorted(traced & spikes.GIVEN)]
    return Section(
        heading("Why it was late", ", from the kernel's trace at each spike kept"),
        (),
        subsections=tuple(parts),
        notes=tuple(notes),
    )


# What the two parts of a window mean: one started by a timer, one by a give (spikes.GIVEN, after the metric's id).
_TIMED = (
    "From the planned wake-up to the thread running: to the wake-up is the timer's interrupt coming late (interrupts "
    "off, or the CPU not running: a VM's vCPU held by its host); to running is what held the CPU once the thread was "
    "woken. A task's run is its whole time on the CPU, also before the planned time. Times are the trace's, to the "
    "microsecond."
)
_GIVEN = (
    " has no timer: its window starts at a thread of the probe giving the semaphore the measured thread takes; to the "
    "wake-up is the give's own path (and what took the CPU from the giver before it gave), to running what held the "
    "CPU after it. A task's run is its whole time on the CPU. Times are the trace's, to the microsecond."
)


def _spike(metric_id: str, number: int, count: int, spike: spikes.Explanation) -> Section:
    title = heading(
        f"{metric_id} spike {number} of {count}",
        f": {fmt.duration(spike.late_ns)} late on CPU {spike.cpu}, {'given' if spike.giver else 'planned'} at "
        f"{spike.planned_ns / 1e9:.6f} s",
    )
    trace = f"{spike.events} trace events" + (f", {spike.dropped} earlier ones not kept" if spike.dropped else "")
    if spike.thread is None:
        return Section(title, (Items((Cell(f"! {spike.problem} ({trace})", "warn"),)),))
    lines = [f"{spike.thread}: " + _split(spike), *_timerlat(spike), _answer(spike)]
    rows = [
        [
            holder.what,
            holder.kind,
            fmt.duration(holder.held_ns),
            fmt.duration(holder.ran_ns),
            fmt.duration(holder.before_ns) if holder.before_ns else "",
        ]
        for holder in spike.holders[:MOST_HOLDERS]
    ]
    parts: list[Part] = [Paragraph(tuple(lines))]
    if rows:
        parts.append(table(["held the CPU", "kind", "of the window", "its run", "began before planned"], rows, "llrrr"))
    notes = [Cell(trace)]
    if len(spike.holders) > MOST_HOLDERS:
        notes.append(Cell(f"{len(spike.holders) - MOST_HOLDERS} shorter holders not listed"))
    return Section(title, tuple(parts), notes=tuple(notes))


def _split(spike: spikes.Explanation) -> str:
    if spike.to_wakeup_ns is None or spike.to_running_ns is None:
        return "its wake-up is not in the trace"
    running = f"running {fmt.duration(spike.to_running_ns)} after that"
    if spike.instead is not None and not spike.instead.switched_in:
        running = f"not switched in until its stamp {fmt.duration(spike.to_running_ns)} after that"
    if spike.giver is not None:
        return f"given by {spike.giver}, which readied it {fmt.duration(spike.to_wakeup_ns)} after its stamp; {running}"
    return f"woken {fmt.duration(spike.to_wakeup_ns)} after the planned time, {running}"


def _timerlat(spike: spikes.Explanation) -> list[str]:
    """lat.timerlat's own figures for the spike's activation, as its tracer wrote them."""
    activation = spike.timerlat
    if activation is None:
        return []
    irq = (
        "its IRQ sample is not in the trace" if activation.irq_ns is None else f"IRQ {fmt.duration(activation.irq_ns)}"
    )
    return [
        f"timerlat activation #{activation.seq}: {irq}, thread {fmt.duration(activation.thread_ns)} after the planned expiry"
    ]


def _answer(spike: spikes.Explanation) -> str:
    """The sentence an engineer wants first: who held the CPU, or that the interrupt itself was late (a window
    started by a give has no interrupt to be late), or what the CPU did while the woken thread was kept off."""
    instead = spike.instead
    if instead is not None and instead.waited_ns * 2 > spike.late_ns:
        return _instead(instead)
    if spike.giver is None and spike.to_wakeup_ns is not None and spike.to_wakeup_ns * 2 > spike.late_ns:
        late = fmt.duration(spike.to_wakeup_ns)
        if spike.at_planned == "itself":
            return (
                f"It was still on the CPU at the planned time and was woken {late} late: the CPU was not running "
                "(a VM's vCPU held by its host), or its previous period overran."
            )
        if spike.at_planned in (None, "idle"):
            return (
                f"The CPU was idle and the timer's interrupt came {late} late: a deep idle state, or the CPU "
                "not running (a VM's vCPU held by its host)."
            )
        run = next((h.ran_ns for h in spike.holders if h.what == spike.at_planned), None)
        lasted = f" (its run lasted {fmt.duration(run)})" if run is not None else ""
        return (
            f"The timer's interrupt came {late} late while {spike.at_planned} ran{lasted}: interrupts were kept "
            "off, or the CPU was not running (a VM's vCPU held by its host)."
        )
    culprit = spike.culprit
    if culprit is None:
        path = "the give and the switch" if spike.giver is not None else "the wake-up path"
        return f"Nothing else held the CPU in the trace: the time went to {path} itself."
    share = culprit.held_ns / spike.late_ns if spike.late_ns else 0.0
    ran = f"; its run lasted {fmt.duration(culprit.ran_ns)}" if culprit.kind == "task" else ""
    return f"Held longest by {culprit.what}: {fmt.duration(culprit.held_ns)}, {share:.0%} of the lateness{ran}."


def _instead(instead: spikes.Instead) -> str:
    """What the CPU did while the woken thread was not switched in: throttled, idle, or another task."""
    did = [f"idle {fmt.duration(instead.idle_ns)}"] if instead.idle_ns else []
    did += [f"{what} {fmt.duration(ns)}" for what, ns in instead.tasks[:MOST_HOLDERS]]
    spent = ", ".join(did) or "nothing the trace shows"
    waited = fmt.duration(instead.waited_ns)
    if instead.throttled:
        kept = "before it was switched in" if instead.switched_in else "and never switched in"
        return (
            f"Throttled: the thread was runnable for {waited} {kept} (the CPU meanwhile: {spent}): "
            "the kernel's RT throttling (or the fair server of newer kernels) held a real-time thread off the CPU "
            "once it had used its runtime. Not a latency of the wake-up path: run with --rt-throttling off, or "
            "let the bench's busy threads rest."
        )
    if not instead.tasks:
        return (
            f"The CPU was idle from its wake-up to its stamp ({waited}), and the trace shows no switch to it: "
            "the wake-up from idle itself (some kernels do not trace a switch from the idle task)."
        )
    what, ns = instead.tasks[0]
    return f"Not switched in until its stamp: {what} ran {fmt.duration(ns)} of the {waited} it waited ({spent})."
