"""What the probe warned of: setup not granted, settings that disturb measurements."""

from rtscope.render.document import Cell, Items, Section, heading
from rtscope.render.subjects import OneRun


def build(subject: OneRun) -> Section | None:
    """Each warning, marked, when there are any."""
    warnings = subject.doc["config"]["warnings"]
    if not warnings:
        return None
    return Section(heading("Warnings"), (Items(tuple(Cell(f"! {warning}", "warn") for warning in warnings)),))
