"""The recorded results in tests/golden/ (real probe runs): shown, compared and replayed."""

import pytest

from conftest import GOLDEN, REPO
from rtscope.model import result
from rtscope.store.database import Store

pytestmark = pytest.mark.skipif(not GOLDEN, reason="no golden files")


@pytest.mark.parametrize("path", GOLDEN, ids=lambda path: path.name)
def test_each_golden_file_shows(rtscope, path, db_path):
    outcome = rtscope("show", path)
    assert outcome.status == 0, outcome.err
    assert "Metrics" in outcome.out and "p99.9" in outcome.out
    assert rtscope("show", path, "--json").out == path.read_text()
    assert not db_path.exists()


def test_refused_privilege_is_visible(rtscope):
    refused = next(path for path in GOLDEN if "refused" in path.name)
    outcome = rtscope("show", refused)
    assert "! not as requested" in outcome.out
    assert "\n  ! " in outcome.out  # the warnings section


def test_privileged_and_refused_compare_with_a_warning(rtscope):
    outcome = rtscope("compare", *GOLDEN)
    assert outcome.status == 0, outcome.err
    assert "! the runs differ in granted policy" in outcome.out
    assert "B/A" in outcome.out


def test_the_fake_target_replays_the_golden_files(rtscope):
    golden = f"fake:{REPO / 'tests' / 'golden'}"
    assert "ctxsw.sem" in rtscope("--target", golden, "list").out
    outcome = rtscope("--target", golden, "run", "--label", "replayed")
    assert outcome.status == 0, outcome.err
    assert "replayed" in rtscope("runs").out


def test_worst_latency_over_time_shows_for_results_that_keep_it(rtscope):
    latency = next(path for path in GOLDEN if "latency" in path.name)
    out = rtscope("show", latency).out
    assert "Over time" in out
    over_time = out[out.index("Over time") :]
    per_cpu = next(line for line in over_time.splitlines() if line.strip().startswith("lat.wakeup.cpu1"))
    assert "× 1.00 s" in out and "above 100 µs" in per_cpu
    older = next(path for path in GOLDEN if "result-v2" in path.name)
    assert "Over time" not in rtscope("show", older).out


def test_a_campaign_run_under_load_keeps_both_when_stored(rtscope, tmp_path):
    under_load = next(path for path in GOLDEN if "under-load" in path.name)
    out = rtscope("show", under_load).out
    assert "Loads" in out and "cpu" in out[out.index("Loads") :]
    # Stored, it belongs to its campaign: campaign:ID names it, and its cell groups it.
    doc = result.load(under_load).doc
    with Store.open(tmp_path / "store.sqlite", create=True) as store:
        store.add(result.load(under_load))
        (again,) = store.campaign_runs(doc["campaign"]["id"])
    assert again.doc["campaign"]["cell"] == "load=cpu" and again.doc["loads"][0]["held"]
