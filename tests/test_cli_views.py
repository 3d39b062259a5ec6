"""rtscope list, runs, show and compare on stored runs and result files."""

import copy
import csv
import io
import json
import re
from pathlib import Path

import pytest

from rtscope.render import fmt, markdown, svg, text
from rtscope.render.document import Cell, Figure, Items, Paragraph, Section, heading, table
from support import builders
from test_qemu_board import SPEC as BOARD


def store_runs(fake, *labels):
    """Store one fake run per label; return their ids, oldest first."""
    for label in labels:
        assert fake("run", "--label", label).status == 0
    return [line.split()[0] for line in reversed(fake("runs").out.splitlines()[1:])]


def test_list_shows_benches_metrics_and_params(fake):
    outcome = fake("list")
    assert outcome.status == 0
    assert "ctxsw.sem" in outcome.out and "metrics: ctxsw.sem" in outcome.out
    assert "param" in outcome.out and "cpu" in outcome.out


@pytest.mark.usefixtures("board_tools")
def test_list_on_a_board_lists_its_images_catalogue_and_says_why_it_runs_no_loads(rtscope):
    outcome = rtscope("--target", BOARD, "list")
    assert outcome.status == 0, outcome.err
    assert "tm.basic" in outcome.out and "threadmetric" in outcome.out
    loads = outcome.out[outcome.out.index("Loads") :].splitlines()
    assert all(line.endswith("not available there") for line in loads if line.split()[0] in ("cpu", "net", "sched"))
    assert loads[-1] == (
        f"  {BOARD} cannot run loads: it runs only the probe's image, with no shell or processes beside it"
    )


def test_runs_lists_newest_first_with_short_ids(fake):
    first, _ = store_runs(fake, "one", "two")
    lines = fake("runs").out.splitlines()
    assert lines[0].split() == [
        "id",
        "started",
        "label",
        "target",
        "host",
        "kernel",
        "benches",
        "status",
        "invalid",
        "warnings",
        "by",
    ]
    assert "two" in lines[1] and "one" in lines[2]
    assert lines[1].split()[4].startswith("fake:")  # id, date, time, label, target
    assert len(first) == 8
    assert len(fake("runs", "--limit", "1").out.splitlines()) == 2


def test_runs_of_an_empty_database(fake, rtscope):
    store_runs(fake)  # nothing stored: the database does not exist yet
    assert "no results database" in rtscope("runs").err
    assert fake("run", "ctxsw.sem", "--label", "x").status == 0


def test_show_by_prefix_and_last(fake):
    (run_id,) = store_runs(fake, "only")
    by_prefix = fake("show", run_id[:4])
    assert by_prefix.status == 0 and by_prefix.out == fake("show", "last").out
    for section in ("System", "Timing", "Configuration", "Benches", "Metrics"):
        assert section in by_prefix.out
    assert "RT throttling   95 % (950000/1000000 µs)" in by_prefix.out
    assert "rdtscp: 2.6 cycles/ns" in by_prefix.out


def test_show_a_file_with_warnings_differences_and_an_invalid_metric(rtscope, tmp_path, db_path):
    doc = builders.result_doc(privileged=False, invalid=("ctxsw.sem",))
    path = builders.write(tmp_path / "unprivileged.json", doc)
    outcome = rtscope("show", path)
    assert outcome.status == 0
    assert "! mlockall not granted: Operation not permitted" in outcome.out
    policy = next(line for line in outcome.out.splitlines() if line.strip().startswith("policy"))
    assert policy.split() == ["policy", "fifo", "other", "!", "not", "as", "requested"]
    assert "invalid: the partner thread did not run on the same CPU" in outcome.out
    assert rtscope("show", path, "--json").out == path.read_text()
    assert not db_path.exists()  # a file is shown, not stored


def test_unknown_and_ambiguous_run_ids(fake):
    store_runs(fake, "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r")
    assert "no stored run has an id starting with 0000000" in fake("show", "0000000").err
    ids = [line.split()[0] for line in fake("runs").out.splitlines()[1:]]
    shared = next(i[0] for i in ids if sum(other[0] == i[0] for other in ids) > 1)
    outcome = fake("show", shared)
    assert outcome.status == 2 and f"run id prefix {shared} is ambiguous" in outcome.err


def test_show_says_the_image_sizes_the_probe_recorded(rtscope, tmp_path):
    doc = json.loads((Path(__file__).parent / "golden" / "result-v4-freertos.json").read_text())
    doc["run"]["image"] = {"text": 123456, "data": 3752, "bss": None}
    outcome = rtscope("show", builders.write(tmp_path / "sized.json", doc))
    image = next(line for line in outcome.out.splitlines() if line.strip().startswith("image"))
    assert outcome.status == 0 and image.split(None, 1)[1].strip() == "text 123,456 B  data 3,752 B  bss ?"
    del doc["run"]["image"]  # before 2026-11-26: no line
    assert "image" not in rtscope("show", builders.write(tmp_path / "older.json", doc)).out


def test_show_says_what_a_seed_varied(rtscope, tmp_path):
    doc = json.loads((Path(__file__).parent / "golden" / "result-v4-freertos.json").read_text())
    doc["run"]["seed"] = 1234
    outcome = rtscope("show", builders.write(tmp_path / "seeded.json", doc))
    varied = next(line for line in outcome.out.splitlines() if line.strip().startswith("varied"))
    assert outcome.status == 0
    assert (
        varied.split(None, 1)[1]
        == "the phase of each bench's start against the tick, the timers and any loads (seed 1234)"
    )
    del doc["run"]["seed"]  # none given: no line
    assert "varied" not in rtscope("show", builders.write(tmp_path / "unseeded.json", doc)).out


def test_compare_shows_values_and_ratios(fake, tmp_path):
    first, second = store_runs(fake, "before", "after")
    outcome = fake("compare", first, second)
    assert outcome.status == 0, outcome.err
    lines = outcome.out.splitlines()
    assert any(line.split()[:3] == ["A", first, "before"] for line in lines)
    header = next(line for line in lines if line.startswith("metric"))
    assert header.split() == ["metric", "stat", "A", "B", "B/A", "B≠A?"]
    # The same figures in both runs: the same medians, not a difference.
    assert any(line.split()[:2] == ["ctxsw.sem", "p50"] and line.endswith("1.00×  no p=1.000 CI") for line in lines)


def test_compare_marks_missing_and_invalid_metrics_and_warns_of_differences(fake, tmp_path):
    (stored,) = store_runs(fake, "privileged")
    other = builders.write(
        tmp_path / "other.json",
        builders.result_doc(
            run_id="1111111111111111", privileged=False, benches={"ctxsw.sem": 6400.0}, invalid=("ctxsw.sem",)
        ),
    )
    outcome = fake("compare", stored, other, "--stat", "p50,p99.9")
    assert "! the runs differ in granted policy: A fifo, B other" in outcome.out
    rows = [line for line in outcome.out.splitlines() if "p50" in line or "p99.9" in line]
    assert rows[0].split() == ["ctxsw.sem", "p50", "3.18", "µs", "6.38", "µs", "*", "2.01×", "—"]
    assert rows[2].split() == ["lat.wakeup", "p50", "15.5", "µs", "—", "—", "—"]
    assert "* B ctxsw.sem is invalid" in outcome.out


def test_compare_says_what_differs_between_the_systems(fake, tmp_path):
    stock = builders.write(tmp_path / "stock.json", builders.result_doc())
    rt_doc = builders.result_doc(run_id="3333333333333333")
    rt_doc["system"].update(
        kernel_release="6.1.0-rt-test", preempt_model="full", realtime_kernel=True, rt_runtime_us=-1
    )
    rt = builders.write(tmp_path / "rt.json", rt_doc)
    outcome = fake("compare", stock, rt)
    assert "the systems differ in kernel: A 6.1.0-test, B 6.1.0-rt-test" in outcome.out
    assert f"the systems differ in preemption: A {stock_preemption(stock)}, B full (PREEMPT_RT)" in outcome.out
    assert "the systems differ in RT throttling: A 95 %, B off" in outcome.out
    assert "differ in clocksource" not in outcome.out


def stock_preemption(path):
    return json.loads(path.read_text())["system"]["preempt_model"]


def test_compare_needs_two_runs(fake):
    store_runs(fake, "alone")
    outcome = fake("compare", "last")
    assert outcome.status == 2 and "compare needs two or more runs or groups, not 1" in outcome.err


def test_compare_of_cycle_timed_runs_is_the_operation_table(tmp_path, rtscope):
    linux = builders.write(tmp_path / "linux.json", builders.result_doc(benches={"mutex.lock": 3000.0}))
    rtos = builders.write(
        tmp_path / "rtos.json", builders.result_doc(run_id="2222222222222222", benches={"mutex.lock": 100.0})
    )
    outcome = rtscope("compare", rtos, linux)
    assert outcome.status == 0, outcome.err
    lines = outcome.out.splitlines()
    assert next(line for line in lines if line.startswith("operation")).split() == [
        "operation",
        "stat",
        "unit",
        "A",
        "B",
        "B/A",
        "B≠A?",
    ]
    # mean = 1.05 × typical × 2.6 cycles/ns, less the 20 ns overhead in cycles (52): 221 and 8,138.
    row = next(line for line in lines if line.startswith("mutex.lock")).split()
    assert row == ["mutex.lock", "mean", "cycles", "221", "8,138", "36.8×", "runs", "differ", "p<0.001", "z"]


def test_the_operation_table_falls_back_to_time_without_cycles(fake):
    first, second = store_runs(fake, "before", "after")
    outcome = fake("compare", first, second, "--ops", "--stat", "mean,p99")
    rows = [line.split() for line in outcome.out.splitlines() if line.startswith(("ctxsw.sem", "lat.wakeup"))]
    assert rows[0][:4] == ["ctxsw.sem", "mean", "cycles", "8,684"]
    assert rows[1][:3] == ["lat.wakeup", "mean", "time"]


def _threadmetric_doc(run_id, *, basic, sync, period_s=30.0, valid=True):
    doc = builders.result_doc(run_id=run_id, benches={"ctxsw.sem": 3200.0})
    doc["benches"] += [
        {
            "id": bench,
            "params": {"period": period_s, "periods": 3},
            "status": "ok",
            "elapsed_s": 3 * period_s,
            "error": None,
        }
        for bench in ("tm.basic", "tm.sync")
    ]
    doc["metrics"] += [
        builders.count_metric("tm.basic", basic, period_s=period_s, baseline_ratio=1.0, valid=valid),
        builders.count_metric(
            "tm.sync", sync, period_s=period_s, baseline_ratio=sorted(sync)[1] / sorted(basic)[1], valid=valid
        ),
    ]
    return doc


def test_show_puts_counts_in_a_throughput_table(tmp_path, rtscope):
    path = builders.write(
        tmp_path / "tm.json",
        _threadmetric_doc(
            "3333333333333333", basic=[1_000_000, 1_100_000, 900_000], sync=[5_000_000, 5_000_001, 4_900_000]
        ),
    )
    outcome = rtscope("show", path)
    assert outcome.status == 0, outcome.err
    assert "Throughput, iterations per reporting period" in outcome.out
    throughput = outcome.out.split("Throughput")[1]
    row = next(line for line in throughput.splitlines() if line.strip().startswith("tm.sync")).split()
    assert row == ["tm.sync", "3", "30.0", "s", "5,000,000", "4,900,000", "5,000,001", "5.00×", "tm.basic", "valid"]
    # The time metrics keep their own table.
    assert any(line.strip().startswith("ctxsw.sem") for line in outcome.out.splitlines())


def test_compare_shows_counts_by_median_and_relative_to_the_calibration(tmp_path, rtscope):
    a = builders.write(
        tmp_path / "a.json", _threadmetric_doc("4444444444444444", basic=[1_000_000] * 3, sync=[5_000_000] * 3)
    )
    b = builders.write(
        tmp_path / "b.json",
        _threadmetric_doc("5555555555555555", basic=[2_000_000] * 3, sync=[20_000_000] * 3, period_s=10.0),
    )
    outcome = rtscope("compare", a, b)
    assert outcome.status == 0, outcome.err
    lines = outcome.out.splitlines()
    assert "! the runs differ in reporting period, and counts are per period: A 30.0 s, B 10.0 s" in lines
    at = next(i for i, line in enumerate(lines) if line.startswith("tm.sync"))
    # Three periods against three: never significant, however far apart (exact Mann–Whitney p = 0.1).
    # One run each, three periods against three: no split of them is rarer than p = 0.1.
    assert lines[at].split() == ["tm.sync", "p50", "5,000,000", "20,000,000", "4.00×", "no", "p=0.100", "MW"]
    assert lines[at + 1].split() == ["×", "tm.basic", "5.00×", "10.0×", "2.00×"]


def test_an_invalid_count_metric_has_no_ratio_to_show(tmp_path, rtscope):
    path = builders.write(
        tmp_path / "tm.json", _threadmetric_doc("6666666666666666", basic=[1, 2, 3], sync=[4, 5, 6], valid=False)
    )
    outcome = rtscope("show", path)
    throughput = outcome.out.split("Throughput")[1]
    row = next(line for line in throughput.splitlines() if line.strip().startswith("tm.sync"))
    assert "—" in row and "invalid: Thread-Metric needs strict priorities on one CPU" in row


def _labelled_files(tmp_path, typical_ns: dict[str, list[float]]):
    """One result file per (label, typical ctxsw.sem time), timed without a cycle counter (so that
    compare shows its main table, not the operation table); run ids follow the order given."""
    paths = []
    for label, typicals in typical_ns.items():
        for typical in typicals:
            number = len(paths) + 1
            doc = builders.result_doc(run_id=f"{number:016x}", label=label, benches={"ctxsw.sem": typical})
            for metric in doc["metrics"]:
                metric["cycles"] = None
            paths.append(builders.write(tmp_path / f"{number}.json", doc))
    return paths


def test_compare_groups_repetitions_by_label_with_their_spread(tmp_path, rtscope):
    paths = _labelled_files(tmp_path, {"stock": [3000.0, 3100.0, 3200.0], "rt": [6000.0, 6100.0, 6200.0]})
    outcome = rtscope("compare", *paths, "--by", "label", "--stat", "p50")
    assert outcome.status == 0, outcome.err
    lines = outcome.out.splitlines()
    assert lines[1].split()[:4] == ["A", "stock", "3", "runs"]
    # Medians over three runs, ± half their range; Welch's t over the runs: a real difference, with the
    # effect's interval.
    row = next(line for line in lines if line.startswith("ctxsw.sem")).split()
    assert row[:8] == ["ctxsw.sem", "p50", "3.08", "µs", "±3.2%", "6.08", "µs", "±1.6%"]
    assert row[9:] == ["yes", "1.97×", "(1.85–2.11)", "p<0.001", "t"]
    assert "Judged by the runs' own figures" in outcome.out


def test_compare_within_the_spread_is_no_difference(tmp_path, rtscope):
    paths = _labelled_files(tmp_path, {"before": [3000.0, 3300.0, 3600.0], "after": [3100.0, 3400.0, 3700.0]})
    outcome = rtscope("compare", *paths, "--by", "label", "--stat", "p50")
    row = next(line for line in outcome.out.splitlines() if line.startswith("ctxsw.sem"))
    assert re.search(r"  no p=0\.\d+ t", row), row


def test_compare_writes_markdown_csv_and_json(tmp_path, rtscope):
    paths = _labelled_files(tmp_path, {"a": [3000.0, 3100.0], "b<|>": [6000.0]})
    markdown = rtscope("compare", *paths, "--by", "label", "--format", "markdown").out
    assert "| B | b<\\|> | 1 |" in markdown and "| metric | stat | A | B | B/A | B≠A? |" in markdown
    rows = list(csv.DictReader(io.StringIO(rtscope("compare", *paths, "--by", "label", "--format", "csv").out)))
    first = next(r for r in rows if r["metric"] == "ctxsw.sem" and r["stat"] == "p50" and r["group"] == "B")
    # B's one run against A's two: where their spread puts a rerun — far, but one degree of freedom and
    # three comparisons (Holm) leave it untold.
    assert (first["group_name"], first["runs"], first["differs_from_A"], first["test"], first["comparisons"]) == (
        "b<|>",
        "1",
        "0",
        "run",
        "3",
    )
    assert (first["runs_A"], first["runs_X"]) == ("2", "1") and float(first["ratio_low"]) > 1
    assert float(first["ratio_to_A"]) == pytest.approx(5980 / 3030, rel=1e-4)  # p50 is typical − 20 ns
    doc = json.loads(rtscope("compare", *paths, "--by", "label", "--format", "json").out)
    assert [g["runs"] for g in doc["groups"]] == [["0000000000000001", "0000000000000002"], ["0000000000000003"]]
    ctxsw = next(m for m in doc["metrics"] if m["id"] == "ctxsw.sem")
    assert ctxsw["rows"][0]["differs_from_first"][0]["real"] is False
    assert ctxsw["rows"][0]["differs_from_first"][0]["ratio"] == pytest.approx(5980 / 3030, rel=1e-3)
    assert ctxsw["rows"][0]["figures"][1]["spread"] is None


def test_compare_by_cell_needs_campaign_runs(tmp_path, rtscope):
    paths = _labelled_files(tmp_path, {"a": [3000.0], "b": [3100.0]})
    outcome = rtscope("compare", *paths, "--by", "cell")
    assert outcome.status == 2 and "run 00000000 belongs to no campaign" in outcome.err


def format_4_doc(run_id: str = "7777777777777777", *, percent: float = 2.5) -> dict:
    """A result of format 4: a metric whose labels its id does not spell out (lat.wakeup.cpu0), one whose
    id carries them and whose unit is percent, histogrammed in steps of 0.01 %."""
    doc = builders.result_doc(run_id=run_id, benches={"lat.wakeup": 15500.0, "lat.wakeup.cpu0": 15000.0})
    doc["version"] = 4
    for metric in doc["metrics"]:
        metric["labels"] = {"cpu": 0} if metric["id"] == "lat.wakeup.cpu0" else {}
    wave = builders.metric("wave.period_error{model=python}", percent)
    wave.update(
        bench="wave.python",
        unit="percent",
        labels={"model": "python"},
        overhead_ns=0.0,
        cycles=None,
        adjusted=copy.deepcopy(wave["stats"]),
    )
    steps = round(percent * 100)
    wave["histogram"].update(buckets=[[steps - 50, 2, 30_000], [steps + 50, 4, 10_000]], resolution=0.01)
    doc["metrics"].append(wave)
    return doc


def test_show_lists_labels_and_each_metric_in_its_unit(tmp_path, rtscope):
    outcome = rtscope("show", builders.write(tmp_path / "v4.json", format_4_doc()))
    assert outcome.status == 0, outcome.err
    metrics = outcome.out.split("Metrics")[1].splitlines()
    assert metrics[1].split()[:3] == ["metric", "labels", "count"]
    assert metrics[3].split()[:4] == ["lat.wakeup.cpu0", "cpu=0", "40,000", "13.5"]
    assert metrics[4].split()[:6] == ["wave.period_error{model=python}", "model=python", "40,000", "2.25", "%", "2.50"]


def test_no_labels_column_without_labels(tmp_path, rtscope):
    doc = format_4_doc()
    doc["metrics"] = [m for m in doc["metrics"] if m["id"] == "lat.wakeup"]
    outcome = rtscope("show", builders.write(tmp_path / "v4.json", doc))
    assert "labels" not in outcome.out


def test_compare_lists_labels_in_text_and_markdown(tmp_path, rtscope):
    paths = [
        builders.write(tmp_path / f"{n}.json", format_4_doc(run_id * 16, percent=percent))
        for n, (run_id, percent) in enumerate((("a", 2.5), ("b", 5.0)))
    ]
    lines = rtscope("compare", *paths, "--stat", "p50").out.splitlines()
    assert next(line for line in lines if line.startswith("metric")).split()[:3] == ["metric", "labels", "stat"]
    row = next(line for line in lines if line.startswith("wave.period_error")).split()
    assert row[:7] == ["wave.period_error{model=python}", "model=python", "p50", "2.50", "%", "5.00", "%"]
    md = rtscope("compare", *paths, "--stat", "p50", "--format", "markdown").out
    assert "| lat.wakeup.cpu0 | cpu=0 | p50 | 15.0 µs | 15.0 µs | 1.00× |" in md


def test_text_draws_titles_indented_parts_and_notes_and_figures_as_a_line():
    chart = svg.Chart(svg.Axis(1, 10, label="x", tick_text=svg.tick_number), svg.Bands(["a"]), title="a plot")
    sections = [
        Section(
            heading("Title", ", aside"),
            (table(None, [("key", Cell("value", "warn"))], "ll"), Paragraph(("one", "two")), Items((Cell("item"),))),
            notes=(Cell("a note", "bad"),),
        ),
        Section(
            parts=(table(["h", "n"], [("x", "1"), ("yy", "22")], "lr"),),
            subsections=(Section(heading("Sub"), (Figure(chart),)),),
        ),
    ]
    assert text.render(sections, fmt.Style(enabled=False)) == [
        "Title, aside",
        "  key  value",
        "",
        "  one",
        "  two",
        "",
        "  item",
        "a note",
        "",
        "h    n",
        "x    1",
        "yy  22",
        "",
        "Sub",
        "  [plot: a plot]",
    ]
    coloured = text.render(sections[:1], fmt.Style(enabled=True))
    assert coloured[0] == "\x1b[1mTitle\x1b[0m, aside" and "\x1b[33mvalue\x1b[0m" in coloured[1]
    assert coloured[-1] == "\x1b[31ma note\x1b[0m"
    assert markdown.render(sections) == (
        "## Title, aside\n\n|  |  |\n|---|---|\n| key | value |\n\none\ntwo\n\n- item\n\n- a note\n\n"
        "| h | n |\n|---|---|\n| x | 1 |\n| yy | 22 |\n\n### Sub\n"
    )


def test_runs_sharing_a_short_id_stay_apart(rtscope, tmp_path):
    first = builders.write(tmp_path / "a.json", builders.result_doc(run_id="0123456789abcdef"))
    second = builders.write(tmp_path / "b.json", builders.result_doc(run_id="01234567ffffffff"))
    outcome = rtscope("compare", first, second)
    assert outcome.status == 0, outcome.err
    assert "B/A" in outcome.out


def test_show_and_compare_say_where_and_on_what_time_base(rtscope, tmp_path):
    hardware = builders.result_doc(run_id="0123456789abcdef")
    emulated = builders.result_doc(run_id="fedcba9876543210")
    emulated["target"] = {"name": "qemu:aarch64:rt", "kind": "qemu", "time_base": "instructions"}
    for doc in (hardware, emulated):
        doc["version"] = 4
        for metric_doc in doc["metrics"]:
            metric_doc["labels"] = {}
    first, second = builders.write(tmp_path / "a.json", hardware), builders.write(tmp_path / "b.json", emulated)
    shown = rtscope("show", second)
    assert shown.status == 0, shown.err
    assert "measured on  qemu:aarch64:rt: instruction time on emulated hardware, not a hardware latency" in shown.out
    assert "measured on" not in rtscope("show", first).out  # a run that does not say where, is not told
    compared = rtscope("compare", first, second)
    assert "! the runs differ in time base: A hardware, B instructions" in compared.out


def test_compare_reads_a_simulator_runs_time_base_as_show_does(rtscope, tmp_path):
    """A result the FreeRTOS simulator's probe wrote alone records no target: its system says simulator,
    and compare's note must say so as show does (it once read the target alone and said nothing)."""
    docs = [builders.result_doc(run_id=run_id) for run_id in ("0123456789abcdef", "fedcba9876543210")]
    paths = []
    for number, doc in enumerate(docs):
        doc["system"]["virtualization"] = "simulator"
        paths.append(builders.write(tmp_path / f"{number}.json", doc))
    compared = rtscope("compare", *paths)
    assert compared.status == 0, compared.err
    assert "the figures are an OS simulator's time, not the OS's" in compared.out


def _throttled(doc: dict) -> dict:
    """doc (format 4) with its lat.wakeup metric as a throttled run leaves it, and throttling lifted as
    requested but not granted."""
    for m in doc["metrics"]:
        m.setdefault("labels", {})
    metric = next(m for m in doc["metrics"] if m["id"] == "lat.wakeup")
    metric.update(
        valid=False,
        invalid_reason="throttled: RT throttling stopped the measuring threads across 3 samples (up to 47.8 ms; "
        "the kernel stops real-time threads for 50 ms of every 1000 ms)",
        throttled={
            "samples": 3,
            "longest_ns": 47_797_035,
            "at_s": [0.996, 2.144, 3.336],
            "period_us": 1_000_000,
            "runtime_us": 950_000,
        },
    )
    for side in ("requested", "granted"):
        doc["config"][side]["rt_throttling_off"] = False
    doc["config"]["requested"]["rt_throttling_off"] = True
    doc["config"]["warnings"].append(
        "RT throttling not lifted (Operation not permitted): it stays as the system has it"
    )
    return doc


def test_show_compare_and_report_say_throttled_beside_the_figure(fake, rtscope, tmp_path):
    (stored,) = store_runs(fake, "idle")
    doc = {**builders.result_doc(run_id="2222222222222222"), "version": 4}
    path = builders.write(tmp_path / "throttled.json", _throttled(doc))
    shown = rtscope("show", path).out
    said = "throttled: 3 samples across RT throttling's stops (up to 47.8 ms, first at 1.0 s; stopped for 50 of every 1000 ms)"
    row = next(line for line in shown.splitlines() if line.strip().startswith("lat.wakeup ") and "µs" in line)
    assert row.rstrip().endswith(said)
    lifted = next(line for line in shown.splitlines() if "RT throttling lifted" in line)
    assert lifted.split()[3:] == ["yes", "no", "!", "not", "as", "requested"]
    assert f"* B lat.wakeup is {said}" in fake("compare", stored, path).out
    report = tmp_path / "report.html"
    assert rtscope("report", path, "-o", report).status == 0
    assert said.replace("'", "&#x27;") in report.read_text() or said in report.read_text()
