"""Campaigns whose truth is known, for the verdict's error rates: runs drawn from latency-like distributions
with a run-to-run spread like a real machine's, built as result documents and judged by the real verdict
code (rtscope.analysis.factors.verdict).

A run's samples: a log-normal body (σ = 0.15 around 10 µs) with 1 % of them from a Pareto tail (α = 3)
that starts at the body's p99 — the shape of a wake-up latency on an idle machine. Each run is scaled by
its own factor exp(N(0, RUN_SPREAD)), as reruns of one condition land a few percent apart. A planted
effect scales a level's samples (a shift of every statistic) or its tail alone (the body left as it is).

evaluation/verdict_error_rates.py prints the error rates the closing notes quote.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rtscope.analysis import factors
from support import builders

RUN_SPREAD = 0.03
SAMPLES = 20_000
TYPICAL_NS = 10_000.0
_BODY_SIGMA = 0.15
_TAIL_SHARE = 0.01
_TAIL_ALPHA = 3.0
STATISTICS = ("p50", "p99", "max")


def samples(rng: np.random.Generator, count: int, *, scale: float = 1.0, tail_scale: float = 1.0) -> np.ndarray:
    """One run's samples in ns (whole): every sample times ``scale``, the tail's further times ``tail_scale``."""
    run = scale * np.exp(rng.normal(0.0, RUN_SPREAD))
    body = TYPICAL_NS * np.exp(rng.normal(0.0, _BODY_SIGMA, count))
    tail = rng.random(count) < _TAIL_SHARE
    start = TYPICAL_NS * np.exp(2.33 * _BODY_SIGMA)
    body[tail] = start * tail_scale * (1 + rng.pareto(_TAIL_ALPHA, int(tail.sum())))
    return np.maximum(1, np.round(body * run)).astype(np.int64)


def metric_doc(metric_id: str, values: np.ndarray) -> dict[str, Any]:
    """A metric of ``values`` as the probe writes it: exact count, mean and spread, percentiles by rank,
    and its log-linear histogram (128 sub-buckets per power of two)."""
    ordered = np.sort(values)
    count = len(ordered)

    def rank(share: float) -> float:
        return float(ordered[max(1, int(np.ceil(share * count))) - 1])

    figures = {
        "count": count,
        "min": float(ordered[0]),
        "max": float(ordered[-1]),
        "mean": float(ordered.mean()),
        "stddev": float(ordered.std()),
        **{key: rank(share) for key, share in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p999", 0.999))},
        "p9999": rank(0.9999),
    }
    lowest, counts = np.unique(ordered // _width(ordered) * _width(ordered), return_counts=True)
    buckets = [[int(low), int(w), int(n)] for low, w, n in zip(lowest, _width(lowest), counts, strict=True)]
    metric = builders.metric(metric_id, TYPICAL_NS)
    metric.update(overhead_ns=0.0, **builders.as_measured(figures, buckets))
    return metric


def _width(values: np.ndarray) -> np.ndarray:
    """The width of the log-linear bucket holding each value: 1 below 256, then 1/128 of its power of two."""
    return np.where(values < 256, 1, 2 ** np.maximum(0, np.floor(np.log2(np.maximum(values, 1))).astype(np.int64) - 7))


@dataclass(frozen=True)
class Level:
    """A factor's level and what it plants in its runs' samples."""

    name: str
    scale: float = 1.0
    tail_scale: float = 1.0


def campaign(
    rng: np.random.Generator,
    factors_levels: Sequence[tuple[str, Sequence[Level]]],
    repetitions: int,
    *,
    count: int = SAMPLES,
) -> list[dict[str, Any]]:
    """Every cell of the factors' levels, ``repetitions`` runs each, as campaign runs of lat.wakeup."""
    cells: list[list[tuple[str, Level]]] = [[]]
    for name, levels in factors_levels:
        cells = [[*cell, (name, level)] for cell in cells for level in levels]
    docs = []
    for number, cell in enumerate(cells):
        scale = float(np.prod([level.scale for _, level in cell]))
        tail_scale = float(np.prod([level.tail_scale for _, level in cell]))
        for repetition in range(1, repetitions + 1):
            values = samples(rng, count, scale=scale, tail_scale=tail_scale)
            docs.append(
                builders.campaign_run(
                    number * 100 + repetition,
                    {name: level.name for name, level in cell},
                    [metric_doc("lat.wakeup", values)],
                    repetition=repetition,
                )
            )
    return docs


def real(verdict: factors.FactorVerdict, factor: str, stat: str | None = None) -> list[factors.Duel]:
    """The duels of ``factor`` (on ``stat``, or any) the verdict calls real."""
    return [
        duel
        for answer in verdict.answers
        if answer.factor.name == factor and (stat is None or answer.stat == stat)
        for duel in answer.duels
        if duel.winner is not None
    ]


def null_rate(rng: np.random.Generator, campaigns: int, repetitions: int, *, count: int = SAMPLES) -> float:
    """How often a factor whose levels are identical is called real anywhere, beside one that matters 2×."""
    called = 0
    for _ in range(campaigns):
        docs = campaign(
            rng,
            [("kernel", [Level("stock", 2.0), Level("rt")]), ("label", [Level("a"), Level("b")])],
            repetitions,
            count=count,
        )
        called += bool(real(factors.verdict(docs, STATISTICS), "label"))
    return called / campaigns


def power(
    rng: np.random.Generator, campaigns: int, repetitions: int, *, tail_only: bool = False, count: int = SAMPLES
) -> tuple[float, float]:
    """How often a planted 10 % shift of every sample (or a 1.5× tail with the body left alone) is found
    on p50 (p99.9 for the tail), and how often the body's p50 is called real when only the tail moved."""
    found = body = 0
    slower = Level("slow", tail_scale=1.5) if tail_only else Level("slow", scale=1.1)
    statistics = ("p50", "p999") if tail_only else STATISTICS
    for _ in range(campaigns):
        docs = campaign(rng, [("build", [Level("fast"), slower])], repetitions, count=count)
        verdict = factors.verdict(docs, statistics)
        found += any(d.winner == "fast" for d in real(verdict, "build", "p99.9" if tail_only else "p50"))
        body += bool(real(verdict, "build", "p50")) if tail_only else 0
    return found / campaigns, body / campaigns
