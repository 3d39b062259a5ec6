"""A microcontroller board behind a GDB server:
``gdb://HOST:PORT[:board=NAME][:rtos=NAME][:reset=COMMAND]:serial=DEVICE``.

What OpenOCD, pyOCD and J-Link offer for a real board, and QEMU's gdbstub (``-gdb tcp::PORT -S``) for an
emulated one. rtscope builds the probe's image for the board with ``LINK=uart`` (its request and result
on the UART, docs/boards.md), and before each request loads it through the server with Debian's
``gdb-multiarch`` in batch mode — ``target remote``, the server's reset (``monitor COMMAND``: ``reset
halt`` by default, as OpenOCD, pyOCD and J-Link's server take it; ``system_reset`` for QEMU), ``load``,
the stack pointer from the image, the program counter at its entry, ``detach`` (the board runs) — then
talks to it over its serial line
``serial=DEVICE`` (a tty, a pty or tcp:HOST:PORT, as ``--target serial:`` takes it; last, since a
device may hold colons) as rtscope.targets.mcu.serial_board does.
"""

import functools
import shutil
import subprocess
from pathlib import Path
from typing import Any

from rtscope.errors import RtscopeError
from rtscope.targets import options, worker
from rtscope.targets.mcu import qemu_board, serial_board
from rtscope.targets.mcu.serial_board import LinkedBoard
from rtscope.targets.registry import BOARDS
from rtscope.targets.registry import GDB as PREFIX
from rtscope.targets.registry import GDB_OPTIONS as OPTIONS
from rtscope.targets.registry import GDB_USAGE as USAGE

GDB = "gdb-multiarch"
# Loading an image of a few hundred KiB: seconds over a probe's SWD link, well under one on QEMU.
LOAD_TIMEOUT_S = 120
# How long gdb keeps asking a GDB server that does not take the connection.
CONNECT_TIMEOUT_S = 5
# The boards whose image rtscope builds, and their RTOSes: (board, rtos).
IMAGES = set(BOARDS)


class GdbBoardTarget(LinkedBoard):
    """The probe's LINK=uart image, loaded through a GDB server before each request."""

    def __init__(self, spec: str):
        server, settings, device = _parse(spec)
        board, rtos = settings["board"], settings["rtos"]
        if (board, rtos) not in IMAGES:
            known = ", ".join(f"board={b}:rtos={r}" for b, r in sorted(IMAGES))
            raise RtscopeError(f"--target {spec}: rtscope builds no image for board={board}:rtos={rtos} ({known})")
        super().__init__(spec, "gdb", device, settings["baud"], {"board": board, "rtos": rtos})
        self.server = server
        self.reset = settings["reset"]
        self.image_path = qemu_board.image_path(rtos, board, link="uart")

    def before(self) -> None:
        """Load the image and start it at its entry: a fresh board for each request."""
        load(self.server, self.reset, self.image, self.name)

    def record(self) -> dict[str, Any]:
        record = super().record()
        record["detail"] = {**record["detail"], "gdb_server": self.server, "image": str(self.image)}
        return record

    @functools.cached_property
    def image(self) -> Path:
        """The LINK=uart image, built (or brought up to date) once per target."""
        return qemu_board.build_image(self.expected["rtos"], self.expected["board"], link="uart")


def load(server: str, reset: str, image: Path, name: str) -> None:
    """Reset the board through the GDB server at ``server`` (HOST:PORT) with its ``monitor`` command
    ``reset`` (its peripherals and interrupts as at power-on: the image before may still run), load
    ``image`` and let it run from its entry, with the stack its linker script ends
    (``board_main_stack_top``) and the Thumb state set. RtscopeError in one line when gdb-multiarch is
    missing, the server does not answer, refuses the reset or the load fails."""
    if shutil.which(GDB) is None:
        raise RtscopeError(f"{GDB} not found (apt-get install gdb-multiarch, or run setup.sh)")
    commands = [
        "set pagination off",
        "set confirm off",
        # A server that refuses is asked again for a while (it may be starting), not for gdb's 15 s.
        f"set tcp connect-timeout {CONNECT_TIMEOUT_S}",
        f"target remote {server}",
        f"monitor {reset}",
        "load",
        "set $sp = (unsigned int) &board_main_stack_top",
        "set $xpsr = 0x01000000",
        "detach",
    ]
    argv = [GDB, "-nx", "-batch", "-q", *(arg for command in commands for arg in ("-ex", command)), str(image)]
    try:
        completed = subprocess.run(
            argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=LOAD_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        raise RtscopeError(f"{name}: loading the image through {server} took more than {LOAD_TIMEOUT_S} s") from None
    # Batch mode goes on after a command fails: its first complaint is the reason, not the last one.
    complaints = [
        line.strip() for line in completed.stderr.splitlines() if line.strip() and not line.startswith("warning:")
    ]
    if complaints or "Start address" not in completed.stdout or "detached" not in completed.stdout:
        reason = complaints[0] if complaints else worker.last_line(completed.stdout) or "gdb failed"
        raise RtscopeError(f"{name}: cannot load the image through {server}: {reason}")


def _parse(spec: str) -> tuple[str, dict[str, Any], str]:
    """(HOST:PORT, every option's value, serial device) of a gdb:// target."""
    head, found, device_text = spec.removeprefix(PREFIX).partition(":serial=")
    parts = head.split(":")
    if len(parts) < 2 or not parts[0] or not parts[1].isdigit():
        raise options.refuse(spec, "no HOST:PORT", USAGE)
    if not found:
        raise options.refuse(spec, "no serial=DEVICE: the board's UART is how the run comes back", USAGE)
    device, words = serial_board.parse_device(device_text, spec, USAGE)
    return f"{parts[0]}:{parts[1]}", options.parse(spec, parts[2:] + words, OPTIONS, USAGE), device
