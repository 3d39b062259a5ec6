"""A comparison (rtscope.analysis.compare) as terminal text and as markdown: the groups, the settings
that differ between them, the table of figures, ratios and verdicts, and its legend."""

from typing import Any

from rtscope.analysis import stats
from rtscope.analysis.compare import Comparison, Figure, SETTINGS_TO_MATCH
from rtscope.analysis.grouping import SHORT_ID, Group
from rtscope.model import result
from rtscope.render import fmt
from rtscope.render.fmt import MISSING, Style

INVALID_MARK = " *"


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
    for what, read in SETTINGS_TO_MATCH:
        values = {g.letter: "/".join(sorted({read(doc) for doc in g.docs})) for g in groups}
        if len(set(values.values())) > 1:
            each = ", ".join(f"{letter} {value}" for letter, value in values.items())
            lines.append(style.warn(f"! the runs differ in {what}: {each}"))
    periods = {g.letter: sorted({fmt.seconds(m["period_s"]) for doc in g.docs for m in doc["metrics"]
                                 if result.is_periodic(m)}) for g in groups}
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


def markdown(comparison: Comparison) -> str:
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
