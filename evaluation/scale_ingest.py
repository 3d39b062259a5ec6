"""Ingest at 1,000 boards: monitored windows stored into PostgreSQL by many writers at once, against the rate
a lab of BOARDS boards each storing a window every 5 minutes needs (a benchmark: it prints figures, asserts
nothing).

Starts the tests' throwaway PostgreSQL cluster (tests/support/postgres.py) with fsync and synchronous
commit on, as a lab's server keeps them. WRITERS processes (the monitors) each own BOARDS / WRITERS boards
and store their windows in turn, as fast as they can for SECONDS, as `rtscope monitor` does: the probe's
document tagged with its ``monitor`` object (result.from_doc: validated, its text made) and Store.add (one
transaction: the campaign row, the run with its compressed document, its metrics rows). Each window is a
real lat.wakeup result of 5 minutes (about 300,000 wake-ups, its histogram and per-second series as the
probe writes them): WINDOW, or one measured first with `rtscope run lat.wakeup --duration 300` (5 minutes);
the copies differ in ids, times and their histograms' counts.

Prints the sustained windows/s and its ratio to the need (BOARDS / 300 s; goal >= 10x), the percentiles of
one window's tag and add, what one add costs in one process, part by part, and checks that every window
is stored once.

Usage: .venv/bin/python evaluation/scale_ingest.py [--window FILE] [--seconds 60] [--writers 8] [--boards 1000]
                                                 [--no-fsync] [--store-only]
--store-only leaves the monitor's tag out: each window's text is made from a template (the text from_doc
makes, field for field), so that the writers' CPU is the store's own.
"""

import argparse
import copy
import json
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "src"), str(REPO / "tests")]
from rtscope.model import result
from rtscope.store import encoding
from rtscope.store.database import Store, _metric_row
from support import postgres as pg

WINDOW_S = 300  # a board stores a window every 5 minutes
MONITOR_ID = "5ca1e00000000001"
VARIANTS = 16  # documents per writer, made before the clock starts: the probe's work, not the store's


def measured_window(work: Path) -> dict[str, Any]:
    path = work / "window.json"
    print(f"measuring one window: rtscope run lat.wakeup --duration {WINDOW_S} (5 minutes)", flush=True)
    argv = [str(REPO / "rtscope"), "run", "lat.wakeup", "--duration", str(WINDOW_S), "--no-store", "--json", str(path)]
    subprocess.run(argv, check=True, capture_output=True)
    doc: dict[str, Any] = json.loads(path.read_text())
    return doc


def variants(window: dict[str, Any], seed: int) -> list[dict[str, Any]]:
    """Copies of ``window`` whose histogram counts differ by up to ±10 % (so that no two compress alike)."""
    rng = random.Random(seed)
    made = []
    for _ in range(VARIANTS):
        doc = copy.deepcopy(window)
        for metric in doc["metrics"]:
            for bucket in (metric.get("histogram") or {}).get("buckets", []):
                bucket[2] = max(1, round(bucket[2] * rng.uniform(0.9, 1.1)))
        made.append(doc)
    return made


def window_doc(template: dict[str, Any], board: int, window: int) -> dict[str, Any]:
    """``template`` as window ``window`` of board ``board``: its own run id, times and monitor object."""
    start = 1_767_225_600 + window * WINDOW_S  # 2026-01-01T00:00:00Z on
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start))
    finished = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start + WINDOW_S))
    run = dict(template["run"], id=f"{board:06x}{window:010x}", started=started, finished=finished)
    run["label"] = f"scale: board{board:04d} idle #{window}"
    monitor = {"name": "scale", "id": MONITOR_ID, "board": f"board{board:04d}", "step": "idle", "window": window,
               "windows": 1}  # fmt: skip
    return dict(template, run=run, monitor=monitor)


# --store-only: where a window's own fields go in the text made once per variant.
MARKS = {key: f"@monitor.{key}@" for key in ("name", "id", "board", "step", "window", "windows")}
RUN_MARKS = {key: f"@run.{key}@" for key in ("id", "started", "finished", "label")}


def marked_text(template: dict[str, Any]) -> str:
    """``template``'s text as result.from_doc makes it, with MARKS and RUN_MARKS for each window's fields."""
    return result.text_of(dict(template, run=template["run"] | RUN_MARKS, monitor=MARKS))


def filled(marked: str, doc: dict[str, Any]) -> str:
    """``marked`` with ``doc``'s own run and monitor fields in place of the marks: the text from_doc would
    make, in microseconds rather than its validation's and its text's milliseconds."""
    for part, marks in (("run", RUN_MARKS), ("monitor", MARKS)):
        for key, mark in marks.items():
            marked = marked.replace(json.dumps(mark), json.dumps(doc[part][key], ensure_ascii=False), 1)
    return marked


def writer(
    url: str,
    window: dict[str, Any],
    number: int,
    boards: list[int],
    seconds: float,
    store_only: bool,
    go: Any,
    out: Any,
) -> None:
    templates = variants(window, number)
    marked = [marked_text(doc) for doc in templates]
    with Store.open(url) as store:
        go.wait()
        cpu = time.process_time()
        until = time.monotonic() + seconds
        tags, adds, windows = [], [], 0
        next_window = dict.fromkeys(boards, 1)
        while time.monotonic() < until:
            board = boards[windows % len(boards)]
            doc = window_doc(templates[windows % VARIANTS], board, next_window[board])
            started = time.perf_counter()
            if store_only:
                run = result.Result(doc, filled(marked[windows % VARIANTS], doc))
            else:
                run = result.from_doc(doc, "the window's result")  # what the monitor does to the probe's document
            tagged = time.perf_counter()
            store.add(run)
            tags.append(tagged - started)
            adds.append(time.perf_counter() - tagged)
            next_window[board] += 1
            windows += 1
        cpu = time.process_time() - cpu
    out.put((windows, tags, adds, cpu))


def server_cpu(postmaster: int) -> float:
    """CPU seconds the PostgreSQL server has used: the postmaster's own and its reaped children's (a backend's
    CPU is added there when it exits), and its children still running (the checkpointer, WAL writer …)."""
    tick = os.sysconf("SC_CLK_TCK")

    def fields(pid: int) -> list[str]:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()

    own = fields(postmaster)
    total = sum(int(own[n]) for n in (11, 12, 13, 14))  # utime, stime, cutime, cstime
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and entry.name != str(postmaster):
            try:
                child = fields(int(entry.name))
            except OSError:  # gone meanwhile
                continue
            if child[1] == str(postmaster):
                total += int(child[11]) + int(child[12])
    return total / tick


def percentiles(values: list[float]) -> str:
    ordered = sorted(values)
    at = {name: ordered[min(len(ordered) - 1, int(q * len(ordered)))] for name, q in (("p50", 0.5), ("p99", 0.99))}
    return f"p50 {at['p50'] * 1e3:.1f} ms, p99 {at['p99'] * 1e3:.1f} ms, max {ordered[-1] * 1e3:.1f} ms"


def parts(url: str, window: dict[str, Any], count: int) -> None:
    """One add's cost, part by part, in this process alone (CPU time, no other writer)."""
    docs = [window_doc(doc, 9999, 10**6 + n) for n, doc in enumerate(variants(window, 99) * (count // VARIANTS))]
    timings: dict[str, float] = {}

    def timed(name: str, items: list[Any], action: Any) -> list[Any]:
        started = time.process_time()
        made = [action(item) for item in items]
        timings[name] = (time.process_time() - started) / len(items)
        return made

    runs = timed("tag: result.from_doc (schema validation + JSON text)", docs, lambda doc: result.from_doc(doc, "w"))
    timed("  of which the JSON text (result.text_of)", docs, lambda doc: result.text_of(doc))
    timed("in add: the text packed", runs, lambda run: encoding.pack(run.text))
    timed("in add: the metrics rows", docs, lambda doc: [_metric_row("x", m) for m in doc["metrics"]])
    with Store.open(url) as store:
        started, cpu = time.perf_counter(), time.process_time()
        for run in runs:
            store.add(run)
        timings["Store.add whole, this process (3 statements, a commit)"] = (time.process_time() - cpu) / len(runs)
        wall = (time.perf_counter() - started) / len(runs)
    print(f"one window's CPU, one writer alone, mean of {len(docs)} (Store.add's wall time {wall * 1e3:.1f} ms):")
    for name, seconds in timings.items():
        print(f"  {name:<52} {seconds * 1e3:6.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--window", type=Path, help="a lat.wakeup result of one window (default: measure one)")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--boards", type=int, default=1000)
    parser.add_argument("--no-fsync", action="store_true", help="the tests' cluster: commits not flushed to disk")
    parser.add_argument(
        "--store-only",
        action="store_true",
        help="the store's part alone: each window's text made from a template, not by result.from_doc",
    )
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory(prefix="rtscope-scale-") as directory,
        pg.cluster(durable=not args.no_fsync) as cluster,
    ):
        window = json.loads(args.window.read_text()) if args.window else measured_window(Path(directory))
        window.pop("monitor", None)
        text = result.text_of(window)
        lat = next(metric for metric in window["metrics"] if metric["id"] == "lat.wakeup")
        print(
            f"one window: lat.wakeup {lat['stats']['count']:,} samples, {len(lat['histogram']['buckets'])} histogram"
            f" buckets, {len(window['metrics'])} metrics; document {len(text):,} B, stored (packed) "
            f"{len(encoding.pack(text)):,} B"
        )
        with cluster.admin() as admin:
            settings = [admin.execute(f"SHOW {name}").fetchone() for name in ("fsync", "synchronous_commit")]
            data = admin.execute("SHOW data_directory").fetchone()
        postmaster = int((Path(data[0]) / "postmaster.pid").read_text().split()[0])
        url = cluster.url(cluster.new_database())
        with Store.open(url, create=True):
            pass
        need = args.boards / WINDOW_S
        print(
            f"{args.boards} boards, a window each every {WINDOW_S} s: need {need:.2f} windows/s; {args.writers} writers"
            f" for {args.seconds:.0f} s (fsync {settings[0][0]}, synchronous_commit {settings[1][0]}; load average"
            f" before {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)",
            flush=True,
        )
        go, out = multiprocessing.Event(), multiprocessing.Queue()
        processes = [
            multiprocessing.Process(
                target=writer,
                args=(
                    url,
                    window,
                    n,
                    list(range(n, args.boards, args.writers)),
                    args.seconds,
                    args.store_only,
                    go,
                    out,
                ),
            )
            for n in range(args.writers)
        ]
        for process in processes:
            process.start()
        time.sleep(5)  # every writer connected and its documents made
        server_before = server_cpu(postmaster)
        started = time.monotonic()
        go.set()
        reports = [out.get() for _ in processes]
        wall = time.monotonic() - started
        for process in processes:
            process.join()
        time.sleep(1)  # the backends gone, their CPU counted in the postmaster's children
        server = server_cpu(postmaster) - server_before
        windows = sum(report[0] for report in reports)
        tags = [t for report in reports for t in report[1]]
        adds = [t for report in reports for t in report[2]]
        rate = windows / wall
        print(
            f"stored {windows:,} windows in {wall:.1f} s: {rate:.1f} windows/s, {rate / need:.1f}x the need "
            f"(goal 10x); load average after {os.getloadavg()[0]:.1f}"
        )
        made = "text (template)   " if args.store_only else "tag (result.from_doc)"
        print(f"  one window's {made}: {percentiles(tags)}")
        print(f"  one window's Store.add:              {percentiles(adds)}")
        writers_cpu = sum(report[3] for report in reports)
        per_window = (writers_cpu + server) / windows
        print(
            f"  CPU: writers {writers_cpu:.1f} s, server {server:.1f} s; {per_window * 1e3:.1f} ms a window in all "
            f"({writers_cpu / windows * 1e3:.1f} writer, {server / windows * 1e3:.1f} server): "
            f"{os.cpu_count()} CPUs to itself would store {os.cpu_count() / per_window:.0f} windows/s, "
            f"{os.cpu_count() / per_window / need:.0f}x the need"
        )
        with Store.open(url) as store:
            cells = store.campaign_cells(MONITOR_ID)
            stored = store._db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]  # the bench's look past the interface
            metrics = store._db.execute("SELECT COUNT(*) FROM metrics").fetchone()[0]
            size = store._db.execute(
                "SELECT pg_total_relation_size('runs') + pg_total_relation_size('metrics')"
                " + pg_total_relation_size('campaigns')"
            ).fetchone()[0]
        print(
            f"  in the store: {stored:,} runs, {len(cells):,} (board, window) pairs, {metrics:,} metrics rows; "
            f"{size / stored:,.0f} B a window (tables, TOAST and indexes)"
        )
        parts(url, window, 4 * VARIANTS)


if __name__ == "__main__":
    main()
