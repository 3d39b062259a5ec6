"""A real OpenSSH server on 127.0.0.1 for the SSH target's tests: throwaway host and client keys, its own
known_hosts, a root login and a non-root one (so that both privilege paths run remotely), and a client
config file that rtscope is pointed at with RTSCOPE_SSH_CONFIG."""

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from support.loopback import free_port

SSHD = Path("/usr/sbin/sshd")
USER = "rtscope-test"  # the non-root login, made when missing


@dataclass
class Server:
    port: int
    config: Path  # the client's: RTSCOPE_SSH_CONFIG
    known_hosts: Path
    host_key: Path
    process: subprocess.Popen[bytes]

    def spec(self, user: str = "root") -> str:
        return f"ssh://{user}@127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        return {"RTSCOPE_SSH_CONFIG": str(self.config)}

    def sessions(self) -> list[int]:
        """The server's session processes (one per connection)."""
        ps = subprocess.run(["ps", "-eo", "pid,ppid"], capture_output=True, text=True, check=True).stdout
        return [
            int(pid) for pid, ppid in (line.split() for line in ps.splitlines()[1:]) if int(ppid) == self.process.pid
        ]


def unavailable() -> str | None:
    """Why no server can be started here, or None."""
    if not SSHD.exists() or not shutil.which("ssh") or not shutil.which("ssh-keygen"):
        return "OpenSSH is not installed (Debian: openssh-server, openssh-client; setup.sh installs them)"
    if os.geteuid() != 0:
        return "sshd must start as root to log users in"
    return None


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "rtscope-test", "-f", str(path)], check=True)


def _ensure_user() -> None:
    """The non-root user, its password unusable but its account not locked (sshd refuses locked ones)."""
    try:
        pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "--create-home", "--shell", "/bin/sh", USER], check=True, capture_output=True)
    subprocess.run(["usermod", "--password", "*", USER], check=True, capture_output=True)


@contextlib.contextmanager
def server(directory: Path) -> Iterator[Server]:
    """sshd on a free port of 127.0.0.1 until the block ends; its files in ``directory``."""
    _ensure_user()
    directory.mkdir(parents=True, exist_ok=True)
    host_key, client_key = directory / "host_key", directory / "client_key"
    _keygen(host_key)
    _keygen(client_key)
    # sshd reads it as the user logging in: somewhere every user can (pytest's directories are private).
    public = Path(tempfile.mkdtemp(prefix="rtscope-sshd-"))
    public.chmod(0o755)
    authorized = public / "authorized_keys"
    authorized.write_text(client_key.with_suffix(".pub").read_text())
    authorized.chmod(0o644)
    port = free_port()
    sshd_config = directory / "sshd_config"
    # SHLVL=1: bash, the login shell of root here, reads ~/.bashrc for a command sshd starts it with, unless
    # it is a nested shell. This machine's ~/.bashrc is the developer's, not a board's, and took some 1.5 s
    # a command (pyenv's init), many times what the tests measure.
    sshd_config.write_text(f"""Port {port}
ListenAddress 127.0.0.1
HostKey {host_key}
PidFile {directory}/sshd.pid
AuthorizedKeysFile {authorized}
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
SetEnv SHLVL=1
LogLevel ERROR
""")
    known_hosts = directory / "known_hosts"
    known_hosts.write_text(f"[127.0.0.1]:{port} {host_key.with_suffix('.pub').read_text()}")
    config = directory / "ssh_config"
    config.write_text(f"""Host *
    IdentityFile {client_key}
    IdentitiesOnly yes
    UserKnownHostsFile {known_hosts}
    StrictHostKeyChecking yes
    LogLevel ERROR
""")
    Path("/run/sshd").mkdir(exist_ok=True)  # its privilege separation directory
    # sshd keeps its own copy of the log's descriptor: this one can close once it has started.
    with open(directory / "sshd.log", "wb") as log:
        process = subprocess.Popen(
            [str(SSHD), "-D", "-e", "-f", str(sshd_config)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and process.poll() is None:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            time.sleep(0.05)
        else:
            raise RuntimeError(f"sshd did not start: {(directory / 'sshd.log').read_text()[-500:]}")
        yield Server(port, config, known_hosts, host_key, process)
    finally:
        process.terminate()
        process.wait(10)
        shutil.rmtree(public, ignore_errors=True)
