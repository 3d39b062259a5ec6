"""The application workload's tables, as the study it reproduces published them (docs/workload.md): per
operation (and processes, when more than one) and thread count N, each thread's execution, waiting and
response time — mean and tails — with the ratio to the 2-thread case.

A run tells its cell by the labels of its app.* metrics ({"threads", "op", "processes"}). Runs are
grouped by the one grouping rule (rtscope.analysis.grouping): grouped by campaign cell, a cell's
repetitions are one line, and the cells that differ only in the workload's own axes (threads, op,
processes) are one series — a table; other groupings (label, load, target) make a series per group,
and loose runs (grouped by run) one series, where runs of the same labels are repetitions.

A line's figures over its valid runs: the mean is the mean of all their samples (each run's mean
weighted by its count), p50 and p99 the median of the runs' figures, max the largest. Runs whose
metric is invalid take no part and are counted. The ratio is to the line of the smallest N of the same
series, operation and processes — N = 2 when it was measured — and is of the mean and of the p99.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import median
from typing import Any

from rtscope.analysis.grouping import default_grouping, group_name
from rtscope.model import result

# The study's three times, as the metrics that hold them and the words its tables use.
QUANTITIES = (("app.exec", "execution"), ("app.wait", "waiting"), ("app.response", "response"))
STATISTICS = ("mean", "p50", "p99", "max")
RATIO_STATISTICS = ("mean", "p99")
AXES = ("threads", "op", "processes")
BASELINE_THREADS = 2  # the study's first thread count: ratios are to it, else to the smallest N measured
_AXIS_IN_CELL = re.compile(r"\b(?:threads|op|processes)=\S+\s*")


@dataclass(frozen=True)
class TimeFigures:
    """One time (execution, waiting or response) of one line: its figures per statistic (None: no valid
    run), their ratios to the series' smallest N (RATIO_STATISTICS), and its runs, valid and not."""

    figures: dict[str, float | None]
    ratios: dict[str, float | None]
    valid: int
    invalid: int
    reasons: tuple[str, ...]  # why the invalid runs' metric is invalid


@dataclass(frozen=True)
class ScalingPoint:
    """One operation, processes and thread count: a cell per QUANTITIES, and the N its ratios are to."""

    op: str
    processes: int
    threads: int
    cells: tuple[TimeFigures, ...]
    baseline_threads: int


@dataclass(frozen=True)
class Series:
    """The lines of one series (``name`` None when the runs make only one), ops in order of first
    appearance, each op's thread counts ascending."""

    name: str | None
    lines: tuple[ScalingPoint, ...]


def build(docs: Iterable[dict[str, Any]], *, by: str | None = None, adjusted: bool = True) -> tuple[Series, ...]:
    """The tables of the workload runs among ``docs`` grouped ``by`` a grouping rule (by default as
    compare groups them); empty when no run measured the workload."""
    docs = [doc for doc in docs if any(_cell_of(m) for m in doc["metrics"])]
    if not docs:
        return ()
    by = by or default_grouping(docs)
    several_campaigns = len({doc["campaign"]["id"] for doc in docs if "campaign" in doc}) > 1
    found: dict[str | None, dict[tuple[str, int, int], list[dict[str, Any]]]] = {}
    for doc in docs:
        series = _series_name(group_name(doc, by, several_campaigns=several_campaigns), by)
        for key in dict.fromkeys(filter(None, (_cell_of(m) for m in doc["metrics"]))):
            found.setdefault(series, {}).setdefault(key, []).append(doc)
    named = len(found) > 1
    return tuple(Series(name if named else None, _lines(cells, adjusted)) for name, cells in found.items())


def _series_name(name: str, by: str) -> str | None:
    """The series a group belongs to: a campaign cell without the workload's own axes, one series for
    loose runs, else the group itself."""
    if by == "run":
        return None
    return _AXIS_IN_CELL.sub("", name).strip() if by == "cell" else name


def _cell_of(metric_doc: dict[str, Any]) -> tuple[str, int, int] | None:
    """(op, processes, threads) of a workload metric, or None for any other metric."""
    labels = result.labels(metric_doc)
    if metric_doc["id"] not in dict(QUANTITIES) or not all(axis in labels for axis in AXES):
        return None
    return str(labels["op"]), int(labels["processes"]), int(labels["threads"])


def _lines(cells: dict[tuple[str, int, int], list[dict[str, Any]]], adjusted: bool) -> tuple[ScalingPoint, ...]:
    ops = list(dict.fromkeys(op for op, _, _ in cells))
    keys = sorted(cells, key=lambda key: (ops.index(key[0]), key[1], key[2]))
    figures = {key: [_figures(cells[key], metric_id, key, adjusted) for metric_id, _ in QUANTITIES] for key in keys}
    lines = []
    for op, processes, threads in keys:
        present = [n for o, p, n in keys if (o, p) == (op, processes)]
        baseline = BASELINE_THREADS if BASELINE_THREADS in present else min(present)
        base = figures[(op, processes, baseline)]
        lines.append(
            ScalingPoint(
                op,
                processes,
                threads,
                tuple(
                    TimeFigures(
                        own,
                        {stat: _ratio(own[stat], first[stat]) for stat in RATIO_STATISTICS},
                        valid,
                        invalid,
                        reasons,
                    )
                    for (own, valid, invalid, reasons), (first, *_) in zip(
                        figures[(op, processes, threads)], base, strict=True
                    )
                ),
                baseline,
            )
        )
    return tuple(lines)


def _figures(
    docs: list[dict[str, Any]], metric_id: str, key: tuple[str, int, int], adjusted: bool
) -> tuple[dict[str, float | None], int, int, tuple[str, ...]]:
    """A line's figures of ``metric_id`` over the valid runs among ``docs``, and their valid and invalid
    counts with the reasons."""
    measured = [m for doc in docs if (m := result.metric(doc, metric_id)) is not None and _cell_of(m) == key]
    summaries = [result.summary(m, adjusted=adjusted) for m in measured if m["valid"]]
    valid = [summary for summary in summaries if summary["count"]]
    reasons = tuple(dict.fromkeys(result.invalid_reason(m) for m in measured if not m["valid"]))
    invalid = len(measured) - len(summaries)
    if not valid:
        return dict.fromkeys(STATISTICS), 0, invalid, reasons
    samples = sum(s["count"] for s in valid)
    return (
        {
            "mean": sum(s["mean"] * s["count"] for s in valid) / samples,
            "p50": median(s["p50"] for s in valid),
            "p99": median(s["p99"] for s in valid),
            "max": max(s["max"] for s in valid),
        },
        len(valid),
        invalid,
        reasons,
    )


def _ratio(value: float | None, baseline: float | None) -> float | None:
    return value / baseline if value is not None and baseline else None
