"""How the run took time: its clock and cycle counter, their resolution and the cost of a read."""

from rtscope.model import result
from rtscope.render import fmt
from rtscope.render.document import Section, heading, table
from rtscope.render.fmt import MISSING
from rtscope.render.subjects import OneRun


def build(subject: OneRun) -> Section:
    """The clock and the cycle counter ("none usable" when there is none)."""
    timing = subject.doc["timing"]
    clock = (
        f"{timing['clock']}: resolution {fmt.duration(timing['clock_resolution_ns'])}, "
        f"{fmt.duration(timing['clock_overhead_ns'])} per read"
    )
    if timing["cycle_counter"] is None:
        counter = "none usable"
    elif result.counter_kind(subject.doc) == "cpu-cycles":
        counter = (
            f"{timing['cycle_counter']}: {_plain(timing['cycles_per_ns'])} cycles/ns, "
            f"{_plain(timing['cycle_overhead_cycles'])} cycles per read"
        )
    else:
        # Not the CPU's cycles (arm64's generic timer): its ticks are named as what they are, with its rate.
        kind = result.counter_kind(subject.doc) or "unknown"
        hz = result.counter_hz(subject.doc)
        what = {"timer": "a fixed-rate timer", "instructions": "an instruction counter"}.get(
            kind, "a counter of unknown kind"
        )
        counter = (
            f"{timing['cycle_counter']}: {what}{f' at {_rate(hz)}' if hz else ''}, not CPU cycles; "
            f"{_plain(timing['cycle_overhead_cycles'])} ticks per read"
        )
    rows = [("clock", clock), ("cycle counter", counter)]
    if "sleep_granularity_ns" in timing:  # recorded since 2026-11-28
        tick = timing["sleep_granularity_ns"]
        rows.append(
            (
                "sleeps",
                "end at the clock's time" if tick is None else f"whole ticks of {fmt.duration(tick)} (the port's)",
            )
        )
    return Section(heading("Timing"), (table(None, rows, "ll"),))


def _rate(hz: float) -> str:
    """A counter's rate: "62.5 MHz", "1 GHz"."""
    for scale, name in ((1e9, "GHz"), (1e6, "MHz"), (1e3, "kHz")):
        if hz >= scale:
            return f"{hz / scale:.4g} {name}"
    return f"{hz:.4g} Hz"


def _plain(number: float | None) -> str:
    return MISSING if number is None else f"{number:.3g}"
