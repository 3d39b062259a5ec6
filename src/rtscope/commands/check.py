"""rtscope check: a CI gate — exit 1 when RUN regressed against a baseline run, else 0.

A metric regresses when its statistic is worse than the baseline's by more than --max-regression AND
the two distributions really differ (rtscope.stats: Mann–Whitney U on raw samples, else the bootstrap
interval of the median from the histograms; a count metric's periods by Mann–Whitney U). A worse
figure that chance could explain passes: a gate that fails on noise is soon ignored. A metric that the
baseline measured validly and RUN did not (invalid or missing) fails too.
"""

import argparse
import math
import re
from dataclasses import dataclass
from typing import Any

from rtscope.model import values
from rtscope.render import fmt
from rtscope.model import result
from rtscope.analysis import stats
from rtscope.analysis.grouping import SHORT_ID
from rtscope.commands.show import add_raw_times_option
from rtscope.commands.context import Context
from rtscope.render.fmt import MISSING, Style

NAME = "check"
HELP = "CI gate: exit 1 when RUN is worse than a baseline run, beyond a threshold and significantly"
# p99: the tail a deadline sees, yet stable from run to run where the max is one sample, often a VM's pause.
DEFAULT_STATISTICS = ("p99",)
DEFAULT_MAX_REGRESSION = 0.10
# A count metric (iterations per period) is judged by its median period, as compare shows it.
COUNT_STATISTIC = "p50"
REGRESSED = 1
_PERCENTAGE = re.compile(r"(?P<number>[-+]?[0-9]*\.?[0-9]+)\s*%?")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """RUN, --baseline, --max-regression, --stat, --raw-times."""
    parser.add_argument("run", metavar="RUN", help="the run to check: a stored run's id or id prefix, 'last', "
                                                   "or a result file")
    parser.add_argument("--baseline", required=True, metavar="RUN", help="the run to check it against")
    parser.add_argument("--max-regression", type=percentage, default=DEFAULT_MAX_REGRESSION, metavar="PERCENT",
                        help="how much worse a statistic may get, e.g. 5%% (default "
                             f"{100 * DEFAULT_MAX_REGRESSION:.0f}%%): a time higher, a count lower")
    parser.add_argument("--stat", type=gated_statistics, default=DEFAULT_STATISTICS, metavar="LIST",
                        help=f"statistics of time metrics to gate on, e.g. p99,max (default "
                             f"{','.join(DEFAULT_STATISTICS)}); count metrics are gated on their median period")
    add_raw_times_option(parser)


def percentage(text: str) -> float:
    """A fraction from a percentage of zero or more: "10%", "2.5 %" or "10" give 0.1, 0.025, 0.1."""
    match = _PERCENTAGE.fullmatch(text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"bad percentage {text!r} (e.g. 10%)")
    value = float(match["number"])
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be zero or more, not {text!r}")
    return value / 100


def gated_statistics(text: str) -> tuple[str, ...]:
    """Summary keys to gate on, as values.statistics reads them, but not count: how many samples a
    run took says how long it ran, not how well the system did."""
    keys = values.statistics(text)
    if "count" in keys:
        raise argparse.ArgumentTypeError("count is the number of samples, not a figure to gate on")
    return keys


@dataclass(frozen=True)
class Row:
    """One line of the check's table, and whether (and why, in words) it fails the check."""

    metric: str
    stat: str = ""
    baseline: str = MISSING
    run: str = MISSING
    change: str = MISSING
    difference: str = MISSING
    verdict: str = ""
    failure: str | None = None


def run(args: argparse.Namespace, context: Context) -> int:
    """Print the runs, the rule, a row per metric and statistic, and the verdict; exit 1 on a failure."""
    baseline, checked = context.load_run(args.baseline).doc, context.load_run(args.run).doc
    rows = check(baseline, checked, args.stat, args.max_regression, adjusted=not args.raw_times)
    style = context.style
    rule = (f"Fails on: {', '.join(result.STATISTICS[key] for key in args.stat)} (of a count metric, its median "
            f"period) worse by more than {_percent(args.max_regression)} with a real difference "
            f"({100 * stats.CONFIDENCE:.0f} % confidence), or a metric invalid or missing")
    failures = [row for row in rows if row.failure]
    metrics = len({row.metric for row in rows})
    counted = f"{metrics} metric{'' if metrics == 1 else 's'}"
    if failures:
        verdict = [style.bad(f"check failed: {len({row.metric for row in failures})} of {counted}"),
                   *(f"  {row.metric} {row.failure}" for row in failures)]
    else:
        verdict = [f"check passed: {counted}, none worse than allowed"]
    context.print([*_runs(baseline, checked, style), rule, "", *_table(rows, style), "", *_LEGEND, "", *verdict])
    return REGRESSED if failures else 0


_LEGEND = (
    "change: (run − baseline) / baseline; worse is higher for a time, lower for a count (iterations).",
    "difference: p-value that the distributions are one in this statistic; MW: Mann–Whitney U on raw "
    "samples (a count's periods), CI: the bootstrap interval of each median, from the histograms; tail: "
    "how the samples beyond the baseline's p90 … max split between the runs (binomial).",
)


def check(baseline: dict[str, Any], checked: dict[str, Any], statistics: tuple[str, ...], max_regression: float,
          *, adjusted: bool) -> list[Row]:
    """The rows of the check of result document ``checked`` against ``baseline``: the baseline's
    metrics in its order, then those only ``checked`` has (reported, never failing)."""
    rows = []
    for metric_id in dict.fromkeys(m["id"] for doc in (baseline, checked) for m in doc["metrics"]):
        before, after = result.metric(baseline, metric_id), result.metric(checked, metric_id)
        if after is None:
            rows.append(Row(metric_id, verdict="MISSING from the run", failure="is missing from the run"))
        elif before is None:
            rows.append(Row(metric_id, verdict="new: not in the baseline"))
        elif not before["valid"]:
            rows.append(Row(metric_id, verdict=f"not checked: invalid in the baseline "
                                               f"({result.invalid_reason(before)})"))
        elif not after["valid"]:
            reason = result.invalid_reason(after)
            rows.append(Row(metric_id, verdict=f"INVALID: {reason}", failure=f"is invalid: {reason}"))
        else:
            keys = (COUNT_STATISTIC,) if result.is_periodic(before) else statistics
            rows += [_statistic_row(metric_id, key, before, after, stats.compare(before, after, key),
                                    max_regression, adjusted) for key in keys]
    return rows


def _statistic_row(metric_id: str, key: str, before: dict[str, Any], after: dict[str, Any],
                   difference: stats.Difference | None, max_regression: float, adjusted: bool) -> Row:
    old, new = (result.summary(m, adjusted=adjusted)[key] for m in (before, after))
    name, unit = result.STATISTICS[key], before["unit"]
    cells = {"metric": metric_id, "stat": name, "baseline": fmt.figure(old, unit), "run": fmt.figure(new, unit),
             "difference": MISSING if difference is None else _p(difference)}
    if old is None or new is None:
        return Row(**cells, verdict="not compared: no figure")
    change = new / old - 1 if old else (math.inf if new > old else 0.0)
    worse_by = -change if result.is_periodic(before) else change
    verdict, failure = _verdict(name, worse_by, difference, max_regression)
    return Row(**cells, change=MISSING if math.isinf(change) else f"{100 * change:+.1f} %", verdict=verdict,
               failure=failure)


def _verdict(name: str, worse_by: float, difference: stats.Difference | None, max_regression: float
             ) -> tuple[str, str | None]:
    """The verdict on a statistic that got worse by the fraction ``worse_by`` (≤ 0: not worse), and
    what a failure says, None when it passes."""
    allowed = _percent(max_regression)
    if worse_by <= 0:
        return "ok", None
    if worse_by <= max_regression:
        return f"ok: worse, within {allowed}", None
    if difference is None:
        return "ok: worse, but no test tells whether it is real", None
    if not difference.real:
        return "ok: worse, but not significantly", None
    how_much = "from 0" if math.isinf(worse_by) else f"{100 * worse_by:.1f} % worse"
    return "REGRESSED", f"{name} {how_much} (more than {allowed}, {_p(difference)})"


def _percent(fraction: float) -> str:
    return f"{100 * fraction:g} %"


def _p(difference: stats.Difference) -> str:
    """"p=0.012 MW": the p-value and the test that gave it."""
    return f"{fmt.p_value(difference.p_value)} {difference.test}"


def _runs(baseline: dict[str, Any], checked: dict[str, Any], style: Style) -> list[str]:
    rows = [[role, doc["run"]["id"][:SHORT_ID], doc["run"]["label"] or MISSING, doc["system"]["hostname"],
             doc["system"]["kernel_release"], fmt.local_time(doc["run"]["started"])]
            for role, doc in (("run", checked), ("baseline", baseline))]
    return [style.heading("Check"), *("  " + line for line in fmt.columns(rows, "llllll"))]


def _table(rows: list[Row], style: Style) -> list[str]:
    header = ["metric", "stat", "baseline", "run", "change", "difference", "verdict"]
    # A metric's name heads its first row only, as in compare.
    cells = [[row.metric if number == 0 or rows[number - 1].metric != row.metric else "", row.stat,
              row.baseline, row.run, row.change, row.difference, style.bad(row.verdict) if row.failure else row.verdict]
             for number, row in enumerate(rows)]
    return fmt.table(header, cells, "llrrrll")
