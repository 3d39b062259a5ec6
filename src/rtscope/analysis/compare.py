"""The comparison of groups of runs: per metric and statistic each group's figure (the median over its
runs, with their spread), its ratio to the first group, and the verdict on whether it really differs
(rtscope.analysis.evidence: by the runs' figures; every verdict of the comparison weighed as one family,
Holm's). Built once, then drawn or exported in any format.

A tail statistic asked for (p90 … max) is read on the side that hurts, as the metric's unit says
(rtscope.model.units): high for a time, low for a throughput — whose rows are p10 … min instead.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from statistics import median
from typing import Any

from rtscope.analysis import evidence, stats
from rtscope.analysis.grouping import Group
from rtscope.model import result, units

DEFAULT_STATISTICS = ("p50", "p99", "max")
# The operation table follows vendors' per-operation tables: average cost, in cycles where possible.
OPS_STATISTICS = ("mean",)


# Settings that make figures incomparable when they differ: (what, how to read it from a document).
SETTINGS_TO_MATCH: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
    ("time base", result.time_base_text),
    ("granted policy", lambda doc: doc["config"]["granted"]["policy"]),
    ("cycle counter", lambda doc: doc["timing"]["cycle_counter"] or "none"),
)


def cycles_refused(docs: Iterable[dict[str, Any]]) -> str | None:
    """Why figures of ``docs`` are not shown in cycles though their counters timed them: the runs whose
    counter does not count a real CPU's cycles, in one line; None when every one does or none has a
    counter."""
    docs = list(docs)
    timed = [doc for doc in docs if result.counter_kind(doc) is not None]
    others = [doc for doc in timed if not result.counts_cpu_cycles(doc)]
    if not others:
        return None
    each = "; ".join(
        dict.fromkeys(
            f"{doc['timing']['cycle_counter']} is {result.COUNTER_KIND_NAMES[result.counter_kind(doc) or 'unknown']}"
            if result.counter_kind(doc) != "cpu-cycles"
            else f"{doc['timing']['cycle_counter']} of a run on {result.time_base(doc)} time, not a CPU's"
            for doc in others
        )
    )
    return f"in time, not cycles: {each}"


def _rt_throttling(system: dict[str, Any]) -> str:
    runtime, period = system.get("rt_runtime_us"), system.get("rt_period_us")
    if runtime is None or period is None:
        return "unknown"
    return "off" if runtime < 0 else f"{100 * runtime / period:g} %"


# What the probe records of each system that a comparison of two systems should name when it differs
# (rtscope doctor judges the same settings): (what, how to read it from a document's "system").
SYSTEM_FACTS: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
    ("kernel", lambda system: system.get("kernel_release") or "unknown"),
    (
        "preemption",
        lambda system: (
            f"{system.get('preempt_model') or 'unknown'}{' (PREEMPT_RT)' if system.get('realtime_kernel') else ''}"
        ),
    ),
    ("CPU", lambda system: f"{system.get('cpu_model') or 'unknown'} × {system.get('cpu_count', '?')}"),
    ("governor", lambda system: system.get("governor") or "none"),
    ("clocksource", lambda system: system.get("clocksource") or "unknown"),
    ("isolated CPUs", lambda system: system.get("isolated_cpus") or "none"),
    ("RT throttling", _rt_throttling),
    ("virtualization", lambda system: system.get("virtualization") or "none"),
)


@dataclass(frozen=True)
class GroupStatistic:
    """One statistic of one group: the median over its runs, their spread, its ratio to group A."""

    value: float | None
    spread: float | None  # half the range over the runs, relative to the value; None for one run
    ratio: float | None
    invalid: bool  # some run's metric is invalid
    # The step of the clock the figure is less than (model.result.below_resolution): shown as below it.
    below_step: float | None = None


Labels = tuple[tuple[str, str | int], ...]  # a metric's labels as (key, value) pairs, in the document's order
Members = list[tuple[dict[str, Any], dict[str, Any]]]  # a group's (document, metric) pairs for one metric


@dataclass(frozen=True)
class Row:
    """One statistic of one metric, of the runs that measured it with the same labels, across the groups."""

    metric: str
    key: str  # the statistic's key in a summary ("p999"); a calibration ratio's is its median's
    stat: str  # the statistic's name ("p99.9"), or "× tm.basic" for a calibration ratio
    unit: str  # a unit of rtscope.model.units: the metric's, "cycles", or "ratio"
    figures: tuple[GroupStatistic, ...]
    verdicts: tuple[evidence.Difference | None, ...]  # each group after A against A (None: not told; empty: no test)
    labels: Labels = ()  # the labels that tell it apart from the same metric measured otherwise
    nominal: float | None = None  # the value the metric is better the closer to (result.nominal)

    @property
    def name(self) -> str:
        """The metric with its labels, as a labelled id spells them: "app.exec{threads=2,op=quick}"."""
        return labelled_id(self.metric, self.labels)

    @property
    def low_tail(self) -> bool:
        """Whether the row reads a tail on the low side (p10 … min of a throughput)."""
        return self.key in stats.LOW_TAIL_QUANTILES and not units.get(self.unit).lower_is_better

    def direction(self, index: int) -> str | None:
        """ "better" or "worse": how group ``index``'s figure stands to A's, as the row's unit has it (a time
        lower, a throughput higher; a spread lower in any unit), or closer to the nominal value where the
        metric has one; None when equal or either is missing."""
        first, other = self.figures[0].value, self.figures[index].value
        if first is None or other is None or first == other:
            return None
        if self.nominal is not None and self.key != "stddev":
            off_first, off_other = abs(first - self.nominal), abs(other - self.nominal)
            return None if off_first == off_other else "worse" if off_other > off_first else "better"
        unit = units.get(self.unit)
        lower_is_better = True if self.key == "stddev" else unit.lower_is_better
        return "worse" if (other > first) == lower_is_better else "better"


@dataclass(frozen=True)
class Comparison:
    """What compare shows, before it is written in one of the formats."""

    groups: tuple[Group, ...]
    rows: tuple[Row, ...]
    ops: bool  # the operation table: a unit column, costs in cycles where possible
    adopted: dict[str, Labels] = field(default_factory=dict)  # labels given to metrics of runs before format 4
    adjusted: bool = True  # times overhead-adjusted, else as measured
    statistics: tuple[str, ...] = DEFAULT_STATISTICS  # as asked (a tail on its bad side in each row)
    min_effect: float = evidence.DEFAULT_MIN_EFFECT  # the smallest effect worth reporting


def build(
    groups: list[Group],
    statistics: tuple[str, ...],
    *,
    ops: bool = False,
    adjusted: bool = True,
    min_effect: float = evidence.DEFAULT_MIN_EFFECT,
) -> Comparison:
    """The comparison of ``groups``: per metric and labels, a row per statistic (in cycles in the operation table
    where every run has them) with the verdict on each group against the first, and the calibration
    ratio of per-period metrics. Every verdict is weighed in one family (Holm's)."""
    rows: list[Row] = []
    keys, adopted = metric_keys(doc for g in groups for doc in g.docs)
    for metric_id, labels in keys:
        per_group = [members(g, metric_id, labels, adopted) for g in groups]
        if _periodic(per_group) and not ops:
            made = _period_rows(metric_id, per_group, min_effect)
        else:
            made = _time_rows(metric_id, per_group, statistics, ops=ops, adjusted=adjusted, min_effect=min_effect)
        nominal = result.nominal(next(m for each in per_group for _, m in each))
        rows += [replace(row, labels=labels, nominal=nominal) for row in made]
    weighed = iter(evidence.holm([v for row in rows for v in row.verdicts]))
    rows = [replace(row, verdicts=tuple(next(weighed) for _ in row.verdicts)) for row in rows]
    return Comparison(tuple(groups), tuple(rows), ops, adopted, adjusted, tuple(statistics), min_effect)


def labels_key(metric_doc: dict[str, Any]) -> Labels:
    """A metric's labels as a row's key."""
    return tuple(result.labels(metric_doc).items())


def labelled_id(metric_id: str, labels: Labels) -> str:
    """``metric_id`` with ``labels`` in braces, unless it has none or already spells them."""
    if not labels or "{" in metric_id:
        return metric_id
    return f"{metric_id}{{{','.join(f'{key}={value}' for key, value in labels)}}}"


def metric_keys(docs: Iterable[dict[str, Any]]) -> tuple[list[tuple[str, Labels]], dict[str, Labels]]:
    """Each (metric id, labels) the documents measured — a row of a comparison — and the labels a
    metric of a document older than format 4 (which recorded none) is taken to have: those of the newer
    runs' metric of its id when they all have the same, so that an old run still compares with a new one.

    Ids come in order of first appearance, each id's label sets in theirs: runs that differ only in
    labels (app.exec at threads=2 and at threads=8) get rows of their own, side by side."""
    docs = list(docs)
    labelled: dict[str, dict[Labels, None]] = {}
    for doc in docs:
        for m in doc["metrics"]:
            sets = labelled.setdefault(m["id"], {})
            if _records_labels(doc):
                sets[labels_key(m)] = None
    adopted = {metric_id: next(iter(sets)) if len(sets) == 1 else () for metric_id, sets in labelled.items()}
    keys: dict[tuple[str, Labels], None] = {}
    for doc in docs:
        for m in doc["metrics"]:
            keys[(m["id"], key_labels(doc, m, adopted))] = None
    order = {metric_id: index for index, metric_id in enumerate(labelled)}
    # Sorted by id alone, which keeps each id's label sets in their order.
    return sorted(keys, key=lambda key: order[key[0]]), adopted


def members(group: Group, metric_id: str, labels: Labels, adopted: dict[str, Labels]) -> Members:
    """The (document, metric) pairs of ``group``'s runs that measured ``metric_id`` with ``labels``
    (a document older than format 4: with the labels ``adopted`` gives it)."""
    return [
        (doc, m)
        for doc in group.docs
        if (m := result.metric(doc, metric_id)) is not None and key_labels(doc, m, adopted) == labels
    ]


def key_labels(doc: dict[str, Any], metric_doc: dict[str, Any], adopted: dict[str, Labels]) -> Labels:
    """The labels of ``doc``'s metric as a row's key: its own, or for a document older than format 4 those
    ``adopted`` gives it."""
    return labels_key(metric_doc) if _records_labels(doc) else adopted.get(metric_doc["id"], ())


def _records_labels(doc: dict[str, Any]) -> bool:
    version: int = doc["version"]
    return version >= 4


def _time_rows(
    metric_id: str,
    per_group: list[Members],
    statistics: tuple[str, ...],
    *,
    ops: bool,
    adjusted: bool,
    min_effect: float,
) -> list[Row]:
    # Cycles only in the operation table (and only where every run has them, each counting CPU cycles).
    cycles = _cycles(per_group, adjusted) if ops else None
    unit = "cycles" if cycles is not None else _unit(per_group)
    rows = []
    for asked in statistics:
        key = stats.bad_side(asked, units.get(unit).lower_is_better)
        if cycles is not None:
            values = [[c[key] for c in each] for each in cycles]
            figures = _figures(values, per_group)
        else:
            values = [[stats.statistic(m, key, adjusted=adjusted) for _, m in members] for members in per_group]
            figures = _below_resolution(_figures(values, per_group), per_group, key)
        rows.append(
            Row(
                metric_id,
                key,
                stats.statistic_name(key),
                "count" if key == "count" else unit,
                figures,
                _verdicts(per_group, key, adjusted=adjusted, min_effect=min_effect),
            )
        )
    return rows


def _below_resolution(
    figures: tuple[GroupStatistic, ...], per_group: list[Members], key: str
) -> tuple[GroupStatistic, ...]:
    """The figures less than one step of their runs' clock (the coarsest of a group's) marked so."""
    marked = []
    for figure, members in zip(figures, per_group, strict=True):
        steps = [step for doc, m in members if (step := result.clock_step(doc, m)) is not None]
        step = max(steps, default=None)
        below = result.below_resolution(step, key, figure.value)
        marked.append(replace(figure, below_step=step) if below else figure)
    return tuple(marked)


def _cycles(per_group: list[Members], adjusted: bool) -> list[list[dict[str, Any]]] | None:
    """Each group's runs' statistics in cycle-counter ticks; None unless every run has them and every run's
    counter counted CPU cycles (a timer's ticks beside a CPU's cycles are no ratio: time then)."""
    if not all(result.counts_cpu_cycles(doc) for members in per_group for doc, _ in members):
        return None
    summaries = [[result.cycles_summary(doc, m, adjusted=adjusted) for doc, m in members] for members in per_group]
    if any(c is None for each in summaries for c in each):
        return None
    return [[c for c in each if c is not None] for each in summaries]


def _unit(per_group: list[Members]) -> str:
    unit: str = next(m["unit"] for members in per_group for _, m in members)
    return unit


def _periodic(per_group: list[Members]) -> bool:
    return next(result.is_periodic(m) for members in per_group for _, m in members)


def _period_rows(metric_id: str, per_group: list[Members], min_effect: float) -> list[Row]:
    """A per-period metric (Thread-Metric's iterations) compares by its median period and, the figure
    that carries across processors, that median relative to its calibration metric ("× tm.basic")."""
    medians = [[m["stats"]["p50"] for _, m in members] for members in per_group]
    rows = [
        Row(
            metric_id,
            "p50",
            "p50",
            _unit(per_group),
            _figures(medians, per_group),
            _verdicts(per_group, "p50", min_effect=min_effect),
        )
    ]
    baseline = next((m["baseline"]["metric"] for members in per_group for _, m in members if m["baseline"]), None)
    if baseline is not None:
        relative = [[m["baseline"]["ratio"] if m["baseline"] else None for _, m in members] for members in per_group]
        rows.append(Row(metric_id, "p50", f"× {baseline}", "ratio", _figures(relative, per_group), ()))
    return rows


def _figures(values: list[list[float | None]], per_group: list[Members]) -> tuple[GroupStatistic, ...]:
    """Each group's median of its runs' values, their spread, and the ratio to the first group."""
    medians, spreads = zip(*(median_and_spread([v for v in each if v is not None]) for each in values), strict=True)
    first = medians[0]
    return tuple(
        GroupStatistic(
            middle,
            spread,
            middle / first if middle is not None and first else None,
            any(not m["valid"] for _, m in members),
        )
        for middle, spread, members in zip(medians, spreads, per_group, strict=True)
    )


def median_and_spread(values: list[float]) -> tuple[float | None, float | None]:
    """A group's figure: the median of its runs' values, and their spread (half the range, relative to
    the median; None for fewer than two runs or a median of 0). None and None for no values."""
    if not values:
        return None, None
    middle = median(values)
    return middle, (max(values) - min(values)) / 2 / middle if len(values) > 1 and middle else None


def _verdicts(
    per_group: list[Members], key: str, *, adjusted: bool = True, min_effect: float = evidence.DEFAULT_MIN_EFFECT
) -> tuple[evidence.Difference | None, ...]:
    """Whether each group after the first differs from it in statistic ``key`` (not yet weighed in a
    family): not told when a run lacks the metric or it is invalid, nor for the count of samples."""
    first = per_group[0]
    return tuple(
        None
        if key == "count" or not first or not other or not all(m["valid"] for _, m in (*first, *other))
        else evidence.compare_groups(
            [m for _, m in first],
            [m for _, m in other],
            key,
            adjusted=adjusted,
            min_effect=min_effect,
            varied=all(evidence.seeded_apart([doc for doc, _ in each]) for each in (first, other)),
        )
        for other in per_group[1:]
    )
