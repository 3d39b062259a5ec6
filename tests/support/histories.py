"""Synthetic histories of runs with the noise of a real one, for change points' known answers.

The noise is a real run's: tests/golden/result-v3-latency.json's lat.wakeup, 3,994 wake-ups of a
cyclictest-style run on this repository's 2-vCPU VM (p50 22 µs, p99 49 µs, max 2.79 ms). A synthetic run
draws SAMPLES wake-ups from that run's histogram (a bucket by its count, a value uniformly within it) and
keeps what the store keeps of a run: p50, p99 and the maximum. Runs differ only as samples of the real
distribution do: the run-to-run noise of a statistic is what resampling the real run gives it.
"""

import json
from pathlib import Path

import numpy as np

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "result-v3-latency.json"
SAMPLES = 1000  # wake-ups per synthetic run: one second of a 1 ms cyclictest
STATISTICS = ("p50", "p99", "max")


def real_histogram() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The golden run's lat.wakeup histogram: bucket lower bounds, widths (ns) and counts."""
    doc = json.loads(GOLDEN.read_text())
    metric = next(m for m in doc["metrics"] if m["id"] == "lat.wakeup")
    buckets = np.array([b for b in metric["histogram"]["buckets"] if b[2]], dtype=float)
    return buckets[:, 0], buckets[:, 1], buckets[:, 2]


def history(
    runs: int,
    *,
    seed: int,
    step_at: int | None = None,
    factor: float = 1.0,
    tail_from: int | None = None,
    tail_samples: int = 1,
    samples: int = SAMPLES,
) -> dict[str, np.ndarray]:
    """``runs`` runs' p50, p99 and max (ns), oldest first. From run ``step_at`` on, every sample is
    ``factor`` times longer (a step in level and tail alike); from run ``tail_from`` on, ``tail_samples``
    of each run's samples are replaced by stalls drawn between 1.5 and 2.5 times the real run's maximum
    (a step in the maximum: one stall in 1,000 samples barely moves p99)."""
    rng = np.random.default_rng(seed)
    lower, width, count = real_histogram()
    cumulative = np.cumsum(count)
    drawn = np.searchsorted(cumulative, rng.random((runs, samples)) * cumulative[-1], side="right")
    values = lower[drawn] + rng.random((runs, samples)) * width[drawn]
    if step_at is not None:
        values[step_at:] *= factor
    if tail_from is not None:
        worst = (lower + width).max()
        values[tail_from:, :tail_samples] = worst * rng.uniform(1.5, 2.5, size=(runs - tail_from, tail_samples))
    p50, p99 = np.percentile(values, [50, 99], axis=1)
    return {"p50": p50, "p99": p99, "max": values.max(axis=1)}
