"""How often the probabilistic worst case's interval covers the truth (a benchmark: it prints, asserts nothing).

For each distribution with a known tail — exponential (1), standard Gumbel, Pareto (shape 3, scale 1):
true 10⁻⁶ quantiles 13.82, 13.82 and 100 — DRAWS independent runs of BLOCKS blocks of 1,000 samples
each; for each run the 95 % profile-likelihood interval of the value one sample exceeds with probability
10⁻⁶ (rtscope.analysis.worst_case.quantile_interval, on the block maxima standardised as `estimate` does),
and whether it covers the truth. With --checks, the whole estimate instead (its tests first): how often a
run is refused, and the coverage of those not refused. Prints one line per distribution with the
coverage's binomial standard error.

Usage: .venv/bin/python evaluation/worst_case.py [DRAWS [BLOCKS]] [--checks]   (default 1000 draws, 100 blocks)
"""

import math
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))
import numpy as np

from rtscope.analysis import worst_case

BLOCK = 1000
PROBABILITY = 1e-6
DISTRIBUTIONS = {
    "exponential": (lambda rng, n: rng.exponential(size=n), -math.log(PROBABILITY)),
    "gumbel": (lambda rng, n: rng.gumbel(size=n), -math.log(-math.log1p(-PROBABILITY))),
    "pareto(3)": (lambda rng, n: rng.pareto(3.0, size=n) + 1.0, PROBABILITY ** (-1 / 3)),
}


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    draws = int(args[0]) if args else 1000
    blocks = int(args[1]) if len(args) > 1 else 100
    checks = "--checks" in sys.argv
    rng = np.random.default_rng(31)
    for name, (draw, truth) in DISTRIBUTIONS.items():
        start, covered, refused, unbounded = time.perf_counter(), 0, 0, 0
        for _ in range(draws):
            maxima = draw(rng, blocks * BLOCK).reshape(blocks, BLOCK).max(axis=1)
            if checks:
                found = worst_case.estimate(worst_case.Blocks(tuple(maxima), BLOCK, "draws"), PROBABILITY)
                if found.refusal:
                    refused += 1
                    continue
                low, high = found.low, found.high
            else:
                centre, spread = maxima.mean(), maxima.std()
                z = (maxima - centre) / spread
                _, low_z, high_z = worst_case.quantile_interval(z, worst_case.block_probability(PROBABILITY, BLOCK))
                low, high = centre + spread * low_z, None if high_z is None else centre + spread * high_z
            unbounded += high is None
            covered += low is not None and low <= truth and (high is None or truth <= high)
        judged = draws - refused
        share = covered / judged if judged else float("nan")
        error = math.sqrt(share * (1 - share) / judged) if judged else float("nan")
        print(
            f"{name}: true 1e-6 quantile {truth:.4g}; {blocks} blocks of {BLOCK}; {draws} draws"
            + (f", {refused} refused by the checks" if checks else "")
            + f"; interval covers it in {covered}/{judged} = {100 * share:.1f} % (± {100 * error:.1f}), "
            f"{unbounded} unbounded above; {time.perf_counter() - start:.0f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
