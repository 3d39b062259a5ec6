"""Change points' known answers over many histories, and `rtscope changes` timed over a large store (a
benchmark: it prints figures as it goes, asserts nothing).

Histories are tests/support/histories.py's: runs of 1,000 wake-ups resampled from the golden lat.wakeup
run (real noise of this repository's VM), keeping p50, p99 and max as the store does.

1. A planted 20 % step in p99 at run k of 300 (k uniform in 30..270): how often it is found at k ± 1 and
   within k ± 3, missed, or joined by another alarm; how often its 95 % interval holds 1.2.
2. A tail-only step (one stall of 1.5–2.5 × the real worst per run from k = 150 on): found in max at k ± 1;
   alarms in p50 and p99.
3. Null histories of 1,000 runs: the histories with any alarm, per statistic.
4. A store of RUNS runs (default 100,000) of lat.wakeup, its p99 20 % worse and its kernel another from
   60 % of the way on: `rtscope changes lat.wakeup` (p50, p99 and max) and `--stat p99` timed as the
   user runs them (a process, start-up included), best of TRIES, and the detection alone in-process.

Usage: .venv/bin/python evaluation/changes.py [HISTORIES [RUNS [TRIES]]]   (default 100, 100000, 3)
CHANGES_STORE=PATH keeps the store there (built when absent: 100,000 runs take 5 to 8 minutes) for the next run.
"""

import copy
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "src"))
from rtscope.analysis import changes
from rtscope.model import result
from rtscope.store.database import Store
from support import builders, histories

KERNELS = ("6.1.0-rt", "6.1.0")
CHUNK = 5000  # runs drawn at a time: 1,000 samples each


def planted(count: int) -> None:
    at_one = at_three = missed = extra = holds = 0
    for seed in range(count):
        k = int(np.random.default_rng(seed).integers(30, 270))
        steps = changes.find_steps(histories.history(300, seed=seed, step_at=k, factor=1.2)["p99"])
        nearest = min(steps, key=lambda step: abs(step.index - k), default=None)
        if nearest is None:
            missed += 1
            continue
        at_one += abs(nearest.index - k) <= 1
        at_three += abs(nearest.index - k) <= 3
        extra += len(steps) > 1
        holds += nearest.low <= 1.2 <= nearest.high
    print(
        f"planted 20 % p99 step, {count} histories of 300 runs: at k ± 1 {at_one}, within k ± 3 {at_three}, "
        f"missed {missed}, another alarm beside it {extra}; 95 % interval holds 1.2 in {holds}",
        flush=True,
    )


def tail_only(count: int) -> None:
    found = p50 = p99 = 0
    for seed in range(count):
        made = histories.history(300, seed=10_000 + seed, tail_from=150)
        found += any(abs(step.index - 150) <= 1 for step in changes.find_steps(made["max"]))
        p50 += bool(changes.find_steps(made["p50"]))
        p99 += bool(changes.find_steps(made["p99"]))
    print(
        f"tail-only step (1 stall per 1,000 samples from run 150), {count} histories of 300 runs: "
        f"max's found at k ± 1 in {found}; an alarm in p50 in {p50}, in p99 in {p99}",
        flush=True,
    )


def null(count: int) -> None:
    alarmed = dict.fromkeys(histories.STATISTICS, 0)
    alarms = 0
    for seed in range(count):
        made = histories.history(1000, seed=20_000 + seed)
        for stat in histories.STATISTICS:
            found = len(changes.find_steps(made[stat]))
            alarmed[stat] += found > 0
            alarms += found
    per_stat = ", ".join(f"{stat} {n}" for stat, n in alarmed.items())
    print(
        f"null, {count} histories of 1,000 runs: histories with an alarm: {per_stat}; alarms in all {alarms}",
        flush=True,
    )


def build_store(path: Path, runs: int) -> None:
    """RUNS runs of lat.wakeup a minute apart, figures from histories, 20 % longer and on the second kernel
    from 60 % of the way on. The template is validated once; its copies differ only in figures, ids and times."""
    template = result.from_doc(builders.result_doc(benches={"lat.wakeup": 15000.0}), "bench").doc
    switch = runs * 6 // 10
    start = datetime(2026, 1, 1)
    with Store.open(path, create=True) as store:
        # A scratch store: no fsync per run (100,000 commits would take the machine's disk half an hour).
        store._db.execute("PRAGMA synchronous = OFF")
        for first in range(0, runs, CHUNK):
            size = min(CHUNK, runs - first)
            made = histories.history(size, seed=first)
            for offset in range(size):
                n = first + offset
                doc = copy.deepcopy(template)
                started = (start + timedelta(minutes=n)).isoformat() + "Z"
                doc["run"].update(id=f"{n:08x}{0:08x}", started=started, finished=started)  # short ids differ
                doc["system"]["kernel_release"] = KERNELS[n >= switch]
                factor = 1.2 if n >= switch else 1.0
                adjusted = doc["metrics"][0]["adjusted"]
                adjusted.update({stat: float(made[stat][offset]) * factor for stat in histories.STATISTICS})
                adjusted["mean"] = adjusted["p50"]
                store.add(result.Result(doc, json.dumps(doc)))


def best(tries: int, argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """The best wall time of ``argv`` over ``tries`` runs, the best CPU time (user + system: on a shared
    machine the wall time counts other processes' turns too), and its output."""
    walls, cpus, out = [], [], ""
    for _ in range(tries):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
        walls.append(time.monotonic() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        out = done.stdout
    return min(walls), min(cpus), out


def timed(runs: int, tries: int, keep: Path | None) -> None:
    with tempfile.TemporaryDirectory() as work:
        db = keep or Path(work) / "results.sqlite"
        if not db.exists():
            started = time.monotonic()
            build_store(db, runs)
            print(f"store of {runs:,} runs built in {time.monotonic() - started:.0f} s", flush=True)
        env = {**os.environ, "RTSCOPE_DB": str(db), "PYTHONPATH": str(REPO / "src"), "NO_COLOR": "1"}
        command = [sys.executable, "-m", "rtscope"]
        print(f"load average before timing: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", flush=True)
        for what, argv in (
            ("rtscope changes lat.wakeup (p50, p99 and max)", ["changes", "lat.wakeup"]),
            ("rtscope changes lat.wakeup --stat p99", ["changes", "lat.wakeup", "--stat", "p99"]),
            ("rtscope trend lat.wakeup (with its change points)", ["trend", "lat.wakeup"]),
            ("rtscope --version (start-up alone)", ["--version"]),
        ):
            wall, cpu, out = best(tries, [*command, *argv], env)
            print(f"{what}: {wall:.2f} s wall, {cpu:.2f} s CPU (best of {tries})", flush=True)
            for row in out.splitlines():
                if row.strip()[:4] in ("p50 ", "p99 ", "max ") or row.strip().startswith("▲"):
                    print(f"  {row.strip()}")
        with Store.open(db) as store:
            started = time.monotonic()
            values = [row[6] for row in store.metric_history("lat.wakeup", "p99")]
            query = time.monotonic() - started
        started = time.monotonic()
        steps = changes.find_steps(values)
        detection = time.monotonic() - started
        print(
            f"in-process over {len(values):,} runs: the store's query {query:.2f} s, detection {detection:.3f} s "
            f"({len(steps)} step{'s' if len(steps) != 1 else ''} at {[step.index for step in steps]})",
            flush=True,
        )


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    tries = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    planted(count)
    tail_only(count)
    null(count)
    keep = os.environ.get("CHANGES_STORE")
    timed(runs, tries, Path(keep) if keep else None)


if __name__ == "__main__":
    main()
