"""One QEMU machine run from start to power-off, whatever the guest: a Linux kernel with rtscope's
initramfs (rtscope.targets.qemu.debian) or a microcontroller image (rtscope.targets.mcu.qemu_board).

A :class:`Machine` is a ``with`` block: it makes a private directory here for what the run needs
(images, the serial log, a file the guest writes through semihosting: QEMU runs there), starts
``qemu-system-ARCH`` with the caller's arguments, its first serial port written to a file there, and on
leaving the block — normally, on an error or on Ctrl-C — stops QEMU (SIGTERM, SIGKILL a moment later)
and removes the directory. QEMU also dies with rtscope (util-linux setpriv --pdeathsig), so a killed
rtscope leaves no machine running.

:meth:`Machine.run` waits, for a bounded time, until QEMU ends by itself (the guest powered off, with
its exit status) or the serial output says the run is over (``done``), and returns what the guest
printed with how the run ended; the serial output can also be copied to rtscope's stderr as it comes.
A guest that hangs is stopped at the deadline; a guest that panics ends QEMU at once (``-no-reboot``
with ``panic=-1`` on Linux) or is caught by ``done``. The caller reads its result out of the serial
output or the directory: nothing crosses between host and guest while the guest measures.

A run that lasts more than a few seconds shows a progress line on stderr: the guest time done of the
guest time asked, and the time left. Under instruction counting the guest time done is QEMU's own count
of the instructions the guest executed (QMP ``query-replay``, read from the host: the guest is not
disturbed), at 2^shift ns each; time the guest spends idle is jumped over without executing
instructions, so it is not counted (nor does it cost the host time). A guest on the host's clock
counts the host's time.
"""

import atexit
import codecs
import contextlib
import json
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self, TextIO

from rtscope import files
from rtscope.errors import RtscopeError
from rtscope.model.catalogue import Bench, Suite
from rtscope.model.request import RunRequest
from rtscope.targets.transport import ASK_TIMEOUT_S, dying_with_rtscope

# How long QEMU gets to end after SIGTERM before SIGKILL.
_STOP_GRACE_S = 2.0
_POLL_S = 0.05
_SERIAL_ID = "rtscope-serial"
# The probe's default --grace (src/main.c): how long the watchdog lets a bench take to stop.
PROBE_GRACE_S = 10.0
# What the probe allows a bench with a reporting period to start its threads (bench/thread_metric.c's
# TM_START_S).
REPORTING_START_S = 1.0
# The progress line: shown once a run has lasted this long; on a terminal redrawn this often, in a log
# written this often.
PROGRESS_AFTER_S = 5.0
_REDRAW_S = 1.0
_LOG_EVERY_S = 60.0
# How long the QMP socket may take to answer one question.
_QMP_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class Ending:
    """How a machine's run ended: ``why`` is "powered off" (QEMU exited 0), "done" (the serial output
    said so), "timeout" or "qemu failed" (QEMU exited otherwise: on a board, the guest's own exit status
    too); ``status`` QEMU's exit status, ``serial`` everything the guest wrote on its first serial port,
    ``said`` QEMU's own last line on stderr."""

    why: str
    status: int | None
    serial: bytes
    said: str


@dataclass(frozen=True)
class Plan:
    """What a run is asked to do, for its progress line: ``guest_s`` seconds of guest time, counted from
    the first serial output that holds ``start`` (b"": from power-on)."""

    guest_s: float
    start: bytes = b""


class Machine:
    """A QEMU process and its private directory; use as a ``with`` block."""

    def __init__(self, binary: str, name: str, ns_per_instruction: float | None):
        """``binary`` is the emulator (qemu-system-x86_64, …); ``name`` is how messages call the machine
        (the --target value); ``ns_per_instruction`` the guest time an instruction takes under
        ``-icount`` (2^shift), None for a guest on the host's clock."""
        self.binary, self.name, self.ns_per_instruction = binary, name, ns_per_instruction
        self.directory = files.make_private_dir("rtscope-qemu-")
        self.serial_path = self.directory / "serial.log"
        self._stderr_path = self.directory / "qemu.stderr"
        self._qmp_path = self.directory / "qmp.sock"
        self._process: subprocess.Popen[bytes] | None = None
        atexit.register(self.close)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def start(self, args: Sequence[str]) -> None:
        """Start QEMU with ``args`` (after: no display, no monitor, a QMP socket for the progress line,
        serial to the log), in the machine's directory. RtscopeError when the emulator is not installed."""
        if shutil.which(self.binary) is None:
            raise RtscopeError(
                f"{self.name}: {self.binary} is not installed (Debian: apt install {emulator_package(self.binary)})"
            )
        argv = [
            self.binary,
            "-display",
            "none",
            "-monitor",
            "none",
            "-qmp",
            f"unix:{self._qmp_path},server=on,wait=off",
            "-chardev",
            f"file,id={_SERIAL_ID},path={self.serial_path}",
            "-serial",
            f"chardev:{_SERIAL_ID}",
            *args,
        ]
        with open(self._stderr_path, "wb") as stderr:
            try:
                self._process = subprocess.Popen(
                    dying_with_rtscope(argv),
                    stdin=subprocess.DEVNULL,
                    stdout=stderr,
                    stderr=stderr,
                    cwd=self.directory,
                    start_new_session=True,
                )
            except OSError as error:
                raise RtscopeError(f"{self.name}: cannot start {self.binary}: {error.strerror}") from None

    def run(
        self,
        timeout_s: float,
        done: Callable[[bytes], bool] = lambda serial: False,
        *,
        plan: Plan | None = None,
        echo: bool = False,
    ) -> Ending:
        """Wait until QEMU ends, ``done`` is true of the serial output so far, or ``timeout_s`` passes;
        QEMU is stopped in the last two cases. Ctrl-C or SIGTERM stops it too (KeyboardInterrupt goes on up).
        ``plan``: the guest time asked, for the progress line; ``echo``: the serial output is copied to
        rtscope's stderr as it comes."""
        assert self._process is not None, "start() first"
        deadline = time.monotonic() + timeout_s
        why = "timeout"
        clock = _HostClock() if self.ns_per_instruction is None else _Qmp(self._qmp_path, self.ns_per_instruction)
        progress = _Progress(self.name, plan, clock.guest_s, sys.stderr)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        echoed = 0
        with _terminate_as_interrupt():
            try:
                while time.monotonic() < deadline:
                    status = self._process.poll()
                    serial = self._serial()
                    if echo:
                        progress.write(decoder.decode(serial[echoed:]))
                        echoed = len(serial)
                    if status is not None:
                        why = "powered off" if status == 0 else "qemu failed"
                        break
                    if done(serial):
                        why = "done"
                        break
                    progress.update(serial)
                    time.sleep(_POLL_S)
            finally:
                progress.close()
                clock.close()
                self.stop()
        serial = self._serial()
        if echo:
            sys.stderr.write(decoder.decode(serial[echoed:], final=True))
            sys.stderr.flush()
        return Ending(why, self._process.returncode, serial, self._said())

    def stop(self) -> None:
        """Stop QEMU if it runs: SIGTERM, SIGKILL when it lingers."""
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


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM sent to rtscope stops a machine's run as Ctrl-C does (QEMU stopped, its directory removed,
    KeyboardInterrupt going on up), as it stops a local probe (rtscope.targets.worker). Python sets
    handlers in its main thread only: a machine run from another thread keeps the default, and its QEMU
    dies with rtscope."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class _HostClock:
    """The guest time of a guest on the host's clock: the host's time since the run started."""

    def __init__(self) -> None:
        self.started = time.monotonic()

    def guest_s(self) -> float | None:
        return time.monotonic() - self.started

    def close(self) -> None:
        pass


class _Qmp:
    """The guest time of a guest under instruction counting: the instructions QEMU counted (QMP
    query-replay, on its socket) at ``ns_per_instruction`` each. Connected on first use, and given up
    for the run at its first failure (the progress line then goes without)."""

    def __init__(self, path: Path, ns_per_instruction: float):
        self._path, self._ns_per_instruction = path, ns_per_instruction
        self._socket: socket.socket | None = None
        self._failed = False

    def guest_s(self) -> float | None:
        """The guest time executed so far, or None when the socket is not there yet or does not answer."""
        if self._failed:
            return None
        try:
            if self._socket is None:
                self._connect()
            count = self._ask("query-replay")["icount"]
        except (FileNotFoundError, ConnectionRefusedError):
            return None  # QEMU has not made its socket yet
        except (OSError, ValueError, KeyError, TypeError):
            self._failed = True
            return None
        return count * self._ns_per_instruction / 1e9 if isinstance(count, int) else None

    def close(self) -> None:
        if self._socket is not None:
            self._lines.close()
            self._socket.close()

    def _connect(self) -> None:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.settimeout(_QMP_TIMEOUT_S)
        try:
            connection.connect(str(self._path))
        except OSError:
            connection.close()
            raise
        self._socket = connection
        self._lines = connection.makefile("rb")
        self._lines.readline()  # QEMU's greeting
        self._ask("qmp_capabilities")

    def _ask(self, command: str) -> Any:
        assert self._socket is not None
        self._socket.sendall(json.dumps({"execute": command}).encode() + b"\n")
        while line := self._lines.readline():
            answer = json.loads(line)
            if "return" in answer:
                return answer["return"]
            if "error" in answer:
                raise ValueError(answer["error"].get("desc", "QMP error"))
            # an event: the answer is still to come
        raise OSError("QEMU closed its QMP socket")


class _Progress:
    """The progress line of a machine's run on ``stream``: nothing for the first PROGRESS_AFTER_S; then
    on a terminal one line redrawn in place, in a log a line every _LOG_EVERY_S. Serial output copied
    to the same stream goes through :meth:`write`, so that the line does not break it."""

    def __init__(self, name: str, plan: Plan | None, guest_clock: Callable[[], float | None], stream: TextIO):
        self.name, self.plan, self.guest_clock, self.stream = name, plan, guest_clock, stream
        self.tty = stream.isatty()
        self.started = time.monotonic()
        self.next_line = self.started + PROGRESS_AFTER_S
        # Guest and host time when the plan's start showed on the serial output.
        self.origin: tuple[float, float] | None = None
        self.shown = ""
        self.at_line_start = True

    def update(self, serial: bytes) -> None:
        """Note the plan's start when the serial output first holds it; draw the line when it is due (on
        a terminal, not in the middle of a line of serial output)."""
        now = time.monotonic()
        if self.plan is not None and self.origin is None and self.plan.start in serial:
            guest_s = self.guest_clock()
            if guest_s is not None:
                self.origin = (guest_s, now)
        if now < self.next_line or not self.at_line_start:
            return
        self.next_line = now + (_REDRAW_S if self.tty else _LOG_EVERY_S)
        self._draw(self._text(now))

    def write(self, text: str) -> None:
        """Serial output for the stream: the line is taken away for it, and drawn again after it when it
        ends a line."""
        if not text:
            return
        shown = self.shown
        self._draw("")
        self.stream.write(text)
        self.at_line_start = text.endswith("\n")
        self._draw(shown if self.at_line_start else "")

    def close(self) -> None:
        """Take the line away (a terminal's)."""
        self._draw("")

    def _text(self, now: float) -> str:
        elapsed = _clock(now - self.started)
        guest_s = self.guest_clock() if self.origin is not None else None
        if self.plan is None:
            return f"rtscope: {self.name}: running for {elapsed}"
        if self.origin is None or guest_s is None:
            return f"rtscope: {self.name}: starting ({elapsed} so far)"
        done_s = guest_s - self.origin[0]
        asked_s = self.plan.guest_s
        if done_s >= asked_s:
            left = "finishing"
        elif done_s > 0:
            left = f"about {_clock((asked_s - done_s) * (now - self.origin[1]) / done_s)} left"
        else:
            left = "time left not known yet"
        return f"rtscope: {self.name}: guest time {done_s:.1f} s of {asked_s:.1f} s, {left} ({elapsed} so far)"

    def _draw(self, text: str) -> None:
        """On a terminal, ``text`` replaces the line shown ("" takes it away); in a log, ``text`` is
        written as a line of its own."""
        if self.tty:
            if text or self.shown:
                self.stream.write(f"\r\x1b[K{text}")
            self.shown = text
        elif text:
            self.stream.write(f"{text}\n")
        self.stream.flush()


def _clock(seconds: float) -> str:
    """``seconds`` as m:ss."""
    whole = max(0, round(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


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
        said = subprocess.run(
            [binary, "--version"], capture_output=True, text=True, timeout=ASK_TIMEOUT_S, check=False
        ).stdout
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


@dataclass(frozen=True)
class GuestTime:
    """The guest time a request takes: ``asked_s`` what its benches measure, ``allowance_s`` what they
    may take beyond it (starting, the probe watchdog's grace); ``bound_s`` both, the most it may take."""

    asked_s: float
    allowance_s: float

    @property
    def bound_s(self) -> float:
        return self.asked_s + self.allowance_s


def request_guest_time(request: RunRequest, benches: list[Bench], suites: list[Suite]) -> GuestTime:
    """The guest time ``request`` takes, for a target to bound its boot by and to show its progress
    against: each bench's own (one with a reporting period, as Thread-Metric's, its period × periods,
    the defaults the bench lists, and a second to start; the others the request's duration) and the
    grace the probe's watchdog allows it. Suites count as their benches."""
    members = {suite.id: suite.benches for suite in suites}
    grace = PROBE_GRACE_S if request.grace_s is None else request.grace_s
    asked = allowance = 0.0
    for bench_id in (b for name in request.benches for b in members.get(name, (name,))):
        periods = reporting_periods(request, bench_id, benches)
        asked += request.duration_s if periods is None else periods[0] * periods[1]
        allowance += grace + (0 if periods is None else REPORTING_START_S)
    return GuestTime(asked, allowance)


def reporting_periods(request: RunRequest, bench_id: str, benches: list[Bench]) -> tuple[float, float] | None:
    """The (period, periods) ``request`` gives the bench ``bench_id`` when it reports per period (it lists
    both, with defaults): the request's own settings, else the defaults. None for any other bench."""
    bench = next((bench for bench in benches if bench.id == bench_id), None)
    period, periods = (bench.param("period"), bench.param("periods")) if bench else (None, None)
    if period is None or periods is None or not period.default or not periods.default:
        return None
    given = {setting.key: setting.value for setting in request.params if setting.applies_to(bench_id)}
    return float(given.get("period", period.default)), float(given.get("periods", periods.default))
