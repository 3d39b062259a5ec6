"""What a board over its serial line costs (a benchmark: it prints, asserts nothing). QEMU's mps2-an385 at
-icount shift=5 stands in for the board, halted behind its gdbstub with its UART on a TCP socket; the same
`rtscope run micro --duration 0.1 --no-store` is timed TRIES times through
gdb://…:reset=system_reset:serial=tcp:… and on qemu:mps2-an385:freertos:shift=5 (semihosting, a QEMU
booted per request), alternating; then one run's parts through the gdb target (the loads, the list, the
run) and its bytes on the line against the result's.

Usage: .venv/bin/python evaluation/serial_link.py [TRIES]   (default 3)
"""

import contextlib
import io
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "tests"))
from rtscope.model.request import RunRequest
from rtscope.targets.mcu.gdb_board import GdbBoardTarget
from support.emulated_board import EmulatedBoard
from support.loopback import free_port

RUN = ["run", "micro", "--duration", "0.1", "--no-store"]


def timed(target: str, into: Path) -> float:
    started = time.monotonic()
    subprocess.run(
        [str(REPO / "rtscope"), "--target", target, *RUN, "--json", str(into)], check=True, capture_output=True
    )
    return time.monotonic() - started


def main() -> None:
    tries = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    gdb_port = free_port()
    scratch = tempfile.TemporaryDirectory()
    board = EmulatedBoard(Path(scratch.name), "-S", "-gdb", f"tcp:127.0.0.1:{gdb_port}")
    linked = f"gdb://127.0.0.1:{gdb_port}:reset=system_reset:serial=tcp:127.0.0.1:{board.serial_port}"
    semihosting = "qemu:mps2-an385:freertos:shift=5"
    try:
        walls: dict[str, list[float]] = {linked: [], semihosting: []}
        with tempfile.TemporaryDirectory() as directory:
            for _ in range(tries):
                for target, times in walls.items():
                    times.append(timed(target, Path(directory) / "result.json"))
        for target, times in walls.items():
            print(f"{target}: median {statistics.median(times):.1f} s of {', '.join(f'{t:.1f}' for t in times)}")

        target = GdbBoardTarget(linked)
        print(f"image: {target.image}")  # built before the timing
        load = target.before
        loads: list[float] = []

        def timed_load() -> None:
            started = time.monotonic()
            load()
            loads.append(time.monotonic() - started)

        target.before = timed_load  # type: ignore[method-assign]
        started = time.monotonic()
        benches = len(target.catalogue.benches)
        listed = time.monotonic() - started
        assert target.last is not None
        print(f"list: {listed:.2f} s (its load {loads[-1]:.2f} s), {target.last.frames} frames, {benches} benches")
        started = time.monotonic()
        with contextlib.redirect_stderr(io.StringIO()):
            target.run(RunRequest(("micro",), 0.1, "fifo", 80))
        ran = time.monotonic() - started
        outcome = target.last
        assert outcome is not None and outcome.document is not None
        payload = len(outcome.document) + len(outcome.console.encode())
        print(
            f"run: {ran:.2f} s (its load {loads[-1]:.2f} s), {outcome.frames} frames; {outcome.wire_bytes} bytes from "
            f"the board for a result of {len(outcome.document)} and console text of {len(outcome.console.encode())}: "
            f"{outcome.wire_bytes - payload} bytes of framing ({100 * (outcome.wire_bytes - payload) / payload:.1f} %)"
        )
        print(json.dumps({"asked_again": outcome.asked_again}))
    finally:
        board.close()
        scratch.cleanup()


if __name__ == "__main__":
    main()
