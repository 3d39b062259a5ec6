"""The studies' published figures (analysis/published.py, src/rtscope/published/*.toml): each packaged
figure against the reference it was transcribed from; Thread-Metric's and the operations' figures beside
a comparison (render/sections/published.py), in no ratio with the runs; which runs a study fits; and
emulated systems named by their machine and CPU (render/cells.py, the QEMU targets' record)."""

import json
import tomllib
from pathlib import Path

import pytest

from rtscope.analysis import compare, published
from rtscope.analysis.grouping import group
from rtscope.render import cells
from rtscope.render.document import Table
from rtscope.render.sections import comparison as comparison_section
from rtscope.render.sections import published as published_section
from rtscope.targets.mcu import qemu_board
from rtscope.targets.qemu import debian as qemu
from rtscope.targets.qemu import machine as qemu_machine
from support import builders

REFERENCE = Path(__file__).resolve().parents[1].parent / "shared" / "reference"
needs_reference = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"no reference figures at {REFERENCE}")


def _reference(name: str) -> dict:
    return json.loads((REFERENCE / name).read_text(encoding="utf-8"))


def _packaged(name: str) -> dict:
    return tomllib.loads((published.STUDIES_DIR / f"{name}.toml").read_text(encoding="utf-8"))


@needs_reference
def test_the_threadx_figures_are_the_references():
    reference, study = _reference("threadmetric-threadx.json"), published.load("threadx-thread-metric")
    printed = reference["results_as_printed"]
    assert study.source == reference["source"] and study.thread_metric is not None
    assert {t.test: (t.iterations, t.ratio) for t in study.thread_metric.tests} == {
        test: (row["iterations"], row["tm_ratio"]) for test, row in printed.items()
    }
    assert [t.test for t in study.thread_metric.tests] == list(printed)
    assert f"per {study.thread_metric.period_s:g} s period" in reference["unit"]
    (platform,) = _packaged("threadx-thread-metric")["platforms"].values()
    assert all(part in reference["platform"] for part in platform.values())
    # Every rtscope metric stands beside a test the slides printed, and each note names one of their rows.
    assert set(study.thread_metric.metrics.values()) <= set(printed)
    assert set(study.thread_metric.notes) <= {*printed, "Calibration Test"}


@needs_reference
def test_the_zephyr_and_linux_figures_are_the_references():
    reference, study = _reference("zephyr-vs-linux-imx.json"), published.load("zephyr-vs-linux-imx")
    packaged = _packaged("zephyr-vs-linux-imx")
    assert study.source == reference["source"] and study.statistic == reference["statistic"]
    assert packaged["platforms"] == reference["platforms"] and packaged["notes"] == reference["notes"]
    assert study.operations is not None and study.operations.unit == reference["unit"]
    assert {o.name: o.costs for o in study.operations.operations} == reference["metrics"]
    assert study.operations.method == reference["method"]
    assert set(study.operations.metrics.values()) == set(reference["metrics"])


@needs_reference
def test_the_twr_k70_figures_are_the_references():
    reference, packaged = _reference("twr-k70-multithread.json"), _packaged("twr-k70")
    assert packaged["source"] == reference["source"] and packaged["platforms"] == reference["platforms"]
    assert packaged["times"]["rows"] == reference["table5_summary"]["rows"]
    assert [[t, "TWR", "sort", es, ws, rs] for t, es, _, ws, _, rs, _ in reference["table3_twr"]["rows"]] == [
        row for row in packaged["times_by_op"]["rows"] if row[2] == "sort"
    ]
    assert [[t, "TWR", "matrix", em, wm, rm] for t, _, em, _, wm, _, rm in reference["table3_twr"]["rows"]] == [
        row for row in packaged["times_by_op"]["rows"] if row[2] == "matrix"
    ]
    assert packaged["crypto"]["rows"] == reference["wolfcrypt_twr"]["rows"]


def _tm_doc(run_id: str, ratios: dict[str, float], *, target: dict | None = None) -> dict:
    doc = builders.result_doc(run_id=run_id, benches={})
    doc["version"] = 4
    doc["benches"] = [
        {"id": metric_id, "params": {}, "status": "ok", "elapsed_s": 0.3, "error": None} for metric_id in ratios
    ]
    doc["metrics"] = [
        builders.count_metric(metric_id, [int(1000 * ratio)] * 3, period_s=0.1, baseline_ratio=ratio)
        for metric_id, ratio in ratios.items()
    ]
    for m in doc["metrics"]:
        m["labels"] = {}
    if target:
        doc["target"] = target
    return doc


_RTOS_RATIOS = {"tm.basic": 1.0, "tm.coop": 64.3, "tm.sync": 32.1}


def test_thread_metric_ratios_stand_beside_the_studys_in_its_order_with_what_has_no_counterpart():
    docs = [_tm_doc("a" * 16, _RTOS_RATIOS), _tm_doc("b" * 16, {**_RTOS_RATIOS, "tm.coop": 70.0})]
    study = published.load("threadx-thread-metric")
    section = published_section.thread_metric_section(group(docs, "run"), study)
    table = section.parts[0]
    assert isinstance(table, Table)
    assert table.header == (
        "metric",
        "published test",
        "A × tm.basic",
        "B × tm.basic",
        "published × calibration",
        "published per 30.0 s",
    )
    rows = {row[1].text: [cell.text for cell in row] for row in table.rows}
    assert list(rows) == [t.test for t in study.thread_metric.tests]
    assert rows["Cooperative Context Switch"] == [
        "tm.coop",
        "Cooperative Context Switch",
        "64.3×",
        "70.0×",
        "138×",
        "1,585,032",
    ]
    assert rows["Synchronization Processing"][2:] == ["32.1×", "32.1×", "154×", "1,766,942"]
    # A test the runs did not measure: its counterpart named, no figure of theirs; one rtscope has none of.
    assert rows["Interrupt Handling"][:4] == ["tm.irq", "Interrupt Handling", "—", "—"]
    assert rows["Semaphore Processing"][0] == "no counterpart"
    # No figure of the runs' own counts, nor a ratio of theirs to the study's.
    assert not any("1,000" in text or "64,300" in text for row in rows.values() for text in row)
    notes = " ".join(section.parts[1].lines)
    assert "Other hardware and another time base" in notes and "in no ratio with the runs" in notes
    assert "hardware time here" in notes and "Semaphore Processing: no counterpart" in notes
    assert "What compares is a test's iterations over its calibration test's" in notes
    assert published_section.thread_metric_section(group(docs, "run"), published.load("twr-k70")) is None


def _micro_doc(run_id: str, typical: dict[str, float]) -> dict:
    return builders.result_doc(run_id=run_id, benches=typical)


def test_operations_stand_beside_the_studys_costs_with_its_own_ratio():
    docs = [
        _micro_doc("a" * 16, {"heap.malloc": 100.0, "ctxsw.sem": 800.0, "sem.signal": 120.0}),
        _micro_doc("b" * 16, {"heap.malloc": 150.0, "ctxsw.sem": 8000.0, "sem.signal": 130.0}),
    ]
    section = published_section.operations_section(group(docs, "run"), published.load("zephyr-vs-linux-imx"))
    table = section.parts[0]
    assert table.header[-4:] == (
        "published op",
        "published imxrt1050-zephyr",
        "published imx6ul-linux",
        "published ratio",
    )
    rows = [[cell.text for cell in row] for row in table.rows]
    # The study's order (heap before the context switch); the runs' means in cycles, as compare --ops has them.
    assert [row[0] for row in rows] == ["heap.malloc", "ctxsw.sem"]
    # Each mean in cycles less the cycle counter's overhead (builders: 2.6 cycles a ns, 52 cycles).
    assert rows[0] == ["heap.malloc", "cycles", "221", "358", "1.62×", "heap.malloc", "1,001", "11,499", "11.5×"]
    assert rows[1][-4:] == ["ctxsw", "47", "1,284", "27.3×"]
    notes = " ".join(section.parts[1].lines)
    assert "Not in the study: sem.signal." in notes
    assert "Not measured by the runs: heap.free, mutex.lock, mutex.unlock, thread.create, thread.join." in notes
    assert "ctxsw: the study does not say through what" in notes and "How the study measured: heap:" in notes
    assert "published ratio (imx6ul-linux/imxrt1050-zephyr) beside X/A" in notes


def test_a_study_beside_runs_it_does_not_fit_is_refused_in_one_line():
    micro = [_micro_doc("a" * 16, {"heap.malloc": 100.0})]
    tm = [_tm_doc("a" * 16, _RTOS_RATIOS)]
    threadx, zephyr = published.load("threadx-thread-metric"), published.load("zephyr-vs-linux-imx")
    refused = published.refusal(threadx, micro, ops=True)
    assert refused is not None and refused.startswith("--published threadx-thread-metric: the runs measured nothing")
    assert "tm.coop" in refused and "\n" not in refused
    assert "compare without --ops" in published.refusal(threadx, tm, ops=True)
    assert "compare with --ops" in published.refusal(zephyr, micro, ops=False)
    assert "the application workload's times" in published.refusal(published.load("twr-k70"), tm, ops=False)
    assert published.refusal(threadx, tm, ops=False) is None
    assert published.refusal(zephyr, micro, ops=True) is None
    assert published.refusal(zephyr, micro) is None  # the report shows what fits


def test_compare_refuses_a_study_beside_runs_it_does_not_fit_and_shows_one_that_fits(rtscope, tmp_path):
    paths = [builders.write(tmp_path / f"{n}.json", _tm_doc(n * 16, _RTOS_RATIOS)) for n in "ab"]
    refused = rtscope("compare", *paths, "--published", "zephyr-vs-linux-imx")
    assert refused.status == 2 and refused.err.count("\n") == 1
    assert "--published zephyr-vs-linux-imx: the runs measured nothing the study published" in refused.err
    shown = rtscope("compare", *paths, "--published", "threadx-thread-metric")
    assert shown.status == 0, shown.err
    beside = shown.out.split("Thread-Metric beside published figures")[1]
    assert "Cooperative Context Switch" in beside and "138×" in beside
    page = tmp_path / "report.html"
    reported = rtscope("report", *paths, "--published", "threadx-thread-metric", "-o", page)
    assert reported.status == 0, reported.err
    assert 'id="thread-metric-published"' in page.read_text(encoding="utf-8")
    micro = [builders.write(tmp_path / f"m{n}.json", _micro_doc(n * 16, {"heap.malloc": 100.0})) for n in "cd"]
    refused = rtscope("report", *micro, "--published", "threadx-thread-metric", "-o", tmp_path / "no.html")
    assert refused.status == 2 and not (tmp_path / "no.html").exists()


_BOARD = {
    "name": "qemu:mps2-an385:freertos",
    "kind": "qemu",
    "time_base": "instructions",
    "detail": {"emulated_machine": "mps2-an385", "emulated_cpu": "Cortex-M3"},
}


def test_an_emulated_system_is_named_by_its_machine_and_cpu():
    doc = builders.result_doc()
    doc["system"].update(hostname="(none)", cpu_model=None, cpu_count=1, cpus_online="0")
    doc["target"] = _BOARD
    assert cells.host_text(doc) == "qemu mps2-an385 (emulated)"
    assert cells.host_text(doc, "FreeRTOS", "armv7-m") == "qemu mps2-an385 (emulated; FreeRTOS, armv7-m)"
    assert cells.cpu_text(doc) == "Cortex-M3 × 1 (emulated; online 0)"
    # The model the system tells comes first; a machine that is not emulated keeps its hostname.
    doc["system"]["cpu_model"] = "Arm Cortex-M3 (QEMU mps2-an385, 25 MHz system clock)"
    assert cells.cpu_text(doc).startswith("Arm Cortex-M3 (QEMU mps2-an385, 25 MHz system clock) × 1 (emulated")
    plain = builders.result_doc(run_id="b" * 16)
    assert cells.host_text(plain, "Linux", "x86_64") == "fixture-host (Linux, x86_64)"
    assert cells.cpu_text(plain) == "Test CPU 3000 × 4 (online 0-3)"
    # compare's names and its note of what differs between the systems say the same.
    doc["system"]["cpu_model"] = None
    groups = tuple(group([doc, plain], "run"))
    names = comparison_section.names(compare.build(list(groups), ("p50",)))
    assert [row[3].text for row in names.parts[0].rows] == ["qemu mps2-an385 (emulated)", "fixture-host"]
    notes = [cell.text for cell in comparison_section.differences(groups)]
    assert "the systems differ in CPU: A Cortex-M3 × 1, B Test CPU 3000 × 4" in notes


def test_the_qemu_targets_record_the_machine_and_cpu_they_emulate(monkeypatch, tmp_path):
    monkeypatch.setattr(qemu_machine, "version", lambda emulator: "7.2")
    guest = qemu.Guest(qemu.parse_spec("qemu:aarch64:stock"))

    class Package:
        def record(self) -> str:
            return "package=1"

    guest.__dict__.update(kernel=(Package(), tmp_path), busybox=(Package(), tmp_path), emulator_version="7.2")
    detail = guest.record()
    assert (detail["emulated_machine"], detail["emulated_cpu"]) == ("virt", "cortex-a57")
    x86 = qemu.Guest(qemu.parse_spec("qemu:x86_64:stock"))
    x86.__dict__.update(kernel=(Package(), tmp_path), busybox=(Package(), tmp_path), emulator_version="7.2")
    assert (x86.record()["emulated_machine"], x86.record()["emulated_cpu"]) == ("pc", "qemu64")
    board = qemu_board.QemuBoardTarget("qemu:mps2-an385:freertos")
    image = tmp_path / "image"
    image.write_bytes(b"image")
    board.__dict__["_image"] = image
    recorded = board.record()["detail"]
    assert (recorded["emulated_machine"], recorded["emulated_cpu"]) == ("mps2-an385", "Cortex-M3")
