"""The exact merge of a monitored board's windows (docs/retention.md): the documents of N windows of one board,
one schedule step and one system, made one document that holds them all, as if one run had measured them.

What is exact: the histograms (the probe's log-linear buckets have the same edges in every run: counts of
the same bucket add), the count, the smallest and largest sample (the maximum is never lost), the mean
(count-weighted) and the standard deviation (pooled from each window's count, mean and deviation), the
samples over a threshold, a per-period metric's periods (concatenated; its statistics computed over all).
What is read again: the percentiles, from the merged histogram as the probe reads them (the middle of the
bucket of rank ⌈q·n⌉, within the smallest and largest sample), so each lies in the bucket that holds the
true quantile of all the samples: within one bucket (0.78 % of its value) of the truth.

What a merged document does not hold: the raw samples (a window's first samples, in order; none merges
exactly), each bench's seed and phase; the worst-per-second series is coarsened to at most
``SERIES_POINTS`` windows over the merged span (each window's worst kept, so its maximum is the merged
maximum); of the kernel traces of spikes, the ``SPIKES_KEPT`` worst (by their sample's lateness) are kept.

Overhead adjustment: each window subtracted its own calibrated timestamp overhead; the merged document's
``overhead_ns`` is their count-weighted mean, its adjusted minimum, maximum and mean are exact over the
windows' adjusted figures, and its adjusted percentiles are the merged ones less that mean (floored at 0).

Windows that differ in what shapes a measurement are refused, with one line naming what differs: the
monitor, board or step, the system as rtscope.analysis.changes.explain compares it (a change point must stay
visible, never be averaged away), the time base, the benches and their parameters, the real-time setup,
the clock, and each metric's unit and histogram layout. :func:`key` is what must agree, for grouping.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from rtscope.analysis import changes, stats
from rtscope.errors import RtscopeError
from rtscope.model import result

# A merged document's worst-per-window series has at most this many windows over its span.
SERIES_POINTS = 24
# The window lengths (s) a merged series may take: the first that is a whole multiple of every merged
# window's length and leaves at most SERIES_POINTS over the span: an hour's merge keeps the worst of each five
# minutes (a monitor's window: what the long-term view plots), a day's the worst of each hour. Finer, the
# series was a seventh of an hourly document's compressed bytes (evaluation/retention.py).
_SERIES_LENGTHS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400)
# Kernel traces of spikes a merged metric keeps: the worst, by how late their sample was.
SPIKES_KEPT = 4
# The longest list of throttled stretches the schema allows.
_THROTTLED_AT_MOST = 8
# Checks that state what was measured (the CPU, the interval, the number of threads): equal in every window.
_SETTING_CHECKS = frozenset({"cpu", "interval_ns", "threads", "period_us", "library_version", "batch"})
# "… (3 of 12 windows)": how many merged windows a reason held, stripped when merged again.
_WINDOWS_SUFFIX = re.compile(r" \(\d+ of \d+ windows\)$")
_REASONS_SHOWN = 3


def key(doc: dict[str, Any]) -> str:
    """What must be equal in windows that merge, as one text: equal keys merge (:func:`merge`)."""
    return json.dumps(_parts(doc), sort_keys=True)


def merge(docs: Sequence[dict[str, Any]], run_id: str) -> dict[str, Any]:
    """One result document (run id ``run_id``) that holds every window of ``docs`` — monitored windows of
    one board (``monitor`` set), measured or merged before — as described above; ``monitor.window`` is the
    first window's, ``monitor.windows`` the sum. The documents are not changed.

    Raises RtscopeError, one line naming the window and what differs, when they cannot merge exactly."""
    if not docs:
        raise ValueError("merge needs at least one window")
    for doc in docs:
        if not doc.get("monitor"):
            raise RtscopeError(f"run {doc['run']['id']} is not a monitored window: it does not merge")
    ordered = sorted(docs, key=lambda doc: (_time(doc["run"]["started"]), doc["monitor"]["window"]))
    first = ordered[0]
    for doc in ordered[1:]:
        _refuse_differences(first, doc)
    start = _time(first["run"]["started"])
    merged = {name: copy.deepcopy(value) for name, value in first.items() if name not in ("metrics", "campaign")}
    merged["run"] = _run(ordered, run_id)
    merged["timing"] = _timing(ordered)
    merged["config"]["warnings"] = list(dict.fromkeys(w for doc in ordered for w in doc["config"]["warnings"]))
    merged["benches"] = _benches(ordered)
    merged["monitor"] = {**first["monitor"], "windows": sum(doc["monitor"]["windows"] for doc in ordered)}
    offsets = [(_time(doc["run"]["started"]) - start).total_seconds() for doc in ordered]
    span = (max(_time(doc["run"]["finished"]) for doc in ordered) - start).total_seconds()
    merged["metrics"] = [
        _metric(merged, [(doc, doc["metrics"][n], offset) for doc, offset in zip(ordered, offsets, strict=True)], span)
        for n in range(len(first["metrics"]))
    ]
    _set_baselines(merged["metrics"])
    return merged


# --- What must agree ------------------------------------------------------------------------------------


def _parts(doc: dict[str, Any]) -> dict[str, Any]:
    """What shapes a window's measurement, by the name a refusal gives it."""
    monitor, system, timing, config = doc.get("monitor") or {}, doc["system"], doc["timing"], doc["config"]
    return {
        "format version": doc["version"],
        "monitor": [monitor.get("id"), monitor.get("board")],
        "step": monitor.get("step"),
        "time base": result.time_base_text(doc),
        "system": [system.get(name) for name in ("os", "kernel_release", "kernel_version", "cmdline", "os_config")],
        "host": system.get("hostname"),
        "probe": [doc["run"]["probe_version"], doc["run"]["port"]],
        "loads": doc.get("loads"),
        "target": (doc.get("target") or {}).get("name"),
        "benches": [[bench["id"], bench["params"], bench["status"]] for bench in doc["benches"]],
        "real-time setup": [config["requested"], config["granted"]],
        "clock": [timing["clock"], timing["clock_resolution_ns"], timing["cycle_counter"]],
        "metrics": [_metric_parts(metric_doc) for metric_doc in doc["metrics"]],
    }


def _metric_parts(metric_doc: dict[str, Any]) -> dict[str, Any]:
    histogram = metric_doc.get("histogram")
    threshold, throttled = metric_doc.get("threshold"), metric_doc.get("throttled")
    return {
        "id": metric_doc["id"],
        "bench": metric_doc["bench"],
        "unit": metric_doc["unit"],
        "labels": result.labels(metric_doc),
        "cycles": metric_doc.get("cycles") is not None,
        "histogram": None
        if histogram is None
        else [
            histogram["scheme"],
            histogram["sub_buckets"],
            histogram["overflow_above"],
            result.histogram_step(metric_doc),
        ],
        "period_s": metric_doc.get("period_s"),
        "threshold": None if threshold is None else threshold["ns"],
        "throttling": None if throttled is None else [throttled["period_us"], throttled["runtime_us"]],
        "settings": {name: value for name, value in metric_doc["checks"].items() if name in _SETTING_CHECKS},
    }


def _refuse_differences(first: dict[str, Any], doc: dict[str, Any]) -> None:
    ours, theirs = _parts(first), _parts(doc)
    different = [name for name in ours if ours[name] != theirs[name]]
    if not different:
        return
    name = different[0]
    what = f"its {_differ(name)}"
    if name in ("system", "host", "probe", "loads", "target", "benches"):
        said = [line for m in first["metrics"] for line in changes.explain(first, doc, m["id"])]
        what = said[0] if said else what
    elif name == "metrics":
        what = _metrics_difference(ours["metrics"], theirs["metrics"])
    raise RtscopeError(
        f"cannot merge window {doc['monitor']['window']} of board {doc['monitor']['board']!r} with window "
        f"{first['monitor']['window']}: {what}"
    )


def _differ(name: str) -> str:
    return f"{name} {'differ' if name.endswith('s') else 'differs'}"


def _metrics_difference(ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> str:
    ids, other_ids = [m["id"] for m in ours], [m["id"] for m in theirs]
    if ids != other_ids:
        missing = [i for i in ids if i not in other_ids] or [i for i in other_ids if i not in ids]
        return f"its metrics differ ({', '.join(missing) or 'their order'})"
    for mine, other in zip(ours, theirs, strict=True):
        for part in mine:
            if mine[part] != other[part]:
                return f"{mine['id']}'s {_differ(part)} ({mine[part]} → {other[part]})"
    return "its metrics differ"  # unreachable: _parts found a difference


# --- The run ---------------------------------------------------------------------------------------------


def _time(utc: str) -> datetime:
    return datetime.fromisoformat(utc)


def _run(ordered: list[dict[str, Any]], run_id: str) -> dict[str, Any]:
    first = ordered[0]["run"]
    run = {**copy.deepcopy(first), "id": run_id}
    run["finished"] = max((doc["run"]["finished"] for doc in ordered), key=_time)
    statuses = {doc["run"]["status"] for doc in ordered}
    run["status"] = next(s for s in ("failed", "interrupted", "complete") if s in statuses)
    if len({doc["run"].get("seed") for doc in ordered}) > 1:
        run.pop("seed", None)  # each window drew its own phases
    return run


def _timing(ordered: list[dict[str, Any]]) -> dict[str, Any]:
    """The first window's timing, its calibrations (clock cost, counter rate) the mean of the windows'."""
    timing: dict[str, Any] = copy.deepcopy(ordered[0]["timing"])
    weights = [doc["monitor"]["windows"] for doc in ordered]
    for name in ("clock_overhead_ns", "cycles_per_ns", "cycle_overhead_cycles"):
        values = [doc["timing"][name] for doc in ordered]
        if all(value is not None for value in values):
            timing[name] = _weighted_mean(values, weights)
    return timing


def _benches(ordered: list[dict[str, Any]]) -> list[dict[str, Any]]:
    benches = []
    for n, bench in enumerate(ordered[0]["benches"]):
        merged = {name: value for name, value in bench.items() if name not in ("phase_ns", "startup_ns")}
        merged["elapsed_s"] = sum(doc["benches"][n]["elapsed_s"] for doc in ordered)
        merged["error"] = next((doc["benches"][n]["error"] for doc in ordered if doc["benches"][n]["error"]), None)
        benches.append(copy.deepcopy(merged))
    return benches


def _weighted_mean(values: Sequence[float], weights: Sequence[float]) -> float:
    return sum(v * w for v, w in zip(values, weights, strict=True)) / sum(weights)


# --- A metric --------------------------------------------------------------------------------------------

Window = tuple[dict[str, Any], dict[str, Any], float]  # (document, its metric, seconds after the first's start)


def _metric(merged_doc: dict[str, Any], windows: list[Window], span: float) -> dict[str, Any]:
    metric_docs = [metric_doc for _, metric_doc, _ in windows]
    first = metric_docs[0]
    drop = ("raw", "raw_dropped", "spikes", "throttled", "below_resolution")
    metric = {name: copy.deepcopy(value) for name, value in first.items() if name not in drop}
    metric["valid"] = all(m["valid"] for m in metric_docs)
    metric["invalid_reason"] = None if metric["valid"] else _invalid_reason(windows)
    metric["checks"] = _checks(windows)
    if result.is_periodic(first):
        _merge_periods(metric, metric_docs)
        return metric
    counts = [m["stats"]["count"] for m in metric_docs]
    metric["overhead_ns"] = _weighted_mean([m["overhead_ns"] for m in metric_docs], counts) if sum(counts) else 0.0
    metric["histogram"], total = _histogram(metric_docs)
    step = result.histogram_step(first)
    metric["stats"] = _summary([m["stats"] for m in metric_docs], metric["histogram"]["buckets"], total, step)
    metric["adjusted"] = _adjusted([m["adjusted"] for m in metric_docs], metric["stats"], metric["overhead_ns"])
    if first["cycles"] is not None:
        metric["cycles"] = _cycles([m["cycles"] for m in metric_docs], metric["stats"], merged_doc["timing"])
    if first["threshold"] is not None:
        metric["threshold"] = {"ns": first["threshold"]["ns"], "over": sum(m["threshold"]["over"] for m in metric_docs)}
    metric["series"] = _series(windows, span)
    throttled = [(m["throttled"], offset) for _, m, offset in windows if m.get("throttled")]
    if throttled:
        metric["throttled"] = _throttled(throttled)
    spikes = sorted((s for m in metric_docs for s in m.get("spikes") or []), key=lambda s: s["late_ns"])
    if spikes:
        metric["spikes"] = copy.deepcopy(spikes[-SPIKES_KEPT:][::-1])
    clock = result.clock_step(merged_doc, metric)
    below = [name for name, value in metric["stats"].items() if result.below_resolution(clock, name, value)]
    if below and any("below_resolution" in m for m in metric_docs):
        metric["below_resolution"] = below
    return metric


def _histogram(metric_docs: list[dict[str, Any]]) -> tuple[dict[str, Any], int]:
    """The summed histogram (refusing buckets whose edges differ) and the samples it holds."""
    counts: dict[int, list[int]] = {}
    for metric_doc in metric_docs:
        for lower, width, count in metric_doc["histogram"]["buckets"]:
            bucket = counts.setdefault(lower, [width, 0])
            if bucket[0] != width:
                raise RtscopeError(
                    f"cannot merge {metric_doc['id']}: its bucket at {lower} is {width} steps wide in one window, "
                    f"{bucket[0]} in another"
                )
            bucket[1] += count
    histogram = copy.deepcopy(metric_docs[0]["histogram"])
    histogram["buckets"] = [[lower, width, count] for lower, (width, count) in sorted(counts.items())]
    histogram["overflow"] = sum(m["histogram"]["overflow"] for m in metric_docs)
    return histogram, sum(count for _, count in counts.values()) + histogram["overflow"]


def _moments(parts: Sequence[tuple[int, float, float]]) -> tuple[int, float | None, float | None]:
    """Count, mean and standard deviation (n − 1, as the probe's) of samples given as (count, mean,
    deviation) per window; None without samples."""
    parts = [part for part in parts if part[0]]
    n = sum(count for count, _, _ in parts)
    if n == 0:
        return 0, None, None
    mean = sum(count * part_mean for count, part_mean, _ in parts) / n
    squares = sum((count - 1) * sd**2 + count * (part_mean - mean) ** 2 for count, part_mean, sd in parts)
    return n, mean, math.sqrt(squares / (n - 1)) if n > 1 else 0.0


_QUANTILES = {"p50": 0.50, "p90": 0.90, "p99": 0.99, "p999": 0.999, "p9999": 0.9999}


def _summary(summaries: list[dict[str, Any]], buckets: list[list[int]], total: int, step: float) -> dict[str, Any]:
    count, mean, stddev = _moments([(s["count"], s["mean"], s["stddev"] or 0.0) for s in summaries])
    if not count:
        return {"count": 0, **dict.fromkeys(("min", "max", "mean", "stddev", *_QUANTILES))}
    smallest = min(s["min"] for s in summaries if s["count"])
    largest = max(s["max"] for s in summaries if s["count"])
    figures = {"count": count, "min": smallest, "max": largest, "mean": mean, "stddev": stddev}
    for name, quantile in _QUANTILES.items():
        value = stats.histogram_quantile(buckets, total, quantile) * step
        figures[name] = min(max(value, smallest), largest)
    return figures


def _adjusted(summaries: list[dict[str, Any]], measured: dict[str, Any], overhead: float) -> dict[str, Any]:
    """Overhead-adjusted figures: the extremes and the mean exact over the windows' adjusted ones, the
    percentiles the measured ones less the mean overhead (floored at 0), within the adjusted extremes."""
    if not measured["count"]:
        return dict(measured)
    count, mean, stddev = _moments([(s["count"], s["mean"], s["stddev"] or 0.0) for s in summaries])
    smallest = min(s["min"] for s in summaries if s["count"])
    largest = max(s["max"] for s in summaries if s["count"])
    figures = {"count": count, "min": smallest, "max": largest, "mean": mean, "stddev": stddev}
    for name in _QUANTILES:
        figures[name] = min(max(measured[name] - overhead, 0.0, smallest), largest)
    return figures


def _cycles(summaries: list[dict[str, Any]], measured: dict[str, Any], timing: dict[str, Any]) -> dict[str, Any]:
    """Cycle figures as the probe writes them: the moments exact (here: merged), the percentiles the
    measured ones in ns times the counter's rate."""
    count, mean, stddev = _moments([(s["count"], s["mean"], s["stddev"] or 0.0) for s in summaries])
    if not count:
        return dict(measured)
    figures = {
        "count": count,
        "min": min(s["min"] for s in summaries if s["count"]),
        "max": max(s["max"] for s in summaries if s["count"]),
        "mean": mean,
        "stddev": stddev,
    }
    rate = timing["cycles_per_ns"] or 0.0
    return {**figures, **{name: measured[name] * rate for name in _QUANTILES}}


def _series(windows: list[Window], span: float) -> dict[str, Any] | None:
    """The windows' worst-per-window series on one coarser time line from the first window's start: each
    window's entry placed by its middle (the bench's clock starts within a second or so of its run)."""
    series = [(m["series"], offset) for _, m, offset in windows]
    if any(s is None for s, _ in series):
        return None
    lengths = {s["window_s"] for s, _ in series if s is not None}
    length = next(
        (
            candidate
            for candidate in _SERIES_LENGTHS
            if all(abs(candidate / w - round(candidate / w)) < 1e-9 for w in lengths)
            and span / candidate <= SERIES_POINTS
        ),
        None,
    )
    if length is None:
        return None
    worst: list[int | None] = [None] * max(1, math.ceil(span / length))
    dropped = 0
    for one, offset in series:
        assert one is not None
        dropped += one["dropped"]
        for n, value in enumerate(one["max"]):
            if value is not None:
                at = min(len(worst) - 1, max(0, int((offset + (n + 0.5) * one["window_s"]) // length)))
                so_far = worst[at]
                worst[at] = value if so_far is None else max(so_far, value)
    return {"window_s": length, "max": worst, "dropped": dropped}


def _throttled(throttled: list[tuple[dict[str, Any], float]]) -> dict[str, Any]:
    first = throttled[0][0]
    return {
        "samples": sum(t["samples"] for t, _ in throttled),
        "longest_ns": max(t["longest_ns"] for t, _ in throttled),
        "at_s": sorted(at + offset for t, offset in throttled for at in t["at_s"])[:_THROTTLED_AT_MOST],
        "period_us": first["period_us"],
        "runtime_us": first["runtime_us"],
    }


def _invalid_reason(windows: list[Window]) -> str:
    """The distinct reasons of the invalid windows, and how many of the windows were invalid."""
    reasons: dict[str, None] = {}
    invalid = total = 0
    for doc, metric_doc, _ in windows:
        total += doc["monitor"]["windows"]
        if not metric_doc["valid"]:
            reason = _WINDOWS_SUFFIX.sub("", result.invalid_reason(metric_doc))
            invalid += _windows_in(result.invalid_reason(metric_doc), doc["monitor"]["windows"])
            reasons.update(dict.fromkeys(reason.split("; ")))
    shown = list(reasons)[:_REASONS_SHOWN]
    more = len(reasons) - len(shown)
    return "; ".join(shown) + (f"; … {more} more" if more else "") + f" ({invalid} of {total} windows)"


def _windows_in(reason: str, windows: int) -> int:
    """How many invalid windows a reason stands for: what a merged one's says, else all its windows."""
    found = _WINDOWS_SUFFIX.search(reason)
    return int(found[0].split()[0].lstrip("(")) if found else windows


def _checks(windows: list[Window]) -> dict[str, Any]:
    """The checks of the windows taken together: a setting (_SETTING_CHECKS: equal in every window, the key
    says so) and a text as the first window's; a flag of failure ("…_failed") true when any window's is,
    another flag (a verification) only when every window's is; a maximum ("…max…") the largest; another
    whole number (a count) summed; another figure (a share, a rate) the mean weighted by the windows'
    samples."""
    merged: dict[str, Any] = {}
    names = dict.fromkeys(name for _, m, _ in windows for name in m["checks"])
    weights = [max(1, m["stats"]["count"]) for _, m, _ in windows]
    for name in names:
        present = [(m["checks"][name], w) for (_, m, _), w in zip(windows, weights, strict=True) if name in m["checks"]]
        found = [value for value, _ in present]
        kinds = set(map(type, found))
        if name in _SETTING_CHECKS or not kinds <= {bool, int, float}:
            merged[name] = found[0]
        elif kinds == {bool}:
            merged[name] = any(found) if name.endswith("_failed") else all(found)
        elif "max" in name:
            merged[name] = max(found)
        elif kinds == {int}:
            merged[name] = sum(found)
        else:
            merged[name] = _weighted_mean(found, [w for _, w in present])
    return merged


def _merge_periods(metric: dict[str, Any], metric_docs: list[dict[str, Any]]) -> None:
    """A per-period metric: its periods (and their lengths) one after another, its figures computed
    exactly over them as the probe does (rts_summarize_exact); the baseline's ratio is set afterwards."""
    periods = [value for m in metric_docs for value in m["periods"]]
    metric["periods"] = periods
    if all("period_lengths_s" in m for m in metric_docs):
        metric["period_lengths_s"] = [length for m in metric_docs for length in m["period_lengths_s"]]
    ordered = sorted(periods)
    n = len(ordered)
    if n == 0:
        return
    mean = sum(ordered) / n
    figures: dict[str, Any] = {
        "count": n,
        "min": ordered[0],
        "max": ordered[-1],
        "mean": mean,
        "stddev": math.sqrt(sum((v - mean) ** 2 for v in ordered) / (n - 1)) if n > 1 else 0.0,
    }
    for name, quantile in _QUANTILES.items():
        rank = quantile * (n - 1)
        low = int(rank)
        figures[name] = ordered[-1] if low + 1 >= n else ordered[low] + (rank - low) * (ordered[low + 1] - ordered[low])
    metric["stats"] = figures
    offset = metric["overhead_ns"]
    metric["adjusted"] = {
        name: max(0.0, value - offset) if name in _QUANTILES or name in ("min", "max", "mean") else value
        for name, value in figures.items()
    }


def _set_baselines(metrics: list[dict[str, Any]]) -> None:
    """Each per-period metric's ratio to its baseline metric's median, over the merged periods."""
    by_id = {m["id"]: m for m in metrics}
    for metric in metrics:
        baseline = metric.get("baseline")
        if not baseline:
            continue
        base = by_id.get(baseline["metric"])
        usable = base is not None and base["valid"] and metric["valid"] and base["stats"]["p50"]
        baseline["ratio"] = metric["stats"]["p50"] / base["stats"]["p50"] if usable and base else None
