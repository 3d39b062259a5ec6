"""SQLite against PostgreSQL as rtscope's store (a benchmark: it prints, asserts nothing).

Starts the tests' throwaway PostgreSQL cluster (tests/support/postgres.py), measures two real runs with the probe
(ctxsw.sem and lat.wakeup for 1 s: one keeping 10^5 raw samples per metric, one without), and fills a
SQLite store and a PostgreSQL store alike: FILLER copies of the plain run (the first stored by Store.add, the
others copied from its rows with executemany in one transaction: 10,000 take seconds), then 20 of the raw one
by Store.add. Then:

- the bytes one run with 10^5 raw samples takes: its document, compressed, and each store's growth;
- `rtscope runs`, `trend ctxsw.sem` (a point per stored run), `compare` of the 20 raw runs and `report` of
  them, each the best of TRIES, in each store, with PostgreSQL's time over SQLite's (goal: within 1.5x;
  compare + report under 2 s);
- WRITERS processes storing RUNS_EACH runs each at once: runs stored, duplicates, wall time.

Usage: .venv/bin/python evaluation/store.py [FILLER [TRIES]]   (default 1000 runs, 3 tries; WRITERS=8 RUNS_EACH=100)
docs/store.md's figures: .venv/bin/python evaluation/store.py 10000 5
"""

import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "src"), str(REPO / "tests")]
from rtscope.model import result
from rtscope.store import encoding
from rtscope.store.database import RunFilter, Store
from support import postgres as pg

COMPARED = 20


def measure(work: Path, name: str, *extra: str) -> dict[str, Any]:
    path = work / f"{name}.json"
    subprocess.run(
        [str(REPO / "rtscope"), "run", "ctxsw.sem", "lat.wakeup", "--duration", "1", "--no-store", "--json", str(path)]
        + list(extra),
        check=True,
        capture_output=True,
    )
    doc: dict[str, Any] = json.loads(path.read_text())
    return doc


def copy(doc: dict[str, Any], number: int) -> result.Result:
    """``doc`` as another run: its own id, a second later than the one before."""
    again = {**doc, "run": {**doc["run"], "id": f"{number:016x}", "started": f"2026-01-01T00:00:00.{number:06d}Z"}}
    return result.Result(again, json.dumps(again))


def fill(location: str, runs: list[result.Result]) -> None:
    with Store.open(location, create=True) as store:
        for run in runs:
            store.add(run)


def fill_fast(location: str, doc: dict[str, Any], numbers: range) -> None:
    """Copies of ``doc`` numbered ``numbers``: the first stored by Store.add, the others copied from its rows
    (every column but the id, the start and the document, which is each copy's own) in one transaction with
    executemany, so that 10^4 runs take seconds, not minutes."""
    first, *others = (copy(doc, number) for number in numbers)
    with Store.open(location, create=True) as store:
        store.add(first)
        db = store._db  # the bench's shortcut past the store's interface
        found = db.execute("SELECT * FROM runs WHERE id = ?", (first.run_id,))
        names = [column[0] for column in found.description if column[0] != "seq"]  # PostgreSQL's is generated
        seed = dict(zip([column[0] for column in found.description], found.fetchone()))
        found = db.execute("SELECT * FROM metrics WHERE run_id = ?", (first.run_id,))
        metric_names = [column[0] for column in found.description]
        metric_rows = [dict(zip(metric_names, row)) for row in found.fetchall()]
        runs, metrics = [], []
        for run in others:
            own = {"id": run.run_id, "started": run.doc["run"]["started"], "document_packed": encoding.pack(run.text)}
            runs.append([own.get(name, seed[name]) for name in names])
            metrics += [[run.run_id if name == "run_id" else row[name] for name in metric_names] for row in metric_rows]
        with db.transaction():
            db.executemany(f"INSERT INTO runs ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})", runs)
            db.executemany(
                f"INSERT INTO metrics ({', '.join(metric_names)}) VALUES ({', '.join('?' * len(metric_names))})",
                metrics,
            )


def store_bytes(location: str) -> int:
    if not location.startswith("postgresql://"):
        return os.path.getsize(location)
    import psycopg

    with psycopg.connect(location) as connection:
        row = connection.execute(
            "SELECT pg_total_relation_size('runs') + pg_total_relation_size('metrics')"
            " + pg_total_relation_size('campaigns')"
        ).fetchone()
        assert row is not None
        return int(row[0])


def best(location: str, tries: int, *args: str) -> float:
    env = {**os.environ, "RTSCOPE_DB": location, "NO_COLOR": "1"}
    times = []
    for _ in range(tries):
        started = time.monotonic()
        subprocess.run([str(REPO / "rtscope"), *args], check=True, capture_output=True, env=env)
        times.append(time.monotonic() - started)
    return min(times)


def in_process(location: str, tries: int, query: Callable[[Store], object] | None) -> float:
    """The best time of ``query`` on the store, or of opening it when there is none."""
    times = []
    for _ in range(tries):
        started = time.perf_counter()
        with Store.open(location) as store:
            opened = time.perf_counter()
            if query is not None:
                query(store)
            times.append(time.perf_counter() - opened if query is not None else opened - started)
    return min(times)


def writer(location: str, plain: dict[str, Any], first: int, count: int) -> None:
    with Store.open(location) as store:
        for number in range(first, first + count):
            store.add(copy(plain, number))


def writers_at_once(location: str, plain: dict[str, Any], writers: int, each: int) -> tuple[int, int, float]:
    with Store.open(location, create=True):
        pass
    processes = [
        multiprocessing.Process(target=writer, args=(location, plain, 10**7 * (w + 1), each)) for w in range(writers)
    ]
    started = time.monotonic()
    for process in processes:
        process.start()
    for process in processes:
        process.join()
    wall = time.monotonic() - started
    with Store.open(location) as store:
        ids = [row.id for row in store.runs()]
    return len(ids), len(ids) - len(set(ids)), wall


def main() -> None:
    filler = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    tries = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    writers, each = int(os.environ.get("WRITERS", "8")), int(os.environ.get("RUNS_EACH", "100"))
    with tempfile.TemporaryDirectory(prefix="rtscope-bench-store-") as directory, pg.cluster() as cluster:
        work = Path(directory)
        plain, raw = measure(work, "plain"), measure(work, "raw", "--raw", "100000")
        text = json.dumps(raw)
        samples = sum(len(metric.get("raw", [])) for metric in raw["metrics"])
        print(f"one run with raw samples ({samples:,} in all, up to 10^5 per metric):")
        print(f"  document {len(text):,} B, as stored (packed) {len(encoding.pack(text)):,} B")
        stores = {"sqlite": str(work / "results.sqlite"), "postgresql": cluster.url(cluster.new_database())}
        compared = [copy(raw, 10**6 + number) for number in range(COMPARED)]
        ids = [run.run_id for run in compared]
        for backend, location in stores.items():
            started = time.monotonic()
            fill_fast(location, plain, range(1, filler + 1))
            stored_s = time.monotonic() - started
            before = store_bytes(location)
            fill(location, compared)
            per_run = (store_bytes(location) - before) / COMPARED
            print(
                f"  {backend}: {per_run:,.0f} B a run with raw samples (the store's growth over {COMPARED});"
                f" {filler} runs without, copied in {stored_s:.1f} s"
            )
        print(f"\nthe analyzer over {filler + COMPARED} stored runs (best of {tries}, each a new rtscope process):")
        print(f"  {'command':<28} {'sqlite':>8} {'postgresql':>11} {'ratio':>6}")
        totals = {backend: 0.0 for backend in stores}
        for name, args in (
            ("runs", ["runs"]),
            ("runs --user --since", ["runs", "--user", "root", "--since", "2026-01-01"]),
            ("trend ctxsw.sem", ["trend", "ctxsw.sem"]),
            (f"compare of {COMPARED} runs", ["compare", *ids]),
            (f"report of {COMPARED} runs", ["report", *ids, "-o", str(work / "report.html")]),
        ):
            times = {backend: best(location, tries, *args) for backend, location in stores.items()}
            if name.startswith(("compare", "report")):
                for backend in stores:
                    totals[backend] += times[backend]
            print(
                f"  {name:<28} {times['sqlite']:>7.2f}s {times['postgresql']:>10.2f}s"
                f" {times['postgresql'] / times['sqlite']:>5.2f}x"
            )
        print(f"  {'compare + report':<28} {totals['sqlite']:>7.2f}s {totals['postgresql']:>10.2f}s (goal < 2 s)")
        print(f"\nthe store alone, in one process (best of {tries}): opening it, then its queries")
        for name, query in (
            ("open", None),
            ("runs", lambda store: store.runs(20)),
            ("runs --user --since", lambda store: store.runs(20, RunFilter(user="root", since="2026-01-01"))),
            (f"the {COMPARED} raw runs' documents", lambda store: [store.get(run_id) for run_id in ids]),
        ):
            times = {backend: in_process(location, tries, query) for backend, location in stores.items()}
            print(
                f"  {name:<28} {times['sqlite'] * 1e3:>6.1f}ms {times['postgresql'] * 1e3:>9.1f}ms"
                f" {times['postgresql'] / times['sqlite']:>5.2f}x"
            )
        print(f"\n{writers} writers storing {each} runs each at once:")
        for backend, location in (
            ("sqlite", str(work / "writers.sqlite")),
            ("postgresql", cluster.url(cluster.new_database())),
        ):
            stored, duplicates, wall = writers_at_once(location, plain, writers, each)
            print(f"  {backend:<10} {stored} of {writers * each} stored, {duplicates} duplicates, {wall:.1f} s")


if __name__ == "__main__":
    main()
