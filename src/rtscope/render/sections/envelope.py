"""Square waves' operating envelopes (rtscope.analysis.envelope): per load, which models meet each
requirement and from which period, then the table of models × periods of max relative period error
coloured against 1 % and 10 %, with each model's shortest period under each. The report adds the
median over repetitions and a figure of max relative error against period per model, on log axes.

Loads are panels of their own (subsections), each with its own chart: the models of a study already
take every colour of the palette, and charts on the same axes compare well side by side.
"""

from collections.abc import Iterable, Sequence
from typing import Any

from rtscope.analysis import envelope
from rtscope.model import units
from rtscope.render import fmt, plots, svg
from rtscope.render.document import Cell, Figure, Items, Paragraph, Part, Section, heading, table
from rtscope.render.fmt import MISSING
from rtscope.render.subjects import Report

INVALID_MARK = " *"
FLOOR_PERCENT = 1e-4  # bottom of the error axis (1 ppm, wave.rel_error's histogram step): a log axis has no 0


def build(report: Report) -> Section | None:
    """The report's envelope section, with the spread over repetitions and the figures."""
    return section([run.doc for run in report.runs], in_full=True)


def section(docs: Iterable[dict[str, Any]], *, in_full: bool) -> Section | None:
    """The envelope of the wave runs among ``docs`` (verdict and table; ``in_full``: also the median
    over repetitions and the figure); None when none is a wave run."""
    panels = envelope.build(docs)
    if not panels:
        return None
    how = Paragraph(
        (
            (
                "Max relative period error, |period − nominal| / nominal, of each model at each nominal period: the "
                "largest over the cell's runs (the worst case), green under 1 %, yellow under 10 %, red above."
            ),
            (
                "< 1 % from: the shortest period whose max stays under 1 % (not monotone: a longer period does not). "
                f"{INVALID_MARK.strip()} a run of the cell is invalid or failed and is not counted."
            ),
        )
    )
    title = heading("Square waves", ": operating envelopes")
    if len(panels) == 1:
        return Section(title, (*_panel_parts(panels[0], in_full), how), anchor="envelope")
    return Section(
        title,
        (how,),
        anchor="envelope",
        subsections=tuple(Section(heading(f"Load {p.load}"), _panel_parts(p, in_full)) for p in panels),
    )


def error_cell(worst: float | None, *, uncounted: bool = False, failed: bool = False) -> Cell:
    """A max relative error as a percentage, coloured against the thresholds; marked when some run of
    its cell is ``uncounted`` (invalid or failed); "failed" or "invalid" when no run gives one."""
    if worst is None:
        return Cell("failed" if failed else "invalid", "bad")
    low, high = envelope.THRESHOLDS
    emphasis = "good" if worst < low else "warn" if worst < high else "bad"
    return Cell(percent(worst) + (INVALID_MARK if uncounted else ""), emphasis)


def percent(ratio: float) -> str:
    """A ratio as a percentage: 0.0123 as "1.23 %"."""
    return units.PERCENT.format(ratio * 100)


def _threshold_text(threshold: float) -> str:
    return f"{threshold * 100:g} %"


def _period_text(period_us: float) -> str:
    return fmt.duration(period_us * 1000)


def _panel_parts(panel: envelope.Panel, in_full: bool) -> tuple[Part, ...]:
    """The verdict, the table of worst errors and, ``in_full``, the medians (when cells have several
    runs) and the figure."""
    parts: list[Part] = [_verdict(panel), _table(panel, "worst")]
    if in_full and any(c.valid > 1 for m in panel.models for c in m.cells if c):
        parts += [
            Paragraph(
                ("Median over the repetitions of each run's max relative error (the spread of the worst case above):",)
            ),
            _table(panel, "median"),
        ]
    if in_full:
        parts += [_figure(panel, models) for models in _by_colour(panel.models)]
    return tuple(parts)


def _verdict(panel: envelope.Panel) -> Items:
    """Per threshold, the models that meet it, from the shortest period on (best first), then those that never do."""
    lines = []
    for index, threshold in enumerate(envelope.THRESHOLDS):
        reaching = sorted(
            ((m, shortest_us) for m in panel.models if (shortest_us := m.reaches[index].shortest_us) is not None),
            key=lambda reached: reached[1],
        )
        never = [m.name for m in panel.models if m.reaches[index].shortest_us is None]
        meets = ", ".join(f"{m.name} from {_reach_text(m.reaches[index])}" for m, _ in reaching) or "no model"
        lines.append(
            Cell(
                f"Under {_threshold_text(threshold)}: {meets}" + (f"; never: {', '.join(never)}" if never else "") + "."
            )
        )
    return Items(tuple(lines))


def _reach_text(reach: envelope.Reach) -> str:
    if reach.shortest_us is None:
        return "never"
    return _period_text(reach.shortest_us) + ("" if reach.monotone else " (not monotone)")


def _table(panel: envelope.Panel, figure: str) -> Part:
    """Models × periods of each cell's ``figure`` ("worst" or "median"), the worst with the reaches."""
    reaches = figure == "worst"
    header = [
        "model",
        *map(_period_text, panel.periods_us),
        *([f"< {_threshold_text(t)} from" for t in envelope.THRESHOLDS] if reaches else []),
    ]
    rows: list[list[str | Cell]] = []
    for model in panel.models:
        cells = [
            Cell(MISSING)
            if c is None
            else error_cell(getattr(c, figure), uncounted=bool(c.invalid or c.failed), failed=bool(c.failed))
            for c in model.cells
        ]
        rows.append(
            [
                model.name,
                *cells,
                *([Cell(_reach_text(r), "" if r.monotone else "warn") for r in model.reaches] if reaches else []),
            ]
        )
    return table(header, rows, "l" + "r" * len(panel.periods_us) + "l" * (len(header) - 1 - len(panel.periods_us)))


def _by_colour(models: Sequence[envelope.Model]) -> list[Sequence[envelope.Model]]:
    """The models in charts of at most as many as there are colours."""
    size = len(svg.PALETTE)
    return [models[first : first + size] for first in range(0, len(models), size)]


def _figure(panel: envelope.Panel, models: Sequence[envelope.Model]) -> Figure:
    """Max relative error (%) against nominal period, a line per model, both axes logarithmic, with
    reference lines at the thresholds; a period without a figure breaks the line."""
    worsts = [c.worst * 100 for m in panel.models for c in m.cells if c and c.worst is not None]
    thresholds = [t * 100 for t in envelope.THRESHOLDS]
    low = max(min([*worsts, *thresholds]) / plots.MARGIN, FLOOR_PERCENT)
    y_axis = svg.Axis(
        low,
        max([*worsts, *thresholds]) * plots.MARGIN,
        log=True,
        tick_text=lambda value: svg.tick_number(value) + " %",
        label="max relative period error, % (log scale)",
    )
    periods_ns = [p * 1000 for p in panel.periods_us]
    scale = plots.scale(units.NS, min(periods_ns), max(periods_ns))
    x_axis = scale.axis(min(periods_ns) / plots.MARGIN, max(periods_ns) * plots.MARGIN, "nominal period", floor=1)
    where = f", load {panel.load}" if panel.load else ""
    chart = svg.Chart(
        x_axis,
        y_axis,
        title=f"Max relative period error against period{where}, models {', '.join(m.name for m in models)}",
    )
    for threshold in envelope.THRESHOLDS:
        chart.reference(threshold * 100, _threshold_text(threshold))
    legend = []
    for index, model in enumerate(models):
        colour = svg.PALETTE[index]
        # Longest first in the panel: the line is drawn from the shortest period up.
        points = [
            None if c is None or c.worst is None else (scale(period * 1000), max(c.worst * 100, low))
            for period, c in reversed(list(zip(panel.periods_us, model.cells, strict=True)))
        ]
        chart.line(
            points,
            colour,
            title=f"{model.name}: "
            + ", ".join(
                f"under {_threshold_text(reach.threshold)} from {_reach_text(reach)}" for reach in model.reaches
            ),
        )
        legend.append(Cell(model.name, swatch=colour))
    return Figure(chart, tuple(legend), ("The worst over each cell's runs; a gap: no valid run at that period.",))
