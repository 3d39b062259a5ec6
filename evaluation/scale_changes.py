"""`rtscope changes` and `trend` over 100,000 runs of one metric, in SQLite and in PostgreSQL (a benchmark: it
prints figures, asserts nothing).

The store is evaluation/changes.py's (RUNS runs of lat.wakeup a minute apart, p99 20 % worse and another
kernel from 60 % of the way on): built in SQLite (5 to 8 minutes; CHANGES_STORE=PATH keeps it for the next
run), then copied row for row into a database of the tests' throwaway PostgreSQL cluster
(tests/support/postgres.py) with COPY. Each command is timed as the user runs it (a new process, start-up
included, its modules' bytecode cached as after a first run), best of TRIES, wall and CPU (user + system: on a shared machine the wall time counts other
processes' turns too); then, in one process, what the command spends: the store's query, the detection
and the documents read to explain each change.

Usage: .venv/bin/python evaluation/scale_changes.py [RUNS [TRIES]]   (default 100000, 3)
BEFORE=DIR times the rtscope of another tree too, in turn with this one (e.g. `mkdir /tmp/before && git
archive 7fd053a | tar -x -C /tmp/before`: the commit before these figures' changes), for a before/after
under the same load.
For PostgreSQL the CPU is the client's and the server's (its backend's, the mean over the tries).
"""

import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "src"), str(REPO / "tests"), str(REPO / "evaluation")]
import changes as evaluation  # evaluation/changes.py: the store and the timing of a command
import scale_ingest  # the server's CPU

from rtscope.analysis import changes
from rtscope.store.database import Store
from support import postgres as pg

COMMANDS = (
    ("changes lat.wakeup (p50, p99, max)", ["changes", "lat.wakeup"]),
    ("changes lat.wakeup --stat p99", ["changes", "lat.wakeup", "--stat", "p99"]),
    ("trend lat.wakeup (with its change points)", ["trend", "lat.wakeup"]),
    ("--version (start-up alone)", ["--version"]),
)


def copy_store(sqlite: Path, url: str) -> None:
    """Every row of the SQLite store's runs and metrics into the (new) PostgreSQL store at ``url``."""
    import sqlite3

    import psycopg

    with Store.open(url, create=True):
        pass
    source = sqlite3.connect(sqlite)
    with psycopg.connect(url) as target:
        for table in ("runs", "metrics"):
            found = source.execute(f"SELECT * FROM {table}")
            names = ", ".join(column[0] for column in found.description)
            with target.cursor().copy(f"COPY {table} ({names}) FROM STDIN") as copy:
                for row in found:
                    copy.write_row(row)
        target.execute("ANALYZE")
    source.close()


def in_process(location: str) -> str:
    """What `rtscope changes lat.wakeup` spends past its start-up, part by part (this process's CPU seconds)."""
    cpu = time.process_time()
    with Store.open(location) as store:
        opened = time.process_time()
        series = store.metric_histories("lat.wakeup", ("p50", "p99", "max"))
        queried = time.process_time()
        found = [change for stat, rows in series.items() for change in changes.find_in_rows("lat.wakeup", stat, rows)]
        detected = time.process_time()
        changes.explained(found, lambda run_id: store.get(run_id).doc)
        explained = time.process_time()
    return (
        f"open {opened - cpu:.3f} s, query {queried - opened:.3f} s ({len(series['p99']):,} runs), "
        f"detection {detected - queried:.3f} s ({len(found)} changes), documents {explained - detected:.3f} s"
    )


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    tries = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    keep = os.environ.get("CHANGES_STORE")
    with tempfile.TemporaryDirectory(prefix="rtscope-scale-") as work, pg.cluster() as cluster:
        sqlite = Path(keep) if keep else Path(work) / "results.sqlite"
        if not sqlite.exists():
            started = time.monotonic()
            evaluation.build_store(sqlite, runs)
            print(f"SQLite store of {runs:,} runs built in {time.monotonic() - started:.0f} s", flush=True)
        url = cluster.url(cluster.new_database())
        started = time.monotonic()
        copy_store(sqlite, url)
        print(f"copied into PostgreSQL in {time.monotonic() - started:.0f} s", flush=True)
        print(f"load average before timing: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", flush=True)
        with cluster.admin() as admin:
            data = admin.execute("SHOW data_directory").fetchone()
        assert data is not None
        postmaster = int((Path(data[0]) / "postmaster.pid").read_text().split()[0])
        sources = {"": REPO / "src"}
        if os.environ.get("BEFORE"):
            sources["before: "] = Path(os.environ["BEFORE"]) / "src"
        for backend, location in (("sqlite", str(sqlite)), ("postgresql", url)):
            for what, argv in COMMANDS:
                for which, source in sources.items():
                    env = {**os.environ, "RTSCOPE_DB": location, "PYTHONPATH": str(source), "NO_COLOR": "1"}
                    # As a user runs it: Python keeps each module compiled (__pycache__) after the first run.
                    env.pop("PYTHONDONTWRITEBYTECODE", None)
                    command = [sys.executable, "-m", "rtscope", *argv]
                    evaluation.best(1, command, env)
                    server = scale_ingest.server_cpu(postmaster)
                    wall, cpu, _ = evaluation.best(tries, command, env)
                    server = (scale_ingest.server_cpu(postmaster) - server) / tries
                    serving = f" + {server:.2f} s the server's" if backend == "postgresql" else ""
                    print(
                        f"{backend:<10} {which}rtscope {what:<42} {wall:5.2f} s wall, {cpu:5.2f} s CPU{serving}",
                        flush=True,
                    )
            print(f"{backend:<10} in one process: {in_process(location)}", flush=True)
        print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
