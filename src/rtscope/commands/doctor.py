"""rtscope doctor: is the target ready for real-time measuring? One check per setting, each with its
state, why it matters to latency and the command that would change it; exit 1 when a setting would
distort measurements. The facts come from the probe there and through the target's transport
(rtscope.targets.facts), the judging is rtscope.analysis.readiness; this command prints them, as text
or as JSON (docs/doctor.md).
"""

import argparse
import json
import textwrap
from typing import Any

from rtscope.analysis import readiness
from rtscope.commands.context import Context
from rtscope.render import text
from rtscope.render.document import Cell, Paragraph, Section, heading
from rtscope.targets import facts, one_board

FORMATS = ("text", "json")
DISTORTING = 1
# The JSON document's format name and version: scripts rely on its shape (docs/doctor.md).
JSON_FORMAT, JSON_VERSION = "rtscope-doctor", 2
_EMPHASIS = {readiness.OK: "good", readiness.WARN: "warn", readiness.BAD: "bad", readiness.UNKNOWN: ""}
_WRAP = 100


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--format."""
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="text (default), or json: the checks and the facts they judged, for scripts",
    )


def run(args: argparse.Namespace, context: Context) -> int:
    """Read the target's facts, judge them and print every check that applies; 1 when one would distort
    measurements."""
    one_board(context.target_spec)
    target = context.target()
    system = facts.gather(target)
    checks = readiness.assess(system)
    if args.format == "json":
        context.out.write(json.dumps(document(target.name, system, checks), indent=2, ensure_ascii=False) + "\n")
    else:
        context.print(text.render([_section(target.name, system, checks)], context.style))
    return DISTORTING if readiness.distorting(checks) else 0


def document(target_name: str, system: readiness.SystemFacts, checks: list[readiness.SettingCheck]) -> dict[str, Any]:
    """What --format json prints: the target, its OS, the ids of distorting checks, every check that
    applies, the notes, the facts."""
    return {
        "format": JSON_FORMAT,
        "version": JSON_VERSION,
        "target": target_name,
        "os": readiness.os_name(system),
        "distorting": [check.id for check in readiness.distorting(checks)],
        "checks": [
            {
                "id": check.id,
                "title": check.title,
                "state": check.state,
                "verdict": check.verdict,
                "why": check.why,
                "fix": check.fix,
            }
            for check in checks
        ],
        "notes": readiness.notes(system),
        "facts": system,
    }


def _section(target_name: str, system: readiness.SystemFacts, checks: list[readiness.SettingCheck]) -> Section:
    probed = system["probe"]["system"]
    kernel = f" ({probed['os']} {probed['kernel_release']})" if probed else ""
    notes = readiness.notes(system)
    return Section(
        heading("Real-time readiness", f" of {target_name}{kernel}"),
        parts=(Paragraph(tuple(f"note: {note}" for note in notes)),) if notes else (),
        subsections=tuple(_check_section(check) for check in checks),
        notes=(_outcome(checks),),
    )


def _check_section(check: readiness.SettingCheck) -> Section:
    """The verdict and state as its title; why it matters, and what would change it when it is not ok."""
    lines = textwrap.wrap(f"why: {check.why}", _WRAP, subsequent_indent="     ")
    if check.fix and check.verdict != readiness.OK:
        lines.append(f"fix: {check.fix}")  # one line, unwrapped: it is to be copied whole
    return Section(
        (Cell(f"{check.verdict:<7}", _EMPHASIS[check.verdict]), Cell(f" {check.title}: {check.state}")),
        (Paragraph(tuple(lines)),),
    )


def _outcome(checks: list[readiness.SettingCheck]) -> Cell:
    counts = {verdict: sum(check.verdict == verdict for check in checks) for verdict in readiness.VERDICTS}
    tally = ", ".join(f"{count} {verdict}" for verdict, count in counts.items() if count)
    bad = readiness.distorting(checks)
    if bad:
        return Cell(
            f"{tally}: {', '.join(check.title for check in bad)} would distort measurements (exit status {DISTORTING})",
            "bad",
        )
    some = readiness.benches_distorted(checks)
    if some:
        return Cell(
            f"{tally}: "
            + "; ".join(f"{check.title} would distort {benches}" for check, benches in some)
            + "; nothing would distort the others",
            "warn",
        )
    return Cell(f"{tally}: nothing would distort measurements")
