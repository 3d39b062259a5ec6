"""The results database: one SQLite file holding every stored run's exact result document.

``runs`` keeps each document whole (so what is shown or exported is exactly what the probe wrote) next
to the columns that listing needs; ``metrics`` keeps a few figures per metric for listing and queries;
``campaigns`` the plan of each campaign, whose runs carry its id, their cell and repetition. A file that
is not an rtscope database is refused without being touched; one of schema version 1 is upgraded.
"""

import contextlib
import json
import os
import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

from rtscope.errors import RtscopeError
from rtscope.model import result

SCHEMA_VERSION = 2

# Version 2 added campaigns. A cell's repetition is measured once: an interrupted run is kept (what it
# measured is worth having) but does not count, so the campaign runs that cell again.
_CAMPAIGNS = """
CREATE TABLE campaigns (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    started TEXT NOT NULL,
    plan TEXT                     -- JSON: what the campaign runs (null when only its runs were stored)
);
CREATE UNIQUE INDEX runs_by_cell ON runs (campaign_id, cell, repetition)
    WHERE campaign_id IS NOT NULL AND status != 'interrupted';
"""
_SCHEMA = (
    """
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
    document TEXT NOT NULL,       -- the result document, exactly as read
    campaign_id TEXT, cell TEXT, repetition INTEGER    -- from the document's "campaign", when it has one
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
    + _CAMPAIGNS
)

_UPGRADE_FROM_1 = (
    "ALTER TABLE runs ADD COLUMN campaign_id TEXT; ALTER TABLE runs ADD COLUMN cell TEXT; "
    "ALTER TABLE runs ADD COLUMN repetition INTEGER;" + _CAMPAIGNS
)

_NEWEST_FIRST = "ORDER BY started DESC, rowid DESC"
_ID = re.compile(r"[0-9a-fA-F]{1,16}")


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


@dataclass(frozen=True)
class Campaign:
    """A stored campaign: its id, name, start and plan (None when only its runs were stored)."""

    id: str
    name: str
    started: str
    plan: dict[str, Any] | None


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

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def add(self, run: result.Result) -> None:
        """Store a validated result, in one transaction. A run id already stored raises RtscopeError."""
        doc = run.doc
        campaign = doc.get("campaign") or {}
        try:
            with self._db:
                if campaign:
                    self._db.execute(
                        "INSERT OR IGNORE INTO campaigns (id, name, started) VALUES (?, ?, ?)",
                        (campaign["id"], campaign["name"], doc["run"]["started"]),
                    )
                self._db.execute(
                    "INSERT INTO runs (id, started, finished, label, hostname, kernel, status, benches,"
                    " warnings, stored_at, document, campaign_id, cell, repetition)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        run.run_id,
                        doc["run"]["started"],
                        doc["run"]["finished"],
                        doc["run"]["label"],
                        doc["system"]["hostname"],
                        doc["system"]["kernel_release"],
                        doc["run"]["status"],
                        " ".join(b["id"] for b in doc["benches"]),
                        len(doc["config"]["warnings"]),
                        utc_now(),
                        run.text,
                        campaign.get("id"),
                        campaign.get("cell"),
                        campaign.get("repetition"),
                    ),
                )
                self._db.executemany(
                    "INSERT INTO metrics (run_id, metric_id, valid, count, p50, p99, max, mean)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [_metric_row(run.run_id, m) for m in doc["metrics"]],
                )
        except sqlite3.IntegrityError:
            if self._db.execute("SELECT 1 FROM runs WHERE id = ?", (run.run_id,)).fetchone():
                raise RtscopeError(f"run {run.run_id} is already stored") from None
            raise RtscopeError(
                f"campaign {campaign['id']} already has a run of cell {campaign['cell']!r}, "
                f"repetition {campaign['repetition']}"
            ) from None

    def add_campaign(self, campaign: Campaign) -> None:
        """Record a new campaign and its plan; an id already stored raises RtscopeError."""
        try:
            with self._db:
                self._db.execute(
                    "INSERT INTO campaigns (id, name, started, plan) VALUES (?, ?, ?, ?)",
                    (campaign.id, campaign.name, campaign.started, json.dumps(campaign.plan)),
                )
        except sqlite3.IntegrityError:
            raise RtscopeError(f"campaign {campaign.id} is already stored") from None

    def set_campaign_plan(self, campaign_id: str, plan: dict[str, Any]) -> None:
        """Replace a stored campaign's plan (a resumed campaign extended to more repetitions)."""
        with self._db:
            self._db.execute("UPDATE campaigns SET plan = ? WHERE id = ?", (json.dumps(plan), campaign_id))

    def campaign(self, name_or_id: str) -> Campaign:
        """The campaign with this id (or unique id prefix), else the newest campaign of this name.

        Raises RtscopeError when there is none, or an id prefix matches several.
        """
        rows = (
            self._db.execute(
                "SELECT id, name, started, plan FROM campaigns WHERE substr(id, 1, ?) = ?",
                (len(name_or_id), name_or_id.lower()),
            ).fetchall()
            if _ID.fullmatch(name_or_id)
            else []
        )
        if len(rows) > 1:
            raise RtscopeError(f"campaign id prefix {name_or_id} is ambiguous: {len(rows)} campaigns start with it")
        if not rows:
            rows = self._db.execute(
                "SELECT id, name, started, plan FROM campaigns WHERE name = ?"
                " ORDER BY started DESC, rowid DESC LIMIT 1",
                (name_or_id,),
            ).fetchall()
        if not rows:
            raise RtscopeError(f"no stored campaign is named or has an id starting with {name_or_id!r}")
        campaign_id, name, started, plan = rows[0]
        return Campaign(campaign_id, name, started, None if plan is None else json.loads(plan))

    def campaign_cells(self, campaign_id: str) -> set[tuple[str, int]]:
        """The (cell, repetition) pairs of a campaign that have a run that counts (not interrupted)."""
        return set(
            self._db.execute(
                "SELECT cell, repetition FROM runs WHERE campaign_id = ? AND status != 'interrupted'", (campaign_id,)
            )
        )

    def campaign_runs(self, name_or_id: str) -> list[result.Result]:
        """The runs that count of the campaign :meth:`campaign` finds: cell by cell in the order the
        cells were first measured, repetitions in order. An interrupted run is left out (its cell was
        measured again, or is still to be); it remains a stored run of its own."""
        campaign = self.campaign(name_or_id)
        ids = [
            row[0]
            for row in self._db.execute(
                "SELECT id FROM runs AS run WHERE campaign_id = ? AND status != 'interrupted' ORDER BY"
                " (SELECT MIN(rowid) FROM runs WHERE campaign_id = run.campaign_id AND cell = run.cell),"
                " repetition",
                (campaign.id,),
            )
        ]
        if not ids:
            raise RtscopeError(f"campaign {campaign.name} ({campaign.id}) has no measured runs yet")
        return [self._document(run_id) for run_id in ids]

    def runs(self, limit: int | None = None) -> list[RunRow]:
        """Stored runs, newest first; at most ``limit`` of them when given."""
        cursor = self._db.cursor()
        cursor.row_factory = sqlite3.Row
        rows = cursor.execute(
            "SELECT id, started, label, hostname, kernel, status, benches, warnings,"
            " (SELECT COUNT(*) FROM metrics WHERE run_id = runs.id AND NOT valid) AS invalid"
            f" FROM runs {_NEWEST_FIRST} LIMIT ?",
            (-1 if limit is None else limit,),
        )
        return [
            RunRow(
                id=row["id"],
                started=row["started"],
                label=row["label"],
                hostname=row["hostname"],
                kernel=row["kernel"],
                status=row["status"],
                benches=tuple(row["benches"].split()),
                invalid_metrics=row["invalid"],
                warnings=row["warnings"],
            )
            for row in rows
        ]

    def get(self, id_or_prefix: str) -> result.Result:
        """The run whose id is ``id_or_prefix`` or starts with it.

        Raises RtscopeError when no stored run matches, or when the prefix matches several.
        """
        prefix = id_or_prefix.lower()
        if not _ID.fullmatch(prefix):
            raise RtscopeError(f"{id_or_prefix!r} is not a run id (hex digits), 'last' or a result file")
        ids = [
            row[0] for row in self._db.execute("SELECT id FROM runs WHERE substr(id, 1, ?) = ?", (len(prefix), prefix))
        ]
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
            if _schema_version(connection, path) == 1:
                _upgrade_from_1(connection, path)
        except RtscopeError:
            connection.close()
            raise
        return cls(connection, path)

    @classmethod
    def _create(cls, path: Path) -> "Store":
        """Make the database under a temporary name and link it into place whole: a reader that opens
        the path meanwhile (rtscope runs beside a first campaign) finds no file or a complete one,
        never one without its tables. A process that created it first wins; this one opens theirs."""
        temporary = path.parent / f".{path.name}.{os.getpid()}.tmp"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            connection = _connect(str(temporary))
            try:
                # WAL lets readers and a writer work at once; the mode is kept in the file.
                connection.execute("PRAGMA journal_mode = WAL")
                connection.executescript(
                    f"BEGIN; {_SCHEMA} INSERT INTO meta VALUES ('schema_version', '{SCHEMA_VERSION}'); COMMIT;"
                )
            finally:
                connection.close()  # its write-ahead log is checkpointed into the file and removed
            with contextlib.suppress(FileExistsError):
                os.link(temporary, path)
        except (OSError, sqlite3.Error) as error:
            raise RtscopeError(f"cannot create results database {path}: {error}") from None
        finally:
            temporary.unlink(missing_ok=True)
        return cls._open_existing(path)

    def metric_history(
        self, metric_id: str, stat: str, *, host: str | None = None, since: str | None = None
    ) -> list[tuple[str, str, str | None, str, str, bool, float | None]]:
        """Statistic ``stat`` (p50, p99, max or mean: what the metrics table keeps, overhead-adjusted) of
        ``metric_id`` in every stored run that measured it, oldest first, as (run id, started, label,
        hostname, kernel, valid, value); only runs measured on ``host`` and started at or after ``since``
        (an ISO date or time, compared as the store writes times) when given. One query on the metrics
        table, no document read; standard SQL with parameters only, for SQLite and PostgreSQL alike."""
        columns = {"p50": "metrics.p50", "p99": "metrics.p99", "max": "metrics.max", "mean": "metrics.mean"}
        if stat not in columns:
            raise ValueError(f"the store keeps {', '.join(columns)} of a run's metric, not {stat!r}")
        # The column comes from the table above, never from the caller's text; every value is a parameter.
        query = (
            f"SELECT runs.id, runs.started, runs.label, runs.hostname, runs.kernel, metrics.valid, {columns[stat]}"
            " FROM metrics JOIN runs ON runs.id = metrics.run_id WHERE metrics.metric_id = ?"
        )
        parameters = [metric_id]
        for condition, value in (("runs.hostname = ?", host), ("runs.started >= ?", since)):
            if value is not None:
                query += f" AND {condition}"
                parameters.append(value)
        return [
            (run_id, started, label, hostname, kernel, bool(valid), value)
            for run_id, started, label, hostname, kernel, valid, value in self._db.execute(
                query + " ORDER BY runs.started, runs.id", parameters
            )
        ]


def _connect(database: str, *, uri: bool = False) -> sqlite3.Connection:
    # A writer holds the lock only for one short transaction: waiting for it is better than failing.
    return sqlite3.connect(database, uri=uri, timeout=10)


def _schema_version(connection: sqlite3.Connection, path: Path) -> int:
    """The schema version of an rtscope database: RtscopeError unless it is one this rtscope reads."""
    try:
        row = connection.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.DatabaseError as error:
        raise RtscopeError(f"{path} is not an rtscope results database ({error})") from None
    if row is None:
        raise RtscopeError(f"{path} is not an rtscope results database (no schema version)")
    if row[0] not in ("1", str(SCHEMA_VERSION)):
        raise RtscopeError(
            f"{path}: results database schema version {row[0]} is not supported "
            f"(this rtscope reads 1 and {SCHEMA_VERSION})"
        )
    return int(row[0])


def _upgrade_from_1(connection: sqlite3.Connection, path: Path) -> None:
    """Add what version 2 has: the campaign columns and table. Version-1 runs belong to no campaign."""
    try:
        # One transaction: a concurrent upgrade or a crash leaves version 1 or version 2, nothing between.
        connection.executescript(
            f"BEGIN IMMEDIATE; {_UPGRADE_FROM_1} UPDATE meta SET value = "
            f"'{SCHEMA_VERSION}' WHERE key = 'schema_version' AND value = '1'; COMMIT;"
        )
    except sqlite3.OperationalError as error:
        connection.rollback()
        if _schema_version(connection, path) != SCHEMA_VERSION:  # else another process upgraded it first
            raise RtscopeError(f"cannot upgrade results database {path}: {error}") from None


def _uri_path(path: Path) -> str:
    # Characters that have a meaning in a URI must be escaped in the file name.
    return str(path.resolve()).replace("%", "%25").replace("?", "%3f").replace("#", "%23")


def _metric_row(run_id: str, metric: dict[str, Any]) -> tuple[Any, ...]:
    figures = result.summary(metric)
    return (
        run_id,
        metric["id"],
        metric["valid"],
        metric["stats"]["count"],
        figures["p50"],
        figures["p99"],
        figures["max"],
        figures["mean"],
    )


def utc_now() -> str:
    """Now in UTC, to the second, as the store writes times: "2026-11-22T08:30:00Z"."""
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
