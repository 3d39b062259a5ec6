"""The results database: one SQLite file holding every stored run's exact result document.

``runs`` keeps each document whole (so what is shown or exported is exactly what the probe wrote) next
to the columns that listing needs; ``metrics`` keeps a few figures per metric for listing and queries.
A file that is not an rtscope database is refused without being touched.
"""

import json
import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rtscope import result
from rtscope.errors import RtscopeError

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    started TEXT NOT NULL,
    finished TEXT NOT NULL,
    label TEXT,
    hostname TEXT NOT NULL,
    kernel TEXT NOT NULL,
    status TEXT NOT NULL,
    benches TEXT NOT NULL,        -- bench ids, space-separated
    warnings INTEGER NOT NULL,    -- how many configuration warnings the run has
    stored_at TEXT NOT NULL,
    document TEXT NOT NULL        -- the result document, exactly as read
);
CREATE INDEX runs_by_start ON runs (started);
CREATE TABLE metrics (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    metric_id TEXT NOT NULL,
    valid INTEGER NOT NULL,
    count INTEGER NOT NULL,
    p50 REAL, p99 REAL, max REAL, mean REAL,    -- overhead-adjusted, as rtscope shows them
    PRIMARY KEY (run_id, metric_id)
);
"""

_NEWEST_FIRST = "ORDER BY started DESC, rowid DESC"


@dataclass(frozen=True)
class RunRow:
    """A stored run as the run list shows it."""

    id: str
    started: str
    label: str | None
    hostname: str
    kernel: str
    status: str
    benches: tuple[str, ...]
    invalid_metrics: int
    warnings: int


class Store:
    """An open results database. Use :meth:`open`; close with :meth:`close` or a ``with`` block."""

    def __init__(self, connection: sqlite3.Connection, path: Path):
        """Wrap a connection to a checked rtscope database (use :meth:`open` to get one)."""
        self._db = connection
        self._db.execute("PRAGMA foreign_keys = ON")
        self.path = path

    @classmethod
    def open(cls, path: Path, *, create: bool = False) -> "Store":
        """Open the database at ``path``; with ``create``, make it (and its directory) if missing.

        Raises RtscopeError when it is missing (and not to be created), or is not an rtscope database
        of a schema version this rtscope reads; such a file is left exactly as it was.
        """
        if path.is_dir():
            raise RtscopeError(f"{path} is a directory, not a results database")
        if path.exists():
            return cls._open_existing(path)
        if not create:
            raise RtscopeError(f"no results database at {path} (rtscope run creates it)")
        return cls._create(path)

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def add(self, run: result.Result) -> None:
        """Store a validated result, in one transaction. A run id already stored raises RtscopeError."""
        doc = run.doc
        try:
            with self._db:
                self._db.execute(
                    "INSERT INTO runs (id, started, finished, label, hostname, kernel, status, benches,"
                    " warnings, stored_at, document) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (run.run_id, doc["run"]["started"], doc["run"]["finished"], doc["run"]["label"],
                     doc["system"]["hostname"], doc["system"]["kernel_release"], doc["run"]["status"],
                     " ".join(b["id"] for b in doc["benches"]), len(doc["config"]["warnings"]),
                     _utc_now(), run.text))
                self._db.executemany(
                    "INSERT INTO metrics (run_id, metric_id, valid, count, p50, p99, max, mean)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [_metric_row(run.run_id, m) for m in doc["metrics"]])
        except sqlite3.IntegrityError:
            raise RtscopeError(f"run {run.run_id} is already stored") from None

    def runs(self, limit: int | None = None) -> list[RunRow]:
        """Stored runs, newest first; at most ``limit`` of them when given."""
        cursor = self._db.cursor()
        cursor.row_factory = sqlite3.Row
        rows = cursor.execute(
            "SELECT id, started, label, hostname, kernel, status, benches, warnings,"
            " (SELECT COUNT(*) FROM metrics WHERE run_id = runs.id AND NOT valid) AS invalid"
            f" FROM runs {_NEWEST_FIRST} LIMIT ?", (-1 if limit is None else limit,))
        return [RunRow(id=row["id"], started=row["started"], label=row["label"], hostname=row["hostname"],
                       kernel=row["kernel"], status=row["status"], benches=tuple(row["benches"].split()),
                       invalid_metrics=row["invalid"], warnings=row["warnings"])
                for row in rows]

    def get(self, id_or_prefix: str) -> result.Result:
        """The run whose id is ``id_or_prefix`` or starts with it.

        Raises RtscopeError when no stored run matches, or when the prefix matches several.
        """
        prefix = id_or_prefix.lower()
        if not re.fullmatch(r"[0-9a-f]{1,16}", prefix):
            raise RtscopeError(f"{id_or_prefix!r} is not a run id (hex digits), 'last' or a result file")
        ids = [row[0] for row in self._db.execute(
            "SELECT id FROM runs WHERE substr(id, 1, ?) = ?", (len(prefix), prefix))]
        if not ids:
            raise RtscopeError(f"no stored run has an id starting with {prefix} (rtscope runs lists them)")
        if len(ids) > 1:
            raise RtscopeError(f"run id prefix {prefix} is ambiguous: {len(ids)} stored runs start with it")
        return self._document(ids[0])

    def latest(self) -> result.Result:
        """The newest stored run; RtscopeError when there is none."""
        row = self._db.execute(f"SELECT id FROM runs {_NEWEST_FIRST} LIMIT 1").fetchone()
        if row is None:
            raise RtscopeError(f"no runs stored in {self.path} yet (rtscope run stores them)")
        return self._document(row[0])

    def _document(self, run_id: str) -> result.Result:
        (text,) = self._db.execute("SELECT document FROM runs WHERE id = ?", (run_id,)).fetchone()
        # Validated when stored: parsing is enough.
        return result.Result(json.loads(text), text)

    @classmethod
    def _open_existing(cls, path: Path) -> "Store":
        # mode=rw never creates a file; nothing is written before the meta table has been checked.
        try:
            connection = _connect(f"file:{_uri_path(path)}?mode=rw", uri=True)
        except sqlite3.Error as error:
            raise RtscopeError(f"cannot open results database {path}: {error}") from None
        try:
            _check_schema_version(connection, path)
        except RtscopeError:
            connection.close()
            raise
        return cls(connection, path)

    @classmethod
    def _create(cls, path: Path) -> "Store":
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            connection = _connect(str(path))
            # WAL lets readers and a writer work at once; the mode is kept in the file.
            connection.execute("PRAGMA journal_mode = WAL")
            connection.executescript(f"BEGIN; {_SCHEMA} INSERT INTO meta VALUES "
                                     f"('schema_version', '{SCHEMA_VERSION}'); COMMIT;")
        except (OSError, sqlite3.Error) as error:
            raise RtscopeError(f"cannot create results database {path}: {error}") from None
        return cls(connection, path)


def _connect(database: str, *, uri: bool = False) -> sqlite3.Connection:
    # A writer holds the lock only for one short transaction: waiting for it is better than failing.
    return sqlite3.connect(database, uri=uri, timeout=10)


def _check_schema_version(connection: sqlite3.Connection, path: Path) -> None:
    """Raise RtscopeError unless the database has rtscope's meta table with a version it reads."""
    try:
        row = connection.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.DatabaseError as error:
        raise RtscopeError(f"{path} is not an rtscope results database ({error})") from None
    if row is None:
        raise RtscopeError(f"{path} is not an rtscope results database (no schema version)")
    if row[0] != str(SCHEMA_VERSION):
        raise RtscopeError(f"{path}: results database schema version {row[0]} is not supported "
                           f"(this rtscope reads {SCHEMA_VERSION})")


def _uri_path(path: Path) -> str:
    # Characters that have a meaning in a URI must be escaped in the file name.
    return str(path.resolve()).replace("%", "%25").replace("?", "%3f").replace("#", "%23")


def _metric_row(run_id: str, metric: dict[str, Any]) -> tuple[Any, ...]:
    figures = result.summary(metric)
    return (run_id, metric["id"], metric["valid"], metric["stats"]["count"],
            figures["p50"], figures["p99"], figures["max"], figures["mean"])


def _utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
