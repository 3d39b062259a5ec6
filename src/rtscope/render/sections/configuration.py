"""The real-time setup the run asked for and what it was granted, a difference marked, a setting its
platform does not have said so."""

from typing import Any

from rtscope.render import cells
from rtscope.render.document import Cell, Section, heading, table
from rtscope.render.subjects import OneRun

FIELDS = (
    ("policy", "policy"),
    ("priority", "priority"),
    ("CPUs", "cpus"),
    ("mlockall", "mlockall"),
    ("stack prefault", "stack_prefault"),
    ("CPU latency limit", "cpu_latency_us"),
    ("RT throttling lifted", "rt_throttling_off"),  # absent from results before 2026-11-28
)
NOT_APPLICABLE = "not applicable"


def build(subject: OneRun) -> Section:
    """A row per setting: requested, granted ("not applicable" where the platform has no such setting)
    and, when the run did not get it, "! not as requested"."""
    config = subject.doc["config"]
    not_applicable, not_granted = config.get("not_applicable", ()), cells.not_granted(config)
    rows = []
    for name, key in FIELDS:
        if key not in config["requested"]:
            continue
        granted = NOT_APPLICABLE if key in not_applicable else _value(config["granted"][key])
        row = [name, _value(config["requested"][key]), granted]
        rows.append([Cell(text, "warn") for text in (*row, "! not as requested")] if key in not_granted else [*row, ""])
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
