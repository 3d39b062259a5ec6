"""What a board over SSH costs (a benchmark: it prints, asserts nothing). Starts the tests' sshd on 127.0.0.1
(tests/support/sshd.py: throwaway keys, run as root), then times the same `rtscope run` locally and on
ssh://root@127.0.0.1 — without loads and under `--load cpu` — TRIES times each, alternating, and prints
the medians and the difference (goal: at most 1.5 s more remotely). The first remote run, which copies
the probe, is timed apart. Last, a campaign on two targets (local and the ssh one: 2 cells × 3 repetitions
of 1 s each) against the sum of the same campaign on each target alone. Both logins are timed: root (real-time privilege) and the tests' user with a
plain /bin/sh, because each SSH command starts the login's shell, and on this machine root's bash runs
~/.bashrc (pyenv init: about a hundred processes, 0.1 s, more under load) for every one of them.

Usage: .venv/bin/python evaluation/remote.py [TRIES]   (default 5)
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
from support import sshd

RUN = ["run", "clock.read", "--duration", "1", "--no-store"]


def timed(env: dict[str, str], *args: str) -> float:
    started = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "rtscope", *args],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.monotonic() - started


def main() -> None:
    tries = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    if why := sshd.unavailable():
        sys.exit(f"evaluation/remote.py: {why}")
    with tempfile.TemporaryDirectory() as work, sshd.server(Path(work) / "sshd") as server:
        env = {**os.environ, **server.env(), "PYTHONPATH": str(REPO / "src"), "RTSCOPE_DB": f"{work}/r.sqlite"}
        subprocess.run(["sh", "-c", 'rm -f "$HOME"/.cache/rtscope/rtscope-probe-*'], check=True)
        first = timed(env, "--target", server.spec(), *RUN)
        print(f"first remote run (copies the probe): {first:.2f} s")
        for label, extra in (("no load", []), ("--load cpu", ["--load", "cpu", "--settle", "1"])):
            for user in ("root", sshd.USER):
                local, remote = [], []
                for _ in range(tries):
                    local.append(timed(env, *RUN, *extra))
                    remote.append(timed(env, "--target", server.spec(user), *RUN, *extra))
                lm, rm = statistics.median(local), statistics.median(remote)
                print(
                    f"{label:11s} {user:13s} local {lm:.2f} s  ssh {rm:.2f} s  difference {rm - lm:+.2f} s "
                    f"(medians of {tries}; ssh min {min(remote):.2f} s, max {max(remote):.2f} s)"
                )
        alone = []
        for number, targets in enumerate((["local"], [server.spec()], ["local", server.spec()])):
            spec = Path(work) / f"campaign-{number}.toml"
            spec.write_text(
                f'name = "bench-{number}"\nbenches = ["clock.read"]\nduration = "1"\n'
                f'repetitions = 3\nloads = ["idle", "cpu"]\nsettle = "1"\n'
                f"targets = {json.dumps(targets)}\n"
            )
            took = timed(env, "campaign", str(spec))
            if len(targets) == 1:
                alone.append(took)
                print(f"campaign on {targets[0]} alone: {took:.2f} s")
            else:
                print(
                    f"campaign on both at once: {took:.2f} s = {took / sum(alone):.2f} of the sum of its parts "
                    f"({sum(alone):.2f} s)"
                )


if __name__ == "__main__":
    main()
