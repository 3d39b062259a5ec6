"""What held the CPU at a spike, from the kernel trace a latency bench kept (analysis.spikes), and how
`show` says it. The fixtures hold spikes the real probe traced on this kind of machine, with a SCHED_FIFO
90 process busy for 2 ms every 50 ms on the measuring CPU (tests/test_latency.py runs it): three of
lat.wakeup, one of lat.preempt."""

import json
from pathlib import Path

import jsonschema

from rtscope.analysis import spikes
from rtscope.render import summary
from rtscope.render.fmt import Style
from support import builders

FIXTURE = Path(__file__).parent / "fixtures" / "spikes-fifo-hog.json"
RECORDED = json.loads(FIXTURE.read_text())["spikes"]
[PREEMPT] = json.loads((FIXTURE.parent / "spikes-preempt-hog.json").read_text())["spikes"]


def test_a_busy_real_time_process_is_named_with_its_run() -> None:
    explained = spikes.explain(RECORDED[1])
    culprit = explained.culprit
    assert culprit is not None
    assert culprit.what == "culprit (pid 26180, RT 90)"
    assert culprit.kind == "task"
    # It was woken on time; the 2 ms busy stretch, begun 775 us before, held it until it ended.
    assert (explained.to_wakeup_ns, explained.to_running_ns) == (12_306, 1_232_000)
    assert (culprit.held_ns, culprit.ran_ns, culprit.before_ns) == (1_244_306, 2_019_000, 774_694)
    assert explained.thread == "rtscope-probe (pid 26186)"


def test_a_late_interrupt_is_told_from_a_task_in_the_way() -> None:
    explained = spikes.explain(RECORDED[0])
    # The thread was woken 488 us late and ran 10 us after: nothing ran in its way for long.
    assert explained.to_wakeup_ns is not None and explained.to_wakeup_ns > explained.late_ns / 2
    assert explained.culprit is not None and explained.culprit.held_ns < explained.late_ns / 2
    # The thread was on the CPU from before the planned time until it slept 473 us after it: a pause of
    # the vCPU (this machine is a VM) rather than a task in its way.
    assert explained.at_planned == "itself"


def test_a_task_running_with_interrupts_off_is_named_as_the_one_that_ran() -> None:
    # A kernel thread keeps interrupts off for 500 us from before the planned time: the timer's interrupt,
    # and so the wake-up, come when it turns them back on.
    lines = [
        (
            "  rtscope_hold-90  [000] d..2.   100.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 "
            "prev_state=R ==> next_comm=rtscope_hold next_pid=90 next_prio=120"
        ),
        "  rtscope_hold-90  [000] d.h3.   100.000500: sched_waking: comm=probe pid=7 prio=19 target_cpu=000",
        (
            "  rtscope_hold-90  [000] d..2.   100.000510: sched_switch: prev_comm=rtscope_hold prev_pid=90 prev_prio=120 "
            "prev_state=R ==> next_comm=probe next_pid=7 next_prio=19"
        ),
    ]
    held = spikes.explain({"planned_ns": 100_000_100_000, "late_ns": 410_000, "cpu": 0, "dropped": 0, "events": lines})
    assert (held.to_wakeup_ns, held.to_running_ns) == (400_000, 10_000)
    # Late for interrupts off, not kept off the CPU once woken: no "instead" to name.
    assert held.instead is None and held.thread == "probe (pid 7)"
    assert held.at_planned == "rtscope_hold (pid 90, nice 0)"
    assert held.culprit is not None and (held.culprit.held_ns, held.culprit.ran_ns) == (410_000, 510_000)
    doc = {**builders.result_doc(benches={"lat.wakeup": 30_000}), "version": 4}
    doc["metrics"][0].update(
        labels={}, spikes=[{"planned_ns": 100_000_100_000, "late_ns": 410_000, "cpu": 0, "dropped": 0, "events": lines}]
    )
    text = "\n".join(summary.render(doc, Style(False)))
    assert "came 400 µs late while rtscope_hold (pid 90, nice 0) ran (its run lasted 510 µs)" in text


def test_a_trace_without_a_switch_or_wake_up_says_so() -> None:
    lines = [line for line in RECORDED[0]["events"] if "sched_switch" not in line and "sched_wak" not in line]
    explained = spikes.explain({**RECORDED[0], "events": lines})
    assert explained.thread is None
    assert explained.problem == "the trace holds no task switch or wake-up on this CPU"


def test_a_task_is_followed_where_the_kernel_traced_no_switch_from_idle() -> None:
    # This machine's kernel traces no sched_switch away from the idle task: the SCHED_FIFO 90 hog is seen
    # from its wake-up (in idle's context) and its own lines, until it switches to the probe 2.05 ms later.
    [spike] = json.loads((FIXTURE.parent / "spikes-idle-switch-untraced.json").read_text())["spikes"]
    explained = spikes.explain(spike)
    assert explained.thread == "rtscope-probe (pid 17995)"
    assert explained.at_planned == "rtscope-hog (pid 17951, RT 90)"
    culprit = explained.culprit
    assert culprit is not None and culprit.what == "rtscope-hog (pid 17951, RT 90)"
    assert (culprit.ran_ns, culprit.before_ns) == (2_052_000, 204_751)


def test_lines_parse_with_and_without_the_flags_column() -> None:
    with_flags = "   culprit-26180   [000] d..2. 10434.097498: sched_switch: prev_comm=a prev_pid=1"
    without = "   culprit-26180   [000] 10434.097498123: irq_handler_entry: irq=11 name=virtio0"
    first, second = spikes.parse([with_flags, without, "# tracer: nop", ""])
    assert (first.at_ns, first.comm, first.pid, first.name) == (10434_097_498_000, "culprit", 26180, "sched_switch")
    assert (second.at_ns, second.name, second.fields) == (10434_097_498_123, "irq_handler_entry", "irq=11 name=virtio0")


def test_kernel_priorities_read_as_policies() -> None:
    assert [spikes.policy(prio) for prio in (9, 0, 98, 120, 139, -1)] == [
        "RT 90",
        "RT 99",
        "RT 1",
        "nice 0",
        "nice 19",
        "DEADLINE",
    ]


def test_show_says_what_held_the_cpu_and_the_result_is_valid() -> None:
    doc = {**builders.result_doc(benches={"lat.wakeup": 30_000}), "version": 4}
    doc["metrics"][0].update(labels={}, spikes=RECORDED)
    jsonschema.validate(doc, builders.SCHEMA)
    text = "\n".join(summary.render(doc, Style(False)))
    assert "Why it was late" in text
    assert "Held longest by culprit (pid 26180, RT 90): 1.24 ms" in text
    assert "its run lasted 2.02 ms" in text
    assert "It was still on the CPU at the planned time and was woken 484 µs late" in text
    assert "to the wake-up is the timer's interrupt coming late" in text and "has no timer" not in text


def test_show_has_no_spike_section_without_traces() -> None:
    text = "\n".join(summary.render(builders.result_doc(), Style(False)))
    assert "Why it was late" not in text


def test_lat_preempt_s_window_starts_at_the_give_of_the_probe_s_own_thread() -> None:
    # The low thread (pid 26479, RT 80) gave; the hog's timer came 20 us later and it took the CPU before the
    # taker (RT 81) ran: the give readied the taker at once, the hog held it after.
    explained = spikes.explain(PREEMPT, "lat.preempt")
    assert explained.thread == "rtscope-probe (pid 26478)"
    assert explained.giver == "rtscope-probe (pid 26479, RT 80)"
    assert (explained.to_wakeup_ns, explained.to_running_ns) == (268, 2_058_000)
    assert [holder.what for holder in explained.holders] == ["rtscope-hog (pid 26415, RT 90)"]
    assert explained.culprit is not None and explained.culprit.ran_ns == 2_031_000
    # Read as a timer's window, the giver would be a holder of its own give.
    assert "rtscope-probe (pid 26479, RT 80)" in [holder.what for holder in spikes.explain(PREEMPT).holders]


def _preempt_doc(spike: dict[str, object]) -> dict[str, object]:
    doc = {**builders.result_doc(benches={"lat.preempt": 30_000}), "version": 4}
    doc["metrics"][0].update(labels={}, spikes=[spike])
    jsonschema.validate(doc, builders.SCHEMA)
    return doc


def test_show_says_lat_preempt_s_spike_was_given_not_planned() -> None:
    text = "\n".join(summary.render(_preempt_doc(PREEMPT), Style(False)))
    assert "lat.preempt spike 1 of 1: 2.06 ms late on CPU 1, given at 19424.823544 s" in text
    assert "given by rtscope-probe (pid 26479, RT 80), which readied it 268 ns after its stamp; running 2.06 ms" in text
    assert "Held longest by rtscope-hog (pid 26415, RT 90): 2.03 ms, 98% of the lateness" in text
    assert "lat.preempt has no timer" in text and "timer's interrupt" not in text


def test_a_giver_held_up_before_its_give_is_no_late_interrupt() -> None:
    # A SCHED_FIFO 90 task took the CPU from the giver between its stamp and its give, for 500 us: the
    # waking (the give) came late, and no timer's interrupt was.
    lines = [
        "  lat-low-20  [000] dNh4.   100.000101: sched_waking: comm=hog pid=30 prio=9 target_cpu=000",
        (
            "  lat-low-20  [000] d..2.   100.000102: sched_switch: prev_comm=lat-low prev_pid=20 prev_prio=19 "
            "prev_state=R ==> next_comm=hog next_pid=30 next_prio=9"
        ),
        (
            "  hog-30  [000] d..2.   100.000602: sched_switch: prev_comm=hog prev_pid=30 prev_prio=9 prev_state=S "
            "==> next_comm=lat-low next_pid=20 next_prio=19"
        ),
        "  lat-low-20  [000] d..2.   100.000604: sched_waking: comm=waiter pid=21 prio=18 target_cpu=000",
        (
            "  lat-low-20  [000] d..2.   100.000606: sched_switch: prev_comm=lat-low prev_pid=20 prev_prio=19 "
            "prev_state=R ==> next_comm=waiter next_pid=21 next_prio=18"
        ),
    ]
    spike = {"planned_ns": 100_000_100_000, "late_ns": 506_000, "cpu": 0, "dropped": 0, "events": lines}
    explained = spikes.explain(spike, "lat.preempt")
    assert (explained.to_wakeup_ns, explained.to_running_ns) == (504_000, 2_000)
    assert explained.culprit is not None and (explained.culprit.what, explained.culprit.held_ns) == (
        "hog (pid 30, RT 90)",
        500_000,
    )
    text = "\n".join(summary.render(_preempt_doc(spike), Style(False)))
    assert "Held longest by hog (pid 30, RT 90): 500 µs, 99% of the lateness" in text
    assert "interrupt came" not in text


# lat.timerlat's traces: the kernel's timerlat tracer's own samples among the events, at rtscope's known culprit
# (the load hold, 500 us every 20.25 ms) on Debian's 6.1 PREEMPT_RT arm64 guest, trimmed to the hold's run.
TIMERLAT = json.loads((FIXTURE.parent / "spikes-timerlat-hold.json").read_text())


def test_timerlat_samples_are_read_as_their_activation() -> None:
    events = spikes.parse(TIMERLAT["irq"]["events"])
    samples = [event for event in events if event.name == "timerlat"]
    assert [(event.comm, event.at_ns) for event in samples] == [
        ("rtscope-hold", 2_807_027_000),
        ("timerlat/0", 2_807_034_000),
    ]
    assert spikes.activation(events) == spikes.Activation(74, 365_472, 373_072, 2_807_027_000)
    # Its planned expiry, read back from the IRQ sample, is the one the probe kept.
    assert 2_807_027_000 - 365_472 == TIMERLAT["irq"]["planned_ns"]
    assert spikes.activation(spikes.parse(RECORDED[0]["events"])) is None


def test_a_timerlat_irq_spike_names_the_hold_that_kept_interrupts_off() -> None:
    explained = spikes.explain(TIMERLAT["irq"])
    assert explained.thread == "timerlat/0 (pid 131)"
    assert explained.at_planned == "rtscope-hold (pid 109, nice 0)"
    # The timer's interrupt came when the hold turned them back on: the wake-up itself was late.
    assert (explained.to_wakeup_ns, explained.to_running_ns) == (366_472, 5_000)
    culprit = explained.culprit
    assert culprit is not None and culprit.what == "rtscope-hold (pid 109, nice 0)"
    assert (culprit.ran_ns, culprit.before_ns) == (509_000, 137_528)


def test_a_timerlat_thread_spike_names_the_hold_that_kept_preemption_off() -> None:
    explained = spikes.explain(TIMERLAT["thread"])
    assert explained.timerlat == spikes.Activation(5, 1_648, 312_464, 2_725_679_000)
    # Woken on time by its IRQ; the switch to it waited for the hold to end.
    assert (explained.to_wakeup_ns, explained.to_running_ns) == (2_648, 309_000)
    culprit = explained.culprit
    assert culprit is not None and (culprit.what, culprit.ran_ns) == ("rtscope-hold (pid 109, nice 0)", 503_000)


def test_the_timerlat_irq_sample_stands_for_a_wake_up_not_traced() -> None:
    lines = [line for line in TIMERLAT["irq"]["events"] if "sched_waking" not in line]
    explained = spikes.explain({**TIMERLAT["irq"], "events": lines})
    assert explained.to_wakeup_ns == 2_807_027_000 - TIMERLAT["irq"]["planned_ns"]


def test_show_gives_timerlat_figures_beside_what_held_the_cpu() -> None:
    doc = {**builders.result_doc(benches={"lat.wakeup": 30_000}), "version": 4}
    doc["metrics"][0].update(labels={}, spikes=[TIMERLAT["irq"], TIMERLAT["thread"]])
    jsonschema.validate(doc, builders.SCHEMA)
    text = "\n".join(summary.render(doc, Style(False)))
    assert "timerlat activation #74: IRQ 365 µs, thread 373 µs after the planned expiry" in text
    assert "came 366 µs late while rtscope-hold (pid 109, nice 0) ran (its run lasted 509 µs)" in text
    assert "Held longest by rtscope-hold (pid 109, nice 0): 312 µs, 100% of the lateness; its run lasted 503 µs" in text


# Small traces of a woken thread that the trace never shows switched in (the window ends at its stamp), one
# per thing the CPU did instead. The measured thread, lat-preempt-hig (pid 202, RT 81), also ran a period
# earlier (its switch-in 1 ms before the planned time: not this wake-up's).
_EARLIER = [
    (
        "lat-preempt-spi-201 [001] d..2.    99.999005: sched_switch: prev_comm=lat-preempt-spi prev_pid=201 "
        "prev_prio=19 prev_state=R ==> next_comm=lat-preempt-hig next_pid=202 next_prio=18"
    ),
    (
        "lat-preempt-hig-202 [001] d..2.    99.999010: sched_switch: prev_comm=lat-preempt-hig prev_pid=202 "
        "prev_prio=18 prev_state=S ==> next_comm=lat-preempt-spi next_pid=201 next_prio=19"
    ),
]
_WOKEN = (
    "          <idle>-0  [001] d.h2.   100.000003: sched_waking: comm=lat-preempt-hig pid=202 prio=18 target_cpu=001"
)


def _kept_off(lines: list[str], late_ns: int) -> spikes.Explanation:
    return spikes.explain({"planned_ns": 100_000_000_000, "late_ns": late_ns, "cpu": 1, "dropped": 0, "events": lines})


def test_a_throttled_thread_is_said_never_to_have_run_while_the_cpu_idled() -> None:
    # RT throttling stops the busy spinner (switched to idle) 500 us before the planned time; the timer wakes
    # the measured thread on time, and it stays runnable on an idle CPU until the period ends 45 ms later.
    lines = [
        *_EARLIER,
        (
            "lat-preempt-spi-201 [001] d..2.    99.999500: sched_switch: prev_comm=lat-preempt-spi prev_pid=201 "
            "prev_prio=19 prev_state=R ==> next_comm=swapper/1 next_pid=0 next_prio=120"
        ),
        _WOKEN,
        "          <idle>-0  [001] d.h2.   100.020000: irq_handler_entry: irq=11 name=arch_timer",
        "          <idle>-0  [001] d.h2.   100.020004: irq_handler_exit: irq=11 ret=handled",
    ]
    explained = _kept_off(lines, 45_000_000)
    assert explained.thread == "lat-preempt-hig (pid 202)"
    # Times run forward: woken 3 us after the planned time, running at its stamp 44.997 ms after that.
    assert (explained.to_wakeup_ns, explained.to_running_ns) == (3_000, 44_997_000)
    assert explained.instead == spikes.Instead(44_997_000, 44_997_000, (), True)
    answer = _shown(lines, 45_000_000)
    assert "not switched in until its stamp 45.0 ms after that" in answer
    assert (
        "Throttled: the thread was runnable for 45.0 ms and never switched in (the CPU meanwhile: idle 45.0 ms)"
        in answer
    )
    assert "−" not in answer and "Nothing else held the CPU" not in answer


def test_a_throttled_thread_is_said_never_to_have_run_while_normal_tasks_did() -> None:
    # The fair server (or RT throttling) gives a normal task 30 ms over the runnable real-time thread.
    lines = [
        *_EARLIER,
        (
            "lat-preempt-spi-201 [001] d..2.    99.999500: sched_switch: prev_comm=lat-preempt-spi prev_pid=201 "
            "prev_prio=19 prev_state=R ==> next_comm=kworker/1:1 next_pid=77 next_prio=120"
        ),
        "     kworker/1:1-77 [001] d.h2.   100.000003: sched_waking: comm=lat-preempt-hig pid=202 prio=18 target_cpu=001",
        (
            "     kworker/1:1-77 [001] d..2.   100.030003: sched_switch: prev_comm=kworker/1:1 prev_pid=77 prev_prio=120 "
            "prev_state=I ==> next_comm=swapper/1 next_pid=0 next_prio=120"
        ),
    ]
    explained = _kept_off(lines, 40_000_000)
    assert explained.thread == "lat-preempt-hig (pid 202)"
    assert explained.instead == spikes.Instead(
        39_997_000, 9_997_000, (("kworker/1:1 (pid 77, nice 0)", 30_000_000),), True
    )
    assert "(the CPU meanwhile: idle 10.0 ms, kworker/1:1 (pid 77, nice 0) 30.0 ms)" in _shown(lines, 40_000_000)


def test_a_thread_woken_from_idle_without_a_traced_switch_runs_at_its_stamp() -> None:
    # lat.wakeup on a kernel that traces no switch from idle: the thread's last switch-in is a period
    # earlier (it read "running −997 µs after that"); it ran by its stamp, 150 us after the planned time.
    lines = [*_EARLIER, _WOKEN]
    explained = _kept_off(lines, 150_000)
    assert (explained.to_wakeup_ns, explained.to_running_ns) == (3_000, 147_000)
    assert explained.instead == spikes.Instead(147_000, 147_000, (), False)
    assert "The CPU was idle from its wake-up to its stamp (147 µs)" in _shown(lines, 150_000)


def test_a_thread_kept_off_by_a_higher_priority_task_is_not_throttled() -> None:
    # A SCHED_FIFO 90 task runs over the woken thread until the trace ends: its switch-in is not in the window.
    lines = [
        *_EARLIER,
        (
            "lat-preempt-spi-201 [001] d..2.    99.999500: sched_switch: prev_comm=lat-preempt-spi prev_pid=201 "
            "prev_prio=19 prev_state=R ==> next_comm=hog next_pid=9 next_prio=9"
        ),
        "             hog-9  [001] d.h2.   100.000003: sched_waking: comm=lat-preempt-hig pid=202 prio=18 target_cpu=001",
    ]
    explained = _kept_off(lines, 3_000_000)
    assert explained.instead == spikes.Instead(2_997_000, 0, (("hog (pid 9, RT 90)", 2_997_000),), False)
    assert "Not switched in until its stamp: hog (pid 9, RT 90) ran 3.00 ms of the 3.00 ms it waited" in _shown(
        lines, 3_000_000
    )


def _shown(lines: list[str], late_ns: int) -> str:
    """What show says of the spike: its section's text."""
    doc = {**builders.result_doc(benches={"lat.wakeup": 30_000}), "version": 4}
    doc["metrics"][0].update(
        labels={}, spikes=[{"planned_ns": 100_000_000_000, "late_ns": late_ns, "cpu": 1, "dropped": 0, "events": lines}]
    )
    return "\n".join(summary.render(doc, Style(False)))


def test_a_throttled_spike_recorded_on_the_rt_guest_reads_throttled() -> None:
    # lat.preempt_timer rest=0 on the PREEMPT_RT guest (6.1.0-56-rt-arm64): RT throttling stops the spinner
    # (pid 107) after the sleeper's period at 3.953828; the timer wakes the sleeper (pid 108) on time at
    # 3.954823 and it waits 49.2 ms on a CPU that idles, but for ksoftirqd, until the period ends. The
    # spike was read before as "Held longest by irq 11 (arch_timer): 88.0 µs, 0% of the lateness".
    [spike] = json.loads((FIXTURE.parent / "spikes-throttled-rt-guest.json").read_text())["spikes"]
    explained = spikes.explain(spike, "lat.preempt_timer")
    assert explained.thread == "rtscope-probe (pid 108)"
    instead = explained.instead
    assert instead is not None and instead.throttled and instead.switched_in
    assert instead.waited_ns == explained.to_running_ns and instead.waited_ns > 45_000_000
    assert instead.idle_ns > 0.95 * instead.waited_ns
    doc = {**builders.result_doc(benches={"lat.wakeup": 30_000}), "version": 4}
    doc["metrics"][0].update(labels={}, spikes=[spike])
    text = "\n".join(summary.render(doc, Style(False)))
    assert "Throttled: the thread was runnable for 49.2 ms before it was switched in (the CPU meanwhile: idle" in text
    assert "0% of the lateness" not in text


def test_times_never_run_backwards_in_any_recorded_spike() -> None:
    recorded = [
        (spike, metric_id)
        for name, metric_id in (
            ("spikes-fifo-hog.json", "lat.wakeup"),
            ("spikes-preempt-hog.json", "lat.preempt"),
            ("spikes-idle-switch-untraced.json", "lat.wakeup"),
            ("spikes-throttled-rt-guest.json", "lat.preempt_timer"),
        )
        for spike in json.loads((FIXTURE.parent / name).read_text())["spikes"]
    ] + [(TIMERLAT["irq"], "lat.timerlat"), (TIMERLAT["thread"], "lat.timerlat")]
    for spike, metric_id in recorded:
        explained = spikes.explain(spike, metric_id)
        for part in (explained.to_wakeup_ns, explained.to_running_ns):
            assert part is None or 0 <= part <= explained.late_ns + 100_000, (metric_id, explained)
