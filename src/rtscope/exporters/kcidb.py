"""A run as KCIDB I/O data, schema v5.3 (KernelCI's reporting format, as the kcidb-io package defines it):
what `kcidb-submit` takes to put rtscope's figures beside a kernel's other test results.

The run's kernel is the checkout (KCIDB knows a kernel by its checkout; rtscope knows its release and
version string, not its commit) and one build of it (architecture, preemption model); each figure is a
test with a ``number``. Per metric: its p50, p99 and max as compare shows them by default — the tail on
the side that hurts, a throughput's p1 and min (rtscope.analysis.stats.bad_side) — or of a per-period
metric its median period alone; and any statistic a ``--limit`` names. A test is DONE (a measurement, no
verdict), ERROR when the metric is invalid (the bench did not do its job: no verdict on the kernel either),
FAIL when the judge (rtscope.analysis.judge: ``--limit``, ``--fail-on-threshold``) fails it; a metric a
limit names and the run lacks is one FAIL test without a number — SKIP, with the reason, when the run
skipped its bench (the target cannot run it), as each skipped bench is when every metric is exported. Numbers are the figures in the metric's
unit as the result has them (a time in ns; a throughput in B/s with KCIDB's metric prefix, so that a
dashboard scales it).

A monitor's windows (:func:`write_windows`) are one document: each window's tests as a run's, the board
as their environment, one checkout and build per board's run of windows on one kernel, and each change
point of a board's series as an issue with an incident on its first window's build and test.
"""

import json
import re
from dataclasses import dataclass
from typing import Any

from rtscope.analysis import changes, judge, stats
from rtscope.analysis.changes import BoardChange
from rtscope.analysis.compare import DEFAULT_STATISTICS
from rtscope.exporters.base import RunExport, chosen_metrics, skipped_benches
from rtscope.model import result, units
from rtscope.render import cells

ORIGIN = "rtscope"  # KCIDB's name for the CI system that submits: rtscope itself
VERSION = {"major": 5, "minor": 3}
# KCIDB's number: (its unit, the prefix a display scales it with). Times stay in ns, as the result has
# them: in seconds a figure such as 3261.4846 ns would gain digits of binary noise.
_NUMBER_UNITS: dict[str, tuple[str | None, str | None]] = {
    "ns": ("ns", None),
    "bytes/s": ("B/s", "metric"),
    "percent": ("%", None),
    "count": (None, None),  # iterations per period: dimensionless
    "ratio": (None, None),
}
# A test path is dot-separated words of letters, digits, "_" and "-".
_NOT_IN_PATH = re.compile(r"[^a-zA-Z0-9_-]+")
# KCIDB's architecture is [a-z0-9_]*: an RTOS board's "armv7-m" becomes "armv7_m" (misc keeps it as it was).
_NOT_IN_ARCHITECTURE = re.compile(r"[^a-z0-9_]+")


def write(export: RunExport) -> str:
    """The KCIDB document: one checkout and one build for the run's kernel, a test per figure."""
    doc = export.run.doc
    build_id = f"{ORIGIN}:{doc['run']['id']}"
    data = {
        "version": VERSION,
        "checkouts": [_checkout(doc, build_id)],
        "builds": [_build(doc, build_id)],
        "tests": _run_tests(export, build_id),
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class WindowsExport:
    """A monitor's windows (its runs, oldest first, each with what was asked of the export) and the change
    points found in its boards' series."""

    windows: tuple[RunExport, ...]
    changes: tuple[BoardChange, ...] = ()


def write_windows(export: WindowsExport) -> str:
    """A monitor's windows as one KCIDB document: per board, one checkout and build per run of consecutive
    windows on the same kernel (named after its first window, as that run's own export names it), a test
    per figure of each window (the window's start, the board its environment), and per change point an
    issue and its incident on the build — and the test — of the change's first window."""
    builds: dict[str, str] = {}  # window run id: its build's id
    checkouts, build_docs, tests = [], [], []
    last: dict[str, tuple[Any, ...]] = {}  # board: the kernel of its last window
    current: dict[str, str] = {}  # board: the build of its last window
    for window in export.windows:
        doc = window.run.doc
        board = doc["monitor"]["board"]
        kernel = _kernel(doc)
        if last.get(board) != kernel:
            last[board], current[board] = kernel, f"{ORIGIN}:{doc['run']['id']}"
            checkouts.append(_checkout(doc, current[board]))
            build_docs.append(_build(doc, current[board]))
        builds[doc["run"]["id"]] = current[board]
        tests += _run_tests(window, current[board])
    issues, incidents = [], []
    for marked in export.changes:
        first = marked.change.first_after.run_id
        if first not in builds:  # not among the windows exported
            continue
        issue = _issue(marked)
        issues.append(issue)
        incidents.append(_incident(marked, issue, builds[first], tests))
    data = {
        "version": VERSION,
        "checkouts": checkouts,
        "builds": build_docs,
        "tests": tests,
        "issues": issues,
        "incidents": incidents,
    }
    # Without indentation: a week of 5-minute windows (2,016, 6,048 tests) was 7.2 MB in 12.9 s indented,
    # 4.7 MB in 7.4 s so (on a shared 2-vCPU machine at a load of 8).
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def _kernel(doc: dict[str, Any]) -> tuple[Any, ...]:
    """What makes a run's kernel another build: the system's OS, release, version, architecture, preemption."""
    system = doc["system"]
    return tuple(
        system[key] for key in ("os", "kernel_release", "kernel_version", "arch", "preempt_model", "realtime_kernel")
    )


def _checkout(doc: dict[str, Any], checkout_id: str) -> dict[str, Any]:
    """The run's kernel as a KCIDB checkout (its release and version: rtscope knows no commit)."""
    system = doc["system"]
    kernel = f"{system['kernel_release']} {system['kernel_version']}"
    return {
        "id": checkout_id,
        "origin": ORIGIN,
        "start_time": doc["run"]["started"],
        "comment": f"Linux {kernel}" if system["os"] == "Linux" else f"{system['os']} {kernel}",
        "misc": {"kernel_release": system["kernel_release"], "kernel_version": system["kernel_version"]},
    }


def _build(doc: dict[str, Any], build_id: str) -> dict[str, Any]:
    """The run's kernel as a KCIDB build of the checkout of the same id: architecture and preemption model."""
    system = doc["system"]
    return {
        "id": build_id,
        "checkout_id": build_id,
        "origin": ORIGIN,
        "architecture": _NOT_IN_ARCHITECTURE.sub("_", system["arch"].lower()),
        "config_name": system["preempt_model"] + (" (PREEMPT_RT)" if system["realtime_kernel"] else ""),
        "misc": {
            "arch": system["arch"],
            "preempt_model": system["preempt_model"],
            "realtime_kernel": system["realtime_kernel"],
        },
    }


def _run_tests(export: RunExport, build_id: str) -> list[dict[str, Any]]:
    """The tests of one run, on build ``build_id``: its figures, then its skipped benches."""
    doc = export.run.doc
    return [
        test
        for verdict in export.judge.verdicts(doc, [m["id"] for m in chosen_metrics(doc, export.metrics)])
        for test in _tests(export, verdict, build_id)
    ] + [
        {**_test(doc, build_id, _path(bench, {}), "SKIP"), "comment": reason}
        for bench, reason in skipped_benches(export)
    ]


# What changed in a step that the kernel (the built and tested code, in KCIDB's words) is a culprit of.
_CODE_CHANGES = ("OS ", "kernel ", "kernel version ", "kernel command line ", "RTOS configuration ")


def _issue(marked: BoardChange) -> dict[str, Any]:
    """A change point as a KCIDB issue: what stepped, by how much, and what changed; the kernel its
    culprit when what changed is the kernel (its release, version, command line or configuration)."""
    change = marked.change
    first = change.first_after
    issue: dict[str, Any] = {
        "id": f"{ORIGIN}:{marked.monitor_id}:{marked.board}:{change.metric}:{change.stat}:{first.run_id}",
        "version": 1,
        "origin": ORIGIN,
        "comment": (
            f"{marked.board}: {change.metric} {stats.statistic_name(change.stat)} {change.direction(marked.unit)} "
            f"{change.size_text()} from run {first.run_id} on; {change.changed_text()}"
        ),
        "misc": {"monitor": marked.monitor_id, "board": marked.board, "metric": change.metric}
        | changes.entry(change, marked.unit),
    }
    if any(line.startswith(_CODE_CHANGES) for line in change.changed):
        issue["culprit"] = {"code": True, "tool": False, "harness": False}
    return issue


def _incident(marked: BoardChange, issue: dict[str, Any], build_id: str, tests: list[dict[str, Any]]) -> dict[str, Any]:
    """The issue present in the build of the change's first window, and in that window's test of the
    statistic when one was exported."""
    change = marked.change
    incident: dict[str, Any] = {
        "id": f"{issue['id']}:first",
        "origin": ORIGIN,
        "issue_id": issue["id"],
        "issue_version": issue["version"],
        "build_id": build_id,
        "present": True,
        "comment": f"the first window after the change: {change.first_after.started}",
    }
    name = stats.statistic_name(change.stat)
    test = next(
        (
            test
            for test in tests
            if test["environment"]["misc"]["run"] == change.first_after.run_id
            and test.get("misc", {}).get("metric") == change.metric
            and test["misc"]["statistic"] == name
        ),
        None,
    )
    if test is not None:
        incident["test_id"] = test["id"]
    return incident


def _tests(export: RunExport, verdict: judge.MetricVerdict, build_id: str) -> list[dict[str, Any]]:
    """The tests of one metric: a figure each, or one test for a metric the run lacks: SKIP when the run
    skipped its bench, else FAIL."""
    doc, metric_doc = export.run.doc, verdict.metric_doc
    if metric_doc is None:
        path = _path(verdict.metric, {})
        return [
            {
                **_test(doc, build_id, path, "SKIP" if verdict.skipped else "FAIL"),
                "comment": verdict.status if verdict.skipped else "; ".join(f.message for f in verdict.findings),
            }
        ]
    unit = result.unit(metric_doc)
    asked = ("p50",) if result.is_periodic(metric_doc) else DEFAULT_STATISTICS
    keys = dict.fromkeys(
        [
            *(stats.bad_side(key, unit.lower_is_better) for key in asked),
            *(limit.stat for limit in export.judge.limits if limit.metric == verdict.metric),
        ]
    )
    bench = next((b for b in doc["benches"] if b["id"] == metric_doc["bench"]), None)
    tests = []
    for key in keys:
        name = stats.statistic_name(key)
        status = "ERROR" if not metric_doc["valid"] else "FAIL" if verdict.fails(key) else "DONE"
        test = _test(doc, build_id, f"{_path(verdict.metric, result.labels(metric_doc))}.{_word(name)}", status)
        value = stats.statistic(metric_doc, key, adjusted=export.adjusted)
        if value is not None:
            test["number"] = _number(judge.statistic_unit(metric_doc, key), value)
        if bench is not None:
            test["duration"] = bench["elapsed_s"]
        findings = [f.message for f in verdict.findings if f.stat in (None, key)]
        if findings:
            test["comment"] = "; ".join(findings)
        test["misc"] = {
            "metric": metric_doc["id"],
            "labels": result.labels(metric_doc),
            "statistic": name,
            "figures": export.figures_are,
            "samples": metric_doc["stats"]["count"],
            "valid": metric_doc["valid"],
        }
        tests.append(test)
    return tests


def _test(doc: dict[str, Any], build_id: str, path: str, status: str) -> dict[str, Any]:
    """What every test of the run has: ids, path, status, start and the environment it ran in."""
    run, system, granted = doc["run"], doc["system"], doc["config"]["granted"]
    target = doc.get("target") or {}
    environment: dict[str, Any] = {
        # An emulated machine by its name and CPU, as show names them (a guest's hostname is "(none)").
        "comment": f"{cells.host_text(doc)}: {cells.cpu_model(doc) or 'unknown CPU'} × {system['cpu_count']}",
        "misc": {
            "hostname": system["hostname"],
            "cpu_model": cells.cpu_model(doc),
            "cpu_count": system["cpu_count"],
            "virtualization": system["virtualization"],
            "target": target.get("name", "local"),
            "time_base": result.time_base(doc),
            "policy": granted["policy"],
            "priority": granted["priority"],
            "run": run["id"],
            "label": run["label"],
        },
    }
    monitor = doc.get("monitor")
    if monitor is not None:  # a monitor's window: the board is the environment
        environment["comment"] = f"board {monitor['board']} ({environment['comment']})"
        environment["misc"].update(
            board=monitor["board"],
            monitor=monitor["name"],
            monitor_id=monitor["id"],
            step=monitor["step"],
            window=monitor["window"],
            windows=monitor["windows"],
        )
    return {
        # The run's id, not the build's: a monitor's windows on one kernel share a build.
        "id": f"{ORIGIN}:{run['id']}:{path}",
        "build_id": build_id,
        "origin": ORIGIN,
        "path": path,
        "status": status,
        "start_time": run["started"],
        "environment": environment,
    }


def _path(metric_id: str, labels: dict[str, str | int]) -> str:
    """ "rtscope.app.exec.threads_2.op_quick": the metric's id (without the braces of a labelled id), then
    each label as a word, as KCIDB's dot-separated test paths allow."""
    words = [*metric_id.split("{", 1)[0].split("."), *(f"{key}_{value}" for key, value in labels.items())]
    return ".".join([ORIGIN, *map(_word, words)])


def _word(text: str) -> str:
    """A path word: characters KCIDB does not allow in one become "_" ("p99.9" is "p99_9")."""
    return _NOT_IN_PATH.sub("_", text)


def _number(unit: units.Unit, value: float) -> dict[str, Any]:
    symbol, prefix = _NUMBER_UNITS.get(unit.name, (unit.name, None))
    return {
        "value": value,
        **({"unit": symbol} if symbol else {}),
        **({"prefix": prefix} if prefix else {}),
    }
