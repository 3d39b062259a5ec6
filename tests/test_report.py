"""rtscope report: the HTML page of runs, read as text and opened in headless Chromium."""

import html
import json
import math
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import GOLDEN, REPO, slow_fixture
from rtscope.analysis.grouping import LETTERS
from rtscope.commands.context import Context
from rtscope.render import svg
from support import builders
from test_cli_errors import assert_one_line_error
from test_cli_views import format_4_doc

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
HOSTILE = "<script>alert(1)</script>"
# Every plot the page draws is one of these.
PLOT = re.compile(r'<svg class="plot"')


def latency_metric(metric_id: str, typical_ns: float, *, windows: int, seed: int) -> dict[str, Any]:
    """A time metric shaped as a long latency run leaves it: a log-normal body in the probe's log-linear
    buckets (128 per power of two), a sparse tail up to 100 times the typical value, and the worst
    sample of each of ``windows`` one-second windows, a few of them empty."""
    buckets = []
    value = 2 ** math.floor(math.log2(typical_ns / 2))
    while value < typical_ns * 4:
        width = 2 ** math.floor(math.log2(value)) // 128
        count = round(20_000 * math.exp(-(math.log(value / typical_ns) ** 2) / 0.02))
        if count:
            buckets.append([value, width, count])
        value += width
    buckets += [
        [int(typical_ns * factor) // 64 * 64, 64, 1 + (seed + step) % 3]
        for step, factor in enumerate((8, 13, 21, 34, 55, 89))
    ]
    samples = sum(count for _, _, count in buckets)
    series = [
        None if (index + seed) % 97 == 0 else int(typical_ns * (3 + (index * 7 + seed) % 11))
        for index in range(windows)
    ]
    stats = {
        "count": samples,
        "min": buckets[0][0],
        "max": buckets[-1][0] + 63,
        "mean": typical_ns * 1.1,
        "stddev": typical_ns / 5,
        "p50": typical_ns,
        "p90": typical_ns * 1.2,
        "p99": typical_ns * 1.4,
        "p999": typical_ns * 8,
        "p9999": typical_ns * 55,
    }
    return {
        **builders.metric(metric_id, typical_ns),
        **builders.as_measured(stats, buckets, overflow_above=1 << 36),
        "threshold": {"ns": int(typical_ns * 10), "over": 7},
        "series": {"window_s": 1, "max": series, "dropped": 0},
    }


# How a cell's repetitions move against each other, as reruns on a real machine do.
_RERUNS = (1.0, 0.98, 1.02, 0.99, 1.01)


def campaign_doc(number: int, *, repetitions: int, windows: int) -> dict[str, Any]:
    """Run ``number`` of a campaign whose cells are measured ``repetitions`` times each, in the order a
    campaign runs them: its latency metrics, load and campaign cell."""
    cell, repetition = divmod(number, repetitions)
    load = ("idle", "cpu", "memory", "io")[cell % 4]
    doc = builders.result_doc(run_id=f"{number:02x}" * 8, benches={})
    doc["metrics"] = [
        latency_metric(
            metric_id, typical * (1 + cell / 2) * _RERUNS[repetition % len(_RERUNS)], windows=windows, seed=number
        )
        for metric_id, typical in (
            ("lat.wakeup", 15_000),
            ("lat.wakeup.cpu0", 14_000),
            ("lat.wakeup.cpu1", 16_000),
            ("lat.irq", 9_000),
        )
    ]
    doc["benches"] = [
        {"id": bench, "params": {"duration_s": windows}, "status": "ok", "elapsed_s": float(windows), "error": None}
        for bench in ("lat.wakeup", "lat.irq")
    ]
    doc["loads"] = [
        {
            "name": load,
            "settings": {"cpus": "all"},
            "commands": [["stress-ng"]],
            "cpus_used": None if load == "idle" else 1.9,
            "loopback_bytes_per_s": None,
            "held": True,
            "ended_early": [],
        }
    ]
    doc["campaign"] = {
        "name": "lab",
        "id": "c0ffee00c0ffee00",
        "cell": f"load={load}",
        "axes": {"load": load},
        "repetition": repetition + 1,
        "repetitions": repetitions,
    }
    return doc


def write_campaign_runs(directory: Path, count: int, *, repetitions: int = 5, windows: int = 600) -> list[Path]:
    """``count`` campaign runs of realistic size (ten-minute latency runs) as result files in ``directory``;
    also the runs to time a report on by hand:

        PYTHONPATH=src:tests .venv/bin/python -c "import pathlib, test_report
        test_report.write_campaign_runs(pathlib.Path('/tmp/runs20'), 20)"
        time ./rtscope report /tmp/runs20/*.json -o /tmp/report.html
    """
    directory.mkdir(parents=True, exist_ok=True)
    return [
        builders.write(
            directory / f"run-{number:02d}.json", campaign_doc(number, repetitions=repetitions, windows=windows)
        )
        for number in range(count)
    ]


def hostile_doc() -> dict[str, Any]:
    """A run whose every free text tries to become markup."""
    doc = builders.result_doc(
        run_id="badbadbadbadbad0",
        label=HOSTILE,
        hostname='"><img src=x onerror=alert(2)>',
        privileged=False,
        invalid=("ctxsw.sem",),
    )
    doc["config"]["warnings"].append("<b>bold</b> & <i>claims</i>")
    doc["metrics"][0]["invalid_reason"] = "</td></tr></table><script>alert(3)</script>"
    return doc


@pytest.fixture
def page_inputs(tmp_path: Path) -> list[Path]:
    """The golden files (result formats 1 to 3, Thread-Metric, latency series), a hostile run and six
    campaign runs in three cells."""
    hostile = builders.write(tmp_path / "hostile.json", hostile_doc())
    return [*GOLDEN, hostile, *write_campaign_runs(tmp_path / "campaign", 6, repetitions=2, windows=60)]


def report(rtscope, tmp_path: Path, *runs: Path | str) -> str:
    """The text of the report on ``runs``, checked to have been written."""
    output = tmp_path / "report.html"
    outcome = rtscope("report", *runs, "-o", output)
    assert outcome.status == 0, outcome.err
    assert outcome.out == f"wrote {output}: {len(runs)} run{'s' if len(runs) != 1 else ''}\n"
    return output.read_text(encoding="utf-8")


def test_a_report_of_every_result_format(rtscope, tmp_path):
    text = report(rtscope, tmp_path, *GOLDEN)
    assert text.startswith("<!DOCTYPE html>") and text.endswith("</html>\n")
    for path in GOLDEN:
        doc = json.loads(path.read_text())
        assert doc["run"]["id"] in text
        assert all(f'id="metric-{m["id"]}"' in text for m in doc["metrics"] if m["unit"] == "ns")
    assert "Thread-Metric, relative to its calibration test" in text and "tm.memory" in text
    assert "Worst latency over time" in text and "threshold 100 µs" in text
    assert "! not as requested" in text  # the refused golden run
    assert "Verdict: each factor at equal levels of the others" in text and "Comparison: every group" in text
    # Per metric of samples a histogram and a box plot (6 of time, the v4 wave's 4), per metric with series
    # one more; the Thread-Metric bars; the wave's envelope chart.
    assert len(PLOT.findall(text)) == 2 * (6 + 4) + 4 + 1 + 1


def test_the_page_needs_nothing_from_elsewhere(rtscope, tmp_path, page_inputs):
    text = report(rtscope, tmp_path, *page_inputs)
    assert not re.search(r"https?:|//[a-z]", text, re.IGNORECASE)
    assert not re.search(r"<(script|link|img|iframe|object|embed)\b|@import|url\(", text, re.IGNORECASE)


def test_every_string_from_a_document_is_escaped(rtscope, tmp_path):
    cell = campaign_doc(0, repetitions=1, windows=3)
    cell["campaign"] |= {"name": "<u>lab</u>", "cell": "load=<i>cpu</i>", "axes": {"load": "<i>cpu</i>"}}
    cell["loads"][0]["settings"] = {"cpus": "<em>all</em>"}
    text = report(
        rtscope,
        tmp_path,
        builders.write(tmp_path / "hostile.json", hostile_doc()),
        builders.write(tmp_path / "cell.json", cell),
    )
    assert not re.search(r"<(script|img|b|i|u|em)\b", text)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "&quot;&gt;&lt;img src=x onerror=alert(2)&gt;" in text
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; &lt;i&gt;claims&lt;/i&gt;" in text
    assert "invalid: &lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;script&gt;alert(3)" in text
    assert (
        "B &lt;u&gt;lab&lt;/u&gt;: load=&lt;i&gt;cpu&lt;/i&gt; #1" in text and "cpus=&lt;em&gt;all&lt;/em&gt;" in text
    )


def test_stored_runs_and_runs_in_campaign_cells(fake, tmp_path):
    assert fake("run", "--label", "stored").status == 0
    campaign = write_campaign_runs(tmp_path / "campaign", 6, repetitions=3, windows=30)
    text = report(fake, tmp_path, "last", *campaign)
    assert "A stored" in text and "D lab: load=idle #3" in text and "<th>repetition</th><td>2 of 3</td>" in text
    # Not every run is a campaign's: as compare groups them, each run is a group, a box of its own.
    spread = re.search(r'aria-label="lat.irq: spread across runs".*?</svg>', text).group()
    assert spread.count("<rect") == 6 and '<circle r="2"' not in spread


def test_runs_of_campaign_cells_are_grouped_by_cell(rtscope, tmp_path):
    text = report(rtscope, tmp_path, *write_campaign_runs(tmp_path / "campaign", 6, repetitions=3, windows=30))
    # Compare's groups: one per campaign cell, its runs named by the group's letter and their place in it.
    assert "A1 lab: load=idle #1" in text and "B3 lab: load=cpu #3" in text
    assert "<td>B</td><td>load=cpu</td><td>3</td>" in text  # the comparison's groups
    # One box per cell, its runs named; in a box of several runs, a dot for each run's own p99.
    assert "A load=idle (A1, A2, A3)" in text and "B load=cpu (B1, B2, B3)" in text
    spread = re.search(r'aria-label="lat.irq: spread across runs".*?</svg>', text).group()
    assert spread.count("<rect") == 2 and spread.count('<circle r="2"') == 6


def test_many_runs_are_spread_over_charts_of_distinct_colours(rtscope, tmp_path):
    runs = write_campaign_runs(tmp_path / "campaign", len(svg.PALETTE) + 2, windows=20)
    text = report(rtscope, tmp_path, *runs)
    histograms = re.findall(r'aria-label="lat.irq: histogram of runs ([^"]*)"', text)
    assert histograms == ["A1, A2, A3, A4, A5, B1, B2, B3", "B4, B5"]


def test_thread_metric_bars_relative_to_the_calibration_test(rtscope, tmp_path):
    paths = []
    for run_id, valid in (("00000000000000a1", True), ("00000000000000b2", False)):
        doc = builders.result_doc(run_id=run_id, benches={}, privileged=valid)
        doc["metrics"] = [
            builders.count_metric(metric_id, [1000, 1010, 990], baseline_ratio=ratio, valid=valid)
            for metric_id, ratio in (("tm.basic", 1.0), ("tm.coop", 0.5), ("tm.sync", 2.0))
        ]
        paths.append(builders.write(tmp_path / f"{run_id}.json", doc))
    text = report(rtscope, tmp_path, *paths)
    # Only the run with ratios gets a chart: a bar per test but the calibration test itself.
    charts = re.findall(r'<svg [^>]*aria-label="Thread-Metric relative to tm.basic, runs A".*?</svg>', text)
    assert len(charts) == 1 and charts[0].count("<rect") == 2 and len(PLOT.findall(text)) == 1
    assert "No bar: B tm.coop, B tm.sync (no ratio" in text


def section_rows(text: str, anchor: str) -> list[list[str]]:
    """The cells of each table row of section ``anchor`` (up to its first subsection), as plain text."""
    section = re.search(rf'<section id="{anchor}">(.*?)(?:</section>|<section)', text, re.DOTALL).group(1)
    return [
        [html.unescape(re.sub(r"<[^>]+>", "", cell)) for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row)]
        for row in re.findall(r"<tr>(.*?)</tr>", section)
    ]


def verdict_lines(text: str) -> list[str]:
    """The verdict's lines (its list items, as plain text), factor by factor."""
    section = text[text.index('<section id="verdict">') : text.index('<section id="', text.index('id="verdict"') + 1)]
    section = re.split(r"<section id=\"(?!verdict)", section)[0]
    return [html.unescape(re.sub(r"<[^>]+>", "", item)) for item in re.findall(r"<li>(.*?)</li>", section)]


def test_the_verdict_names_the_best_level_of_each_factor_its_margin_and_whether_it_is_real(rtscope, tmp_path):
    # Cells idle, cpu and memory given worst first: the best (idle) and the next best (cpu) are not the first.
    runs = write_campaign_runs(tmp_path / "campaign", 6, repetitions=2, windows=10)[::-1]
    text = report(rtscope, tmp_path, *runs)
    assert text.index('id="verdict"') < text.index('id="runs"')  # the page opens with it
    assert "Factors, the campaign&#x27;s axes: load (memory, cpu, idle). 3 cells, 2 runs each." in text
    lines = verdict_lines(text)
    assert lines[:2] == [
        "lat.wakeup p50: idle best, ahead of cpu: 22.3 µs → 14.8 µs, 1.50× lower (1.41–1.60), real",
        "lat.wakeup p99: idle best, ahead of cpu: 31.2 µs → 20.8 µs, 1.50× lower (1.41–1.60), real",
    ]
    # The comparison below it holds every figure, against A: each cell's two runs 2 % apart, the verdicts
    # by Welch's t over them, Holm's p-values over the table's 24 comparisons.
    assert [
        "lat.wakeup",
        "p50",
        "29.7 µs",
        "22.3 µs",
        "14.8 µs",
        "0.750×",
        "0.500×",
        "yes 0.750× (0.705–0.798) p=0.029 t",
        "yes 0.500× (0.470–0.532) p=0.010 t",
    ] in [[cell.split(" ±")[0] for cell in row] for row in section_rows(text, "comparison")]


def test_the_verdict_on_iterations_is_the_highest(rtscope, tmp_path):
    paths = []
    for run_id, sync in (("a1" * 8, 1000), ("b2" * 8, 3000)):
        doc = builders.result_doc(run_id=run_id, label=f"sync {sync}", benches={})
        doc["metrics"] = [
            builders.count_metric("tm.basic", [1000, 1010, 990], baseline_ratio=1.0),
            builders.count_metric("tm.sync", [sync, sync + 10, sync - 10], baseline_ratio=sync / 1000),
        ]
        paths.append(builders.write(tmp_path / f"{run_id}.json", doc))
    # One run each: not told, whatever the periods say (three against three: exact Mann–Whitney p = 0.1 at
    # best). A per-period metric is answered on its median period, the best the highest.
    assert verdict_lines(report(rtscope, tmp_path, *paths)) == [
        (
            "tm.basic p50: not told (sync 1000 1,000, sync 3000 1,000: these runs do not differ, p=1.000 MW, one run "
            "each; one run per cell: repeat each to tell)"
        ),
        (
            "tm.sync p50: not told (sync 3000 3,000, sync 1000 1,000: these runs do not differ, p=0.100 MW, one run "
            "each; one run per cell: repeat each to tell)"
        ),
    ]


def test_labels_and_units_of_format_4(rtscope, tmp_path):
    paths = [
        builders.write(tmp_path / f"{n}.json", format_4_doc(run_id * 16, percent=percent))
        for n, (run_id, percent) in enumerate((("a", 5.0), ("b", 2.5)))
    ]
    text = report(rtscope, tmp_path, *paths)
    # The two runs differ in nothing they record: each run is a level.
    assert "run (aaaaaaaa or bbbbbbbb)" in text
    assert (
        "wave.period_error{model=python} p50: not told (bbbbbbbb 2.50 %, aaaaaaaa 5.00 %: these runs differ, p<0.001 "
        "CI, one run each; one run per cell: repeat each to tell)"
    ) in verdict_lines(text)
    # Each plot's value axis in the metric's unit.
    for metric_id, label in (
        ("wave.period_error{model=python}", "percentage, % (log scale)"),
        ("lat.wakeup", "time, µs (log scale)"),
    ):
        for plot in ("histogram of runs A, B", "spread across runs"):
            svg_text = re.search(rf'aria-label="{re.escape(metric_id)}: {plot}".*?</svg>', text).group()
            assert f">{label}</text>" in svg_text


def test_no_verdict_for_one_run_nor_for_repetitions_of_one_cell_but_one_beyond_compare_s_table(rtscope, tmp_path):
    assert 'id="verdict"' not in report(rtscope, tmp_path, GOLDEN[0])
    text = report(rtscope, tmp_path, *write_campaign_runs(tmp_path / "campaign", 2, repetitions=2, windows=5))
    assert "No factor: the campaign&#x27;s axes have one level each among these runs, which repeat one cell." in text
    assert 'id="comparison"' not in text and "Run B lab: load=idle #2" in text
    many = [
        builders.write(
            tmp_path / f"{n}.json", builders.result_doc(run_id=f"{n:02x}" * 8, benches={"ctxsw.sem": 3000.0 + 100 * n})
        )
        for n in range(len(LETTERS) + 1)
    ]
    # More groups than compare's table has letters: the verdict answers them all, the table is left out.
    text = report(rtscope, tmp_path, *many)
    assert 'id="comparison"' not in text and 'id="run-AA"' in text
    assert verdict_lines(text)[0].startswith(
        "ctxsw.sem p50: not told (00000000 2.98 µs, 01010101 3.08 µs: these runs differ, p<0.001 CI, one run each;"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["report", "-o", "x.html"], "report needs runs, or --monitor NAME"),
        (["report", "last"], "the following arguments are required: -o/--output"),
        (["report", "missing.json", "-o", "{tmp}/r.html"], "missing.json: no such file"),
        (["report", "{golden}", "-o", "/nonexistent/dir/r.html"], "cannot write /nonexistent/dir/r.html"),
        (["report", "{golden}", "-o", "{tmp}"], "it is a directory"),
        (["report", "last", "-o", "{tmp}/r.html"], "no results database at"),
    ],
)
def test_bad_input_is_one_line(rtscope, tmp_path, args, message):
    filled = [arg.format(tmp=tmp_path, golden=GOLDEN[0]) for arg in args]
    assert_one_line_error(rtscope(*filled), message)
    assert not (tmp_path / "r.html").exists()


def test_a_campaign_without_runs_is_an_error(rtscope, tmp_path, monkeypatch):
    monkeypatch.setattr(Context, "load_runs", lambda self, refs: [])
    assert_one_line_error(
        rtscope("report", "campaign:empty", "-o", tmp_path / "r.html"), "no runs to report: campaign:empty holds none"
    )
    assert list(tmp_path.iterdir()) == []


def test_an_error_leaves_the_previous_report_whole(rtscope, tmp_path):
    output = tmp_path / "report.html"
    output.write_text("the previous report\n")
    outcome = rtscope("report", GOLDEN[0], REPO / "tests" / "fixtures" / "not-json.json", "-o", output)
    assert_one_line_error(outcome, "not-json.json is not valid JSON")
    assert output.read_text() == "the previous report\n"
    assert [path.name for path in tmp_path.iterdir()] == ["report.html"]


def test_raw_times_tables(rtscope, tmp_path):
    adjusted = report(rtscope, tmp_path, GOLDEN[0])
    raw = rtscope("report", GOLDEN[0], "--raw-times", "-o", tmp_path / "raw.html")
    assert raw.status == 0, raw.err
    assert "Metrics, overhead-adjusted" in adjusted
    assert "Metrics, as measured" in (tmp_path / "raw.html").read_text()


@pytest.mark.parametrize(
    ("axis", "ticks"),
    [
        (svg.Axis(2, 30_000, label="", tick_text=svg.tick_number, log=True), ["10", "100", "1,000", "10,000"]),
        (svg.Axis(3, 25, label="", tick_text=svg.tick_number, log=True), ["5", "10", "20"]),
        (svg.Axis(12, 35, label="", tick_text=svg.tick_number, log=True), ["15", "20", "25", "30", "35"]),
        (svg.Axis(0, 0.3, label="", tick_text=svg.tick_number), ["0", "0.1", "0.2", "0.3"]),
        (svg.Axis(5, 5, label="", tick_text=svg.tick_number), ["4", "4.5", "5", "5.5", "6"]),
    ],
)
def test_axis_ticks(axis, ticks):
    assert [text for _, text in axis.ticks()] == ticks


def test_a_log_axis_places_values_and_keeps_them_inside():
    axis = svg.Axis(1, 1000, label="", tick_text=svg.tick_number, log=True)
    pixel = axis.scale(0, 300)
    assert [pixel(value) for value in (1, 10, 1000, 0.001, 1e9)] == pytest.approx([0, 100, 300, 0, 300])


@slow_fixture()
def chromium(tmp_path):
    """Headless Chromium driven by selenium, cut off from the network it would otherwise keep calling."""
    if not CHROMIUM.exists() or not CHROMEDRIVER.exists():
        pytest.skip(
            "no /usr/bin/chromium and /usr/bin/chromedriver (setup.sh installs Debian's chromium, chromium-driver)"
        )
    webdriver = pytest.importorskip("selenium.webdriver")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,2400",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def test_the_page_in_a_browser(rtscope, tmp_path, page_inputs, chromium):
    text = report(rtscope, tmp_path, *page_inputs)
    chromium.get((tmp_path / "report.html").as_uri())

    errors = [entry for entry in chromium.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []
    plots = chromium.execute_script("""
        return Array.from(document.querySelectorAll('svg.plot'), plot => {
            const box = plot.getBoundingClientRect();
            return {name: plot.getAttribute('aria-label'), width: box.width, height: box.height,
                    marks: plot.querySelectorAll('path:not(.frame), rect, circle').length};
        });""")
    assert len(plots) == len(PLOT.findall(text)) > 20
    assert [plot for plot in plots if not (plot["width"] > 0 and plot["height"] > 0 and plot["marks"] > 0)] == []
    body = chromium.find_element("tag name", "body").text
    assert f"Run {LETTERS[len(GOLDEN)]} {HOSTILE}" in body and "alert(3)" in body
    assert chromium.execute_script("return document.querySelectorAll('script, img').length") == 0

    screenshot = tmp_path / "report.png"
    assert chromium.save_screenshot(str(screenshot))
    assert screenshot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and screenshot.stat().st_size > 10_000
    if os.environ.get("RTSCOPE_SCREENSHOT_DIR"):
        shutil.copy(screenshot, Path(os.environ["RTSCOPE_SCREENSHOT_DIR"]) / "report.png")
