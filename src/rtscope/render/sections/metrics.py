"""The metrics of samples: count and distribution, overhead-adjusted unless asked otherwise, and validity."""

from typing import Any

from rtscope.model import result
from rtscope.render import cells, fmt
from rtscope.render.document import Cell, Paragraph, Section, heading, table
from rtscope.render.subjects import OneRun

STAT_COLUMNS = ("min", "p50", "p90", "p99", "p999", "max", "mean", "stddev")


def build(subject: OneRun) -> Section | None:
    """A row per metric of samples, each figure in its metric's unit; "none measured" when the run has
    no metric at all, nothing when it has only per-period ones (the throughput section shows them)."""
    metrics = subject.doc["metrics"]
    sampled = [m for m in metrics if not result.is_periodic(m)]
    if metrics and not sampled:
        return None
    aside = (
        ", overhead-adjusted (--raw-times: as measured)" if subject.adjusted else ", as measured, not overhead-adjusted"
    )
    if not sampled:
        return Section(heading("Metrics", aside), (Paragraph(("none measured",)),))
    with_labels = cells.labels_shown(sampled)
    header = [*cells.metric_header(with_labels), "count", *(result.STATISTICS[key] for key in STAT_COLUMNS), "validity"]
    rows: list[list[str | Cell]] = []
    for m in sampled:
        figures, unit = result.summary(m, adjusted=subject.adjusted), result.unit(m)
        step = result.clock_step(subject.doc, m)
        rows.append(
            [
                *cells.metric_cells(m, with_labels),
                fmt.count(figures["count"]),
                *(
                    fmt.below_resolution(step, short=True)
                    if step is not None and result.below_resolution(step, key, figures[key])
                    else unit.format(figures[key])
                    for key in STAT_COLUMNS
                ),
                cells.validity(m),
            ]
        )
    align = "l" * with_labels + "lr" + "r" * len(STAT_COLUMNS) + "l"
    said = (*below_notes(subject.doc, sampled, subject.adjusted), *tick_notes(subject.doc, sampled))
    return Section(heading("Metrics", aside), (table(header, rows, align), *([Paragraph(said)] if said else [])))


def below_notes(doc: dict[str, Any], metric_docs: list[dict[str, Any]], adjusted: bool) -> tuple[str, ...]:
    """Beside the table, for each metric with figures shown as "< step": which, and why."""
    notes = []
    for m in metric_docs:
        step, figures = result.clock_step(doc, m), result.summary(m, adjusted=adjusted)
        below = [name for key, name in result.STATISTICS.items() if result.below_resolution(step, key, figures[key])]
        if step is not None and below:
            notes.append(f"{m['id']}: {', '.join(below)} {fmt.below_resolution(step)}: they read no step of it")
    return tuple(notes)


def tick_notes(doc: dict[str, Any], metric_docs: list[dict[str, Any]]) -> tuple[str, ...]:
    """What a wake-up from a sleep measured where the port declares its sleeps whole ticks (an RTOS's):
    one line per such metric with samples, saying that its latency is the tick's; none on Linux, whose
    sleeps end at the clock's time, and for a result that does not record the granularity."""
    tick = result.sleep_granularity(doc)
    if tick is None:
        return ()
    return tuple(
        f"{m['id']}: sleeps here are whole ticks of {fmt.duration(tick)} (the port's timer granularity): a "
        "wake-up comes up to a tick late, by where in the tick its sleep began"
        for m in metric_docs
        if m["id"] in result.WOKEN_FROM_SLEEP and m["stats"]["count"]
    )
