"""rtscope export: each format against its golden file, and what other tools read back from it.

The golden files in tests/golden/export/ are exports of the recorded results in tests/golden/. After a
deliberate change of a format, regenerate them and review the diff:

    RTSCOPE_REGENERATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/test_export.py -k golden
"""

import csv
import io
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import kcidb_io
import pytest

from conftest import REPO
from rtscope import exporters
from rtscope.exporters import comparison
from rtscope.exporters.base import RunExport
from rtscope.model import result
from support import builders
from test_cli_errors import assert_one_line_error

GOLDEN = REPO / "tests" / "golden"
LATENCY = GOLDEN / "result-v3-latency.json"
THREADMETRIC = GOLDEN / "result-v2-threadmetric.json"
LATENCY_LIMITS = ["--limit", "lat.wakeup:max=100us", "--limit", "lat.irq:p99=1ms", "--fail-on-threshold"]
THREADMETRIC_LIMITS = [
    "--limit",
    "tm.basic:p50=3000000",
    "--limit",
    "tm.sync:p50=1000000",
    "--limit",
    "ctxsw.sem:p99.9=20us",
]

# Golden file in tests/golden/export/: (the recorded result it exports, the export's options).
GOLDEN_EXPORTS = {
    "result-v3-latency.csv": (LATENCY, ["--format", "csv"]),
    "result-v3-latency.cyclictest": (LATENCY, ["--format", "cyclictest", "--hist-us", "100"]),
    "result-v3-latency.lava": (LATENCY, ["--format", "lava", *LATENCY_LIMITS]),
    "result-v3-latency.junit.xml": (LATENCY, ["--format", "junit", *LATENCY_LIMITS]),
    "result-v2-threadmetric.csv": (THREADMETRIC, ["--format", "csv"]),
    "result-v2-threadmetric.cyclictest": (
        THREADMETRIC,
        ["--format", "cyclictest", "--metric", "ctxsw.sem", "--hist-us", "50"],
    ),
    "result-v2-threadmetric.lava": (THREADMETRIC, ["--format", "lava", *THREADMETRIC_LIMITS]),
    "result-v2-threadmetric.junit.xml": (THREADMETRIC, ["--format", "junit", *THREADMETRIC_LIMITS]),
}
LAVA_LINE = re.compile(
    r"[a-z][a-z0-9_]*(\.[a-z0-9_]+)+ (pass|fail)"
    r"( [0-9]+(\.[0-9]+)? (us|samples|periods|iterations))?"
)


def export(rtscope, path, *args):
    """The output of a successful export."""
    outcome = rtscope("export", path, *args)
    assert outcome.status == 0, outcome.err
    assert outcome.err == ""
    return outcome.out


@pytest.mark.parametrize("name", GOLDEN_EXPORTS)
def test_each_format_matches_its_golden_file(rtscope, name):
    source, args = GOLDEN_EXPORTS[name]
    out = export(rtscope, source, *args)
    golden = GOLDEN / "export" / name
    if os.environ.get("RTSCOPE_REGENERATE_GOLDEN") == "1":
        golden.write_text(out, encoding="utf-8")
    assert out == golden.read_text(encoding="utf-8")


def test_json_is_the_document_exactly(rtscope, db_path):
    assert export(rtscope, LATENCY, "--format", "json") == LATENCY.read_text(encoding="utf-8")
    assert not db_path.exists()  # a file is exported, not stored


def test_json_is_the_stored_document_for_a_stored_run(fake):
    assert fake("run", "--label", "stored").status == 0
    out = export(fake, "last", "--format", "json")
    assert out == fake("show", "last", "--json").out and '"label": "stored"' in out


@pytest.mark.parametrize("raw_times", [False, True])
def test_csv_parses_back_to_the_summary(rtscope, raw_times):
    out = export(rtscope, THREADMETRIC, "--format", "csv", *(["--raw-times"] if raw_times else []))
    rows = list(csv.DictReader(io.StringIO(out)))
    doc = result.load(THREADMETRIC).doc
    assert [row["metric"] for row in rows] == [m["id"] for m in doc["metrics"]]
    for row, metric in zip(rows, doc["metrics"], strict=True):
        figures = result.summary(metric, adjusted=not raw_times)
        assert row["unit"] == metric["unit"] and row["valid"] == "true" and row["run"] == doc["run"]["id"]
        assert {name: float(row[name]) for name in result.STATISTICS.values()} == pytest.approx(
            {name: figures[key] for key, name in result.STATISTICS.items()}
        )
        assert row["threshold_ns"] == row["over_threshold"] == ""


def test_csv_keeps_text_that_needs_quoting(rtscope, tmp_path):
    doc = builders.result_doc(label='kernel "6.1", rt', invalid=("ctxsw.sem",))
    doc["metrics"][0]["invalid_reason"] = "line one,\nline two"
    rows = list(
        csv.DictReader(
            io.StringIO(
                export(rtscope, builders.write(tmp_path / "r.json", doc), "--format", "csv", "--metric", "ctxsw.sem")
            )
        )
    )
    assert [(row["label"], row["valid"], row["invalid_reason"]) for row in rows] == [
        ('kernel "6.1", rt', "false", "line one,\nline two")
    ]


def test_junit_fails_exactly_the_metrics_that_break_a_rule(rtscope, tmp_path):
    doc = builders.result_doc(label='<board & "rev B">', invalid=("ctxsw.sem",))
    path = builders.write(tmp_path / "r.json", doc)
    out = export(
        rtscope,
        path,
        "--format",
        "junit",
        "--limit",
        "lat.wakeup:p99=20us",
        "--limit",
        "clock.read:max=1ms",
        "--limit",
        "lat.irq:max=1ms",
    )
    suites = ET.fromstring(out)
    (suite,) = suites.findall("testsuite")
    failed = {
        case.get("name"): case.find("failure").get("message")
        for case in suite.iter("testcase")
        if case.find("failure") is not None
    }
    assert failed == {
        "ctxsw.sem": "invalid: the partner thread did not run on the same CPU",
        "lat.wakeup": "p99 23.2 µs is above the limit 20.0 µs",
        "lat.irq": "not measured in this run",
    }
    assert [case.get("name") for case in suite.iter("testcase")] == ["ctxsw.sem", "lat.wakeup", "clock.read", "lat.irq"]
    assert suite.get("tests") == "4" and suite.get("failures") == "3" == suites.get("failures")
    properties = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert properties["label"] == '<board & "rev B">'
    assert properties["hostname"] == "fixture-host" and properties["kernel"] == "6.1.0-test"


def test_a_count_limit_is_a_minimum_and_a_threshold_fails_only_when_asked(rtscope):
    out = export(
        rtscope, THREADMETRIC, "--format", "junit", "--limit", "tm.basic:p50=2000000", "--limit", "tm.coop:p50=200000"
    )
    failed = {case.get("name") for case in ET.fromstring(out).iter("testcase") if case.find("failure") is not None}
    assert failed == {"tm.coop"}  # tm.basic's 2,050,896 holds a minimum of 2,000,000
    plain = export(rtscope, LATENCY, "--format", "junit")
    assert "<failure" not in plain and "<failure" in export(
        rtscope, LATENCY, "--format", "junit", "--fail-on-threshold"
    )


def test_lava_lines_follow_the_convention(rtscope):
    out = export(rtscope, LATENCY, "--format", "lava", *LATENCY_LIMITS, "--limit", "lat.preempt:max=1ms")
    lines = out.splitlines()
    assert all(LAVA_LINE.fullmatch(line) for line in lines), [l for l in lines if not LAVA_LINE.fullmatch(l)]
    assert "lat.wakeup.max fail 2792.967 us" in lines and "lat.wakeup.p99 pass 49.279 us" in lines
    assert "lat.irq.p99 pass 57.727 us" in lines and "lat.wakeup.cpu1.over_threshold fail 6 samples" in lines
    assert lines[-2:] == ["lat.preempt fail", "lat.preempt.max fail"]  # limited but not measured
    per_metric = 1 + len(result.STATISTICS)
    assert len(lines) == 4 * per_metric + 3 + 2  # three metrics have a threshold line


def test_an_invalid_metric_fails_every_lava_line(rtscope, tmp_path):
    path = builders.write(tmp_path / "r.json", builders.result_doc(invalid=("ctxsw.sem",)))
    lines = export(rtscope, path, "--format", "lava", "--metric", "ctxsw.sem").splitlines()
    assert len(lines) == 1 + len(result.STATISTICS) and all(line.split()[1] == "fail" for line in lines)


def cyclictest_hist(path, columns):
    """What evaluation/cyclictest_hist.py reads from a cyclictest histogram file: per column min, max
    (µs) and samples."""
    completed = subprocess.run(
        [
            sys.executable,
            str(REPO / "evaluation" / "cyclictest_hist.py"),
            str(path),
            ",".join(map(str, range(columns))),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    found = re.findall(r"min +([0-9.]+) .* max +([0-9.]+) us +\(([0-9]+) samples\)", completed.stdout)
    return [(float(low), float(high), int(samples)) for low, high, samples in found]


@pytest.mark.parametrize("args", [[], ["--hist-us", "30"], ["--metric", "lat.wakeup", "--metric", "lat.irq"]])
def test_cyclictest_reads_back_with_the_benchs_parser(rtscope, tmp_path, args):
    path = tmp_path / "hist.txt"
    assert rtscope("export", LATENCY, "--format", "cyclictest", "-o", path, *args).status == 0
    doc = result.load(LATENCY).doc
    ids = [a for a in args[1::2] if a.startswith("lat.")] or ["lat.wakeup.cpu0", "lat.wakeup.cpu1"]
    expected = [
        (m["adjusted"]["min"] // 1000, m["adjusted"]["max"] // 1000, m["stats"]["count"])
        for m in (result.metric(doc, metric_id) for metric_id in ids)
    ]
    assert cyclictest_hist(path, len(ids)) == expected


def test_cyclictest_rows_agree_with_min_and_max_by_default(rtscope):
    out = export(rtscope, LATENCY, "--format", "cyclictest")
    rows = [list(map(int, line.split())) for line in out.splitlines() if line[:1].isdigit()]
    assert len(rows) == 2793  # up to the largest maximum, 2.79 ms
    for column, metric_id in enumerate(["lat.wakeup.cpu0", "lat.wakeup.cpu1"], start=1):
        metric = result.metric(result.load(LATENCY).doc, metric_id)
        used = [row[0] for row in rows if row[column]]
        assert (used[0], used[-1]) == (metric["stats"]["min"] // 1000, metric["stats"]["max"] // 1000)
        assert sum(row[column] for row in rows) == metric["stats"]["count"]
    assert "# Histogram Overflows: 00000 00000\n" in out and "# Thread 1:\n" in out


def histogram_doc(buckets, *, low, high, overhead=0.0):
    """A run whose one metric, lat.wakeup, has these histogram buckets and exact min and max (ns)."""
    doc = builders.result_doc(benches={"lat.wakeup": 15000.0})
    metric = doc["metrics"][0]
    count = sum(bucket[2] for bucket in buckets)
    metric["overhead_ns"] = overhead
    for key, minus in (("stats", 0.0), ("adjusted", overhead)):
        metric[key].update(count=count, min=max(0.0, low - minus), max=max(0.0, high - minus))
    metric["histogram"]["buckets"] = buckets
    return doc


def cyclictest_rows(rtscope, tmp_path, doc, *args):
    """The non-empty rows (µs: count) and the overflows of a one-column cyclictest export of ``doc``."""
    out = export(rtscope, builders.write(tmp_path / "r.json", doc), "--format", "cyclictest", *args)
    rows = {int(line.split()[0]): int(line.split()[1]) for line in out.splitlines() if line[:1].isdigit()}
    overflows = int(re.search(r"# Histogram Overflows: ([0-9]+)", out)[1])
    return {us: count for us, count in rows.items() if count}, overflows


def test_an_invalid_metric_is_said_in_one_comment_line(rtscope, tmp_path):
    doc = builders.result_doc(benches={"lat.wakeup": 15000.0}, invalid=("lat.wakeup",))
    doc["metrics"][0]["invalid_reason"] = "missed\nwake-ups"
    out = export(rtscope, builders.write(tmp_path / "r.json", doc), "--format", "cyclictest")
    assert "\n# lat.wakeup is invalid: missed wake-ups\n# Histogram\n" in out
    assert all(line[:1] in ("#", "0", "") for line in out.splitlines())


def test_a_bucket_is_shared_by_the_microseconds_it_covers(rtscope, tmp_path):
    buckets = [
        [5000, 32, 1],
        [9984, 64, 10],  # 16 values in 9 µs, 48 in 10 µs: 2.5 and 7.5, the tie to the first
        [150000, 2048, 5],  # 1000, 1000 and 48 values: 2.44, 2.44, 0.12 samples
        [200704, 2048, 3],
    ]  # the max, 201.5 µs, in its row; 2 samples over 296 and 501 values
    rows, overflows = cyclictest_rows(rtscope, tmp_path, histogram_doc(buckets, low=5010, high=201500))
    assert rows == {5: 1, 9: 3, 10: 7, 150: 3, 151: 2, 200: 1, 201: 2} and overflows == 0
    # Fewer rows move the later samples to the overflows and leave the rows before alone.
    rows, overflows = cyclictest_rows(
        rtscope, tmp_path, histogram_doc(buckets, low=5010, high=201500), "--hist-us", "151"
    )
    assert rows == {5: 1, 9: 3, 10: 7, 150: 3} and overflows == 5


def test_adjusted_rows_take_the_overhead_off(rtscope, tmp_path):
    doc = histogram_doc([[1000, 16, 4]], low=1000, high=1015, overhead=20.0)
    assert cyclictest_rows(rtscope, tmp_path, doc) == ({0: 4}, 0)
    assert cyclictest_rows(rtscope, tmp_path, doc, "--raw-times") == ({1: 4}, 0)


def test_output_file_is_written_whole(rtscope, tmp_path):
    target = tmp_path / "out" / "latency.xml"
    target.parent.mkdir()
    outcome = rtscope("export", LATENCY, "--format", "junit", "-o", target)
    assert outcome.status == 0 and outcome.out == "" and outcome.err == ""
    assert target.read_text(encoding="utf-8") == export(rtscope, LATENCY, "--format", "junit")
    assert [p.name for p in target.parent.iterdir()] == ["latency.xml"]


def test_an_unwritable_output_is_one_line_and_leaves_nothing(rtscope, tmp_path):
    assert_one_line_error(
        rtscope("export", LATENCY, "--format", "csv", "-o", tmp_path / "no" / "such" / "x.csv"),
        f"cannot write {tmp_path / 'no' / 'such' / 'x.csv'}",
    )
    assert_one_line_error(rtscope("export", LATENCY, "--format", "csv", "-o", tmp_path), "it is a directory")
    # A failure after the file was opened leaves neither it nor its temporary file behind.
    outcome = rtscope("export", tmp_path / "missing.json", "--format", "csv", "-o", tmp_path / "x.csv")
    assert_one_line_error(outcome, "missing.json: no such file")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "xml"], "argument --format: invalid choice: 'xml'"),
        (["--format", "csv", "--limit", "lat.wakeup:max=1ms"], "--limit does not apply to --format csv"),
        (["--format", "json", "--metric", "lat.irq"], "--metric does not apply to --format json"),
        (["--format", "lava", "--hist-us", "10"], "--hist-us does not apply to --format lava"),
        (["--format", "cyclictest", "--hist-us", "0"], "argument --hist-us: must be one or more, not 0"),
        (["--format", "cyclictest", "--hist-us", "1000001"], "must be at most 1000000"),
        (["--format", "junit", "--limit", "lat.wakeup:max=fast"], "bad limit 'lat.wakeup:max=fast'"),
        (["--format", "junit", "--limit", "lat.wakeup:max=-5us"], "bad limit 'lat.wakeup:max=-5us'"),
        (["--format", "junit", "--limit", "lat.wakeup:p42=5us"], "unknown statistic p42"),
        (["--format", "junit", "--limit", "lat.wakeup:max=100"], "lat.wakeup max is a time; give a time with its unit"),
        (
            ["--format", "lava", "--limit", "lat.wakeup:count=10ms"],
            "lat.wakeup count is not a time; give a plain number",
        ),
        (["--format", "csv", "--metric", "lat.nope"], "has no metric lat.nope (it has lat.wakeup, lat.wakeup.cpu0"),
    ],
)
def test_bad_export_options_are_one_line(rtscope, args, message):
    assert_one_line_error(rtscope("export", LATENCY, *args), message)


def test_cyclictest_needs_time_metrics(rtscope):
    assert_one_line_error(rtscope("export", THREADMETRIC, "--format", "cyclictest"), "has no metric lat.wakeup")
    assert_one_line_error(
        rtscope("export", THREADMETRIC, "--format", "cyclictest", "--metric", "tm.sync"),
        "tm.sync measures iterations: a cyclictest histogram is of times",
    )


def test_limits_take_every_unit(rtscope):
    for value in ("2792967ns", "2792.967us", "2792.967µs", "2.792967ms", "0.002792967s"):
        out = export(
            rtscope, LATENCY, "--format", "lava", "--metric", "lat.wakeup", "--limit", f"lat.wakeup:max={value}"
        )
        assert "lat.wakeup.max pass" in out, value  # lat.wakeup's max is 2792967 ns: equal holds the limit


def test_csv_gives_each_metric_its_labels(rtscope, tmp_path):
    doc = builders.result_doc(benches={"lat.wakeup": 15000.0, "ctxsw.sem": 3200.0})
    doc["version"] = 4  # labels came with result format 4
    for metric in doc["metrics"]:
        metric["labels"] = {}
    doc["metrics"][0]["labels"] = {"model": "python", "cpu": 1}
    rows = csv.DictReader(io.StringIO(export(rtscope, builders.write(tmp_path / "r.json", doc), "--format", "csv")))
    assert [row["labels"] for row in rows] == ["cpu=1;model=python", ""]


def test_csv_numbers_read_back_exactly(rtscope, tmp_path):
    # More digits than six significant ones: run CSV and compare's CSV both keep every one.
    mean = 15123.456789012345
    docs = []
    for number, scale in enumerate((1, 3)):
        doc = builders.result_doc(run_id=str(number) * 16, benches={"lat.wakeup": 15000.0})
        doc["metrics"][0]["adjusted"]["mean"] = mean * scale
        docs.append(builders.write(tmp_path / f"{number}.json", doc))
    (row,) = csv.DictReader(io.StringIO(export(rtscope, docs[0], "--format", "csv")))
    assert float(row["mean"]) == mean and row["count"] == "40000"
    outcome = rtscope("compare", *docs, "--stat", "mean", "--format", "csv")
    first, second = csv.DictReader(io.StringIO(outcome.out))
    assert (float(first["value"]), float(second["value"]), float(second["ratio_to_A"])) == (mean, 3 * mean, 3.0)


def test_every_format_is_an_exporter_written_with_its_suffix(rtscope, tmp_path):
    for exporter in exporters.RUN_EXPORTERS.values():
        path = tmp_path / f"latency{exporter.suffix}"
        assert rtscope("export", LATENCY, "--format", exporter.name, "-o", path).status == 0
        assert path.read_text(encoding="utf-8") == exporter.write(RunExport(result.load(LATENCY)))
    assert set(comparison.WRITERS) == set(comparison.COMPARISON_EXPORTERS) == {"markdown", "csv", "json"}


def test_cyclictest_reads_buckets_in_their_histogram_step(rtscope, tmp_path):
    # Steps of 2 ns (result format 4's histogram resolution): bucket [2500, 16] holds 5000 … 5031 ns.
    doc = histogram_doc([[2500, 16, 4], [4000, 8, 2]], low=5002, high=8010)
    doc["version"] = 4
    doc["metrics"][0].update(labels={})
    doc["metrics"][0]["histogram"]["resolution"] = 2
    assert cyclictest_rows(rtscope, tmp_path, doc) == ({5: 4, 8: 2}, 0)


def kcidb(rtscope, path, *args):
    """A KCIDB export, validated against KernelCI's own schema (kcidb-io) of the version it names."""
    data = json.loads(export(rtscope, path, "--format", "kcidb", *args))
    assert data["version"] == {"major": 5, "minor": 3}
    kcidb_io.schema.V5_3.validate_exactly(data)
    return data


@pytest.mark.parametrize("golden", sorted(GOLDEN.glob("result-v*.json")), ids=lambda path: path.stem)
def test_kcidb_is_valid_against_kcidbs_schema_for_every_format_version(rtscope, golden):
    data = kcidb(rtscope, golden)
    doc = result.load(golden).doc
    run_id = f"rtscope:{doc['run']['id']}"
    assert [c["id"] for c in data["checkouts"]] == [b["id"] for b in data["builds"]] == [run_id]
    # KCIDB's architectures are [a-z0-9_]*: the RTOS board's armv7-m is spelled so; misc keeps the original.
    arch = doc["system"]["arch"]
    assert data["builds"][0]["architecture"] == {"armv7-m": "armv7_m"}.get(arch, arch)
    assert data["builds"][0]["misc"]["arch"] == arch
    assert all(test["build_id"] == run_id and test["origin"] == "rtscope" for test in data["tests"])
    assert len({test["id"] for test in data["tests"]}) == len(data["tests"])


def test_kcidb_gives_p50_p99_and_max_of_a_time_and_the_median_period_of_a_count(rtscope):
    tests = {test["path"]: test for test in kcidb(rtscope, THREADMETRIC)["tests"]}
    doc = result.load(THREADMETRIC).doc
    sem = result.summary(result.metric(doc, "ctxsw.sem"))
    assert {stat: tests[f"rtscope.ctxsw.sem.{stat}"]["number"] for stat in ("p50", "p99", "max")} == {
        stat: {"value": sem[stat], "unit": "ns"} for stat in ("p50", "p99", "max")
    }
    assert tests["rtscope.tm.basic.p50"]["number"] == {"value": result.metric(doc, "tm.basic")["stats"]["p50"]}
    assert "rtscope.tm.basic.p99" not in tests
    assert {test["status"] for test in tests.values()} == {"DONE"}
    assert tests["rtscope.ctxsw.sem.p99"]["misc"]["figures"] == "overhead-adjusted"
    assert tests["rtscope.ctxsw.sem.p99"]["environment"]["misc"]["hostname"] == doc["system"]["hostname"]


def test_kcidb_reads_a_throughputs_tail_on_its_low_side_and_names_its_labels(rtscope, tmp_path):
    doc = builders.throughput_doc("crypto.sha256", [100_000, 120_000, 130_000])
    tests = {test["path"]: test for test in kcidb(rtscope, builders.write(tmp_path / "r.json", doc))["tests"]}
    assert list(tests) == [f"rtscope.crypto.sha256.size_1024.library_openssl.{stat}" for stat in ("p50", "p1", "min")]
    assert tests["rtscope.crypto.sha256.size_1024.library_openssl.min"]["number"] == {
        "value": 100_000,
        "unit": "B/s",
        "prefix": "metric",
    }


def test_kcidb_errors_an_invalid_metric_and_fails_what_the_judge_fails(rtscope, tmp_path):
    path = builders.write(tmp_path / "r.json", builders.result_doc(invalid=("ctxsw.sem",)))
    data = kcidb(rtscope, path, "--limit", "lat.wakeup:p99.9=20us", "--limit", "lat.irq:max=1ms")
    status = {test["path"]: (test["status"], test.get("comment")) for test in data["tests"]}
    assert status["rtscope.ctxsw.sem.p99"] == ("ERROR", "invalid: the partner thread did not run on the same CPU")
    assert status["rtscope.lat.wakeup.p99"] == ("DONE", None)
    assert status["rtscope.lat.wakeup.p99_9"] == ("FAIL", "p99.9 46.5 µs is above the limit 20.0 µs")
    assert status["rtscope.lat.irq"] == ("FAIL", "not measured in this run")
    assert "number" not in next(test for test in data["tests"] if test["path"] == "rtscope.lat.irq")
