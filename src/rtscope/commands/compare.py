"""rtscope compare: metrics of several runs side by side, with ratios to the first run."""

import argparse
import string
from collections.abc import Callable
from typing import Any

from rtscope import argtypes, fmt, result, stats
from rtscope.commands.show import add_raw_times_option
from rtscope.context import Context
from rtscope.errors import RtscopeError
from rtscope.fmt import MISSING, Style

NAME = "compare"
HELP = "compare runs side by side: values and ratios to the first run"
DEFAULT_STATISTICS = ("p50", "p99", "max")
# The operation table follows vendors' per-operation tables: average cost, in cycles where possible.
OPS_STATISTICS = ("mean",)
# Runs are named A, B, C … in the table; the header block says which run each letter is.
LETTERS = string.ascii_uppercase
Named = tuple[str, dict[str, Any]]  # a run's letter and its result document
INVALID_MARK = " *"
SHORT_ID = 8

# Settings that make figures incomparable when they differ: (what, how to read it from a document).
_SETTINGS_TO_MATCH: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
    ("granted policy", lambda doc: doc["config"]["granted"]["policy"]),
    ("cycle counter", lambda doc: doc["timing"]["cycle_counter"] or "none"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """RUN RUN…, --stat, --raw-times."""
    parser.add_argument("runs", nargs="+", metavar="RUN",
                        help="two or more runs: stored ids or id prefixes, 'last', or result files")
    parser.add_argument("--stat", type=argtypes.statistics, metavar="LIST",
                        help="statistics to compare, e.g. p50,p99.9,max (default "
                             f"{','.join(DEFAULT_STATISTICS)}; {','.join(OPS_STATISTICS)} in the operation table)")
    parser.add_argument("--ops", action="store_true",
                        help="the operation table, as vendors publish it: one row per operation, its cost in "
                             "cycles where every run has them (else time), and how many times each run differs "
                             "from the first. Chosen by itself when the cycle counter timed every metric")
    add_raw_times_option(parser)


def run(args: argparse.Namespace, context: Context) -> int:
    """Print which run is which, warnings about settings that differ, and the comparison table."""
    if not 2 <= len(args.runs) <= len(LETTERS):
        raise RtscopeError(f"compare takes 2 to {len(LETTERS)} runs, not {len(args.runs)}")
    # LETTERS is longer than the list of runs: each run gets the next letter.
    runs = list(zip(LETTERS, (context.load_run(ref).doc for ref in args.runs), strict=False))
    style = context.style
    if args.ops or all(m["cycles"] is not None for _, doc in runs for m in doc["metrics"]):
        table = _ops_table(runs, args.stat or OPS_STATISTICS, style, adjusted=not args.raw_times)
    else:
        table = _table(runs, args.stat or DEFAULT_STATISTICS, style, adjusted=not args.raw_times)
    context.print([*_run_names(runs, style), *_differences(runs, style), "", *table,
                   *_invalid_notes(runs, style)])
    return 0


def _run_names(runs: list[Named], style: Style) -> list[str]:
    rows = [[letter, doc["run"]["id"][:SHORT_ID], doc["run"]["label"] or MISSING, doc["system"]["hostname"],
             doc["system"]["kernel_release"], fmt.local_time(doc["run"]["started"])]
            for letter, doc in runs]
    return [style.heading("Runs"), *("  " + line for line in fmt.columns(rows, "llllll"))]


def _differences(runs: list[Named], style: Style) -> list[str]:
    lines = []
    for what, read in _SETTINGS_TO_MATCH:
        values = {letter: read(doc) for letter, doc in runs}
        if len(set(values.values())) > 1:
            each = ", ".join(f"{letter} {value}" for letter, value in values.items())
            lines.append(style.warn(f"! the runs differ in {what}: {each}"))
    periods = {letter: sorted({fmt.seconds(m["period_s"]) for m in doc["metrics"] if result.is_count(m)})
               for letter, doc in runs}
    if len({tuple(p) for p in periods.values() if p}) > 1:
        each = ", ".join(f"{letter} {'/'.join(p)}" for letter, p in periods.items() if p)
        lines.append(style.warn(f"! the runs differ in reporting period, and counts are per period: {each}"))
    return lines


def _table(runs: list[Named], statistics: tuple[str, ...], style: Style, *, adjusted: bool) -> list[str]:
    letters = [letter for letter, _ in runs]
    header = ["metric", "stat", *letters, *(f"{letter}/A" for letter in letters[1:]),
              *(f"{letter}≠A?" for letter in letters[1:])]
    rows = []
    for metric_id in dict.fromkeys(m["id"] for _, doc in runs for m in doc["metrics"]):
        metrics = [result.metric(doc, metric_id) for _, doc in runs]
        if _unit(metrics) == "count":
            rows += [row + [""] * (len(runs) - 1) for row in _count_rows(metric_id, metrics, style)]
            continue
        verdicts = _verdicts(metrics)
        for number, key in enumerate(statistics):
            name = metric_id if number == 0 else ""
            rows.append([name, result.STATISTICS[key], *_cells(metrics, key, style, adjusted),
                         *(verdicts if number == 0 else [""] * len(verdicts))])
    table = fmt.table(header, rows, "ll" + "r" * (2 * len(runs) - 1) + "l" * (len(runs) - 1))
    return [*table, "", *_VERDICT_LEGEND]


_VERDICT_LEGEND = (
    f"X≠A?: does run X's distribution differ from A's ({100 * stats.CONFIDENCE:.0f} % confidence)? "
    "MW: Mann–Whitney U on the raw samples",
    "(--raw N when running); CI: the bootstrap interval of each median, from the histograms. "
    "One run each: repeat runs to see the run-to-run spread.",
)


def _verdicts(metrics: list[dict[str, Any] | None]) -> list[str]:
    """For each run after the first: whether its metric really differs from the first run's (not told
    when either is missing or invalid)."""
    first = metrics[0]
    cells = []
    for metric in metrics[1:]:
        told = first is not None and metric is not None and first["valid"] and metric["valid"]
        difference = stats.compare(first, metric) if told else None
        if difference is None:
            cells.append(MISSING)
        else:
            cells.append(f"{'yes' if difference.real else 'no'} p{_p(difference.p_value)} {difference.test}")
    return cells


def _p(value: float) -> str:
    return "<0.001" if value < 0.001 else f"={value:.3f}"


def _count_rows(metric_id: str, metrics: list[dict[str, Any] | None], style: Style) -> list[list[str]]:
    """A count metric (Thread-Metric) compares by its median per period and, the figure that carries
    across processors, that median relative to its calibration metric ("× tm.basic")."""
    medians = [None if m is None else m["stats"]["p50"] for m in metrics]
    relative = [None if m is None or m["baseline"] is None else m["baseline"]["ratio"] for m in metrics]
    baseline = next((m["baseline"]["metric"] for m in metrics if m is not None and m["baseline"]), None)
    rows = [[metric_id, "p50", *_mark_invalid([fmt.figure(v, "count") for v in medians], metrics, style),
             *_ratios(medians)]]
    if baseline is not None:
        rows.append(["", f"× {baseline}", *_mark_invalid([fmt.ratio(v) for v in relative], metrics, style),
                     *_ratios(relative)])
    return rows


def _cells(metrics: list[dict[str, Any] | None], key: str, style: Style, adjusted: bool) -> list[str]:
    """The value of statistic ``key`` in each run, then each run's ratio to the first run."""
    values = [None if m is None else result.summary(m, adjusted=adjusted)[key] for m in metrics]
    unit = "count" if key == "count" else _unit(metrics)
    shown = [fmt.figure(v, unit) for v in values]
    return [*_mark_invalid(shown, metrics, style), *_ratios(values)]


def _unit(metrics: list[dict[str, Any] | None]) -> str:
    """The unit of a metric as the runs that have it record it ("ns" or "count")."""
    return next(m["unit"] for m in metrics if m is not None)


def _ops_table(runs: list[Named], statistics: tuple[str, ...], style: Style, *, adjusted: bool) -> list[str]:
    """One row per operation and statistic: the cost in each run, in cycles when every run has them for
    that operation (else as a duration), then how many times each run's cost is the first run's."""
    letters = [letter for letter, _ in runs]
    header = ["operation", "stat", "unit", *letters, *(f"{letter}/A" for letter in letters[1:])]
    rows = []
    for metric_id in dict.fromkeys(m["id"] for _, doc in runs for m in doc["metrics"]):
        metrics = [result.metric(doc, metric_id) for _, doc in runs]
        cycles = [None if m is None else result.cycles_summary(doc, m, adjusted=adjusted)
                  for (_, doc), m in zip(runs, metrics, strict=True)]
        in_cycles = all(c is not None for c in cycles)
        for number, key in enumerate(statistics):
            if in_cycles:
                values = [c[key] for c in cycles]
                shown = [fmt.count(round(v)) if v is not None else MISSING for v in values]
            else:
                values = [None if m is None else result.summary(m, adjusted=adjusted)[key] for m in metrics]
                shown = [fmt.figure(v, _unit(metrics)) for v in values]
            unit = "cycles" if in_cycles else "count" if _unit(metrics) == "count" else "time"
            rows.append([metric_id if number == 0 else "", result.STATISTICS[key],
                         unit, *_mark_invalid(shown, metrics, style),
                         *_ratios(values)])
    return fmt.table(header, rows, "lll" + "r" * (2 * len(runs) - 1))


def _mark_invalid(cells: list[str], metrics: list[dict[str, Any] | None], style: Style) -> list[str]:
    return [cell + style.bad(INVALID_MARK) if m is not None and not m["valid"] else cell
            for cell, m in zip(cells, metrics, strict=True)]


def _ratios(values: list[float | None]) -> list[str]:
    """Each value after the first divided by the first ("—" where either is missing or the first is 0)."""
    first = values[0]
    return [fmt.ratio(value / first) if value is not None and first else MISSING for value in values[1:]]


def _invalid_notes(runs: list[Named], style: Style) -> list[str]:
    return [style.bad(f"{INVALID_MARK.strip()} {letter} {m['id']} is invalid: {result.invalid_reason(m)}")
            for letter, doc in runs for m in doc["metrics"] if not m["valid"]]
