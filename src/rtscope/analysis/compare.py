"""The comparison of groups of runs: per metric and statistic each group's figure (the median over its
runs, with their spread), its ratio to the first group, and the verdict on whether it really differs
(rtscope.analysis.stats). Built once, then drawn or exported in any format.
"""

from collections.abc import Callable
from dataclasses import dataclass
from statistics import median
from typing import Any

from rtscope.analysis import stats
from rtscope.analysis.grouping import Group
from rtscope.model import result

DEFAULT_STATISTICS = ("p50", "p99", "max")
# The operation table follows vendors' per-operation tables: average cost, in cycles where possible.
OPS_STATISTICS = ("mean",)


def _time_base(doc: dict[str, Any]) -> str:
    """The result's time base, with the length of an instruction where its emulator recorded it: two
    instruction times of different rates do not compare ("instructions (32 ns each)")."""
    rate = result.ns_per_instruction(doc)
    return f"instructions ({rate} ns each)" if rate else result.time_base(doc)


# Settings that make figures incomparable when they differ: (what, how to read it from a document).
SETTINGS_TO_MATCH: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
    ("time base", _time_base),
    ("granted policy", lambda doc: doc["config"]["granted"]["policy"]),
    ("cycle counter", lambda doc: doc["timing"]["cycle_counter"] or "none"),
)


def _rt_throttling(system: dict[str, Any]) -> str:
    runtime, period = system.get("rt_runtime_us"), system.get("rt_period_us")
    if runtime is None or period is None:
        return "unknown"
    return "off" if runtime < 0 else f"{100 * runtime / period:g} %"


# What the probe records of each system that a comparison of two systems should name when it differs
# (rtscope doctor judges the same settings): (what, how to read it from a document's "system").
SYSTEM_FACTS: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
    ("kernel", lambda system: system.get("kernel_release") or "unknown"),
    ("preemption", lambda system: f"{system.get('preempt_model') or 'unknown'}"
                                  f"{' (PREEMPT_RT)' if system.get('realtime_kernel') else ''}"),
    ("CPU", lambda system: f"{system.get('cpu_model') or 'unknown'} × {system.get('cpu_count', '?')}"),
    ("governor", lambda system: system.get("governor") or "none"),
    ("clocksource", lambda system: system.get("clocksource") or "unknown"),
    ("isolated CPUs", lambda system: system.get("isolated_cpus") or "none"),
    ("RT throttling", _rt_throttling),
    ("virtualization", lambda system: system.get("virtualization") or "none"),
)


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
    key: str                  # the statistic's key in a summary ("p999"); a calibration ratio's is its median's
    stat: str                 # the statistic's name ("p99.9"), or "× tm.basic" for a calibration ratio
    unit: str                 # a unit of rtscope.model.units: the metric's, "cycles", or "ratio"
    figures: tuple[Figure, ...]
    verdicts: tuple[stats.Difference | None, ...]  # each group after A against A (None: not told; empty: no test)


@dataclass(frozen=True)
class Comparison:
    """What compare shows, before it is written in one of the formats."""

    groups: tuple[Group, ...]
    rows: tuple[Row, ...]
    ops: bool                 # the operation table: a unit column, costs in cycles where possible


def build(groups: list[Group], statistics: tuple[str, ...], *, ops: bool = False, adjusted: bool = True
          ) -> Comparison:
    """The comparison of ``groups``: per metric, a row per statistic (in cycles in the operation table
    where every run has them) with the verdict on each group against the first, and the calibration
    ratio of per-period metrics."""
    rows: list[Row] = []
    metric_ids = dict.fromkeys(m["id"] for g in groups for doc in g.docs for m in doc["metrics"])
    for metric_id in metric_ids:
        per_group = [[(doc, m) for doc in g.docs if (m := result.metric(doc, metric_id)) is not None]
                     for g in groups]
        if _periodic(per_group) and not ops:
            rows += _period_rows(metric_id, per_group)
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
        rows.append(Row(metric_id, key, result.STATISTICS[key], "count" if key == "count" else unit,
                        _figures(values, per_group), _verdicts(per_group, key)))
    return rows


def _unit(per_group: list[Members]) -> str:
    return next(m["unit"] for members in per_group for _, m in members)


def _periodic(per_group: list[Members]) -> bool:
    return next(result.is_periodic(m) for members in per_group for _, m in members)


def _period_rows(metric_id: str, per_group: list[Members]) -> list[Row]:
    """A per-period metric (Thread-Metric's iterations) compares by its median period and, the figure
    that carries across processors, that median relative to its calibration metric ("× tm.basic")."""
    medians = [[m["stats"]["p50"] for _, m in members] for members in per_group]
    rows = [Row(metric_id, "p50", "p50", _unit(per_group), _figures(medians, per_group),
                _verdicts(per_group, "p50"))]
    baseline = next((m["baseline"]["metric"] for members in per_group for _, m in members if m["baseline"]), None)
    if baseline is not None:
        relative = [[m["baseline"]["ratio"] if m["baseline"] else None for _, m in members]
                    for members in per_group]
        rows.append(Row(metric_id, "p50", f"× {baseline}", "ratio", _figures(relative, per_group), ()))
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


def difference(first: Group, other: Group, metric_id: str, key: str) -> stats.Difference | None:
    """Whether group ``other`` differs from group ``first`` in statistic ``key`` of ``metric_id``: the
    verdict :func:`build` gives each group against the first, for any two groups (None: not told)."""
    per_group = [[(doc, m) for doc in g.docs if (m := result.metric(doc, metric_id)) is not None]
                 for g in (first, other)]
    return _verdicts(per_group, key)[0]
