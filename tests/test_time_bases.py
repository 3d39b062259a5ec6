"""No figure that misleads: a counter's ticks shown as cycles only where they are a real CPU's cycles, every
recorded setting a factor, runs of different time bases never ranked together, and runs listed by their
target (rtscope issue 30)."""

import json

import pytest

from rtscope.analysis import compare
from rtscope.analysis.grouping import group
from rtscope.model import result
from rtscope.store.database import Store
from support import builders
from test_cli_errors import assert_one_line_error

# ctxsw.sem as the runs: 4,994 cycles of this machine (2.6 cycles/ns), 9.02 µs in a guest.
LOCAL_NS, GUEST_NS = 1921.0, 9020.0


def local_doc(run_id: str = "1000000000000001", typical: float = LOCAL_NS, **fields) -> dict:
    return builders.result_doc(run_id=run_id, benches={"ctxsw.sem": typical}, **fields)


def guest_doc(run_id: str = "2000000000000001", typical: float = GUEST_NS, **fields) -> dict:
    return builders.guest_doc(local_doc(run_id, typical), **fields)


def write(tmp_path, *docs: dict) -> list[str]:
    return [str(builders.write(tmp_path / f"{doc['run']['id']}.json", doc)) for doc in docs]


@pytest.mark.parametrize("kind", ["timer", None])  # None: a result from before the kind was recorded
def test_a_guests_timer_is_no_cycle_count_beside_a_local_run(rtscope, tmp_path, kind):
    guest = result.from_doc(guest_doc(kind=kind), "guest").doc
    assert (result.counter_kind(guest), result.counts_cpu_cycles(guest)) == ("timer", False)
    outcome = rtscope("compare", *write(tmp_path, local_doc(), guest), "--ops")
    assert outcome.status == 0, outcome.err
    row = next(line.split() for line in outcome.out.splitlines() if line.startswith("ctxsw.sem "))
    # Time, with the guest 4.73× slower, as the verdict says: never a ratio of ticks to cycles.
    assert row[:5] == ["ctxsw.sem", "mean", "time", "2.00", "µs"] and row[7] == "4.73×"
    assert not [line for line in outcome.out.splitlines() if " cycles " in f" {line} " and "ctxsw.sem" in line]
    assert "Costs in time, not cycles: cntvct_el0 is a fixed-rate timer, not CPU cycles." in outcome.out
    # Nor does the verdict rank the two machines: they are on different time bases.
    assert (
        "the runs differ in target (with time base, kernel, host, CPU, virtualization, cycle counter), and their "
        "time bases (hardware; instructions (1 ns each)) do not rank."
    ) in outcome.out
    # Without --ops the table is not chosen by itself: the guest's counter timed no cycles.
    assert "operation " not in rtscope("compare", *write(tmp_path, local_doc(), guest)).out


def test_two_runs_that_counted_cpu_cycles_compare_in_cycles():
    docs = [local_doc(), local_doc("1000000000000002", LOCAL_NS * 1.1)]
    rows = compare.build(group(docs, "run"), ("mean",), ops=True).rows
    assert [(row.unit, row.figures[1].ratio) for row in rows] == [("cycles", pytest.approx(1.1, rel=0.01))]
    assert compare.cycles_refused(docs) is None
    emulated = builders.guest_doc(local_doc(), counter="rdtscp", kind="cpu-cycles")
    assert compare.cycles_refused([docs[0], emulated]) == (
        "in time, not cycles: rdtscp of a run on instructions time, not a CPU's"
    )


def test_show_names_a_timer_as_a_timer(rtscope, tmp_path):
    (path,) = write(tmp_path, guest_doc())
    outcome = rtscope("show", path)
    assert "cycle counter  cntvct_el0: a fixed-rate timer at 62.5 MHz, not CPU cycles; 1 ticks per read" in outcome.out


def test_pinning_is_named_as_the_factor(rtscope, tmp_path):
    pinned, free = local_doc(label="same"), local_doc("1000000000000002", LOCAL_NS * 1.5, label="same")
    free["config"]["requested"]["cpus"] = free["config"]["granted"]["cpus"] = []
    outcome = rtscope("compare", *write(tmp_path, pinned, free))
    assert outcome.status == 0, outcome.err
    assert "): cpus (cpus=1 or cpus=any). 2 cells, 1 run each." in outcome.out
    assert "ctxsw.sem mean: not told (cpus=1 " in outcome.out  # one run each: the factor is named, not judged


# (run id, started, time base: local or guest, typical ns of lat.wakeup)
HISTORY = [
    ("1000000000000001", "2026-11-02T10:00:00Z", "local", 60000.0),
    ("2000000000000001", "2026-11-03T10:00:00Z", "guest", 8000.0),
    ("1000000000000002", "2026-11-04T10:00:00Z", "local", 62000.0),
    ("2000000000000002", "2026-11-05T10:00:00Z", "guest", 8200.0),
]


@pytest.fixture
def mixed_store(db_path):
    with Store.open(db_path, create=True) as store:
        for run_id, started, where, typical in HISTORY:
            doc = builders.result_doc(run_id=run_id, started=started, benches={"lat.wakeup": typical})
            store.add(result.from_doc(builders.guest_doc(doc) if where == "guest" else doc, "test"))
        yield store


def test_a_trend_over_time_bases_keeps_them_apart(rtscope, mixed_store):
    outcome = rtscope("trend", "lat.wakeup", "--by", "week")
    assert outcome.status == 0, outcome.err
    assert (
        "Runs on 2 time bases (hardware, instructions (1 ns each)) are not ranked together: each group is held "
        "to the first group of its own time base."
    ) in outcome.out
    document = json.loads(rtscope("trend", "lat.wakeup", "--by", "week", "--format", "json").out)
    groups = {g["name"]: g for g in document["groups"]}
    assert list(groups) == ["2026-W45 [hardware]", "2026-W45 [instructions (1 ns each)]"]
    # Each the first of its time base: neither is better than the other, though 7.5× apart.
    assert [g["change"] for g in groups.values()] == [0.0, 0.0]
    assert groups["2026-W45 [instructions (1 ns each)]"]["time_base"] == "instructions (1 ns each)"


def test_score_ranks_within_each_time_base(rtscope, tmp_path):
    """The issue's ranking put an emulated run first: each time base now has its own."""
    benches = {"ctxsw.sem": 3000.0, "lat.preempt": 8000.0, "lat.irq": 10000.0}
    local = builders.result_doc(run_id="1000000000000001", benches=benches)
    slower = builders.result_doc(run_id="1000000000000002", benches={k: 2 * v for k, v in benches.items()})
    guest = builders.guest_doc(
        builders.result_doc(run_id="2000000000000001", benches={k: v / 8 for k, v in benches.items()})
    )
    outcome = rtscope("score", *write(tmp_path, local, guest, slower))
    assert outcome.status == 0, outcome.err
    assert "! the runs are on 2 time bases (hardware, instructions (1 ns each)): ranked within each, never across" in (
        outcome.out
    )
    assert "Ranking on instructions" not in outcome.out  # one run there: nothing to rank
    ranked = outcome.out.split("Ranking on hardware time (higher is better)")[1].splitlines()[1:]
    assert [line.split()[:3] for line in ranked] == [["1.", "A", "10000000"], ["2.", "C", "10000000"]]


def test_check_refuses_a_baseline_of_another_time_base(rtscope, tmp_path):
    local, guest = write(tmp_path, local_doc(), guest_doc())
    assert_one_line_error(
        rtscope("check", guest, "--baseline", local),
        f"--baseline {local}: run 10000000 is on hardware time, run 20000000 on instructions (1 ns each) time: no "
        "check across time bases (choose a baseline measured on the same)",
    )


def test_runs_has_a_target_column(rtscope, mixed_store):
    lines = rtscope("runs").out.splitlines()
    assert lines[0].split()[:5] == ["id", "started", "label", "target", "host"]
    guest = next(line for line in lines if line.startswith("20000000"))
    local = next(line for line in lines if line.startswith("10000000"))
    assert "qemu:aarch64:rt" in guest and "(none)" not in guest
    assert "fixture-host" in local
    rows = json.loads(rtscope("runs", "--format", "json").out)
    assert {row["time_base"] for row in rows} == {"hardware", "instructions (1 ns each)"}


def test_exports_name_a_guests_cpu(rtscope, tmp_path):
    (path,) = write(tmp_path, guest_doc())
    data = json.loads(rtscope("export", path, "--format", "kcidb").out)
    environment = data["tests"][0]["environment"]
    assert environment["comment"] == "qemu virt (emulated): cortex-a57 × 4"
    assert environment["misc"]["cpu_model"] == "cortex-a57"
    assert '<property name="cpu" value="cortex-a57" />' in rtscope("export", path, "--format", "junit").out
