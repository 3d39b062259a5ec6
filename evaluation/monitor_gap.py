"""What a monitor does not measure: the gap between one window's end and the next one's start (one probe
start per window), and how much longer a window's run is than its measuring time (the probe's start-up,
calibration and warm-up) — a benchmark: it prints figures, asserts nothing.

It runs ``rtscope monitor`` on this machine for WINDOWS windows of SECONDS of lat.wakeup into a throwaway
store, then reads the windows' start and end times (the probe's, in its result) from the store.

Usage: .venv/bin/python evaluation/monitor_gap.py [WINDOWS [SECONDS]]   (default 12, 1)
"""

import itertools
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))
from rtscope.store.database import Store

SPEC = """\
name = "gap"
window = "{seconds}s"
windows = {windows}

[[board]]
name = "here"
target = "local"

[[step]]
name = "idle"
benches = ["lat.wakeup"]
"""


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def main(windows: int, seconds: float) -> None:
    with tempfile.TemporaryDirectory() as directory:
        spec, db = Path(directory) / "gap.toml", Path(directory) / "results.sqlite"
        spec.write_text(SPEC.format(seconds=seconds, windows=windows), encoding="utf-8")
        subprocess.run(
            [str(REPO / "rtscope"), "--db", str(db), "monitor", str(spec)],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        with Store.open(db) as store:
            runs = [run.doc["run"] for run in store.campaign_runs("gap")]
    gaps = [(_time(b["started"]) - _time(a["finished"])).total_seconds() for a, b in itertools.pairwise(runs)]
    lengths = [(_time(run["finished"]) - _time(run["started"])).total_seconds() - seconds for run in runs]
    print(f"{len(runs)} windows of {seconds:g} s of lat.wakeup on this machine")
    print(f"gap between windows: median {statistics.median(gaps) * 1e3:.0f} ms, max {max(gaps) * 1e3:.0f} ms")
    print(f"a window's run beyond its measuring time: median {statistics.median(lengths) * 1e3:.0f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 12, float(sys.argv[2]) if len(sys.argv) > 2 else 1.0)
