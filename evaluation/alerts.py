"""What a monitor's alerts and its KCIDB export cost on one board's history (a benchmark: it prints figures,
asserts nothing).

The board's history is tests/test_alerts.py's: WINDOWS windows of lat.wakeup five minutes apart, 20 µs
with 5 % noise, 1.5 times that and another kernel from half-way on, in a SQLite store.

1. after_window over it (p99 and max, a hook that is `true`): the first call, which finds and sends the
   step, and again with nothing left to send (what every later window costs), best of 3.
2. `rtscope export --monitor lab --format kcidb` of it, as a user runs it (a process, start-up included):
   seconds, tests, issues, bytes.

Usage: .venv/bin/python evaluation/alerts.py [WINDOWS]   (default 8640: 30 days, what retention keeps whole)
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "src"))
from rtscope.execution.alerts import AlertConfig, after_window
from rtscope.store.database import Store
from test_alerts import MONITOR, history


def main() -> None:
    windows = int(sys.argv[1]) if len(sys.argv) > 1 else 8640
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "board.sqlite"
        with Store.open(path, create=True) as store:
            history(store, windows, step_at=windows // 2)
            config = AlertConfig(hook=("true",), metrics=("lat.wakeup",))
            started = time.perf_counter()
            sent = after_window(store, MONITOR, "rpi4", config)
            first = time.perf_counter() - started
            again = []
            for _ in range(3):
                started = time.perf_counter()
                assert not after_window(store, MONITOR, "rpi4", config)
                again.append(time.perf_counter() - started)
        print(
            f"after_window over {windows} windows: {first:.2f} s finding and sending "
            f"{', '.join(f'{a.stat} ({a.channel})' for a in sent)}; {min(again):.2f} s with nothing to send (best of 3)"
        )
        output = Path(directory) / "board.kcidb.json"
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "rtscope", "export", "--monitor", "lab", "--format", "kcidb", "-o", str(output)],
            env={**os.environ, "RTSCOPE_DB": str(path), "PYTHONPATH": str(REPO / "src")},
            check=True,
        )
        elapsed = time.perf_counter() - started
        data = json.loads(output.read_text())
        print(
            f"export --monitor --format kcidb of {windows} windows: {elapsed:.2f} s, {len(data['tests'])} tests, "
            f"{len(data['issues'])} issues, {output.stat().st_size / 1e6:.1f} MB"
        )
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
