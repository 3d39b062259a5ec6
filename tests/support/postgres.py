"""A real, throwaway PostgreSQL cluster for the store's tests: initdb in a temporary directory, started with
pg_ctl on a private Unix socket directory and a free TCP port of 127.0.0.1 (password logins there), with a
role that writes runs, one that only reads them, and a new database per test."""

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from support import sshd
from support.loopback import free_port

SUPERUSER = "postgres"
WRITER, READER = "rtscope_writer", "rtscope_reader"
PASSWORD = "s3cret-Pa55"


def binaries() -> Path | None:
    """The newest installed PostgreSQL's bin directory (Debian keeps them out of PATH), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parent.parent.name))
    return Path(found[-1]).parent if found else None


def unavailable() -> str | None:
    """Why no cluster can be started here, or None."""
    if binaries() is None:
        return "PostgreSQL is not installed (Debian: postgresql; setup.sh installs it)"
    return None


@dataclass
class Cluster:
    port: int
    socket_dir: Path
    _numbers: Iterator[int] = field(default_factory=itertools.count)

    def url(self, database: str, role: str = WRITER, password: str | None = PASSWORD) -> str:
        secret = f":{password}" if password is not None else ""
        return f"postgresql://{role}{secret}@127.0.0.1:{self.port}/{database}"

    def admin(self, database: str = "postgres") -> psycopg.Connection[tuple[object, ...]]:
        """The superuser's connection, over the private socket."""
        return psycopg.connect(
            host=str(self.socket_dir), port=self.port, user=SUPERUSER, dbname=database, autocommit=True
        )

    def new_database(self) -> str:
        """A new, empty database the writer owns; its name."""
        name = f"store_{next(self._numbers)}"
        with self.admin() as admin:
            admin.execute(f"CREATE DATABASE {name} OWNER {WRITER}")
        return name


def _as_user(argv: list[str], user: str | None) -> None:
    subprocess.run(argv, user=user, check=True, capture_output=True, timeout=60)


@contextlib.contextmanager
def cluster(*, durable: bool = False) -> Iterator[Cluster]:
    """A cluster until the block ends. As root, its server runs as the tests' non-root user (PostgreSQL
    refuses to run as root). Without fsync (a test's data need not outlive a crash) unless ``durable``: a
    benchmark of writes measures a lab's server, which keeps its commits (evaluation/scale_ingest.py)."""
    bin_dir = binaries()
    assert bin_dir is not None
    user = None
    directory = Path(tempfile.mkdtemp(prefix="rtscope-pg-"))
    if os.geteuid() == 0:
        sshd._ensure_user()
        user = sshd.USER
        account = pwd.getpwnam(user)
        os.chown(directory, account.pw_uid, account.pw_gid)
    data, sockets = directory / "data", directory / "sockets"
    port = free_port()
    try:
        _as_user(["mkdir", str(sockets)], user)
        _as_user(
            [str(bin_dir / "initdb"), "-D", str(data), "-U", SUPERUSER, "--auth-local=trust",
             "--auth-host=scram-sha-256", "--no-sync"],
            user,
        )  # fmt: skip
        options = f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1" + ("" if durable else " -c fsync=off")
        _as_user(
            [str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(directory / "log"), "-w", "start"], user
        )
        server = Cluster(port, sockets)
        with server.admin("template1") as admin:
            admin.execute(f"CREATE ROLE {WRITER} LOGIN PASSWORD '{PASSWORD}'")
            admin.execute(f"CREATE ROLE {READER} LOGIN PASSWORD '{PASSWORD}'")
            # Every database made from template1 lets the reader read what the writer makes.
            admin.execute(f"ALTER DEFAULT PRIVILEGES FOR ROLE {WRITER} GRANT SELECT ON TABLES TO {READER}")
        try:
            yield server
        finally:
            _as_user([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"], user)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
