"""The long-term picture (rtscope.analysis.longterm, render/sections/longterm.py): a board's histogram
cumulated over its windows, the worst of each window over time with kernel releases and change points,
the per-board table; on `rtscope trend -o page.html` and `rtscope report --monitor NAME`."""

import hashlib
import html.parser
import re
import shutil
from collections import Counter
from datetime import datetime, timedelta

import pytest

from rtscope.analysis import longterm
from rtscope.model import result
from rtscope.render import text
from rtscope.render.fmt import Style
from rtscope.render.sections import longterm as longterm_section
from rtscope.store.database import Store
from support import builders
from test_cli_errors import assert_one_line_error
from test_report import chromium  # noqa: F401 (a fixture)

START = datetime(2026, 11, 1)
WINDOW = timedelta(minutes=5)
PLOT = re.compile(r'<svg class="plot"')


def window(
    n: int,
    *,
    board: str = "rpi4",
    step: str = "idle",
    kernel: str = "6.1.0-rt",
    typical: int = 20_000,
    worst: int | None = None,
    windows: int = 1,
    status: str = "complete",
    valid: bool = True,
    name: str = "lab",
    monitor_id: str = "a000000000000001",
) -> dict:
    """Window ``n`` + 1 on the board (``n`` its place in time) of lat.wakeup: a body of samples in
    three buckets about ``typical`` ns that shift with ``n``, and one sample at ``worst``."""
    doc = builders.monitor_window(
        hashlib.sha256(f"{monitor_id} {board} {n}".encode()).hexdigest()[:16],
        board,
        n + 1,
        step=step,
        status=status,
        name=name,
        monitor_id=monitor_id,
        windows=windows,
    )
    started = START + n * WINDOW
    doc["run"]["started"] = started.isoformat() + ".000Z"
    doc["run"]["finished"] = (started + WINDOW).isoformat() + ".000Z"
    doc["system"]["kernel_release"] = kernel
    doc["metrics"] = [m for m in doc["metrics"] if m["id"] == "lat.wakeup"]
    doc["benches"] = [b for b in doc["benches"] if b["id"] == "lat.wakeup"]
    worst = worst if worst is not None else typical * 3 + 64 * (n % 7)
    body = typical + 128 * (n % 3)
    buckets = [[body - 128, 128, 100 + n % 5], [body, 128, 800], [body + 128, 128, 99], [worst, 64, 1]]
    metric = doc["metrics"][0]
    metric["valid"] = valid
    count = sum(b[2] for b in buckets)
    figures = {
        "count": count,
        "min": body - 128,
        "max": worst,
        "mean": body,
        "stddev": 100.0,
        "p50": body,
        "p90": body + 100,
        "p99": body + 200,
        "p999": worst,
        "p9999": worst,
    }
    metric.update(builders.as_measured(figures, buckets))
    return doc


def picture(docs, *, explained=True):
    by_id = {doc["run"]["id"]: doc for doc in docs}
    collector = longterm.collect(docs, ["lat.wakeup"])
    return collector.picture("lat.wakeup", by_id.__getitem__ if explained else None)


def switch_history(windows_each=40, *, factor=2):
    """``windows_each`` windows on the PREEMPT_RT kernel, then as many on the stock one, whose body and
    worst case are ``factor`` times longer."""
    docs = [window(n) for n in range(windows_each)]
    docs += [
        window(n, kernel="6.1.0", typical=20_000 * factor, worst=(60_000 + 64 * (n % 7)) * factor)
        for n in range(windows_each, 2 * windows_each)
    ]
    return docs


def test_the_cumulated_histogram_is_the_exact_sum_of_the_windows_buckets():
    docs = [window(n, worst=50_000 + 1000 * n) for n in range(30)]
    made = picture(docs)
    (series,) = made.series
    expected = Counter()
    for doc in docs:
        for lower, width, count in doc["metrics"][0]["histogram"]["buckets"]:
            expected[(float(lower), float(width))] += count
    assert dict(zip(zip(series.histogram.lowest, series.histogram.widths, strict=True), series.histogram.counts,
                    strict=True)) == expected  # fmt: skip
    assert series.histogram.samples == series.samples == sum(d["metrics"][0]["stats"]["count"] for d in docs)
    # Its maximum is the worst window's largest sample, and that window is the one named.
    assert series.histogram.worst == series.worst.worst == 50_000 + 1000 * 29
    assert series.worst.run_id == docs[-1]["run"]["id"]


def test_summing_in_batches_gives_the_same_histogram(monkeypatch):
    docs = [window(n) for n in range(50)]
    whole = picture(docs).series[0].histogram
    monkeypatch.setattr(longterm, "_BATCH", 7)
    assert picture(docs).series[0].histogram == whole


def test_p99_99_is_read_from_the_cumulated_histogram_as_the_probe_reads_one():
    cumulated = longterm.Cumulated((1000.0, 2000.0, 5000.0), (10.0, 10.0, 1.0), (9_990, 9, 1), 1.0, 0, 1000.0, 5000.0)
    # 10,000 samples: rank 10,000 × 0.9999 = 9,999 lies in the second bucket, read at its middle.
    assert cumulated.quantile(0.9999) == 2004.5
    assert cumulated.quantile(0.5) == 1004.5
    assert cumulated.quantile(1.0) == 5000.0
    beyond = longterm.Cumulated((1000.0,), (10.0,), (10,), 1.0, 5, 1000.0, 9000.0)
    assert beyond.quantile(0.9999) == 9000.0  # a rank beyond the buckets is the largest sample


def test_the_kernel_release_is_marked_at_the_switch_and_the_change_found_there():
    docs = switch_history()
    made = picture(docs)
    (board,) = made.boards
    assert board.first_kernel == "6.1.0-rt"
    assert [(r.previous, r.kernel, r.run_id) for r in board.releases] == [("6.1.0-rt", "6.1.0", docs[40]["run"]["id"])]
    (series,) = board.series
    assert {change.first_after.run_id for change in series.changes} == {docs[40]["run"]["id"]}
    assert {change.stat for change in series.changes} == {"p50", "p99", "max"}
    assert all(change.changed[0] == "kernel 6.1.0-rt → 6.1.0" for change in series.changes)
    assert series.last_change is not None and series.last_change.step.ratio == pytest.approx(2, rel=0.05)


def test_the_table_gives_windows_samples_worst_p99_99_and_the_last_change():
    docs = switch_history()
    made = picture(docs)
    lines = text.render([longterm_section.build(made)], Style(False))
    row = next(line for line in lines if line.strip().startswith("rpi4"))
    series = made.series[0]
    assert series.measured == 80 and series.samples == sum(d["metrics"][0]["stats"]["count"] for d in docs)
    assert series.worst.worst == (60_000 + 64 * 6) * 2
    # Of 80 × 1,000 samples p99.99 is rank 79,992: among the stock kernel's worst samples, in the bucket
    # [worst, 64) of the eighth worst window.
    ranked = sorted(d["metrics"][0]["stats"]["max"] for d in docs)
    assert series.tail == ranked[-9] + 31.5
    assert f"rpi4 · idle       80   {series.samples:,}" in row and "121 µs" in row
    assert "kernel 6.1.0-rt → 6.1.0" in row and "worse" in row


def test_schedule_steps_are_series_of_their_own_and_boards_apart():
    docs = [
        window(n, board=board, step="idle" if n % 2 else "cpu", typical=20_000 if n % 2 else 30_000)
        for board in ("rpi4", "imx8")
        for n in range(20)
    ]
    made = picture(docs)
    assert [board.name for board in made.boards] == ["rpi4", "imx8"] or [b.name for b in made.boards] == [
        "imx8",
        "rpi4",
    ]
    for board in made.boards:
        assert [s.step for s in board.series] == ["cpu", "idle"]
        assert all(len(s.windows) == 10 for s in board.series)
        assert not board.releases
        cpu, idle = board.series
        assert cpu.histogram.quantile(0.5) > idle.histogram.quantile(0.5)


def test_interrupted_and_invalid_windows_are_not_counted_and_merged_ones_count_what_they_hold():
    docs = [window(n, windows=12) for n in range(5)]
    docs += [window(5, status="interrupted"), window(6, valid=False)]
    made = picture(docs)
    (series,) = made.series
    assert (made.interrupted, made.invalid) == (1, 1)
    assert len(series.windows) == 5 and series.measured == 60
    lines = text.render([longterm_section.build(made)], Style(False))
    assert any("60 (5 stored)" in line for line in lines)
    assert any("1 interrupted run (a monitor measures such a window again) not counted; 1 run with lat.wakeup invalid" in line
               for line in lines)  # fmt: skip


def test_boards_of_two_monitors_are_named_by_their_monitor():
    docs = [window(n) for n in range(3)] + [window(n, name="lab2", monitor_id="b000000000000002") for n in range(3)]
    assert [board.name for board in picture(docs).boards] == ["lab/rpi4", "lab2/rpi4"]


def test_runs_that_are_not_a_monitor_s_are_grouped_by_target_then_host():
    local = builders.result_doc(run_id="1" * 16, hostname="desk")
    remote = builders.result_doc(run_id="2" * 16, hostname="board")
    remote["target"] = {"name": "ssh://root@board"}
    assert [board.name for board in picture([local, remote]).boards] == ["desk", "ssh://root@board"]


class _Balanced(html.parser.HTMLParser):
    """Every element closed, in order (void elements and SVG's self-closed ones aside)."""

    VOID = frozenset({"meta", "br", "img", "input", "link", "hr"})

    def __init__(self):
        super().__init__()
        self.open: list[str] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag):
        if not self.open or self.open[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.open[-1:] or 'nothing'}")
        else:
            self.open.pop()


def assert_valid_page(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>") and page.endswith("</html>\n")
    checker = _Balanced()
    checker.feed(page)
    assert not checker.errors and not checker.open
    assert "<script" not in page


@pytest.fixture(scope="module")
def stored_once(tmp_path_factory):
    """A monitor's 80 windows of rpi4 (the kernel switches half-way) and 20 of imx8 alternating idle/cpu,
    stored once for the tests of this file (each gets a copy)."""
    path = tmp_path_factory.mktemp("longterm") / "results.sqlite"
    docs = switch_history() + [
        window(n, board="imx8", step="idle" if n % 2 else "cpu", typical=25_000 if n % 2 else 30_000) for n in range(20)
    ]
    with Store.open(path, create=True) as store:
        for doc in docs:
            store.add(result.from_doc(doc, "test"))
    return path


@pytest.fixture
def stored(stored_once, db_path):
    db_path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(stored_once, db_path)


def test_the_trend_page_shows_the_picture_per_board(rtscope, stored, tmp_path):
    page = tmp_path / "trend.html"
    outcome = rtscope("trend", "lat.wakeup", "--stat", "max", "-o", page)
    assert outcome.status == 0, outcome.err
    written = page.read_text(encoding="utf-8")
    assert_valid_page(written)
    # The trend's chart, then per board the cumulated histogram and the worst over time.
    assert len(PLOT.findall(written)) == 1 + 2 * 2
    assert "Long-term picture of lat.wakeup" in written
    assert "rpi4: lat.wakeup cumulated over 80 windows" in written
    assert "imx8: lat.wakeup cumulated over 20 windows" in written
    assert "kernel 6.1.0-rt → 6.1.0 from window" in written  # the release's mark
    assert written.count("max 121 µs") == 1  # the rpi4 histogram's maximum, marked
    # One dot per window in the over-time charts (80 + 20), and the trend's one per run.
    assert written.count("<circle") == 100 + 100


def test_the_text_trend_reads_no_document_for_the_picture(rtscope, stored, monkeypatch):
    monkeypatch.setattr(Store, "each_document", lambda *_: pytest.fail("text needs no histogram"))
    read: list[str] = []
    documents = Store.documents
    monkeypatch.setattr(Store, "documents", lambda store, run_ids: (read.extend(run_ids), documents(store, run_ids))[1])
    outcome = rtscope("trend", "lat.wakeup")
    assert outcome.status == 0, outcome.err and "Long-term" not in outcome.out
    # Of the 100 windows, a few: the newest (the metric's unit) and those around each change (what changed).
    assert len(read) < 20, read


def test_many_windows_are_drawn_in_steps():
    docs = [window(n) for n in range(longterm_section.MOST_STEPS + 50)]
    section = longterm_section.build(picture(docs, explained=False))
    figure = section.subsections[0].parts[1]
    svg = figure.chart.svg()
    assert "<circle" not in svg and "each the worst of the windows it spans" in " ".join(figure.notes)


def test_the_monitor_report(rtscope, stored, tmp_path):
    page = tmp_path / "monitor.html"
    outcome = rtscope("report", "--monitor", "lab", "-o", page)
    assert outcome.status == 0, outcome.err
    assert outcome.out == f"wrote {page}: monitor lab, 2 boards, 100 windows\n"
    written = page.read_text(encoding="utf-8")
    assert_valid_page(written)
    assert "Long-term picture of lat.wakeup" in written and len(PLOT.findall(written)) == 2 * 2
    assert "Latest window of rpi4" in written and "Latest window of imx8" in written


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["report", "--monitor", "nosuch", "-o", "x.html"], "no stored campaign is named"),
        (["report", "--monitor", "lab", "last", "-o", "x.html"], "report takes runs or --monitor NAME, not both"),
        (["report", "-o", "x.html"], "report needs runs, or --monitor NAME"),
        (["report", "--monitor", "lab", "--since", "2030-01-01", "-o", "x.html"], "monitor lab has no window"),
        (["report", "last", "--since", "2030-01-01", "-o", "x.html"], "--since chooses a monitor's windows"),
    ],
)
def test_bad_input_is_one_line(rtscope, stored, args, message):
    assert_one_line_error(rtscope(*args), message)


def test_a_report_of_runs_that_are_windows_has_their_picture(rtscope, tmp_path):
    files = [builders.write(tmp_path / f"w{n}.json", doc) for n, doc in enumerate(switch_history(6))]
    page = tmp_path / "report.html"
    outcome = rtscope("report", *files, "-o", page)
    assert outcome.status == 0, outcome.err
    written = page.read_text(encoding="utf-8")
    assert_valid_page(written)
    assert 'id="longterm-lat.wakeup"' in written and "rpi4: lat.wakeup cumulated over 12 windows" in written
    assert "kernel 6.1.0-rt → 6.1.0 from window" in written


def test_a_campaign_is_not_a_monitor(rtscope, db_path):
    with Store.open(db_path, create=True) as store:
        metric = {**builders.metric("lat.wakeup", 15000.0), "labels": {}}
        doc = builders.campaign_run(1, {"load": "cpu"}, [metric], name="study")
        store.add(result.from_doc(doc, "test"))
    assert_one_line_error(
        rtscope("report", "--monitor", "study", "-o", db_path.parent / "x.html"),
        "study is a campaign, not a monitor: rtscope report campaign:study",
    )


def test_the_monitor_page_in_a_browser(rtscope, stored, tmp_path, chromium):  # noqa: F811 (test_report.py's fixture)
    page = tmp_path / "monitor.html"
    assert rtscope("report", "--monitor", "lab", "-o", page).status == 0
    chromium.get(page.as_uri())
    assert [entry for entry in chromium.get_log("browser") if entry["level"] == "SEVERE"] == []
    plots = chromium.execute_script("""
        return Array.from(document.querySelectorAll('svg.plot'), plot => {
            const box = plot.getBoundingClientRect();
            return {width: box.width, height: box.height, dashed: plot.querySelectorAll('line[stroke-dasharray]').length,
                    marks: plot.querySelectorAll('path:not(.frame), circle').length};
        });""")
    # Per board its histogram (a maximum marked per step) and its worst over time (rpi4's kernel switch and
    # change point marked), each drawn with a size.
    assert len(plots) == 4 and all(p["width"] > 0 and p["height"] > 0 and p["marks"] > 0 for p in plots)
    assert sorted(p["dashed"] for p in plots) == [0, 1, 2, 2]


def test_windows_merged_by_retention_give_the_raw_windows_picture():
    from rtscope.analysis import merge

    docs = [window(n) for n in range(24)]
    merged = [merge.merge(docs[:12], "a" * 16), merge.merge(docs[12:], "b" * 16)]
    raw, kept = picture(docs).series[0], picture(merged).series[0]
    assert kept.histogram.buckets() == raw.histogram.buckets()
    assert (kept.measured, kept.samples, kept.worst.worst, kept.tail) == (24, raw.samples, raw.worst.worst, raw.tail)
    assert len(kept.windows) == 2
