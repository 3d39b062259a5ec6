"""The verdict's error rates on campaigns whose truth is known (tests/support/simulated.py): how often a
factor that makes no difference is called real, and how often a planted shift or tail is found, at 3 and 5
runs per cell (a benchmark: it prints, asserts nothing; docs/verdicts.md quotes it).

Usage: .venv/bin/python evaluation/verdict_error_rates.py [CAMPAIGNS]   (default 200)
"""

import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
# The tests' harnesses and synthetic results (tests/support) and the analyzer itself, from this checkout.
sys.path[:0] = [str(REPO / "tests"), str(REPO / "src")]
from support import simulated


def main(campaigns: int) -> None:
    rng = np.random.default_rng(2026)
    for repetitions in (3, 5):
        print(f"{repetitions} runs per cell, {campaigns} campaigns each:")
        print(f"  null factor called real in {100 * simulated.null_rate(rng, campaigns, repetitions):.1f} %")
        print(f"  10 % shift found on p50 in {100 * simulated.power(rng, campaigns, repetitions)[0]:.1f} %")
        tail, body = simulated.power(rng, campaigns, repetitions, tail_only=True)
        print(f"  1.5× tail found on p99.9 in {100 * tail:.1f} %; body (p50) called real in {100 * body:.1f} %")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
