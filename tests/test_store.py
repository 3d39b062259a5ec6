"""The results store, in SQLite and in PostgreSQL: the same tests on both, and each one's own faults."""

import multiprocessing
import socket
import sqlite3
import time

import psycopg
import pytest

from rtscope.errors import RtscopeError
from rtscope.model import result
from rtscope.store import encoding, schema
from rtscope.store.database import Campaign, Provenance, RunFilter, Store, copy_runs
from rtscope.store.postgres import PostgresConnection
from support import builders
from support import postgres as pg


def stored(run_id: str, **fields) -> result.Result:
    return result.from_doc(builders.result_doc(run_id=run_id, **fields), "test")


@pytest.fixture
def location(store_location):
    return store_location


@pytest.fixture
def store(location):
    with Store.open(location, create=True) as opened:
        yield opened


@pytest.fixture
def sqlite_store(db_path):
    with Store.open(db_path, create=True) as opened:
        yield opened


def test_round_trip_keeps_the_document_exactly(store, tmp_path):
    path = builders.write(tmp_path / "run.json", builders.result_doc())
    original = result.load(path)
    store.add(original)
    again = store.get(original.run_id)
    assert again.text == original.text
    assert again.doc == original.doc


def test_a_run_is_stored_once(store):
    store.add(stored("00000000000000aa"))
    with pytest.raises(RtscopeError, match="run 00000000000000aa is already stored"):
        store.add(stored("00000000000000aa"))


def test_prefixes_unique_ambiguous_and_unknown(store):
    for run_id in ("abc0000000000001", "abc0000000000002", "def0000000000003"):
        store.add(stored(run_id))
    assert store.get("DEF").run_id == "def0000000000003"
    with pytest.raises(RtscopeError, match="prefix abc is ambiguous: 2 stored runs"):
        store.get("abc")
    with pytest.raises(RtscopeError, match="no stored run has an id starting with 99"):
        store.get("99")
    with pytest.raises(RtscopeError, match="is not a run id"):
        store.get("last-week")


def test_runs_are_listed_newest_first_with_their_issues(store):
    store.add(stored("1000000000000000", started="2024-05-01T10:00:00Z"))
    store.add(
        stored(
            "2000000000000000", started="2024-05-02T10:00:00Z", privileged=False, invalid=("lat.wakeup",), label="later"
        )
    )
    rows = store.runs()
    assert [row.id for row in rows] == ["2000000000000000", "1000000000000000"]
    assert (rows[0].label, rows[0].invalid_metrics, rows[0].warnings) == ("later", 1, 2)
    assert rows[0].benches == ("ctxsw.sem", "lat.wakeup", "clock.read")
    assert len(store.runs(limit=1)) == 1
    assert store.latest().run_id == "2000000000000000"


def test_latest_of_an_empty_database(store):
    with pytest.raises(RtscopeError, match="no runs stored"):
        store.latest()


def test_a_missing_database_is_not_created_unless_asked(db_path):
    with pytest.raises(RtscopeError, match=f"no results database at {db_path} \\(rtscope run creates it\\)"):
        Store.open(db_path)
    assert not db_path.exists()


def test_the_database_uses_wal_and_can_be_reopened(sqlite_store, db_path):
    sqlite_store.add(stored("1000000000000000"))
    with Store.open(db_path) as reopened:
        assert reopened.latest().run_id == "1000000000000000"
    with sqlite3.connect(db_path) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def write_other_sqlite(path):
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE notes (text TEXT)")
    connection.commit()
    connection.close()


@pytest.mark.parametrize(
    "make",
    [
        lambda path: path.write_bytes(b"this is not a database\n" * 100),
        lambda path: path.write_bytes(b""),
        write_other_sqlite,
    ],
    ids=["garbage", "empty", "other-sqlite"],
)
@pytest.mark.parametrize("create", [False, True])
def test_a_foreign_file_is_refused_and_left_alone(tmp_path, make, create):
    path = tmp_path / "foreign.db"
    make(path)
    before = path.read_bytes()
    with pytest.raises(RtscopeError, match="is not an rtscope results database"):
        Store.open(path, create=create)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["foreign.db"]


def test_a_newer_schema_version_is_refused(sqlite_store, db_path):
    newer, ours = schema.SCHEMA_VERSION + 1, schema.SCHEMA_VERSION
    with sqlite3.connect(db_path) as connection:
        connection.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(newer),))
    with pytest.raises(
        RtscopeError, match=f"schema version {newer} is not supported \\(this rtscope reads 1 to {ours}; a newer"
    ):
        Store.open(db_path)


def test_a_directory_is_not_a_database(tmp_path):
    with pytest.raises(RtscopeError, match="is a directory"):
        Store.open(tmp_path, create=True)


def in_campaign(
    run_id: str, cell: str, repetition: int, *, campaign_id: str = "c000000000000001", status: str = "complete"
) -> result.Result:
    doc = builders.result_doc(run_id=run_id, status=status)
    doc["campaign"] = {
        "name": "study",
        "id": campaign_id,
        "cell": cell,
        "axes": {"load": cell},
        "repetition": repetition,
        "repetitions": 2,
    }
    return result.from_doc(doc, "test")


def test_campaign_runs_come_cell_by_cell_without_interrupted_ones(store):
    store.add_campaign(Campaign("c000000000000001", "study", "2024-05-01T10:00:00Z", {"cells": 2}))
    # Measured repetition-major, as a campaign runs them; cell "cpu" repetition 2 was interrupted once.
    for number, (cell, repetition, status) in enumerate(
        [
            ("idle", 1, "complete"),
            ("cpu", 1, "complete"),
            ("idle", 2, "complete"),
            ("cpu", 2, "interrupted"),
            ("cpu", 2, "complete"),
        ]
    ):
        store.add(in_campaign(f"{number + 1:016x}", cell, repetition, status=status))
    runs = store.campaign_runs("study")
    assert [(r.doc["campaign"]["cell"], r.doc["campaign"]["repetition"]) for r in runs] == [
        ("idle", 1),
        ("idle", 2),
        ("cpu", 1),
        ("cpu", 2),
    ]
    assert store.campaign_cells("c000000000000001") == {("idle", 1), ("idle", 2), ("cpu", 1), ("cpu", 2)}
    assert store.campaign("c0000").plan == {"cells": 2}


def test_a_cell_is_measured_once_per_repetition(store):
    store.add(in_campaign("0000000000000001", "idle", 1))
    with pytest.raises(RtscopeError, match="already has a run of cell 'idle', repetition 1"):
        store.add(in_campaign("0000000000000002", "idle", 1))
    # A run stored with its campaign tag but without the campaign's plan still finds its campaign.
    assert store.campaign("study").plan is None


def monitored(run_id: str, board: str, window: int, *, status: str = "complete") -> result.Result:
    return result.from_doc(builders.monitor_window(run_id, board, window, status=status), "test")


def test_a_boards_window_is_stored_once_and_found_as_the_monitors_runs(store):
    store.add(monitored("0000000000000001", "rpi4", 1))
    store.add(monitored("0000000000000002", "rpi4", 2, status="interrupted"))
    store.add(monitored("0000000000000003", "rpi4", 2))  # measured again after the interruption
    store.add(monitored("0000000000000004", "bbb", 1))
    with pytest.raises(RtscopeError, match="^monitor lab already has window 2 of board 'rpi4'$"):
        store.add(monitored("0000000000000005", "rpi4", 2))
    assert store.campaign_cells("a000000000000001") == {("rpi4", 1), ("rpi4", 2), ("bbb", 1)}


def test_unknown_and_ambiguous_campaigns(store):
    store.add_campaign(Campaign("ab00000000000001", "one", "2024-05-01T10:00:00Z", {}))
    store.add_campaign(Campaign("ab00000000000002", "two", "2024-05-01T10:00:00Z", {}))
    with pytest.raises(RtscopeError, match="campaign id prefix ab is ambiguous"):
        store.campaign("ab")
    with pytest.raises(RtscopeError, match="no stored campaign is named or has an id starting with 'three'"):
        store.campaign("three")
    with pytest.raises(RtscopeError, match="campaign one \\(ab00000000000001\\) has no measured runs yet"):
        store.campaign_runs("one")


_VERSION_1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (id TEXT PRIMARY KEY, started TEXT NOT NULL, finished TEXT NOT NULL, label TEXT,
    hostname TEXT NOT NULL, kernel TEXT NOT NULL, status TEXT NOT NULL, benches TEXT NOT NULL,
    warnings INTEGER NOT NULL, stored_at TEXT NOT NULL, document TEXT NOT NULL);
CREATE INDEX runs_by_start ON runs (started);
CREATE TABLE metrics (run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, metric_id TEXT NOT NULL,
    valid INTEGER NOT NULL, count INTEGER NOT NULL, p50 REAL, p99 REAL, max REAL, mean REAL,
    PRIMARY KEY (run_id, metric_id));
INSERT INTO meta VALUES ('schema_version', '1');
"""


def test_a_version_1_database_is_upgraded_keeping_its_runs(db_path):
    db_path.parent.mkdir(parents=True)
    old = stored("1000000000000000")
    with sqlite3.connect(db_path) as connection:
        connection.executescript(_VERSION_1)
        connection.execute(
            "INSERT INTO runs VALUES (?, ?, ?, NULL, 'h', 'k', 'complete', 'ctxsw.sem', 0, ?, ?)",
            (old.run_id, old.doc["run"]["started"], old.doc["run"]["finished"], old.doc["run"]["started"], old.text),
        )
    with Store.open(db_path) as upgraded:
        assert upgraded.get("1000").text == old.text
        upgraded.add(in_campaign("2000000000000000", "idle", 1))
        assert [r.id for r in upgraded.runs()] == ["2000000000000000", "1000000000000000"]
    with sqlite3.connect(db_path) as connection:
        assert connection.execute("SELECT value FROM meta").fetchone() == (str(schema.SCHEMA_VERSION),)
        (packed,) = connection.execute("SELECT document_packed FROM runs WHERE id = ?", (old.run_id,)).fetchone()
    assert encoding.unpack(packed) == old.text


def test_a_run_records_who_stored_it_and_runs_filter_by_it(store):
    store.add(stored("1000000000000000", label="stock"), Provenance("alice", "desk-1", "9.9"))
    store.add(stored("2000000000000000", started="2024-06-01T10:00:00Z"), Provenance("bob", "desk-2", "9.9"))
    store.add(in_campaign("3000000000000000", "idle", 1))
    first = store.runs(only=RunFilter(user="alice"))
    assert [(r.id, r.measured_by, r.analyzer_host, r.rtscope_version) for r in first] == [
        ("1000000000000000", "alice", "desk-1", "9.9")
    ]
    assert [r.id for r in store.runs(only=RunFilter(label="stock"))] == ["1000000000000000"]
    assert [r.id for r in store.runs(only=RunFilter(since="2024-05-15"))] == ["2000000000000000"]
    assert [r.id for r in store.runs(only=RunFilter(campaign="study"))] == ["3000000000000000"]
    # A filter is a parameter, never SQL: quotes match nothing and break nothing.
    assert store.runs(only=RunFilter(kernel="x' OR '1'='1")) == []
    assert store.runs(only=RunFilter(target="local")) == []
    assert len(store.runs()) == 3


def test_raw_samples_are_stored_compactly(store):
    doc = builders.result_doc(run_id="1000000000000000")
    doc["metrics"][0]["raw"] = [1000 + (i * 7919) % 5000 for i in range(100_000)]
    doc["metrics"][0]["raw_dropped"] = 0
    run = result.from_doc(doc, "test")
    store.add(run)
    assert store.get("1000").text == run.text
    assert len(encoding.pack(run.text)) < len(run.text) / 5


def _writer(location: str, first: int, count: int) -> None:
    with Store.open(location, create=True) as store:
        for number in range(first, first + count):
            store.add(stored(f"{number:016x}"))


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_many_writers_at_once_store_every_run_once(backend, db_path, request):
    if backend == "sqlite":
        location = str(db_path)
    else:
        cluster = request.getfixturevalue("postgres")
        location = cluster.url(cluster.new_database())
    writers = [multiprocessing.Process(target=_writer, args=(location, 1000 * w + 1, 25)) for w in range(4)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(60)
    assert [writer.exitcode for writer in writers] == [0] * 4
    with Store.open(location) as store:
        ids = [row.id for row in store.runs()]
    assert len(ids) == len(set(ids)) == 100


def test_postgres_faults_are_one_line_each(postgres):
    database = postgres.new_database()
    with pytest.raises(RtscopeError, match=f"no results store in postgresql://{pg.WRITER}:\\*\\*\\*@.* yet"):
        Store.open(postgres.url(database))
    with Store.open(postgres.url(database), create=True) as store:
        store.add(stored("1000000000000000"))
    # A wrong password: refused, and masked.
    with pytest.raises(RtscopeError, match="password authentication failed") as refused:
        Store.open(postgres.url(database, password="wrong-secret"))
    assert "wrong-secret" not in str(refused.value) and "***" in str(refused.value)
    # A role that may only read: reads, and is refused writing in one line with nothing half-written.
    with Store.open(postgres.url(database, role=pg.READER)) as reader:
        assert [r.id for r in reader.runs()] == ["1000000000000000"]
        with pytest.raises(RtscopeError, match="no permission to write runs in postgresql://rtscope_reader:\\*\\*\\*@"):
            reader.add(in_campaign("2000000000000000", "idle", 1))
    # One that may write the campaign and the run but not its metrics: the run is stored whole or not at all.
    with postgres.admin(database) as admin:
        admin.execute(f"GRANT INSERT ON campaigns, runs TO {pg.READER}")
    with (
        Store.open(postgres.url(database, role=pg.READER)) as reader,
        pytest.raises(RtscopeError, match="no permission to write runs in .*metrics"),
    ):
        reader.add(in_campaign("2000000000000000", "idle", 1))
    with Store.open(postgres.url(database)) as store:
        assert [r.id for r in store.runs()] == ["1000000000000000"]
        assert store.campaign_cells("c000000000000001") == set()
        with pytest.raises(RtscopeError, match="no stored campaign"):
            store.campaign("study")
    # Nobody listening: one line, within connect_timeout.
    started = time.monotonic()
    with pytest.raises(RtscopeError, match="cannot connect to results database .*Connection refused"):
        Store.open(f"postgresql://{pg.WRITER}:{pg.PASSWORD}@127.0.0.1:1/{database}?connect_timeout=2")
    assert time.monotonic() - started < 5


def test_a_postgres_database_that_is_not_a_store_is_refused(postgres):
    database = postgres.new_database()
    with psycopg.connect(postgres.url(database), autocommit=True) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")
    for create in (False, True):
        with pytest.raises(RtscopeError, match='is not an rtscope results database \\(relation "meta" does not exist'):
            Store.open(postgres.url(database), create=create)
    with psycopg.connect(postgres.url(database), autocommit=True) as connection:
        connection.execute("DROP TABLE notes")
    with Store.open(postgres.url(database), create=True):
        pass
    newer, ours = schema.SCHEMA_VERSION + 1, schema.SCHEMA_VERSION
    with psycopg.connect(postgres.url(database), autocommit=True) as connection:
        connection.execute("UPDATE meta SET value = %s", (str(newer),))
    with pytest.raises(
        RtscopeError, match=f"schema version {newer} is not supported \\(this rtscope reads 1 to {ours}"
    ):
        Store.open(postgres.url(database))


def test_credentials_from_a_password_file_and_tls_settings_reach_libpq(postgres, tmp_path, monkeypatch):
    database = postgres.new_database()
    passfile = tmp_path / "pgpass"
    passfile.write_text(f"127.0.0.1:{postgres.port}:*:{pg.WRITER}:{pg.PASSWORD}\n")
    passfile.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(passfile))
    with Store.open(postgres.url(database, password=None), create=True) as store:
        assert store.location == postgres.url(database, password=None)
    # The test cluster has no TLS: a URL that requires it is refused by libpq, in one line.
    with pytest.raises(RtscopeError, match="server does not support SSL, but SSL was required"):
        Store.open(postgres.url(database) + "?sslmode=require")


def test_copied_runs_keep_who_stored_them_and_their_campaign(store, tmp_path):
    store.add_campaign(Campaign("c000000000000001", "study", "2024-05-01T10:00:00Z", {"cells": 2}))
    store.add(in_campaign("1000000000000000", "idle", 1), Provenance("alice", "desk-1", "1.0"))
    store.add(stored("2000000000000000"), Provenance(None, None, None))
    with Store.open(tmp_path / "copy.sqlite", create=True) as copy:
        # A run of the campaign there already, stored without its plan, gets the plan.
        copy.add(in_campaign("3000000000000000", "idle", 2))
        assert copy_runs(store, copy, ["1000000000000000", "2000000000000000"]) == (2, 0)
        assert copy_runs(store, copy, ["1000000000000000", "2000000000000000"]) == (0, 2)
        assert copy.provenance("1000000000000000") == Provenance("alice", "desk-1", "1.0")
        assert copy.provenance("2000000000000000") == Provenance(None, None, None)
        assert copy.campaign("study").plan == {"cells": 2}
        assert copy.get("1000").text == store.get("1000").text


def test_an_upgrade_that_fails_leaves_the_store_as_it_was(db_path):
    db_path.parent.mkdir(parents=True)
    with sqlite3.connect(db_path) as connection:
        connection.executescript(_VERSION_1)
        connection.execute("INSERT INTO runs VALUES ('1', 's', 'f', NULL, 'h', 'k', 'complete', 'b', 0, 's', '[1]')")
    before = db_path.read_bytes()
    with pytest.raises(RtscopeError, match="cannot upgrade .*: the document of run 1 is not a result"):
        Store.open(db_path)
    assert db_path.read_bytes() == before


def test_a_metrics_history_is_one_query_on_both_backends(store):
    store.add(stored("1000000000000001", started="2026-11-02T10:00:00Z"))
    store.add(stored("1000000000000002", started="2026-11-03T10:00:00Z", invalid=("lat.wakeup",)))
    history = store.metric_history("lat.wakeup", "p99", since="2026-11-01")
    assert [(row[0], row[5]) for row in history] == [("1000000000000001", True), ("1000000000000002", False)]
    assert all(isinstance(row[6], float) for row in history)


def test_an_older_postgres_store_is_upgraded_in_place(postgres):
    url = postgres.url(postgres.new_database())
    old = stored("1000000000000000")
    db = PostgresConnection(url)
    with db.transaction():
        schema.migrate(db, 0, to=2)
        db.execute(
            "INSERT INTO runs (id, started, finished, hostname, kernel, status, benches, warnings, stored_at, document)"
            " VALUES (?, ?, ?, 'h', 'k', 'complete', 'ctxsw.sem', 0, ?, ?)",
            (old.run_id, old.doc["run"]["started"], old.doc["run"]["finished"], old.doc["run"]["started"], old.text),
        )
    db.close()
    with Store.open(url) as upgraded:
        assert upgraded.get("1000").text == old.text
        assert upgraded.provenance(old.run_id) == Provenance(None, None, None)
        upgraded.add(in_campaign("2000000000000000", "idle", 1))
        assert [r.id for r in upgraded.runs()] == ["2000000000000000", "1000000000000000"]
    with psycopg.connect(url) as connection:
        assert connection.execute("SELECT value FROM meta").fetchone() == (str(schema.SCHEMA_VERSION),)


def test_a_server_that_never_answers_is_given_up_after_connect_timeout():
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # the kernel completes the connection; nobody ever answers on it
        url = f"postgresql://someone:{pg.PASSWORD}@127.0.0.1:{silent.getsockname()[1]}/x?connect_timeout=2"
        started = time.monotonic()
        with pytest.raises(RtscopeError, match="cannot connect to results database .*timeout expired") as refused:
            Store.open(url)
    assert time.monotonic() - started < 6
    assert pg.PASSWORD not in str(refused.value)
