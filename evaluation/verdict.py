"""How long the verdict per factor takes on the square-wave study (a benchmark: it prints, asserts nothing).

Builds the study as tests/support/studies.py makes it — 8 models × 8 periods × 3 loads = 192 cells,
REPETITIONS runs each, its four metrics (wave.period, wave.high, wave.rel_error, wave.duty) with as many
samples as the campaign's 1.5 s give a period — then times, best of TRIES: the verdict alone, in this
process (rtscope.analysis.factors.verdict on p50, p99 and max: one test per factor, metric, statistic and
combination of the other factors), wall-clock and CPU; and `rtscope compare` of the result files as a user
runs it (a process: start-up, reading and validating the files, the envelope tables, the verdict).

Usage: .venv/bin/python evaluation/verdict.py [REPETITIONS [TRIES]]   (default 3 repetitions, 3 tries)
"""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "src"))
from rtscope.analysis import factors
from support import builders
from support.studies import wave_study


def main() -> None:
    repetitions = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    tries = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    runs = wave_study(repetitions=repetitions, every_metric=True, samples=None)
    best_wall = best_cpu = float("inf")
    for _ in range(tries):
        wall, cpu = time.perf_counter(), time.process_time()
        verdict = factors.verdict(runs, ("p50", "p99", "max"))
        best_wall, best_cpu = min(best_wall, time.perf_counter() - wall), min(best_cpu, time.process_time() - cpu)
    tests = sum(len(answer.duels) for answer in verdict.answers)
    print(
        f"verdict: {len(runs)} runs, {len(verdict.design.cells)} cells, {len(verdict.metrics)} metrics × 3 "
        f"statistics: {len(verdict.answers)} lines from {tests} tests in {best_wall:.2f} s ({best_cpu:.2f} s CPU)"
    )
    with tempfile.TemporaryDirectory() as directory:
        paths = [str(builders.write(Path(directory) / f"{n:03d}.json", run)) for n, run in enumerate(runs)]
        best = float("inf")
        for _ in range(tries):
            start = time.perf_counter()
            subprocess.run([str(REPO / "rtscope"), "compare", *paths], check=True, stdout=subprocess.DEVNULL)
            best = min(best, time.perf_counter() - start)
        print(f"rtscope compare of the {len(runs)} result files: {best:.2f} s")


if __name__ == "__main__":
    main()
