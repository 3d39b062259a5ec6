"""The answer, first (the report's opening section; compare's text and markdown before the tables): per
factor of the runs (rtscope.analysis.factors), metric and statistic, which level is better at equal levels
of the other factors, by how much, and whether really — in sentences, one per metric and statistic:

    lat.wakeup max: rt beats stock under sched,io (109 µs → 17.6 µs, 6.19× lower), real; idle: no real
    difference (stock 14.7 µs, rt 15.8 µs: p=1.000 tail) — interaction: the difference depends on load

An answer over a few contexts (combinations of the other factors' levels) names each; over more, it counts
them — the level best in most, the others with up to NAMED_UP_TO contexts each — so that a study of 192
cells reads in as many lines as it has metrics and statistics per factor. Where the real winner changes
with another factor's level, or is real at some of its levels only, the line says so (an interaction).
"""

from collections.abc import Sequence
from typing import Any

from rtscope.analysis import compare, evidence, factors
from rtscope.analysis.factors import Answer, Duel, Factor
from rtscope.model import result
from rtscope.render import fmt
from rtscope.render.document import Cell, Figure, Items, Paragraph, Section, Table, heading
from rtscope.render.sections import comparison as compared
from rtscope.render.sections import effects
from rtscope.render.sections.effects import OUTCOME_WORDS, outcome
from rtscope.render.subjects import Report

# An answer over at most this many contexts names each with its figures; over more, it counts them.
DETAILED_UP_TO = 4
# Contexts named for each outcome other than the most common one, when an answer counts them.
NAMED_UP_TO = 3
# Levels a factor's line names before it counts the rest; metrics a factor does not compare, likewise.
LEVELS_NAMED = 8
MISSING_NAMED = 12

# Why a comparison of cells of one run each is not told.
_REPEAT = "one run per cell: repeat each to tell"


def build(report: Report) -> Section | None:
    """The report's verdict: the settings that differ between compare's groups, then the answer per
    factor; nothing for a report of one run."""
    if len(report.runs) == 1:
        return None
    notes = compared.differences(report.comparison.groups) if report.comparison else ()
    return section(
        [run.doc for run in report.runs],
        compare.DEFAULT_STATISTICS,
        adjusted=report.adjusted,
        notes=notes,
        min_effect=report.min_effect,
    )


def section(
    docs: Sequence[dict[str, Any]],
    statistics: Sequence[str],
    *,
    adjusted: bool = True,
    notes: tuple[Cell, ...] = (),
    prefer: str | None = None,
    min_effect: float = evidence.DEFAULT_MIN_EFFECT,
) -> Section:
    """The verdict on ``docs``: which factors (named by ``prefer`` where it names one: factors.design),
    then per factor a line per metric and statistic; ``notes`` (the settings that differ between the
    groups) before them."""
    verdict = factors.verdict(docs, statistics, adjusted=adjusted, prefer=prefer, min_effect=min_effect)
    not_compared = (*verdict.uncompared_factors, *verdict.across_time_bases)
    compared = [f for f in verdict.design.factors if f not in not_compared]
    # The headline first, then the factors, the table of effects and their plot; the sentences follow.
    headline = effects.headline(verdict)
    repetitions = result.repetitions_note(docs)  # what the spread of runs in instruction time stands for
    glance = [effects.effects_table(verdict), effects.forest(verdict)]
    parts: list[Paragraph | Items | Table | Figure] = [
        *([Items(notes)] if notes else []),
        *([headline] if headline else []),
        Paragraph((_factors_line(verdict),)),
        *([Paragraph((repetitions,))] if repetitions else []),
        *(part for part in glance if part is not None),
    ]
    if compared and not verdict.answers:
        parts.append(Paragraph(("No metric has a valid figure at two levels of a factor, the others equal.",)))
    if verdict.answers and all(len(cell.docs) == 1 for cell in verdict.design.cells):
        parts.append(
            Paragraph(
                (
                    (
                        "Each cell has one run: how far a rerun moves is unknown, so no difference is told real. "
                        "Repeat each cell (a campaign's repetitions: 5 by default) for a verdict."
                    ),
                )
            )
        )
    return Section(
        heading("Verdict", ": each factor at equal levels of the others"),
        tuple(parts),
        subsections=(
            *(_factor(verdict, factor) for factor in compared if verdict.of(factor)),
            *([Section(parts=(_how_to_read(verdict, adjusted, min_effect),))] if verdict.answers else []),
        ),
        anchor="verdict",
    )


def _factors_line(verdict: factors.FactorVerdict) -> str:
    """Which factors the verdict answers, where they come from and the cells; those it cannot answer (no
    two of their levels measured at equal levels of the others)."""
    design = verdict.design
    # In the order a factor is named by: the settings, the benches' parameters, then the names.
    settings = [name for name in design.looked_at if name not in dict(factors.NAMES)]
    names = [name for name in design.looked_at if name in dict(factors.NAMES)]
    looked_at = f"{', '.join(settings)}, the parameters of the benches they all ran, {' and '.join(names)}"
    if design.from_axes:
        source = "the campaign's axes"
    elif [f.name for f in design.factors] == [factors.RUN]:
        source = f"each run a level, as they differ in none of what they record ({looked_at})"
    else:
        source = f"from what differs between the runs ({looked_at})"
    compared = [f for f in design.factors if f not in verdict.uncompared_factors and f not in verdict.across_time_bases]
    uncompared = ", ".join(_name(f) for f in verdict.uncompared_factors)
    if not design.factors:
        return "No factor: the campaign's axes have one level each among these runs, which repeat one cell."
    if not compared and verdict.across_time_bases and not verdict.uncompared_factors:
        return (
            f"No factor is ranked ({source}): the runs differ in {', '.join(_name(f) for f in verdict.across_time_bases)}, "
            f"and their time bases ({'; '.join(verdict.time_bases)}) do not rank."
        )
    if not compared:
        return (
            f"No factor can be compared at equal levels of the others: the runs differ in {uncompared} at once "
            f"({source}), no two of them in one alone."
        )
    runs = sorted({len(cell.docs) for cell in design.cells})
    each = f"{runs[0]}" if len(runs) == 1 else f"{runs[0]} to {runs[-1]}"
    cells = len(design.cells)
    not_compared = (
        f" Not compared: {uncompared}, no two of whose levels were measured at equal levels of the others."
        if uncompared
        else ""
    )
    not_ranked = (
        f" Not ranked: {', '.join(_name(f) for f in verdict.across_time_bases)}, whose levels are on different time "
        f"bases ({'; '.join(verdict.time_bases)}), and figures of different time bases do not rank."
        if verdict.across_time_bases
        else ""
    )
    return (
        f"Factors, {source}: {'; '.join(_factor_text(f) for f in compared)}. {cells} cell{'s' if cells != 1 else ''}, "
        f"{each} run{'s' if runs[-1] != 1 else ''} each.{not_compared}{not_ranked}"
    )


def _name(factor: Factor) -> str:
    """ "target (with host)": a factor's name and those of the attributes that change with it."""
    return f"{factor.name} (with {', '.join(factor.aliases)})" if factor.aliases else factor.name


def _levels(factor: Factor) -> str:
    """ "stock or rt"; "idle, cpu, net"; up to LEVELS_NAMED levels, then how many more."""
    if len(factor.levels) == 2:
        return " or ".join(factor.levels)
    shown = factor.levels[:LEVELS_NAMED]
    more = len(factor.levels) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more else "")


def _factor_text(factor: Factor) -> str:
    """ "label (a or b; kernel changes with it)"."""
    verb = "changes" if len(factor.aliases) == 1 else "change"
    aliases = f"; {', '.join(factor.aliases)} {verb} with it" if factor.aliases else ""
    return f"{factor.name} ({_levels(factor)}{aliases})"


def _factor(verdict: factors.FactorVerdict, factor: Factor) -> Section:
    """A factor's answers: a tally, then a line per metric and statistic, then what it could not compare."""
    answers = verdict.of(factor)
    others = verdict.design.others(factor)
    at = f", at equal {_and([f.name for f in others])}" if others else ""
    if others and answers[0].alone:
        at += f" ({factors.level_names(answers[0].duels[0].context)})"
    answered = {(a.metric, a.labels) for a in answers}
    missing = [compare.labelled_id(*key) for key in verdict.metrics if key not in answered]
    if len(missing) > MISSING_NAMED:
        missing = [*missing[:MISSING_NAMED], f"and {len(missing) - MISSING_NAMED} more"]
    parts: list[Paragraph | Items] = [Paragraph((_tally(answers),)), Items(tuple(sentence(a) for a in answers))]
    if missing:
        parts.append(Paragraph((f"Not compared (a valid figure at one level only): {', '.join(missing)}.",)))
    return Section(heading(factor.name, f": {_levels(factor)}{at}"), tuple(parts))


def _tally(answers: tuple[Answer, ...]) -> str:
    """How the factor's comparisons came out, over every metric, statistic and context."""
    duels = [duel for answer in answers for duel in answer.duels]
    wins: dict[str, int] = {}
    for duel in duels:
        if duel.winner is not None:
            wins[duel.winner] = wins.get(duel.winner, 0) + 1
    ranked = sorted(wins.items(), key=lambda each: -each[1])
    said = [
        f"{level} better in {count}" if i == 0 else f"{level} in {count}" for i, (level, count) in enumerate(ranked)
    ]
    outcomes = [outcome(duel)[0] for duel in duels]
    said += [
        f"{word} in {outcomes.count(what)}"
        for what, word in (("negligible", "negligible"), ("none", "no real difference"), ("untold", "not told"))
        if outcomes.count(what)
    ]
    crossing = sum(1 for a in answers if a.changes_with(crossing=True))
    interaction = f"; the winner changes with another factor's level in {crossing} of {len(answers)} lines" * bool(
        crossing
    )
    return f"Of {len(duels)} comparison{'s' if len(duels) != 1 else ''}: {', '.join(said)}{interaction}."


def sentence(answer: Answer) -> Cell:
    """An answer as one line: "METRIC STAT: what each context says", flagged (and stressed when the winner
    changes) where it changes with another factor's level."""
    if answer.alone:
        text = _alone(answer, answer.duels[0])
    else:
        outcomes: dict[effects.Outcome, list[Duel]] = {}
        for duel in answer.duels:
            outcomes.setdefault(outcome(duel), []).append(duel)
        # The most common outcome first; a real winner before no difference when as common.
        ordered = sorted(outcomes.items(), key=lambda each: (-len(each[1]), each[0][0] != "win"))
        if len(answer.duels) <= DETAILED_UP_TO:
            text = "; ".join(_detailed(answer, outcome, duels) for outcome, duels in ordered)
        else:
            text = "; ".join(
                _counted(answer, outcome, duels, first=i == 0) for i, (outcome, duels) in enumerate(ordered)
            )
    crossing = bool(answer.changes_with(crossing=True))
    return Cell(f"{answer.name} {answer.stat}: {text}{_interaction(answer)}", "warn" if crossing else "")


def _interaction(answer: Answer) -> str:
    """ " — interaction: the winner changes with load" (different real winners), or " — interaction: the
    difference depends on load" (a real winner under some of its levels only); empty when neither."""
    crossing, changing = answer.changes_with(crossing=True), answer.changes_with()
    if crossing:
        return f" — interaction: the winner changes with {_and(list(crossing))}"
    return f" — interaction: the difference depends on {_and(list(changing))}" if changing else ""


def _alone(answer: Answer, duel: Duel) -> str:
    """The one context of a factor compared in one: "rt beats stock: 109 µs → 17.6 µs, 6.19× lower, real"."""
    if duel.winner is None:
        return _no_winner(answer, duel)
    return f"{_head([duel])}: {_change(answer, duel)}, real"


def _detailed(answer: Answer, outcome: effects.Outcome, duels: list[Duel]) -> str:
    """The contexts of one outcome, each named with its figures."""
    where = [factors.level_names(duel.context) for duel in duels]
    if outcome[0] != "win":
        what = OUTCOME_WORDS[outcome[0]]
        return "; ".join(f"{w}: {what} ({_figures(answer, d)})" for w, d in zip(where, duels, strict=True))
    named = not _one_runner_up(duels)
    each = [f"{w} ({_change(answer, d, name_runner_up=named)})" for w, d in zip(where, duels, strict=True)]
    return f"{_head(duels)} under {_and(each)}, real"


def _counted(answer: Answer, outcome: effects.Outcome, duels: list[Duel], *, first: bool) -> str:
    """The contexts of one outcome, counted: the first (most common) with how many were compared and by
    how much, the others with up to NAMED_UP_TO of their contexts."""
    if outcome[0] == "win":
        head = _head(duels) if first else outcome[1]
    else:
        head = OUTCOME_WORDS[outcome[0]]
    if first:
        of = " × ".join(f.name for f in answer.others)
        combinations = "combinations" if len(answer.others) > 1 else "levels"
        margin = f" ({_margins(answer, duels)}), real" if outcome[0] == "win" else ""
        return f"{head} in {len(duels)} of {len(answer.duels)} {of} {combinations} compared{margin}"
    named = [factors.level_names(duel.context) for duel in duels[:NAMED_UP_TO]]
    more = len(duels) - len(named)
    # What the contexts of an exception share is often its reason: "all under cpu".
    shared = [level for level, *rest in zip(*(duel.context for duel in duels)) if all(r == level for r in rest)]
    common = f"all under {factors.level_names(shared)}: " if shared and len(duels) > 1 else ""
    return f"{head} in {len(duels)} ({common}{', '.join(named)}{f' and {more} more' if more else ''})"


def _one_runner_up(duels: list[Duel]) -> bool:
    return len({duel.runner_up for duel in duels}) == 1


def _head(duels: list[Duel]) -> str:
    """ "rt beats stock" (two levels), "c-busy best, ahead of c-rt" (more), "c-busy best" (a next best
    that changes from context to context)."""
    best, runner_up = duels[0].best, duels[0].runner_up
    if not _one_runner_up(duels):
        return f"{best} best"
    return f"{best} beats {runner_up}" if all(d.levels == 2 for d in duels) else f"{best} best, ahead of {runner_up}"


def _change(answer: Answer, duel: Duel, *, name_runner_up: bool = False) -> str:
    """ "109 µs → 17.6 µs, 6.19× lower": the next best's figure to the best's, and how many times better;
    the next best named first when ``name_runner_up`` ("next c-rt: …")."""
    unit = answer.unit
    change = f"{unit.format(duel.runner_up_value)} → {unit.format(duel.best_value)}{_of(answer, duel)}, {_margin(answer, duel)}"
    return f"next {duel.runner_up}: {change}" if name_runner_up else change


def _margin(answer: Answer, duel: Duel) -> str:
    """ "6.19× lower (4.80–8.00)": how many times better the best is, with the interval of that effect over
    the runs where the test gives one; closer to the nominal value for a metric that has one."""
    word = _better_word(answer)
    difference = duel.difference
    if difference is not None and difference.ratio is not None and difference.ratio > 0:
        # The test's ratio is the next best's figure over the best's: above 1 where lower is better.
        inverse = difference.ratio < 1
        return compared.effect_text(difference, inverse=inverse, word=word)
    times = factors.ratio(duel.best_value, duel.runner_up_value)
    if times == 1.0:
        return "equal"
    return f"{fmt.ratio(times)} {word}" if times is not None else f"{word}, from 0"


def _of(answer: Answer, duel: Duel) -> str:
    """ " (max of 500 samples a run)", " (max of 100,000 and 500 samples a run: more samples raise …)": a maximum is
    the largest of so many samples, and maxima of different counts do not compare; empty for another
    statistic or a per-period metric."""
    if answer.key != "max" or not all(duel.samples):
        return ""
    runner_up, best = duel.samples[1], duel.samples[0]
    if runner_up == best:
        return f" (max of {runner_up:,} samples a run)"
    alike = "" if max(duel.samples) <= 2 * min(duel.samples) else ": more samples raise a maximum by chance"
    return f" (max of {runner_up:,} and {best:,} samples a run{alike})"


def _better_word(answer: Answer) -> str:
    if answer.nominal is not None:
        return f"closer to the nominal {answer.unit.format(answer.nominal)}"
    return "lower" if answer.unit.lower_is_better else "higher"


def _margins(answer: Answer, duels: list[Duel]) -> str:
    """The range of how many times better the best is than the next best over ``duels``."""
    word = _better_word(answer)
    times = sorted(r for d in duels if (r := factors.ratio(d.best_value, d.runner_up_value)) is not None)
    if not times:
        return f"{word}, from 0"
    if times[0] == times[-1]:
        return f"{fmt.ratio(times[0])} {word} than the next best"
    return f"{fmt.ratio(times[0])} to {fmt.ratio(times[-1])} {word} than the next best"


def _no_winner(answer: Answer, duel: Duel) -> str:
    return f"{OUTCOME_WORDS[outcome(duel)[0]]} ({_figures(answer, duel)})"


def _figures(answer: Answer, duel: Duel) -> str:
    """ "stock 14.7 µs, rt 15.8 µs: p=0.31 t, 3 and 3 runs": the two figures, best first, and the test's
    word — for cells of one run, whether those runs differ, and that the cells are not told apart."""
    figures = f"{duel.best} {answer.unit.format(duel.best_value)}, {duel.runner_up} {answer.unit.format(duel.runner_up_value)}"
    difference = duel.difference
    if difference is None:
        return f"{figures}: no test applies"
    if difference.blind == evidence.ONE_RUN_EACH:
        runs = "these runs differ" if difference.runs_differ else "these runs do not differ"
        return f"{figures}: {runs}, {difference}; {_REPEAT}"
    return f"{figures}: {difference}"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _how_to_read(verdict: factors.FactorVerdict, adjusted: bool, min_effect: float) -> Paragraph:
    confidence = f"{100 * evidence.CONFIDENCE:.0f} % confidence"
    weighed = sum(1 for a in verdict.answers for d in a.duels if d.difference and d.difference.blind is None)
    lines = (
        "Per factor, metric and statistic: in each combination of the other factors' levels, the best level's",
        "figure against the next best's (a cell's figure: the median over its runs) and how many times better,",
        "with that effect's 95 % interval. The repetitions are the evidence: each run gives one figure, and the",
        f"two cells' runs are compared by Welch's t on their logarithms ({confidence}). Real: significant after",
        f"Holm's adjustment over the {weighed} comparisons of this verdict that runs could tell, and an effect of",
        f"at least {100 * min_effect:g} % (--min-effect) and one clock step — a smaller one is negligible. A cell",
        "of one run tells nothing of how far a rerun moves: such a comparison is not told (repeat each cell).",
        "Better: lower for a time, higher for iterations or a throughput, as the metric's unit has it; a square",
        "wave's period, high time and duty the closer to their nominal values.",
        "Interaction: the real winner changes with another factor's level, or is real at some of its levels only.",
        f"Figures {'overhead-adjusted' if adjusted else 'as measured'}; an invalid one takes no part.",
    )
    return Paragraph(lines)
