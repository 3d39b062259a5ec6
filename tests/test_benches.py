"""The bench catalogue: suites expand to their benches; parameters convert and check what the user gives.
And the probe's benches that need no privilege and no time: wave.import on captures with known edges."""

import json
import subprocess
from pathlib import Path

import pytest

from conftest import REPO
from rtscope.model import result
from rtscope.model.catalogue import Suite, expand_suites, parse_bench_list

SUITES = [Suite("quick", "", ("ctxsw.sem", "lat.wakeup")), Suite("more", "", ("lat.wakeup", "clock.read"))]


def test_suites_expand_in_order_and_bring_each_bench_once():
    assert expand_suites(("quick", "ctxsw.sem", "more"), SUITES) == ("ctxsw.sem", "lat.wakeup", "clock.read")


def test_a_bench_named_twice_by_itself_stays_twice_to_be_refused():
    assert expand_suites(("clock.read", "clock.read"), SUITES) == ("clock.read", "clock.read")


LISTING = json.dumps(
    {
        "format": "rtscope-bench-list",
        "version": 1,
        "benches": [
            {
                "id": "wave.import",
                "summary": "",
                "metrics": ["wave.period"],
                "params": [
                    {
                        "name": "format",
                        "type": "string",
                        "default": "auto",
                        "min": None,
                        "max": None,
                        "choices": ["auto", "csv", "vcd"],
                        "description": "how the capture is written",
                    },
                    {"name": "file", "type": "string", "default": "", "description": "the capture"},
                    {"name": "period_us", "type": "float", "default": "1000", "min": 1, "max": 1e6, "description": ""},
                ],
            }
        ],
    }
)


def test_a_listed_text_parameter_keeps_its_choices_and_checks_them():
    [bench], _ = parse_bench_list(LISTING, "probe")
    fmt = bench.param("format")
    assert fmt.choices == ("auto", "csv", "vcd") and fmt.range_text() == "auto|csv|vcd"
    assert fmt.convert("vcd") == "vcd"
    with pytest.raises(ValueError, match=r"^format expects one of auto, csv, vcd, not 'xml'$"):
        fmt.convert("xml")


def test_free_text_and_numbers_are_converted_as_before():
    [bench], _ = parse_bench_list(LISTING, "probe")
    assert bench.param("file").convert("a b.csv") == "a b.csv" and bench.param("file").range_text() == ""
    assert bench.param("period_us").convert("2.5") == 2.5 and bench.param("period_us").choices == ()
    with pytest.raises(ValueError, match="at most 1000000"):
        bench.param("period_us").convert("2e6")


# wave.import on captures with known edges (probe/tests/data): square.* hold on D1 periods of 10, 10, 11, 9 and
# 10 us, high 5, 5, 5, 4 and 5 us; demo.* are sigrok-cli's demo driver, D3 a wave of 80 us.
CAPTURES = REPO / "probe" / "tests" / "data"
SQUARE = {
    "edges_seen": 11,
    "periods_judged": 5,
    "periods_blind": 0,
    "missed_periods": 0,
    "resolution_ns": 1000,
    "blind_fraction": 0,
}


def _import(probe: Path, tmp_path: Path, capture: str, *params: str) -> tuple[subprocess.CompletedProcess, dict]:
    out = tmp_path / "run.json"
    argv = [
        str(probe),
        "run",
        "wave.import",
        "--param",
        f"file={CAPTURES / capture}",
        "--policy",
        "other",
        "--no-mlock",
        "--quiet",
        "--json",
        str(out),
    ]
    for param in params:
        argv += ["--param", param]
    ran = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    return ran, result.load(out).doc


def _metrics(doc: dict) -> dict[str, dict]:
    return {m["id"]: m for m in doc["metrics"]}


@pytest.mark.parametrize("capture", ["square.csv", "square.vcd", "square_time.csv"])
def test_a_capture_is_judged_period_by_period(probe, tmp_path, capture):
    ran, doc = _import(probe, tmp_path, capture, "channel=D1", "period_us=10")
    assert ran.returncode == 0, ran.stderr
    assert doc["benches"][0]["params"] == {
        "file": str(CAPTURES / capture),
        "channel": "D1",
        "period_us": 10,
        "format": "auto",
        "driver": "",
        "config": "",
        "group": "Logic",
        "samples": 1000,
    }
    metrics = _metrics(doc)
    assert all(m["labels"] == {"model": "capture", "period_us": 10} and m["valid"] for m in metrics.values())
    assert metrics["wave.period"]["checks"] == SQUARE
    period, high = metrics["wave.period"]["stats"], metrics["wave.high"]["stats"]
    assert (period["count"], period["min"], period["max"], period["mean"]) == (5, 9000, 11000, 10000)
    assert (high["min"], high["max"], high["mean"]) == (4000, 5000, 4800)
    assert metrics["wave.rel_error"]["unit"] == "ratio" and metrics["wave.rel_error"]["stats"]["max"] == 0.1
    duty = metrics["wave.duty"]
    assert duty["unit"] == "percent" and duty["stats"]["max"] == 50
    assert duty["stats"]["min"] == pytest.approx(4 / 9 * 100, abs=1e-4)


@pytest.mark.parametrize("capture", ["demo.csv", "demo.vcd"])
def test_sigrok_clis_demo_capture_gives_its_exact_wave(probe, tmp_path, capture):
    ran, doc = _import(probe, tmp_path, capture, "channel=D3", "period_us=80")
    assert ran.returncode == 0, ran.stderr
    metrics = _metrics(doc)
    assert metrics["wave.period"]["checks"] == {
        **SQUARE,
        "edges_seen": 124,
        "periods_judged": 61,
        "resolution_ns": 5000,
    }
    assert (metrics["wave.period"]["stats"]["min"], metrics["wave.period"]["stats"]["max"]) == (80000, 80000)
    assert metrics["wave.rel_error"]["stats"]["max"] == 0 and metrics["wave.duty"]["stats"]["mean"] == 50


def test_a_period_finer_than_the_capture_is_measured_and_marked_invalid(probe, tmp_path):
    ran, doc = _import(probe, tmp_path, "demo.csv", "channel=D3", "period_us=0.01")
    assert ran.returncode == 0, ran.stderr
    assert {m["invalid_reason"] for m in _metrics(doc).values()} == {
        "its sample interval of 5000 ns cannot resolve a period of 0.01 us"
    }


@pytest.mark.parametrize(
    ("capture", "params", "error"),
    [
        (
            "not_a_capture.txt",
            (),
            "not a capture of sigrok-cli (-O csv or -O vcd): its line 1 is neither a sample nor column labels",
        ),
        ("square.csv", ("channel=D7",), "no channel D7 in it (it has D0, D1)"),
        ("square.vcd", ("channel=D7",), "no channel D7 in it (it has D0, D1)"),
        ("square.csv", ("channel=D0",), "no edges on channel D0: it stays low"),
        ("one_period.csv", (), "1 period on channel D0: a wave of at least 2 is needed"),
        ("square.csv", ("format=vcd",), "not a capture of sigrok-cli (-O csv or -O vcd): ';' at line 1"),
    ],
)
def test_a_bad_capture_fails_the_bench_with_one_line(probe, tmp_path, capture, params, error):
    ran, doc = _import(probe, tmp_path, capture, *params)
    bench = doc["benches"][0]
    assert ran.returncode == 1 and bench["status"] == "failed"
    assert bench["error"] == f"{CAPTURES / capture}: {error}"


def test_a_missing_capture_and_a_bad_format_are_refused(probe, tmp_path):
    ran, doc = _import(probe, tmp_path, "missing.csv")
    assert ran.returncode == 1
    assert doc["benches"][0]["error"] == f"cannot open {CAPTURES / 'missing.csv'}: No such file or directory"
    refused = subprocess.run(
        [str(probe), "run", "wave.import", "--param", "format=xml"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert refused.returncode == 2
    assert refused.stderr.strip().endswith("bench wave.import: parameter format: 'xml' is not one of auto,csv,vcd")


def test_the_probe_lists_text_parameters_with_their_choices(probe):
    listing = subprocess.run([str(probe), "list", "--json"], capture_output=True, text=True, check=True).stdout
    [bench] = [b for b in parse_bench_list(listing, "probe")[0] if b.id == "wave.import"]
    assert bench.param("format").choices == ("auto", "csv", "vcd") and bench.param("format").type == "string"
    assert bench.param("file").type == "string" and bench.param("file").choices == ()
    assert bench.metrics == ("wave.period", "wave.high", "wave.rel_error", "wave.duty")
