"""rtscope check: the CI gate passes what did not really get worse and fails what did, or went missing."""

import math
import random
import re
import statistics

import pytest

from rtscope.analysis import judge
from rtscope.model import result
from rtscope.store.database import Store
from support import builders
from test_cli_errors import assert_one_line_error

# One latency distribution, skewed as latencies are: a body around 15 µs and a tail.
_RANDOM = random.Random(20261122)
SAMPLES = [round(_RANDOM.lognormvariate(9.6, 0.15)) + (30_000 if _RANDOM.random() < 0.02 else 0) for _ in range(2000)]
# Few samples spread wide: not enough to tell a 30 % shift from chance.
FEW_SAMPLES = [10_000, 14_000, 20_000, 30_000, 45_000]


def log_linear_bucket(value: int) -> tuple[int, int]:
    """The bucket (lower bound, width) of ``value`` ns in the probe's histogram: 128 linear buckets per
    power of two, exact below 256."""
    width = max(1, 1 << (value.bit_length() - 8))
    return value - value % width, width


def nearest_rank(ordered: list[int], q: float) -> int:
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def sampled_metric(metric_id: str, samples: list[int]) -> dict:
    """A time metric whose figures, histogram and raw samples all come from ``samples`` (ns)."""
    ordered = sorted(samples)
    figures = {
        "count": len(samples),
        "min": ordered[0],
        "max": ordered[-1],
        "mean": statistics.fmean(samples),
        "stddev": statistics.pstdev(samples),
        **{
            key: nearest_rank(ordered, q)
            for key, q in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p999", 0.999), ("p9999", 0.9999))
        },
    }
    buckets: dict[tuple[int, int], int] = {}
    for value in samples:
        buckets[log_linear_bucket(value)] = buckets.get(log_linear_bucket(value), 0) + 1
    metric = builders.metric(metric_id, 15_000.0)
    metric.update(
        overhead_ns=0.0,
        stats=figures,
        adjusted=dict(figures),
        raw=list(samples),
        histogram={
            **metric["histogram"],
            "buckets": [[lower, width, count] for (lower, width), count in sorted(buckets.items())],
        },
    )
    return metric


def sampled_doc(
    tmp_path, name: str, samples: list[int], *, scale: float = 1.0, run_id: str = "0123456789abcdef"
) -> str:
    """A result file whose lat.wakeup has ``samples`` × ``scale``; returns its path."""
    doc = builders.result_doc(run_id=run_id, benches={"lat.wakeup": 15_000.0})
    doc["metrics"] = [sampled_metric("lat.wakeup", [round(value * scale) for value in samples])]
    return str(builders.write(tmp_path / name, doc))


def count_doc(tmp_path, name: str, periods: list[int], *, valid: bool = True) -> str:
    """A result file with one Thread-Metric count metric, tm.sync, with these periods."""
    doc = builders.result_doc(benches={})
    doc["metrics"] = [builders.count_metric("tm.sync", periods, baseline_ratio=3.6, valid=valid)]
    return str(builders.write(tmp_path / name, doc))


def check(rtscope, run, baseline, *args):
    return rtscope("check", run, "--baseline", baseline, *args)


def verdict(outcome, metric_id):
    """The verdict cell of a metric's first row in the check's table."""
    row = next(line for line in outcome.out.splitlines() if line.startswith(metric_id + " "))
    return row.split("  ")[-1].strip()


def test_identical_runs_pass(rtscope, tmp_path):
    path = sampled_doc(tmp_path, "a.json", SAMPLES)
    outcome = check(rtscope, path, path, "--stat", "p50,p99,max")
    assert outcome.status == 0, outcome.out
    assert "check passed: 1 metric, none worse than allowed" in outcome.out
    assert verdict(outcome, "lat.wakeup") == "ok"


def test_a_real_30_percent_slowdown_fails(rtscope, tmp_path):
    baseline = sampled_doc(tmp_path, "base.json", SAMPLES)
    slower = sampled_doc(tmp_path, "slow.json", SAMPLES, scale=1.3)
    outcome = check(rtscope, slower, baseline)
    assert outcome.status == 1, outcome.out
    assert verdict(outcome, "lat.wakeup") == "REGRESSED"
    # p99 is judged by the tail test: how the samples beyond the baseline's p99 split between the runs.
    assert re.search(r"  lat\.wakeup p99 30\.0 % worse \(more than 10 %, p=0\.0\d\d tail, one run each\)", outcome.out)
    assert "check failed: 1 of 1 metric" in outcome.out
    # The other way round it is faster: nothing to fail.
    assert check(rtscope, baseline, slower).status == 0


def test_a_30_percent_slowdown_that_chance_explains_passes(rtscope, tmp_path):
    baseline = sampled_doc(tmp_path, "base.json", FEW_SAMPLES)
    slower = sampled_doc(tmp_path, "slow.json", FEW_SAMPLES, scale=1.3)
    outcome = check(rtscope, slower, baseline)
    assert outcome.status == 0, outcome.out
    assert verdict(outcome, "lat.wakeup") == "ok: worse, but not significantly"
    assert "+30.0 %" in outcome.out and " tail, one run each " in outcome.out


def test_a_real_slowdown_within_the_allowed_regression_passes(rtscope, tmp_path):
    baseline = sampled_doc(tmp_path, "base.json", SAMPLES)
    slower = sampled_doc(tmp_path, "slow.json", SAMPLES, scale=1.05)
    outcome = check(rtscope, slower, baseline, "--max-regression", "10%", "--stat", "p50")
    assert outcome.status == 0, outcome.out
    assert verdict(outcome, "lat.wakeup") == "ok: worse, within 10 %"
    assert "p<0.001 MW" in outcome.out  # real, but small enough
    assert check(rtscope, slower, baseline, "--max-regression", "2.5", "--stat", "p50").status == 1


def test_a_worse_tail_fails_on_the_tail_and_not_on_the_median(rtscope, tmp_path):
    baseline = sampled_doc(tmp_path, "base.json", SAMPLES)
    doc = builders.result_doc(benches={"lat.wakeup": 15_000.0})
    # The same samples but for a worse tail: the 1 % slowest twice as slow, beyond the baseline's max.
    tail = sorted(SAMPLES)
    cut = len(tail) - len(tail) // 100
    doc["metrics"] = [sampled_metric("lat.wakeup", tail[:cut] + [2 * value for value in tail[cut:]])]
    worse_tail = str(builders.write(tmp_path / "tail.json", doc))
    outcome = check(rtscope, worse_tail, baseline, "--stat", "p50,max")
    assert outcome.status == 1, outcome.out
    rows = [
        line
        for line in outcome.out.splitlines()
        if line.startswith(("lat.wakeup ", "  ")) and (" p50 " in line or " max " in line)
    ]
    assert "ok" in rows[0] and "+100.0 %" in rows[1] and "REGRESSED" in rows[1] and "tail" in rows[1]


def test_a_thread_metric_drop_fails(rtscope, tmp_path):
    baseline = count_doc(tmp_path, "base.json", [7_480_000, 7_500_000, 7_470_000, 7_490_000, 7_510_000, 7_460_000])
    dropped = count_doc(tmp_path, "drop.json", [5_200_000, 5_250_000, 5_240_000, 5_230_000, 5_260_000, 5_210_000])
    outcome = check(rtscope, dropped, baseline)
    assert outcome.status == 1, outcome.out
    row = next(line for line in outcome.out.splitlines() if line.startswith("tm.sync"))
    assert row.split()[1:5] == ["p50", "7,485,000", "5,235,000", "-30.1"]
    assert verdict(outcome, "tm.sync") == "REGRESSED"
    # More iterations are better: a rise passes.
    assert check(rtscope, baseline, dropped).status == 0


def test_three_periods_a_side_cannot_show_a_drop(rtscope, tmp_path):
    baseline = count_doc(tmp_path, "base.json", [7_480_000, 7_500_000, 7_470_000])
    dropped = count_doc(tmp_path, "drop.json", [5_200_000, 5_250_000, 5_240_000])
    outcome = check(rtscope, dropped, baseline)
    assert outcome.status == 0 and verdict(outcome, "tm.sync") == "ok: worse, but not significantly"


def test_an_invalid_or_missing_metric_fails_and_a_new_one_does_not(rtscope, tmp_path):
    baseline = builders.write(tmp_path / "base.json", builders.result_doc())
    invalid = builders.write(tmp_path / "invalid.json", builders.result_doc(invalid=("ctxsw.sem",)))
    outcome = check(rtscope, invalid, baseline)
    assert outcome.status == 1
    assert verdict(outcome, "ctxsw.sem") == "INVALID: the partner thread did not run on the same CPU"
    assert "  ctxsw.sem invalid: the partner thread did not run on the same CPU" in outcome.out

    fewer = builders.write(
        tmp_path / "fewer.json",
        builders.result_doc(benches={"ctxsw.sem": 3200.0, "lat.wakeup": 15500.0, "mutex.lock": 40.0}),
    )
    outcome = check(rtscope, fewer, baseline)
    assert outcome.status == 1
    assert verdict(outcome, "clock.read") == "MISSING from the run"
    assert verdict(outcome, "mutex.lock") == "new: not in the baseline"
    assert "check failed: 1 of 4 metrics\n  clock.read not measured in this run\n" in outcome.out


def test_a_metric_invalid_in_the_baseline_is_not_held_against_the_run(rtscope, tmp_path):
    baseline = builders.write(tmp_path / "base.json", builders.result_doc(invalid=("ctxsw.sem",)))
    run = builders.write(
        tmp_path / "run.json", builders.result_doc(benches={**builders.TYPICAL_NS, "ctxsw.sem": 9000.0})
    )
    outcome = check(rtscope, run, baseline)
    assert outcome.status == 0, outcome.out
    assert verdict(outcome, "ctxsw.sem").startswith("not checked: invalid in the baseline")


def test_stored_runs_are_checked_by_id(fake):
    assert fake("run", "--label", "one").status == 0
    outcome = fake("check", "last", "--baseline", "last")
    assert outcome.status == 0, outcome.err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--max-regression", "ten"], "argument --max-regression: bad percentage 'ten' (e.g. 10%)"),
        (["--max-regression=-5%"], "argument --max-regression: must be zero or more, not '-5%'"),
        (["--max-regression", "nan"], "bad percentage 'nan'"),
        (["--stat", "p42"], "argument --stat: unknown statistic p42"),
        (["--stat", "p99,count"], "count is the number of samples, not a figure to gate on"),
    ],
)
def test_bad_input_is_one_line(rtscope, tmp_path, args, message):
    path = builders.write(tmp_path / "a.json", builders.result_doc())
    assert_one_line_error(check(rtscope, path, path, *args), message)


def test_a_missing_baseline_is_one_line(rtscope, tmp_path):
    path = builders.write(tmp_path / "a.json", builders.result_doc())
    assert_one_line_error(check(rtscope, path, tmp_path / "nope.json"), "nope.json: no such file")
    assert_one_line_error(rtscope("check", path), "the following arguments are required: --baseline")


def throughput_doc(periods: list[float], *, stddev: float = 0.0) -> dict:
    """A result (format 4) whose one metric is a throughput per period: bytes/s, the higher the better."""
    doc = builders.result_doc(benches={})
    doc["version"] = 4
    metric = builders.count_metric("crypto.aes", periods)
    metric.update(unit="bytes/s", labels={"cipher": "aes128"})
    for figures in (metric["stats"], metric["adjusted"]):
        figures["stddev"] = stddev
    doc["metrics"] = [metric]
    return doc


def test_the_judge_holds_a_figure_to_the_way_its_unit_is_better():
    baseline = throughput_doc([100e6] * 8)
    (slower,) = judge.Judge(baselines=(baseline,)).verdicts(throughput_doc([50e6] * 8))
    assert slower.failed and slower.changes[0].verdict == "REGRESSED"
    assert slower.findings[0].message.startswith("p50 50.0 % worse (more than 10 %, p<0.001 MW, one run each)")
    (faster,) = judge.Judge(baselines=(baseline,)).verdicts(throughput_doc([200e6] * 8))
    assert not faster.failed and faster.changes[0].verdict == "ok"
    # A limit on a throughput is a minimum; on its spread, in any unit, a maximum.
    limits = (judge.limit("crypto.aes:p50=80000000"), judge.limit("crypto.aes:stddev=1000000"))
    (held,) = judge.Judge(limits=limits).verdicts(throughput_doc([100e6] * 8, stddev=5e5))
    assert not held.failed
    (broken,) = judge.Judge(limits=limits).verdicts(throughput_doc([50e6] * 8, stddev=2e6))
    assert [(f.stat, f.message) for f in broken.findings] == [
        ("p50", "p50 50.0 MB/s is below the limit 80.0 MB/s"),
        ("stddev", "stddev 2.00 MB/s is above the limit 1.00 MB/s"),
    ]
    assert broken.fails("p50") and not broken.fails("max")


def store_sampled(db_path, runs):
    """Store runs of lat.wakeup: (run id, start day in November 2026, scale of SAMPLES, hostname, label)."""
    with Store.open(db_path, create=True) as store:
        for run_id, day, scale, hostname, label in runs:
            doc = builders.result_doc(
                run_id=run_id, started=f"2026-11-{day:02d}T10:00:00Z", hostname=hostname, label=label, benches={}
            )
            doc["benches"] = [{"id": "lat.wakeup", "params": {}, "status": "ok", "elapsed_s": 1.0, "error": None}]
            doc["metrics"] = [sampled_metric("lat.wakeup", [round(value * scale) for value in SAMPLES])]
            store.add(result.from_doc(doc, "test"))


# Five runs of a board a few percent apart, a much slower one of another board, a slower one of the
# first board (newest) and one after it.
HISTORY = [
    *((f"a{n:015x}", n, 1 + (n - 3) / 100, "board", "stable") for n in range(1, 6)),
    ("b000000000000001", 6, 3.0, "other-board", "stable"),
    ("c000000000000001", 7, 1.3, "board", "candidate"),
    ("d000000000000001", 8, 1.0, "board", None),
]


def test_a_baseline_of_the_last_runs_of_the_same_host_and_benches(rtscope, db_path):
    store_sampled(db_path, HISTORY)
    outcome = rtscope("check", "c0", "--baseline", "last:5")
    assert outcome.status == 1, outcome.out
    baselines = [line.split()[1] for line in outcome.out.splitlines() if line.strip().startswith("baseline ")]
    # Newest first; the other board's run and the run after c0 are not among them.
    assert baselines == [f"a{n:015x}"[:8] for n in (5, 4, 3, 2, 1)]
    assert verdict(outcome, "lat.wakeup") == "REGRESSED"
    assert "+30.0 %" in outcome.out  # against the five runs' median, the middle one's p99
    assert rtscope("check", "a000000000000005", "--baseline", "last:2").status == 0


def test_a_baseline_of_a_labels_runs(rtscope, db_path):
    store_sampled(db_path, HISTORY)
    outcome = rtscope("check", "d0", "--baseline", "label:stable")
    assert outcome.status == 0, outcome.out
    assert (
        sum(line.startswith("  baseline ") for line in outcome.out.splitlines()) == 6
    )  # the other board's run too: a label is the user's group
    assert "ok" in verdict(outcome, "lat.wakeup")


@pytest.mark.parametrize(
    ("baseline", "message"),
    [
        ("last:0", "--baseline last:0: must be one or more, not 0"),
        ("last:x", "--baseline last:x:"),
        ("label:nightly", "--baseline label:nightly: no stored run other than a0000000 labelled 'nightly'"),
    ],
)
def test_a_baseline_query_that_finds_nothing_is_one_line(rtscope, db_path, baseline, message):
    store_sampled(db_path, HISTORY[:1])
    assert_one_line_error(rtscope("check", "a0", "--baseline", baseline), message)
    assert_one_line_error(
        rtscope("check", "a0", "--baseline", "last:3"),
        "--baseline last:3: no stored run other than a0000000 of host board with benches lat.wakeup on hardware time started before it",
    )


def test_a_run_off_identical_instruction_time_baselines_changed_what_it_executes():
    # In instruction time a rerun repeats to the bit: two baselines that agree exactly leave no doubt, and a
    # run 20 % slower than them regressed, exactly (no spread to weigh it against).
    same = [builders.guest_doc(builders.result_doc(run_id=f"{n:016x}", benches={"lat.wakeup": 8000.0})) for n in (1, 2)]
    slower = builders.guest_doc(builders.result_doc(run_id="3" * 16, benches={"lat.wakeup": 9600.0}))
    (verdict,) = judge.Judge(baselines=tuple(same)).verdicts(slower)
    assert verdict.failed and verdict.changes[0].verdict == "REGRESSED"
    assert verdict.changes[0].difference.test == "exact"
    (again,) = judge.Judge(baselines=tuple(same)).verdicts(same[0])
    assert not again.failed and again.changes[0].verdict == "ok"
