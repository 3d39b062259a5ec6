"""A comparison (rtscope.analysis.compare) as sections: which group is which, the settings that differ
between them, the table of figures, ratios and verdicts with its legend, and the invalid metrics.
`rtscope compare` shows them as text and markdown; the report shows them after its verdict."""

from typing import Any

from rtscope.analysis import evidence
from rtscope.analysis.compare import SETTINGS_TO_MATCH, SYSTEM_FACTS, Comparison, GroupStatistic, Row, cycles_refused
from rtscope.analysis.grouping import SHORT_ID, Group
from rtscope.model import result, units
from rtscope.render import cells, fmt
from rtscope.render.document import Cell, Paragraph, Section, Table, heading, table
from rtscope.render.fmt import MISSING
from rtscope.render.sections.run import TIME_BASES
from rtscope.render.subjects import Report

INVALID_MARK = " *"
# The unit column of the operation table: what a figure counts.
UNIT_NAMES = {"ns": "time"}


def build(report: Report) -> Section | None:
    """The report's comparison: its groups, the table and legend, and the invalid metrics."""
    if report.comparison is None:
        return None
    comparison = report.comparison
    return Section(
        heading("Comparison", ": every group's figures, ratios to A and verdicts"),
        (group_table(comparison), figures_table(comparison), legend(comparison)),
        invalid_notes(comparison.groups),
        anchor="comparison",
    )


def names(comparison: Comparison) -> Section:
    """Which group is which: "Runs" when each is one run (its id, label, host, kernel, start), else
    "Groups" (name, runs, hosts, run ids); the settings that differ between them as its notes."""
    groups = comparison.groups
    if all(len(g.docs) == 1 for g in groups):
        rows = [
            [
                g.letter,
                doc["run"]["id"][:SHORT_ID],
                doc["run"]["label"] or MISSING,
                cells.host_text(doc),
                doc["system"]["kernel_release"],
                fmt.local_time(doc["run"]["started"]),
            ]
            for g in groups
            for doc in g.docs
        ]
        return Section(heading("Runs"), (table(None, rows, "llllll"),), differences(groups))
    rows = [
        [
            g.letter,
            g.name,
            f"{len(g.docs)} run{'s' if len(g.docs) > 1 else ''}",
            " ".join(sorted({cells.host_text(doc) for doc in g.docs})),
            " ".join(doc["run"]["id"][:SHORT_ID] for doc in g.docs),
        ]
        for g in groups
    ]
    return Section(heading("Groups"), (table(None, rows, "lllll"),), differences(groups))


def group_table(comparison: Comparison) -> Table:
    """Each group's letter, name and number of runs."""
    return table(["group", "name", "runs"], [[g.letter, g.name, str(len(g.docs))] for g in comparison.groups], "lll")


def differences(groups: tuple[Group, ...]) -> tuple[Cell, ...]:
    """The time base the figures share when it is not hardware time (an emulator's instructions), warnings
    of the settings that make figures incomparable when they differ between the groups, what
    differs between their systems (what a comparison of systems is for), and warnings of reporting
    periods that differ (counts are per period)."""
    notes = []
    bases = {result.time_base(doc) for g in groups for doc in g.docs}
    if len(bases) == 1 and bases != {"hardware"}:
        notes.append(Cell(f"the figures are {TIME_BASES[bases.pop()]}"))
    for what, read in SETTINGS_TO_MATCH:
        values = {g.letter: "/".join(sorted({read(doc) for doc in g.docs})) for g in groups}
        if len(set(values.values())) > 1:
            each = ", ".join(f"{letter} {value}" for letter, value in values.items())
            notes.append(Cell(f"! the runs differ in {what}: {each}", "warn"))
    for what, read in SYSTEM_FACTS:
        # The CPU as the runs name it: an emulated one's model where the guest told none.
        values = {
            g.letter: "/".join(sorted({read({**doc["system"], "cpu_model": cells.cpu_model(doc)}) for doc in g.docs}))
            for g in groups
        }
        if len(set(values.values())) > 1:
            notes.append(Cell(f"the systems differ in {what}: {', '.join(f'{k} {v}' for k, v in values.items())}"))
    periods = {
        g.letter: sorted(
            {fmt.seconds(m["period_s"]) for doc in g.docs for m in doc["metrics"] if result.is_periodic(m)}
        )
        for g in groups
    }
    if len({tuple(p) for p in periods.values() if p}) > 1:
        each = ", ".join(f"{letter} {'/'.join(p)}" for letter, p in periods.items() if p)
        notes.append(Cell(f"! the runs differ in reporting period, and counts are per period: {each}", "warn"))
    return tuple(notes)


def figures_table(comparison: Comparison) -> Table:
    """Per metric (and labels) and statistic: each group's figure (± its spread over runs), its ratio to A
    and whether it really differs from A."""
    letters = [g.letter for g in comparison.groups]
    others = letters[1:]
    with_spread = _with_spread(comparison)
    unit = ["unit"] if comparison.ops else []
    with_labels = labels_shown(comparison)
    header = [
        "operation" if comparison.ops else "metric",
        *(["labels"] if with_labels else []),
        "stat",
        *unit,
        *letters,
        *(f"{x}/A" for x in others),
        *(f"{x}≠A?" for x in others),
    ]
    rows: list[list[str | Cell]] = []
    previous = None
    for row in comparison.rows:
        rows.append(
            [
                *row_name(row, previous, with_labels),
                row.stat,
                *([UNIT_NAMES.get(row.unit, row.unit)] if unit else []),
                *(_figure(f, row, with_spread) for f in row.figures),
                *(fmt.ratio(f.ratio) for f in row.figures[1:]),
                *(verdict_cell(row, index, v) for index, v in enumerate(row.verdicts, start=1)),
                *[""] * (len(others) - len(row.verdicts)),
            ]
        )
        previous = row
    align = "l" * with_labels + "ll" + "l" * len(unit) + "r" * (2 * len(letters) - 1) + "l" * len(others)
    return table(header, rows, align)


def labels_shown(comparison: Comparison) -> bool:
    """Whether the comparison's tables need a labels column: some row's metric has labels its id does not
    spell out."""
    return any(row.labels and "{" not in row.metric for row in comparison.rows)


def row_name(row: Row, previous: Row | None, with_labels: bool) -> list[str]:
    """The cells that name ``row``'s metric: its id when it differs from the previous row's, its labels
    (with the column) when they differ — so that each metric and each set of labels is named once."""
    same_metric = same_labels = False
    if previous is not None and previous.metric == row.metric:
        same_metric, same_labels = True, previous.labels == row.labels
    return [
        "" if same_metric else row.metric,
        *(["" if same_labels else cells.labels_text(dict(row.labels))] if with_labels else []),
    ]


def _with_spread(comparison: Comparison) -> bool:
    return any(len(g.docs) > 1 for g in comparison.groups)


def figure_text(figure: GroupStatistic, row: Row) -> str:
    """A group's figure in the row's unit; a calibration ratio ("× tm.basic") as a ratio."""
    # compare gives a calibration ratio the unit "ratio", which documents also use for plain quotients.
    if row.unit == units.RATIO.name and row.stat.startswith("×"):
        return fmt.ratio(figure.value)
    if figure.below_step is not None:
        return fmt.below_resolution(figure.below_step)
    return units.get(row.unit).format(figure.value)


def _figure(figure: GroupStatistic, row: Row, with_spread: bool) -> Cell:
    text = figure_text(figure, row)
    if with_spread and figure.spread is not None:
        text += f" ±{units.significant(100 * figure.spread, 2)}%"
    return Cell(text + INVALID_MARK, "bad") if figure.invalid else Cell(text)


def verdict_cell(row: Row, index: int, verdict: evidence.Difference | None) -> Cell:
    """Group ``index``'s verdict against A, stressed when the difference is real: "good" when its figure
    is the better one, "bad" when worse, as the row's unit has it."""
    direction = row.direction(index) if verdict is not None and verdict.real else None
    return Cell(verdict_text(verdict), {"better": "good", "worse": "bad"}.get(direction or "", ""))


def effect_text(verdict: evidence.Difference, *, inverse: bool = False, word: str = "") -> str:
    """ "1.32× (1.12–1.55)" or with ``word`` "1.32× lower (1.12–1.55)": X's figure over A's (``inverse``: A's
    over X's) with its 95 % interval; empty without a ratio."""
    if verdict.ratio is None or verdict.ratio <= 0:
        return ""
    ratio, interval = verdict.ratio, verdict.interval
    if inverse:
        ratio = 1 / ratio
        interval = (1 / interval[1], 1 / interval[0]) if interval and min(interval) > 0 else None
    shown = f" ({units.significant(interval[0])}–{units.significant(interval[1])})" if interval else ""
    return f"{fmt.ratio(ratio)}{f' {word}' if word else ''}{shown}"


def verdict_text(verdict: evidence.Difference | None) -> str:
    """A table's word on X against A, its p-value (Holm's, over the table) and test: "yes 1.32× (1.12–1.55)
    p=0.004 t", "no p=0.420 t; 9 runs each would tell", "negligible 1.02× (1.01–1.03) p=0.010 t", "runs differ
    p<0.001 MW" (one run each), "no: identical repetitions", or "—" when no test could tell."""
    if verdict is None:
        return MISSING
    said = f"{evidence.p_text(verdict.p)} {verdict.test}"
    if verdict.blind == evidence.IDENTICAL:
        return "no: identical repetitions"
    if verdict.real:
        return f"yes {effect_text(verdict)} {said}"
    if verdict.significant and verdict.negligible:
        return f"negligible {effect_text(verdict)} {said}"
    if verdict.test in evidence.SAMPLE_TESTS:
        return f"{'runs differ' if verdict.runs_differ else 'no'} {said}"
    needed = f"; {verdict.needed} runs each would tell" if verdict.needed and verdict.needed <= 1000 else ""
    return f"no {said}{needed}"


def legend(comparison: Comparison) -> Paragraph:
    """How to read the verdicts, and what a group's figure is; in the operation table, why its costs are
    in time when a run's counter did not count CPU cycles."""
    refused = cycles_refused(doc for g in comparison.groups for doc in g.docs) if comparison.ops else None
    weighed = sum(1 for row in comparison.rows for v in row.verdicts if v is not None and v.blind is None)
    lines = (
        *((f"Costs {refused}.",) if refused else ()),
        (
            f"X≠A?: does group X really differ from A in this statistic ({100 * evidence.CONFIDENCE:.0f} % "
            "confidence)? Judged by the runs' own figures: t, Welch's t over both groups' runs (of their"
        ),
        (
            "logarithms); run, one run against a repeated group's spread. The effect: X's figure over A's "
            "(geometric means), with its 95 % interval;"
        ),
        *(
            (
                (
                    f"p-values weighed by Holm's method over the {weighed} comparisons of this table that runs "
                    f"could tell; an effect under {100 * comparison.min_effect:g} % (--min-effect) or one clock "
                    "step is negligible."
                ),
            )
            if weighed
            else ()
        ),
        *(
            (
                (
                    "One run each: no test tells the conditions apart. Its samples say whether these runs differ "
                    "(MW: Mann–Whitney U; CI: the medians' intervals;"
                ),
                (
                    "z: Welch's z of the means; tail: how the samples beyond A's figure split) — repeat runs "
                    "(rtscope campaign) for a verdict."
                ),
            )
            if any(v is not None and v.runs == (1, 1) for row in comparison.rows for v in row.verdicts)
            else ()
        ),
        *(
            (
                "Higher is better in a throughput: its tail is the low side, p10 … min (p99 asked is p1, max is min),",
                "tested from below; a real difference is green when X is better, red when worse.",
            )
            if any(row.low_tail for row in comparison.rows)
            else ()
        ),
        *(
            ("A square wave's period, high time and duty are better the closer to their nominal values.",)
            if any(row.nominal is not None for row in comparison.rows)
            else ()
        ),
    )
    if _with_spread(comparison):
        return Paragraph((*lines, "A group's figure is the median over its runs, ± half their range."))
    return Paragraph(lines)


def invalid_notes(groups: tuple[Group, ...]) -> tuple[Cell, ...]:
    """A note per invalid metric of a run, with its reason (and, in a group of several, which run)."""
    return tuple(
        Cell(
            f"{INVALID_MARK.strip()} {g.letter}{_which(g, doc)} {m['id']} is "
            + (result.throttled_text(m) or f"invalid: {result.invalid_reason(m)}"),
            "bad",
        )
        for g in groups
        for doc in g.docs
        for m in doc["metrics"]
        if not m["valid"]
    )


def _which(g: Group, doc: dict[str, Any]) -> str:
    return f" ({doc['run']['id'][:SHORT_ID]})" if len(g.docs) > 1 else ""
