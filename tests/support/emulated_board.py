"""QEMU's mps2-an385 standing in for a real board on the bench: its UART on a TCP socket (the serial
line), its monitor on a UNIX socket (the reset button), and with ``-S -gdb`` a gdbstub (the debug probe).
For tests/test_serial_board.py and evaluation/serial_link.py."""

import socket
import subprocess
import time
from pathlib import Path

from rtscope.targets.transport import dying_with_rtscope
from support.loopback import free_port


def _listening(port: int) -> bool:
    """Whether a socket listens on ``port`` of 127.0.0.1 (Linux's /proc/net/tcp), asked without taking
    QEMU's one client's place."""
    rows = Path("/proc/net/tcp").read_text().splitlines()[1:]
    return any(row.split()[1] == f"0100007F:{port:04X}" and row.split()[3] == "0A" for row in rows)


class EmulatedBoard:
    """QEMU's mps2-an385 (instruction counting, shift 5) with its UART on a TCP socket and its monitor on
    a UNIX socket; with ``-S -gdb`` it waits for a debugger, with ``-kernel`` it runs its image."""

    def __init__(self, directory: Path, *machine: str):
        self.serial_port, self.monitor = free_port(), directory / "monitor.sock"
        argv = [
            "qemu-system-arm",
            "-M",
            "mps2-an385",
            "-nodefaults",
            "-display",
            "none",
            "-nic",
            "user,restrict=on,ipv6=off,model=lan9118",
            "-icount",
            "shift=5,align=off,sleep=off",
            "-serial",
            f"tcp:127.0.0.1:{self.serial_port},server=on,wait=off",
            "-monitor",
            f"unix:{self.monitor},server=on,wait=off",
            *machine,
        ]
        self.process = subprocess.Popen(
            dying_with_rtscope(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 10
        while not (self.monitor.exists() and _listening(self.serial_port)) and time.monotonic() < deadline:
            time.sleep(0.05)

    def reset(self) -> None:
        """The board's reset button: QEMU's system_reset."""
        with socket.socket(socket.AF_UNIX) as monitor:
            monitor.connect(str(self.monitor))
            monitor.sendall(b"system_reset\n")
            time.sleep(0.2)

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
