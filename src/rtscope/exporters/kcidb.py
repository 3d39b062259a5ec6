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
"""

import json
import re
from typing import Any

from rtscope.analysis import judge, stats
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
    run, system = doc["run"], doc["system"]
    checkout_id = build_id = f"{ORIGIN}:{run['id']}"
    kernel = f"{system['kernel_release']} {system['kernel_version']}"
    tests = [
        test
        for verdict in export.judge.verdicts(doc, [m["id"] for m in chosen_metrics(doc, export.metrics)])
        for test in _tests(export, verdict, build_id)
    ] + [
        {**_test(doc, build_id, _path(bench, {}), "SKIP"), "comment": reason}
        for bench, reason in skipped_benches(export)
    ]
    data = {
        "version": VERSION,
        "checkouts": [
            {
                "id": checkout_id,
                "origin": ORIGIN,
                "start_time": run["started"],
                "comment": f"Linux {kernel}" if system["os"] == "Linux" else f"{system['os']} {kernel}",
                "misc": {"kernel_release": system["kernel_release"], "kernel_version": system["kernel_version"]},
            }
        ],
        "builds": [
            {
                "id": build_id,
                "checkout_id": checkout_id,
                "origin": ORIGIN,
                "architecture": _NOT_IN_ARCHITECTURE.sub("_", system["arch"].lower()),
                "config_name": system["preempt_model"] + (" (PREEMPT_RT)" if system["realtime_kernel"] else ""),
                "misc": {
                    "arch": system["arch"],
                    "preempt_model": system["preempt_model"],
                    "realtime_kernel": system["realtime_kernel"],
                },
            }
        ],
        "tests": tests,
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


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
    return {
        "id": f"{build_id}:{path}",
        "build_id": build_id,
        "origin": ORIGIN,
        "path": path,
        "status": status,
        "start_time": run["started"],
        "environment": {
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
        },
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
