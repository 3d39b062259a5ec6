"""rtscope compare: metrics of several runs or groups of runs side by side, with ratios to the first.

A group is one run, or the repetitions of one campaign cell, label or load: its figure for a statistic
is the median over its runs, shown with the run-to-run spread (± half the range, relative). Whether a
group really differs from the first is told per metric (see stats.compare_groups). The comparison is
built once (Comparison) and written as a text table, markdown, CSV or JSON.
"""

import argparse
import csv
import io
import json
from statistics import median
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rtscope import argtypes, fmt, result, stats
from rtscope.commands.show import add_raw_times_option
from rtscope.context import Context
from rtscope.errors import RtscopeError
from rtscope.fmt import MISSING, Style

NAME = "compare"
HELP = "compare runs or groups of runs (campaign cells, labels, loads): values, ratios, real differences"
DEFAULT_STATISTICS = ("p50", "p99", "max")
# The operation table follows vendors' per-operation tables: average cost, in cycles where possible.
OPS_STATISTICS = ("mean",)
# Groups are named A, B, C … in the table; the header block says which runs each letter is.
LETTERS = string.ascii_uppercase
GROUPINGS = ("run", "cell", "label", "load")
FORMATS = ("text", "markdown", "csv", "json")
INVALID_MARK = " *"
SHORT_ID = 8

# Settings that make figures incomparable when they differ: (what, how to read it from a document).
_SETTINGS_TO_MATCH: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
    ("granted policy", lambda doc: doc["config"]["granted"]["policy"]),
    ("cycle counter", lambda doc: doc["timing"]["cycle_counter"] or "none"),
)


@dataclass(frozen=True)
class Group:
    """Runs compared as one: a letter, what they share (a cell, a label …) and their documents."""

    letter: str
    name: str
    docs: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class Figure:
    """One statistic of one group: the median over its runs, their spread, its ratio to group A."""

    value: float | None
    spread: float | None      # half the range over the runs, relative to the value; None for one run
    ratio: float | None
    invalid: bool             # some run's metric is invalid


@dataclass(frozen=True)
class Row:
    """One statistic of one metric across the groups."""

    metric: str
    stat: str                 # a statistic's name ("p99"), or "× tm.basic" for a calibration ratio
    unit: str                 # "ns", "cycles", "count" or "ratio"
    figures: tuple[Figure, ...]
    verdicts: tuple[stats.Difference | None, ...]  # each group after A against A (None: not told; empty: no test)


@dataclass(frozen=True)
class Comparison:
    """What compare shows, before it is written in one of the formats."""

    groups: tuple[Group, ...]
    rows: tuple[Row, ...]
    ops: bool                 # the operation table: a unit column, costs in cycles where possible


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """RUN|campaign:NAME…, --by, --stat, --ops, --format, --raw-times."""
    parser.add_argument("runs", nargs="+", metavar="RUN|campaign:NAME",
                        help="runs (stored ids or id prefixes, 'last', result files) or campaign:NAME|ID for "
                             "every run of a campaign")
    parser.add_argument("--by", choices=GROUPINGS,
                        help="how runs form groups: each run alone, or the repetitions of a campaign cell, a "
                             "label, a set of loads (default: cell when every run is a campaign's, else run)")
    parser.add_argument("--stat", type=argtypes.statistics, metavar="LIST",
                        help="statistics to compare, e.g. p50,p99.9,max (default "
                             f"{','.join(DEFAULT_STATISTICS)}; {','.join(OPS_STATISTICS)} in the operation table)")
    parser.add_argument("--ops", action="store_true",
                        help="the operation table, as vendors publish it: one row per operation, its cost in "
                             "cycles where every run has them (else time), and how many times each group "
                             "differs from the first. Chosen by itself when the cycle counter timed every metric")
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help="text (default), markdown, csv (one line per metric, statistic and group; "
                             "times in ns) or json")
    add_raw_times_option(parser)


def run(args: argparse.Namespace, context: Context) -> int:
    """Print which group is which, warnings about settings that differ, and the comparison."""
    docs = [run_result.doc for run_result in context.load_runs(args.runs)]
    by = args.by or ("cell" if all("campaign" in doc for doc in docs) else "run")
    groups = group(docs, by)
    ops = args.ops or all(m["cycles"] is not None for doc in docs for m in doc["metrics"])
    comparison = build(groups, args.stat or (OPS_STATISTICS if ops else DEFAULT_STATISTICS),
                       ops=ops, adjusted=not args.raw_times)
    if args.format == "text":
        context.print(render_text(comparison, context.style))
    else:
        context.out.write(_WRITERS[args.format](comparison))
    return 0


def group(docs: list[dict[str, Any]], by: str) -> list[Group]:
    """The runs in groups (in order of first appearance): each run alone, or by campaign cell (named with
    its campaign when runs of several campaigns are compared), label or loads."""
    campaigns = {doc["campaign"]["id"] for doc in docs if "campaign" in doc}
    keys: dict[str, list[dict[str, Any]]] = {}
    for doc in docs:
        keys.setdefault(_group_key(doc, by, several_campaigns=len(campaigns) > 1), []).append(doc)
    if len(keys) < 2:
        raise RtscopeError(f"compare needs two or more runs or groups, not {len(keys)} "
                           f"({len(docs)} run{'s' if len(docs) > 1 else ''} by {by})")
    if len(keys) > len(LETTERS):
        raise RtscopeError(f"compare takes at most {len(LETTERS)} groups, not {len(keys)} (by {by})")
    return [Group(letter, name, tuple(members))
            for letter, (name, members) in zip(LETTERS, keys.items(), strict=False)]


def _group_key(doc: dict[str, Any], by: str, *, several_campaigns: bool) -> str:
    if by == "run":
        return f"{doc['run']['id'][:SHORT_ID]} {doc['run']['label'] or ''}".strip()
    if by == "label":
        return doc["run"]["label"] or "(no label)"
    if by == "load":
        return ",".join(load["name"] for load in doc.get("loads") or []) or "(none given)"
    if "campaign" not in doc:
        raise RtscopeError(f"run {doc['run']['id'][:SHORT_ID]} belongs to no campaign: it has no cell "
                           "(--by run, label or load)")
    cell = doc["campaign"]["cell"]
    return f"{doc['campaign']['name']}: {cell}" if several_campaigns else cell


def build(groups: list[Group], statistics: tuple[str, ...], *, ops: bool = False, adjusted: bool = True
          ) -> Comparison:
    """The comparison of ``groups``: per metric, a row per statistic (in cycles in the operation table
    where every run has them) with the verdict on each group against the first, and the calibration
    ratio of count metrics."""
    rows: list[Row] = []
    metric_ids = dict.fromkeys(m["id"] for g in groups for doc in g.docs for m in doc["metrics"])
    for metric_id in metric_ids:
        per_group = [[(doc, m) for doc in g.docs if (m := result.metric(doc, metric_id)) is not None]
                     for g in groups]
        if _unit(per_group) == "count" and not ops:
            rows += _count_rows(metric_id, per_group)
        else:
            rows += _time_rows(metric_id, per_group, statistics, ops=ops, adjusted=adjusted)
    return Comparison(tuple(groups), tuple(rows), ops)


Members = list[tuple[dict[str, Any], dict[str, Any]]]  # a group's (document, metric) pairs for one metric


def _time_rows(metric_id: str, per_group: list[Members], statistics: tuple[str, ...], *, ops: bool,
               adjusted: bool) -> list[Row]:
    # Cycles only in the operation table (and only where every run has them).
    cycles = [[result.cycles_summary(doc, m, adjusted=adjusted) for doc, m in members]
              for members in per_group] if ops else []
    in_cycles = ops and all(c is not None for each in cycles for c in each)
    unit = "cycles" if in_cycles else _unit(per_group)
    rows = []
    for key in statistics:
        if in_cycles:
            values = [[c[key] for c in each] for each in cycles]
        else:
            values = [[result.summary(m, adjusted=adjusted)[key] for _, m in members] for members in per_group]
        rows.append(Row(metric_id, result.STATISTICS[key], "count" if key == "count" else unit,
                        _figures(values, per_group), _verdicts(per_group, key)))
    return rows


def _unit(per_group: list[Members]) -> str:
    return next(m["unit"] for members in per_group for _, m in members)


def _count_rows(metric_id: str, per_group: list[Members]) -> list[Row]:
    """A count metric (Thread-Metric) compares by its median per period and, the figure that carries
    across processors, that median relative to its calibration metric ("× tm.basic")."""
    medians = [[m["stats"]["p50"] for _, m in members] for members in per_group]
    rows = [Row(metric_id, "p50", "count", _figures(medians, per_group), _verdicts(per_group, "p50"))]
    baseline = next((m["baseline"]["metric"] for members in per_group for _, m in members if m["baseline"]), None)
    if baseline is not None:
        relative = [[m["baseline"]["ratio"] if m["baseline"] else None for _, m in members]
                    for members in per_group]
        rows.append(Row(metric_id, f"× {baseline}", "ratio", _figures(relative, per_group), ()))
    return rows


def _figures(values: list[list[float | None]], per_group: list[Members]) -> tuple[Figure, ...]:
    """Each group's median of its runs' values, their spread, and the ratio to the first group."""
    medians, spreads = [], []
    for each in values:
        known = [v for v in each if v is not None]
        middle = median(known) if known else None
        medians.append(middle)
        spreads.append((max(known) - min(known)) / 2 / middle if len(known) > 1 and middle else None)
    first = medians[0]
    return tuple(Figure(middle, spread, middle / first if middle is not None and first else None,
                        any(not m["valid"] for _, m in members))
                 for middle, spread, members in zip(medians, spreads, per_group, strict=True))


def _verdicts(per_group: list[Members], key: str) -> tuple[stats.Difference | None, ...]:
    """Whether each group after the first differs from it in statistic ``key``: not told when a run
    lacks the metric or it is invalid, nor for the count of samples."""
    first = per_group[0]
    return tuple(None if key == "count" or not first or not other
                 or not all(m["valid"] for _, m in (*first, *other))
                 else stats.compare_groups([m for _, m in first], [m for _, m in other], key)
                 for other in per_group[1:])


# --- text ------------------------------------------------------------------------------------------

def render_text(comparison: Comparison, style: Style) -> list[str]:
    """The comparison as terminal text: groups, settings that differ, the table, legend, invalid notes."""
    groups = comparison.groups
    return [*_group_names(groups, style), *_differences(groups, style), "", *_text_table(comparison, style),
            *_invalid_notes(groups, style)]


def _group_names(groups: tuple[Group, ...], style: Style) -> list[str]:
    if all(len(g.docs) == 1 for g in groups):
        rows = [[g.letter, doc["run"]["id"][:SHORT_ID], doc["run"]["label"] or MISSING, doc["system"]["hostname"],
                 doc["system"]["kernel_release"], fmt.local_time(doc["run"]["started"])]
                for g in groups for doc in g.docs]
        return [style.heading("Runs"), *("  " + line for line in fmt.columns(rows, "llllll"))]
    rows = [[g.letter, g.name, f"{len(g.docs)} run{'s' if len(g.docs) > 1 else ''}",
             " ".join(sorted({doc["system"]["hostname"] for doc in g.docs})),
             " ".join(doc["run"]["id"][:SHORT_ID] for doc in g.docs)] for g in groups]
    return [style.heading("Groups"), *("  " + line for line in fmt.columns(rows, "lllll"))]


def _differences(groups: tuple[Group, ...], style: Style) -> list[str]:
    lines = []
    for what, read in _SETTINGS_TO_MATCH:
        values = {g.letter: "/".join(sorted({read(doc) for doc in g.docs})) for g in groups}
        if len(set(values.values())) > 1:
            each = ", ".join(f"{letter} {value}" for letter, value in values.items())
            lines.append(style.warn(f"! the runs differ in {what}: {each}"))
    periods = {g.letter: sorted({fmt.seconds(m["period_s"]) for doc in g.docs for m in doc["metrics"]
                                 if result.is_count(m)}) for g in groups}
    if len({tuple(p) for p in periods.values() if p}) > 1:
        each = ", ".join(f"{letter} {'/'.join(p)}" for letter, p in periods.items() if p)
        lines.append(style.warn(f"! the runs differ in reporting period, and counts are per period: {each}"))
    return lines


def _text_table(comparison: Comparison, style: Style) -> list[str]:
    header, rows, align = _cells(comparison, style)
    return [*fmt.table(header, rows, align), "", *_legend(comparison)]


def _cells(comparison: Comparison, style: Style) -> tuple[list[str], list[list[str]], str]:
    """The table's header, rows and alignment, as text cells (shared by the text and markdown formats)."""
    letters = [g.letter for g in comparison.groups]
    others = letters[1:]
    with_spread = _with_spread(comparison)
    unit = ["unit"] if comparison.ops else []
    header = ["operation" if comparison.ops else "metric", "stat", *unit, *letters, *(f"{x}/A" for x in others), *(f"{x}≠A?" for x in others)]
    rows, previous = [], None
    for row in comparison.rows:
        rows.append([row.metric if row.metric != previous else "", row.stat,
                     *([_UNIT_NAMES[row.unit]] if unit else []),
                     *(_text_figure(f, row.unit, style, with_spread) for f in row.figures),
                     *(fmt.ratio(f.ratio) if f.ratio is not None else MISSING for f in row.figures[1:]),
                     *(_verdict_text(v) for v in row.verdicts), *[""] * (len(others) - len(row.verdicts))])
        previous = row.metric
    return header, rows, "ll" + "l" * len(unit) + "r" * (2 * len(letters) - 1) + "l" * len(others)


def _with_spread(comparison: Comparison) -> bool:
    return any(len(g.docs) > 1 for g in comparison.groups)


_UNIT_NAMES = {"ns": "time", "cycles": "cycles", "count": "count", "ratio": "ratio"}


def _text_figure(figure: Figure, unit: str, style: Style, with_spread: bool) -> str:
    if figure.value is None:
        text = MISSING
    elif unit == "cycles":
        text = fmt.count(round(figure.value))
    elif unit == "ratio":
        text = fmt.ratio(figure.value)
    else:
        text = fmt.figure(figure.value, unit)
    if with_spread and figure.spread is not None:
        text += f" ±{fmt.significant(100 * figure.spread, 2)}%"
    return text + style.bad(INVALID_MARK) if figure.invalid else text


def _verdict_text(verdict: stats.Difference | None) -> str:
    if verdict is None:
        return MISSING
    p = fmt.p_value(verdict.p_value)
    if verdict.beyond_spread is False and verdict.p_value < stats.SIGNIFICANCE:
        return f"no: within spread ({p} {verdict.test})"
    return f"{'yes' if verdict.real else 'no'} {p} {verdict.test}"


def _legend(comparison: Comparison) -> list[str]:
    lines = [f"X≠A?: does group X differ from A in this statistic ({100 * stats.CONFIDENCE:.0f} % confidence)? "
             "MW: Mann–Whitney U on the raw samples",
             "(--raw N when running) or on Thread-Metric periods; CI: the bootstrap interval of each median, "
             "from the histograms;",
             "tail (p90 … max): how the samples beyond A's figure split between A and X, against their sizes "
             "(binomial)."]
    if _with_spread(comparison):
        lines.append("A group's figure is the median over its runs, ± half their range; a difference the runs "
                     "themselves span is not called one.")
    else:
        lines.append("One run each: repeat runs (rtscope campaign) to see the run-to-run spread.")
    return lines


def _invalid_notes(groups: tuple[Group, ...], style: Style) -> list[str]:
    # In a group of several runs, the note says which run it is.
    return [style.bad(f"{INVALID_MARK.strip()} {g.letter}{_which(g, doc)} {m['id']} is invalid: "
                      f"{result.invalid_reason(m)}")
            for g in groups for doc in g.docs for m in doc["metrics"] if not m["valid"]]


def _which(g: Group, doc: dict[str, Any]) -> str:
    return f" ({doc['run']['id'][:SHORT_ID]})" if len(g.docs) > 1 else ""


# --- markdown, CSV, JSON ---------------------------------------------------------------------------

def _markdown(comparison: Comparison) -> str:
    header, rows, _ = _cells(comparison, Style(enabled=False))
    lines = ["| group | name | runs |", "|---|---|---|",
             *(_md_row([g.letter, g.name, str(len(g.docs))]) for g in comparison.groups), "",
             _md_row(header), "|" + "---|" * len(header), *(_md_row(cells) for cells in rows), "",
             *_legend(comparison)]
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(_md(c) for c in cells) + " |"


def _csv(comparison: Comparison) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["metric", "stat", "unit", "group", "group_name", "runs", "value", "spread", "ratio_to_A",
                     "invalid", "differs_from_A", "p_value", "test", "beyond_spread"])
    for row in comparison.rows:
        verdicts = row.verdicts or (None,) * (len(comparison.groups) - 1)
        for g, figure, verdict in zip(comparison.groups, row.figures, (None, *verdicts), strict=True):
            writer.writerow([row.metric, row.stat, row.unit, g.letter, g.name, len(g.docs), _plain(figure.value),
                             _plain(figure.spread), _plain(figure.ratio), int(figure.invalid),
                             *(_verdict_fields(verdict) if verdict else ["", "", "", ""])])
    return out.getvalue()


def _verdict_fields(verdict: stats.Difference) -> list[Any]:
    return [int(verdict.real), f"{verdict.p_value:.6g}", verdict.test,
            "" if verdict.beyond_spread is None else int(verdict.beyond_spread)]


def _plain(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"


def _json(comparison: Comparison) -> str:
    doc = {
        "groups": [{"letter": g.letter, "name": g.name, "runs": [doc["run"]["id"] for doc in g.docs]}
                   for g in comparison.groups],
        "metrics": [
            {"id": metric_id,
             "rows": [{"stat": row.stat, "unit": row.unit,
                       "figures": [{"value": f.value, "spread": f.spread, "ratio": f.ratio, "invalid": f.invalid}
                                   for f in row.figures],
                       "differs_from_first": [None if v is None else {
                           "real": v.real, "p_value": v.p_value, "test": v.test, "beyond_spread": v.beyond_spread}
                           for v in row.verdicts]}
                      for row in comparison.rows if row.metric == metric_id]}
            for metric_id in dict.fromkeys(row.metric for row in comparison.rows)],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


_WRITERS: dict[str, Callable[[Comparison], str]] = {"markdown": _markdown, "csv": _csv, "json": _json}
