"""The benches the run ran: status, time taken, and their parameters, error or why they were skipped."""

from typing import Any

from rtscope.model import result
from rtscope.render import cells, fmt
from rtscope.render.document import Section, heading, table
from rtscope.render.subjects import OneRun


def build(subject: OneRun) -> Section:
    """A row per bench (a skipped one took no time: it did not start)."""
    rows = [
        [
            bench["id"],
            cells.status(bench["status"]),
            fmt.MISSING if bench["status"] == cells.SKIPPED else fmt.seconds(bench["elapsed_s"]),
            _note(bench),
        ]
        for bench in subject.doc["benches"]
    ]
    return Section(heading("Benches"), (table(None, rows, "llrl"),))


def _note(bench: dict[str, Any]) -> str:
    """What to say of a bench beside its status: why it was skipped, its error, else its parameters."""
    if bench["status"] == cells.SKIPPED:
        return result.why_skipped(bench)
    # Start-up outside the measuring window (a wave generator's, to its first edge): said apart from it.
    startup = f"start-up {fmt.duration(bench['startup_ns'])}; " if "startup_ns" in bench else ""
    if bench["error"]:
        return f"{startup}error: {bench['error']}"
    return startup + " ".join(f"{key}={value}" for key, value in bench["params"].items())
