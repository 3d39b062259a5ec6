"""The page of `rtscope report`: runs as one self-contained HTML file, opening with the verdict on them.

Sections, in order: the verdict (per factor of the runs, which level is better at equal levels of the
others, per metric and statistic, by how much, and whether really; rtscope.analysis.factors), square
waves' envelopes and the application workload's tables when runs hold them (with a study's published
figures beside them when asked), the runs and the benches they skipped (with the reasons), per metric
of samples its distribution, its runs' tails with their intervals, worst samples over time, the long-term
picture of the runs that are a monitor's windows, its probabilistic worst case and spread across groups, Thread-Metric, compare's
table (and a study's published Thread-Metric or per-operation figures beside the groups' when asked),
then each run as `show` tells it. Groups are compare's (the one
grouping rule). Tables show times overhead-adjusted unless asked otherwise, as `show` does; plots show
them as measured, because that is what the probe's histograms and series hold.
"""

from collections.abc import Callable, Sequence
from typing import Any

from rtscope import __version__
from rtscope.analysis import evidence
from rtscope.analysis.longterm import Picture
from rtscope.analysis.published import Study
from rtscope.analysis.worst_case import DEFAULT_PROBABILITY
from rtscope.model import result
from rtscope.render import fmt, page, subjects, summary
from rtscope.render.document import Paragraph, Section, heading
from rtscope.render.sections import (
    campaign,
    comparison,
    distribution,
    envelope,
    kernel,
    longterm,
    os_config,
    overview,
    published,
    run,
    skipped,
    spread,
    system,
    tails,
    thread_metric,
    verdict,
    workload,
    worst_case,
    worst_over_time,
)
from rtscope.render.subjects import OneRun, Report, Run

# The sections on all the runs, before the per-metric ones and after them: square waves' envelopes are
# their answer, next to the verdict, as the workload's tables are the study's (and, when asked, crypto
# throughputs beside a study's).
OPENING = (verdict.build, envelope.build, workload.build, workload.build_crypto, overview.build, skipped.build)
CLOSING = (
    thread_metric.build,
    comparison.build,
    os_config.build_differences,
    published.build_thread_metric,
    published.build_operations,
)
# Per metric of samples.
PER_METRIC = (
    distribution.build,
    tails.build_metric,
    worst_over_time.build,
    longterm.build_report,
    worst_case.build_report,
    spread.build,
)
# A section on one run.
RunSection = Callable[[OneRun], Section | None]
# Per run: what `show` tells (summary.SECTIONS), with the run's campaign cell after the run and its kernel
# build after its system; without its worst case, which the metric's page has (its fit is the costly part).
_ADDED_AFTER: dict[RunSection, RunSection] = {run.build: campaign.build, system.build: kernel.build}
PER_RUN = tuple(
    section
    for build in summary.SECTIONS
    if build is not worst_case.build
    for section in (build, _ADDED_AFTER.get(build))
    if section is not None
)


def render(
    results: Sequence[result.Result],
    *,
    adjusted: bool = True,
    published: Study | None = None,
    min_effect: float = evidence.DEFAULT_MIN_EFFECT,
    probability: float = DEFAULT_PROBABILITY,
) -> str:
    """The report on ``results``, in the order given, as the text of an HTML file; the tables' times are
    overhead-adjusted unless ``adjusted`` is False; ``published``: that study's figures beside the runs';
    verdicts call an effect under ``min_effect`` negligible; the latency metrics' worst case is exceeded
    with ``probability`` per activation."""
    docs = [run_result.doc for run_result in results]
    report = subjects.report(
        docs, adjusted=adjusted, published=published, min_effect=min_effect, worst_case=probability
    )
    sampled = [m for m in report.first_measured().values() if not result.is_periodic(m)]
    sections = [
        *(build(report) for build in OPENING),
        *(_metric(report, m["id"], m["description"]) for m in sampled),
        *(build(report) for build in CLOSING),
        _runs_in_detail(report),
    ]
    count = f"{len(report.runs)} run{'s' if len(report.runs) != 1 else ''}"
    intro = Paragraph(
        (
            (
                f"{count}; made by rtscope {__version__}. Tables: times "
                f"{'overhead-adjusted' if adjusted else 'as measured'}. Plots: times as measured (the probe's "
                "histograms and series)."
            ),
        )
    )
    return page.render(f"rtscope report: {count}", (intro,), [section for section in sections if section])


def _metric(report: Report, metric_id: str, description: str) -> Section:
    subsections = tuple(filter(None, (build(report, metric_id) for build in PER_METRIC)))
    return Section(
        heading(metric_id),
        (Paragraph((description if subsections else f"{description}. No run has a sample of it.",)),),
        subsections=subsections,
        anchor=f"metric-{metric_id}",
    )


def _runs_in_detail(report: Report) -> Section:
    """Every run as `show` tells it, under one heading: the page's contents stay a table of contents
    however many runs there are (the overview links to each run)."""
    return Section(
        heading("Each run in detail"),
        anchor="runs-in-detail",
        subsections=tuple(_run(report, one) for one in report.runs),
    )


def _run(report: Report, one: Run) -> Section:
    subject = OneRun(one.doc, report.adjusted)
    return Section(
        heading(f"Run {one.caption}"),
        anchor=one.anchor,
        subsections=tuple(filter(None, (build(subject) for build in PER_RUN))),
    )


def render_monitor(name: str, monitor_id: str, pictures: dict[str, Picture], latest: dict[str, dict[str, Any]]) -> str:
    """The page of a monitor (`rtscope report --monitor NAME`): per metric of samples its long-term
    picture, then each board's latest window as `show` tells it (``latest``: its document by board). No
    verdict and no run-by-run sections: a board-year holds some 20,000 windows."""
    shown = [p for p in pictures.values() if p.series]
    boards = list(dict.fromkeys(board.name for p in shown for board in p.boards))
    first, last = min(p.first for p in shown), max(p.last for p in shown)
    intro = Paragraph(
        (
            (
                f"Monitor {name} ({monitor_id}): {len(boards)} board{'s' if len(boards) != 1 else ''} "
                f"({', '.join(boards)}) from {fmt.local_time(first)} to {fmt.local_time(last)}; made by rtscope "
                f"{__version__}. Times as measured (the probe's histograms)."
            ),
        )
    )
    sections = [longterm.build(p, anchor=f"longterm-{metric}") for metric, p in pictures.items()]
    sections += [
        Section(
            heading(f"Latest window of {board}"),
            anchor=f"latest-{index}",
            subsections=tuple(filter(None, (build(OneRun(doc)) for build in PER_RUN))),
        )
        for index, (board, doc) in enumerate((board, latest[board]) for board in boards if board in latest)
    ]
    return page.render(f"rtscope report: monitor {name}", (intro,), [s for s in sections if s])
