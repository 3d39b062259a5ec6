"""Measuring several targets at once: one worker process per target, each measuring its share of a
campaign into the one store (SQLite takes their writes in turn), so that a slow or dead board holds up
no other. Their messages reach stderr line by line, each under its target's name; Ctrl-C (or SIGTERM)
reaches every worker through rtscope, once, and each stores what it measured and gives back what it
holds; a worker dies with rtscope, and the transport's lifelines then stop what it ran on its board."""

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from rtscope.targets import TargetOptions, boards
from rtscope.targets.transport import dying_with_rtscope, sigterm_interrupts

Run = TypeVar("Run")


@dataclass(frozen=True)
class Slot:
    """One worker's place in a campaign: the K-th (``index``) of the N boards (``count``) of its target, which
    takes every N-th of the target's runs (labgrid-tag:…:count=N names N boards; any other target one)."""

    target: str
    index: int = 0
    count: int = 1

    @property
    def name(self) -> str:
        """What the worker's messages go under."""
        return f"{self.target} [{self.index + 1}/{self.count}]" if self.count > 1 else self.target

    def take(self, runs: Sequence[Run]) -> set[Run]:
        """This slot's share of ``runs`` (every run of its target, in order): every count-th from index."""
        return set(runs[self.index :: self.count])


def slots(targets: Sequence[str]) -> list[Slot]:
    """Every worker a campaign on ``targets`` starts: one per board."""
    return [Slot(target, index, count) for target in targets for count in [boards(target)] for index in range(count)]


def measure_slots(
    spec: Path, campaign_id: str, targets: Sequence[str], probe: Path, db: str | Path, options: TargetOptions
) -> dict[str, int]:
    """Measure campaign ``campaign_id`` of ``spec`` on every board of ``targets`` at once, each slot by a
    worker (``rtscope campaign SPEC --worker ID --slot K/N``) into the store ``db``; each one's exit status,
    by its slot's name. The workers get the probe and the target options on their command lines, the store
    in their environment: its URL may hold a password, which every user could read on a command line."""
    environment = {**os.environ, "RTSCOPE_DB": str(db)}
    argvs = {
        slot.name: [
            sys.executable,
            "-m",
            "rtscope",
            "--probe",
            str(probe),
            *options.argv(),
            "--target",
            slot.target,
            "campaign",
            str(spec),
            "--worker",
            campaign_id,
            "--slot",
            f"{slot.index}/{slot.count}",
        ]
        for slot in slots(targets)
    }
    return run_workers(argvs, environment)


def run_workers(
    argvs: dict[str, list[str]], environment: dict[str, str] | None = None, stop: signal.Signals = signal.SIGINT
) -> dict[str, int]:
    """Run every worker's argv at once (by the name its messages go under), in ``environment`` (default:
    rtscope's); each one's exit status. SIGTERM stops them as Ctrl-C does, so that they give back what
    they hold (a labgrid place): each worker is sent ``stop`` (a monitor's take SIGTERM, which they pass on
    to the probe they run: the probe, in the worker's process group, never sees the SIGINT sent to the
    worker alone)."""
    sigterm_interrupts()
    workers = {
        target: subprocess.Popen(
            dying_with_rtscope(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            # Out of the terminal's reach: each gets one SIGINT, rtscope's, not a second one amid giving back
            # what it holds.
            start_new_session=True,
            env=environment,
        )
        for target, argv in argvs.items()
    }
    lock = threading.Lock()
    relays = [
        threading.Thread(target=_relay, args=(target, worker, lock), daemon=True) for target, worker in workers.items()
    ]
    for relay in relays:
        relay.start()
    try:
        for worker in workers.values():
            worker.wait()
    except KeyboardInterrupt:
        for worker in workers.values():
            worker.send_signal(stop)
        for worker in workers.values():
            worker.wait()
    for relay in relays:
        relay.join()
    return {target: worker.returncode for target, worker in workers.items()}


def _relay(target: str, worker: subprocess.Popen[bytes], lock: threading.Lock) -> None:
    """Copy the worker's stderr, "rtscope: X" as "rtscope: TARGET: X", whole lines at a time."""
    assert worker.stderr is not None
    for raw in worker.stderr:
        line = raw.decode(errors="replace").rstrip("\r\n").rsplit("\r", 1)[-1]
        text = f"rtscope: {target}: {line.removeprefix('rtscope: ')}" if line.strip() else ""
        if text:
            with lock:
                print(text, file=sys.stderr, flush=True)
