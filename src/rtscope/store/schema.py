"""The store's schema, as one history of migrations that serves SQLite and PostgreSQL alike: step N turns a
store of version N into version N + 1, and a new store is made by all of them in turn (step 0 makes the
tables). ``{blob}``, ``{real}`` and ``{order_column}`` are spelled by the database's dialect.

``runs`` keeps each document whole, packed (store/encoding.py: so what is shown or exported is exactly what the probe
wrote, raw samples and histograms included, in a third of the bytes or less), next to the columns that
listing and filtering need and who stored it (provenance); ``metrics`` keeps a few figures per metric for
listing and queries; ``campaigns`` the plan of each campaign, whose runs carry its id, cell and repetition;
``alerts`` the alerts a monitor sent.
"""

import json
from collections.abc import Callable

from rtscope.errors import RtscopeError
from rtscope.model import result
from rtscope.store import encoding
from rtscope.store.connection import Connection, StoreError

_CREATE = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('schema_version', '0');
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
    {order_column}
);
CREATE INDEX runs_by_start ON runs (started);
CREATE TABLE metrics (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    metric_id TEXT NOT NULL,
    valid INTEGER NOT NULL,
    count INTEGER NOT NULL,
    p50 {real}, p99 {real}, max {real}, mean {real},    -- overhead-adjusted, as rtscope shows them
    PRIMARY KEY (run_id, metric_id)
)
"""

# A cell's repetition is measured once: an interrupted run is kept (what it measured is worth having) but does
# not count, so the campaign runs that cell again.
_CAMPAIGNS = """
ALTER TABLE runs ADD COLUMN campaign_id TEXT;
ALTER TABLE runs ADD COLUMN cell TEXT;
ALTER TABLE runs ADD COLUMN repetition INTEGER;
CREATE TABLE campaigns (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    started TEXT NOT NULL,
    plan TEXT                     -- JSON: what the campaign runs (null when only its runs were stored)
    {order_column}
);
CREATE UNIQUE INDEX runs_by_cell ON runs (campaign_id, cell, repetition)
    WHERE campaign_id IS NOT NULL AND status != 'interrupted'
"""

# Who measured (null for runs stored before version 3), the target to filter by, the document compressed.
_PROVENANCE = """
ALTER TABLE runs ADD COLUMN target TEXT;
ALTER TABLE runs ADD COLUMN measured_by TEXT;        -- the analyzer's user
ALTER TABLE runs ADD COLUMN analyzer_host TEXT;      -- the machine the analyzer ran on
ALTER TABLE runs ADD COLUMN rtscope_version TEXT;
ALTER TABLE runs ADD COLUMN document_zlib {blob}
"""
_PROVENANCE_DONE = """
ALTER TABLE runs DROP COLUMN document;
CREATE INDEX runs_by_campaign ON runs (campaign_id)
"""


def target_name(document: str) -> str | None:
    """The --target a result document was measured on (None: the document does not say)."""
    target: dict[str, str] | None = json.loads(document).get("target")
    return None if target is None else target["name"]


def _compress_documents(db: Connection) -> None:
    for run_id, text in db.execute("SELECT id, document FROM runs").fetchall():
        try:
            target = target_name(text)
        except (ValueError, TypeError, KeyError, AttributeError):  # changed by hand since rtscope stored it
            raise RtscopeError(f"cannot upgrade {db.name}: the document of run {run_id} is not a result") from None
        db.execute("UPDATE runs SET document_zlib = ?, target = ? WHERE id = ?", (encoding.pack(text), target, run_id))


# The time base of each run (result.time_base_text), so that a trend or a baseline read from the tables
# never puts runs of different time bases in one ranking.
_TIME_BASE = "ALTER TABLE runs ADD COLUMN time_base TEXT"


def time_base(document: str) -> str:
    """The time base a result document was measured on, as the store's column keeps it."""
    return result.time_base_text(json.loads(document))


def _record_time_bases(db: Connection) -> None:
    for run_id, data in db.execute("SELECT id, document_zlib FROM runs").fetchall():
        try:
            base = time_base(encoding.unpack(bytes(data)))
        except (ValueError, TypeError, KeyError, AttributeError):  # changed by hand since rtscope stored it
            raise RtscopeError(f"cannot upgrade {db.name}: the document of run {run_id} is not a result") from None
        db.execute("UPDATE runs SET time_base = ? WHERE id = ?", (base, run_id))


# The alerts a monitor sent (rtscope.execution.alerts), so that a change is sent once, across restarts: one row
# per change, channel and placement of its first run (a change whose cut moves a window as more arrive is
# matched by its first run's start, which outlives the run itself when retention merges windows).
_ALERTS = """
CREATE TABLE alerts (
    monitor_id TEXT NOT NULL,
    board TEXT NOT NULL,
    metric_id TEXT NOT NULL,
    stat TEXT NOT NULL,
    direction TEXT NOT NULL,      -- worse or better
    first_run TEXT NOT NULL,      -- the change's first run after, as placed when it was sent
    first_started TEXT NOT NULL,  -- that run's start
    channel TEXT NOT NULL,        -- hook or url
    sent_at TEXT NOT NULL,
    PRIMARY KEY (monitor_id, board, metric_id, stat, first_run, channel)
)
"""

# The document kept by store/encoding.py: its long arrays of numbers as numbers. The rows of earlier versions
# keep their zlib streams, which it reads as they are; the new name tells an older rtscope, which reads zlib
# streams alone, that this store is not one it reads.
_PACKED = "ALTER TABLE runs RENAME COLUMN document_zlib TO document_packed"

Step = tuple[str | Callable[[Connection], None], ...]
_STEPS: list[Step] = [
    (_CREATE,),
    (_CAMPAIGNS,),
    (_PROVENANCE, _compress_documents, _PROVENANCE_DONE),
    (_TIME_BASE, _record_time_bases),
    (_ALERTS,),
    (_PACKED,),
]
SCHEMA_VERSION = len(_STEPS)


def stored_version(db: Connection) -> int:
    """The schema version of an rtscope store; RtscopeError unless it is one this rtscope reads."""
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except StoreError as error:
        raise RtscopeError(f"{db.name} is not an rtscope results database ({error.reason})") from None
    if row is None:
        raise RtscopeError(f"{db.name} is not an rtscope results database (no schema version)")
    if not row[0].isdigit() or not 1 <= int(row[0]) <= SCHEMA_VERSION:
        raise RtscopeError(
            f"{db.name}: results database schema version {row[0]} is not supported "
            f"(this rtscope reads 1 to {SCHEMA_VERSION}; a newer rtscope wrote it)"
        )
    return int(row[0])


def migrate(db: Connection, version: int, to: int = SCHEMA_VERSION) -> None:
    """Bring a store of ``version`` (0: an empty database) to version ``to``; call within a transaction
    holding :meth:`Connection.lock`, so that a crash or a concurrent upgrade leaves one version or the other."""
    dialect = db.dialect
    for number in range(version, to):
        for part in _STEPS[number]:
            if isinstance(part, str):
                db.script(part.format(blob=dialect.blob, real=dialect.real, order_column=dialect.order_column))
            else:
                part(db)
        db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(number + 1),))
