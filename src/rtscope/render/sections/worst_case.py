"""The probabilistic worst case of the latency metrics (rtscope.analysis.worst_case; docs/worst-case.md):
the value one activation exceeds with a given probability, its 95 % interval and the fit it came from,
or why there is none (the failing test and its p-value, or how many blocks it needs). A latency metric
is one that keeps a series (the latency benches' worst sample per window). `show` has a line per metric,
`compare` a row per group and metric, the report a row per run on each latency metric's page."""

import math
from collections.abc import Sequence
from typing import Any

from rtscope.analysis import worst_case
from rtscope.analysis.grouping import Group
from rtscope.model import result, units
from rtscope.render.document import Cell, Items, Paragraph, Section, heading, table
from rtscope.render.sections.run import TIME_BASES
from rtscope.render.subjects import OneRun, Report

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def build(subject: OneRun) -> Section | None:
    """A line per latency metric of the run; nothing when it has none."""
    metrics = [m for m in subject.doc["metrics"] if _is_latency(m)]
    if not metrics:
        return None
    lines = [
        Cell(f"{m['id']}: {text}", emphasis)
        for m in metrics
        for text, emphasis in [_said(worst_case.for_metrics([m], subject.worst_case))]
    ]
    return Section(
        heading("Worst case", f", exceeded with probability {probability_text(subject.worst_case)} per activation"),
        (Items(tuple(lines)), *_time_base_note([subject.doc])),
    )


def build_report(report: Report, metric_id: str) -> Section | None:
    """On a latency metric's page: a row per run that measured it, its worst case or why none."""
    measured = [(run, m) for run, m in report.measured(metric_id) if _is_latency(m)]
    if not measured:
        return None
    rows = [[run.caption, *_cells(worst_case.for_metrics([m], report.worst_case))] for run, m in measured]
    return Section(
        heading("Worst case", f", exceeded with probability {probability_text(report.worst_case)} per activation"),
        (
            table(["run", "worst case", "95 %", "from"], rows, "lrrl"),
            *_time_base_note([run.doc for run, _ in measured]),
        ),
    )


def compare_section(groups: Sequence[Group], probability: float) -> Section | None:
    """compare's rows: per latency metric, per group, its worst case from the blocks of all its runs
    (run after run; the tests then also judge whether its runs are alike); nothing without latency
    metrics."""
    ids = list(dict.fromkeys(m["id"] for g in groups for doc in g.docs for m in doc["metrics"] if _is_latency(m)))
    if not ids:
        return None
    rows: list[list[str | Cell]] = []
    for metric_id in ids:
        for g in groups:
            docs = [m for doc in g.docs if (m := result.metric(doc, metric_id)) is not None]
            if docs:
                rows.append([metric_id, g.letter, *_cells(worst_case.for_metrics(docs, probability))])
    return Section(
        heading("Worst case", f", exceeded with probability {probability_text(probability)} per activation"),
        (
            table(["metric", "group", "worst case", "95 %", "from"], rows, "llrrl"),
            *_time_base_note([doc for g in groups for doc in g.docs]),
        ),
    )


def probability_text(probability: float) -> str:
    """1e-9 as "10⁻⁹", 2.5e-7 as "2.5·10⁻⁷" (three significant digits at most)."""
    exponent = math.floor(math.log10(probability))
    mantissa = float(f"{probability / 10**exponent:.3g}")
    if mantissa >= 10:  # 9.996e-8 rounds to 10·10⁻⁸: 10⁻⁷
        mantissa, exponent = mantissa / 10, exponent + 1
    power = f"10{str(exponent).translate(_SUPERSCRIPT)}"
    return power if mantissa == 1 else f"{mantissa:g}·{power}"


def _is_latency(metric_doc: dict[str, Any]) -> bool:
    return not result.is_periodic(metric_doc) and bool(metric_doc.get("series"))


def _said(found: worst_case.Estimate | str) -> tuple[str, str]:
    """ "61.2 µs (54.0 µs–75.3 µs, 95 %), GEV fit on 120 blocks of 1,000 (1 s windows)" or "no worst case:
    …", with the emphasis a refusal gets."""
    value, interval, source = _cells(found)
    if isinstance(value, Cell):
        return f"no worst case: {source}", value.emphasis
    return f"{value} ({interval}, 95 %), {source}", ""


def _cells(found: worst_case.Estimate | str) -> list[str | Cell]:
    """The figure, its interval and where it came from; a refusal's figure is "none", said in warning."""
    if isinstance(found, str):
        return [Cell("none", "warn"), "", found]
    if found.refusal is not None or found.value is None or found.low is None:
        return [Cell("none", "warn"), "", found.refusal or "no estimate"]
    fit = (
        f"GEV fit on {found.blocks:,} blocks of {found.block_size:,} ({found.source}); "
        f"shape {units.significant(found.fit.shape, 2) if found.fit else '?'}"
    )
    high = "no upper bound" if found.high is None else units.NS.format(found.high)
    return [units.NS.format(found.value), f"{units.NS.format(found.low)}–{high}", fit]


def _time_base_note(docs: Sequence[dict[str, Any]]) -> tuple[Paragraph, ...]:
    """What the time base makes of the figures, where a run was not measured on hardware time."""
    bases = sorted({result.time_base(doc) for doc in docs} - {"hardware"})
    return tuple(Paragraph((f"The times are {TIME_BASES[base]}: so is the worst case.",)) for base in bases)
