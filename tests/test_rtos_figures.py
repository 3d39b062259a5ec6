"""Figures an RTOS board's clock and tick shape, shown as what they are: a figure less than one step of the
run's clock ("< 40 ns (below the clock's resolution)", flagged by the probe in the metric's
below_resolution), and a wake-up from a sleep where the port declares its sleeps whole ticks (said beside
the figure, from timing.sleep_granularity_ns), in show, compare and the report. The runs are the golden
ThreadX board result with a lat.irq that read 0 (an exception costs no instruction at shift 0) and the
tick its port declares."""

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO
from rtscope.errors import RtscopeError
from rtscope.model import result

GOLDEN = REPO / "tests" / "golden"
BELOW = "< 40 ns (below the clock's resolution)"
TICK_NOTE = "lat.wakeup: sleeps here are whole ticks of 1.00 ms (the port's timer granularity): a wake-up comes up"


def board_doc(run_id: str, *, tick: int | None = 1_000_000) -> dict[str, Any]:
    """The golden ThreadX result with a lat.irq whose every sample read 0 on the 40 ns clock, and the
    sleeps' granularity its port declares (None: a port whose sleeps end at the clock's time)."""
    doc = json.loads((GOLDEN / "result-v4-threadx.json").read_text())
    doc["run"]["id"] = run_id
    doc["timing"]["sleep_granularity_ns"] = tick
    irq = copy.deepcopy(next(m for m in doc["metrics"] if m["id"] == "ctxsw.sem"))
    zeros = {key: 0 for key in result.STATISTICS if key != "count"}
    irq.update(
        id="lat.irq",
        bench="lat.irq",
        stats={**irq["stats"], **zeros},
        adjusted={**irq["adjusted"], **zeros},
        below_resolution=["min", "p50", "p90", "p99", "p999", "p9999", "max", "mean"],
    )
    irq["histogram"]["buckets"] = [[0, 1, irq["stats"]["count"]]]
    doc["metrics"].append(irq)
    return doc


def write(tmp_path: Path, name: str, doc: dict[str, Any]) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc))
    return path


def metric_row(out: str, metric_id: str) -> str:
    return next(line for line in out.splitlines() if line.strip().startswith(metric_id + " "))


def test_the_schema_takes_the_flag_and_the_granularity_and_nothing_else():
    doc = board_doc("1" * 16)
    assert result.from_doc(doc, "board").doc["metrics"][-1]["below_resolution"][0] == "min"
    for where, bad in (("metric", ["stddev"]), ("metric", ["min", "min"]), ("timing", 0), ("timing", "1 ms")):
        broken = copy.deepcopy(doc)
        if where == "metric":
            broken["metrics"][-1]["below_resolution"] = bad
        else:
            broken["timing"]["sleep_granularity_ns"] = bad
        with pytest.raises(RtscopeError, match=r"^broken: invalid result at \$\.(metrics|timing)"):
            result.from_doc(broken, "broken")


def test_show_gives_a_figure_below_the_clock_as_such_and_the_tick_beside_a_wake_up(rtscope, tmp_path):
    outcome = rtscope("show", write(tmp_path, "board", board_doc("1" * 16)))
    assert outcome.status == 0, outcome.err
    irq = metric_row(outcome.out, "lat.irq")
    # min, p50, p90, p99, p99.9, max and mean, said beside the table; the spread is not a clock's reading.
    assert irq.count("< 40 ns") == 7 and irq.split()[-3:] == ["0", "ns", "valid"], irq
    assert f"lat.irq: min, p50, p90, p99, p99.9, p99.99, max, mean {BELOW}: they read no step of it" in outcome.out
    assert "<" not in metric_row(outcome.out, "ctxsw.sem")
    # The tails' table says the same, with no interval of readings of no step.
    tails = outcome.out.split("\nTails")[1]
    assert metric_row(tails, "lat.irq").split()[1:] == ["<", "40", "ns"] * 3 + ["<", "40", "ns", "of", "90,985"]
    assert "sleeps         whole ticks of 1.00 ms (the port's)" in outcome.out
    notes = [line.strip() for line in outcome.out.splitlines() if "sleeps here are whole ticks" in line]
    assert len(notes) == 1 and notes[0].startswith(TICK_NOTE), notes  # ctxsw.sem, lat.irq sleep no tick


def test_a_port_whose_sleeps_end_at_the_clocks_time_and_an_older_result_get_no_tick_note(rtscope, tmp_path):
    clock = rtscope("show", write(tmp_path, "clock", board_doc("1" * 16, tick=None)))
    older = board_doc("2" * 16)
    del older["timing"]["sleep_granularity_ns"]
    before = rtscope("show", write(tmp_path, "older", older))
    assert clock.status == before.status == 0, (clock.err, before.err)
    assert "sleeps         end at the clock's time" in clock.out
    assert "sleeps" not in before.out.split("Timing")[1].split("\n\n")[0]
    for out in (clock.out, before.out):
        assert "whole ticks" not in out and "< 40 ns" in metric_row(out, "lat.irq")


def test_compare_gives_a_figure_below_the_clock_as_such(rtscope, tmp_path):
    first, second = write(tmp_path, "a", board_doc("1" * 16)), write(tmp_path, "b", board_doc("2" * 16))
    outcome = rtscope("compare", first, second)
    assert outcome.status == 0, outcome.err
    rows = [line for line in outcome.out.splitlines() if line.startswith("lat.irq")]
    assert rows and all(line.count(BELOW) == 2 for line in rows), rows
    assert BELOW not in "".join(line for line in outcome.out.splitlines() if line.startswith("ctxsw.sem"))


def test_the_report_gives_both(rtscope, tmp_path):
    output = tmp_path / "report.html"
    outcome = rtscope(
        "report", write(tmp_path, "a", board_doc("1" * 16)), write(tmp_path, "b", board_doc("2" * 16)), "-o", output
    )
    assert outcome.status == 0, outcome.err
    page = output.read_text().replace("&#x27;", "'").replace("&lt;", "<")
    assert BELOW in page and TICK_NOTE in page
