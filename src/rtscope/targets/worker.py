"""Running the probe as a worker process: its stderr streams through to the user as it comes."""

import codecs
import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import IO, Any, TextIO

from rtscope.errors import RtscopeError
from rtscope.model.result import MAX_FILE_BYTES

# Enough of the probe's output to find its last line, however much it prints.
_TAIL_CHARS = 4096


def run(command: list[str], *, remote: bool = False, cwd: str | None = None) -> tuple[int, str, bytes]:
    """Run the probe ``command``, copying its stderr (progress, warnings) to rtscope's stderr as it comes.

    Returns its exit status, the last line it printed on stderr (its message when it fails) and
    what it wrote on stdout (its result with ``--json -``; rtscope prints its own summary). Ctrl-C
    is waited out: the probe gets it too, and stops after writing what it measured. SIGTERM sent
    to rtscope is passed on to the probe, which stops the same way.

    ``remote``: the command is an ssh client running the probe under the lifeline of
    rtscope.targets.remote.ssh, which reads signal names from its standard input. The client runs in a
    session of its own (Ctrl-C would kill it, not the probe) and the stops go through the lifeline.
    ``cwd``: the directory it runs in (default: rtscope's).
    """
    relay = _Relay(sys.stderr)
    process: subprocess.Popen[bytes] | None = None
    stopped = False  # a stop request came, and went to the probe once it runs

    def stop(name: str) -> None:
        nonlocal stopped
        stopped = True
        if process is None:  # still starting: told as soon as it runs
            return
        if not remote:
            process.terminate()
            return
        with contextlib.suppress(OSError):  # the connection is gone: the lifeline stops the probe itself
            assert process.stdin is not None
            process.stdin.write(f"{name}\n".encode())
            process.stdin.flush()

    # SIGTERM is taken before the probe starts: one that came between its start and the handler would end
    # rtscope and leave the probe running, unwatched.
    with _signal_handler(signal.SIGTERM, lambda *_: stop("TERM")):
        try:
            process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE if remote else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=remote,
                cwd=cwd,
            )
        except OSError as error:
            raise RtscopeError(f"cannot run the probe {command[0]}: {error.strerror}") from None
        if stopped:
            stop("TERM")
        stderr = process.stderr
        assert stderr is not None and process.stdout is not None  # PIPE
        # stdout is read beside the relay of stderr: either pipe filling up would stall the probe.
        output = bytearray()
        reader = threading.Thread(target=_collect, args=(process.stdout, output), daemon=True)
        reader.start()
        with process:
            try:
                relay.copy(stderr)
                process.wait()
            except KeyboardInterrupt:
                # Ctrl-C reached the whole foreground process group, the probe included (a remote one
                # is told). Wait for it to finish writing; a second Ctrl-C still reaches the probe.
                stopped = True
                with _signal_handler(signal.SIGINT, (lambda *_: stop("INT")) if remote else signal.SIG_IGN):
                    if remote:
                        stop("INT")
                    relay.copy(stderr)
                    process.wait()
            reader.join()  # before the pipes close with the block
    if stopped and not output and process.returncode in _ENDED_BY_A_STOP:
        # The stop came before the probe could catch it (in its first instants, which a loaded machine
        # stretches): it ended as the signal ends a process, having measured nothing. That is the run
        # stopped, as asked, not a probe that failed.
        raise KeyboardInterrupt
    return process.returncode, relay.last_line(), bytes(output)


# How a process ends that a stop request (SIGINT, SIGTERM) killed before it caught one: by the signal
# (a local child's negative status), or as a remote shell reports it (128 + the signal).
_ENDED_BY_A_STOP = {-signal.SIGINT, -signal.SIGTERM, 128 + signal.SIGINT, 128 + signal.SIGTERM}


def _collect(stream: IO[bytes], into: bytearray) -> None:
    """Read ``stream`` to its end into ``into``, keeping no more than a result file may hold (and one byte
    more, so that a reader knows it was too long)."""
    while chunk := stream.read(65536):
        into += chunk[: max(0, MAX_FILE_BYTES + 1 - len(into))]


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
