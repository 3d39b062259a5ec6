"""Result documents built to schema/result-v3.schema.json (square waves: v4), for tests that need runs
without measuring.

Figures are made up but consistent: each metric's distribution is scaled from one typical value, and
the adjusted figures are the measured ones minus the timestamp overhead.
"""

import copy
import json
import math
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from rtscope.model import result
from rtscope.paths import schema_path

# The schema of the format version the probe writes and these builders build.
SCHEMA = json.loads(schema_path(result.VERSION).read_text(encoding="utf-8"))

OVERHEAD_NS = 20.0
# Typical value in ns of each bench's one metric, as on an ordinary Linux desktop.
TYPICAL_NS = {"ctxsw.sem": 3200.0, "lat.wakeup": 15500.0, "clock.read": 20.0}
SAMPLES = 40_000
# Metrics the probe times with the clock itself, so they carry no cycle figures.
CLOCK_TIMED = {"lat.wakeup", "clock.read"}
_SPREAD = {"min": 0.9, "p50": 1.0, "p90": 1.1, "p99": 1.5, "p999": 3.0, "p9999": 5.0, "max": 7.0, "mean": 1.05}


def summary(typical_ns: float, count: int = SAMPLES, minus: float = 0.0) -> dict[str, Any]:
    """A distribution around ``typical_ns``, each figure less ``minus`` (floored at 0, as the probe does)."""
    figures = {key: max(0.0, typical_ns * factor - minus) for key, factor in _SPREAD.items()}
    return {"count": count, "stddev": typical_ns * 0.1, **figures}


def histogram(buckets: list[list[int]], *, step: float = 1.0, overflow_above: int = 1 << 40) -> dict[str, Any]:
    """The probe's log-linear histogram of ``buckets`` ([first index, width, samples]), its indexes in
    steps of ``step`` (said only when not 1)."""
    return {
        "scheme": "log-linear",
        "sub_buckets": 128,
        "buckets": buckets,
        "overflow": 0,
        "overflow_above": overflow_above,
        **({} if step == 1.0 else {"resolution": step}),
    }


def as_measured(
    figures: dict[str, Any], buckets: list[list[int]], *, step: float = 1.0, overflow_above: int = 1 << 40
) -> dict[str, Any]:
    """A metric's figures with nothing to adjust (adjusted as measured), no cycle counts, and the histogram
    of ``buckets``."""
    return {
        "stats": figures,
        "adjusted": copy.deepcopy(figures),
        "cycles": None,
        "histogram": histogram(buckets, step=step, overflow_above=overflow_above),
    }


def metric(metric_id: str, typical_ns: float, *, valid: bool = True) -> dict[str, Any]:
    """The metric of the bench of the same id."""
    return {
        "id": metric_id,
        "bench": metric_id,
        "unit": "ns",
        "description": f"one {metric_id} sample",
        "valid": valid,
        "invalid_reason": None if valid else "the partner thread did not run on the same CPU",
        "checks": {"same_cpu": valid},
        "overhead_ns": OVERHEAD_NS,
        "stats": summary(typical_ns),
        "adjusted": summary(typical_ns, minus=OVERHEAD_NS),
        "cycles": None if metric_id in CLOCK_TIMED else summary(typical_ns * 2.6),
        "histogram": histogram([[int(typical_ns), 16, SAMPLES]]),
        "threshold": None,
        "series": None,
    }


def count_metric(
    metric_id: str,
    periods: list[int],
    *,
    period_s: float = 30.0,
    baseline_ratio: float | None = None,
    valid: bool = True,
) -> dict[str, Any]:
    """A Thread-Metric style count metric of the bench of the same id: iterations per period."""
    ordered = sorted(periods)
    middle = len(ordered) // 2
    median = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    stats = {
        "count": len(periods),
        "min": ordered[0],
        "max": ordered[-1],
        "mean": sum(periods) / len(periods),
        "stddev": 0.0,
        "p50": median,
        "p90": ordered[-1],
        "p99": ordered[-1],
        "p999": ordered[-1],
        "p9999": ordered[-1],
    }
    return {
        "id": metric_id,
        "bench": metric_id,
        "unit": "count",
        "description": f"{metric_id} iterations per period",
        "valid": valid,
        "invalid_reason": None if valid else "Thread-Metric needs strict priorities on one CPU",
        "checks": {"strict_priorities": valid},
        "overhead_ns": 0.0,
        "stats": stats,
        "adjusted": copy.deepcopy(stats),
        "cycles": None,
        "histogram": None,
        "period_s": period_s,
        "periods": periods,
        "baseline": {"metric": "tm.basic", "ratio": baseline_ratio if valid else None},
        "threshold": None,
        "series": None,
    }


def result_doc(
    *,
    run_id: str = "0123456789abcdef",
    label: str | None = None,
    hostname: str = "fixture-host",
    benches: dict[str, float] | None = None,
    privileged: bool = True,
    status: str = "complete",
    invalid: tuple[str, ...] = (),
    started: str = "2024-05-01T10:00:00.000Z",
) -> dict[str, Any]:
    """A complete result document: ``benches`` maps bench ids to their metric's typical value in ns.

    Unprivileged runs are granted policy other and get the warnings the probe gives then.
    """
    benches = TYPICAL_NS if benches is None else benches
    requested = {
        "policy": "fifo",
        "priority": 80,
        "cpus": [1],
        "mlockall": True,
        "stack_prefault": True,
        "cpu_latency_us": 0,
    }
    granted = (
        requested
        if privileged
        else {**requested, "policy": "other", "priority": 0, "mlockall": False, "cpu_latency_us": None}
    )
    warnings = (
        []
        if privileged
        else [
            "mlockall not granted: Operation not permitted",
            "fifo priority 80 not granted: measuring at normal priority",
        ]
    )
    return {
        "format": "rtscope-result",
        "version": 3,
        "run": {
            "id": run_id,
            "started": started,
            "finished": _one_minute_after(started),
            "label": label,
            "probe_version": "0.1.0",
            "port": "posix",
            "status": status,
            "argv": ["rtscope-probe", "run", *benches],
        },
        "system": {
            "hostname": hostname,
            "os": "Linux",
            "kernel_release": "6.1.0-test",
            "kernel_version": "#1 SMP",
            "preempt_model": "dynamic",
            "realtime_kernel": False,
            "arch": "x86_64",
            "cpu_model": "Test CPU 3000",
            "cpu_count": 4,
            "cpus_online": "0-3",
            "governor": "performance",
            "clocksource": "tsc",
            "cmdline": "quiet",
            "isolated_cpus": "",
            "rt_runtime_us": 950000,
            "rt_period_us": 1000000,
            "virtualization": "none",
        },
        "timing": {
            "clock": "CLOCK_MONOTONIC",
            "clock_resolution_ns": 1,
            "clock_overhead_ns": OVERHEAD_NS,
            "cycle_counter": "rdtscp",
            "cycles_per_ns": 2.6,
            "cycle_overhead_cycles": 52,
        },
        "config": {"requested": requested, "granted": copy.deepcopy(granted), "warnings": warnings},
        "benches": [
            {"id": bench_id, "params": {"cpu": 1}, "status": "ok", "elapsed_s": 60.0, "error": None}
            for bench_id in benches
        ],
        "metrics": [metric(bench_id, typical, valid=bench_id not in invalid) for bench_id, typical in benches.items()],
    }


def campaign_run(
    number: int, axes: dict[str, str], metrics: list[dict[str, Any]], *, name: str = "lab", repetition: int = 1
) -> dict[str, Any]:
    """A format-4 run of campaign ``name`` in the cell of ``axes`` holding ``metrics``."""
    doc = result_doc(run_id=f"{number:016x}", benches={})
    doc["version"] = 4
    cell = " ".join(f"{axis}={value}" for axis, value in axes.items())
    doc["run"]["label"] = f"{name}: {cell} #{repetition}"
    doc["benches"] = [
        {"id": bench, "params": {}, "status": "ok", "elapsed_s": 1.0, "error": None}
        for bench in dict.fromkeys(m["bench"] for m in metrics)
    ]
    doc["metrics"] = metrics
    doc["campaign"] = {
        "name": name,
        "id": "c0ffee00c0ffee00",
        "cell": cell,
        "axes": axes,
        "repetition": repetition,
        "repetitions": 1,
    }
    return doc


def monitor_window(
    run_id: str,
    board: str,
    window: int,
    *,
    step: str = "idle",
    status: str = "complete",
    name: str = "lab",
    monitor_id: str = "a000000000000001",
    windows: int = 1,
) -> dict[str, Any]:
    """A format-4 run that is window ``window`` of ``board`` in monitor ``name`` (rtscope monitor)."""
    doc = result_doc(run_id=run_id, status=status)
    doc["version"] = 4
    for metric_doc in doc["metrics"]:
        metric_doc["labels"] = {}
    doc["monitor"] = {"name": name, "id": monitor_id, "board": board, "step": step, "window": window,
                      "windows": windows}  # fmt: skip
    return doc


def write(path: Path, doc: dict[str, Any]) -> Path:
    """Write ``doc`` as JSON to ``path`` and return the path."""
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return path


def _one_minute_after(utc: str) -> str:
    moment = datetime.fromisoformat(utc) + timedelta(minutes=1)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def wave_metrics(
    model: str,
    period_us: int,
    *,
    error: float,
    worst: float,
    periods: int = 1000,
    resolution_ns: int = 100,
    valid: bool = True,
) -> list[dict[str, Any]]:
    """wave.square's four metrics of one model at one nominal period, labelled as docs/wave.md says, with
    wave.period's checks. Of the ``periods`` judged, all but one lie evenly within ± ``error`` (relative)
    of the nominal period, their high time half of it; one is ``worst`` too long, all of its excess high.
    So wave.rel_error's max is ``worst`` (when worst ≥ error) and wave.period's max is nominal × (1 + worst)."""
    nominal = period_us * 1000.0
    high_worst = nominal / 2 + nominal * worst
    figures = {  # metric: (unit, histogram step, low, high, worst)
        "wave.period": ("ns", 1.0, nominal * (1 - error), nominal * (1 + error), nominal * (1 + worst)),
        "wave.high": ("ns", 1.0, nominal / 2 * (1 - error), nominal / 2 * (1 + error), high_worst),
        "wave.rel_error": ("ratio", 1e-6, 0.0, error, worst),
        "wave.duty": ("percent", 0.001, 50 * (1 - error), 50 * (1 + error), 100 * high_worst / (nominal * (1 + worst))),
    }
    metrics = []
    for metric_id, (unit, step, low, high, longest) in figures.items():
        stats = _evenly_and_one(low, high, longest, periods)
        first, width = math.floor(low / step), max(1, math.ceil((high - low) / step))
        buckets = [[first, width, periods - 1], [max(first + width, math.floor(stats["max"] / step)), 1, 1]]
        metrics.append(
            {
                "id": metric_id,
                "bench": "wave.square",
                "unit": unit,
                "labels": {"model": model, "period_us": period_us},
                "description": f"one {metric_id} sample",
                "valid": valid,
                "invalid_reason": None if valid else "the observer was blind for 12.0 % of the run (max_blind 10.0 %)",
                "checks": {},
                "overhead_ns": 0.0,
                **as_measured(stats, buckets, step=step),
                "threshold": None,
                "series": None,
            }
        )
    metrics[0]["checks"] = {
        "edges_seen": 2 * periods + 2,
        "generator_toggles": 2 * periods + 2,
        "periods_judged": periods,
        "periods_blind": 0,
        "missed_periods": int(worst > 0.5),
        "extra_edges": 0,
        "resolution_ns": resolution_ns,
        "blind_fraction": 0.0,
    }
    return metrics


def wave_doc(
    model: str,
    period_us: int,
    *,
    error: float = 0.001,
    worst: float = 0.005,
    load: str | None = None,
    run_id: str = "0123456789abcdef",
    valid: bool = True,
    campaign: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A format-4 run of wave.square (one model, one period; see :func:`wave_metrics`), under ``load``
    when given (the result's loads) and tagged with ``campaign`` when given (its "campaign" field)."""
    doc = result_doc(run_id=run_id, benches={})
    doc["version"] = 4
    doc["benches"] = [
        {
            "id": "wave.square",
            "params": {"model": model, "period_us": period_us, "periods": 100, "cpu": 1},
            "status": "ok",
            "elapsed_s": 2.0,
            "error": None,
        }
    ]
    doc["metrics"] = wave_metrics(model, period_us, error=error, worst=worst, valid=valid)
    if load is not None:
        doc["loads"] = [
            {
                "name": load,
                "settings": {},
                "commands": [] if load == "idle" else [[load]],
                "cpus_used": None,
                "loopback_bytes_per_s": None,
                "held": True,
                "ended_early": [],
            }
        ]
    if campaign is not None:
        doc["campaign"] = campaign
    return doc


def _evenly_and_one(low: float, high: float, longest: float, count: int) -> dict[str, Any]:
    """The summary of ``count`` - 1 samples evenly from ``low`` to ``high`` and one at ``longest`` (or at
    ``high``, when that is larger)."""
    quantile = {"p50": 0.5, "p90": 0.9, "p99": 0.99}
    return {
        "count": count,
        "min": low,
        **{key: low + share * (high - low) for key, share in quantile.items()},
        "p999": high,
        "p9999": max(high, longest),
        "max": max(high, longest),
        "mean": (low + high) / 2,
        "stddev": (high - low) / math.sqrt(12),
    }


def app_doc(
    op: str,
    threads: int,
    *,
    exec_ns: float = 1e6,
    wait_ns: float = 2e5,
    response_ns: float = 5e4,
    samples: int = 100,
    processes: int = 1,
    run_id: str = "0123456789abcdef",
    valid: bool = True,
    campaign: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A format-4 run of app.workload: its metrics app.exec, app.wait and app.response labelled as
    docs/workload.md says, each a distribution around the given time (:func:`summary`) of ``samples``
    samples; all invalid unless ``valid``. Tagged with ``campaign`` when given."""
    doc = result_doc(run_id=run_id, benches={})
    doc["version"] = 4
    doc["benches"] = [
        {
            "id": "app.workload",
            "params": {"op": op, "threads": threads, "processes": processes},
            "status": "ok",
            "elapsed_s": 1.0,
            "error": None,
        }
    ]
    for metric_id, typical in (("app.exec", exec_ns), ("app.wait", wait_ns), ("app.response", response_ns)):
        one = metric(metric_id, typical, valid=valid)
        figures = summary(typical, count=samples)
        one.update(
            bench="app.workload",
            labels={"threads": threads, "op": op, "processes": processes},
            invalid_reason=None if valid else "a sort's output was out of order",
            overhead_ns=0.0,
            **as_measured(figures, [[int(typical), 16, samples]]),
        )
        doc["metrics"].append(one)
    if campaign is not None:
        doc["campaign"] = campaign
    return doc


def throughput_doc(
    metric_id: str, batches: list[int], *, size: int = 1024, run_id: str = "0123456789abcdef", raw: bool = False
) -> dict[str, Any]:
    """A format-4 run of crypto bench ``metric_id``: one sample per batch, in bytes/s (histogram steps of
    1000 bytes/s, a bucket per distinct value; ``raw``: the samples kept too), labelled size and library."""
    doc = result_doc(run_id=run_id, benches={})
    doc["version"] = 4
    doc["benches"] = [{"id": metric_id, "params": {"size": size}, "status": "ok", "elapsed_s": 1.0, "error": None}]
    ordered = sorted(batches)
    steps = [value // 1000 for value in ordered]
    buckets = [[step, 1, steps.count(step)] for step in sorted(set(steps))]
    quantile = {
        key: ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]
        for key, share in {"p50": 0.5, "p90": 0.9, "p99": 0.99, "p999": 0.999, "p9999": 0.9999}.items()
    }
    figures = {
        "count": len(ordered),
        "min": ordered[0],
        "max": ordered[-1],
        "mean": sum(ordered) / len(ordered),
        "stddev": 0.0,
        **quantile,
    }
    doc["metrics"] = [
        {
            "id": metric_id,
            "bench": metric_id,
            "unit": "bytes/s",
            "labels": {"size": size, "library": "openssl"},
            "description": "message bytes per second of one batch",
            "valid": True,
            "invalid_reason": None,
            "checks": {"known_answer": True},
            "overhead_ns": 0.0,
            **as_measured(figures, buckets, step=1000),
            "threshold": None,
            "series": None,
            **({"raw": [step for step in steps]} if raw else {}),
        }
    ]
    return doc


def guest_doc(doc: dict[str, Any], *, counter: str = "cntvct_el0", kind: str | None = "timer") -> dict[str, Any]:
    """``doc`` as if measured in an aarch64 QEMU guest under -icount: format 4, the target and its instruction
    time base, the generic timer (62.5 MHz) for cycle counter, each metric's cycles in its ticks (``kind``
    None: a result from before the counter's kind was recorded)."""
    made = copy.deepcopy(doc)
    made["version"] = 4
    made["system"].update(arch="aarch64", cpu_model=None, hostname="(none)", virtualization="qemu")
    made["system"]["kernel_release"] = "6.1.0-56-rt-arm64"
    made["target"] = {
        "name": "qemu:aarch64:rt",
        "kind": "qemu",
        "time_base": "instructions",
        "detail": {"clock": "-icount shift=0,sleep=off", "emulated_machine": "virt", "emulated_cpu": "cortex-a57"},
    }
    made["timing"].update(cycle_counter=counter, cycles_per_ns=0.0625, cycle_overhead_cycles=1)
    if kind is not None:
        made["timing"].update(cycle_counter_kind=kind, cycle_counter_hz=62_500_000)
    for metric_doc in made["metrics"]:
        metric_doc["labels"] = {}
        if metric_doc["cycles"] is not None:
            metric_doc["cycles"] = {
                key: value * 0.0625 / 2.6 if key not in ("count",) and value is not None else value
                for key, value in metric_doc["cycles"].items()
            }
    return made
