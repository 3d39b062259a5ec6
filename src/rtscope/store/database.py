"""The results store: every stored run's exact result document, its campaign, and who stored it, in one
SQLite file (the default: one person's) or a PostgreSQL database a lab shares (a postgresql:// URL), through
one interface. The schema and its migrations are rtscope.store.schema's. A database that is not an rtscope
store is refused without being touched; an older store is upgraded in place, in one transaction; a newer one
is refused.
"""

import contextlib
import functools
import getpass
import json
import os
import re
import socket
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

from rtscope import __version__
from rtscope.errors import RtscopeError
from rtscope.model import result
from rtscope.store import encoding, schema
from rtscope.store.connection import Connection, SqliteConnection

_ID = re.compile(r"[0-9a-fA-F]{1,16}")
_WHOLE_ID = 16  # hex digits: the probe's 64 random bits
_POSTGRES_SCHEMES = ("postgresql://", "postgres://")


@dataclass(frozen=True)
class RunRow:
    """A stored run as the run list shows it, with who stored it (None: stored before rtscope recorded it)."""

    id: str
    started: str
    label: str | None
    hostname: str
    kernel: str
    status: str
    benches: tuple[str, ...]
    invalid_metrics: int
    warnings: int
    target: str | None
    campaign_id: str | None
    measured_by: str | None
    analyzer_host: str | None
    rtscope_version: str | None
    time_base: str = "hardware"  # result.time_base_text of its document


@dataclass(frozen=True)
class RunFilter:
    """Which runs :meth:`Store.runs` lists: each field given must match exactly; ``since`` is the earliest
    start ("2026-11-01" or "2026-11-01T08:00:00", UTC); ``campaign`` a name or id as :meth:`Store.campaign`
    finds it."""

    target: str | None = None
    kernel: str | None = None
    label: str | None = None
    user: str | None = None
    campaign: str | None = None
    since: str | None = None
    monitor: str | None = None  # a monitor's windows: its name or id prefix, as :meth:`Store.campaign` finds it
    board: str | None = None  # one board's windows (of any monitor, or of ``monitor``)


@dataclass(frozen=True)
class Provenance:
    """Who stored a run: the analyzer's user, the machine it ran on, and rtscope's version (None: not
    recorded, for a run stored before rtscope recorded it)."""

    user: str | None
    host: str | None
    version: str | None

    @classmethod
    def here(cls) -> "Provenance":
        """This process's."""
        try:
            user = getpass.getuser()
        except OSError:  # no name for this uid (a container's)
            user = str(os.getuid())
        return cls(user, socket.gethostname(), __version__)


@dataclass(frozen=True)
class StoredWindow:
    """A stored window of a monitor, as retention looks at it first: ``columns`` joins what the runs
    table records of its system, target, time base, rtscope version and benches (windows that differ
    there never merge)."""

    id: str
    started: str
    board: str
    status: str
    columns: str


@dataclass(frozen=True)
class Campaign:
    """A stored campaign: its id, name, start and plan (None when only its runs were stored)."""

    id: str
    name: str
    started: str
    plan: dict[str, Any] | None


@dataclass(frozen=True)
class AlertRecord:
    """An alert a monitor sent about a change in one board's series (rtscope.execution.alerts): the
    statistic, its direction, the change's first run as placed then and that run's start, and the channel
    ("hook" or "url") it went through."""

    board: str
    metric: str
    stat: str
    direction: str
    first_run: str
    first_started: str
    channel: str


class Store:
    """An open results store. Use :meth:`open`; close with :meth:`close` or a ``with`` block."""

    def __init__(self, connection: Connection):
        """Wrap a connection to a checked rtscope store (use :meth:`open` to get one)."""
        self._db = connection
        # Where the store is, as messages name it: a SQLite file's path or a URL without its password.
        self.location = connection.name
        self._order = connection.dialect.insertion_order
        self._newest_first = f"ORDER BY started DESC, {self._order} DESC"

    @classmethod
    def open(cls, location: str | Path, *, create: bool = False) -> "Store":
        """Open the store at ``location``: a SQLite file's path, or a ``postgresql://`` URL. With ``create``,
        make it (a file and its directory; in PostgreSQL, the tables in an empty database) if missing.

        Raises RtscopeError when it is missing (and not to be created), unreachable, or not an rtscope store
        of a schema version this rtscope reads; such a database is left exactly as it was.
        """
        if str(location).startswith(_POSTGRES_SCHEMES):
            return cls._open_postgres(str(location), create=create)
        path = Path(location)
        if path.is_dir():
            raise RtscopeError(f"{path} is a directory, not a results database")
        if path.exists():
            return cls._open_existing(path)
        if not create:
            raise RtscopeError(f"no results database at {path} (rtscope run creates it)")
        return cls._create(path)

    def close(self) -> None:
        """Close the store."""
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def add(self, run: result.Result, provenance: Provenance | None = None, *, replacing: Sequence[str] = ()) -> None:
        """Store a validated result whole, in one transaction, as stored by ``provenance`` (default: this
        process's user, host and rtscope). A run id already stored raises RtscopeError.

        ``replacing``: runs (whole ids) that ``run`` takes the place of (retention's merged window), deleted
        in the same transaction with their metrics, so that a crash leaves them or ``run``, never both or
        neither; RtscopeError, nothing changed, when one of them is no longer stored."""
        doc = run.doc
        campaign = doc.get("campaign") or _monitor_as_campaign(doc.get("monitor"))
        by = provenance or Provenance.here()
        try:
            with self._db.transaction():
                if replacing:
                    self._delete(replacing)
                if campaign:
                    self._db.execute(
                        "INSERT INTO campaigns (id, name, started) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                        (campaign["id"], campaign["name"], doc["run"]["started"]),
                    )
                self._db.execute(
                    "INSERT INTO runs (id, started, finished, label, hostname, kernel, status, benches, warnings,"
                    " stored_at, document_packed, campaign_id, cell, repetition, target, measured_by, analyzer_host,"
                    " rtscope_version, time_base) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                        encoding.pack(run.text),
                        campaign.get("id"),
                        campaign.get("cell"),
                        campaign.get("repetition"),
                        (doc.get("target") or {}).get("name"),
                        by.user,
                        by.host,
                        by.version,
                        result.time_base_text(doc),
                    ),
                )
                self._db.executemany(
                    "INSERT INTO metrics (run_id, metric_id, valid, count, p50, p99, max, mean)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [_metric_row(run.run_id, m) for m in doc["metrics"]],
                )
        except self._db.integrity_error:
            if self._db.execute("SELECT 1 FROM runs WHERE id = ?", (run.run_id,)).fetchone():
                raise RtscopeError(f"run {run.run_id} is already stored") from None
            if "monitor" in doc:
                raise RtscopeError(
                    f"monitor {campaign['name']} already has window {campaign['repetition']} "
                    f"of board {campaign['cell']!r}"
                ) from None
            raise RtscopeError(
                f"campaign {campaign['id']} already has a run of cell {campaign['cell']!r}, "
                f"repetition {campaign['repetition']}"
            ) from None

    def _delete(self, run_ids: Sequence[str]) -> None:
        """Within a transaction: delete these runs; their metrics rows go with them (ON DELETE CASCADE, which
        SQLite keeps only with its foreign_keys pragma on: SqliteConnection sets it)."""
        deleted = 0
        for start in range(0, len(run_ids), _QUERY_IDS):
            chunk = list(run_ids[start : start + _QUERY_IDS])
            deleted += len(
                self._db.execute(
                    f"DELETE FROM runs WHERE id IN ({', '.join('?' * len(chunk))}) RETURNING id", chunk
                ).fetchall()
            )
        if deleted != len(set(run_ids)):
            raise RtscopeError(f"{len(set(run_ids)) - deleted} of the runs to replace are no longer stored")

    def has(self, run_id: str) -> bool:
        """Whether the run with this (whole) id is stored."""
        return self._db.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is not None

    def provenance(self, run_id: str) -> Provenance:
        """Who stored the run with this (whole) id."""
        return Provenance(
            *self._db.execute(
                "SELECT measured_by, analyzer_host, rtscope_version FROM runs WHERE id = ?", (run_id,)
            ).fetchone()
        )

    def keep_campaign(self, campaign: Campaign) -> None:
        """Record a campaign copied from another store: added when missing, its plan filled in when only its
        runs' tags had named it, left as it is otherwise."""
        with self._db.transaction():
            self._db.execute(
                "INSERT INTO campaigns (id, name, started, plan) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE"
                " SET plan = COALESCE(campaigns.plan, excluded.plan)",
                (
                    campaign.id,
                    campaign.name,
                    campaign.started,
                    None if campaign.plan is None else json.dumps(campaign.plan),
                ),
            )

    def add_campaign(self, campaign: Campaign) -> None:
        """Record a new campaign and its plan; an id already stored raises RtscopeError."""
        try:
            with self._db.transaction():
                self._db.execute(
                    "INSERT INTO campaigns (id, name, started, plan) VALUES (?, ?, ?, ?)",
                    (campaign.id, campaign.name, campaign.started, json.dumps(campaign.plan)),
                )
        except self._db.integrity_error:
            raise RtscopeError(f"campaign {campaign.id} is already stored") from None

    def set_campaign_plan(self, campaign_id: str, plan: dict[str, Any]) -> None:
        """Replace a stored campaign's plan (a resumed campaign extended to more repetitions)."""
        with self._db.transaction():
            self._db.execute("UPDATE campaigns SET plan = ? WHERE id = ?", (json.dumps(plan), campaign_id))

    def campaign(self, name_or_id: str, what: str = "campaign") -> Campaign:
        """The campaign with this id (or unique id prefix), else the newest campaign of this name (a
        monitor is one: ``what`` names it in the messages).

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
            raise RtscopeError(f"{what} id prefix {name_or_id} is ambiguous: {len(rows)} {what}s start with it")
        if not rows:
            rows = self._db.execute(
                f"SELECT id, name, started, plan FROM campaigns WHERE name = ? {self._newest_first} LIMIT 1",
                (name_or_id,),
            ).fetchall()
        if not rows:
            raise RtscopeError(f"no stored {what} is named or has an id starting with {name_or_id!r}")
        campaign_id, name, started, plan = rows[0]
        return Campaign(campaign_id, name, started, None if plan is None else json.loads(plan))

    def campaign_cells(self, campaign_id: str) -> set[tuple[str, int]]:
        """The (cell, repetition) pairs of a campaign that have a run that counts (not interrupted)."""
        return {
            (cell, repetition)
            for cell, repetition in self._db.execute(
                "SELECT cell, repetition FROM runs WHERE campaign_id = ? AND status != 'interrupted'", (campaign_id,)
            )
        }

    def monitor_windows(self, monitor_id: str, since: str = "") -> list[StoredWindow]:
        """The stored windows of monitor ``monitor_id`` started at or after ``since`` (as the store writes
        times, or a date) as retention sorts them, in the order stored: from the columns alone, no document
        read (rtscope.execution.retention reads only those it may merge)."""
        return [
            StoredWindow(run_id, started, board, status, "\0".join(str(part) for part in parts))
            for run_id, started, board, status, *parts in self._db.execute(
                "SELECT id, started, cell, status, kernel, hostname, target, time_base, rtscope_version, benches"
                f" FROM runs WHERE campaign_id = ? AND started >= ? ORDER BY {self._order}",
                (monitor_id, since),
            )
        ]

    def mark(self, name: str) -> str | None:
        """What a process noted in the store under ``name`` (the meta table, beside the schema's version):
        retention's progress through a monitor's windows; None when nothing is."""
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (_MARK + name,)).fetchone()
        return None if row is None else str(row[0])

    def set_mark(self, name: str, value: str) -> None:
        """Note ``value`` under ``name`` (:meth:`mark`), in place of what was noted there."""
        with self._db.transaction():
            self._db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (_MARK + name, value),
            )

    def documents(self, run_ids: Sequence[str]) -> list[result.Result]:
        """The stored runs of these whole ids, in that order (one query per thousand: a round trip to a
        server costs more than reading a document). Validated when stored: parsing is enough; each text is
        written back from its packed form when asked for."""
        return [
            result.Result(encoding.document(packed), functools.partial(encoding.unpack, packed))
            for packed in self._each_packed(run_ids)
        ]

    def each_document(self, run_ids: Sequence[str]) -> Iterator[dict[str, Any]]:
        """The documents of the runs of ``run_ids`` (whole ids), in that order, read a query's worth at a
        time: a board-year of windows (rtscope.analysis.longterm) is gone through, never held at once."""
        return map(encoding.document, self._each_packed(run_ids))

    def campaign_runs(self, name_or_id: str) -> list[result.Result]:
        """The runs that count of the campaign :meth:`campaign` finds: cell by cell in the order the
        cells were first measured, repetitions in order. An interrupted run is left out (its cell was
        measured again, or is still to be); it remains a stored run of its own."""
        campaign = self.campaign(name_or_id)
        ids = [
            row[0]
            for row in self._db.execute(
                "SELECT id FROM runs AS run WHERE campaign_id = ? AND status != 'interrupted' ORDER BY"
                f" (SELECT MIN({self._order}) FROM runs WHERE campaign_id = run.campaign_id AND cell = run.cell),"
                " repetition",
                (campaign.id,),
            )
        ]
        if not ids:
            raise RtscopeError(f"campaign {campaign.name} ({campaign.id}) has no measured runs yet")
        return self.documents(ids)

    def runs(self, limit: int | None = None, only: RunFilter = RunFilter()) -> list[RunRow]:
        """Stored runs that ``only`` lets through, newest first; at most ``limit`` of them when given."""
        conditions, parameters = ["TRUE"], list[Any]()
        for column, value in (
            ("target", only.target),
            ("kernel", only.kernel),
            ("label", only.label),
            ("measured_by", only.user),
            ("campaign_id", None if only.campaign is None else self.campaign(only.campaign).id),
        ):
            if value is not None:
                conditions.append(f"{column} = ?")
                parameters.append(value)
        if only.since is not None:
            conditions.append("started >= ?")
            parameters.append(only.since)
        window_conditions, window_parameters = self._windows_of(only.monitor, only.board)
        conditions += window_conditions
        parameters += window_parameters
        rows = self._db.execute(
            "SELECT id, started, label, hostname, kernel, status, benches,"
            " (SELECT COUNT(*) FROM metrics WHERE run_id = runs.id AND valid = 0), warnings,"
            " target, campaign_id, measured_by, analyzer_host, rtscope_version, time_base"
            f" FROM runs WHERE {' AND '.join(conditions)} {self._newest_first}" + ("" if limit is None else " LIMIT ?"),
            parameters if limit is None else [*parameters, limit],
        )
        return [
            RunRow(
                id=row[0],
                started=row[1],
                label=row[2],
                hostname=row[3],
                kernel=row[4],
                status=row[5],
                benches=tuple(row[6].split()),
                invalid_metrics=row[7],
                warnings=row[8],
                target=row[9],
                campaign_id=row[10],
                measured_by=row[11],
                analyzer_host=row[12],
                rtscope_version=row[13],
                time_base=row[14] or "hardware",
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
        if len(prefix) == _WHOLE_ID:  # the key's index; a prefix is looked for in every row
            ids = [row[0] for row in self._db.execute("SELECT id FROM runs WHERE id = ?", (prefix,))]
        else:
            ids = [
                row[0]
                for row in self._db.execute("SELECT id FROM runs WHERE substr(id, 1, ?) = ?", (len(prefix), prefix))
            ]
        if not ids:
            raise RtscopeError(f"no stored run has an id starting with {prefix} (rtscope runs lists them)")
        if len(ids) > 1:
            raise RtscopeError(f"run id prefix {prefix} is ambiguous: {len(ids)} stored runs start with it")
        return self.documents(ids)[0]

    def last_runs(self, campaign_id: str) -> dict[str, str]:
        """The id of each cell's run of the highest repetition that counts (not interrupted), by cell: the
        window a monitored board goes on after."""
        return dict(
            self._db.execute(
                "SELECT cell, id FROM runs AS run WHERE campaign_id = ? AND status != 'interrupted' AND repetition ="
                " (SELECT MAX(repetition) FROM runs WHERE campaign_id = run.campaign_id AND cell = run.cell"
                " AND status != 'interrupted')",
                (campaign_id,),
            ).fetchall()
        )

    def latest(self) -> result.Result:
        """The newest stored run; RtscopeError when there is none."""
        row = self._db.execute(f"SELECT id FROM runs {self._newest_first} LIMIT 1").fetchone()
        if row is None:
            raise RtscopeError(f"no runs stored in {self.location} yet (rtscope run stores them)")
        return self.documents([row[0]])[0]

    def _each_packed(self, run_ids: Sequence[str]) -> Iterator[bytes]:
        """The packed documents of the runs of ``run_ids`` (whole ids), in that order, a query's worth at a time."""
        for start in range(0, len(run_ids), _QUERY_IDS):
            chunk = list(run_ids[start : start + _QUERY_IDS])
            found = dict(
                self._db.execute(
                    f"SELECT id, document_packed FROM runs WHERE id IN ({', '.join('?' * len(chunk))})", chunk
                ).fetchall()
            )
            for run_id in chunk:
                yield bytes(found[run_id])

    @classmethod
    def _open_postgres(cls, url: str, *, create: bool) -> "Store":
        from rtscope.store import postgres  # psycopg is imported only for a PostgreSQL store

        db = postgres.PostgresConnection(url)
        try:
            # Under the schema's lock: two processes that find an empty or old store make or upgrade it once.
            with db.transaction():
                db.lock()
                if not db.is_empty():
                    schema.migrate(db, schema.stored_version(db))
                elif create:
                    schema.migrate(db, 0)
                else:
                    raise RtscopeError(f"no results store in {db.name} yet (rtscope run creates it)")
        except RtscopeError:
            db.close()
            raise
        return cls(db)

    @classmethod
    def _open_existing(cls, path: Path) -> "Store":
        # mode=rw never creates a file; nothing is written before the meta table has been checked.
        db = SqliteConnection(f"file:{_uri_path(path)}?mode=rw", str(path), uri=True)
        try:
            if schema.stored_version(db) < schema.SCHEMA_VERSION:
                with db.transaction():  # the write lock: another process may have upgraded it meanwhile
                    schema.migrate(db, schema.stored_version(db))
        except RtscopeError:
            db.close()
            raise
        return cls(db)

    @classmethod
    def _create(cls, path: Path) -> "Store":
        """Make the database under a temporary name and link it into place whole: a reader that opens
        the path meanwhile (rtscope runs beside a first campaign) finds no file or a complete one,
        never one without its tables. A process that created it first wins; this one opens theirs."""
        temporary = path.parent / f".{path.name}.{os.getpid()}.tmp"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = SqliteConnection(str(temporary), str(path))
            try:
                # WAL lets readers and a writer work at once; the mode is kept in the file.
                db.execute("PRAGMA journal_mode = WAL")
                with db.transaction():
                    schema.migrate(db, 0)
            finally:
                db.close()  # its write-ahead log is checkpointed into the file and removed
            with contextlib.suppress(FileExistsError):
                os.link(temporary, path)
        except OSError as error:
            raise RtscopeError(f"cannot create results database {path}: {error}") from None
        finally:
            temporary.unlink(missing_ok=True)
        return cls._open_existing(path)

    def metric_history(
        self,
        metric_id: str,
        stat: str,
        *,
        host: str | None = None,
        since: str | None = None,
        monitor: str | None = None,
        board: str | None = None,
    ) -> list[tuple[str, str, str | None, str, str, bool, float | None, str]]:
        """Statistic ``stat`` (p50, p99, max or mean: what the metrics table keeps, overhead-adjusted) of
        ``metric_id`` in every stored run that measured it, oldest first, as (run id, started, label,
        hostname, kernel, valid, value, time base); only runs measured on ``host`` and started at or after ``since``
        (an ISO date or time, compared as the store writes times) when given, and only the windows that
        count of ``monitor`` (a name or id prefix) and of ``board`` when given. One query on the metrics
        table, no document read; standard SQL with parameters only, for SQLite and PostgreSQL alike."""
        return self.metric_histories(metric_id, (stat,), host=host, since=since, monitor=monitor, board=board)[stat]

    def metric_histories(
        self,
        metric_id: str,
        stats: Sequence[str],
        *,
        host: str | None = None,
        since: str | None = None,
        monitor: str | None = None,
        board: str | None = None,
    ) -> dict[str, list[tuple[str, str, str | None, str, str, bool, float | None, str]]]:
        """:meth:`metric_history` of each statistic of ``stats``, in one query (change points look at p50,
        p99 and max of 100,000 runs at once)."""
        columns = {"p50": "metrics.p50", "p99": "metrics.p99", "max": "metrics.max", "mean": "metrics.mean"}
        for stat in stats:
            if stat not in columns:
                raise ValueError(f"the store keeps {', '.join(columns)} of a run's metric, not {stat!r}")
        # The columns come from the table above, never from the caller's text; every value is a parameter.
        query = (
            "SELECT runs.id, runs.started, runs.label, runs.hostname, runs.kernel, metrics.valid, runs.time_base, "
            + ", ".join(columns[stat] for stat in stats)
            + " FROM metrics JOIN runs ON runs.id = metrics.run_id WHERE metrics.metric_id = ?"
        )
        parameters = [metric_id]
        for condition, value in (("runs.hostname = ?", host), ("runs.started >= ?", since)):
            if value is not None:
                query += f" AND {condition}"
                parameters.append(value)
        window_conditions, window_parameters = self._windows_of(monitor, board, table="runs.")
        query += "".join(f" AND {condition}" for condition in window_conditions)
        parameters += window_parameters
        rows = self._db.execute(query + " ORDER BY runs.started, runs.id", parameters).fetchall()
        # Column by column, each statistic's rows zipped in C: a row at a time in Python took as long as the
        # query over 100,000 runs (evaluation/changes.py).
        if not rows:
            return {stat: [] for stat in stats}
        run_ids, started, labels, hostnames, kernels, valid, time_bases, *values = zip(*rows, strict=True)
        flags = list(map(bool, valid))
        bases = [base or "hardware" for base in time_bases]
        return {
            stat: list(zip(run_ids, started, labels, hostnames, kernels, flags, values[n], bases, strict=True))
            for n, stat in enumerate(stats)
        }

    def alerts_sent(self, monitor_id: str, board: str) -> list[AlertRecord]:
        """The alerts recorded as sent about ``board``'s series in monitor ``monitor_id`` (a whole id)."""
        return [
            AlertRecord(*row)
            for row in self._db.execute(
                "SELECT board, metric_id, stat, direction, first_run, first_started, channel FROM alerts"
                " WHERE monitor_id = ? AND board = ? ORDER BY first_started",
                (monitor_id, board),
            )
        ]

    def record_alert(self, monitor_id: str, sent: AlertRecord) -> None:
        """Record an alert as sent (once: the same record again changes nothing)."""
        with self._db.transaction():
            self._db.execute(
                "INSERT INTO alerts (monitor_id, board, metric_id, stat, direction, first_run, first_started, channel,"
                " sent_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (
                    monitor_id,
                    sent.board,
                    sent.metric,
                    sent.stat,
                    sent.direction,
                    sent.first_run,
                    sent.first_started,
                    sent.channel,
                    utc_now(),
                ),
            )

    def _windows_of(self, monitor: str | None, board: str | None, table: str = "") -> tuple[list[str], list[str]]:
        """The SQL conditions (on ``table``'s runs columns) and their parameters that keep a monitor's
        windows, a board's, or both: a monitored window is a run in the campaign columns (monitor id, board,
        window); an interrupted window does not count (it was measured again), so it is left out."""
        if monitor is None and board is None:
            return [], []
        conditions, parameters = [f"{table}status != 'interrupted'"], []
        if monitor is not None:
            conditions.append(f"{table}campaign_id = ?")
            parameters.append(self.campaign(monitor, "monitor").id)
        if board is not None:
            conditions.append(f"{table}cell = ?")
            parameters.append(board)
        return conditions, parameters


# Marks live in the meta table under this prefix, apart from the schema's own keys.
_MARK = "mark:"
# SQLite allows at most 32766 parameters in one statement.
_QUERY_IDS = 1000


def _uri_path(path: Path) -> str:
    # Characters that have a meaning in a URI must be escaped in the file name.
    return str(path.resolve()).replace("%", "%25").replace("?", "%3f").replace("#", "%23")


def _monitor_as_campaign(monitor: dict[str, Any] | None) -> dict[str, Any]:
    """A monitor's window in the campaign columns: the monitor a campaign, its board a cell, the window a
    repetition, so that one board's window is stored once (runs_by_cell) and found as a campaign's runs."""
    if monitor is None:
        return {}
    return {"id": monitor["id"], "name": monitor["name"], "cell": monitor["board"], "repetition": monitor["window"]}


def _metric_row(run_id: str, metric: dict[str, Any]) -> tuple[Any, ...]:
    figures = result.summary(metric)
    return (
        run_id,
        metric["id"],
        int(metric["valid"]),
        metric["stats"]["count"],
        figures["p50"],
        figures["p99"],
        figures["max"],
        figures["mean"],
    )


def utc_now() -> str:
    """Now in UTC, to the second, as the store writes times: "2026-11-22T08:30:00Z"."""
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def copy_runs(
    source: Store, destination: Store, run_ids: list[str], progress: Callable[[int, int], None] | None = None
) -> tuple[int, int]:
    """Copy the runs of ``run_ids`` that ``destination`` lacks from ``source``, each whole with its campaign
    and who stored it; (how many were copied, how many were there already). Copying again copies nothing.
    ``progress(done, total)`` is called after each run looked at."""
    copied = 0
    for done, run_id in enumerate(run_ids, 1):
        if not destination.has(run_id):
            run = source.get(run_id)
            if "campaign" in run.doc:
                destination.keep_campaign(source.campaign(run.doc["campaign"]["id"]))
            destination.add(run, source.provenance(run_id))
            copied += 1
        if progress is not None:
            progress(done, len(run_ids))
    return copied, len(run_ids) - copied
