"""Change points (rtscope.analysis.changes, rtscope changes, trend's marks): known answers on histories with
a real run's noise (tests/support/histories.py), and real stored runs of two kernels named as what changed."""

import copy
import json
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as scipy_stats

from rtscope.analysis import changes, trend
from rtscope.model import result
from rtscope.store.database import Store
from support import builders, histories
from test_cli_errors import assert_one_line_error

GOLDEN = Path(__file__).resolve().parent / "golden"


def _nearest(steps, k):
    return min((abs(step.index - k) for step in steps), default=None)


def test_a_planted_20_percent_step_in_p99_is_found_at_its_run():
    """300 runs, every sample 1.2 times longer from run k on (k anywhere from 30 to 270): the step is found,
    alone, at k ± 1 in at least 8 of 10 histories and never further than 3 runs off (over 200 histories,
    evaluation/changes.py: 92 % at k ± 1), and its interval holds 1.2 in at least 8 of 10."""
    within_one, holds = 0, 0
    for seed in range(10):
        k = int(np.random.default_rng(seed).integers(30, 270))
        steps = changes.find_steps(histories.history(300, seed=seed, step_at=k, factor=1.2)["p99"])
        assert len(steps) == 1, (seed, k, steps)
        assert _nearest(steps, k) <= 3, (seed, k, steps)
        within_one += _nearest(steps, k) <= 1
        holds += steps[0].low <= 1.2 <= steps[0].high
        assert 1.1 < steps[0].ratio < 1.3
    assert within_one >= 8 and holds >= 8


def test_a_tail_only_step_is_found_in_the_maximum_and_not_in_the_median():
    """From run k on, one sample in each run's 1,000 is a stall of 1.5 to 2.5 times the real run's worst:
    the maximum steps at k ± 1; the median does not move."""
    for seed in range(3):
        k = 100 + 40 * seed
        made = histories.history(300, seed=100 + seed, tail_from=k)
        steps = changes.find_steps(made["max"])
        assert len(steps) == 1 and _nearest(steps, k) <= 1, (seed, steps)
        assert steps[0].ratio > 1.5
        assert changes.find_steps(made["p50"]) == []


def test_a_thousand_null_runs_raise_at_most_one_alarm():
    made = histories.history(1000, seed=7)
    alarms = [step for stat in histories.STATISTICS for step in changes.find_steps(made[stat])]
    assert len(alarms) <= 1, alarms


def test_two_steps_are_both_found_each_with_its_own_segments():
    made = histories.history(300, seed=11, step_at=100, factor=1.5)["p50"]
    made[200:] /= 1.5  # back to where it was
    steps = changes.find_steps(made)
    assert [step.index for step in steps] == [100, 200]
    assert [step.runs_before for step in steps] == [100, 100] and [step.runs_after for step in steps] == [100, 100]
    assert steps[0].ratio == pytest.approx(1.5, rel=0.02) and steps[1].ratio == pytest.approx(1 / 1.5, rel=0.02)


def test_a_run_that_repeats_exactly_changes_when_its_value_does_given_enough_runs_to_confirm_it():
    """An emulator in instruction time repeats a run exactly: no noise, and any step is real once the
    rank test can tell it (5 runs against 5, not 3 against 3)."""
    assert changes.find_steps([800.0] * 30) == []
    steps = changes.find_steps([800.0] * 5 + [320.0] * 5)
    assert [step.index for step in steps] == [5]
    assert [steps[0].low, steps[0].ratio, steps[0].high] == pytest.approx([0.4] * 3)
    assert changes.find_steps([800.0] * 3 + [320.0] * 3) == []


def test_one_spike_is_not_a_change():
    made = histories.history(200, seed=3)["p99"]
    made[120] *= 50
    assert changes.find_steps(made) == []


def test_too_short_or_non_positive_series_give_no_step():
    assert changes.find_steps([]) == [] and changes.find_steps([1.0, 2.0, 3.0]) == []
    assert changes.find_steps([0.0] * 20) == []
    assert [step.index for step in changes.find_steps([0.0] * 10 + [5.0] * 10)] == [10]


def test_the_stores_rows_give_the_change_points_a_run_by_run_selection_gives():
    """find_in_rows takes its columns out in C and selects the runs with numpy (100,000 runs in a few
    hundredths of a second): on a series with two time bases, invalid runs and missing values, it finds
    what the run-by-run selection it replaced finds, and what find finds over the same runs as Points."""
    made = histories.history(400, seed=5, step_at=150, factor=1.3)["p99"]
    start = datetime(2026, 1, 1)
    rows = []
    for n, value in enumerate(made):
        base = "instructions (1 ns each)" if n % 5 == 0 else "hardware"
        figure = None if n % 11 == 4 else float(value) * (2.0 if n % 5 == 0 else 1.0)
        started = (start + timedelta(minutes=n)).isoformat() + "Z"
        rows.append((f"{n:016x}", started, None, "vm", f"k{n // 150}", n % 7 != 3, figure, base))
    expected = []
    for base in dict.fromkeys(row[7] for row in rows):
        chosen = [i for i, row in enumerate(rows) if row[7] == base and row[5] and row[6] is not None]
        for step in changes.find_steps([rows[i][6] for i in chosen]):
            expected.append((rows[chosen[step.index]][1], base, rows[chosen[step.index]][0], step))
    found = changes.find_in_rows("lat.wakeup", "p99", rows)
    assert [(c.first_after.started, c.time_base, c.first_after.run_id, c.step) for c in found] == sorted(expected)
    assert {c.time_base for c in found} == {"hardware", "instructions (1 ns each)"}
    assert all(abs(int(c.first_after.run_id, 16) - 150) <= 5 for c in found)
    assert changes.find("lat.wakeup", "p99", [trend.Point(*row) for row in rows]) == found
    assert changes.find_in_rows("lat.wakeup", "p99", []) == []


@pytest.mark.parametrize("freedom", [3, 4, 5, 8, 12, 30, 100, 1000])
def test_the_t_quantile_is_within_half_a_percent_of_scipys(freedom):
    assert changes.t_quantile(0.975, freedom) == pytest.approx(scipy_stats.t.ppf(0.975, freedom), rel=0.005)


def test_what_changed_names_each_difference_in_a_line():
    before = builders.result_doc(run_id="a" * 16, benches={"lat.wakeup": 15000.0})
    after = copy.deepcopy(before)
    after["system"]["kernel_release"] = "6.1.0"
    after["system"]["cmdline"] = before["system"]["cmdline"] + " isolcpus=1"
    after["system"]["hostname"] = "board"
    after["loads"] = [{"name": "cpu", "settings": {"cpus": "all", "load": "100"}}]
    after["benches"][0]["params"] = {**before["benches"][0]["params"], "interval_us": 200}
    lines = changes.explain(before, after, "lat.wakeup")
    assert lines == (
        f"kernel {before['system']['kernel_release']} → 6.1.0",
        "kernel command line +isolcpus=1",
        "loads none → cpu (cpus=all load=100)",
        f"lat.wakeup's parameters interval_us {before['benches'][0]['params'].get('interval_us', 'none')} → 200",
        "host fixture-host → board",
    )
    assert changes.explain(before, copy.deepcopy(before), "lat.wakeup") == ()


def test_the_rtos_configuration_and_kernel_version_count_when_the_release_is_the_same():
    doc = json.loads((GOLDEN / "result-v4-threadx.json").read_text())
    other = copy.deepcopy(doc)
    other["system"]["os_config"]["tick_hz"] = 100
    other["system"]["kernel_version"] = doc["system"]["kernel_version"].replace("bench", "default")
    lines = changes.explain(doc, other, "ctxsw.sem")
    assert lines == ("kernel version −bench +default", "RTOS configuration tick_hz 1000 → 100")


# --- Real stored runs, through the command ---------------------------------------------------------------


@pytest.fixture
def rtos_history(db_path):
    """Ten real FreeRTOS runs of ctxsw.sem on QEMU's mps2-an385 (the golden document, stored again an hour
    apart), then ten real ThreadX runs on the same board: a change of kernel at run 10."""
    docs = [json.loads((GOLDEN / name).read_text()) for name in ("result-v4-freertos.json", "result-v4-threadx.json")]
    start = datetime(2026, 11, 1)
    with Store.open(db_path, create=True) as store:
        for n in range(20):
            made = copy.deepcopy(docs[n >= 10])
            started = (start + timedelta(hours=n)).isoformat() + "Z"
            made["run"].update(id=f"{n:02d}" + "c" * 14, started=started, finished=started)
            store.add(result.from_doc(made, "test"))
    return db_path


def test_real_runs_of_two_kernels_name_the_change_at_the_switch(rtscope, rtos_history):
    outcome = rtscope("changes", "ctxsw.sem", "--json")
    assert outcome.status == 0, outcome.err
    found = json.loads(outcome.out)
    assert found["runs"] == {"p50": 20, "p99": 20, "max": 20}
    assert [change["stat"] for change in found["changes"]] == ["p50", "p99", "max"]
    for change in found["changes"]:
        assert change["first_after"]["id"] == "10" + "c" * 14 and change["last_before"]["id"] == "09" + "c" * 14
        assert change["direction"] == "better" and change["ratio"] < 0.5
        assert change["changed"] == [
            "OS FreeRTOS → ThreadX",
            "kernel V11.1.0+ → 6.4.2",
            "target qemu:mps2-an385:freertos → qemu:mps2-an385:threadx:config=bench",
        ]
    text = rtscope("changes", "ctxsw.sem", "--stat", "p99")
    assert text.status == 0
    assert "802 ns → 320 ns  -60.1 % [-60.1, -60.1]  10/10  OS FreeRTOS → ThreadX; kernel V11.1.0+ → 6.4.2;" in text.out


def test_trend_marks_the_change_in_its_text_and_on_its_chart(rtscope, rtos_history, tmp_path):
    outcome = rtscope("trend", "ctxsw.sem")
    assert outcome.status == 0, outcome.err
    marks = [line.strip() for line in outcome.out.splitlines() if line.strip().startswith("▲")]
    assert len(marks) == 1 and "-60.1 %" in marks[0] and "kernel V11.1.0+ → 6.4.2" in marks[0]
    page = tmp_path / "trend.html"
    assert rtscope("trend", "ctxsw.sem", "-o", page).status == 0
    # The trend's chart, before the page's long-term picture (whose maxima are dashed lines too).
    html = page.read_text(encoding="utf-8").split('id="longterm"')[0]
    assert html.count('stroke-dasharray="5 4"') == 1
    assert "<g><title>from run 10cccccc" in html and "kernel V11.1.0+ → 6.4.2" in html


def test_no_change_is_said_in_one_line(rtscope, db_path):
    with Store.open(db_path, create=True) as store:
        for n in range(8):
            store.add(result.from_doc(builders.result_doc(run_id=f"{n:016x}", benches={"lat.wakeup": 15000.0}), "t"))
    outcome = rtscope("changes", "lat.wakeup")
    assert outcome.status == 0, outcome.err
    assert "No change in p50 (8 runs), p99 (8 runs), max (8 runs)." in outcome.out


def test_a_throughput_is_looked_at_in_its_median_unless_asked(rtscope, db_path):
    with Store.open(db_path, create=True) as store:
        store.add(result.from_doc(builders.throughput_doc("crypto.sha256", [100_000, 110_000]), "t"))
    assert json.loads(rtscope("changes", "crypto.sha256", "--json").out)["runs"] == {"p50": 1}
    assert_one_line_error(rtscope("changes", "crypto.sha256", "--stat", "max"), "higher is better")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no.such"], "no stored run measured no.such"),
        (["ctxsw.sem", "--stat", "p90"], "the store keeps p50, p99, max, mean of every run, not 'p90'"),
        (["ctxsw.sem", "--since", "yesterday"], "bad date 'yesterday'"),
        (["ctxsw.sem", "--host", "board"], "no stored run on host board measured ctxsw.sem"),
    ],
)
def test_bad_input_is_one_line(rtscope, db_path, args, message):
    with Store.open(db_path, create=True) as store:
        store.add(result.from_doc(builders.result_doc(benches={"ctxsw.sem": 3200.0}), "t"))
    assert_one_line_error(rtscope("changes", *args), message)


def test_a_cut_a_run_off_still_names_what_changed_nearby_and_says_where():
    """Noise may place a cut a run or two from the run whose kernel changed: what changed is looked for
    in the nearest consecutive runs around it, and where it was is said."""
    points = [
        trend.Point(f"{n:02d}" + "d" * 14, f"2026-11-01T{n:02d}:00:00Z", None, "vm", "k", True, 1.0) for n in range(7)
    ]
    docs = {p.run_id: {"system": {"kernel_release": "6.1.0-rt" if n < 5 else "6.1.0"}} for n, p in enumerate(points)}
    step = changes.Step(3, 1.2, 1.1, 1.3, 1.0, 1.2, 3, 4, 0.001)
    change = changes.ChangePoint("lat.wakeup", "p99", "hardware", points[2], points[3], step, tuple(points))
    [named] = changes.explained([change], docs.__getitem__)
    assert named.changed == ("kernel 6.1.0-rt → 6.1.0",) and named.changed_after == points[5]
    assert named.changed_text() == "kernel 6.1.0-rt → 6.1.0 (from run 05dddddd, 2 runs after the cut)"
    [unexplained] = changes.explained([change], lambda run_id: {"system": {}})
    assert unexplained.changed_text() == "nothing the runs within 3 of it record"
