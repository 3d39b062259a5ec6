"""The tails of the metrics of samples with their uncertainty: p99, p99.9 and p99.99 each with its 95 %
distribution-free interval (rtscope.analysis.quantiles), or the samples a claim about it needs where a
run has too few; the maximum with the count of samples it is the largest of. Where higher is better (a
throughput), the tail that hurts is the low one: p1, p0.1, p0.01 and the minimum, in a table of their
own."""

from collections.abc import Sequence
from typing import Any

from rtscope.analysis import quantiles, stats
from rtscope.model import result, units
from rtscope.render import cells, fmt
from rtscope.render.document import Paragraph, Section, Table, heading, table
from rtscope.render.subjects import OneRun, Report

ASIDE = ", 95 % confidence intervals (distribution-free: order statistics)"
METHOD = (
    "Each interval holds its quantile with at least 95 % confidence, whatever the distribution (docs/statistics.md)."
)
TOO_FEW = "too few samples"


def build(subject: OneRun) -> Section | None:
    """A row per metric of samples with samples: its tails with their intervals and its extreme with its
    count, a table per side of tail; a line per metric short of the samples a quantile needs. Nothing
    when no metric has samples."""
    sampled = [m for m in subject.doc["metrics"] if not result.is_periodic(m) and m["stats"]["count"]]
    if not sampled:
        return None
    with_labels = cells.labels_shown(sampled)
    found = {id(m): quantiles.intervals(m, adjusted=subject.adjusted) for m in sampled}
    tables = []
    for side in (quantiles.TAILS, quantiles.LOW_TAILS):
        of_side = [m for m in sampled if quantiles.bad_tail(m) is side]
        if of_side:
            rows = [
                [*cells.metric_cells(m, with_labels), *tail_cells(subject.doc, m, found[id(m)], subject.adjusted)]
                for m in of_side
            ]
            tables.append(_table(cells.metric_header(with_labels), side, rows))
    short = [f"{_name(m, with_labels)}: {said}" for m in sampled if (said := shortfall(found[id(m)]))]
    return Section(heading("Tails", ASIDE), (*tables, Paragraph((METHOD, *short))))


def build_metric(report: Report, metric_id: str) -> Section | None:
    """The report's per-metric view: a row per run with samples of ``metric_id``, as :func:`build`."""
    measured = [(run, m) for run, m in report.measured(metric_id) if not result.is_periodic(m) and m["stats"]["count"]]
    if not measured:
        return None
    found = [quantiles.intervals(m, adjusted=report.adjusted) for _, m in measured]
    rows = [
        [run.caption, *tail_cells(run.doc, m, f, report.adjusted)] for (run, m), f in zip(measured, found, strict=True)
    ]
    short = [f"{run.caption}: {said}" for (run, _), f in zip(measured, found, strict=True) if (said := shortfall(f))]
    side = quantiles.bad_tail(measured[0][1])
    return Section(heading("Tails", ASIDE), (_table(["run"], side, rows), Paragraph((METHOD, *short))))


def _name(metric_doc: dict[str, Any], with_labels: bool) -> str:
    """A metric as its row names it: its id, and its labels where the table shows them (the square
    waves' ids repeat)."""
    labels = result.labels(metric_doc)
    return f"{metric_doc['id']} ({cells.labels_text(labels)})" if with_labels and labels else metric_doc["id"]


def _table(names: Sequence[str], side: dict[str, float], rows: list[list[str]]) -> Table:
    extreme = "max" if side is quantiles.TAILS else "min"
    header = [*names, *(stats.statistic_name(key) for key in side), extreme]
    return table(header, rows, "l" * len(names) + "r" * (len(side) + 1))


def tail_cells(
    doc: dict[str, Any], metric_doc: dict[str, Any], found: dict[str, quantiles.Interval], adjusted: bool
) -> list[str]:
    """A metric's tail that hurts (p99, p99.9, p99.99; or p1, p0.1, p0.01), each with its interval of
    ``found`` (quantiles.intervals) as :func:`interval_text` says it, and its extreme (max; or min) with
    its count ("2.79 ms of 3,994"); a figure below the resolution of run ``doc``'s clock as such
    ("< 40 ns", as the metrics table shows it), without an interval of readings of no step."""
    figures, unit = result.summary(metric_doc, adjusted=adjusted), result.unit(metric_doc)
    side, step = quantiles.bad_tail(metric_doc), result.clock_step(doc, metric_doc)

    def cell(key: str) -> str:
        value = stats.statistic(metric_doc, key, adjusted=adjusted)
        if step is not None and result.below_resolution(step, key, value):
            return fmt.below_resolution(step, short=True)
        return interval_text(value, found[key], unit) if key in found else units.MISSING

    extreme = "max" if side is quantiles.TAILS else "min"
    below = step is not None and result.below_resolution(step, extreme, figures[extreme])
    largest = fmt.below_resolution(step, short=True) if step is not None and below else unit.format(figures[extreme])
    return [*(cell(key) for key in side), f"{largest} of {fmt.count(figures['count'])}"]


def interval_text(value: float | None, interval: quantiles.Interval, unit: units.Unit) -> str:
    """A quantile and its interval: "49.3 µs (46.6–59.1 µs)", "1.29 ms (406 µs–2.79 ms)"; "too few samples"
    where they are too few for a two-sided one (:func:`shortfall` says how many it needs)."""
    if not interval.enough:
        return TOO_FEW
    low, high = unit.format(interval.low), unit.format(interval.high)
    # One unit said once: the bounds are read together.
    suffix = high[high.rfind(" ") :] if " " in high else ""
    if suffix and low.endswith(suffix):
        low = low[: -len(suffix)]
    return f"{unit.format(value)} ({low}–{high})"


def shortfall(found: dict[str, quantiles.Interval]) -> str:
    """The quantiles of ``found`` (quantiles.intervals) whose samples are too few, and how many there are:
    "p99.9 needs ≥ 3,688 samples and p99.99 ≥ 36,887; this run has 1,996" (or "p99 needs ≥ 368
    samples, p99.9 ≥ 3,688 and p99.99 ≥ 36,887"); "" when none is short."""
    short = [interval for interval in found.values() if not interval.enough]
    if not short:
        return ""
    first, *rest = short
    needs = [
        f"{stats.statistic_name(first.key)} needs ≥ {fmt.count(first.needed)} samples",
        *(f"{stats.statistic_name(i.key)} ≥ {fmt.count(i.needed)}" for i in rest),
    ]
    listed = needs[0] if len(needs) == 1 else f"{', '.join(needs[:-1])} and {needs[-1]}"
    return f"{listed}; this run has {fmt.count(first.samples)}"
