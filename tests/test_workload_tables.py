"""The application workload's tables (analysis/workload.py, render/sections/workload.py), the published
figures beside them (analysis/published.py), compare's rows by metric and labels, and which side of a
distribution is bad in a unit where higher is better."""

import csv
import io
import json

import pytest

from rtscope.analysis import compare, evidence, published, stats, workload
from rtscope.analysis.grouping import group
from rtscope.exporters import comparison as comparison_formats
from rtscope.render import fmt, text
from rtscope.render.document import Table
from rtscope.render.sections import comparison as compared
from rtscope.render.sections import workload as workload_section
from support import builders

CAMPAIGN = {"name": "app-threads", "id": "c0ffee00c0ffee00", "repetition": 1, "repetitions": 2}


def cell_doc(op: str, threads: int, repetition: int, **figures) -> dict:
    campaign = {**CAMPAIGN, "cell": f"op={op} threads={threads}", "repetition": repetition}
    return builders.app_doc(
        op, threads, run_id=f"{op[:4]}{threads:02d}{repetition:02d}".ljust(16, "0"), campaign=campaign, **figures
    )


def only_series(docs: list[dict]) -> workload.Series:
    (series,) = workload.build(docs)
    return series


def line_of(series: workload.Series, op: str, threads: int) -> workload.ScalingPoint:
    return next(line for line in series.lines if (line.op, line.threads) == (op, threads))


def test_repetitions_make_one_line_mean_over_samples_tails_over_runs_and_ratios_to_two_threads():
    docs = [
        cell_doc("quick", 2, 1, exec_ns=1e6, samples=100),
        cell_doc("quick", 2, 2, exec_ns=3e6, samples=300),
        cell_doc("quick", 8, 1, exec_ns=4e6),
        cell_doc("quick", 8, 2, exec_ns=6e6),
    ]
    series = only_series(docs)
    assert series.name is None  # the cells differ only in the workload's own axes: one table
    two, eight = line_of(series, "quick", 2), line_of(series, "quick", 8)
    execution = two.cells[0]
    assert execution.valid == 2 and execution.invalid == 0
    # The builders' distribution: mean 1.05, p50 1.0, p99 1.5, max 7.0 times the typical value.
    assert execution.figures["mean"] == pytest.approx((1.05e6 * 100 + 3.15e6 * 300) / 400)
    assert execution.figures["p50"] == pytest.approx(2e6)  # the median of 1 and 3 ms
    assert execution.figures["p99"] == pytest.approx(1.5 * 2e6)
    assert execution.figures["max"] == pytest.approx(7 * 3e6)  # the largest of the runs
    assert two.baseline_threads == eight.baseline_threads == 2
    assert execution.ratios == {"mean": pytest.approx(1.0), "p99": pytest.approx(1.0)}
    assert eight.cells[0].ratios["mean"] == pytest.approx(5.25e6 / execution.figures["mean"])
    assert eight.cells[0].ratios["p99"] == pytest.approx(1.5 * 5e6 / (1.5 * 2e6))
    # Waiting and response are lines' cells of their own, in the study's order.
    assert [word for _, word in workload.QUANTITIES] == ["execution", "waiting", "response"]
    assert two.cells[1].figures["p50"] == pytest.approx(2e5)


def test_without_two_threads_the_ratio_is_to_the_smallest_n_and_the_table_says_so():
    docs = [cell_doc("matrix_mul", n, 1, exec_ns=1e5 * n) for n in (16, 4, 8)]
    series = only_series(docs)
    assert [line.threads for line in series.lines] == [4, 8, 16]
    assert {line.baseline_threads for line in series.lines} == {4}
    assert line_of(series, "matrix_mul", 16).cells[0].ratios["mean"] == pytest.approx(4.0)
    lines = text.render([workload_section.section(docs)], fmt.Style(enabled=False))
    assert "mean ×N=4" in lines[1]
    assert any("to the smallest N: matrix_mul N=4" in line for line in lines)
    mixed = [*docs, cell_doc("quick", 2, 1)]
    lines = text.render([workload_section.section(mixed)], fmt.Style(enabled=False))
    assert "mean ×N=first" in lines[1]
    assert any("to the smallest N: matrix_mul N=4" in line for line in lines)


def test_invalid_runs_are_counted_marked_and_not_averaged_in():
    docs = [
        cell_doc("selection", 2, 1, exec_ns=1e6),
        cell_doc("selection", 2, 2, exec_ns=9e6, valid=False),
        cell_doc("selection", 4, 1, exec_ns=2e6, valid=False),
    ]
    series = only_series(docs)
    two = line_of(series, "selection", 2).cells[0]
    assert (two.valid, two.invalid) == (1, 1)
    assert two.figures["max"] == pytest.approx(7e6)  # the valid run's alone
    assert two.reasons == ("a sort's output was out of order",)
    four = line_of(series, "selection", 4).cells[0]
    assert four.figures == dict.fromkeys(workload.STATISTICS) and four.ratios == {"mean": None, "p99": None}
    section = workload_section.section(docs)
    rows = section.parts[0].rows
    assert rows[0][3].text == "1 of 2 *" and rows[0][3].emphasis == "bad"
    assert rows[3][4].text == "invalid" and rows[3][4].emphasis == "bad"
    assert any("selection threads=2 app.exec: a sort's output was out of order" in note.text for note in section.notes)


def test_series_by_what_the_cells_differ_in_besides_the_workload():
    docs = []
    for load in ("idle", "cpu"):
        for threads in (2, 4):
            doc = cell_doc("quick", threads, 1)
            doc["campaign"]["cell"] = f"load={load} op=quick threads={threads}"
            docs.append(doc)
    assert [s.name for s in workload.build(docs)] == ["load=idle", "load=cpu"]
    assert all(len(s.lines) == 2 for s in workload.build(docs))
    # Loose runs are one series: runs of the same labels are its repetitions.
    loose = [builders.app_doc("quick", 2, run_id=f"{n}".ljust(16, "0")) for n in range(3)]
    (series,) = workload.build(loose)
    assert series.name is None and series.lines[0].cells[0].valid == 3
    assert workload.build([builders.result_doc()]) == ()


def test_published_figures_stand_in_marked_columns_beside_the_runs_and_in_no_ratio():
    study = published.load("twr-k70")
    docs = [cell_doc("quick", 2, 1), cell_doc("quick", 3, 1), cell_doc("mix", 4, 1)]
    plain = workload_section.section(docs).parts[0]
    beside = workload_section.section(docs, published=study)
    table = beside.parts[0]
    assert isinstance(table, Table)
    added = table.header[len(plain.header) :]
    assert added == ("published TWR", "published RPi4", "published BBAI", "published TWR by op")
    # The runs' own columns, ratios included, are the same with the study beside them.
    assert [row[: len(plain.header)] for row in table.rows] == list(plain.rows)
    execution_at_2, response_at_2 = table.rows[0], table.rows[2]
    assert [cell.text for cell in execution_at_2[len(plain.header) :]] == ["1.02 ms", "1.68 ms", "1.50 ms", "1.83 ms"]
    assert response_at_2[-1].text == "454 µs"  # table 3: TWR sorting at 2 threads
    assert all(cell.text == "—" for cell in table.rows[3][len(plain.header) :])  # N = 3: the study has none
    assert table.rows[6][-1].text == "—" and table.rows[6][-2].text == "1.28 ms"  # mix: no op family
    how = " ".join(beside.parts[1].lines)
    assert "mean only" in how and "other hardware" in how and "not compared" in how and study.source in how


def test_the_study_is_data_in_the_package_with_its_source():
    assert "twr-k70" in published.names()
    study = published.load("twr-k70")
    assert "TWR-K70F120M" in study.source and study.statistic == "mean"
    assert set(study.platforms) == {"TWR", "RPi4", "BBAI"}
    assert [t.exec_ns for t in study.times_at(32, "all")] == [0.858e6, 1.205e6, 1.010e6]
    assert [(t.os, t.bytes_per_s) for t in study.throughputs("crypto.sha256")] == [("MQX", 0.55e6), ("uClinux", 0.53e6)]
    assert study.throughputs("crypto.aes128_gcm") == []
    with pytest.raises(
        Exception, match="no published figures called 'nope' \\(there are: threadx-thread-metric, twr-k70, zeph"
    ):
        published.load("nope")


def test_crypto_beside_wolfcrypt_where_the_algorithm_matches():
    docs = [
        builders.throughput_doc("crypto.sha256", [900_000_000, 1_000_000_000, 1_100_000_000]),
        builders.throughput_doc("crypto.aes128_gcm", [2_000_000_000] * 3, run_id="fedcba9876543210"),
    ]
    section = workload_section.crypto_section(docs, published.load("twr-k70"))
    (row,) = section.parts[0].rows
    assert [cell.text for cell in row] == [
        "crypto.sha256",
        "size=1024 library=openssl",
        "01234567",
        "1000 MB/s",
        "900 MB/s",
        "SHA-256 MQX 550 kB/s; SHA-256 uClinux 530 kB/s",
    ]
    assert section.parts[0].header[-1] == "published"
    assert "not a verdict" in " ".join(section.parts[1].lines)
    assert workload_section.crypto_section(docs[1:], published.load("twr-k70")) is None


def test_compare_rows_are_keyed_by_metric_and_labels():
    docs = [
        builders.app_doc("quick", 2, exec_ns=1e6, run_id="a" * 16),
        builders.app_doc("quick", 8, exec_ns=4e6, run_id="b" * 16),
        builders.app_doc("quick", 8, exec_ns=4e6, run_id="c" * 16),
    ]
    comparison = compare.build(group(docs, "run"), ("p50",))
    execution = [row for row in comparison.rows if row.metric == "app.exec"]
    assert [row.name for row in execution] == [
        "app.exec{threads=2,op=quick,processes=1}",
        "app.exec{threads=8,op=quick,processes=1}",
    ]
    # Each row holds only the runs with its labels: no ratio across them.
    assert [f.value for f in execution[0].figures] == [1e6, None, None]
    assert [f.value for f in execution[1].figures] == [None, 4e6, 4e6]
    assert execution[1].figures[2].ratio is None
    assert execution[1].verdicts == (None, None)  # A did not measure it: nothing to tell against A
    table = compared.figures_table(comparison)
    assert table.header[:3] == ("metric", "labels", "stat")
    named = [[cell.text for cell in row[:2]] for row in table.rows]
    assert named[:2] == [["app.exec", "threads=2 op=quick processes=1"], ["", "threads=8 op=quick processes=1"]]
    lines = list(csv.reader(io.StringIO(comparison_formats.WRITERS["csv"](comparison))))
    assert {line[0] for line in lines[1:]} >= {
        "app.exec{threads=2,op=quick,processes=1}",
        "app.wait{threads=8,op=quick,processes=1}",
    }
    exported = json.loads(comparison_formats.WRITERS["json"](comparison))
    assert [(m["id"], m["labels"]["threads"]) for m in exported["metrics"]][:2] == [("app.exec", 2), ("app.exec", 8)]


def test_a_run_before_format_4_takes_the_labels_newer_runs_agree_on():
    old = builders.result_doc(run_id="a" * 16, benches={"lat.wakeup": 15000.0})
    new = builders.result_doc(run_id="b" * 16, benches={"lat.wakeup": 16000.0})
    new["version"] = 4
    new["metrics"][0]["labels"] = {"cpu": 1}
    comparison = compare.build(group([old, new], "run"), ("p50",))
    (row,) = comparison.rows
    assert row.labels == (("cpu", 1),) and [f.value is not None for f in row.figures] == [True, True]
    other = builders.result_doc(run_id="c" * 16, benches={"lat.wakeup": 17000.0})
    other["version"] = 4
    other["metrics"][0]["labels"] = {"cpu": 0}
    rows = compare.build(group([old, new, other], "run"), ("p50",)).rows
    assert [row.labels for row in rows] == [(), (("cpu", 1),), (("cpu", 0),)]  # no agreement: the old run alone


def throughputs(run_id: str, low: int, high: int, count: int = 200) -> dict:
    return builders.throughput_doc(
        "crypto.aes128_cbc", [low + (high - low) * i // (count - 1) for i in range(count)], run_id=run_id
    )


def test_a_throughputs_tail_is_its_low_side():
    steady = throughputs("a" * 16, 1_000_000_000, 1_100_000_000)
    dipping = throughputs("b" * 16, 1_000_000_000, 1_100_000_000)
    # A tenth of B's batches fall well below A's worst: B's low tail is worse, its top the same.
    dipping["metrics"][0]["histogram"]["buckets"][:20] = [[500_000 + i, 1, 1] for i in range(20)]
    dipping["metrics"][0]["stats"]["min"] = dipping["metrics"][0]["adjusted"]["min"] = 500_000_000
    comparison = compare.build(group([steady, dipping], "run"), compare.DEFAULT_STATISTICS)
    assert [(row.key, row.stat) for row in comparison.rows] == [("p50", "p50"), ("p1", "p1"), ("min", "min")]
    p1, minimum = comparison.rows[1], comparison.rows[2]
    assert p1.figures[0].value == pytest.approx(1_001_000_000, rel=1e-3)
    assert p1.figures[1].value == pytest.approx(500_001_000, rel=1e-3)
    assert minimum.low_tail and minimum.figures[1].value == 500_000_000
    verdict = minimum.verdicts[0]
    assert verdict.test == "tail" and verdict.runs_differ and not verdict.real  # one run each
    assert minimum.direction(1) == "worse"
    assert compared.verdict_cell(minimum, 1, verdict).emphasis == ""  # coloured only when real
    real = evidence.Difference("t", 0.001, (3, 3), 0.5)
    assert compared.verdict_cell(minimum, 1, real).emphasis == "bad"
    # The other way round, B is the better one.
    reverse = compare.build(group([dipping, steady], "run"), ("min",)).rows[0]
    assert reverse.direction(1) == "better"
    assert not reverse.verdicts[0].runs_differ  # no batch of B below A's worst: the tail test sees nothing
    assert compared.verdict_cell(reverse, 1, real).emphasis == "good"
    assert any("low side" in line for line in compared.legend(comparison).lines)


def test_a_times_tail_stays_its_high_side():
    fast, slow = (
        builders.result_doc(run_id="a" * 16),
        builders.result_doc(run_id="b" * 16, benches={"ctxsw.sem": 6400.0, "lat.wakeup": 31000.0, "clock.read": 40.0}),
    )
    comparison = compare.build(group([fast, slow], "run"), compare.DEFAULT_STATISTICS)
    assert [row.stat for row in comparison.rows[:3]] == ["p50", "p99", "max"]
    median = comparison.rows[0]
    assert median.direction(1) == "worse" and median.verdicts[0].runs_differ
    assert not any("low side" in line for line in compared.legend(comparison).lines)


def test_low_tail_statistics_read_as_the_probe_reads_percentiles():
    doc = throughputs("a" * 16, 1_000_000_000, 1_099_000_000, count=100)
    metric = doc["metrics"][0]
    # Histogram: the bucket of rank ⌈0.01 · 100⌉ = 1, its middle (width 1: its value), in bytes/s.
    assert stats.statistic(metric, "p1") == 1_000_000_000
    assert stats.statistic(metric, "p10") == 1_009_000_000
    assert stats.statistic(metric, "min") == metric["adjusted"]["min"]
    with_raw = builders.throughput_doc("crypto.sha256", [1_000_000_000, 1_002_000_000, 1_004_000_000], raw=True)
    # Raw samples: linear between the closest ranks, as the probe's exact summary.
    assert stats.statistic(with_raw["metrics"][0], "p10") == pytest.approx(1_000_400_000)


def test_through_the_real_probe_show_compare_and_report_with_the_study(rtscope, probe, tmp_path):
    for threads in (2, 4):
        outcome = rtscope(
            "run",
            "app.workload",
            "--param",
            f"threads={threads}",
            "--param",
            "op=quick",
            "--param",
            "size=200",
            "--param",
            "iterations=5",
        )
        assert outcome.status == 0, outcome.err
        assert "Application workload" in outcome.out  # run shows what show shows: the run's lines
    run_ids = [line.split()[0] for line in rtscope("runs").out.splitlines()[1:]]
    compared_text = rtscope("compare", *run_ids, "--published", "twr-k70")
    assert compared_text.status == 0, compared_text.err
    table = compared_text.out.split("Application workload")[1].split("\n\n")[0].splitlines()
    assert "published TWR" in table[1] and "mean ×N=2" in table[1]
    rows = [line.split() for line in table[2:]]
    assert [row[:3] for row in rows[::3]] == [["quick", "2", "execution"], ["quick", "4", "execution"]]
    assert rows[0][-2:] == ["1.83", "ms"]  # TWR sorting at 2 threads
    assert rows[0][12:14] == ["1.00×", "1.00×"]  # N = 2 against itself
    assert "app.exec" in compared_text.out.split("Application workload")[1]  # compare's table after it
    page = tmp_path / "report.html"
    reported = rtscope("report", *run_ids, "--published", "twr-k70", "-o", page)
    assert reported.status == 0, reported.err
    html = page.read_text(encoding="utf-8")
    assert 'id="workload"' in html and "published TWR by op" in html and "mean only" in html
    refused = rtscope("compare", "last", "--published", "no-such-study")
    assert refused.status == 2 and "invalid choice" in refused.err


def test_check_holds_a_throughputs_low_side_to_the_baseline(rtscope, tmp_path):
    steady = builders.write(tmp_path / "steady.json", throughputs("a" * 16, 1_000_000_000, 1_100_000_000))
    dipping_doc = throughputs("b" * 16, 1_000_000_000, 1_100_000_000)
    dipping_doc["metrics"][0]["histogram"]["buckets"][:20] = [[500_000 + i, 1, 1] for i in range(20)]
    dipping_doc["metrics"][0]["stats"]["min"] = dipping_doc["metrics"][0]["adjusted"]["min"] = 500_000_000
    dipping = builders.write(tmp_path / "dipping.json", dipping_doc)
    # Its p99 and max (the good side) are the baseline's: only the low side shows the dips.
    outcome = rtscope("check", dipping, "--baseline", steady, "--stat", "p99,max")
    assert outcome.status == 1, outcome.out
    rows = [line.split() for line in outcome.out.splitlines() if line.split()[:1] in (["crypto.aes128_cbc"], ["min"])]
    assert rows[0][:2] == ["crypto.aes128_cbc", "p1"] and rows[1][0] == "min" and rows[1][-1] == "REGRESSED"
    assert rtscope("check", steady, "--baseline", dipping, "--stat", "p99,max").status == 0
