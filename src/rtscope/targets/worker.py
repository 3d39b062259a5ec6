"""Running the probe as a worker process: its stderr streams through to the user as it comes."""

import codecs
import contextlib
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import IO, Any, TextIO

from rtscope.errors import RtscopeError

# Enough of the probe's output to find its last line, however much it prints.
_TAIL_CHARS = 4096


def run(command: list[str]) -> tuple[int, str]:
    """Run the probe ``command``, copying its stderr (progress, warnings) to rtscope's stderr as it comes.

    Returns its exit status and the last line it printed (its message when it fails). Ctrl-C is
    waited out: the probe gets it too, and stops after writing what it measured. SIGTERM sent to
    rtscope is passed on to the probe, which stops the same way.
    """
    relay = _Relay(sys.stderr)
    try:
        # With --json FILE the probe's stdout holds only its own summary, which rtscope replaces.
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE)
    except OSError as error:
        raise RtscopeError(f"cannot run the probe {command[0]}: {error.strerror}") from None
    stderr = process.stderr
    assert stderr is not None  # stderr=PIPE
    with process, _signal_handler(signal.SIGTERM, lambda *_: process.terminate()):
        try:
            relay.copy(stderr)
            process.wait()
        except KeyboardInterrupt:
            # Ctrl-C reached the whole foreground process group, the probe included. Wait for it
            # to finish writing; a second Ctrl-C still reaches the probe directly.
            with _signal_handler(signal.SIGINT, signal.SIG_IGN):
                relay.copy(stderr)
                process.wait()
    return process.returncode, relay.last_line()


def last_line(text: str) -> str:
    """The last non-blank line of ``text`` (lines may end in "\\r" as well as "\\n"), or ""."""
    return next((line.strip() for line in reversed(re.split(r"[\r\n]", text)) if line.strip()), "")


class _Relay:
    """Copies a child's output to a text stream as it comes, and remembers the end of it."""

    def __init__(self, sink: TextIO):
        self._sink = sink
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._tail = ""

    def copy(self, stream: IO[bytes]) -> None:
        """Copy ``stream`` until it ends. Chunks, not lines: progress lines ending in "\\r" show at once."""
        while chunk := os.read(stream.fileno(), 65536):
            text = self._decoder.decode(chunk)
            self._sink.write(text)
            self._sink.flush()
            self._tail = (self._tail + text)[-_TAIL_CHARS:]

    def last_line(self) -> str:
        """The last non-blank line copied so far, or ""."""
        return last_line(self._tail)


def signal_name(number: int) -> str:
    """The name of signal ``number`` ("SIGSEGV"), or "signal N" for one Python does not know."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


@contextlib.contextmanager
def _signal_handler(signum: int, handler: Any) -> Iterator[None]:
    previous = signal.signal(signum, handler)
    try:
        yield
    finally:
        signal.signal(signum, previous)
