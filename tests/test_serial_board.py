"""Boards reached over their serial line: the frames (rtscope.targets.mcu.framing, the twin of
probe/boards/common/frame.c), one exchange against a board played here with the line's faults, the
serial: and gdb:// targets' settings, and end to end with QEMU's mps2-an385 standing in for the board
(its UART on a TCP socket, its gdbstub as the debug probe)."""

import contextlib
import json
import os
import socket
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conftest import REPO, slow_fixture
from rtscope.errors import ProbeError, ProbeRejected, RtscopeError
from rtscope.model.request import RunRequest
from rtscope.targets import make_target
from rtscope.targets.mcu import framing, serial_board
from rtscope.targets.mcu.gdb_board import GdbBoardTarget
from rtscope.targets.mcu.serial_board import SerialBoardTarget, SocketLine
from support.emulated_board import EmulatedBoard
from support.loopback import free_port
from test_qemu_board import _with_undefined_instruction

# ------------------------------------------------------------------------------------------- frames


def test_a_frame_is_what_the_board_writes():
    # The C encoder's bytes for the same frame (probe/tests/test_frame.c checks its CRC the same way).
    frame = framing.encode(framing.DATA, 7, b"hello")
    assert frame[:9] == b"\xa5\x5a" + b"D" + struct.pack("<HHH", 7, 5, 5 ^ 0xFFFF)
    assert frame[9:14] == b"hello" and struct.unpack("<I", frame[14:])[0] == zlib.crc32(frame[2:14])
    assert zlib.crc32(b"123456789") == 0xCBF43926  # the C side's check value


def test_frames_are_found_among_the_boards_own_text():
    decoder = framing.Decoder()
    stream = b"boot \xa5 banner\r\n" + framing.encode("O", 0, b"one") + b"fault text\n" + framing.encode("S", 1)
    items = [item for half in (stream[:20], stream[20:]) for item in decoder.feed(half)]
    frames = [item for item in items if isinstance(item, framing.Frame)]
    assert frames == [framing.Frame("O", 0, b"one"), framing.Frame("S", 1, b"")]
    assert b"".join(item for item in items if isinstance(item, bytes)) == b"boot \xa5 banner\r\nfault text\n"
    assert not decoder.pending and decoder.bad == 0


@pytest.mark.parametrize(
    ("damage", "bad"),
    [
        (lambda f: f[:12] + bytes([f[12] ^ 1]) + f[13:], 1),  # a payload bit: the CRC fails
        (lambda f: f[:5] + b"\xff" + f[6:], 1),  # the length: its complement fails, nothing is swallowed
        (lambda f: f[:-3], 1),  # cut short: the next frame is found inside what was taken for its tail
        (lambda f: f + f, 0),  # twice: the exchange acknowledges the second again
    ],
    ids=["corrupted", "bad-length", "truncated", "duplicated"],
)
def test_a_damaged_frame_is_dropped_and_the_next_one_found(damage: Callable[[bytes], bytes], bad: int):
    decoder = framing.Decoder()
    items = decoder.feed(damage(framing.encode("D", 1, b"payload one")) + framing.encode("D", 2, b"payload two"))
    frames = [item for item in items if isinstance(item, framing.Frame)]
    assert frames[-1] == framing.Frame("D", 2, b"payload two")
    assert decoder.bad == bad and not decoder.pending


def test_a_request_longer_than_a_board_holds_is_refused_before_sending():
    with pytest.raises(ProbeRejected, match=r"the request is longer than the image holds \(2048 bytes"):
        framing.request_payload(["rtscope-probe", "run", "--label", "x" * 3000])


# --------------------------------------------------------------------------- a board played here

CATALOGUE = {
    "format": "rtscope-bench-list",
    "version": 1,
    "port": "freertos",
    "benches": [{"id": "ctxsw.sem", "summary": "one switch", "metrics": ["ctxsw.sem"], "params": []}],
    "suites": [],
}


def _golden_document() -> bytes:
    doc = json.loads((REPO / "tests" / "golden" / "result-v4-freertos.json").read_text())
    doc.pop("target")
    return json.dumps(doc).encode()


class PlayedBoard:
    """A board on a TCP socket that speaks the link as channel_uart.c does (the catalogue for list, a
    recorded result for run), with ``fault`` (frame number, attempt, bytes) -> bytes applied to each
    numbered frame it sends: the line's damage. Serves one connection after another."""

    def __init__(self, fault: Callable[[int, int, bytes], bytes] = lambda n, attempt, frame: frame, *, mute=False):
        self.fault, self.mute = fault, mute
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.sent = 0
        self.requests: list[list[str]] = []
        self.served: set[int] = set()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.server.close()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            with connection, contextlib.suppress(OSError):
                connection.settimeout(0.2)
                decoder = framing.Decoder()
                while self._session(connection, decoder):
                    pass

    def _frames(self, argv: list[str]) -> list[tuple[str, bytes]]:
        if argv[1] == "list":
            console, document = json.dumps(CATALOGUE) + "\n", None
        else:
            console, document = "rtscope-probe: ctxsw.sem for 0.1 s\n", _golden_document()
        frames = [("O", console.encode())]
        if document is not None:
            frames += [("D", document[at : at + 1024]) for at in range(0, len(document), 1024)]
            frames.append(("C", struct.pack("<II", len(document), zlib.crc32(document))))
        return [*frames, ("S", struct.pack("<i", 0))]

    def _session(self, connection: socket.socket, decoder: framing.Decoder) -> bool:
        """Serve one request; False when the host hung up."""
        request = None
        while request is None or request.seq in self.served:  # a request already served, sent again
            try:
                data = connection.recv(4096)
            except TimeoutError:
                continue
            if not data:
                return False
            requests = [item for item in decoder.feed(data) if isinstance(item, framing.Frame) and item.type == "R"]
            request = requests[-1] if requests else request
        self.served.add(request.seq)
        while self.mute:  # hears, says nothing, until the host hangs up
            with contextlib.suppress(TimeoutError):
                if not connection.recv(4096):
                    return False
        argv = request.payload.decode().split("\0")[:-1]
        self.requests.append(argv)
        connection.sendall(framing.encode("A", request.seq, b"rtscope-link/1 board=played"))
        for number, (kind, payload) in enumerate(self._frames(argv)):
            self._send_until_acknowledged(connection, decoder, number, framing.encode(kind, number, payload))
        return True

    def _send_until_acknowledged(
        self, connection: socket.socket, decoder: framing.Decoder, number: int, frame: bytes
    ) -> None:
        for attempt in range(30):
            damaged = self.fault(number, attempt, frame)
            connection.sendall(damaged)
            self.sent += len(damaged)
            deadline = time.monotonic() + 1.0
            while time.monotonic() < deadline:
                try:
                    data = connection.recv(4096)
                except TimeoutError:
                    continue
                if not data:
                    raise OSError("the host closed the line")
                answers = [item for item in decoder.feed(data) if isinstance(item, framing.Frame)]
                if any(item.type == "K" and item.seq == number for item in answers):
                    return
                if any(item.type == "N" and item.seq == number for item in answers):
                    break


@pytest.fixture
def played(request: pytest.FixtureRequest) -> Iterator[Callable[..., PlayedBoard]]:
    boards: list[PlayedBoard] = []

    def start(*args: object, **kwargs: object) -> PlayedBoard:
        boards.append(PlayedBoard(*args, **kwargs))  # type: ignore[arg-type]
        return boards[-1]

    yield start
    for board in boards:
        board.close()


def _ask(board: PlayedBoard, argv: list[str], **limits: float) -> framing.Outcome:
    line = SocketLine.connect("127.0.0.1", board.port)
    try:
        return framing.exchange(line, argv, **{"answer_s": 5.0, "run_s": 20.0, **limits})
    finally:
        line.close()


def _flip(frame: bytes) -> bytes:
    return frame[:-6] + bytes([frame[-6] ^ 0x20]) + frame[-5:]


def _when(number: int, damage: Callable[[bytes], bytes], *, every_time: bool = False):
    return lambda n, attempt, frame: damage(frame) if n == number and (every_time or attempt == 0) else frame


@pytest.mark.parametrize(
    "fault",
    [
        _when(1, _flip),
        _when(1, lambda frame: frame[:-7]),
        _when(1, lambda frame: frame + frame),
        _when(2, lambda frame: b"console text between frames\r\n" + frame),
    ],
    ids=["garbled-once", "truncated-once", "duplicated", "noise"],
)
def test_a_result_survives_a_noisy_line(played, fault):
    board = played(fault)
    outcome = _ask(board, ["rtscope-probe", "run", "ctxsw.sem"])
    assert outcome.status == 0 and outcome.document == _golden_document()
    assert outcome.console == "rtscope-probe: ctxsw.sem for 0.1 s\n"
    assert outcome.identity == {"link": "1", "board": "played"}
    assert outcome.wire_bytes >= board.sent  # what came, with the ACCEPT


def _fails_quickly(board: PlayedBoard, match: str, bound_s: float, **limits: float) -> None:
    started = time.monotonic()
    with pytest.raises(ProbeError, match=match):
        _ask(board, ["rtscope-probe", "run", "ctxsw.sem"], **limits)
    assert time.monotonic() - started < bound_s


def test_a_board_that_never_answers_is_one_line(played):
    _fails_quickly(
        played(mute=True), r"^serial:tcp:127\.0\.0\.1:\d+: the board did not answer within 1 s \(", 5, answer_s=1
    )


def test_a_frame_that_stays_garbled_is_given_up(played):
    _fails_quickly(
        played(_when(1, _flip, every_time=True)),
        r"frame 1 of the result came garbled or cut short 6 times: giving up \(a noisy line",
        15,
    )


def test_a_board_cut_off_mid_frame_is_given_up(played, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(framing, "TRUNCATED_AFTER_S", 0.2)
    _fails_quickly(played(_when(1, lambda frame: frame[:20], every_time=True)), r"came garbled or cut short", 15)


def test_a_board_that_starts_again_mid_run_is_one_line(played):
    hello = framing.encode("H", 0, b"rtscope-link/1 board=played")
    _fails_quickly(played(_when(2, lambda frame: hello)), r"the board started again during the run", 5)


def test_a_result_that_is_not_whole_is_refused(played):
    board = played(_when(2, lambda frame: framing.encode("D", 2, b"{}")))  # a chunk replaced, its CRC right
    _fails_quickly(board, r"the result came in whole frames but not whole", 10)


def test_a_board_that_runs_too_long_is_stopped_waiting(played):
    board = played(lambda n, attempt, frame: b"" if n == 1 else frame)  # silent after its console line
    _fails_quickly(board, r"the board did not end the run within 1 s", 5, run_s=1)


# -------------------------------------------------------------------------------- the targets


def test_a_serial_run_is_checked_and_stored(played, rtscope, tmp_path: Path):
    board = played(_when(1, _flip))
    spec = f"serial:tcp:127.0.0.1:{board.port}"
    outcome = rtscope("--target", spec, "run", "ctxsw.sem", "--duration", "0.1", "--json", tmp_path / "r.json")
    assert outcome.status == 0, outcome.err
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["target"]["kind"] == "serial" and doc["target"]["name"] == spec
    # The played board's result says it came from QEMU's board: instruction time.
    assert doc["target"]["time_base"] == "instructions"
    assert doc["target"]["detail"]["link"]["asked_again"] >= 1
    assert [argv[1] for argv in board.requests] == ["list", "run"]
    assert "rtscope-probe: ctxsw.sem for 0.1 s" in outcome.err
    assert doc["run"]["id"][:8] in rtscope("runs").out


def test_a_failed_serial_run_stores_nothing(played, rtscope):
    board = played(_when(3, _flip, every_time=True))
    outcome = rtscope("--target", f"serial:tcp:127.0.0.1:{board.port}", "run", "ctxsw.sem", "--duration", "0.1")
    assert outcome.status == 1
    assert outcome.err.strip().splitlines()[-1].endswith("giving up (a noisy line? a lower baud rate may help)")
    assert "Traceback" not in outcome.err
    assert "ctxsw.sem" not in rtscope("runs").out


@pytest.mark.parametrize(
    ("spec", "device", "baud"),
    [
        ("serial:/dev/ttyACM0", "/dev/ttyACM0", 115200),
        ("serial:/dev/ttyUSB1:baud=9600", "/dev/ttyUSB1", 9600),
        ("serial:tcp:localhost:5555", "tcp:localhost:5555", 115200),
    ],
)
def test_a_serial_target_names_its_line(spec: str, device: str, baud: int):
    target = make_target(spec, Path("unused"))
    assert isinstance(target, SerialBoardTarget) and (target.device, target.baud) == (device, baud)


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("serial:", "no DEVICE: /dev/ttyX, a pty or tcp:HOST:PORT"),
        ("serial:tcp:host", "no DEVICE: /dev/ttyX, a pty or tcp:HOST:PORT"),
        ("serial:/dev/ttyACM0:speed=9600", "no option 'speed'"),
        ("serial:/dev/ttyACM0:baud=fast", "baud=fast is not a whole number from 1 up"),
        ("serial:/dev/ttyACM0:baud=9600:baud=9600", "baud is given twice"),
        ("gdb://localhost:3333", "no serial=DEVICE"),
        ("gdb://localhost:3333:board=stm32:serial=/dev/ttyACM0", "rtscope builds no image for board=stm32"),
        ("gdb://localhost:x:serial=/dev/ttyACM0", "no HOST:PORT"),
        ("gdb://localhost:3333:speed=1:serial=/dev/ttyACM0", "no option 'speed'"),
    ],
)
def test_a_bad_board_target_is_one_line(spec: str, said: str):
    with pytest.raises(RtscopeError, match=said):
        make_target(spec, Path("unused"))


def test_a_gdb_target_takes_its_line_last():
    target = make_target("gdb://127.0.0.1:1234:rtos=freertos:serial=tcp:127.0.0.1:4321", Path("unused"))
    assert isinstance(target, GdbBoardTarget)
    assert (target.server, target.device, target.expected["board"]) == (
        "127.0.0.1:1234",
        "tcp:127.0.0.1:4321",
        "mps2-an385",
    )


def test_a_missing_line_is_one_line(tmp_path: Path):
    target = make_target(f"serial:{tmp_path / 'ttyNONE'}", Path("unused"))
    with pytest.raises(RtscopeError, match=r"cannot open .*ttyNONE: No such file or directory$"):
        target.probe_system()
    with pytest.raises(RtscopeError, match=r"is not a serial line"):
        make_target(f"serial:{os.devnull}", Path("unused")).probe_system()


def test_a_pty_is_a_line(played):
    # The board's end of a pty, played by a thread that copies it to and from a played board's socket.
    board = played()
    leader, follower = os.openpty()
    upstream = socket.create_connection(("127.0.0.1", board.port))

    def copy(read: Callable[[], bytes], write: Callable[[bytes], object]) -> None:
        with contextlib.suppress(OSError):
            while data := read():
                write(data)

    threading.Thread(target=copy, args=(lambda: os.read(leader, 4096), upstream.sendall), daemon=True).start()
    threading.Thread(
        target=copy, args=(lambda: upstream.recv(4096), lambda d: os.write(leader, d)), daemon=True
    ).start()
    line = serial_board.TtyLine(os.ttyname(follower), 115200)
    try:
        outcome = framing.exchange(line, ["rtscope-probe", "list", "--json"], answer_s=5, run_s=10)
    finally:
        line.close()
        upstream.close()
        os.close(follower)
        os.close(leader)
    assert json.loads(outcome.console)["format"] == "rtscope-bench-list"


# ------------------------------------------------------------- end to end, QEMU standing in for the board


@slow_fixture(scope="module")
def uart_image(board_tools: None) -> Path:
    return GdbBoardTarget("gdb://127.0.0.1:1:serial=tcp:127.0.0.1:1").image


@pytest.fixture
def debug_probe(uart_image: Path, tmp_path: Path) -> Iterator[tuple[EmulatedBoard, int]]:
    """The board behind a GDB server, as OpenOCD would offer it: QEMU halted, its gdbstub on a port."""
    gdb_port = free_port()
    board = EmulatedBoard(tmp_path, "-S", "-gdb", f"tcp:127.0.0.1:{gdb_port}")
    yield board, gdb_port
    board.close()


@pytest.fixture
def flashed(uart_image: Path, tmp_path: Path) -> Iterator[EmulatedBoard]:
    """A board the user flashed: the image runs from power-on."""
    board = EmulatedBoard(tmp_path, "-kernel", str(uart_image))
    yield board
    board.close()


@pytest.mark.usefixtures("board_tools")
def test_a_run_through_a_debug_probe_and_the_serial_line(debug_probe, rtscope, tmp_path: Path):
    board, gdb_port = debug_probe
    # QEMU's monitor knows no "reset halt", OpenOCD's: the load stops there, in one line.
    outcome = rtscope("--target", f"gdb://127.0.0.1:{gdb_port}:serial=tcp:127.0.0.1:{board.serial_port}", "list")
    assert outcome.status != 0 and "cannot load the image through" in outcome.err, outcome.err
    assert "reset" in outcome.err.splitlines()[-1]
    spec = f"gdb://127.0.0.1:{gdb_port}:reset=system_reset:serial=tcp:127.0.0.1:{board.serial_port}"
    outcome = rtscope(
        "--target", spec, "run", "mutex.ops", "ctxsw.sem", "--duration", "0.2", "--json", tmp_path / "r.json"
    )
    assert outcome.status == 0, outcome.err
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["target"]["kind"] == "gdb" and doc["target"]["time_base"] == "instructions"
    assert doc["system"]["hostname"] == "mps2-an385" and doc["system"]["os"] == "FreeRTOS"
    assert all(bench["status"] == "ok" for bench in doc["benches"]), doc["benches"]
    assert all(metric["valid"] for metric in doc["metrics"])
    link = doc["target"]["detail"]["link"]
    assert link["bytes_from_board"] > 0 and link["asked_again"] == 0


@pytest.mark.usefixtures("board_tools")
def test_a_gdb_server_that_is_not_there_is_one_line(uart_image: Path):
    target = make_target(f"gdb://127.0.0.1:{free_port()}:serial=tcp:127.0.0.1:{free_port()}", Path("unused"))
    started = time.monotonic()
    with pytest.raises(
        RtscopeError,
        match=r"^gdb://127\.0\.0\.1:\d+:serial=.*: cannot load the image through 127\.0\.0\.1:\d+: "
        r"127\.0\.0\.1:\d+: Connection (refused|timed out)\.$",
    ):
        target.probe_system()
    assert time.monotonic() - started < 20


class GarblingProxy:
    """A noisy line: copies the board's UART to the host and back, flipping every ``every``-th byte the
    board sends."""

    def __init__(self, upstream_port: int, every: int):
        self.upstream_port, self.every = upstream_port, every
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                host, _ = self.server.accept()
                board = self._upstream()
                threading.Thread(target=self._copy, args=(host, board, None), daemon=True).start()
                threading.Thread(target=self._copy, args=(board, host, self.every), daemon=True).start()

    def _upstream(self) -> socket.socket:
        """The board's UART socket, asked again while QEMU is still taking its last client's leave."""
        deadline = time.monotonic() + 5
        while True:
            try:
                return socket.create_connection(("127.0.0.1", self.upstream_port))
            except ConnectionRefusedError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    @staticmethod
    def _copy(source: socket.socket, sink: socket.socket, every: int | None) -> None:
        seen = 0
        with contextlib.suppress(OSError), source, sink:
            while data := source.recv(4096):
                if every is not None:
                    damaged = bytearray(data)
                    for at in range(-seen % every, len(data), every):
                        damaged[at] ^= 0x08
                    data = bytes(damaged)
                seen += len(data)
                sink.sendall(data)

    def close(self) -> None:
        self.server.close()


@pytest.mark.usefixtures("board_tools")
def test_a_flashed_board_on_a_noisy_line_and_a_reset_mid_run(flashed: EmulatedBoard):
    proxy = GarblingProxy(flashed.serial_port, every=3000)
    try:
        target = SerialBoardTarget(f"serial:tcp:127.0.0.1:{proxy.port}")
        doc = target.run(RunRequest(("mutex.ops",), 0.2, "fifo", 80)).doc
        target._line.close()
        assert doc["run"]["status"] == "complete" and doc["system"]["hostname"] == "mps2-an385"
        assert target.last is not None and target.last.asked_again >= 1  # the garbled frame, sent again
        assert target.record()["time_base"] == "instructions"
    finally:
        proxy.close()

    # The board is reset while it measures: the run ends in one line, within its time.
    line = SocketLine.connect("127.0.0.1", flashed.serial_port)
    started = time.monotonic()
    reset = threading.Event()

    def on_console(text: str) -> None:
        if "mutex.ops for" in text and not reset.is_set():
            reset.set()
            flashed.reset()

    try:
        with pytest.raises(ProbeError, match=r"the board started again during the run \(it said hello\)$"):
            framing.exchange(
                line,
                ["rtscope-probe", "run", "mutex.ops", "--duration", "30", "--json", "r.json"],
                answer_s=10,
                run_s=60,
                echo=on_console,
            )
    finally:
        line.close()
    assert reset.is_set() and time.monotonic() - started < 30


@pytest.mark.usefixtures("board_tools")
def test_a_board_that_never_answers_on_its_uart_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # A board held in reset (QEMU halted, nothing loaded): its UART says nothing.
    monkeypatch.setattr(serial_board, "ANSWER_S", 2.0)
    silent = EmulatedBoard(tmp_path, "-S")
    try:
        target = SerialBoardTarget(f"serial:tcp:127.0.0.1:{silent.serial_port}")
        started = time.monotonic()
        with pytest.raises(
            ProbeError, match=r"the board did not answer within 2 s \(is it running an image built with"
        ):
            target.probe_system()
        assert time.monotonic() - started < 10
        target._line.close()
    finally:
        silent.close()


@pytest.mark.usefixtures("board_tools")
def test_a_board_that_faults_says_where_in_one_line(uart_image: Path, tmp_path: Path):
    # The fault's last words come outside frames, then the fault status in its frame.
    faulty = _with_undefined_instruction(uart_image, "rts_run_execute", tmp_path / "faulty")
    board = EmulatedBoard(tmp_path, "-kernel", str(faulty))
    try:
        target = SerialBoardTarget(f"serial:tcp:127.0.0.1:{board.serial_port}")
        started = time.monotonic()
        with pytest.raises(ProbeError, match=r": rtscope-probe: guest fault: UsageFault at pc 0x[0-9a-f]{8} "):
            target.run(RunRequest(("mutex.ops",), 0.2, "fifo", 80))
        assert time.monotonic() - started < 30
        target._line.close()
    finally:
        board.close()
