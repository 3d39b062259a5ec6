"""The runs of a report at a glance: name and colour, where and how each ran, its state."""

from rtscope.analysis.grouping import SHORT_ID
from rtscope.render import cells, fmt
from rtscope.render.document import Cell, Paragraph, Part, Section, heading, table
from rtscope.render.fmt import MISSING
from rtscope.render.subjects import Report


def build(report: Report) -> Section:
    """A row per run, linking its details; a run that did not get the real-time setup it asked for is
    marked, and a note says what that means."""
    rows = []
    for run in report.runs:
        doc, system = run.doc, run.doc["system"]
        config, campaign = doc["config"], doc.get("campaign")
        granted = f"{config['granted']['policy']} {config['granted']['priority']}"
        rows.append(
            [
                Cell(run.name, swatch=run.colour, link=run.anchor),
                doc["run"]["id"][:SHORT_ID],
                doc["run"]["label"] or MISSING,
                cells.host_text(doc),
                cells.kernel_text(system),
                cells.cpu_text(doc),
                Cell(f"! {granted}", "warn") if cells.not_granted(config) else Cell(granted),
                fmt.local_time(doc["run"]["started"]),
                cells.status(doc["run"]["status"]),
                f"{campaign['name']}: {campaign['cell']} #{campaign['repetition']}" if campaign else MISSING,
                ", ".join(load["name"] for load in doc.get("loads") or []) or "none",
                Cell(f"! {len(config['warnings'])}", "warn") if config["warnings"] else "none",
            ]
        )
    header = [
        "run",
        "id",
        "label",
        "host",
        "kernel",
        "CPU",
        "granted",
        "started",
        "status",
        "campaign cell",
        "loads",
        "warnings",
    ]
    parts: list[Part] = [table(header, rows, "l" * len(header))]
    if any(cells.not_granted(run.doc["config"]) for run in report.runs):
        parts.append(
            Paragraph(
                ("! granted: the run did not get all the real-time setup it asked for; its details say what it got.",)
            )
        )
    return Section(heading("Runs"), tuple(parts), anchor="runs")
