"""rtscope run, on the fake target: checks before running, storing, --json, the summary."""

import json

import pytest

from rtscope.model import result
from support import builders


def test_run_defaults_to_the_quick_set_stores_and_shows_percentiles(fake):
    outcome = fake("run", "--duration", "0.3")
    assert outcome.status == 0, outcome.err
    assert "ctxsw.sem" in outcome.out and "lat.wakeup" in outcome.out and "clock.read" not in outcome.out
    for heading in ("p50", "p99", "p99.9", "max", "stddev", "validity"):
        assert heading in outcome.out
    assert "3.18 µs" in outcome.out  # ctxsw.sem's p50: 3200 ns less 20 ns of timestamp overhead
    listed = fake("runs")
    assert listed.status == 0 and "ctxsw.sem lat.wakeup" in listed.out


def test_raw_times_show_figures_as_measured(fake):
    assert "3.20 µs" in fake("run", "ctxsw.sem", "--no-store", "--raw-times").out


def test_run_json_file_is_the_stored_document(fake, tmp_path):
    out = tmp_path / "out.json"
    assert fake("run", "clock.read", "--label", "json", "--json", out).status == 0
    assert fake("show", "last", "--json").out == out.read_text()
    assert result.load(out).doc["run"]["label"] == "json"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_no_store_leaves_no_database(fake, db_path):
    assert fake("run", "ctxsw.sem", "--no-store").status == 0
    assert not db_path.exists()


def test_requested_configuration_reaches_the_result(fake, tmp_path):
    out = tmp_path / "out.json"
    fake(
        "run",
        "ctxsw.sem",
        "--policy",
        "rr",
        "--priority",
        "42",
        "--cpus",
        "0-1",
        "--param",
        "ctxsw.sem:cpu=1",
        "--json",
        out,
        "--no-store",
    )
    doc = json.loads(out.read_text())
    assert doc["config"]["requested"] | {"stack_prefault": None} == {
        "policy": "rr",
        "priority": 42,
        "cpus": [0, 1],
        "mlockall": True,
        "stack_prefault": None,
        "cpu_latency_us": 0,
    }
    assert doc["benches"][0]["params"]["cpu"] == 1
    assert "--param ctxsw.sem:cpu=1" in " ".join(doc["run"]["argv"])


def test_policy_other_means_priority_zero(fake, tmp_path):
    out = tmp_path / "out.json"
    assert fake("run", "ctxsw.sem", "--policy", "other", "--json", out, "--no-store").status == 0
    assert json.loads(out.read_text())["config"]["requested"]["priority"] == 0


def test_the_same_fake_run_twice_is_refused_by_the_store(fake):
    assert fake("run", "ctxsw.sem").status == 0
    again = fake("run", "ctxsw.sem")
    assert again.status == 2 and "is already stored" in again.err


def test_a_failed_bench_exits_1_but_is_stored(rtscope, tmp_path):
    doc = builders.result_doc(benches={"ctxsw.sem": 3000.0})
    doc["benches"][0] |= {"status": "failed", "error": "partner thread never ran"}
    builders.write(tmp_path / "failed.json", doc)
    outcome = rtscope("--target", f"fake:{tmp_path}", "run", "ctxsw.sem")
    assert outcome.status == 1
    assert "error: partner thread never ran" in outcome.out
    assert "failed" in rtscope("runs").out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "nope"], "unknown bench or suite 'nope' (rtscope list shows them)"),
        (["run", "ctxsw.sme"], "unknown bench or suite 'ctxsw.sme'; did you mean ctxsw.sem?"),
        (["run", "--param", "cpuu=1"], "no bench to run has a parameter 'cpuu'; did you mean cpu?"),
        (["run", "ctxsw.sem", "ctxsw.sem"], "bench ctxsw.sem is named twice"),
        (["run", "--param", "cpu"], "bad parameter 'cpu' (key=value or bench:key=value)"),
        (["run", "--param", "bogus=1"], "no bench to run has a parameter 'bogus'"),
        (["run", "--param", "cpu=x"], "--param cpu=x: cpu expects an integer, not 'x'"),
        (["run", "ctxsw.sem", "--param", "lat.wakeup:cpu=1"], "lat.wakeup is not among the benches to run"),
        (["run", "--duration", "-1"], "duration must be more than zero"),
        (["run", "--policy", "other", "--priority", "5"], "does not go with --policy other"),
        (["run", "--priority", "0"], "--priority must be 1..99 with --policy fifo"),
        (["run", "--cpus", "3-1"], "bad CPU range"),
    ],
)
def test_bad_requests_are_refused_before_running(fake, db_path, args, message):
    outcome = fake(*args)
    assert outcome.status == 2
    assert message in outcome.err
    assert outcome.out == ""
    assert not db_path.exists()


def test_an_unwritable_json_path_is_refused_before_running(fake, tmp_path, db_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    for destination in (tmp_path / "missing-dir" / "out.json", blocker / "out.json", tmp_path):
        outcome = fake("run", "--json", destination)
        assert outcome.status == 2 and "cannot write" in outcome.err, outcome.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]
    assert not db_path.exists() or fake("runs").out.startswith("no runs")
