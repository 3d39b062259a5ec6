"""Square waves in show, compare and the report: the envelope table, its verdict and figure, on made-up runs."""

import itertools
import re

from rtscope.render import fmt, text
from rtscope.render.sections import wave
from rtscope.render.subjects import OneRun
from support import builders
from test_report import report, section_rows

RUN_NUMBERS = itertools.count(1)
# Max relative error per model and period (µs): c-rt under 1 % down to 100 µs, python under 10 % to 1 ms only.
WORST = {"c-rt": {10_000: 0.0002, 1_000: 0.004, 100: 0.03}, "python": {10_000: 0.008, 1_000: 0.05, 100: 0.6}}


def study(tmp_path, loads=("idle",), repetitions=1):
    """Result files of the WORST sweep under each load (errors twice as large under cpu), repeated; the
    later repetitions' errors half the first's."""
    paths = []
    for load, (model, worsts), (period, worst), repetition in itertools.product(
        loads, WORST.items(), [(p, w) for p, w in WORST["c-rt"].items()], range(repetitions)
    ):
        worst = WORST[model][period] * (2 if load == "cpu" else 1) / (2 if repetition else 1)
        number = next(RUN_NUMBERS)
        doc = builders.wave_doc(model, period, error=min(worst, 0.001), worst=worst, load=load, run_id=f"{number:016x}")
        paths.append(builders.write(tmp_path / f"{number:04d}.json", doc))
    return paths


def test_show_tells_the_cell_and_the_signed_period_error(rtscope, tmp_path):
    path = builders.write(tmp_path / "wave.json", builders.wave_doc("python", 1000, error=0.002, worst=0.04))
    outcome = rtscope("show", path)
    assert outcome.status == 0, outcome.err
    lines = outcome.out.split("Square wave, as the observer saw it")[1].splitlines()
    assert lines[1].split() == [
        "model",
        "period",
        "max",
        "rel.",
        "error",
        "error",
        "p50",
        "error",
        "min",
        "error",
        "max",
        "periods",
        "missed",
        "blind",
        "resolution",
        "validity",
    ]
    # p50 the nominal period, min 0.2 % short of it, max 4 % over: its error.
    assert lines[2].split() == [
        "python",
        "1.00",
        "ms",
        "4.00",
        "%",
        "0",
        "ns",
        "-2.00",
        "µs",
        "+40.0",
        "µs",
        "1,000",
        "0",
        "0",
        "%",
        "100",
        "ns",
        "valid",
    ]


def test_the_cell_is_coloured_against_1_and_10_percent():
    style = fmt.Style(enabled=True)
    for worst, colour in ((0.005, "32"), (0.05, "33"), (0.5, "31")):
        section = wave.build(OneRun(builders.wave_doc("c-rt", 100, error=0.001, worst=worst)))
        assert f"\x1b[{colour}m" in text.render([section], style)[2]


def test_no_wave_section_without_waves(rtscope, tmp_path):
    outcome = rtscope("show", builders.write(tmp_path / "run.json", builders.result_doc()))
    assert "Square wave" not in outcome.out


def test_compare_prints_the_envelope_per_load_before_its_table(rtscope, tmp_path):
    outcome = rtscope("compare", *study(tmp_path, loads=("idle", "cpu")), "--by", "load")
    assert outcome.status == 0, outcome.err
    out = outcome.out
    assert (
        out.index("Square waves: operating envelopes")
        < out.index("Load idle")
        < out.index("Load cpu")
        < out.index("B≠A?")
    )
    idle = out.split("Load idle")[1].split("Load cpu")[0].splitlines()
    assert idle[1].strip() == "Under 1 %: c-rt from 1.00 ms, python from 10.0 ms."
    assert idle[2].strip() == "Under 10 %: c-rt from 100 µs, python from 1.00 ms."
    assert [line.split() for line in idle[4:7]] == [
        ["model", "10.0", "ms", "1.00", "ms", "100", "µs", "<", "1", "%", "from", "<", "10", "%", "from"],
        ["c-rt", "0.0200", "%", "0.400", "%", "3.00", "%", "1.00", "ms", "100", "µs"],
        ["python", "0.800", "%", "5.00", "%", "60.0", "%", "10.0", "ms", "1.00", "ms"],
    ]
    cpu = out.split("Load cpu")[1].splitlines()
    assert cpu[1].strip() == "Under 1 %: c-rt from 1.00 ms; never: python."
    assert cpu[2].strip() == "Under 10 %: c-rt from 100 µs, python from 10.0 ms."


def test_compare_without_waves_has_no_envelope(rtscope, tmp_path):
    paths = [builders.write(tmp_path / f"{n}.json", builders.result_doc(run_id=f"{n:016x}")) for n in (1, 2)]
    outcome = rtscope("compare", *paths)
    assert outcome.status == 0 and "Square waves" not in outcome.out


def test_the_report_draws_the_envelope_its_spread_and_figure(rtscope, tmp_path):
    page = report(rtscope, tmp_path, *study(tmp_path, repetitions=2))
    assert page.index('id="verdict"') < page.index('id="envelope"') < page.index('id="runs"')
    rows = section_rows(page, "envelope")
    assert rows[0] == ["model", "10.0 ms", "1.00 ms", "100 µs", "< 1 % from", "< 10 % from"]
    assert rows[1] == ["c-rt", "0.0200 %", "0.400 %", "3.00 %", "1.00 ms", "100 µs"]
    # The median over repetitions: of the first run's max and the second's, half of it.
    assert rows[4] == ["c-rt", "0.0150 %", "0.300 %", "2.25 %"]
    assert (
        '<span class="good">0.0200 %</span>' in page
        and '<span class="warn">3.00 %</span>' in page
        and '<span class="bad">60.0 %</span>' in page
    )
    chart = re.search(
        r'aria-label="Max relative period error against period, models c-rt, python".*?</svg>', page
    ).group()
    assert chart.count("<path d=") == 2 and ">1 %</text>" in chart and ">10 %</text>" in chart
    assert ">nominal period, ms (log scale)</text>" in chart
    # Each run's histogram of periods, in time.
    histogram = re.search(r'aria-label="wave.period: histogram of runs [^"]*".*?</svg>', page).group()
    assert ">time, ms (log scale)</text>" in histogram


def test_a_model_that_is_under_only_at_a_shorter_period_is_said_not_monotone(rtscope, tmp_path):
    paths = [
        builders.write(
            tmp_path / f"{period}.json",
            builders.wave_doc("c-busy", period, error=0.001, worst=worst, run_id=f"{period:016x}"),
        )
        for period, worst in ((10_000, 0.02), (1_000, 0.005))
    ]
    lines = rtscope("compare", *paths).out.splitlines()
    assert "  Under 1 %: c-busy from 1.00 ms (not monotone)." in lines
    row = next(line for line in lines if line.strip().startswith("c-busy")).split()
    assert row[-6:] == ["1.00", "ms", "(not", "monotone)", "1.00", "ms"]


def test_invalid_and_failed_runs_are_marked(rtscope, tmp_path):
    invalid = builders.wave_doc("node", 1_000, worst=0.5, valid=False, run_id="1" * 16)
    failed = builders.wave_doc("node", 100, run_id="2" * 16)
    failed["benches"][0].update(status="failed", error="the generator hung: no edge for 1.0 s (stopped)")
    failed["metrics"] = []
    counted = builders.wave_doc("node", 1_000, worst=0.002, run_id="3" * 16)
    lines = rtscope(
        "compare", *(builders.write(tmp_path / f"{n}.json", doc) for n, doc in enumerate((invalid, failed, counted)))
    ).out.splitlines()
    row = next(line for line in lines if line.strip().startswith("node")).split()
    assert row == ["node", "0.200", "%", "*", "failed", "1.00", "ms", "1.00", "ms"]


def test_too_many_groups_for_a_table_still_get_the_envelope(rtscope, tmp_path):
    paths = []
    for number, (model, period) in enumerate((m, p) for m in ("c-rt", "python", "bash") for p in range(100, 1000, 100)):
        doc = builders.wave_doc(model, period)
        doc["run"]["id"] = f"{number:016x}"
        paths.append(builders.write(tmp_path / f"{number}.json", doc))
    outcome = rtscope("compare", *paths)
    assert outcome.status == 0, outcome.err
    assert "Square waves" in outcome.out and "c-rt" in outcome.out
    assert "No comparison table: compare takes at most 26 groups, not 27 (by run)" in outcome.out
    ordinary = [builders.write(tmp_path / f"plain{n}.json", builders.result_doc(run_id=f"{n:016x}")) for n in range(27)]
    refused = rtscope("compare", *ordinary)
    assert refused.status == 2 and "compare takes at most 26 groups, not 27" in refused.err
