"""How long the long-term picture takes over a monitor's year (a benchmark: it prints, asserts nothing).

Builds a results database of WINDOWS monitored windows (default 10,000) of one board, alternating the
schedule steps idle and cpu, the kernel release changing twice; each window is the latency golden run
(tests/golden/result-v3-latency.json: lat.wakeup, its two per-CPU metrics and lat.irq, 250 to 290
histogram buckets each, as a real run's) made a monitor's window, its worst samples varied. Then times, as
the user runs them (a process: start-up included), `rtscope trend lat.wakeup -o page.html` (one metric's
picture) and `rtscope report --monitor lab -o page.html` (every metric's), TRIES times each, printing the
best and the page's size.

Usage: .venv/bin/python evaluation/longterm.py [WINDOWS [TRIES [STORE]]]   (default 10000 windows, 3 tries;
STORE: a SQLite file to build, or to time again when it exists, instead of a temporary one)
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
sys.path.insert(0, str(REPO / "src"))
from rtscope.model import result
from rtscope.store.database import Store

GOLDEN = REPO / "tests" / "golden" / "result-v3-latency.json"
KERNELS = ("6.12.0-rt", "6.12.5-rt", "6.18.0-rt")
WINDOW = timedelta(minutes=5)


def template() -> dict:
    """The golden latency run as a format-4 monitor's window, validated once."""
    doc = json.loads(GOLDEN.read_text())
    doc["version"] = 4
    for metric_doc in doc["metrics"]:
        metric_doc["labels"] = {}
    doc["monitor"] = {
        "name": "lab",
        "id": "a000000000000001",
        "board": "rpi4",
        "step": "idle",
        "window": 1,
        "windows": 1,
    }
    return result.from_doc(doc, "template").doc


def build_store(path: Path, windows: int) -> None:
    """WINDOWS windows five minutes apart; copies differ only in values the schema checks the type of."""
    base = template()
    start = datetime(2026, 1, 1)
    with Store.open(path, create=True) as store:
        for n in range(windows):
            doc = copy.deepcopy(base)
            started = (start + n * WINDOW).isoformat() + ".000Z"
            doc["run"].update(
                id=f"{n:016x}", started=started, finished=(start + (n + 1) * WINDOW).isoformat() + ".000Z"
            )
            doc["system"]["kernel_release"] = KERNELS[n * len(KERNELS) // windows]
            doc["monitor"].update(window=n + 1, step="idle" if n % 2 else "cpu")
            for metric_doc in doc["metrics"]:
                for figures in (metric_doc["stats"], metric_doc["adjusted"]):
                    figures["max"] *= 1 + (n * 7919 % 101) / 100
            store.add(result.Result(doc, json.dumps(doc)))


def best(tries: int, argv: list[str], env: dict[str, str], output: Path) -> tuple[float, int]:
    """The best wall time of ``argv`` over ``tries`` runs, and the size of the page it wrote."""
    times = []
    for _ in range(tries):
        started = time.monotonic()
        subprocess.run(argv, env=env, capture_output=True, check=True)
        times.append(time.monotonic() - started)
    return min(times), output.stat().st_size


def main() -> None:
    windows = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    tries = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    with tempfile.TemporaryDirectory() as work:
        db, page = Path(sys.argv[3] if len(sys.argv) > 3 else Path(work) / "results.sqlite"), Path(work) / "page.html"
        if not db.exists():
            started = time.monotonic()
            build_store(db, windows)
            print(
                f"store of {windows:,} windows built in {time.monotonic() - started:.1f} s ({db.stat().st_size / 1e6:.1f} MB)"
            )
        env = {**os.environ, "RTSCOPE_DB": str(db), "PYTHONPATH": str(REPO / "src"), "NO_COLOR": "1"}
        rtscope = [sys.executable, "-m", "rtscope"]
        for what, args in (
            ("rtscope trend lat.wakeup -o page.html", ["trend", "lat.wakeup", "-o", str(page)]),
            ("rtscope report --monitor lab -o page.html", ["report", "--monitor", "lab", "-o", str(page)]),
        ):
            seconds, size = best(tries, [*rtscope, *args], env, page)
            print(f"{what}: {seconds:.2f} s (best of {tries}; page {size / 1e3:,.0f} kB)")


if __name__ == "__main__":
    main()
