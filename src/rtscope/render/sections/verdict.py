"""The report's answer, first: per metric and statistic, which group is best, by how much over the next
best, and whether that difference is real.

The margin is to the next best group rather than to the first: that is what makes the best one best
(against the first, a best group that only just beats another would look as clear as one far ahead).
Whether it is real is compare's verdict: the later of the two groups tested against the earlier, as
compare tests every group against A — the same verdict as the comparison's table when A is one of them.
"""

from rtscope.analysis import compare, stats
from rtscope.analysis.compare import Comparison, Figure, Row
from rtscope.analysis.grouping import Group
from rtscope.model import units
from rtscope.render import cells, fmt
from rtscope.render.document import Cell, Items, Paragraph, Section, Table, heading, table
from rtscope.render.sections import comparison as compared
from rtscope.render.subjects import Report


def build(report: Report) -> Section | None:
    """The verdict table, with how to read it, the settings that differ between the groups and the
    metrics no two groups measured validly; why there is no verdict when compare refuses the groups;
    nothing for a report of one run."""
    if len(report.runs) == 1:
        return None
    if report.comparison is None:
        return _section((Paragraph((f"No verdict: {report.no_comparison}.",)),))
    comparison = report.comparison
    with_labels = compared.labels_shown(comparison)
    rows: list[list[str | Cell]] = []
    unranked, previous = [], None
    for row in comparison.rows:
        if not row.verdicts:
            continue  # a calibration ratio: compare tests the statistic it is the ratio of
        ranked = _ranked(comparison.groups, row)
        if len(ranked) < 2:
            unranked += [row.name] if row.name not in unranked else []
            continue
        (best, best_figure, best_value), (runner_up, runner_up_figure, runner_up_value) = ranked[:2]
        verdict = _verdict(comparison, row, best, runner_up)
        rows.append(
            [
                *compared.row_name(row, previous, with_labels),
                row.stat,
                Cell(report.caption(best), "strong", report.swatch(best)),
                compared.figure_text(best_figure, row),
                _margin(best_value, runner_up_value, units.get(row.unit)),
                Cell(report.caption(runner_up), swatch=report.swatch(runner_up)),
                compared.figure_text(runner_up_figure, row),
                Cell(compared.verdict_text(verdict), "good" if verdict and verdict.real else ""),
            ]
        )
        previous = row
    header = [
        *cells.metric_header(with_labels),
        "stat",
        "best",
        "its figure",
        "better by",
        "next best",
        "its figure",
        "real difference?",
    ]
    differences = compared.differences(comparison.groups)
    parts: list[Paragraph | Items | Table] = [*([Items(differences)] if differences else [])]
    if rows:
        parts += [
            Paragraph(
                (
                    (
                        "Per metric and statistic, the best group and how many times better its figure is than "
                        "the next best's; real difference?: whether the two really differ."
                    ),
                )
            ),
            table(header, rows, "l" * with_labels + "lllrrlrl"),
            _how_to_read(report),
        ]
    else:
        parts.append(Paragraph(("No metric has a valid figure in two groups or more.",)))
    if unranked:
        parts.append(Paragraph((f"Not ranked, as fewer than two groups have a valid figure: {', '.join(unranked)}.",)))
    return _section(tuple(parts))


def _section(parts: tuple[Paragraph | Items | Table, ...]) -> Section:
    return Section(heading("Verdict", ": which is best, by how much, and is it real?"), parts, anchor="verdict")


def _how_to_read(report: Report) -> Paragraph:
    adjusted = "overhead-adjusted" if report.adjusted else "as measured"
    return Paragraph(
        (
            (
                "Best: the lowest figure of a time, the highest of iterations, as the metric's unit has it. The "
                "margin is to the next best, not to the first group: that is what makes the best one best."
            ),
            (
                f"Real: rtscope compare's test ({100 * stats.CONFIDENCE:.0f} % confidence) of the later of the two "
                "groups against the earlier — its legend, under Comparison, says which test — and, for groups of "
                "several runs, a difference beyond their run-to-run spread."
            ),
            f"Figures {adjusted}; a group's is the median over its runs; an invalid one takes no part.",
        )
    )


def _ranked(groups: tuple[Group, ...], row: Row) -> list[tuple[Group, Figure, float]]:
    """The groups with a valid figure in ``row``, each with the figure's value, best first (ties in group order)."""
    valid = [(g, f, f.value) for g, f in zip(groups, row.figures, strict=True) if f.value is not None and not f.invalid]
    return sorted(valid, key=lambda ranked: ranked[2], reverse=not units.get(row.unit).lower_is_better)


def _verdict(comparison: Comparison, row: Row, best: Group, runner_up: Group) -> stats.Difference | None:
    first, other = sorted((best, runner_up), key=comparison.groups.index)
    if first is comparison.groups[0]:
        return row.verdicts[comparison.groups.index(other) - 1]
    return compare.difference(comparison, first, other, row)


def _margin(best: float, runner_up: float, unit: units.Unit) -> str:
    """ "1.36× lower": how many times better the best figure is than the next best's, in the unit's way;
    "equal" for a tie, and no ratio to a figure of 0."""
    low, high = sorted((best, runner_up))
    word = "lower" if unit.lower_is_better else "higher"
    if low == high:
        return "equal"
    return f"{fmt.ratio(high / low)} {word}" if low else f"{word}, no ratio to 0"
