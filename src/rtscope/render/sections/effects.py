"""The verdict at a glance (rtscope.render.sections.verdict opens with it): a headline of one or two
sentences — how many comparisons were real, and the largest real effects with their intervals — a
compact table of every answer (factor, metric, statistic, the better level, the effect and its interval,
Holm's p-value; coloured where real, dimmed where negligible or untold) and, on a page, a forest plot of
the effects with their intervals on a log axis.

An effect is how many times better the best level is than the next best (≥ 1): the next best's figure
over the best's where lower is better, the best's over the next best's where higher is, and for a metric
with a nominal value the next best's distance from it over the best's.
"""

from rtscope.analysis import evidence, factors
from rtscope.analysis.factors import Answer, Duel
from rtscope.model import units
from rtscope.render import fmt, plots, svg
from rtscope.render.document import Cell, Figure, Paragraph, Table, table

# The largest real effects the headline names.
HEADLINED = 2
# An answer over more contexts than this is one row of the table, its contexts counted.
ROWS_UP_TO = 4
# Effects the forest plot draws, the largest first; more would not read.
PLOTTED_UP_TO = 40

Outcome = tuple[str, str]  # ("win", level), ("negligible", ""), ("none", "") or ("untold", "")
# How each outcome but a win reads.
OUTCOME_WORDS = {
    "negligible": "a real but negligible difference",
    "none": "no real difference",
    "untold": "not told",
}


def outcome(duel: Duel) -> Outcome:
    """What a duel came to: a real win, a real but negligible difference, none, or untold (no test, or
    one that cannot call a difference real: one run per cell, identical repetitions)."""
    if duel.winner is not None:
        return ("win", duel.winner)
    if duel.difference is None or duel.difference.blind is not None:
        return ("untold", "")
    return ("negligible", "") if duel.difference.significant else ("none", "")


def times_better(duel: Duel) -> tuple[float, tuple[float, float] | None] | None:
    """How many times better the best level is than the next best, by the test's effect, with its
    interval; None where the test gives no effect."""
    difference = duel.difference
    if difference is None or difference.ratio is None or difference.ratio <= 0:
        return None
    ratio, interval = difference.ratio, difference.interval
    if ratio >= 1:
        return ratio, interval
    flipped = (1 / interval[1], 1 / interval[0]) if interval and min(interval) > 0 else None
    return 1 / ratio, flipped


def effect_text(duel: Duel) -> str:
    """ "6.19× (5.92–6.48)", or "—" without an effect."""
    effect = times_better(duel)
    if effect is None:
        return fmt.MISSING
    ratio, interval = effect
    around = f" ({units.significant(interval[0])}–{units.significant(interval[1])})" if interval else ""
    return f"{fmt.ratio(ratio)}{around}"


def _where(answer: Answer, duel: Duel) -> str:
    return f" under {factors.level_names(duel.context)}" if duel.context and not answer.alone else ""


def headline(verdict: factors.FactorVerdict) -> Paragraph | None:
    """ "17 of 24 comparisons real (Holm's, 95 %), 3 negligible. Largest: rt beats stock in lat.wakeup max
    under sched,io, 6.19× (5.92–6.48); …" — or why none is."""
    duels = [(answer, duel) for answer in verdict.answers for duel in answer.duels]
    if not duels:
        return None
    outcomes = [outcome(duel)[0] for _, duel in duels]
    real = [(a, d) for (a, d), what in zip(duels, outcomes, strict=True) if what == "win"]
    counts = ", ".join(
        f"{outcomes.count(what)} {word}"
        for what, word in (("negligible", "negligible"), ("none", "no real difference"), ("untold", "not told"))
        if outcomes.count(what)
    )
    said = f"{len(real)} of {len(duels)} comparisons real (Holm's adjustment, 95 %){f'; {counts}' if counts else ''}."
    if real:
        largest = sorted(real, key=lambda each: -((times_better(each[1]) or (1.0, None))[0]))[:HEADLINED]
        named = "; ".join(
            f"{d.best} beats {d.runner_up} in {a.name} {a.stat}{_where(a, d)}, {effect_text(d)} better"
            for a, d in largest
        )
        said += f" Largest: {named}."
    return Paragraph((said,), "strong")


def effects_table(verdict: factors.FactorVerdict) -> Table | None:
    """A row per answer's context (an answer over more than ROWS_UP_TO contexts: one row, counted): the
    factor, metric, statistic, where, the better level, the effect with its interval, Holm's p-value."""
    rows: list[tuple[str | Cell, ...]] = []
    for answer in verdict.answers:
        if len(answer.duels) > ROWS_UP_TO:
            rows.append(_counted_row(answer))
            continue
        for duel in answer.duels:
            what, _ = outcome(duel)
            emphasis = {"win": "good", "negligible": "muted", "untold": "muted"}.get(what, "")
            better = duel.best if what == "win" else OUTCOME_WORDS[what]
            # A test that cannot call a difference real has no p-value in the verdict's family.
            p = duel.difference.p if duel.difference is not None and duel.difference.blind is None else None
            rows.append(
                (
                    answer.factor.name,
                    answer.name,
                    answer.stat,
                    factors.level_names(duel.context) if duel.context else "",
                    Cell(better, emphasis),
                    Cell(effect_text(duel), emphasis),
                    fmt.MISSING if p is None else evidence.p_text(p).removeprefix("p").removeprefix("="),
                )
            )
    if not rows:
        return None
    return table(("factor", "metric", "stat", "where", "better", "× better (95 %)", "p (Holm)"), rows, "llllllr")


def _counted_row(answer: Answer) -> tuple[str | Cell, ...]:
    """An answer over many contexts as one row: the level best in most, in how many, its effects' range."""
    wins: dict[str, list[Duel]] = {}
    for duel in answer.duels:
        if duel.winner is not None:
            wins.setdefault(duel.winner, []).append(duel)
    if not wins:
        return (answer.factor.name, answer.name, answer.stat, f"{len(answer.duels)} contexts", "none real", "", "")
    level, won = max(wins.items(), key=lambda each: len(each[1]))
    effects = sorted(e[0] for d in won if (e := times_better(d)) is not None)
    spread = f"{fmt.ratio(effects[0])} to {fmt.ratio(effects[-1])}" if effects else fmt.MISSING
    return (
        answer.factor.name,
        answer.name,
        answer.stat,
        f"{len(won)} of {len(answer.duels)} contexts",
        Cell(level, "good"),
        Cell(spread, "good"),
        "",
    )


def forest(verdict: factors.FactorVerdict) -> Figure | None:
    """Each effect with its interval on a log axis, the largest first (up to PLOTTED_UP_TO): real ones in
    colour, the others grey; a dashed line at 1× (no difference)."""
    drawn = []
    for answer in verdict.answers:
        for duel in answer.duels:
            effect = times_better(duel)
            if effect is not None and effect[1] is not None:
                drawn.append((answer, duel, effect[0], effect[1]))
    if not drawn:
        return None
    drawn.sort(key=lambda each: -each[2])
    drawn = drawn[:PLOTTED_UP_TO]
    low = min(min(each[3][0], 1.0) for each in drawn) / plots.MARGIN
    high = max(each[3][1] for each in drawn) * plots.MARGIN
    names = [f"{a.factor.name}: {a.name} {a.stat}{_where(a, d)}" for a, d, _, _ in drawn]
    chart = svg.Chart(
        svg.Axis(low, high, "times better than the next best level (log scale)", _tick, log=True),
        svg.Bands(names),
        title="Effects with their 95 % intervals",
        height=svg.BAND_HEIGHT * len(drawn) + 70,
    )
    chart.vertical(1.0, "1× (no difference)")
    for index, (answer, duel, ratio, (from_, to)) in enumerate(drawn):
        colour = svg.PALETTE[0] if duel.winner is not None else svg.PALETTE[7]
        chart.interval(
            index,
            from_,
            to,
            ratio,
            colour,
            title=f"{names[index]}: {duel.best} over {duel.runner_up} {effect_text(duel)}, {outcome(duel)[0]}",
        )
    return Figure(
        chart,
        (),
        (
            (
                "Each line: the best level against the next best in one combination of the other factors' levels "
                "— square at the effect, line its 95 % interval; blue where real, grey where not."
            ),
        ),
    )


def _tick(value: float) -> str:
    return f"{value:g}×" if value >= 0.1 else f"{value:.2g}×"
