"""A board reached over SSH: ``--target ssh://[user@]host[:port]``.

rtscope drives the system's OpenSSH client, so the user's ``~/.ssh/config``, agent and ``known_hosts``
apply (``RTSCOPE_SSH_CONFIG`` names another config file, as the tests and some labs need). A host whose
key is unknown or has changed is refused, never bypassed (``BatchMode``: nothing asks). One master
connection per target carries every command (``ControlMaster``); it goes when the target is closed, or
a minute after rtscope is gone.

Commands travel as an argv, each word quoted for the remote shell (``shlex.join``): no remote shell
string is built from user input. Each runs under a *lifeline*, a few lines of POSIX sh: the command runs
in a session of its own (``setsid``), and the lifeline reads signal names from the connection, sending
each to the command's process group; when the connection closes — the command done, rtscope gone, the
network dropped, sshd killed — it stops the group (SIGTERM, then SIGKILL). Nothing rtscope starts on
the board outlives its connection, and the probe's own watchdog bounds a run even then.

The probe goes to the board by itself: the board's ``uname -m`` picks the static build
(rtscope.targets.probes), copied once into ``~/.cache/rtscope`` there under its content's hash, so a
second run skips the copy (another build there is removed when a new one comes and it is more than a
day old). The probe's result
comes back on its stdout; loads' logs go to a temporary directory there, removed after.
"""

import atexit
import contextlib
import functools
import os
import re
import secrets
import select
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from rtscope.errors import RtscopeError
from rtscope.model import result
from rtscope.model.catalogue import Catalogue
from rtscope.model.request import RunRequest
from rtscope.targets import OnTransport, facts, options, probes, worker
from rtscope.targets.local import kept_catalogue, run_probe
from rtscope.targets.registry import SSH_USAGE as USAGE
from rtscope.targets.transport import (
    ASK_TIMEOUT_S,
    FETCH_TIMEOUT_S,
    Completed,
    glob_script,
    parse_globbed,
    read_with_cat,
)

CONNECT_TIMEOUT_S = 10
# ssh gives up on a silent connection after 3 unanswered probes 5 s apart: a dropped network ends a run
# within about 15 s.
_ALIVE = ("-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3")
# The master connection stays this long after its last command, should rtscope end without closing it.
_PERSIST_S = 60
_STOP_GRACE_S = 2
_SPEC = re.compile(r"ssh://(?:(?P<user>[^@/:\s]+)@)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)(?::(?P<port>\d+))?")

# $1: a file for the command's output ("": the connection's own), then the command. With a file, the
# command's process group id is printed first. Signal names read from the connection go to the group;
# the connection's end stops it. The group exists only once setsid has run in the child: a signal sent
# before then (a Ctrl-C in the run's first instants) is sent again until it lands or the child is gone,
# else the command would run on, its stop lost. A Ctrl-C goes as SIGTERM: a command started in the
# background of a non-interactive shell begins with SIGINT ignored, so an INT that comes before the probe
# catches it is lost, where TERM ends it (the probe takes INT, TERM and HUP alike as a stop request).
_LIFELINE = f"""
out=$1; shift
exec 3<&0 0</dev/null
to_group() {{
    until kill -s "$1" -- "-$child" 2>/dev/null; do
        kill -0 "$child" 2>/dev/null || return 1
        sleep 0.1 2>/dev/null || sleep 1
    done
}}
if [ -n "$out" ]; then
    setsid "$@" >"$out" 2>&1 &
    child=$!
    echo "$child"
else
    setsid "$@" &
    child=$!
fi
(
    while read -r sig <&3; do [ "$sig" = INT ] && sig=TERM; to_group "$sig"; done
    to_group TERM && sleep {_STOP_GRACE_S} && kill -s KILL -- "-$child" 2>/dev/null
) </dev/null >/dev/null 2>&1 &
watcher=$!
wait "$child"
status=$?
kill "$watcher" 2>/dev/null
exit "$status"
"""


class TargetLost(RtscopeError):
    """The connection to the board went away mid-run: the run ends as interrupted."""

    exit_status = 130


def parse_spec(spec: str) -> tuple[str | None, str, int | None]:
    """``ssh://[user@]host[:port]`` as (user, host, port); RtscopeError when it is not one."""
    match = _SPEC.fullmatch(spec)
    port = int(match["port"]) if match and match["port"] else None
    if not match or match["host"].startswith("-") or (port is not None and not 1 <= port <= 65535):
        raise options.refuse(spec, "not a user, host and port", USAGE)
    return match["user"], match["host"].strip("[]"), port


class SshProcess:
    """A background process on the board (a load), under a lifeline: its pid is its process group's."""

    def __init__(self, popen: subprocess.Popen[bytes], pid: int):
        self._popen = popen
        self.pid = pid

    def poll(self) -> int | None:
        return self._popen.poll()

    def signal_group(self, signum: int) -> None:
        with contextlib.suppress(OSError, ValueError):
            assert self._popen.stdin is not None
            self._popen.stdin.write(f"{_signal_word(signum)}\n".encode())
            self._popen.stdin.flush()

    def wait(self, timeout_s: float) -> int | None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            return self._popen.wait(timeout=timeout_s)
        return None


class SshTransport:
    """A machine reached by OpenSSH, over one master connection: its own, which connect opens. A subclass
    whose master another tool opens (rtscope.targets.remote.labgrid) starts with _reach instead of __init__ and
    overrides connect and close; one whose address is known only later (rtscope.targets.remote.labgrid_places)
    calls _reach_spec then."""

    def __init__(self, spec: str):
        self._reach_spec(spec, spec)

    def _reach_spec(self, name: str, spec: str) -> None:
        """Commands go to the board of ``spec`` (ssh://…) by the user's OpenSSH, messages call it ``name``."""
        user, host, port = parse_spec(spec)
        self._control = tempfile.mkdtemp(prefix="rtscope-ssh-")
        config = os.environ.get("RTSCOPE_SSH_CONFIG")
        self._reach(
            name,
            host,
            [
                "-o",
                "BatchMode=yes",
                "-o",
                f"ConnectTimeout={CONNECT_TIMEOUT_S}",
                *_ALIVE,
                "-o",
                f"ControlPath={self._control}/%C",
                *(["-F", config] if config else []),
                *(["-p", str(port)] if port else []),
                *(["-l", user] if user else []),
            ],
        )

    def _reach(self, name: str, host: str, options: list[str]) -> None:
        """Commands go to ``host`` with ``options`` (which name the master connection's ControlPath), and
        messages call it ``name``. Closed when rtscope exits, if not before."""
        self.name = name
        self.host = host
        self._options = options
        self._connected = False
        atexit.register(self.close)

    def connect(self) -> None:
        """Open the master connection (once); RtscopeError with ssh's reason, in one line, when it cannot."""
        if self._connected:
            return
        with tempfile.TemporaryFile() as said:
            try:
                # -f: into the background once logged in; its output to a file, or it would hold a pipe open.
                status = subprocess.run(
                    [
                        "ssh",
                        *self._options,
                        "-o",
                        "ControlMaster=yes",
                        "-o",
                        f"ControlPersist={_PERSIST_S}",
                        "-N",
                        "-f",
                        self.host,
                    ],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=said,
                    timeout=3 * CONNECT_TIMEOUT_S,
                    check=False,
                ).returncode
            except subprocess.TimeoutExpired:
                raise RtscopeError(f"{self.name}: no answer within {3 * CONNECT_TIMEOUT_S} s") from None
            except OSError as error:
                raise RtscopeError(f"cannot run ssh ({error.strerror}): Debian: apt install openssh-client") from None
            said.seek(0)
            reason = said.read().decode(errors="replace")
        if status != 0:
            raise RtscopeError(connection_error(self.name, reason))
        self._connected = True

    def close(self) -> None:
        """End the master connection; what runs on the board ends with it."""
        if self._connected:
            self._connected = False
            subprocess.run(
                ["ssh", *self._options, "-O", "exit", self.host],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=10,
                check=False,
            )
        shutil.rmtree(self._control, ignore_errors=True)

    def _ssh(self, argv: Sequence[str], log: str = "") -> list[str]:
        """The ssh command that runs ``argv`` there under the lifeline, its output to ``log`` if given."""
        self.connect()
        return [
            "ssh",
            *self._options,
            "-o",
            "ControlMaster=no",
            self.host,
            shlex.join(["sh", "-c", _LIFELINE, "sh", log, *argv]),
        ]

    def run(self, argv: Sequence[str], *, timeout_s: float | None = None) -> Completed:
        command = self._ssh(argv)
        # The lifeline stops the command when its input ends: the input is a pipe held open until then.
        lifeline, held = os.pipe()
        try:
            process = subprocess.Popen(
                command, stdin=lifeline, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
            )
        finally:
            os.close(lifeline)
        try:
            stdout, stderr = process.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.close(held)
            held = -1
            process.kill()
            process.communicate()
            raise RtscopeError(f"{argv[0]} on {self.name} did not end within {timeout_s:g} s: stopped") from None
        finally:
            if held >= 0:
                os.close(held)
        if process.returncode == 255:
            raise TargetLost(connection_error(self.name, stderr.decode(errors="replace")))
        return Completed(process.returncode, stdout, stderr)

    def run_streaming(self, argv: Sequence[str]) -> tuple[int, str, bytes]:
        status, last_line, output = worker.run(self._ssh(argv), remote=True)
        if status == 255:  # ssh's own failure (the probe never exits with 255); its stderr was the probe's
            raise TargetLost(f"{self.name}: lost the connection during the run; its lifeline stopped the probe there")
        return status, last_line, output

    def spawn(self, argv: Sequence[str], log: str) -> SshProcess:
        process = subprocess.Popen(
            self._ssh(argv, log),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], 3 * CONNECT_TIMEOUT_S)
        line = process.stdout.readline().decode(errors="replace").strip() if ready else ""
        if not line.isdigit():
            process.kill()
            _, stderr = process.communicate()
            raise RtscopeError(
                f"cannot start {argv[0]} on {self.name}: "
                f"{worker.last_line(stderr.decode(errors='replace')) or 'no answer'}"
            )
        return SshProcess(process, int(line))

    def read_file(self, path: str) -> bytes:
        return read_with_cat(self, path, timeout_s=FETCH_TIMEOUT_S)

    def read_files(self, patterns: Sequence[str]) -> dict[str, bytes | None]:
        token = secrets.token_hex(16)
        globbed = self.run(["sh", "-c", glob_script(), "sh", token, *patterns], timeout_s=FETCH_TIMEOUT_S)
        return parse_globbed(globbed.stdout, token)

    @contextlib.contextmanager
    def temp_dir(self) -> Iterator[str]:
        made = self.run(["mktemp", "-d", "-t", "rtscope-XXXXXX"], timeout_s=ASK_TIMEOUT_S)
        directory = made.stdout.decode(errors="replace").strip()
        if made.status != 0 or not directory.startswith("/"):
            raise RtscopeError(
                f"cannot make a temporary directory on {self.name}: "
                f"{worker.last_line(made.stderr.decode(errors='replace'))}"
            )
        try:
            yield directory
        finally:
            with contextlib.suppress(RtscopeError):
                self.run(["rm", "-rf", "--", directory], timeout_s=ASK_TIMEOUT_S)

    def put_probe(self, local: Path, remote: str) -> None:
        """Copy the executable ``local`` to ``remote`` (…/rtscope-probe-HASH) there, whole or not at all,
        and remove the other builds beside it that came more than a day ago."""
        # The script is fixed; the path travels as its argument. Each copy writes a file of its own
        # (the shell's pid): two places of one fleet on one host copy the same build at once, and one's
        # rename took the other's half-written file. Another build stays a day: an rtscope of another
        # version may have just found it there and be about to start it (a run already started keeps its
        # file until it ends). Without find's -mmin (a small BusyBox) nothing is removed.
        script = (
            'part="$1.part-$$"\n'
            'cat > "$part" && chmod 755 "$part" && mv -f "$part" "$1" || { rm -f "$part"; exit 1; }\n'
            'find "${1%/*}" -maxdepth 1 -name "rtscope-probe-*" ! -name "${1##*/}" -mmin +1440 '
            "-exec rm -f {} \\; 2>/dev/null || true"
        )
        with local.open("rb") as data:
            completed = subprocess.run(
                [
                    "ssh",
                    *self._options,
                    "-o",
                    "ControlMaster=no",
                    self.host,
                    shlex.join(["sh", "-c", script, "sh", remote]),
                ],
                stdin=data,
                capture_output=True,
                timeout=300,
                check=False,
            )
        if completed.returncode != 0:
            said = worker.last_line(completed.stderr.decode(errors="replace"))
            reason = said or f"exit status {completed.returncode}"
            raise RtscopeError(f"cannot copy the probe to {self.name}:{remote}: {reason}")


class SshTarget:
    """Runs the static probe on a board over SSH; loads and facts go through the same connection."""

    def __init__(self, spec: str, transport: SshTransport | None = None):
        """The board of ``spec``, reached by ``transport`` (default: an SshTransport of its own for it)."""
        self.name = spec
        self.transport = transport or SshTransport(spec)

    @functools.cached_property
    def catalogue(self) -> Catalogue:
        """What the probe placed there lists, asked once per build."""
        return kept_catalogue(self.transport, self._probe, self._build, self.name)

    def load_place(self) -> OnTransport:
        """On the board, beside the probe, over the same connection."""
        return OnTransport()

    def record(self) -> dict[str, Any]:
        """The board, on its own clocks."""
        return {"name": self.name, "kind": "ssh", "time_base": "hardware"}

    def run(self, request: RunRequest) -> result.Result:
        """Run the probe there on ``request``: see rtscope.targets.local.run_probe."""
        return run_probe(self.transport, self._probe, request)

    @functools.cached_property
    def _placement(self) -> tuple[Path, str]:
        """The build for the board's architecture, and its path there: copied unless already there. One
        round trip asks the architecture, makes the directory and lists it."""
        script = 'd="${XDG_CACHE_HOME:-$HOME/.cache}/rtscope" && mkdir -p "$d" && cd "$d" && uname -m && pwd && ls -A'
        asked = self.transport.run(["sh", "-c", script], timeout_s=ASK_TIMEOUT_S)
        lines = asked.stdout.decode(errors="replace").splitlines()
        if asked.status != 0 or len(lines) < 2 or not lines[1].startswith("/"):
            raise RtscopeError(
                f"cannot make the probe's directory on {self.name}: "
                f"{worker.last_line(asked.stderr.decode(errors='replace')) or 'no answer'}"
            )
        machine, directory, present = lines[0], lines[1], set(lines[2:])
        local = probes.probe_for(machine)
        name = f"rtscope-probe-{probes.identity(local)[:16]}"
        if name not in present:
            self.transport.put_probe(local, f"{directory}/{name}")
        return local, f"{directory}/{name}"

    @property
    def _probe(self) -> str:
        return self._placement[1]

    @property
    def _build(self) -> str:
        return probes.identity(self._placement[0])

    def probe_system(self) -> dict[str, Any]:
        """What the probe there knows of the board, the probe copied there first if need be
        (rtscope.targets.facts.probe_system)."""
        return facts.probe_system(self.transport, self._probe, self.name)


def connection_error(name: str, said: str) -> str:
    """ssh's own failure (exit status 255) as one line for the user."""
    lines = [line.strip() for line in said.splitlines() if line.strip() and not line.startswith(("@", "Warning"))]
    reason = lines[-1] if lines else "the connection failed"
    if "Host key verification failed" in said or "REMOTE HOST IDENTIFICATION HAS CHANGED" in said:
        return (
            f"{name}: host key verification failed: its key is not in known_hosts or has changed "
            f"(rtscope never bypasses that; check the key, then update known_hosts)"
        )
    if "Permission denied" in said:
        return f"{name}: the login was refused ({reason})"
    if any(
        word in said
        for word in (
            "Connection refused",
            "No route to host",
            "timed out",
            "Could not resolve",
            "Name or service not known",
            "Network is unreachable",
        )
    ):
        return f"{name}: unreachable ({reason})"
    if any(word in said for word in ("closed by remote host", "Broken pipe", "not responding", "Connection reset")):
        return f"{name}: lost the connection ({reason})"
    return f"{name}: ssh failed ({reason})"


def _signal_word(signum: int) -> str:
    """The signal's name as kill -s takes it (TERM, KILL, INT)."""
    return worker.signal_name(signum).removeprefix("SIG")
