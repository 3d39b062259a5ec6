"""rtscope's serial link, the host's end: the twin of the board's probe/boards/common/frame.c (its header
describes the protocol; docs/boards.md too).

A frame is ``A5 5A``, a type letter, a u16 sequence number, a u16 length and its complement, the payload
and a CRC-32 (zlib's) of type..payload, little-endian. Bytes outside frames are the board's own text (a
boot banner, a fault's last words): :class:`Decoder` hands them back as they come, so they can be shown,
and finds the next frame after them; a frame that fails a check is dropped and the search goes on from
the byte after its marker.

:func:`exchange` runs one request: it sends the probe's argv until the board accepts it, acknowledges
each numbered frame the board sends (console text, the result's chunks, its commit, the exit status),
asks again for one that came garbled or cut short, and gives up in one line (ProbeError) when the board
never answers, when one frame stays garbled, when the board boots again mid-run, or when the run
outlives its time. Nothing is kept of a run that did not end with its status.
"""

import random
import struct
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from rtscope.errors import ProbeError, ProbeRejected

MARKER = b"\xa5\x5a"
_HEADER = struct.Struct("<2scHHH")
OVERHEAD = _HEADER.size + 4
MAX_PAYLOAD = 2048

HELLO, REQUEST, ACCEPT = "H", "R", "A"
OUTPUT, DATA, COMMIT, ABORT, STATUS = "O", "D", "C", "X", "S"
ACK, RESEND = "K", "N"
# The board's numbered frames, each acknowledged.
SEQUENCED = frozenset((OUTPUT, DATA, COMMIT, ABORT, STATUS))

# How often the request is sent again until the board accepts it.
REQUEST_EVERY_S = 1.0
# A frame begun but not finished after this long was cut short: it is asked for again.
TRUNCATED_AFTER_S = 0.5
# How many times one frame may come garbled or cut short before the exchange gives up.
MAX_BAD = 5
_READ_S = 0.05


@dataclass(frozen=True)
class Frame:
    type: str
    seq: int
    payload: bytes


def encode(frame_type: str, seq: int, payload: bytes = b"") -> bytes:
    """The frame's bytes on the line."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"a frame holds at most {MAX_PAYLOAD} bytes")
    header = _HEADER.pack(MARKER, frame_type.encode(), seq & 0xFFFF, len(payload), len(payload) ^ 0xFFFF)
    return header + payload + struct.pack("<I", zlib.crc32(header[2:] + payload))


class Decoder:
    """The byte stream from the line as frames and the text between them."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self.bad = 0  # frames dropped for a failed check
        self.noise = 0  # bytes outside frames
        self.fed = 0  # every byte fed

    def feed(self, data: bytes) -> list[Frame | bytes]:
        """What ``data`` completes, in order: frames, and runs of bytes outside frames."""
        self.fed += len(data)
        self._buffer += data
        found: list[Frame | bytes] = []
        noise = bytearray()
        while self._buffer:
            start = self._buffer.find(MARKER[0])
            if start < 0:
                start = len(self._buffer)
            elif start + 1 < len(self._buffer) and self._buffer[start + 1] != MARKER[1]:
                start += 1  # a lone first byte of the marker is noise
            if start:
                noise += self._buffer[:start]
                del self._buffer[:start]
                continue
            if len(self._buffer) < _HEADER.size:
                break
            _, kind, seq, length, check = _HEADER.unpack_from(self._buffer)
            if length ^ check != 0xFFFF or length > MAX_PAYLOAD:
                self._drop_one()
                continue
            if len(self._buffer) < OVERHEAD + length:
                break
            body = bytes(self._buffer[2 : _HEADER.size + length])
            (crc,) = struct.unpack_from("<I", self._buffer, _HEADER.size + length)
            if zlib.crc32(body) != crc:
                self._drop_one()
                continue
            if noise:
                found.append(bytes(noise))
                noise.clear()
            found.append(Frame(kind.decode("latin-1"), seq, body[_HEADER.size - 2 :]))
            del self._buffer[: OVERHEAD + length]
        if noise:
            found.append(bytes(noise))
        self.noise += sum(len(item) for item in found if isinstance(item, bytes))
        return found

    @property
    def pending(self) -> bool:
        """Whether a frame has begun and not yet come whole."""
        return bool(self._buffer)

    def _drop_one(self) -> None:
        """A bad frame: its marker's first byte goes, and the search goes on after it."""
        self.bad += 1
        del self._buffer[:1]


class Line(Protocol):
    """A byte stream to the board and back: a serial port, a pty, an emulator's UART socket."""

    name: str

    def read(self, timeout_s: float) -> bytes:
        """What the board sent, waiting up to ``timeout_s`` for the first byte (b"" when nothing came);
        ProbeError when the line is gone."""

    def write(self, data: bytes) -> None:
        """Send ``data`` to the board; ProbeError when the line is gone."""

    def close(self) -> None:
        """Give the line back (idempotent)."""


@dataclass
class Outcome:
    """How a request ended on the board: its exit status, the result document it committed (None when it
    wrote none or gave it up: ``aborted`` says why), its console text, what the board said of itself
    when it accepted, and the bytes that crossed the line from the board."""

    status: int
    document: bytes | None
    aborted: str
    console: str
    identity: dict[str, str]
    wire_bytes: int
    frames: int
    asked_again: int
    last_line: str = ""
    noise: list[str] = field(default_factory=list)


def request_payload(argv: Sequence[str]) -> bytes:
    """The probe's argv as a REQUEST carries it: each argument ended by a NUL; ProbeRejected, as the
    board's own semihosting twin says it, when it is longer than a board holds."""
    payload = b"".join(arg.encode() + b"\0" for arg in argv)
    if len(payload) > MAX_PAYLOAD or any("\0" in arg for arg in argv):
        raise ProbeRejected(
            f"rtscope-probe: the request is longer than the image holds ({MAX_PAYLOAD} bytes of command line)"
        )
    return payload


def exchange(
    line: Line,
    argv: Sequence[str],
    *,
    answer_s: float,
    run_s: float,
    echo: Callable[[str], None] = lambda text: None,
) -> Outcome:
    """Run ``argv`` on the board at the other end of ``line``: the board must accept it within
    ``answer_s`` and end the run within ``run_s`` of accepting it. Console text goes to ``echo`` as it
    comes. ProbeError in one line on every failure of the line or the board."""
    return _Exchange(line, argv, echo).run(answer_s, run_s)


class _Exchange:
    """One request on the line: what has come of it so far."""

    def __init__(self, line: Line, argv: Sequence[str], echo: Callable[[str], None]):
        self.line, self.echo = line, echo
        self.session = random.randrange(1, 0x10000)
        self.request = encode(REQUEST, self.session, request_payload(argv))
        self.decoder = Decoder()
        self.started = self.last_byte_at = time.monotonic()
        self.asked_at = -REQUEST_EVERY_S
        self.accepted_at: float | None = None
        self.identity: dict[str, str] = {}
        self.expected = 0  # the number of the board's next frame
        self.bad_runs = 0  # times the frame expected came garbled or cut short
        self.document = bytearray()
        self.committed: bytes | None = None
        self.aborted = ""
        self.console: list[str] = []
        self.noise: list[str] = []
        self.frames = self.asked_again = 0
        self.status: int | None = None

    def run(self, answer_s: float, run_s: float) -> Outcome:
        while self.status is None:
            self._keep_time(answer_s, run_s)
            data = self.line.read(_READ_S)
            now = time.monotonic()
            if data:
                self.last_byte_at = now
            bad_before, expected_before = self.decoder.bad, self.expected
            for item in self.decoder.feed(data):
                self._take(item, now)
                if self.status is not None:
                    break
            else:
                garbled = self.decoder.bad > bad_before and self.expected == expected_before
                self._ask_again_if_damaged(now, garbled)
        text = "".join(self.console)
        return Outcome(
            self.status,
            self.committed,
            self.aborted,
            text,
            self.identity,
            self.decoder.fed,
            self.frames,
            self.asked_again,
            _last_line(text) or _last_line("".join(self.noise)),
            self.noise,
        )

    def _keep_time(self, answer_s: float, run_s: float) -> None:
        """Send the request (again) until the board accepts it; ProbeError past either deadline."""
        now = time.monotonic()
        if self.accepted_at is None:
            if now - self.started > answer_s:
                raise ProbeError(
                    f"{self.line.name}: the board did not answer within {answer_s:g} s (is it running an image "
                    "built with LINK=uart, on this line, at this baud rate?)"
                )
            if now - self.asked_at >= REQUEST_EVERY_S:
                self.line.write(self.request)
                self.asked_at = now
        elif now - self.accepted_at > run_s:
            raise ProbeError(f"{self.line.name}: the board did not end the run within {run_s:g} s")

    def _take(self, item: Frame | bytes, now: float) -> None:
        """One frame or run of text from the board."""
        if isinstance(item, bytes):
            text = item.decode(errors="replace")
            self.noise.append(text)
            if all(char.isprintable() or char in "\r\n\t" for char in text):
                self.echo(text)  # the board's own words; not the remains of a garbled frame
            return
        self.frames += 1
        accepted = self.accepted_at is not None
        if item.type == HELLO:
            if accepted:
                raise ProbeError(f"{self.line.name}: the board started again during the run (it said hello)")
            self.line.write(self.request)  # it booted just now: no need to wait for the next try
            self.asked_at = now
        elif item.type == ACCEPT and item.seq == self.session and not accepted:
            self.accepted_at = now
            self.identity = _identity(item.payload)
        elif accepted and item.type in SEQUENCED and item.seq == (self.expected - 1) & 0xFFFF:
            self.line.write(encode(ACK, item.seq))  # our acknowledgement was lost: the board sent it again
        elif accepted and item.type in SEQUENCED and item.seq == self.expected & 0xFFFF:
            self.line.write(encode(ACK, item.seq))
            self.expected += 1
            self.bad_runs = 0
            self._use(item)

    def _use(self, frame: Frame) -> None:
        """What a numbered frame, come whole and in order, brings."""
        if frame.type == OUTPUT:
            text = frame.payload.decode(errors="replace")
            self.console.append(text)
            self.echo(text)
        elif frame.type == DATA:
            self.document += frame.payload
        elif frame.type == COMMIT:
            self.committed = _committed(self.line.name, bytes(self.document), frame.payload)
        elif frame.type == ABORT:
            self.aborted = frame.payload.decode(errors="replace")
            self.document.clear()
        elif frame.type == STATUS:
            (self.status,) = struct.unpack("<i", frame.payload[:4].rjust(4, b"\0"))

    def _ask_again_if_damaged(self, now: float, garbled: bool) -> None:
        """Ask for the frame expected again when one came garbled, or has been cut short this long;
        ProbeError when that has happened too often in a row."""
        cut_short = self.decoder.pending and now - self.last_byte_at > TRUNCATED_AFTER_S
        if self.accepted_at is None or not (garbled or cut_short):
            return
        self.bad_runs += 1
        if self.bad_runs > MAX_BAD:
            raise ProbeError(
                f"{self.line.name}: frame {self.expected} of the result came garbled or cut short {MAX_BAD + 1} "
                "times: giving up (a noisy line? a lower baud rate may help)"
            )
        self.line.write(encode(RESEND, self.expected))
        self.asked_again += 1
        self.last_byte_at = now


def _committed(name: str, document: bytes, payload: bytes) -> bytes:
    """The document whole, as its COMMIT frame describes it (length and CRC-32); ProbeError otherwise."""
    if len(payload) != 8:
        raise ProbeError(f"{name}: the board's commit frame is not a length and a checksum")
    length, crc = struct.unpack("<II", payload)
    if length != len(document) or crc != zlib.crc32(document):
        raise ProbeError(
            f"{name}: the result came in whole frames but not whole ({len(document)} bytes, the board sent {length})"
        )
    return document


def _identity(payload: bytes) -> dict[str, str]:
    """What the board says of itself: "rtscope-link/1 board=NAME" as {"link": "1", "board": NAME}."""
    words = payload.decode(errors="replace").split()
    found = {"link": words[0].partition("/")[2]} if words and words[0].startswith("rtscope-link/") else {}
    found.update(word.partition("=")[::2] for word in words[1:] if "=" in word)
    return found


def _last_line(text: str) -> str:
    return next((line.strip() for line in reversed(text.splitlines()) if line.strip()), "")


def echo_to_stderr(text: str) -> None:
    """Console text copied to rtscope's stderr as it comes."""
    sys.stderr.write(text)
    sys.stderr.flush()
