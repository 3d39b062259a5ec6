"""Retention: the exact merge of a board's windows (rtscope.analysis.merge) against the samples they were
made of, and compact (rtscope.execution.retention) on SQLite and PostgreSQL: idempotent, one transaction per
merged window, windows of another step or kernel never merged, change points still found after it."""

import copy
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from rtscope.analysis import changes, merge
from rtscope.errors import RtscopeError
from rtscope.execution import retention
from rtscope.execution.retention import RetentionPolicy
from rtscope.model import result
from rtscope.store import database
from rtscope.store.database import Store
from support import builders, windows

START = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)
QUANTILES = windows.QUANTILES


def measured(rng, count, *, start=START, every=timedelta(minutes=5), first=1, per_second=40, **shape):
    """``count`` consecutive one-minute windows of board rpi4, ``every`` apart, and each metric's samples."""
    made = [
        windows.window_doc(rng, f"{first + n:016x}", "rpi4", first + n, start + n * every, per_second=per_second,
                           **shape)
        for n in range(count)
    ]  # fmt: skip
    return [doc for doc, _ in made], {key: np.concatenate([s[key] for _, s in made]) for key in made[0][1]}


def bucket(value):
    return int(windows.bucket_index(np.array([int(value)]))[0])


# --- The merge ---------------------------------------------------------------------------------------------


def test_merged_windows_keep_count_extremes_and_mean_and_every_quantile_within_its_bucket():
    docs, samples = measured(np.random.default_rng(7), 12, per_second=200, tail_scale=3.0)
    merged = merge.merge(list(reversed(docs)), "00000000000000aa")  # any order: merged by start
    result.from_doc(merged, "merged")  # a valid format-4 result
    assert merged["monitor"] == {**docs[0]["monitor"], "windows": 12}
    assert (merged["run"]["started"], merged["run"]["finished"]) == (
        docs[0]["run"]["started"],
        docs[-1]["run"]["finished"],
    )
    for metric in merged["metrics"]:
        truth = np.sort(samples[metric["id"]])
        figures = metric["stats"]
        assert figures["count"] == len(truth) == sum(b[2] for b in metric["histogram"]["buckets"])
        assert (figures["min"], figures["max"]) == (truth[0], truth[-1])
        assert figures["mean"] == pytest.approx(truth.mean(), abs=1e-3)
        assert figures["stddev"] == pytest.approx(truth.std(ddof=1), rel=1e-6)
        for key, quantile in QUANTILES.items():
            exact = truth[int(np.ceil(quantile * len(truth))) - 1]
            assert bucket(figures[key]) == bucket(exact), key
        assert metric["threshold"]["over"] == int((truth > windows.THRESHOLD_NS).sum())
        assert max(v for v in metric["series"]["max"] if v is not None) == truth[-1]
        assert metric["checks"]["wakeups"] == len(truth)
        assert metric["checks"]["interval_ns"] == windows.INTERVAL_US * 1000
        assert "raw" not in metric


def test_merging_merged_windows_is_merging_them_all_at_once():
    docs, _ = measured(np.random.default_rng(8), 8, every=timedelta(hours=3))
    once = merge.merge(docs, "00000000000000aa")
    twice = merge.merge(
        [merge.merge(docs[:3], "00000000000000bb"), merge.merge(docs[3:], "00000000000000cc")], "00" * 8
    )
    assert twice["monitor"]["windows"] == once["monitor"]["windows"] == 8
    for one, two in zip(once["metrics"], twice["metrics"], strict=True):
        assert one["histogram"] == two["histogram"]
        assert {k: v for k, v in one["stats"].items() if k not in ("mean", "stddev")} == {
            k: v for k, v in two["stats"].items() if k not in ("mean", "stddev")
        }
        assert one["stats"]["stddev"] == pytest.approx(two["stats"]["stddev"], rel=1e-9)
        assert len(two["series"]["max"]) <= merge.SERIES_POINTS


def test_adjusted_figures_are_exact_over_the_windows_adjusted_ones():
    docs, _ = measured(np.random.default_rng(9), 3)
    for doc, overhead in zip(docs, (20, 30, 40), strict=True):
        for metric in doc["metrics"]:
            metric["overhead_ns"] = overhead
            metric["adjusted"] = {k: v if k in ("count", "stddev") else max(0.0, v - overhead)
                                  for k, v in metric["stats"].items()}  # fmt: skip
    merged = merge.merge(docs, "00000000000000aa")["metrics"][0]
    assert merged["overhead_ns"] == pytest.approx(30.0)
    assert merged["adjusted"]["max"] == max(
        d["metrics"][0]["stats"]["max"] - o for d, o in zip(docs, (20, 30, 40), strict=True)
    )
    assert merged["adjusted"]["min"] == min(
        d["metrics"][0]["stats"]["min"] - o for d, o in zip(docs, (20, 30, 40), strict=True)
    )
    assert merged["adjusted"]["p99"] == pytest.approx(merged["stats"]["p99"] - 30.0)


def test_validity_and_checks_merge_as_their_meaning_says():
    docs, _ = measured(np.random.default_rng(10), 3)
    docs[1]["metrics"][0].update(valid=False, invalid_reason="throttled: 2 samples across RT throttling's stops")
    for n, (doc, (flag, failed)) in enumerate(zip(docs, ((True, False), (False, False), (True, True)), strict=True)):
        doc["metrics"][0]["checks"].update(same_cpu=flag, queue_failed=failed, spread_max=0.5 * n)
    merged = merge.merge(docs, "00000000000000aa")
    first = merged["metrics"][0]
    assert not first["valid"]
    assert first["invalid_reason"] == "throttled: 2 samples across RT throttling's stops (1 of 3 windows)"
    assert (first["checks"]["same_cpu"], first["checks"]["queue_failed"], first["checks"]["spread_max"]) == (
        False,
        True,
        1.0,
    )
    assert merged["metrics"][1]["valid"]
    again = merge.merge(
        [merged, *measured(np.random.default_rng(11), 1, first=4, start=START + timedelta(hours=1))[0]], "0" * 16
    )
    assert again["metrics"][0]["invalid_reason"].endswith("(1 of 4 windows)")


def test_per_period_metrics_merge_their_periods():
    docs = []
    for n, periods in enumerate(([10, 12, 11], [13, 9])):
        doc = windows.skeleton(f"{n + 1:016x}", "rpi4", n + 1, START + timedelta(minutes=n), 60)
        doc["benches"] = [{"id": "tm.basic", "params": {}, "status": "ok", "elapsed_s": 60.0, "error": None}]
        doc["metrics"] = [{**builders.count_metric("tm.basic", periods, baseline_ratio=1.0), "labels": {}}]
        docs.append(result.from_doc(doc, "window").doc)
    metric = merge.merge(docs, "00000000000000aa")["metrics"][0]
    assert metric["periods"] == [10, 12, 11, 13, 9]
    assert (metric["stats"]["count"], metric["stats"]["p50"], metric["stats"]["max"]) == (5, 11, 13)
    assert metric["baseline"]["ratio"] == 1.0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda doc: doc["monitor"].update(step="cpu"), "its step differs"),
        (lambda doc: doc["system"].update(kernel_release="6.2.0"), "kernel 6.1.0-test → 6.2.0"),
        (lambda doc: doc["benches"][0]["params"].update(interval_us=200), "interval_us 1000 → 200"),
        (lambda doc: doc["metrics"][1]["histogram"].update(sub_buckets=64), "lat.wakeup{cpu=0}'s histogram differs"),
        (lambda doc: doc["metrics"].pop(), "its metrics differ (lat.wakeup{cpu=0})"),
        (lambda doc: doc.update(version=3), "its format version differs"),
    ],
)
def test_windows_that_cannot_merge_exactly_are_refused_in_one_line(change, message):
    docs, _ = measured(np.random.default_rng(12), 2)
    change(docs[1])
    with pytest.raises(RtscopeError) as refused:
        merge.merge(docs, "00000000000000aa")
    assert str(refused.value).startswith("cannot merge window 2 of board 'rpi4' with window 1: ")
    assert message in str(refused.value) and "\n" not in str(refused.value)


def test_a_bucket_of_another_width_and_a_run_that_is_no_window_are_refused():
    docs, _ = measured(np.random.default_rng(13), 2)
    max(docs[1]["metrics"][0]["histogram"]["buckets"], key=lambda b: b[2])[1] += 1  # the mode: in both
    with pytest.raises(RtscopeError, match=r"^cannot merge lat\.wakeup: its bucket at \d+ is \d+ steps wide"):
        merge.merge(docs, "00000000000000aa")
    with pytest.raises(RtscopeError, match="^run 0123456789abcdef is not a monitored window: it does not merge$"):
        merge.merge([builders.result_doc()], "00000000000000aa")


# --- The policy ---------------------------------------------------------------------------------------------


def test_retention_tables():
    assert retention.parse_retention({}, "spec.toml [retention]") == RetentionPolicy(30, 42)
    assert retention.parse_retention({"keep_full": "8w", "keep_hourly": "2y"}, "x") == RetentionPolicy(56, 730)
    for table, message in (
        ({"keep": "30d"}, "spec.toml: unknown key 'keep' (retention takes keep_full, keep_hourly)"),
        ({"keep_full": 30}, 'spec.toml: keep_full is a duration in days as text, e.g. "30d", not 30'),
        ({"keep_full": "30s"}, "spec.toml: keep_full: bad duration '30s' (whole days, weeks or years, e.g. 30d"),
        (
            {"keep_full": "60d", "keep_hourly": "30d"},
            "spec.toml: keep_hourly (30 days) is shorter than keep_full (60 days)",
        ),
    ):
        with pytest.raises(RtscopeError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
            retention.parse_retention(table, "spec.toml")


# --- compact ------------------------------------------------------------------------------------------------


@pytest.fixture
def store(store_location):
    with Store.open(store_location, create=True) as opened:
        yield opened


def stored_hours(store, rng, hours=2, *, kernel_from=None, cpu_every=2):
    """``hours`` hours of five-minute windows, every ``cpu_every``-th one of step cpu; from window
    ``kernel_from`` on, kernel 6.2.0 (None: neither). Returns the documents."""
    docs, _ = measured(rng, 12 * hours, per_second=10)
    for n, doc in enumerate(docs):
        if cpu_every and n % cpu_every == 1:
            doc["monitor"]["step"] = "cpu"
        if kernel_from is not None and n + 1 >= kernel_from:
            doc["system"]["kernel_release"] = "6.2.0"
        store.add(result.from_doc(doc, "window"))
    return docs


def monitor_docs(store):
    return [run.doc for run in store.campaign_runs("a000000000000001")]


def test_compact_merges_each_hour_per_step_and_kernel_and_is_idempotent(store, monkeypatch):
    docs = stored_hours(store, np.random.default_rng(20), kernel_from=19)
    assert retention.compact(store, "a000000000000001", RetentionPolicy(), START).replaced == 0  # all too young
    later = START + timedelta(days=31)
    summary = retention.compact(store, "a000000000000001", RetentionPolicy(), later)
    # Hour 1: idle and cpu; hour 2: idle and cpu before and after the kernel changed at window 19.
    assert (summary.made, summary.replaced, summary.refused) == ({"hourly": 6, "daily": 0}, 24, ())
    kept = monitor_docs(store)
    assert sorted(doc["monitor"]["windows"] for doc in kept) == [3, 3, 3, 3, 6, 6]
    assert {(doc["monitor"]["step"], doc["system"]["kernel_release"]) for doc in kept} == {
        ("idle", "6.1.0-test"), ("cpu", "6.1.0-test"), ("idle", "6.2.0"), ("cpu", "6.2.0")
    }  # fmt: skip
    worst = max(m["stats"]["max"] for doc in docs for m in doc["metrics"] if m["id"] == "lat.wakeup")
    assert max(doc["metrics"][0]["stats"]["max"] for doc in kept) == worst
    assert len(store.metric_history("lat.wakeup", "max")) == 6  # the merged-from windows' metrics went too
    reads = []
    monkeypatch.setattr(Store, "documents", lambda self, ids: reads.append(ids))
    # Again: the hours passed are marked, none of their documents is read (two steps leave two per hour).
    assert retention.compact(store, "a000000000000001", RetentionPolicy(), later).text() == "nothing to merge"
    assert reads == []
    monkeypatch.undo()
    daily = retention.compact(store, "a000000000000001", RetentionPolicy(), START + timedelta(days=367))
    # One day: each step's hours before the kernel changed merge; after it, one hour each is left.
    assert (daily.made, daily.replaced) == ({"hourly": 0, "daily": 2}, 4)
    assert sorted(doc["monitor"]["windows"] for doc in monitor_docs(store)) == [3, 3, 9, 9]


def test_interrupted_windows_are_kept_as_they_are(store):
    docs, _ = measured(np.random.default_rng(21), 3, per_second=10)
    docs[1]["run"]["status"] = "interrupted"
    for doc in docs:
        store.add(result.from_doc(doc, "window"))
    summary = retention.compact(store, "a000000000000001", RetentionPolicy(), START + timedelta(days=40))
    assert summary.replaced == 2
    assert sorted(doc["run"]["status"] for doc in monitor_docs(store) + [store.get(docs[1]["run"]["id"]).doc]) == [
        "complete",
        "interrupted",
    ]


def test_a_crash_inside_a_merge_leaves_the_windows_as_they_were(store, monkeypatch):
    stored_hours(store, np.random.default_rng(22), hours=1, cpu_every=None)
    before = sorted(doc["run"]["id"] for doc in monitor_docs(store))
    real_row = database._metric_row

    def crash(run_id, metric):  # after the windows were deleted, before the merged run's metrics are in
        raise RuntimeError("power cut")

    monkeypatch.setattr(database, "_metric_row", crash)
    with pytest.raises(RuntimeError, match="power cut"):
        retention.compact(store, "a000000000000001", RetentionPolicy(), START + timedelta(days=31))
    monkeypatch.setattr(database, "_metric_row", real_row)
    assert sorted(doc["run"]["id"] for doc in monitor_docs(store)) == before
    assert len(store.metric_history("lat.wakeup", "max")) == 12
    assert retention.compact(store, "a000000000000001", RetentionPolicy(), START + timedelta(days=31)).replaced == 12
    assert [doc["monitor"]["windows"] for doc in monitor_docs(store)] == [12]


def test_a_group_whose_windows_went_meanwhile_is_left_and_named(store, monkeypatch):
    stored_hours(store, np.random.default_rng(23), hours=1, cpu_every=None)
    real_documents = Store.documents

    def and_one_goes(self, run_ids):  # another compaction took a window after this one read the list
        found = real_documents(self, run_ids)
        with self._db.transaction():
            self._db.execute("DELETE FROM runs WHERE id = ?", (run_ids[0],))
        return found

    monkeypatch.setattr(Store, "documents", and_one_goes)
    summary = retention.compact(store, "a000000000000001", RetentionPolicy(), START + timedelta(days=31))
    assert summary.refused == ("1 of the runs to replace are no longer stored",)
    assert len(monitor_docs(store)) == 11


def test_change_points_are_found_across_merged_windows(db_path):
    rng = np.random.default_rng(24)
    with Store.open(db_path, create=True) as store:
        for hour in range(24):
            for n in range(12):
                number = hour * 12 + n + 1
                doc, _ = windows.window_doc(rng, f"{number:016x}", "rpi4", number,
                                            START + timedelta(hours=hour, minutes=5 * n), per_second=10,
                                            scale=1.3 if hour >= 12 else 1.0)  # fmt: skip
                if hour >= 12:
                    doc["system"]["kernel_release"] = "6.2.0"
                store.add(result.from_doc(doc, "window"))
        summary = retention.compact(store, "a000000000000001", RetentionPolicy(), START + timedelta(days=32))
        assert (summary.made["hourly"], summary.replaced) == (24, 288)
        rows = store.metric_history("lat.wakeup", "p50")
        found = changes.explained(changes.find_in_rows("lat.wakeup", "p50", rows), lambda i: store.get(i).doc)
    assert len(found) == 1
    assert found[0].first_after.started == builders_time(START + timedelta(hours=12))
    assert found[0].changed == ("kernel 6.1.0-test → 6.2.0",)


def test_where_merged_windows_meet_measured_ones_the_merge_is_what_changed(db_path):
    """An hour's document holds the worst of its 12 windows: the maximum of a series steps down where
    retention's merged documents end, with nothing changed on the board, and `changes` says so."""
    rng = np.random.default_rng(26)
    with Store.open(db_path, create=True) as store:
        for number in range(1, 24 * 12 + 1):
            doc, _ = windows.window_doc(rng, f"{number:016x}", "rpi4", number,
                                        START + timedelta(minutes=5 * (number - 1)), per_second=10)  # fmt: skip
            store.add(result.from_doc(doc, "window"))
        retention.compact(store, "a000000000000001", RetentionPolicy(), START + timedelta(days=30, hours=12))
        rows = store.metric_history("lat.wakeup", "max")
        found = changes.explained(changes.find_in_rows("lat.wakeup", "max", rows), lambda i: store.get(i).doc)
    assert len(rows) == 12 + 12 * 12
    [step] = found
    assert step.first_after.started == builders_time(START + timedelta(hours=12)) and step.step.ratio < 1
    assert step.changed == ("windows merged 12 → 1",)


def builders_time(moment):
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def test_the_summary_says_what_it_did():
    assert retention.CompactSummary({"hourly": 2, "daily": 1}, 30, ("x",)).text() == (
        "30 windows merged into 2 hourly, 1 daily documents; not merged: x"
    )
    assert copy.copy(retention.CompactSummary()).text() == "nothing to merge"


def test_rtscope_compact_merges_a_monitors_windows_now(rtscope, db_path):
    old = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(days=40)
    with Store.open(db_path, create=True) as store:
        for doc in measured(np.random.default_rng(25), 6, start=old, per_second=10)[0]:
            store.add(result.from_doc(doc, "window"))
    done = rtscope("compact", "--monitor", "lab")
    assert (done.status, done.out) == (0, "monitor lab: 6 windows merged into 1 hourly document\n")
    shown = rtscope("show", "last")  # the merged document reads as any run
    assert shown.status == 0 and "lat.wakeup" in shown.out
    assert rtscope("compact", "--monitor", "lab", "--keep-full", "7d").out == "monitor lab: nothing to merge\n"
    refused = rtscope("compact", "--monitor", "lab", "--keep-full", "30d", "--keep-hourly", "1w")
    assert (refused.status, refused.err) == (
        2,
        "rtscope: --keep-hourly (7 days) is shorter than --keep-full (30 days)\n",
    )
    unknown = rtscope("compact", "--monitor", "nope")
    assert unknown.status == 2 and unknown.err.count("\n") == 1
