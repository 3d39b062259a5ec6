"""A run as JUnit XML, judged (rtscope.analysis.judge): a testcase per metric, as CI servers show tests."""

import xml.etree.ElementTree as ET
from datetime import datetime
from typing import Any

from rtscope.analysis.judge import statistic_unit
from rtscope.exporters.base import RunExport, chosen_metrics, skipped_benches
from rtscope.model import result, values
from rtscope.render import cells


def write(export: RunExport) -> str:
    """JUnit XML: one testsuite for the run, with the system as properties, and one testcase per metric
    asked for (default: every metric; then any a limit names) whose failure lists every reason the
    judge finds; its figures are the testcase's output. A metric whose bench the run skipped, and (with
    every metric) each skipped bench, is a skipped testcase with the reason."""
    doc = export.run.doc
    run, system = doc["run"], doc["system"]
    started, finished = (datetime.fromisoformat(run[key]) for key in ("started", "finished"))
    verdicts = export.judge.verdicts(doc, [m["id"] for m in chosen_metrics(doc, export.metrics)])
    benches_skipped = skipped_benches(export)
    tests, failures = str(len(verdicts) + len(benches_skipped)), str(sum(verdict.failed for verdict in verdicts))
    skipped = str(sum(verdict.skipped for verdict in verdicts) + len(benches_skipped))
    suites = ET.Element("testsuites", name="rtscope", tests=tests, failures=failures, errors="0")
    suite = ET.SubElement(
        suites,
        "testsuite",
        {
            "name": f"rtscope run {run['id']}" + (f" {run['label']}" if run["label"] else ""),
            "tests": tests,
            "failures": failures,
            "errors": "0",
            "skipped": skipped,
            # JUnit's timestamp has no zone; the result's times are UTC.
            "timestamp": started.strftime("%Y-%m-%dT%H:%M:%S"),
            "hostname": system["hostname"],
            "time": values.exact(round((finished - started).total_seconds(), 3)),
        },
    )
    properties = ET.SubElement(suite, "properties")
    for name, value in _properties(doc, export.figures_are):
        ET.SubElement(properties, "property", name=name, value=value)
    for verdict in verdicts:
        metric_doc = verdict.metric_doc
        case = ET.SubElement(
            suite, "testcase", name=verdict.metric, classname=metric_doc["bench"] if metric_doc else verdict.metric
        )
        if verdict.failed:
            messages = [finding.message for finding in verdict.findings]
            failure = ET.SubElement(case, "failure", message="; ".join(messages), type="rtscope")
            failure.text = "\n".join(messages)
        if verdict.skipped:
            ET.SubElement(case, "skipped", message=verdict.status)
        if metric_doc is not None:
            ET.SubElement(case, "system-out").text = _figures(metric_doc, export.adjusted)
    for bench, reason in benches_skipped:
        ET.SubElement(ET.SubElement(suite, "testcase", name=bench, classname=bench), "skipped", message=reason)
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def _properties(doc: dict[str, Any], figures_are: str) -> list[tuple[str, str]]:
    run, system, granted = doc["run"], doc["system"], doc["config"]["granted"]
    return [
        ("run", run["id"]),
        ("label", run["label"] or ""),
        ("status", run["status"]),
        ("hostname", system["hostname"]),
        ("kernel", system["kernel_release"]),
        ("kernel_version", system["kernel_version"]),
        ("preempt", system["preempt_model"]),
        ("cpu", cells.cpu_model(doc) or ""),
        ("arch", system["arch"]),
        ("policy", f"{granted['policy']} {granted['priority']}"),
        ("figures", figures_are),
    ]


def _figures(metric_doc: dict[str, Any], adjusted: bool) -> str:
    figures = result.summary(metric_doc, adjusted=adjusted)
    return ", ".join(
        f"{name} {statistic_unit(metric_doc, key).format(figures[key])}" for key, name in result.STATISTICS.items()
    )
