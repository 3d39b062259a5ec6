"""The text summary of one run: what `rtscope show` prints, and `rtscope run` after running."""

import statistics
from datetime import datetime
from typing import Any

from rtscope.model import values
from rtscope.render import fmt
from rtscope.model import result
from rtscope.render.fmt import MISSING, Style

INDENT = "  "
CONFIG_FIELDS = (("policy", "policy"), ("priority", "priority"), ("CPUs", "cpus"),
                  ("mlockall", "mlockall"), ("stack prefault", "stack_prefault"),
                  ("CPU latency limit", "cpu_latency_us"))
STAT_COLUMNS = ("min", "p50", "p90", "p99", "p999", "max", "mean", "stddev")


def render(doc: dict[str, Any], style: Style, *, adjusted: bool = True) -> list[str]:
    """The lines of the summary of result document ``doc``.

    Sections: the run, the system, timing calibration, requested vs granted configuration, the loads it
    ran under (when any were given), warnings,
    benches, the table of time metrics, whose times are overhead-adjusted unless ``adjusted`` is False,
    the worst latency over time and the samples over a threshold of the time metrics that keep them,
    and the table of count metrics (iterations per reporting period) when there are any.
    """
    sections = [_run(doc, style), _system(doc["system"], style), _timing(doc["timing"], style),
                _config(doc["config"], style), _loads(doc.get("loads"), style),
                _warnings(doc["config"]["warnings"], style),
                _benches(doc["benches"], style),
                *_metric_tables(doc["metrics"], style, adjusted)]
    return fmt.blocks(filter(None, sections))


def describe_status(status: str, style: Style) -> str:
    """A run or bench status, in colour when it is not a good one."""
    return status if status in ("complete", "ok") else style.bad(status)


def _section(title: str, lines: list[str]) -> list[str]:
    return [title, *(INDENT + line for line in lines)]


def _fields(title: str, pairs: list[tuple[str, str]], style: Style) -> list[str]:
    return _section(style.heading(title), fmt.columns(pairs, "ll"))


def _run(doc: dict[str, Any], style: Style) -> list[str]:
    run = doc["run"]
    label = f' "{run["label"]}"' if run["label"] else ""
    title = f"Run {run['id']}{label}: {describe_status(run['status'], style)}"
    return _fields(title, [
        ("started", f"{fmt.local_time(run['started'], with_seconds=True)} (took "
                    f"{fmt.seconds(_elapsed_s(run))})"),
        ("probe", f"{run['probe_version']}, {run['port']} port"),
        ("command", " ".join(run["argv"])),
    ], style)


def _system(system: dict[str, Any], style: Style) -> list[str]:
    return _fields("System", [
        ("host", f"{system['hostname']} ({system['os']}, {system['arch']})"),
        ("kernel", kernel_text(system)),
        ("CPU", f"{system['cpu_model'] or 'unknown model'} × {system['cpu_count']}"
                + (f" (online {system['cpus_online']})" if system["cpus_online"] else "")),
        ("clocksource", _or_missing(system["clocksource"])),
        ("governor", _or_missing(system["governor"])),
        ("isolated CPUs", isolated_cpus_text(system["isolated_cpus"])),
        ("RT throttling", rt_throttling_text(system["rt_runtime_us"], system["rt_period_us"])),
        ("virtualization", _or_missing(system["virtualization"])),
    ], style)


def kernel_text(system: dict[str, Any]) -> str:
    """The kernel release with its preemption model and whether it is a realtime kernel."""
    realtime = {True: ", realtime", False: ", not realtime", None: ""}[system["realtime_kernel"]]
    return f"{system['kernel_release']} (preempt {system['preempt_model']}{realtime})"


def isolated_cpus_text(cpus: str | None) -> str:
    """The isolated CPUs as the kernel lists them, "none", or "—" when unknown."""
    if cpus is None:
        return MISSING
    return cpus or "none"


def rt_throttling_text(runtime_us: int | None, period_us: int | None) -> str:
    """"95 % (950000/1000000 µs)"; "off" when the runtime is -1 (no throttling)."""
    if runtime_us == -1:
        return "off (RT tasks may use all CPU time)"
    if runtime_us is None or not period_us:
        return MISSING
    return f"{100 * runtime_us / period_us:.3g} % ({runtime_us}/{period_us} µs)"


def _timing(timing: dict[str, Any], style: Style) -> list[str]:
    clock = (f"{timing['clock']}: resolution {fmt.duration(timing['clock_resolution_ns'])}, "
             f"{fmt.duration(timing['clock_overhead_ns'])} per read")
    if timing["cycle_counter"] is None:
        counter = "none usable"
    else:
        counter = (f"{timing['cycle_counter']}: {_plain(timing['cycles_per_ns'])} cycles/ns, "
                   f"{_plain(timing['cycle_overhead_cycles'])} cycles per read")
    return _fields("Timing", [("clock", clock), ("cycle counter", counter)], style)


def _config(config: dict[str, Any], style: Style) -> list[str]:
    rows = [["", "requested", "granted", ""]]
    for name, key in CONFIG_FIELDS:
        requested, granted = config["requested"][key], config["granted"][key]
        row = [name, config_value(requested), config_value(granted), ""]
        if requested != granted:
            row = [style.warn(cell) for cell in row[:3]] + [style.warn("! not as requested")]
        rows.append(row)
    return _section(style.heading("Configuration"), fmt.columns(rows, "llll"))


def config_value(value: Any) -> str:
    """A requested or granted setting as text ("none", "yes"/"no", a CPU list or "any" …)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ",".join(map(str, value)) or "any"
    return str(value)


def _loads(loads: list[dict[str, Any]] | None, style: Style) -> list[str]:
    if not loads:
        return []
    rows = [[load["name"], " ".join(f"{key}={value}" for key, value in load["settings"].items()) or MISSING,
             MISSING if load["cpus_used"] is None else f"{load['cpus_used']:.2f} CPUs",
             MISSING if load["loopback_bytes_per_s"] is None else f"{load['loopback_bytes_per_s'] * 8 / 1e9:.2f} Gbit/s",
             "held" if load["held"] else style.bad("ended early: " + "; ".join(load["ended_early"]))]
            for load in loads]
    header = ["load", "settings", "used", "loopback", "during the run"]
    return _section(style.heading("Loads"), fmt.table(header, rows, "llrrl"))


def _warnings(warnings: list[str], style: Style) -> list[str]:
    if not warnings:
        return []
    return _section(style.heading("Warnings"), [style.warn(f"! {warning}") for warning in warnings])


def _benches(benches: list[dict[str, Any]], style: Style) -> list[str]:
    rows = [[b["id"], describe_status(b["status"], style), fmt.seconds(b["elapsed_s"]), bench_note(b)]
            for b in benches]
    return _section(style.heading("Benches"), fmt.columns(rows, "llrl"))


def bench_note(bench: dict[str, Any]) -> str:
    """What to say of a bench beside its status: its error, else its parameters."""
    if bench["error"]:
        return f"error: {bench['error']}"
    return " ".join(f"{key}={value}" for key, value in bench["params"].items())


def _metric_tables(metrics: list[dict[str, Any]], style: Style, adjusted: bool) -> list[list[str]]:
    counts = [m for m in metrics if result.is_periodic(m)]
    times = [m for m in metrics if not result.is_periodic(m)]
    return [_metrics(times, style, adjusted) if times or not counts else [], _over_time(times, style),
            _throughput(counts, style)]


def _metrics(metrics: list[dict[str, Any]], style: Style, adjusted: bool) -> list[str]:
    if adjusted:
        title = style.heading("Metrics") + ", overhead-adjusted (--raw-times: as measured)"
    else:
        title = style.heading("Metrics") + ", as measured, not overhead-adjusted"
    if not metrics:
        return _section(title, ["none measured"])
    header = ["metric", "count", *(result.STATISTICS[key] for key in STAT_COLUMNS), "validity"]
    rows = [metric_row(m, style, adjusted) for m in metrics]
    return _section(title, fmt.table(header, rows, "lr" + "r" * len(STAT_COLUMNS) + "l"))


def _over_time(metrics: list[dict[str, Any]], style: Style) -> list[str]:
    """Per time metric with a series or a threshold (result format 3): the worst sample of a typical
    window and of the worst one, when that was, and how many samples passed the threshold."""
    rows = [over_time_row(m) for m in metrics if m.get("series") or m.get("threshold")]
    if not rows:
        return []
    title = style.heading("Over time") + ", as measured: worst sample per window"
    header = ["metric", "windows", "median window", "worst window", "at", "over threshold"]
    return _section(title, fmt.table(header, rows, "lrrrrl"))


def over_time_row(metric: dict[str, Any]) -> list[str]:
    """The "Over time" cells of a metric: its median and worst window, when, and samples over the threshold."""
    series, threshold = metric.get("series"), metric.get("threshold")
    row = [metric["id"], MISSING, MISSING, MISSING, MISSING, MISSING]
    worst = [value for value in series["max"] if value is not None] if series else []
    if worst:
        at = series["max"].index(max(worst))
        row[1:5] = [f"{fmt.count(len(series['max']))} × {fmt.seconds(series['window_s'])}",
                    fmt.duration(statistics.median(worst)), fmt.duration(max(worst)),
                    f"{values.exact(at * series['window_s'])} s"]
    if threshold:
        samples = metric["stats"]["count"]
        share = f" ({fmt.significant(100 * threshold['over'] / samples)} %)" if samples else ""
        row[5] = f"{fmt.count(threshold['over'])} above {fmt.duration(threshold['ns'])}{share}"
    return row


def _throughput(metrics: list[dict[str, Any]], style: Style) -> list[str]:
    if not metrics:
        return []
    title = style.heading("Throughput") + ", iterations per reporting period"
    header = ["metric", "periods", "period", "median", "min", "max", "vs baseline", "validity"]
    rows = [[m["id"], fmt.count(m["stats"]["count"]), fmt.seconds(m["period_s"]),
             *(fmt.figure(m["stats"][key], "count") for key in ("p50", "min", "max")),
             baseline_text(m), validity_text(m, style)] for m in metrics]
    return _section(title, fmt.table(header, rows, "lrrrrrrl"))


def baseline_text(metric: dict[str, Any]) -> str:
    """"0.512× tm.basic": the metric's median over its calibration metric's, or "—"."""
    baseline = metric["baseline"]
    if baseline is None or baseline["ratio"] is None:
        return MISSING
    return f"{fmt.ratio(baseline['ratio'])} {baseline['metric']}"


def validity_text(metric: dict[str, Any], style: Style) -> str:
    """"valid", or "invalid: REASON" marked bad."""
    return "valid" if metric["valid"] else style.bad(f"invalid: {result.invalid_reason(metric)}")


def metric_row(metric: dict[str, Any], style: Style, adjusted: bool) -> list[str]:
    """The metrics table row of a time metric: id, count, the statistics of STAT_COLUMNS, validity."""
    figures = result.summary(metric, adjusted=adjusted)
    return [metric["id"], fmt.count(figures["count"]), *(fmt.duration(figures[key]) for key in STAT_COLUMNS),
            validity_text(metric, style)]


def _plain(number: float | None) -> str:
    return MISSING if number is None else f"{number:.3g}"


def _or_missing(value: str | None) -> str:
    return MISSING if value is None or value == "" else value


def _elapsed_s(run: dict[str, Any]) -> float:
    return (datetime.fromisoformat(run["finished"]) - datetime.fromisoformat(run["started"])).total_seconds()
