"""Every command that reads or writes runs, on a PostgreSQL store as on the default SQLite file; runs'
filters and JSON; the store's messages never show a password."""

import json
import re
import subprocess
import sys

import pytest

from conftest import process_env
from rtscope.errors import RtscopeError
from rtscope.store import encoding
from rtscope.store.database import Store
from rtscope.store.postgres import masked
from support import postgres as pg
from support.waiting import until
from test_campaign import FAKE_SPEC, REAL_SPEC, _campaign_process, spec_file


@pytest.fixture
def store_url(store_location, db_path, monkeypatch):
    """This test's store for rtscope ($RTSCOPE_DB): the SQLite file, or a new database's writer URL."""
    if store_location != str(db_path):
        monkeypatch.setenv("RTSCOPE_DB", store_location)
    return store_location


def test_every_command_works_the_same_on_both_stores(fake, store_url, tmp_path):
    for label in ("one", "two"):
        outcome = fake("run", "--label", label)
        assert outcome.status == 0, outcome.err
    listed = json.loads(fake("runs", "--format", "json").out)
    assert [run["label"] for run in listed] == ["two", "one"]
    first, second = listed[1]["id"], listed[0]["id"]
    profile = tmp_path / "profile.toml"
    profile.write_text('name = "switches"\nstatistic = "mean"\n[weights]\n"ctxsw.sem" = 55\n')
    assert {run["measured_by"] for run in listed} == {Store.open(store_url).runs()[0].measured_by}
    assert listed[0]["rtscope_version"] and listed[0]["analyzer_host"]
    for command in (
        ["show", "last"],
        ["show", first[:6]],
        ["compare", first, second],
        ["report", first, "last", "-o", tmp_path / "report.html"],
        ["score", first, second, "--profile", profile],
        ["check", "last", "--baseline", first],
        ["export", first, "--format", "csv"],
        ["export", first, "--format", "kcidb"],
        ["trend", "ctxsw.sem", "--format", "json"],
        ["check", "last", "--baseline", "label:one"],
    ):
        outcome = fake(*command)
        assert outcome.status in (0, 1) and not outcome.err.startswith("rtscope:"), (command, outcome.err)
    spec = spec_file(tmp_path, FAKE_SPEC)
    assert fake("campaign", spec).status == 0
    resumed = fake("campaign", spec, "--resume")
    assert resumed.status == 0 and "is complete: nothing left to measure" in resumed.out
    assert len(json.loads(fake("runs", "--campaign", "replayed", "--format", "json").out)) == 6
    assert fake("compare", "campaign:replayed", "--format", "csv").status == 0


def test_runs_filters(fake, store_url, recorded_dir):
    for label in ("stock", "rt"):
        assert fake("run", "--label", label).status == 0
    assert [run["label"] for run in json.loads(fake("runs", "--label", "rt", "--format", "json").out)] == ["rt"]
    assert len(fake("runs", "--on", f"fake:{recorded_dir}").out.splitlines()) == 3
    assert len(fake("runs", "--on", "local").out.splitlines()) == 1  # the message
    assert fake("runs", "--user", "nobody-here").out.startswith("no stored run in ")
    assert fake("runs", "--since", "2000-01-01").out.count("\n") == 3
    assert fake("runs", "--since", "3000-01-01", "--format", "json").out.strip() == "[]"
    bad = fake("runs", "--since", "yesterday")
    assert bad.status == 2 and bad.err.startswith("rtscope: argument --since: bad date 'yesterday'")


@pytest.mark.parametrize(
    "url, message",
    [
        (f"postgresql://someone:{pg.PASSWORD}@127.0.0.1:1/x?connect_timeout=2", "cannot connect to results database"),
        (f"postgresql://someone:{pg.PASSWORD}@127.0.0.1:1/x?nonsense=1", "is not a valid PostgreSQL URL"),
    ],
)
def test_a_store_that_cannot_be_reached_is_one_line_without_its_password(rtscope, monkeypatch, url, message):
    monkeypatch.setenv("RTSCOPE_DB", url)
    outcome = rtscope("runs")
    assert outcome.status == 2 and outcome.err.count("\n") == 1 and message in outcome.err, outcome.err
    assert pg.PASSWORD not in outcome.err and "someone:***@127.0.0.1:1" in outcome.err


def test_a_campaign_on_two_targets_stores_into_postgres_by_one_url(postgres, recorded_dir, tmp_path, db_path):
    url = postgres.url(postgres.new_database())
    spec = spec_file(
        tmp_path, FAKE_SPEC.replace("repetitions = 3", f'repetitions = 1\ntargets = ["fake:{recorded_dir}", "fake:."]')
    )
    env = {key: value for key, value in process_env(db_path).items() if key != "RTSCOPE_DB"}
    ran = subprocess.run(
        [sys.executable, "-m", "rtscope", "--db", url, "campaign", spec],
        capture_output=True,
        text=True,
        env=env,
        cwd=recorded_dir,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    with Store.open(url) as store:
        assert len(store.campaign_runs("replayed")) == 4
    assert not db_path.exists()


def test_push_and_pull_copy_runs_once_with_their_campaigns(fake, store_url, tmp_path):
    spec = spec_file(tmp_path, FAKE_SPEC)
    assert fake("campaign", spec).status == 0
    assert fake("run", "--label", "alone").status == 0
    other = tmp_path / "other.sqlite"
    pushed = fake("push", "campaign:replayed", "--to", other)
    assert pushed.status == 0 and pushed.out.startswith(f"pushed 6 runs to {other} (0 already there)"), pushed.err
    assert pushed.err == "rtscope: pushing 6/6 runs\n"  # a log's progress line: every few seconds and at the end
    assert fake("push", "--all", "--to", other).out.startswith("pushed 1 runs to")  # the campaign's are there
    assert fake("push", "--all", "--to", other).out.startswith("pushed 0 runs to")
    with Store.open(other) as copy, Store.open(store_url) as original:
        assert copy.campaign("replayed").plan == original.campaign("replayed").plan
        assert sorted((r.id, r.measured_by, r.analyzer_host) for r in copy.runs()) == sorted(
            (r.id, r.measured_by, r.analyzer_host) for r in original.runs()
        )
    # Back the other way, into an empty store, and the campaign goes on there.
    empty = tmp_path / "empty.sqlite"
    pulled = fake("--db", empty, "pull", "campaign:replayed", "--from", store_url)
    assert pulled.status == 0 and pulled.out.startswith("pulled 6 runs from"), pulled.err
    assert pg.PASSWORD not in pulled.out
    resumed = fake("--db", empty, "campaign", spec, "--resume")
    assert resumed.status == 0 and "is complete: nothing left to measure" in resumed.out
    refused = fake("push", "--to", other)
    assert refused.status == 2 and "name the runs to copy" in refused.err


def _whole_and_orphans(admin) -> tuple[dict[str, bool], int]:
    """Each stored run: whether the metrics rows its document lists are all there; and how many metrics rows
    belong to no run."""
    whole = {
        run_id: len(json.loads(encoding.unpack(document))["metrics"]) == metrics > 0
        for run_id, document, metrics in admin.execute(
            "SELECT id, document_packed, (SELECT COUNT(*) FROM metrics WHERE run_id = runs.id) FROM runs"
        )
    }
    (orphans,) = admin.execute("SELECT COUNT(*) FROM metrics WHERE run_id NOT IN (SELECT id FROM runs)").fetchone()
    return whole, orphans


@pytest.mark.usefixtures("probe")
def test_a_connection_lost_mid_campaign_keeps_the_runs_stored_and_resume_continues(postgres, tmp_path):
    """Issue 22: the server cuts the campaign's connection once a run is stored."""
    database = postgres.new_database()
    url = postgres.url(database)
    spec = spec_file(tmp_path, REAL_SPEC.format(duration="1s"))
    campaign = _campaign_process(url, spec)

    def stored() -> set[str]:
        try:
            with Store.open(url) as store:
                return {run.id for run in store.runs()}
        except RtscopeError:  # not made yet
            return set()

    until("a run stored", lambda: bool(stored()))
    before = stored()
    with postgres.admin() as admin:
        cut = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (database,),
        ).fetchall()
    assert cut and all(done for (done,) in cut)  # the campaign's connection (and a closing one of ours)
    _, err = campaign.communicate(timeout=60)
    assert campaign.returncode == 2, err
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"rtscope: results database {masked(url)}: ") and "Traceback" not in err, err
    assert last.endswith("was not stored; campaign --resume measures it and the runs left)"), last
    assert pg.PASSWORD not in err
    with postgres.admin(database) as admin:
        whole, orphans = _whole_and_orphans(admin)
    assert before <= whole.keys() and len(whole) < 4 and all(whole.values()) and orphans == 0, whole
    # Every run the campaign measured is stored but the one in flight when the store was lost: none of it is.
    measured = re.findall(r"^run ([0-9a-f]{16}) ", err, re.MULTILINE)
    assert set(measured[:-1]) == whole.keys() and measured[-1] not in whole, (measured, whole)
    resumed = _campaign_process(url, spec, "--resume")
    _, err = resumed.communicate(timeout=60)
    assert resumed.returncode == 0, err
    assert f"resuming: {len(whole)} of 4 runs already measured" in err
    assert f"measured {4 - len(whole)} runs" in err, err
    with Store.open(url) as store:
        cells = sorted(
            (r.doc["campaign"]["cell"], r.doc["campaign"]["repetition"]) for r in store.campaign_runs("killed")
        )
    assert cells == [(f"load=idle config={config}", n) for config in ("fifo", "other") for n in (1, 2)]
    with postgres.admin(database) as admin:
        whole, orphans = _whole_and_orphans(admin)
    assert len(whole) == 4 and all(whole.values()) and orphans == 0
