"""Are QEMU guests' figures the same every time, and how long do they take? (A benchmark: it prints and
exits 1 when reruns differ.) Runs a campaign spec — by default examples/campaigns/qemu-rt-vs-stock.toml,
stock against PREEMPT_RT — TIMES times into a scratch database, prints each campaign's wall time, then
cell by cell whether every rerun's metrics (the whole metrics section of the result, histograms and
series included) are byte for byte those of the first, and last the first campaign's comparison.

Usage: .venv/bin/python evaluation/qemu_determinism.py [TIMES [SPEC]]   (default 3)
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))
from rtscope.store.database import Store

SPEC = REPO / "examples" / "campaigns" / "qemu-rt-vs-stock.toml"


def main() -> int:
    times = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    spec = Path(sys.argv[2]) if len(sys.argv) > 2 else SPEC
    with tempfile.TemporaryDirectory(prefix="rtscope-determinism-") as scratch:
        db = Path(scratch) / "results.sqlite"
        env = {**os.environ, "RTSCOPE_DB": str(db), "NO_COLOR": "1"}
        campaigns = []
        for number in range(1, times + 1):
            started = time.monotonic()
            said = subprocess.run(
                [str(REPO / "rtscope"), "campaign", str(spec)], env=env, capture_output=True, text=True, check=False
            ).stdout
            print(
                f"campaign {number}: {time.monotonic() - started:.1f} s (boot, measure, power-off of every cell; "
                f"the targets in parallel)"
            )
            found = re.search(r"^campaign \S+ \(([0-9a-f]{16})\)", said, re.MULTILINE)
            if not found:
                print(f"campaign {number} stored nothing:\n{said}")
                return 1
            campaigns.append(found[1])
        store = Store.open(db)
        cells = [
            {
                run.doc["run"]["label"]: json.dumps(run.doc["metrics"], sort_keys=True)
                for run in store.campaign_runs(campaign)
            }
            for campaign in campaigns
        ]
        differing = 0
        for cell, first in sorted(cells[0].items()):
            same = all(rerun.get(cell) == first for rerun in cells[1:])
            differing += not same
            print(f"{'identical' if same else 'DIFFERENT'}  {cell}")
        print(
            subprocess.run(
                [str(REPO / "rtscope"), "compare", f"campaign:{campaigns[0]}"],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            ).stdout
        )
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
