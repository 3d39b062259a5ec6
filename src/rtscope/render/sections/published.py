"""A study's published figures beside a comparison's groups (rtscope.analysis.published): Thread-Metric's
ratios to its calibration test beside the runs' ratios to tm.basic, and per-operation costs beside the
runs' means of the operation table. Marked published, with the study's hardware and time base, and in no
ratio with the runs: what compares across the two is a ratio within each side (a test over its
calibration test; one system over another), so those stand side by side. `compare --published` shows
them after its table; the report after its comparison. (The application workload's study stands in its
own tables: rtscope.render.sections.workload.)"""

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from rtscope.analysis import compare
from rtscope.analysis.grouping import Group
from rtscope.analysis.published import Study
from rtscope.model import result, units
from rtscope.render import fmt
from rtscope.render.document import Cell, Paragraph, Section, heading, table
from rtscope.render.fmt import MISSING
from rtscope.render.sections.comparison import INVALID_MARK, UNIT_NAMES, figure_text
from rtscope.render.sections.run import TIME_BASES
from rtscope.render.sections.workload import PUBLISHED_MARK
from rtscope.render.subjects import Report


def build_thread_metric(report: Report) -> Section | None:
    """The report's Thread-Metric ratios beside the study it was asked to show, when it published any."""
    return thread_metric_section(report.groups, report.published) if report.published else None


def build_operations(report: Report) -> Section | None:
    """The report's per-operation means beside the study it was asked to show, when it published any."""
    return operations_section(report.groups, report.published, adjusted=report.adjusted) if report.published else None


def sections(groups: Sequence[Group], study: Study, *, adjusted: bool = True) -> list[Section]:
    """The study's tables that have a counterpart among the groups' runs."""
    found = [thread_metric_section(groups, study), operations_section(groups, study, adjusted=adjusted)]
    return [section for section in found if section]


def thread_metric_section(groups: Sequence[Group], study: Study) -> Section | None:
    """Per test of the study, in its order: the groups' median ratio to their calibration test (tm.basic)
    where a metric of theirs counts what the test counts, beside the study's ratio and iterations; None
    when the study has no Thread-Metric table or the runs none of its counterparts."""
    published = study.thread_metric
    if published is None:
        return None
    ratios = {
        row.metric: row
        for row in compare.build(list(groups), ()).rows
        if row.unit == units.RATIO.name and row.metric in published.metrics
    }
    if not ratios:
        return None
    baseline = next(iter(ratios.values())).stat.removeprefix("× ")
    rows: list[list[str | Cell]] = []
    for test in published.tests:
        measured: list[compare.Row | None] = [
            ratios[metric_id] for metric_id in published.metrics_of(test.test) if metric_id in ratios
        ]
        for row in measured or [None]:
            rows.append(
                [
                    row.name if row else ", ".join(published.metrics_of(test.test)) or "no counterpart",
                    test.test,
                    *([_figure(figure, row) for figure in row.figures] if row else [MISSING] * len(groups)),
                    f"{test.ratio:g}×",  # as printed
                    f"{test.iterations:,}",
                ]
            )
    docs = [doc for g in groups for doc in g.docs]
    periods = sorted({fmt.seconds(m["period_s"]) for doc in docs for m in doc["metrics"] if m["id"] in ratios})
    lines = (
        f"{PUBLISHED_MARK}: {study.source}, {study.statistic}.",
        *_platforms(study),
        *_other(study, docs),
        (
            f"What compares is a test's iterations over its calibration test's in the same run (× {baseline} "
            "here, × calibration there): it cancels the processor's speed out."
        ),
        (
            f"The iterations themselves do not (another processor; per {fmt.seconds(published.period_s)} "
            f"there, per {'/'.join(periods)} here)."
        ),
        (
            "A ratio compares only as far as both count the same work per iteration: each metric's "
            "description (show) says what rtscope's counts."
        ),
        *(f"{name}: {note}." for name, note in published.notes.items()),
        *_not_in_study(docs, set(published.metrics) | {baseline}, result.is_periodic),
    )
    header = [
        "metric",
        "published test",
        *(f"{g.letter} × {baseline}" for g in groups),
        f"{PUBLISHED_MARK} × calibration",
        f"{PUBLISHED_MARK} per {fmt.seconds(published.period_s)}",
    ]
    return Section(
        heading("Thread-Metric", f" beside {PUBLISHED_MARK} figures ({study.name})"),
        (table(header, rows, "ll" + "r" * (len(groups) + 2)), Paragraph(lines)),
        anchor="thread-metric-published",
    )


def operations_section(groups: Sequence[Group], study: Study, *, adjusted: bool = True) -> Section | None:
    """Per operation of the study, in its order: the groups' means (cycles where every run has them, as
    the operation table gives them) and their ratios to A, beside the study's cost on each platform and
    its ratios to its first platform; None when the study has no such table or the runs none of its
    counterparts."""
    published = study.operations
    if published is None:
        return None
    means = {
        row.metric: row
        for row in compare.build(list(groups), ("mean",), ops=True, adjusted=adjusted).rows
        if row.metric in published.metrics
    }
    if not means:
        return None
    platforms = list(study.platforms)
    first, others = platforms[0], platforms[1:]
    letters = [g.letter for g in groups]
    rows: list[list[str | Cell]] = []
    for operation in published.operations:
        for metric_id in [metric_id for metric_id in published.metrics_of(operation.name) if metric_id in means]:
            row = means[metric_id]
            rows.append(
                [
                    row.name,
                    UNIT_NAMES.get(row.unit, row.unit),
                    *(_figure(figure, row) for figure in row.figures),
                    *(fmt.ratio(figure.ratio) for figure in row.figures[1:]),
                    operation.name,
                    *(f"{operation.costs[platform]:,}" for platform in platforms),
                    *(
                        [" / ".join(fmt.ratio(operation.costs[p] / operation.costs[first]) for p in others)]
                        if others
                        else []
                    ),
                ]
            )
    docs = [doc for g in groups for doc in g.docs]
    ratio_text = ", ".join(f"{platform}/{first}" for platform in others)
    absent = [o.name for o in published.operations if not any(m in means for m in published.metrics_of(o.name))]
    lines = (
        f"{PUBLISHED_MARK}: {study.source}, {study.statistic} {published.unit}.",
        *_platforms(study),
        *_other(study, docs),
        (
            f"What compares is a ratio within each side: the published ratio ({ratio_text}) beside X/A here, where A "
            f"is the same kind of system as {first} and X as {' and '.join(others)}."
        ),
        (
            f"Here: the runs' means{' (overhead-adjusted)' if adjusted else ''}, in CPU cycles where every run counted "
            "them, else in time, as the operation table gives them."
        ),
        "How the study measured: " + "; ".join(f"{family}: {how}" for family, how in published.method.items()) + ".",
        *([study.notes] if study.notes else []),
        *(f"{name}: {note}." for name, note in published.notes.items()),
        *_not_in_study(docs, set(published.metrics), lambda m: not result.is_periodic(m)),
        *([f"Not measured by the runs: {', '.join(absent)}."] if absent else []),
    )
    header = [
        "operation",
        "unit",
        *letters,
        *(f"{x}/A" for x in letters[1:]),
        "published op",
        *(f"{PUBLISHED_MARK} {platform}" for platform in platforms),
        *([f"{PUBLISHED_MARK} ratio"] if others else []),
    ]
    align = "ll" + "r" * (2 * len(letters) - 1) + "l" + "r" * (len(platforms) + bool(others))
    return Section(
        heading("Operations", f" beside {PUBLISHED_MARK} figures ({study.name})"),
        (table(header, rows, align), Paragraph(lines)),
        anchor="operations-published",
    )


def _figure(figure: compare.GroupStatistic, row: compare.Row) -> Cell:
    text = figure_text(figure, row) if figure.value is not None else MISSING
    return Cell(text + INVALID_MARK, "bad") if figure.invalid else Cell(text)


def _platforms(study: Study) -> list[str]:
    """A line per platform of the study: its name and what it was."""
    return [f"  {name}: {what}" for name, what in study.platforms.items()]


def _other(study: Study, docs: Iterable[dict[str, Any]]) -> tuple[str, str]:
    """That the study's figures are of other hardware and another time base than the runs'."""
    bases = sorted({TIME_BASES[result.time_base(doc)] for doc in docs})
    return (
        f"Other hardware and another time base: {study.time_base} there; {', '.join(bases)} here.",
        "Context, in no ratio with the runs.",
    )


def _not_in_study(docs: Iterable[dict[str, Any]], known: set[str], kind: Callable[[dict[str, Any]], bool]) -> list[str]:
    """A line naming the runs' metrics (of ``kind``) the study has no figure for, if any."""
    missing = list(dict.fromkeys(m["id"] for doc in docs for m in doc["metrics"] if kind(m) and m["id"] not in known))
    return [f"Not in the study: {', '.join(missing)}."] if missing else []
