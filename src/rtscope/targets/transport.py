"""How rtscope reaches the machine it measures: the only way the analyzer touches it.

A transport runs commands there (an argv, never a shell string built from user input), starts
background processes (loads) that end when rtscope does, and moves and reads files. The probe, the
loads and the facts about the measured system all go through the target's transport, so that a load
stresses the machine the probe runs on and its checks read that machine's /proc. LocalTransport is
this machine; SSH and QEMU transports implement the same protocol.
"""

import contextlib
import glob
import os
import signal
import subprocess
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from rtscope import files
from rtscope.errors import RtscopeError
from rtscope.targets import worker

# Bounds on commands there that answer at once, only so that a hung machine or connection ends in an error
# rather than a wait without end: each is many times what a slow board behind a busy link takes.
# A command that asks something (command -v, mktemp, uname, a snapshot of /proc).
ASK_TIMEOUT_S = 30
# A command whose answer is data to bring back (a file, the files of a set of globs, the probe's catalogue):
# twice as long, as a slow link takes longer over more bytes.
FETCH_TIMEOUT_S = 60


@dataclass(frozen=True)
class Completed:
    """How a command ended: its exit status (negative: killed by that signal) and what it printed."""

    status: int
    stdout: bytes
    stderr: bytes


class Process(Protocol):
    """A background process started by a transport, leading its own process group."""

    pid: int

    def poll(self) -> int | None:
        """Its exit status once it has ended, else None."""

    def signal_group(self, signum: int) -> None:
        """Send ``signum`` to its whole process group (nothing when the group is gone)."""

    def wait(self, timeout_s: float) -> int | None:
        """Wait up to ``timeout_s`` for it to end; its exit status, or None when it still runs."""


class Transport(Protocol):
    """The operations rtscope needs on the measured machine."""

    name: str

    def run(self, argv: Sequence[str], *, timeout_s: float | None = None) -> Completed:
        """Run ``argv`` to its end and return its status and output. RtscopeError when it cannot start
        or outlives ``timeout_s`` (it is killed then)."""

    def run_streaming(self, argv: Sequence[str]) -> tuple[int, str, bytes]:
        """Run ``argv`` with its stderr copied to rtscope's as it comes; its exit status, the last line
        it printed there, and its stdout (the probe's result with ``--json -``). Ctrl-C reaches it and is
        waited out, so that it can write what it has."""

    def spawn(self, argv: Sequence[str], log: str) -> Process:
        """Start ``argv`` in the background in a process group of its own, its output to the file
        ``log`` there; it is killed if rtscope ends, however rtscope ends."""

    def read_file(self, path: str) -> bytes:
        """The bytes of the file at ``path`` there; FileNotFoundError when there is none."""

    def read_files(self, patterns: Sequence[str]) -> dict[str, bytes | None]:
        """Every file there that a shell glob of ``patterns`` names, by path, in one go (a remote target
        answers in one round trip): its bytes, or None when it is there but cannot be read."""

    def temp_dir(self) -> contextlib.AbstractContextManager[str]:
        """A new private directory there, removed with what it holds on leaving the ``with`` block."""


class LocalProcess:
    """A process of this machine started by LocalTransport.spawn."""

    def __init__(self, popen: subprocess.Popen[bytes]):
        self._popen = popen
        self.pid = popen.pid

    def poll(self) -> int | None:
        return self._popen.poll()

    def signal_group(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signum)

    def wait(self, timeout_s: float) -> int | None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            return self._popen.wait(timeout=timeout_s)
        return None


class LocalTransport:
    """This machine, through subprocess and the file system."""

    name = "local"

    def run(self, argv: Sequence[str], *, timeout_s: float | None = None) -> Completed:
        try:
            completed = subprocess.run(
                list(argv), stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout_s, check=False
            )
        except OSError as error:
            raise RtscopeError(f"cannot run {argv[0]}: {error.strerror}") from None
        except subprocess.TimeoutExpired:
            raise RtscopeError(f"{argv[0]} did not finish within {timeout_s:g} s") from None
        return Completed(completed.returncode, completed.stdout, completed.stderr)

    def run_streaming(self, argv: Sequence[str]) -> tuple[int, str, bytes]:
        return worker.run(list(argv))

    def spawn(self, argv: Sequence[str], log: str) -> LocalProcess:
        # Output to a file: a pipe nobody reads could fill and stall the process.
        with open(log, "wb") as output:
            try:
                popen = subprocess.Popen(
                    dying_with_rtscope(argv),
                    stdin=subprocess.DEVNULL,
                    stdout=output,
                    stderr=output,
                    start_new_session=True,
                )
            except OSError as error:
                raise RtscopeError(f"cannot start {argv[0]}: {error.strerror}") from None
        return LocalProcess(popen)

    def read_file(self, path: str) -> bytes:
        return Path(path).read_bytes()

    def read_files(self, patterns: Sequence[str]) -> dict[str, bytes | None]:
        found: dict[str, bytes | None] = {}
        for path in (path for pattern in patterns for path in sorted(glob.glob(pattern))):
            try:
                found[path] = Path(path).read_bytes()
            except FileNotFoundError:
                continue  # gone since the glob
            except OSError:
                found[path] = None
        return found

    @contextlib.contextmanager
    def temp_dir(self) -> Iterator[str]:
        with files.private_dir("rtscope-") as directory:
            yield str(directory)


def dying_with_rtscope(argv: Sequence[str]) -> list[str]:
    """``argv`` started so that it is SIGKILLed when rtscope ends, however rtscope ends (Linux): util-linux
    setpriv sets the parent-death signal and then becomes ``argv``, so nothing runs in Python between fork
    and exec (unsafe in a process with threads) and the process keeps its pid."""
    return ["setpriv", "--pdeathsig", "KILL", *argv]


def sigterm_interrupts() -> None:
    """From here on, SIGTERM ends rtscope as Ctrl-C does (KeyboardInterrupt), so that what it holds — a
    labgrid place, its campaign's workers — is given back on the way out. In the main thread, where no
    handler is set yet; a no-op elsewhere."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _interrupt)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def undisturbed() -> Iterator[None]:
    """Ctrl-C and SIGTERM ignored for the block (in the main thread): for giving back what rtscope holds on
    its way out, which a second signal must not cut short."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {signum: signal.signal(signum, signal.SIG_IGN) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


def read_with_cat(transport: Transport, path: str, *, timeout_s: float) -> bytes:
    """The bytes of the file at ``path`` there, read by ``cat`` through the transport's run (a target
    reached through its shell): FileNotFoundError when there is none, PermissionError when it may not be
    read, OSError naming the file, the target and cat's reason otherwise."""
    completed = transport.run(["cat", "--", path], timeout_s=timeout_s)
    if completed.status == 0:
        return completed.stdout
    reason = worker.last_line(completed.stderr.decode(errors="replace"))
    if "No such file" in reason:
        raise FileNotFoundError(path)
    message = f"cannot read {path} on {transport.name}: {reason}"
    if "Permission denied" in reason:
        raise PermissionError(message)
    raise OSError(message)


def has_command(transport: Transport, tool: str) -> bool:
    """Whether ``tool`` is an executable on the PATH there. The name travels as an argument, not as
    shell text."""
    return transport.run(["sh", "-c", 'command -v "$1" >/dev/null', "sh", tool], timeout_s=ASK_TIMEOUT_S).status == 0


def cpu_count(transport: Transport) -> int:
    """How many CPUs are online there (/sys/devices/system/cpu/online), at least 1."""
    try:
        online = transport.read_file("/sys/devices/system/cpu/online").decode().strip()
    except OSError:
        return 1
    count = 0
    for part in filter(None, online.split(",")):
        first, _, last = part.partition("-")
        count += int(last or first) - int(first) + 1
    return max(count, 1)


def glob_script() -> str:
    """A POSIX sh script that prints every file its arguments' globs name (after $1, a token): each file's
    bytes after a line "TOKEN R PATH", and "TOKEN U PATH" when it cannot be read. The token is new each
    time, so no file's bytes can pose as one; :func:`parse_globbed` reads the output."""
    return (
        't=$1; shift; for p in "$@"; do for f in $p; do [ -e "$f" ] || continue; '
        'printf "\\n%s R %s\\n" "$t" "$f"; cat -- "$f" 2>/dev/null || printf "\\n%s U %s\\n" "$t" "$f"; '
        "done; done; true"
    )


def parse_globbed(output: bytes, token: str) -> dict[str, bytes | None]:
    """The files in the output of :func:`glob_script` run with ``token``, by path (None: unreadable)."""
    found: dict[str, bytes | None] = {}
    for record in output.split(f"\n{token} ".encode())[1:]:
        kind, _, rest = record.partition(b" ")
        path, _, content = rest.partition(b"\n")
        found[path.decode(errors="replace")] = content if kind == b"R" else None
    return found
