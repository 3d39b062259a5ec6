"""A microcontroller board over its serial line: ``serial:DEVICE[:baud=N][:board=NAME][:rtos=NAME]``.

The user flashed the board with the probe's image built with ``LINK=uart`` (docs/boards.md): it waits on
its UART for a request and answers in frames (rtscope.targets.mcu.framing). ``DEVICE`` is a tty
(/dev/ttyACM0, a pty) opened raw through termios at ``baud`` (115200 by default), or ``tcp:HOST:PORT``,
an emulator's UART on a socket. Each request — the catalogue (``list --json``), the system facts, a run —
is one exchange; the board starts itself again after each, ready for the next.

rtscope knows the board from what it says when it accepts a request and from the result (its
``system``); ``:board=`` and ``:rtos=`` are checked against them. Times are the board's hardware clock,
except on a board that says it is QEMU's (the mps2-an385): there they are instruction time, at a rate
the line cannot tell.
"""

import atexit
import functools
import os
import select
import socket
import termios
import tty
from typing import Any

from rtscope.errors import ProbeError, RtscopeError
from rtscope.model import result
from rtscope.model.catalogue import Catalogue, parse_bench_list
from rtscope.model.request import RunRequest
from rtscope.targets import Nowhere, facts, local, options
from rtscope.targets.mcu import framing
from rtscope.targets.mcu.qemu_board import BoardTransport
from rtscope.targets.qemu import machine as qemu_machine
from rtscope.targets.registry import SERIAL as PREFIX
from rtscope.targets.registry import SERIAL_OPTIONS as OPTIONS
from rtscope.targets.registry import SERIAL_USAGE as USAGE
from rtscope.targets.transport import Completed

# How long a board may take to accept a request: it may be finishing a run of a host that went away, or
# starting again after one.
ANSWER_S = 10.0
# What a run may take beyond the time its benches ask for (starting, the watchdog's grace are already in
# it): the result's frames on a slow line.
RUN_ALLOWANCE_S = 60.0
# The boards whose "hardware" is an emulator counting instructions.
EMULATED_BOARDS = {"mps2-an385"}
_CONNECT_S = 5.0


class TtyLine:
    """A serial port or pty, raw, at a baud rate."""

    def __init__(self, path: str, baud: int):
        self.name = f"{PREFIX}{path}"
        speed = getattr(termios, f"B{baud}", None)
        if speed is None:
            raise RtscopeError(f"--target {self.name}: {baud} is not a baud rate this system's termios knows")
        try:
            self._fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError as error:
            raise RtscopeError(f"--target {self.name}: cannot open {path}: {error.strerror}") from None
        try:
            tty.setraw(self._fd)
            attributes = termios.tcgetattr(self._fd)
            attributes[4] = attributes[5] = speed
            attributes[2] |= termios.CLOCAL | termios.CREAD
            termios.tcsetattr(self._fd, termios.TCSANOW, attributes)
            termios.tcflush(self._fd, termios.TCIFLUSH)
        except termios.error as error:
            os.close(self._fd)
            raise RtscopeError(f"--target {self.name}: {path} is not a serial line ({error.args[-1]})") from None

    def read(self, timeout_s: float) -> bytes:
        ready, _, _ = select.select([self._fd], [], [], timeout_s)
        if not ready:
            return b""
        try:
            return os.read(self._fd, 65536)
        except BlockingIOError:
            return b""
        except OSError as error:
            raise ProbeError(f"{self.name}: the line failed: {error.strerror}") from None

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            select.select([], [self._fd], [], 1.0)
            try:
                view = view[os.write(self._fd, view) :]
            except BlockingIOError:
                continue
            except OSError as error:
                raise ProbeError(f"{self.name}: the line failed: {error.strerror}") from None

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


class SocketLine:
    """An emulator's UART on a TCP socket (QEMU's ``-serial tcp:HOST:PORT,server``)."""

    def __init__(self, name: str, connection: socket.socket):
        self.name = name
        self._socket = connection

    @classmethod
    def connect(cls, host: str, port: int) -> "SocketLine":
        name = f"{PREFIX}tcp:{host}:{port}"
        try:
            connection = socket.create_connection((host, port), timeout=_CONNECT_S)
        except OSError as error:
            raise RtscopeError(f"--target {name}: cannot connect to {host}:{port}: {error.strerror or error}") from None
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls(name, connection)

    def read(self, timeout_s: float) -> bytes:
        self._socket.settimeout(timeout_s)
        try:
            data = self._socket.recv(65536)
        except TimeoutError:
            return b""
        except OSError as error:
            raise ProbeError(f"{self.name}: the line failed: {error.strerror or error}") from None
        if not data:
            raise ProbeError(f"{self.name}: the line was closed at the other end")
        return data

    def write(self, data: bytes) -> None:
        self._socket.settimeout(_CONNECT_S)
        try:
            self._socket.sendall(data)
        except OSError as error:
            raise ProbeError(f"{self.name}: the line failed: {error.strerror or error}") from None

    def close(self) -> None:
        self._socket.close()


def parse_device(text: str, spec: str, usage: str) -> tuple[str, list[str]]:
    """(DEVICE, the "key=value" words after it) of "DEVICE[:key=value…]", where DEVICE is a path or
    tcp:HOST:PORT."""
    parts = text.split(":")
    count = 3 if parts[0] == "tcp" else 1
    if not parts[0] or (count == 3 and (len(parts) < 3 or not parts[2].isdigit() or not parts[1])):
        raise options.refuse(spec, "no DEVICE: /dev/ttyX, a pty or tcp:HOST:PORT", usage)
    return ":".join(parts[:count]), parts[count:]


def open_line(device: str, baud: int) -> framing.Line:
    """The line ``device`` names, open."""
    if device.startswith("tcp:"):
        _, host, port = device.split(":")
        return SocketLine.connect(host, int(port))
    return TtyLine(device, baud)


class LinkedBoard:
    """What a board on a serial line can be asked, whoever put the image there: each request one
    exchange over a line opened for it. Shared by the serial and gdb targets (``before`` readies the
    board: the gdb target loads and starts its image)."""

    def __init__(self, name: str, kind: str, device: str, baud: int, expected: dict[str, str]):
        self.name, self.kind, self.device, self.baud, self.expected = name, kind, device, baud, expected
        self.transport = BoardTransport(name)
        self.identity: dict[str, str] = {}
        self.system: dict[str, Any] = {}
        self.last: framing.Outcome | None = None

    def load_place(self) -> Nowhere:
        return Nowhere("it runs only the probe's image, with no shell or processes beside it")

    def before(self) -> None:
        """Ready the board for a request (nothing: the user flashed and started it)."""

    def ask(self, argv: list[str], *, run_s: float = RUN_ALLOWANCE_S, echo: bool = False) -> framing.Outcome:
        """One request, over the line the target keeps open: opening a tty again may reset a board (DTR),
        and an emulator's socket takes its next client only once it has seen the last one go."""
        self.before()
        outcome = framing.exchange(
            self._line,
            ["rtscope-probe", *argv],
            answer_s=ANSWER_S,
            run_s=run_s,
            echo=framing.echo_to_stderr if echo else lambda text: None,
        )
        self._check_identity(outcome.identity)
        self.last = outcome
        return outcome

    @functools.cached_property
    def _line(self) -> framing.Line:
        """The board's line, opened on first use and closed with rtscope."""
        line = open_line(self.device, self.baud)
        atexit.register(line.close)
        return line

    @functools.cached_property
    def catalogue(self) -> Catalogue:
        outcome = self.ask(["list", "--json"])
        if outcome.status != 0:
            raise ProbeError(f"{self.name}: list failed: {outcome.last_line or f'exit status {outcome.status}'}")
        return parse_bench_list(outcome.console, f"{self.name} list --json")

    def probe_system(self) -> dict[str, Any]:
        outcome = self.ask(["system"])
        return facts.read_system(Completed(outcome.status, outcome.console.encode(), b""), self.name)

    def run(self, request: RunRequest) -> result.Result:
        guest = qemu_machine.request_guest_time(request, self.catalogue.benches, self.catalogue.suites)
        started = qemu_machine.utc_now()
        outcome = self.ask(
            ["run", *request.probe_args(), "--json", "result.json"],
            run_s=RUN_ALLOWANCE_S + 2 * guest.bound_s,
            echo=True,
        )
        if outcome.status == GUEST_FAULT_STATUS:
            raise ProbeError(f"{self.name}: {outcome.last_line or 'the board faulted'}")
        document = outcome.document or b""
        if outcome.aborted and outcome.status in (0, 1):
            raise ProbeError(f"{self.name}: the board gave its result up: {outcome.aborted}")
        measured = local.read_outcome(outcome.status, outcome.last_line, document)
        doc = qemu_machine.on_host_clock(measured.doc, started)
        self.system = doc["system"]
        return result.from_doc(doc, "the board's result")

    def record(self) -> dict[str, Any]:
        """Hardware time, or instruction time when the board is an emulator's; what the board said of
        itself, and what the last exchange cost on the line."""
        board = self.identity.get("board") or self.expected.get("board") or self.system.get("hostname", "")
        emulated = self.system.get("virtualization") == "qemu" or board in EMULATED_BOARDS
        detail: dict[str, Any] = {"line": self.device, "board": board}
        if not self.device.startswith("tcp:"):
            detail["baud"] = self.baud
        if self.expected.get("rtos"):
            detail["rtos"] = self.expected["rtos"]
        if emulated:
            detail["time"] = "instruction time of an emulated board, at a rate the serial line does not tell"
        if self.last is not None:
            detail["link"] = {
                "bytes_from_board": self.last.wire_bytes,
                "frames": self.last.frames,
                "asked_again": self.last.asked_again,
            }
        return {
            "name": self.name,
            "kind": self.kind,
            "time_base": "instructions" if emulated else "hardware",
            "detail": detail,
        }

    def _check_identity(self, identity: dict[str, str]) -> None:
        said = identity.get("board")
        wanted = self.expected.get("board")
        if said and wanted and said != wanted:
            raise ProbeError(f"{self.name}: the board says it is {said}, not {wanted}")
        self.identity = identity


# The status the board's image ends with when it faults (its board layer): neither the probe's nor the link's.
GUEST_FAULT_STATUS = 3


class SerialBoardTarget(LinkedBoard):
    """A board the user flashed and started, on its serial line."""

    def __init__(self, spec: str):
        device, words = parse_device(spec.removeprefix(PREFIX), spec, USAGE)
        settings = options.parse(spec, words, OPTIONS, USAGE)
        expected = {key: settings[key] for key in ("board", "rtos") if settings[key] is not None}
        super().__init__(spec, "serial", device, settings["baud"], expected)
