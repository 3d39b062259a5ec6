"""A bench the target cannot run is skipped with its reason (the probe decides, before it starts): the run
is complete and exits 0, a campaign of such runs too; show, compare and report say what was skipped and
why; check holds a skipped bench absent, not regressed; the exporters say skipped (JUnit, KCIDB, LAVA).
The probe's side: probe/tests/test_benches.c, and the slow test at the end on this machine's kernel."""

import json
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import kcidb_io
import pytest

from rtscope.execution.measure import COMPLETE, exit_status
from rtscope.model import result
from rtscope.store.database import Store
from support import builders

REASON = "the kernel has no timerlat tracer (its tracers: function nop)"


def stock(run_id: str = "5700c5700c5700c0") -> dict[str, Any]:
    """A run of lat.wakeup and lat.timerlat on a kernel without the timerlat tracer: lat.timerlat skipped."""
    doc = builders.result_doc(run_id=run_id, label="stock", benches={"lat.wakeup": 15500.0})
    doc["benches"].append({"id": "lat.timerlat", "params": {}, "status": "skipped", "elapsed_s": 0.0, "error": REASON})
    return doc


def rt(run_id: str = "a7a7a7a7a7a7a7a7", wakeup_ns: float = 9000.0) -> dict[str, Any]:
    """The same benches on a kernel that has the tracer: lat.timerlat measured."""
    doc = builders.result_doc(run_id=run_id, label="rt", benches={"lat.wakeup": wakeup_ns, "lat.timerlat": 4000.0})
    timerlat = next(m for m in doc["metrics"] if m["id"] == "lat.timerlat")
    timerlat["id"] = "lat.timerlat.irq"
    timerlat["bench"] = "lat.timerlat"
    return doc


def test_a_run_that_skipped_a_bench_is_complete_and_exits_0():
    doc = result.from_doc(stock(), "built").doc
    assert exit_status(doc) == COMPLETE
    assert result.skipped(doc) == {"lat.timerlat": REASON}
    assert result.skip_reason(doc, "lat.timerlat.irq") == REASON
    assert result.skip_reason(doc, "lat.timerlat.irq", bench="lat.timerlat") == REASON
    assert result.skip_reason(doc, "lat.wakeup") is None and result.skip_reason(doc, "lat.irq") is None


def test_a_metric_of_a_family_goes_with_its_skipped_bench_only_when_none_of_the_family_ran():
    doc = builders.result_doc(benches={"clock.read": 20.0})
    doc["benches"].append(
        {"id": "wave.square", "params": {}, "status": "skipped", "elapsed_s": 0.0, "error": "no GPIO lines"}
    )
    assert result.skip_reason(doc, "wave.period{model=c-file,period_us=1000}") == "no GPIO lines"
    doc["benches"].append({"id": "wave.import", "params": {}, "status": "ok", "elapsed_s": 1.0, "error": None})
    assert result.skip_reason(doc, "wave.period") is None


def test_show_says_the_bench_was_skipped_and_why(rtscope, tmp_path):
    shown = rtscope("show", builders.write(tmp_path / "stock.json", stock()))
    assert shown.status == 0, shown.err
    [row] = [line for line in shown.out.splitlines() if line.strip().startswith("lat.timerlat")]
    assert row.split()[1] == "skipped" and row.endswith(REASON) and "error" not in row


def test_compare_and_report_list_what_was_skipped_once(rtscope, tmp_path):
    paths = [builders.write(tmp_path / f"{doc['run']['label']}.json", doc) for doc in (stock(), rt())]
    compared = rtscope("compare", *paths)
    assert compared.status == 0, compared.err
    lines = compared.out.splitlines()
    at = lines.index("Skipped benches")
    assert lines[at + 1].strip() == f"lat.timerlat in A (1 of 2 runs): {REASON}"
    assert compared.out.count(REASON) == 1
    markdown = rtscope("compare", *paths, "--format", "markdown")
    assert f"lat.timerlat in A (1 of 2 runs): {REASON}" in markdown.out
    page = tmp_path / "report.html"
    reported = rtscope("report", *paths, "-o", page)
    assert reported.status == 0, reported.err
    html = page.read_text()
    assert "Skipped benches" in html and f"lat.timerlat in A (1 of 2 runs): {REASON}" in html


def test_compare_without_a_skipped_bench_has_no_such_section(rtscope, tmp_path):
    paths = [builders.write(tmp_path / f"{n}.json", rt(run_id=f"{n}" * 16)) for n in "12"]
    assert "Skipped" not in rtscope("compare", *paths).out


def test_check_holds_a_skipped_bench_absent_not_regressed(rtscope, tmp_path):
    baseline = builders.write(tmp_path / "rt.json", rt(wakeup_ns=15500.0))
    checked = rtscope("check", builders.write(tmp_path / "stock.json", stock()), "--baseline", baseline)
    assert checked.status == 0, checked.out
    assert f"skipped: {REASON}" in checked.out
    assert "check passed: 2 metrics (1 skipped: the run could not run their bench)" in checked.out
    # A metric the baseline has and the run simply lacks still fails.
    lacking = rt(run_id="b" * 16, wakeup_ns=15500.0)
    lacking["benches"] = [b for b in lacking["benches"] if b["id"] != "lat.timerlat"]
    lacking["metrics"] = [m for m in lacking["metrics"] if m["bench"] != "lat.timerlat"]
    failed = rtscope("check", builders.write(tmp_path / "lacking.json", lacking), "--baseline", baseline)
    assert failed.status == 1 and "MISSING from the run" in failed.out


def test_a_limit_on_a_skipped_metric_is_skipped_not_failed(rtscope, tmp_path):
    path = builders.write(tmp_path / "stock.json", stock())
    out = rtscope("export", path, "--format", "junit", "--limit", "lat.timerlat.irq:max=100us").out
    (suite,) = ET.fromstring(out).findall("testsuite")
    skipped = {
        case.get("name"): case.find("skipped").get("message")
        for case in suite.iter("testcase")
        if case.find("skipped") is not None
    }
    assert skipped == {"lat.timerlat.irq": f"skipped: {REASON}", "lat.timerlat": REASON}
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "0", "2")


def test_exporters_say_skipped(rtscope, tmp_path):
    path = builders.write(tmp_path / "stock.json", stock())
    junit = ET.fromstring(rtscope("export", path, "--format", "junit").out)
    (suite,) = junit.findall("testsuite")
    [case] = [case for case in suite.iter("testcase") if case.get("name") == "lat.timerlat"]
    assert case.find("skipped").get("message") == REASON and case.find("failure") is None
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("2", "0", "1")
    kcidb = json.loads(rtscope("export", path, "--format", "kcidb").out)
    kcidb_io.schema.V5_3.validate_exactly(kcidb)
    [test] = [test for test in kcidb["tests"] if test["status"] == "SKIP"]
    assert test["path"] == "rtscope.lat.timerlat" and test["comment"] == REASON and "number" not in test
    lava = rtscope("export", path, "--format", "lava").out.splitlines()
    assert lava[-1] == "lat.timerlat skip" and not any(line.endswith(" fail") for line in lava)
    asked = rtscope("export", path, "--format", "lava", "--metric", "lat.timerlat.irq")
    assert asked.status == 2
    assert asked.err.strip().endswith(f"has no metric lat.timerlat.irq (it skipped its bench: {REASON})")


SKIPPING_SPEC = """\
    name = "skipping"
    benches = ["lat.wakeup", "lat.timerlat"]
    repetitions = 2
    settle = 1
"""


def test_a_campaign_whose_benches_ran_or_were_skipped_exits_0(rtscope, tmp_path, db_path):
    recorded = tmp_path / "recorded"
    recorded.mkdir()
    builders.write(recorded / "stock.json", stock())
    spec = tmp_path / "spec.toml"
    spec.write_text(textwrap.dedent(SKIPPING_SPEC), encoding="utf-8")
    outcome = rtscope("--target", f"fake:{recorded}", "campaign", spec)
    assert outcome.status == 0, outcome.err
    assert outcome.err.count("(skipped: lat.timerlat)") == 2
    # One cell: nothing to compare, and what its runs skipped is still said.
    assert f"Skipped benches\n  lat.timerlat (2 of 2 runs): {REASON}" in outcome.out
    with Store.open(db_path) as store:
        runs = store.campaign_runs("skipping")
    assert [r.doc["run"]["status"] for r in runs] == ["complete", "complete"]


def _timerlat_here() -> bool:
    return any(
        "timerlat" in path.read_text().split()
        for path in (Path("/sys/kernel/tracing/available_tracers"), Path("/sys/kernel/debug/tracing/available_tracers"))
        if path.is_file()
    )


def test_the_probe_skips_lat_timerlat_on_a_kernel_without_the_tracer(probe, rtscope_process, tmp_path):
    if _timerlat_here():
        pytest.skip("this machine's kernel has the timerlat tracer: lat.timerlat can run here")
    out = tmp_path / "run.json"
    ran = rtscope_process("--probe", probe, "run", "lat.timerlat", "clock.read", "--duration", "0.2", "--json", out)
    assert ran.status == 0, ran.err
    doc = result.load(out).doc
    assert doc["run"]["status"] == "complete"
    timerlat, clock = doc["benches"]
    assert timerlat["status"] == "skipped" and clock["status"] == "ok"
    assert timerlat["error"].startswith(("no tracefs: ", "the kernel has no timerlat tracer"))
    assert {m["bench"] for m in doc["metrics"]} == {"clock.read"}
    assert "lat.timerlat  skipped" in ran.out and timerlat["error"] in ran.out
