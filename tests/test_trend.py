"""rtscope trend: a metric's statistic across the store's runs, grouped, in time order; and the store's one query."""

import csv
import io
import json

import pytest

from rtscope.model import result
from rtscope.store.database import Store
from support import builders
from test_cli_errors import assert_one_line_error

# (run id, started, kernel, label, lat.wakeup's typical ns): two kernels, the second worse, the runs of
# each spread by a few percent.
RUNS = [
    ("1000000000000001", "2026-11-02T10:00:00Z", "6.1.0-rt", "stable", 15000.0),
    ("1000000000000002", "2026-11-03T10:00:00Z", "6.1.0-rt", "stable", 15400.0),
    ("1000000000000003", "2026-11-04T10:00:00Z", "6.1.0-rt", None, 15200.0),
    ("1000000000000004", "2026-11-10T10:00:00Z", "6.6.0-rt", "stable", 20000.0),
    ("1000000000000005", "2026-11-11T10:00:00Z", "6.6.0-rt", None, 21000.0),
]


def doc(run_id, started, kernel, label, typical, **fields):
    made = builders.result_doc(
        run_id=run_id, started=started, label=label, benches={"lat.wakeup": typical, "ctxsw.sem": 3200.0}, **fields
    )
    made["system"]["kernel_release"] = kernel
    return made


@pytest.fixture
def store(db_path):
    with Store.open(db_path, create=True) as opened:
        for run in RUNS:
            opened.add(result.from_doc(doc(*run), "test"))
        yield opened


def trend_json(rtscope, *args):
    outcome = rtscope("trend", "lat.wakeup", "--format", "json", *args)
    assert outcome.status == 0, outcome.err
    return json.loads(outcome.out)


def test_metric_history_is_the_stored_statistic_oldest_first_and_filtered(store):
    history = store.metric_history("lat.wakeup", "p99")
    assert [row[0] for row in history] == [run[0] for run in RUNS]
    # The builders' p99 is 1.5 × typical, less the overhead (the store keeps adjusted figures).
    assert history[0][1:] == (
        "2026-11-02T10:00:00Z",
        "stable",
        "fixture-host",
        "6.1.0-rt",
        True,
        15000.0 * 1.5 - 20,
        "hardware",
    )
    assert [row[0] for row in store.metric_history("lat.wakeup", "max", since="2026-11-04")] == [
        run[0] for run in RUNS[2:]
    ]
    assert store.metric_history("lat.wakeup", "mean", host="another-host") == []
    assert store.metric_history("no.such", "p50") == []
    with pytest.raises(ValueError, match="p50, p99, max, mean"):
        store.metric_history("lat.wakeup", "p90; DROP TABLE runs")


def test_groups_by_kernel_have_medians_spreads_and_the_change_to_the_first(rtscope, store):
    trend = trend_json(rtscope)
    assert (trend["format"], trend["metric"], trend["stat"], trend["unit"], trend["by"]) == (
        "rtscope-trend",
        "lat.wakeup",
        "p99",
        "ns",
        "kernel",
    )
    first, second = trend["groups"]
    assert (first["name"], first["runs"], second["name"], second["runs"]) == ("6.1.0-rt", 3, "6.6.0-rt", 2)
    assert first["median"] == 15200.0 * 1.5 - 20
    assert first["spread"] == pytest.approx((15400 - 15000) * 1.5 / 2 / (15200 * 1.5 - 20))
    assert second["median"] == 20500.0 * 1.5 - 20
    assert second["change"] == pytest.approx((20500 * 1.5 - 20) / (15200 * 1.5 - 20) - 1)
    assert (first["beyond_spread"], second["beyond_spread"]) == (None, True)
    assert [run["id"] for run in trend["runs"]] == [run[0] for run in RUNS]


def test_by_label_and_week(rtscope, store):
    by_label = trend_json(rtscope, "--by", "label")
    assert [(g["name"], g["runs"]) for g in by_label["groups"]] == [("stable", 3), ("(no label)", 2)]
    by_week = trend_json(rtscope, "--by", "week", "--since", "2026-11-03")
    assert [(g["name"], g["runs"]) for g in by_week["groups"]] == [("2026-W45", 2), ("2026-W46", 2)]


def test_the_text_table_says_which_group_is_worse(rtscope, store):
    outcome = rtscope("trend", "lat.wakeup", "--stat", "max")
    assert outcome.status == 0, outcome.err
    lines = outcome.out.splitlines()
    assert lines[0] == "Trend of lat.wakeup, max"
    assert "max of lat.wakeup (overhead-adjusted) in 5 runs" in lines[1]
    row = next(line for line in lines if line.strip().startswith("6.6.0-rt"))
    assert "143 µs" in row and "+34.9 % worse" in row  # 7 × 20,500 ns − 20 against 7 × 15,200 ns − 20


def test_an_invalid_metric_is_listed_but_not_counted(rtscope, db_path, store):
    store.add(
        result.from_doc(
            doc("2000000000000001", "2026-11-12T10:00:00Z", "6.6.0-rt", None, 90000.0, invalid=("lat.wakeup",)), "t"
        )
    )
    trend = trend_json(rtscope)
    assert trend["groups"][1]["runs"] == 3
    assert trend["groups"][1]["median"] == 20500.0 * 1.5 - 20
    assert trend["runs"][-1]["valid"] is False
    assert "1 run with an invalid metric: not counted." in rtscope("trend", "lat.wakeup").out


def test_csv_has_a_line_per_run(rtscope, store):
    outcome = rtscope("trend", "lat.wakeup", "--format", "csv", "--stat", "p50")
    rows = list(csv.DictReader(io.StringIO(outcome.out)))
    assert [row["run"] for row in rows] == [run[0] for run in RUNS]
    assert rows[0]["kernel"] == "6.1.0-rt" and rows[0]["p50"] == "14980" and rows[0]["unit"] == "ns"


def test_the_page_has_a_dot_per_run_and_a_median_per_group(rtscope, store, tmp_path):
    page = tmp_path / "trend.html"
    outcome = rtscope("trend", "lat.wakeup", "-o", page)
    assert outcome.status == 0, outcome.err
    assert outcome.out == f"wrote {page}\n"
    whole = page.read_text(encoding="utf-8")
    # The trend's chart, then the long-term picture of its runs (tests/test_longterm.py).
    html, picture = whole.split('id="longterm"')
    assert whole.startswith("<!DOCTYPE html>") and html.count("<svg") == 1 and picture.count("<svg") == 2
    assert html.count("<circle") == len(RUNS)
    assert html.count("median 22.8 µs") == 1 and html.count("median 30.7 µs") == 1
    assert "<script" not in html


def test_a_throughput_is_refused_on_a_tail_the_store_keeps_the_good_side_of(rtscope, db_path):
    with Store.open(db_path, create=True) as opened:
        opened.add(result.from_doc(builders.throughput_doc("crypto.sha256", [100_000, 110_000]), "t"))
    assert_one_line_error(rtscope("trend", "crypto.sha256"), "crypto.sha256 is throughput (higher is better)")
    trend = json.loads(rtscope("trend", "crypto.sha256", "--stat", "p50", "--format", "json").out)
    assert trend["unit"] == "bytes/s"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no.such"], "no stored run measured no.such"),
        (["lat.wakeup", "--host", "board"], "no stored run on host board measured lat.wakeup"),
        (["lat.wakeup", "--since", "2027-01-01"], "no stored run since 2027-01-01 measured lat.wakeup"),
        (["lat.wakeup", "--stat", "p90"], "the store keeps p50, p99, max, mean of every run, not 'p90'"),
        (["lat.wakeup", "--stat", "p97"], "p97"),
        (["lat.wakeup", "--since", "yesterday"], "bad date 'yesterday'"),
        (["lat.wakeup", "--format", "text", "-o", "x.txt"], "-o writes html, csv or json, not text"),
    ],
)
def test_bad_input_is_one_line(rtscope, store, args, message):
    assert_one_line_error(rtscope("trend", *args), message)


def test_an_unwritable_output_is_one_line_and_nothing_is_written(rtscope, store, tmp_path):
    assert_one_line_error(rtscope("trend", "lat.wakeup", "-o", tmp_path / "no" / "t.html"), "cannot write")
    assert not (tmp_path / "no").exists()
