"""Runs as a designed experiment: its factors, the cells it measured, and per factor the answer at equal
levels of the others — which level is better, by how much, and whether really.

Factors. Runs that all belong to campaigns: the campaigns' axes (target, load, config, parameters) and,
when runs of several campaigns are compared, the campaign. Other runs: what differs between them among
what a run records of where and how it was measured (SETTINGS: target, time base, kernel, system,
load, policy, priority, cpus …; then the parameters of the benches every run ran; then the NAMES, label
and campaign, which say nothing of how). An axis or attribute with one level is no factor; those that
change together, level for level (a label that names the kernel), are one factor, named by the first
(the others are its aliases): a recorded setting before a label. Runs of no campaign that
differ in none of them differ as runs: the run is the factor. A cell is a combination of the factors'
levels that was measured; its runs are its repetitions.

Answers. Per factor, metric and statistic: in each context — a combination of the other factors' levels —
the levels measured there with a valid figure (a cell's figure is the median over its runs, as compare's
group's), the best and the next best, and the test of the two over their runs (evidence.compare_groups:
the cells' repetitions are the evidence; a cell of one run gives none). Every test of the verdict — all
factors, metrics, statistics and contexts — is one family, weighed by Holm's method (evidence.holm), so
that a factor that cannot matter is called real in at most 5 % of verdicts however much they compare.
Better is as the statistic's unit has it (judge.statistic_unit), or closer to the nominal value for a
metric that has one (result.nominal: a square wave's period). A metric is matched across levels without
the labels that name a factor: wave.rel_error{model=c-rt,period_us=10} and {model=bash,period_us=10} are
one quantity at two levels of model.

Nothing here has compare's limit of 26 groups (letters of a table): a study of 192 cells has its answers
per factor, as bounded as its factors' levels and the metrics are few.
"""

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from rtscope.analysis import compare, evidence, stats
from rtscope.analysis.compare import Labels, median_and_spread
from rtscope.analysis.grouping import SHORT_ID, group_name
from rtscope.analysis.judge import statistic_unit
from rtscope.model import result, units

NO_LEVEL = "(none)"
CAMPAIGN = "campaign"
RUN = "run"


def _target(doc: dict[str, Any]) -> str:
    name: str = (doc.get("target") or {}).get("name", "local")  # format 4 names it; before, rtscope's machine
    return name


def _label(doc: dict[str, Any]) -> str:
    # A campaign names each run by its cell and repetition ("lab: load=cpu #2"): the repetition is no factor.
    return re.sub(r" #\d+$", "", doc["run"]["label"] or "") or "(no label)"


def _granted(key: str) -> Callable[[dict[str, Any]], str]:
    return lambda doc: str(doc["config"]["granted"][key])


def _cpus(doc: dict[str, Any]) -> str:
    """The CPUs the measuring threads were pinned to ("cpus=0,1"), or "cpus=any"."""
    cpus = doc["config"]["granted"]["cpus"]
    return f"cpus={','.join(map(str, cpus))}" if cpus else "cpus=any"


def _system(read: Callable[[dict[str, Any]], str]) -> Callable[[dict[str, Any]], str]:
    return lambda doc: read(doc["system"])


# What may tell runs that are not one campaign apart: every setting a result records of where and how it
# was measured, in the order a factor of several is named by. A recorded setting names a factor before
# the label, which only names runs: runs labelled "pinned" and "free" that differ in cpus differ in cpus.
SETTINGS: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
    ("target", _target),
    ("time base", result.time_base_text),
    ("kernel", lambda doc: doc["system"]["kernel_release"] or "unknown"),
    ("host", lambda doc: doc["system"]["hostname"]),
    *((what, _system(read)) for what, read in compare.SYSTEM_FACTS if what != "kernel"),
    ("load", lambda doc: group_name(doc, "load", several_campaigns=False)),
    ("policy", _granted("policy")),
    ("priority", _granted("priority")),
    ("cpus", _cpus),
    ("mlockall", lambda doc: f"mlockall={'yes' if doc['config']['granted']['mlockall'] else 'no'}"),
    ("cycle counter", lambda doc: doc["timing"]["cycle_counter"] or "none"),
)
# What names runs without saying how they were measured: a factor by these only when no setting (nor a
# bench's parameter) changes with them.
NAMES: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
    ("label", _label),
    (CAMPAIGN, lambda doc: doc["campaign"]["name"] if "campaign" in doc else NO_LEVEL),
)
ATTRIBUTES = SETTINGS + NAMES


@dataclass(frozen=True)
class Factor:
    """A factor: its name, its levels as the verdict names them (in order of first appearance), and the
    attributes that change with it, level for level."""

    name: str
    levels: tuple[str, ...]
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class DesignCell:
    """A combination of levels that was measured (one per factor, as named) and its runs."""

    levels: tuple[str, ...]
    docs: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class Design:
    """The factors of a set of runs, where they come from and the cells measured."""

    factors: tuple[Factor, ...]
    cells: tuple[DesignCell, ...]
    from_axes: bool  # the campaigns' axes; else what differs between the runs (looked_at)
    looked_at: tuple[str, ...]  # the axes or ATTRIBUTES read (and bench parameters), factors or not

    def others(self, factor: Factor) -> tuple[Factor, ...]:
        return tuple(f for f in self.factors if f is not factor)


def design(docs: Sequence[dict[str, Any]], *, prefer: str | None = None) -> Design:
    """The factors and cells of ``docs``, in order of first appearance; a factor that several attributes
    name is named by ``prefer`` when it is one of them (compare's --by: "load")."""
    from_axes = bool(docs) and all("campaign" in doc for doc in docs)
    readers = _axes(docs) if from_axes else [*SETTINGS, *_parameters(docs), *NAMES]
    readers.sort(key=lambda reader: reader[0] != prefer)  # stable: the others keep their order
    columns = [(name, [read(doc) for doc in docs]) for name, read in readers]
    if not from_axes and all(len(set(levels)) < 2 for _, levels in columns):
        # Runs that differ in nothing they record (two runs before and after a change no field holds): each
        # run is a level, as compare's groups are by default.
        columns.append((RUN, [doc["run"]["id"][:SHORT_ID] for doc in docs]))
    factors: list[tuple[str, list[str], list[str]]] = []  # (name, level per run, aliases)
    for name, levels in columns:
        if len(set(levels)) < 2:
            continue
        twin = next((f for f in factors if _same_partition(f[1], levels)), None)
        if twin is None:
            factors.append((name, levels, []))
        else:
            twin[2].append(name)
    named = [_names(name, levels) for name, levels, _ in factors]
    cells: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for index, doc in enumerate(docs):
        key = tuple(names[levels[index]] for names, (_, levels, _) in zip(named, factors, strict=True))
        cells.setdefault(key, []).append(doc)
    return Design(
        tuple(
            Factor(name, tuple(dict.fromkeys(names[level] for level in levels)), tuple(aliases))
            for names, (name, levels, aliases) in zip(named, factors, strict=True)
        ),
        tuple(DesignCell(levels, tuple(members)) for levels, members in cells.items()),
        from_axes,
        tuple(name for name, _ in readers) if from_axes else tuple(name for name, _ in ATTRIBUTES),
    )


def _axes(docs: Sequence[dict[str, Any]]) -> list[tuple[str, Callable[[dict[str, Any]], str]]]:
    """The campaigns' axes, in order of first appearance, and the campaign (a factor when it varies)."""

    def axis(name: str) -> Callable[[dict[str, Any]], str]:
        return lambda doc: str(doc["campaign"]["axes"].get(name, NO_LEVEL))

    names = dict.fromkeys(name for doc in docs for name in doc["campaign"]["axes"])
    return [*((name, axis(name)) for name in names), (CAMPAIGN, lambda doc: doc["campaign"]["name"])]


def _parameters(docs: Sequence[dict[str, Any]]) -> list[tuple[str, Callable[[dict[str, Any]], str]]]:
    """A reader per parameter of the benches every run of ``docs`` ran: a run's values of it over them."""

    def parameter(key: str, shared: set[str]) -> Callable[[dict[str, Any]], str]:
        def values(doc: dict[str, Any]) -> str:
            found = dict.fromkeys(
                str(bench["params"][key])
                for bench in doc["benches"]
                if bench["id"] in shared and key in bench["params"]
            )
            return "/".join(found) or NO_LEVEL

        return values

    # Only the benches every run ran: runs of different benches differ in their metrics, not in a factor.
    shared = set.intersection(*({bench["id"] for bench in doc["benches"]} for doc in docs)) if docs else set()
    keys = dict.fromkeys(
        key for doc in docs for bench in doc["benches"] if bench["id"] in shared for key in bench["params"]
    )
    return [(key, parameter(key, shared)) for key in keys]


def _same_partition(a: list[str], b: list[str]) -> bool:
    """Whether two columns of levels split the runs alike: each level of one goes with one level of the other."""
    pairs = set(zip(a, b, strict=True))
    return len(pairs) == len(set(a)) == len(set(b))


def _names(factor: str, levels: list[str]) -> dict[str, str]:
    """How the verdict names each level of a factor: without the ':'-separated parts every level shares
    ("qemu:aarch64:rt:cpus=1" → "rt" beside "qemu:aarch64:stock:cpus=1"), and with the factor's name
    when it is a bare number ("period_us=10"; a run's id is not a number)."""
    distinct = list(dict.fromkeys(levels))
    parts = [level.split(":") for level in distinct]
    short = distinct
    if len({len(p) for p in parts}) == 1 and len(parts[0]) > 1:
        kept = [i for i in range(len(parts[0])) if len({p[i] for p in parts}) > 1]
        trimmed = [":".join(p[i] for i in kept).strip(" /") for p in parts]
        if all(trimmed) and len(set(trimmed)) == len(trimmed):
            short = trimmed
    bare_number = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")
    return {
        level: f"{factor}={name}" if factor != RUN and bare_number.fullmatch(name) else name
        for level, name in zip(distinct, short, strict=True)
    }


# --- Answers --------------------------------------------------------------------------------------------

MetricKey = tuple[str, Labels]  # a metric's id without the factors' labels, and its other labels


@dataclass(frozen=True)
class Duel:
    """One context of an answer: the best level there and the next best, their figures, how many levels
    had a valid figure, and compare's test of the two (None: no test applies)."""

    context: tuple[str, ...]  # the other factors' levels, in the design's order
    best: str
    best_value: float
    runner_up: str
    runner_up_value: float
    levels: int
    difference: evidence.Difference | None
    # Samples a run of the best and of the next best cell (the median over each cell's runs): a maximum is
    # the largest of so many, and more samples give a larger one by chance alone.
    samples: tuple[int, int] = (0, 0)

    @property
    def winner(self) -> str | None:
        """The best level when it really differs from the next best; None: no real difference (or untold)."""
        return self.best if self.difference is not None and self.difference.real else None


@dataclass(frozen=True)
class Answer:
    """A factor's answer on one statistic of one metric: a duel per context where two of its levels have
    a valid figure."""

    factor: Factor
    others: tuple[Factor, ...]
    metric: str
    labels: Labels
    key: str
    unit: units.Unit
    duels: tuple[Duel, ...]
    alone: bool  # the factor is compared in one context only: the others are the same wherever it is
    nominal: float | None = None  # the value the metric is better the closer to (result.nominal)

    @property
    def name(self) -> str:
        """The metric with its remaining labels, as compare spells a row."""
        return compare.labelled_id(self.metric, self.labels)

    @property
    def stat(self) -> str:
        return stats.statistic_name(self.key)

    def changes_with(self, *, crossing: bool = False) -> tuple[str, ...]:
        """The other factors whose level changes the outcome (an interaction): two contexts that differ in
        that factor alone, both tested, have different outcomes and one of them a real winner — with
        ``crossing``, each a different real winner (the winner changes)."""
        changing: dict[str, None] = {}
        for index, one in enumerate(self.duels):
            for other in self.duels[index + 1 :]:
                differ = [i for i, (a, b) in enumerate(zip(one.context, other.context, strict=True)) if a != b]
                if len(differ) != 1 or one.winner == other.winner or None in (one.difference, other.difference):
                    continue
                if not crossing or None not in (one.winner, other.winner):
                    changing[self.others[differ[0]].name] = None
        return tuple(name for name in (f.name for f in self.others) if name in changing)


@dataclass(frozen=True)
class FactorVerdict:
    """The design of a set of runs, each factor's answers, the factors no context compares (no two of
    their levels were measured at equal levels of the others), and every metric measured (by its key)."""

    design: Design
    answers: tuple[Answer, ...]
    uncompared_factors: tuple[Factor, ...]
    metrics: tuple[MetricKey, ...]
    # Factors whose levels were measured at equal levels of the others only on different time bases
    # (hardware time beside an emulator's instructions): not ranked, since such figures do not rank.
    across_time_bases: tuple[Factor, ...] = ()
    time_bases: tuple[str, ...] = ()  # of the runs, in order of first appearance

    def of(self, factor: Factor) -> tuple[Answer, ...]:
        return tuple(answer for answer in self.answers if answer.factor is factor)


def verdict(
    docs: Sequence[dict[str, Any]],
    statistics: Sequence[str] = compare.DEFAULT_STATISTICS,
    *,
    adjusted: bool = True,
    prefer: str | None = None,
    min_effect: float = evidence.DEFAULT_MIN_EFFECT,
) -> FactorVerdict:
    """The verdict per factor on ``docs`` for each of ``statistics`` (a tail on its bad side; a per-period
    metric by its median period), figures overhead-adjusted unless ``adjusted`` is False; factors named
    as :func:`design` names them."""
    plan = design(docs, prefer=prefer)
    label_keys = {name for f in plan.factors for name in (f.name, *f.aliases)}
    _, adopted = compare.metric_keys(docs)
    measured = [_measured(cell, adopted, label_keys) for cell in plan.cells]
    keys = list(dict.fromkeys(key for each in measured for key in each))
    figures = _Figures(measured, statistics, adjusted, min_effect)
    answers: list[Answer] = []
    uncompared = []
    across = []
    bases = [" / ".join(sorted({result.time_base_text(doc) for doc in cell.docs})) for cell in plan.cells]
    for index, factor in enumerate(plan.factors):
        contexts: dict[tuple[str, ...], list[int]] = {}
        for number, cell in enumerate(plan.cells):
            contexts.setdefault(cell.levels[:index] + cell.levels[index + 1 :], []).append(number)
        if not any(len(numbers) > 1 for numbers in contexts.values()):
            uncompared.append(factor)
            continue
        # Levels are ranked only on one time base: a context's cells of each time base apart (of runs of no
        # campaign the time base is a factor, so a context has one; a campaign's axes may not tell it).
        compared = [
            (context, alike)
            for context, numbers in contexts.items()
            for base in dict.fromkeys(bases[n] for n in numbers)
            if len(alike := [n for n in numbers if bases[n] == base]) > 1
        ]
        if not compared:
            across.append(factor)
            continue
        for key in keys:
            for stat in figures.statistics(key):
                duels = [
                    duel
                    for context, numbers in compared
                    if (duel := figures.duel(index, plan.cells, numbers, key, stat, context)) is not None
                ]
                if duels:
                    unit = figures.unit(key, stat)
                    answers.append(
                        Answer(
                            factor,
                            plan.others(factor),
                            *key,
                            stat,
                            unit,
                            tuple(duels),
                            len(compared) == 1,
                            figures.nominal(key),
                        )
                    )
    weighed = iter(evidence.holm([duel.difference for answer in answers for duel in answer.duels]))
    answers = [
        replace(answer, duels=tuple(replace(duel, difference=next(weighed)) for duel in answer.duels))
        for answer in answers
    ]
    return FactorVerdict(
        plan, tuple(answers), tuple(uncompared), tuple(keys), tuple(across), tuple(dict.fromkeys(bases))
    )


Measured = dict[MetricKey, list[tuple[dict[str, Any], dict[str, Any]]]]  # a cell's (document, metric) pairs


def _measured(cell: DesignCell, adopted: dict[str, Labels], label_keys: set[str]) -> Measured:
    """A cell's metrics by their key without the factors' labels (labels ``adopted`` as compare adopts
    them for runs older than format 4)."""
    found: Measured = {}
    for doc in cell.docs:
        for metric_doc in doc["metrics"]:
            labels = compare.key_labels(doc, metric_doc, adopted)
            kept = tuple((k, v) for k, v in labels if k not in label_keys)
            metric_id: str = metric_doc["id"]
            base = metric_id.split("{")[0] if labels != kept else metric_id
            found.setdefault((base, kept), []).append((doc, metric_doc))
    return found


class _Figures:
    """The cells' figures per metric and statistic, each worked out once."""

    def __init__(self, measured: list[Measured], statistics: Sequence[str], adjusted: bool, min_effect: float):
        self.measured = measured
        self.asked = tuple(statistics)
        self.adjusted = adjusted
        self.min_effect = min_effect
        self._values: dict[tuple[int, MetricKey, str], float | None] = {}

    def _first(self, key: MetricKey) -> dict[str, Any]:
        return next(m for each in self.measured for _, m in each.get(key, ()))

    def statistics(self, key: MetricKey) -> tuple[str, ...]:
        """The statistics to answer on for ``key``: its median period for a per-period metric, else those
        asked, each tail on its bad side (the number of samples tells nothing of better)."""
        first = self._first(key)
        if result.is_periodic(first):
            return ("p50",)
        sides = (stats.bad_side(asked, statistic_unit(first, asked).lower_is_better) for asked in self.asked)
        return tuple(dict.fromkeys(side for side in sides if side != "count"))

    def unit(self, key: MetricKey, stat: str) -> units.Unit:
        return statistic_unit(self._first(key), stat)

    def nominal(self, key: MetricKey) -> float | None:
        return result.nominal(self._first(key))

    def value(self, number: int, key: MetricKey, stat: str) -> float | None:
        """A cell's figure: the median over its runs; None when it lacks the metric or a run's is invalid."""
        if (number, key, stat) not in self._values:
            members = self.measured[number].get(key, [])
            figures = [stats.statistic(m, stat, adjusted=self.adjusted) for _, m in members]
            valid = members and all(m["valid"] for _, m in members)
            self._values[(number, key, stat)] = (
                median_and_spread([v for v in figures if v is not None])[0] if valid else None
            )
        return self._values[(number, key, stat)]

    def duel(
        self,
        index: int,
        cells: tuple[DesignCell, ...],
        numbers: list[int],
        key: MetricKey,
        stat: str,
        context: tuple[str, ...],
    ) -> Duel | None:
        """The best and next best level of factor ``index`` among ``cells`` ``numbers`` (one context) and
        the test of the two; None when fewer than two have a valid figure."""
        unit = self.unit(key, stat)
        valued = [(n, v) for n in numbers if (v := self.value(n, key, stat)) is not None]
        if len(valued) < 2:
            return None
        nominal = self.nominal(key)
        if nominal is not None:
            ranked = sorted(valued, key=lambda each: abs(each[1] - nominal))
        else:
            ranked = sorted(valued, key=lambda each: each[1], reverse=not unit.lower_is_better)
        (best, best_value), (runner_up, runner_up_value) = ranked[:2]
        # The next best against the best: where a cell has one run, its samples' tail test counts the next
        # best's samples beyond the best's figure, which sees a lower maximum.
        pairs = self.measured[best][key], self.measured[runner_up][key]
        difference = evidence.compare_groups(
            [m for _, m in pairs[0]],
            [m for _, m in pairs[1]],
            stat,
            min_effect=self.min_effect,
            adjusted=self.adjusted,
            varied=all(evidence.seeded_apart([doc for doc, _ in each]) for each in pairs),
        )
        return Duel(
            context,
            cells[best].levels[index],
            best_value,
            cells[runner_up].levels[index],
            runner_up_value,
            len(valued),
            difference,
            (self.samples(best, key), self.samples(runner_up, key)),
        )

    def samples(self, number: int, key: MetricKey) -> int:
        """The samples a run of cell ``number`` took of ``key`` (the median over its runs)."""
        counts = sorted(int(m["stats"]["count"] or 0) for _, m in self.measured[number].get(key, ()))
        return counts[len(counts) // 2] if counts else 0


def ratio(best: float, runner_up: float) -> float | None:
    """How many times better the best figure is than the next best's (≥ 1); None from a figure of 0."""
    low, high = sorted((best, runner_up))
    if low == high:
        return 1.0
    return high / low if low > 0 else None


def level_names(levels: Iterable[str]) -> str:
    """A context as the verdict names it: its levels, "rt · sched,io"."""
    return " · ".join(levels)
