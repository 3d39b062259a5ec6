"""How long `rtscope trend` takes over a large store (a benchmark: it prints, asserts nothing).

Builds a results database of RUNS runs (default 10,000) of lat.wakeup and ctxsw.sem, documents as
tests/support/builders.py makes them, one a day-and-a-bit apart over four kernel releases with a label each,
then times `rtscope trend lat.wakeup` as the user runs it (a process: start-up included) as a text
table, as JSON, and as the HTML page with a point per run, TRIES times each, printing the best; and,
for scale, reading every run's document from the same store, which trend does not do.

Usage: .venv/bin/python evaluation/trend.py [RUNS [TRIES]]   (default 10000 runs, 3 tries)
"""

import copy
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "src"))
from rtscope.model import result
from rtscope.store.database import Store
from support import builders

KERNELS = ("6.1.0-rt", "6.6.0-rt", "6.12.0-rt", "6.18.0-rt")


def build_store(path: Path, runs: int) -> None:
    """RUNS runs, each the builders' document with its own id, start, kernel, label and figures. The
    template is validated once; its copies differ only in values the schema checks the type of."""
    template = result.from_doc(builders.result_doc(benches={"lat.wakeup": 15000.0, "ctxsw.sem": 3200.0}), "bench").doc
    start = datetime(2026, 1, 1)
    with Store.open(path, create=True) as store:
        for n in range(runs):
            doc = copy.deepcopy(template)
            started = (start + timedelta(minutes=53 * n)).isoformat() + "Z"
            doc["run"].update(id=f"{n:016x}", started=started, finished=started, label=f"nightly {n % 3}")
            doc["system"]["kernel_release"] = KERNELS[n * len(KERNELS) // runs]
            for metric_doc in doc["metrics"]:
                metric_doc["adjusted"] = builders.summary(15000.0 * (1 + (n % 17) / 100), minus=builders.OVERHEAD_NS)
            store.add(result.Result(doc, json.dumps(doc)))


def best(tries: int, argv: list[str], env: dict[str, str]) -> tuple[float, int]:
    """The best wall time of ``argv`` over ``tries`` runs, and the size of its output."""
    times, size = [], 0
    for _ in range(tries):
        started = time.monotonic()
        done = subprocess.run(argv, env=env, capture_output=True, check=True)
        times.append(time.monotonic() - started)
        size = len(done.stdout)
    return min(times), size


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    tries = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    with tempfile.TemporaryDirectory() as work:
        db = Path(work) / "results.sqlite"
        started = time.monotonic()
        build_store(db, runs)
        print(f"store of {runs:,} runs built in {time.monotonic() - started:.1f} s ({db.stat().st_size / 1e6:.1f} MB)")
        env = {**os.environ, "RTSCOPE_DB": str(db), "PYTHONPATH": str(REPO / "src"), "NO_COLOR": "1"}
        command = [sys.executable, "-m", "rtscope", "trend", "lat.wakeup"]
        for what, extra in (("text table", []), ("json", ["--format", "json"]), ("html page", ["--format", "html"])):
            seconds, size = best(tries, [*command, *extra], env)
            print(f"rtscope trend lat.wakeup, {what}: {seconds:.2f} s (best of {tries}; {size / 1e3:,.0f} kB out)")
        seconds, _ = best(tries, [sys.executable, "-m", "rtscope", "--version"], env)
        print(f"rtscope --version (start-up alone): {seconds:.2f} s")
        with Store.open(db) as store:
            started = time.monotonic()
            history = store.metric_history("lat.wakeup", "p99")
            query = time.monotonic() - started
            started = time.monotonic()
            for run_id, *_ in history:
                store._document(run_id)  # by primary key, as the store reads one run
            documents = time.monotonic() - started
        print(
            f"in process: the one query {query * 1e3:.0f} ms; reading the {runs:,} documents (by id) instead {documents:.1f} s"
        )


if __name__ == "__main__":
    main()
