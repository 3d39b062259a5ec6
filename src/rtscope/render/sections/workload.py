"""The application workload's tables (rtscope.analysis.workload): per series, per operation and thread
count, execution, waiting and response time — mean, p50, p99, max — with the mean's and p99's ratio to
N = 2; `show` gives one run's lines, `compare` and the report every run's. With a published study
(rtscope.analysis.published), its means stand in columns of their own, marked published, beside the
figures they are not compared with; and its crypto throughputs beside the runs' crypto metrics.
"""

from collections.abc import Iterable
from typing import Any

from rtscope.analysis import workload
from rtscope.analysis.published import OP_FAMILIES, Study
from rtscope.model import result, units
from rtscope.render import cells, fmt
from rtscope.render.document import Cell, Paragraph, Part, Section, heading, table
from rtscope.render.fmt import MISSING
from rtscope.render.subjects import OneRun, Report

INVALID_MARK = " *"
PUBLISHED_MARK = "published"
_WORDS = dict(workload.QUANTITIES)


def build(report: Report) -> Section | None:
    """The report's workload tables, with the study it was asked to show beside them."""
    docs = [run.doc for run in report.runs]
    return section(docs, adjusted=report.adjusted, published=report.published)


def build_crypto(report: Report) -> Section | None:
    """The report's crypto metrics beside the study it was asked to show, when it published any."""
    if report.published is None:
        return None
    return crypto_section([run.doc for run in report.runs], report.published, adjusted=report.adjusted)


def build_run(subject: OneRun) -> Section | None:
    """One run's lines of the workload table (show)."""
    return section([subject.doc], adjusted=subject.adjusted)


def section(
    docs: Iterable[dict[str, Any]], *, by: str | None = None, adjusted: bool = True, published: Study | None = None
) -> Section | None:
    """The workload tables of the runs among ``docs`` grouped ``by`` compare's rule, a subsection per
    series when there are several; None when no run measured the workload."""
    all_series = workload.build(docs, by=by, adjusted=adjusted)
    if not all_series:
        return None
    title = heading("Application workload", ": execution, waiting and response time per thread")
    notes = _invalid_notes(all_series)
    if len(all_series) == 1:
        return Section(
            title, (*_parts(all_series[0], published), _how(all_series, adjusted, published)), notes, anchor="workload"
        )
    return Section(
        title,
        (_how(all_series, adjusted, published),),
        notes,
        anchor="workload",
        subsections=tuple(Section(heading(series.name or MISSING), _parts(series, published)) for series in all_series),
    )


def _parts(series: workload.Series, published: Study | None) -> tuple[Part, ...]:
    with_processes = any(line.processes > 1 for line in series.lines)
    columns = published.columns() if published else []
    header = [
        "op",
        *(["processes"] if with_processes else []),
        "threads",
        "time",
        "runs",
        *(result.STATISTICS[key] for key in workload.STATISTICS),
        *(f"{result.STATISTICS[key]} ×N={_baseline_text(series)}" for key in workload.RATIO_STATISTICS),
        *(f"{PUBLISHED_MARK} {platform}{'' if family == 'all' else ' by op'}" for platform, family in columns),
    ]
    rows: list[list[str | Cell]] = []
    previous = None
    for line in series.lines:
        for (metric_id, word), cell in zip(workload.QUANTITIES, line.cells, strict=True):
            first = (line.op, line.processes, line.threads) != previous
            rows.append(
                [
                    line.op if first else "",
                    *([str(line.processes) if first else ""] if with_processes else []),
                    str(line.threads) if first else "",
                    word,
                    _runs(cell),
                    *(_figure(cell, key) for key in workload.STATISTICS),
                    *(fmt.ratio(cell.ratios[key]) for key in workload.RATIO_STATISTICS),
                    *(_published(published, line, metric_id, column) for column in columns),
                ]
            )
            previous = (line.op, line.processes, line.threads)
    align = (
        "l" * (1 + with_processes)
        + "rlr"
        + "r" * (len(workload.STATISTICS) + len(workload.RATIO_STATISTICS) + len(columns))
    )
    return (table(header, rows, align),)


def _baseline_text(series: workload.Series) -> str:
    """The N the ratios are to: "2", or "first" when some operation lacks N = 2 (the note says which)."""
    baselines = {line.baseline_threads for line in series.lines}
    return str(baselines.pop()) if len(baselines) == 1 else "first"


def _runs(cell: workload.TimeFigures) -> Cell:
    """How many runs the figures are of: "2", or "1 of 2" marked when some are invalid."""
    if not cell.invalid:
        return Cell(str(cell.valid))
    return Cell(f"{cell.valid} of {cell.valid + cell.invalid}{INVALID_MARK}", "bad")


def _figure(cell: workload.TimeFigures, key: str) -> Cell:
    value = cell.figures[key]
    return Cell("invalid", "bad") if value is None and cell.invalid else Cell(units.NS.format(value))


def _published(study: Study | None, line: workload.ScalingPoint, metric_id: str, column: tuple[str, str]) -> str:
    """The study's mean for ``column`` (platform, "all" or "op") at the line's thread count, "—" where it
    has none (another N, an op it has no family for, more than one process)."""
    platform, family = column
    if study is None or line.processes != 1:
        return MISSING
    wanted = "all" if family == "all" else OP_FAMILIES.get(line.op)
    found = [t for t in study.times_at(line.threads, wanted) if t.platform == platform] if wanted else []
    return units.NS.format(found[0].of(metric_id)) if found else MISSING


def _how(all_series: tuple[workload.Series, ...], adjusted: bool, published: Study | None) -> Paragraph:
    lines = [
        (
            "Per thread and iteration: execution (first instruction to last), waiting (runnable but not running, "
            "and blocked on the mutex) and response (release to first instruction); docs/workload.md."
        ),
        (
            "mean: over every sample of the valid runs; p50, p99: the median of the runs' figures; max: the largest. "
            f"×N=2: the ratio to the same op's figure at 2 threads{_other_baselines(all_series)}."
        ),
        (
            f"Times {'overhead-adjusted' if adjusted else 'as measured'}; {INVALID_MARK.strip()} runs whose metric is "
            "invalid take no part (notes say why)."
        ),
    ]
    if published is not None:
        lines.append(
            f"{PUBLISHED_MARK}: {published.source}, {published.statistic} only — other hardware, another "
            "time, the study's own program; context, not compared with the runs above and in no ratio. "
            "By op: its sorting or matrix figures; else its mix of both. Platforms: "
            + "; ".join(f"{name} {what}" for name, what in published.platforms.items())
            + "."
        )
    return Paragraph(tuple(lines))


def _other_baselines(all_series: tuple[workload.Series, ...]) -> str:
    others = sorted(
        {
            f"{line.op} N={line.baseline_threads}"
            for s in all_series
            for line in s.lines
            if line.baseline_threads != workload.BASELINE_THREADS
        }
    )
    return f" (where 2 was not measured, to the smallest N: {', '.join(others)})" if others else ""


def _invalid_notes(all_series: tuple[workload.Series, ...]) -> tuple[Cell, ...]:
    notes = []
    for series in all_series:
        where = f"{series.name}: " if series.name else ""
        for line in series.lines:
            for (metric_id, _), cell in zip(workload.QUANTITIES, line.cells, strict=True):
                notes += [
                    Cell(
                        f"{INVALID_MARK.strip()} {where}{line.op} threads={line.threads}"
                        f"{f' processes={line.processes}' if line.processes > 1 else ''} {metric_id}: "
                        f"{reason}",
                        "bad",
                    )
                    for reason in cell.reasons
                ]
    return tuple(dict.fromkeys(notes))


def crypto_section(docs: Iterable[dict[str, Any]], study: Study, *, adjusted: bool = True) -> Section | None:
    """The runs' crypto metrics whose algorithm the study published a throughput of, each run's median
    and worst batch beside the study's figures, marked published; None when none matches."""
    rows = []
    for doc in docs:
        for m in doc["metrics"]:
            figures = study.throughputs(m["id"])
            if not figures:
                continue
            summary, unit = result.summary(m, adjusted=adjusted), result.unit(m)
            mine = (
                [unit.format(summary["p50"]), unit.format(summary["min"])]
                if m["valid"]
                else [Cell("invalid", "bad")] * 2
            )
            rows.append(
                [
                    m["id"],
                    cells.labels_text(result.labels(m)),
                    doc["run"]["id"][:8],
                    *mine,
                    "; ".join(f"{t.algorithm} {t.os} {units.BYTES_PER_S.format(t.bytes_per_s)}" for t in figures),
                ]
            )
    if not rows:
        return None
    how = Paragraph(
        (
            (
                f"{PUBLISHED_MARK}: {study.source}, wolfCrypt's benchmark on its board (one figure per OS) — "
                "other hardware, another library and time; context, not a verdict."
            ),
            "p50: the run's median batch; min: its worst batch (throughput: higher is better).",
        )
    )
    return Section(
        heading("Crypto throughput", f" beside {PUBLISHED_MARK} figures"),
        (table(["metric", "labels", "run", "p50", "min", PUBLISHED_MARK], rows, "lllrrl"), how),
        anchor="crypto-published",
    )
