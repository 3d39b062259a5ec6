"""rtscope check: a CI gate — exit 1 when RUN regressed against a baseline, else 0.

The baseline is one run, or a group of them as compare has one: a campaign's runs, the N newest stored
runs before RUN of its host and benches (last:N), or the stored runs of a label (label:NAME). A metric
regresses when its statistic is worse than the baseline's (the median over its runs) by more than
--max-regression AND the distributions really differ; a metric that the baseline measured and RUN did
not, or measured invalidly, fails too — but for one whose bench RUN skipped (its target cannot run it):
that is absent, not a regression. rtscope.analysis.judge decides (the judge the LAVA, JUnit and
KCIDB exports use); this command reads the options, finds the baseline runs and prints the judge's table.
"""

import argparse
from typing import Any

from rtscope.analysis import evidence, judge, stats
from rtscope.analysis.grouping import SHORT_ID
from rtscope.commands.context import CAMPAIGN_PREFIX, Context
from rtscope.commands.show import add_raw_times_option
from rtscope.errors import RtscopeError
from rtscope.model import result, values
from rtscope.render import fmt
from rtscope.render.fmt import MISSING, Style

REGRESSED = 1
# Baselines that are queries on the store rather than runs named one by one.
_LAST, _LABEL = "last:", "label:"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """RUN, --baseline, --max-regression, --stat, --raw-times."""
    parser.add_argument(
        "run", metavar="RUN", help="the run to check: a stored run's id or id prefix, 'last', or a result file"
    )
    parser.add_argument(
        "--baseline",
        required=True,
        metavar="RUN|QUERY",
        help=f"what to check it against: a run (as RUN), {CAMPAIGN_PREFIX}NAME (its runs), {_LAST}N (the N newest "
        f"stored runs before RUN of its host and benches) or {_LABEL}NAME (the stored runs so labelled, RUN aside); "
        "several runs are one group, as compare has them: their median, and where their spread puts a rerun",
    )
    parser.add_argument(
        "--max-regression",
        type=values.percentage,
        default=judge.DEFAULT_MAX_REGRESSION,
        metavar="PERCENT",
        help="how much worse a statistic may get, e.g. 5%% (default "
        f"{100 * judge.DEFAULT_MAX_REGRESSION:.0f}%%): a time higher, a count lower",
    )
    parser.add_argument(
        "--stat",
        type=gated_statistics,
        default=judge.DEFAULT_STATISTICS,
        metavar="LIST",
        help=f"statistics of time metrics to gate on, e.g. p99,max (default "
        f"{','.join(judge.DEFAULT_STATISTICS)}); per-period metrics are gated on their median period",
    )
    add_raw_times_option(parser)


def gated_statistics(text: str) -> tuple[str, ...]:
    """Summary keys to gate on, as values.statistics reads them, but not count: how many samples a
    run took says how long it ran, not how well the system did."""
    keys = values.statistics(text)
    if "count" in keys:
        raise argparse.ArgumentTypeError("count is the number of samples, not a figure to gate on")
    return keys


def run(args: argparse.Namespace, context: Context) -> int:
    """Print the runs, the rule, a row per metric and statistic, and the verdict; exit 1 on a failure."""
    checked = context.load_run(args.run).doc
    baselines = _baselines(args.baseline, checked, context)
    _same_time_base(args.baseline, checked, baselines)
    verdicts = judge.Judge(
        baselines=tuple(baselines),
        statistics=args.stat,
        max_regression=args.max_regression,
        adjusted=not args.raw_times,
    ).verdicts(checked)
    style = context.style
    rule = (
        f"Fails on: {', '.join(result.STATISTICS[key] for key in args.stat)} (of a per-period metric, its "
        "median period; of a throughput, its low side: p1 for p99, min for max) worse by more than "
        f"{100 * args.max_regression:g} % with a real difference ({100 * evidence.CONFIDENCE:.0f} % confidence), "
        "or a metric invalid or missing"
    )
    failed = [verdict for verdict in verdicts if verdict.failed]
    skipped = sum(verdict.skipped for verdict in verdicts)
    counted = f"{len(verdicts)} metric{'' if len(verdicts) == 1 else 's'}" + (
        f" ({skipped} skipped: the run could not run their bench)" if skipped else ""
    )
    if failed:
        outcome = [
            style.bad(f"check failed: {len(failed)} of {counted}"),
            *(f"  {verdict.metric} {finding.message}" for verdict in failed for finding in verdict.findings),
        ]
    else:
        outcome = [f"check passed: {counted}, none worse than allowed"]
    context.print([*_runs(baselines, checked, style), rule, "", *_table(verdicts, style), "", *_LEGEND, "", *outcome])
    return REGRESSED if failed else 0


_LEGEND = (
    (
        "baseline: the baseline run's figure, the median over them when there are several; change: (run − "
        "baseline) / baseline; worse is as the unit has it: higher for a time, lower for iterations and "
        "throughput, further from the nominal value for a square wave's period, high time and duty."
    ),
    (
        "difference: against several baseline runs, run: where their spread puts a rerun (Student's t on the "
        "logarithms of their figures); against one, its samples against the run's (a rerun's move unknown): MW, "
        "Mann–Whitney U on raw samples (a per-period metric's periods), CI: the bootstrap interval of each "
        "median, from the histograms; tail: how the samples beyond the baseline's p90 … max split between the "
        "runs (binomial). Holm's adjustment over every statistic checked, where several are."
    ),
)


def _same_time_base(ref: str, checked: dict[str, Any], baselines: list[dict[str, Any]]) -> None:
    """RtscopeError when a baseline run is on another time base than the run: an emulator's instruction
    time against hardware time is no regression, nor an improvement."""
    base = result.time_base_text(checked)
    other = next((doc for doc in baselines if result.time_base_text(doc) != base), None)
    if other is not None:
        raise RtscopeError(
            f"--baseline {ref}: run {other['run']['id'][:SHORT_ID]} is on {result.time_base_text(other)} time, "
            f"run {checked['run']['id'][:SHORT_ID]} on {base} time: no check across time bases (choose a baseline "
            "measured on the same)"
        )


def _baselines(ref: str, checked: dict[str, Any], context: Context) -> list[dict[str, Any]]:
    """The documents of the baseline runs ``ref`` names; RtscopeError when it names none."""
    if not ref.startswith((_LAST, _LABEL)):
        return [run_result.doc for run_result in context.load_runs([ref])]
    run = checked["run"]
    if ref.startswith(_LAST):
        try:
            count = values.positive(ref.removeprefix(_LAST))
        except argparse.ArgumentTypeError as error:
            raise RtscopeError(f"--baseline {ref}: {error}") from None
        host, benches = checked["system"]["hostname"], {bench["id"] for bench in checked["benches"]}
        # Newest first, as the store lists them: the N before RUN of the same host and benches.
        rows = [
            row
            for row in context.store().runs()
            if row.started <= run["started"]
            and row.hostname == host
            and set(row.benches) == benches
            and row.status != "interrupted"
            and row.time_base == result.time_base_text(checked)
        ]
        what = (
            f"of host {host} with benches {' '.join(sorted(benches))} on {result.time_base_text(checked)} time "
            "started before it"
        )
    else:
        label = ref.removeprefix(_LABEL)
        rows = [row for row in context.store().runs() if row.label == label]
        what = f"labelled {label!r}"
        count = len(rows)
    chosen = [row.id for row in rows if row.id != run["id"]][:count]
    if not chosen:
        raise RtscopeError(f"--baseline {ref}: no stored run other than {run['id'][:SHORT_ID]} {what}")
    return [context.store().get(run_id).doc for run_id in chosen]


def _runs(baselines: list[dict[str, Any]], checked: dict[str, Any], style: Style) -> list[str]:
    rows = [
        [
            role,
            doc["run"]["id"][:SHORT_ID],
            doc["run"]["label"] or MISSING,
            doc["system"]["hostname"],
            doc["system"]["kernel_release"],
            fmt.local_time(doc["run"]["started"]),
        ]
        for role, doc in (("run", checked), *(("baseline", doc) for doc in baselines))
    ]
    return [style.heading("Check"), *("  " + line for line in fmt.columns(rows, "llllll"))]


def _table(verdicts: list[judge.MetricVerdict], style: Style) -> list[str]:
    """A row per statistic held to the baseline, else one for the metric as a whole; a metric's name
    heads its first row only, as in compare."""
    cells = []
    for verdict in verdicts:
        rows = [(_change_cells(change), change.verdict, verdict.fails(change.stat)) for change in verdict.changes] or [
            (["", MISSING, MISSING, MISSING, MISSING], verdict.status, verdict.failed)
        ]
        cells += [
            [verdict.metric if number == 0 else "", *figures, style.bad(word) if failed else word]
            for number, (figures, word, failed) in enumerate(rows)
        ]
    return fmt.table(["metric", "stat", "baseline", "run", "change", "difference", "verdict"], cells, "llrrrll")


def _change_cells(change: judge.Change) -> list[str]:
    """The statistic, both figures, the relative change and the test's p-value."""
    return [
        stats.statistic_name(change.stat),
        change.unit.format(change.baseline),
        change.unit.format(change.value),
        MISSING if change.relative is None else f"{100 * change.relative:+.1f} %",
        MISSING if change.difference is None else str(change.difference),
    ]
