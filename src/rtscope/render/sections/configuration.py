"""The real-time setup the run asked for and what it was granted, a difference marked."""

from typing import Any

from rtscope.render.document import Cell, Section, heading, table
from rtscope.render.subjects import OneRun

FIELDS = (
    ("policy", "policy"),
    ("priority", "priority"),
    ("CPUs", "cpus"),
    ("mlockall", "mlockall"),
    ("stack prefault", "stack_prefault"),
    ("CPU latency limit", "cpu_latency_us"),
)


def build(subject: OneRun) -> Section:
    """A row per setting: requested, granted and, when they differ, "! not as requested"."""
    config = subject.doc["config"]
    rows = []
    for name, key in FIELDS:
        requested, granted = config["requested"][key], config["granted"][key]
        row = [name, _value(requested), _value(granted)]
        rows.append(
            [*row, ""] if requested == granted else [Cell(text, "warn") for text in (*row, "! not as requested")]
        )
    return Section(heading("Configuration"), (table(["", "requested", "granted", ""], rows, "llll"),))


def _value(value: Any) -> str:
    """A requested or granted setting as text ("none", "yes"/"no", a CPU list or "any" …)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ",".join(map(str, value)) or "any"
    return str(value)
