"""Synthetic studies shaped as real runs measured them, for the verdict's tests and evaluation/verdict.py:
metrics whose statistics are read from their own histogram, and the square-wave study's 192 cells."""

import math
from typing import Any

from support import builders

# The shares of a run's body of samples in seven buckets, each 10 % apart, around its typical value.
_BODY = ((-3, 2), (-2, 7), (-1, 18), (0, 26), (1, 18), (2, 7), (3, 2))


def spread_metric(
    metric_id: str,
    typical: float,
    worst: float,
    *,
    unit: str = "ns",
    step: float = 1.0,
    samples: int = 2000,
    labels: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A metric of ``samples`` samples around ``typical`` (in its unit, histogram steps of ``step``) and a thin
    tail up to ``worst``, its statistics read from its own histogram as the probe reads them."""
    counts: dict[int, int] = {}

    def add(value: float, count: int) -> None:
        index = max(1, round(value / step))
        counts[index] = counts.get(index, 0) + count

    tail = 3 if worst > typical * 1.1**3 else 0
    for power, share in _BODY:
        add(typical * 1.1**power, round((samples - 5 * tail) * share / 80))
    top = typical * 1.1**3
    for part in range(1, 5 if tail else 1):
        add(top * (worst / top) ** (part / 5), tail)
    add(worst, tail) if tail else None
    rows = sorted((index, count) for index, count in counts.items() if count)  # a bucket holds a sample or more
    total = sum(count for _, count in rows)

    def quantile(share: float) -> float:
        rank, seen = max(1, math.ceil(share * total)), 0
        for index, count in rows:
            seen += count
            if seen >= rank:
                return index * step
        raise AssertionError("a rank beyond the samples")

    figures = {
        "count": total,
        "min": rows[0][0] * step,
        "max": rows[-1][0] * step,
        "mean": sum(index * count for index, count in rows) * step / total,
        "stddev": typical / 10,
        **{key: quantile(share) for key, share in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p999", 0.999))},
        "p9999": quantile(0.9999),
    }
    metric = builders.metric(metric_id, 1000.0)
    metric.update(
        unit=unit,
        labels=labels or {},
        overhead_ns=0.0,
        **builders.as_measured(figures, [[index, 1, count] for index, count in rows], step=step),
    )
    return metric


# The square-wave study: each model's worst period error (ns, at 1 run per cell) idle; under load each is
# hit as much again (net) or twice (cpu), c-rt and c-busy less — but c-busy, a busy loop at normal
# priority, shares its CPU with the CPU load and falls behind c-rt there.
MODELS = {
    "bash": 4e6,
    "python": 2e5,
    "node": 3e5,
    "c-file": 6e4,
    "c-mmap": 5e4,
    "c-rt": 1.5e4,
    "c-busy": 2e3,
    "c-timerfd": 3e4,
}
PERIODS_US = (100000, 31623, 10000, 3162, 1000, 316, 100, 10)
LOADS = {"idle": 1.0, "cpu": 3.0, "net": 2.0}


def wave_study(*, repetitions: int = 3, every_metric: bool = False, samples: int | None = 400) -> list[dict[str, Any]]:
    """The wave-study campaign's 8 models × 8 periods × 3 loads = 192 cells, ``repetitions`` runs each (3%
    apart), their figure of merit wave.rel_error (labelled by model and period as the probe labels it; with
    ``every_metric`` wave.period, wave.high and wave.duty too) capped at 2 where a model misses whole periods;
    ``samples`` a run, or as many periods as the campaign's 1.5 s hold (None). evaluation/verdict.py times it."""
    runs = []
    for load, hit in LOADS.items():
        for model, jitter_ns in MODELS.items():
            for period_us in PERIODS_US:
                for repetition in range(1, repetitions + 1):
                    weight = 20.0 if (model, load) == ("c-busy", "cpu") else 1.2 if model in ("c-rt", "c-busy") else hit
                    worst = min(2.0, jitter_ns * weight * (1 + 0.03 * (repetition - 1)) / (period_us * 1000))
                    count = samples or max(15, int(1.5e6 / period_us))
                    labels = {"model": model, "period_us": period_us}
                    nominal = period_us * 1000.0
                    figures = {  # metric: (unit, histogram step, typical, worst)
                        "wave.period": ("ns", 1.0, nominal * (1 + worst / 8), nominal * (1 + worst)),
                        "wave.high": ("ns", 1.0, nominal / 2 * (1 + worst / 8), nominal / 2 * (1 + worst)),
                        "wave.rel_error": ("ratio", 1e-6, worst / 8, worst),
                        "wave.duty": ("percent", 0.001, 50 * (1 + worst / 16), 50 * (1 + worst / 2)),
                    }
                    metrics = [
                        spread_metric(metric_id, typical, top, unit=unit, step=step, samples=count, labels=labels)
                        for metric_id, (unit, step, typical, top) in figures.items()
                        if every_metric or metric_id == "wave.rel_error"
                    ]
                    for metric in metrics:
                        metric["bench"] = "wave.square"
                    axes = {"load": load, "model": model, "period_us": str(period_us)}
                    run = builders.campaign_run(len(runs), axes, metrics, name="wave-study", repetition=repetition)
                    run["campaign"]["repetitions"] = repetitions
                    runs.append(run)
    return runs
