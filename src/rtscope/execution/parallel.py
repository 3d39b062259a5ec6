"""Measuring several targets at once: one worker process per target, each measuring its share of a
campaign into the one store (SQLite takes their writes in turn), so that a slow or dead board holds up
no other. Their messages reach stderr line by line, each under its target's name; Ctrl-C (or SIGTERM)
reaches every worker through rtscope, once, and each stores what it measured and gives back what it
holds; a worker dies with rtscope, and the transport's lifelines then stop what it ran on its board."""

import signal
import subprocess
import sys
import threading

from rtscope.targets.transport import dying_with_rtscope, sigterm_interrupts


def run_workers(argvs: dict[str, list[str]]) -> dict[str, int]:
    """Run every worker's argv at once (by the name its messages go under); each one's exit status.
    SIGTERM stops them as Ctrl-C does, so that they give back what they hold (a labgrid place)."""
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
            worker.send_signal(signal.SIGINT)
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
