"""One QEMU machine run from start to power-off, whatever the guest: a Linux kernel with rtscope's
initramfs (rtscope.targets.qemu) or a microcontroller image.

A :class:`Machine` is a ``with`` block: it makes a private directory here for what the run needs
(images, the serial log), starts ``qemu-system-ARCH`` with the caller's arguments, its first serial
port written to a file there, and on leaving the block — normally, on an error or on Ctrl-C — stops
QEMU (SIGTERM, SIGKILL a moment later) and removes the directory. QEMU also dies with rtscope
(PR_SET_PDEATHSIG), so a killed rtscope leaves no machine running.

:meth:`Machine.run` waits, for a bounded time, until QEMU ends by itself (the guest powered off) or the
serial output says the run is over (``done``), and returns what the guest printed with how the run ended.
A guest that hangs is stopped at the deadline; a guest that panics ends QEMU at once (``-no-reboot``
with ``panic=-1`` on Linux) or is caught by ``done``. The caller reads its result out of the serial
output: nothing crosses between host and guest while the guest measures.
"""

import atexit
import contextlib
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from rtscope import files
from rtscope.errors import RtscopeError
from rtscope.model.catalogue import Bench, Suite
from rtscope.model.request import RunRequest
from rtscope.targets.transport import die_with_parent

# How long QEMU gets to end after SIGTERM before SIGKILL.
_STOP_GRACE_S = 2.0
_POLL_S = 0.05
_SERIAL_ID = "rtscope-serial"
# The probe's default --grace (src/main.c): how long the watchdog lets a bench take to stop.
PROBE_GRACE_S = 10.0


@dataclass(frozen=True)
class Ending:
    """How a machine's run ended: ``why`` is "powered off" (QEMU exited 0), "done" (the serial output
    said so), "timeout" or "qemu failed"; ``serial`` is everything the guest wrote on its first serial
    port, ``said`` QEMU's own last line on stderr, ``elapsed_s`` the host time from start to end."""

    why: str
    status: int | None
    serial: bytes
    said: str
    elapsed_s: float


class Machine:
    """A QEMU process and its private directory; use as a ``with`` block."""

    def __init__(self, binary: str, name: str):
        """``binary`` is the emulator (qemu-system-x86_64, …); ``name`` is how messages call the machine
        (the --target value)."""
        self.binary, self.name = binary, name
        self.directory = files.make_private_dir("rtscope-qemu-")
        self.serial_path = self.directory / "serial.log"
        self._stderr_path = self.directory / "qemu.stderr"
        self._process: subprocess.Popen[bytes] | None = None
        atexit.register(self.close)

    def __enter__(self) -> "Machine":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def serial_args(self) -> list[str]:
        """The arguments that send the guest's first serial port to the serial log (added by start)."""
        return ["-chardev", f"file,id={_SERIAL_ID},path={self.serial_path}", "-serial", f"chardev:{_SERIAL_ID}"]

    def start(self, args: Sequence[str]) -> None:
        """Start QEMU with ``args`` (after: no display, no monitor, serial to the log). RtscopeError when
        the emulator is not installed."""
        if shutil.which(self.binary) is None:
            raise RtscopeError(
                f"{self.name}: {self.binary} is not installed (Debian: apt install {emulator_package(self.binary)})"
            )
        argv = [self.binary, "-display", "none", "-monitor", "none", *self.serial_args(), *args]
        with open(self._stderr_path, "wb") as stderr:
            try:
                self._process = subprocess.Popen(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=stderr,
                    stderr=stderr,
                    start_new_session=True,
                    preexec_fn=die_with_parent,
                )
            except OSError as error:
                raise RtscopeError(f"{self.name}: cannot start {self.binary}: {error.strerror}") from None

    def run(self, timeout_s: float, done: Callable[[bytes], bool] = lambda serial: False) -> Ending:
        """Wait until QEMU ends, ``done`` is true of the serial output so far, or ``timeout_s`` passes;
        QEMU is stopped in the last two cases. Ctrl-C stops it too (KeyboardInterrupt goes on up)."""
        assert self._process is not None, "start() first"
        started = time.monotonic()
        deadline = started + timeout_s
        why = "timeout"
        try:
            while time.monotonic() < deadline:
                status = self._process.poll()
                if status is not None:
                    why = "powered off" if status == 0 else "qemu failed"
                    break
                if done(self._serial()):
                    why = "done"
                    break
                time.sleep(_POLL_S)
        finally:
            self.stop()
        return Ending(why, self._process.returncode, self._serial(), self._said(), time.monotonic() - started)

    def stop(self) -> None:
        """Stop QEMU if it runs: SIGTERM to its process group, SIGKILL when it lingers."""
        process = self._process
        if process is None or process.poll() is not None:
            return
        for signum in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                process.send_signal(signum)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=_STOP_GRACE_S)
                return

    def close(self) -> None:
        """Stop QEMU and remove the directory with everything in it (idempotent)."""
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)
        atexit.unregister(self.close)

    def _serial(self) -> bytes:
        with contextlib.suppress(OSError):
            return self.serial_path.read_bytes()
        return b""

    def _said(self) -> str:
        with contextlib.suppress(OSError):
            lines = self._stderr_path.read_text(errors="replace").split("\n")
            return next((line.strip() for line in reversed(lines) if line.strip()), "")
        return ""


def emulator_package(binary: str) -> str:
    """The Debian package that has ``binary``: qemu-system-x86 for qemu-system-x86_64, qemu-system-arm
    for qemu-system-arm and qemu-system-aarch64, else qemu-system-ARCH."""
    arch = binary.removeprefix("qemu-system-")
    return {"x86_64": "qemu-system-x86", "i386": "qemu-system-x86", "aarch64": "qemu-system-arm"}.get(
        arch, f"qemu-system-{arch}"
    )


def version(binary: str) -> str:
    """The emulator's version ("7.2.19"), or "" when it cannot tell."""
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        said = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30, check=False).stdout
        words = said.split()
        if "version" in words and words.index("version") + 1 < len(words):
            return words[words.index("version") + 1]
    return ""


def utc_now() -> str:
    """The host's time now, as a result's run records it."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def on_host_clock(doc: dict[str, Any], started: str) -> dict[str, Any]:
    """A guest's result document with the host's start (``started``) and end (now) of the run: an
    emulated machine's clock starts at the same instant in every boot (a fixed RTC, or none at all on a
    board), which would stamp every run with one time."""
    return dict(doc, run=dict(doc["run"], started=started, finished=utc_now()))


def request_guest_s(request: RunRequest, benches: list[Bench], suites: list[Suite]) -> float:
    """The guest time ``request`` may take at most, for a target to bound its boot by: each bench's own
    (one with a reporting period, as Thread-Metric's, its period × periods and a second, the defaults
    the bench lists; the others the request's duration) and the grace the probe's watchdog allows it.
    Suites count as their benches."""
    by_id = {bench.id: bench for bench in benches}
    members = {suite.id: suite.benches for suite in suites}
    grace = PROBE_GRACE_S if request.grace_s is None else request.grace_s
    total = 0.0
    for bench_id in (b for name in request.benches for b in members.get(name, (name,))):
        bench = by_id.get(bench_id)
        period, periods = (bench.param("period"), bench.param("periods")) if bench else (None, None)
        if period is not None and periods is not None and period.default and periods.default:
            given = {s.key: s.value for s in request.params if s.applies_to(bench_id)}
            total += float(given.get("period", period.default)) * float(given.get("periods", periods.default)) + 1
        else:
            total += request.duration_s
        total += grace
    return total
