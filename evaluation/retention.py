"""Storage per board-year under retention (a benchmark: it prints figures as it goes, asserts nothing).

One board, 10 lat.wakeup-like metrics (all CPUs and nine single ones), a five-minute window every five
minutes: windows as the probe writes them (tests/support/windows.py: 1,000 wake-ups a second per metric,
300,000 per window, in the probe's log-linear histogram, the worst of every SERIES_S seconds as its series
(default 10, a monitor's series_window) and its threshold count; a log-normal body, σ 0.25 around 12 µs, and
a 0.1 % Pareto tail), in the canonical text a monitor stores (result.text_of), stored in a SQLite store as
the monitor stores them (packed: rtscope.store.encoding), then compacted as the monitor compacts them
(rtscope.execution.retention.compact, every simulated hour).

DAYS days of windows are simulated in full (default 7; 365 takes hours on a 2-vCPU machine): stored, then
compacted 31 days later (hourly documents) and 366 days later (daily ones). Each kind's bytes on disk (the
SQLite file after VACUUM, less an empty store's, per document: the packed document, its metrics rows and
index entries) are measured there, and a board-year is those figures times how many documents of each kind
a year leaves: under the default policy 30 days of windows (8,640), 12 days of hourly documents (288) and
323 daily ones; 105,120 windows without retention. Then where a document's bytes go (histograms, series,
the rest) and what other policies would take.

Usage: .venv/bin/python evaluation/retention.py [DAYS [SERIES_S]]
"""

import json
import sys
import tempfile
import time
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "src"))
from rtscope.execution import retention
from rtscope.execution.retention import RetentionPolicy
from rtscope.model import result
from rtscope.store import encoding
from rtscope.store.database import Store
from support import windows

METRICS = 10
WINDOW = timedelta(minutes=5)
START = datetime(2026, 1, 1, tzinfo=UTC)
MONITOR = "a000000000000001"
MB = 1e6


def disk_bytes(path: Path) -> int:
    """The store's size once its free pages are given back and its write-ahead log folded in."""
    with Store.open(path) as store:
        store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        store._db.execute("VACUUM")
    return path.stat().st_size


def documents(store: Store) -> list[dict]:
    return [run.doc for run in store.campaign_runs(MONITOR)]


def stored_parts(doc: dict) -> dict[str, int]:
    """Where a document's bytes as the store keeps them go: its histograms, its series, the rest."""
    whole = len(encoding.pack(result.text_of(doc)))
    parts = {}
    for name in ("histogram", "series"):
        without = json.loads(json.dumps(doc))
        for metric in without["metrics"]:
            if name == "histogram":
                metric["histogram"]["buckets"] = []
            else:
                metric["series"] = None
        parts[name] = whole - len(encoding.pack(result.text_of(without)))
    return {"whole": whole, **parts, "rest": whole - parts["histogram"] - parts["series"]}


def main() -> None:
    days = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    series_s = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    rng = np.random.default_rng(2026)
    shape = windows.Shape()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "board.sqlite"
        Store.open(path, create=True).close()
        empty = disk_bytes(path)
        count = days * 24 * 12
        began = time.monotonic()
        with Store.open(path) as store:
            for n in range(count):
                at = START + n * WINDOW
                doc = windows.drawn_window_doc(
                    rng, shape, f"{n + 1:016x}", "rpi4", n + 1, at, metrics=METRICS, series_s=series_s
                )
                store.add(result.Result(doc, result.text_of(doc)))  # the text the monitor stores
                if at.minute == 55:  # the monitor compacts every hour: nothing is old enough yet
                    retention.compact(store, MONITOR, RetentionPolicy(), at + WINDOW)
            sample = store.documents([f"{1:016x}"])[0]
        print(f"{count} windows of {METRICS} metrics stored in {time.monotonic() - began:.0f} s")
        raw = (disk_bytes(path) - empty) / count
        with Store.open(path) as store:
            began = time.monotonic()
            summary = retention.compact(store, MONITOR, RetentionPolicy(), START + timedelta(days=days + 31))
            print(f"compact 31 days on: {summary.text()} in {time.monotonic() - began:.0f} s")
            hourly_doc = store.documents([store.monitor_windows(MONITOR)[0].id])[0]
            hours = len(store.monitor_windows(MONITOR))
        hourly = (disk_bytes(path) - empty) / hours
        with Store.open(path) as store:
            summary = retention.compact(store, MONITOR, RetentionPolicy(), START + timedelta(days=days + 366))
            print(f"compact 366 days on: {summary.text()}")
            merged_days = len(store.monitor_windows(MONITOR))
            worst = max(doc["metrics"][0]["stats"]["max"] for doc in documents(store))
        daily = (disk_bytes(path) - empty) / merged_days
        print(f"the merged days' worst lat.wakeup: {worst:.0f} ns")

    print(f"\nbytes on disk per document: window {raw:,.0f}, hourly {hourly:,.0f}, daily {daily:,.0f}")
    year_windows = 365 * 24 * 12
    print(f"a board-year without retention: {year_windows:,} windows = {year_windows * raw / MB:,.0f} MB")
    for full, hourly_days in ((30, 42), (30, 60), (30, 365), (7, 30), (7, 7)):
        policy = RetentionPolicy(full, hourly_days)
        total = full * 288 * raw + (hourly_days - full) * 24 * hourly + (365 - hourly_days) * daily
        default = " (the default)" if policy == RetentionPolicy() else ""
        print(f"a board-year keeping windows {full} d, hourly {hourly_days} d{default}: {total / MB:,.0f} MB")
    print(f"each further year, per day merged: {365 * daily / MB:,.1f} MB")
    for name, (doc, text) in (("window", (sample.doc, sample.text)), ("hourly", (hourly_doc.doc, hourly_doc.text))):
        parts = stored_parts(doc)
        print(
            f"a {name} document, {len(text):,} bytes of JSON ({len(zlib.compress(text.encode(), 6)):,} under zlib),"
            f" {parts['whole']:,} as stored: histograms {parts['histogram']:,}, series {parts['series']:,}, the"
            f" rest {parts['rest']:,} ({sum(len(m['histogram']['buckets']) for m in doc['metrics'])} buckets)"
        )
    print(f"\n.venv/bin/python evaluation/retention.py {days} {series_s}")


if __name__ == "__main__":
    main()
