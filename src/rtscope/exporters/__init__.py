"""One run in the formats other tools read: CSV, cyclictest's histogram, LAVA result lines, JUnit XML.

Each renderer takes a result document and returns the whole text, so that a caller can write it at
once (rtscope.files.AtomicFile) or print it. LAVA and JUnit judge each metric: it fails when it is
invalid, when a user's limit on one of its statistics is not held (:class:`Limit`), and, when asked,
when samples passed the threshold its bench was given.
"""

import argparse
import csv
import io
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rtscope.model import values
from rtscope.render import fmt
from rtscope.model import result
from rtscope.errors import RtscopeError

NS_PER_US = 1000
# cyclictest has one row per microsecond, and at most this many (it caps its -h there).
CYCLICTEST_MAX_ROWS = 1_000_000
# The metric measured as cyclictest measures, and its metrics per CPU, as cyclictest has one thread per CPU.
CYCLICTEST_DEFAULT_METRIC = "lat.wakeup"
_PER_CPU = re.compile(re.escape(CYCLICTEST_DEFAULT_METRIC) + r"\.cpu[0-9]+")

# A LAVA line and a JUnit finding about the samples over the bench's threshold use this name.
OVER_THRESHOLD = "over_threshold"

_NS_PER_UNIT = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}
_LIMIT = re.compile(r"(?P<metric>[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+):(?P<stat>[^=]+)="
                    r"(?P<number>[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(?P<unit>ns|us|µs|ms|s)?")


@dataclass(frozen=True)
class Limit:
    """A user's limit on one statistic of one metric, as ``--limit METRIC:STAT=VALUE`` gives it.

    ``value`` is in ns when ``unit`` is given, else a plain number (a count). A time is held when the
    figure is at most the limit; a count (iterations per period, or the number of samples) when it is
    at least the limit: the limit is how bad the figure may get.
    """

    metric: str
    stat: str          # a summary key: "max", "p999" …
    value: float
    unit: str | None   # as written ("us", "ms" …); None for a plain number
    text: str


def limit(text: str) -> Limit:
    """A limit from "lat.wakeup:max=100us", "lat.irq:p99.9=0.5ms" or "tm.basic:p50=2000000"."""
    match = _LIMIT.fullmatch(text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"bad limit {text!r} (METRIC:STAT=VALUE, e.g. lat.wakeup:max=100us; "
                                         "times in ns, us, ms or s; counts as plain numbers)")
    # Rounded, so that "2.792967ms" is 2792967 ns and not a hair less.
    value = round(float(match["number"]) * _NS_PER_UNIT.get(match["unit"], 1.0), 6)
    return Limit(match["metric"], values.statistic(match["stat"]), value, match["unit"], text.strip())


@dataclass(frozen=True)
class Finding:
    """One reason a metric fails: the statistic it concerns (None: the whole metric) and why, in words."""

    stat: str | None
    message: str


@dataclass(frozen=True)
class Judge:
    """What makes a metric fail in LAVA and JUnit exports: being invalid or not measured, a limit not
    held, and with ``fail_on_threshold`` any sample over the threshold its bench was given."""

    limits: tuple[Limit, ...] = ()
    fail_on_threshold: bool = False
    adjusted: bool = True

    def metric_ids(self, metrics: list[dict[str, Any]]) -> list[str]:
        """The ids of the metrics to judge: ``metrics``, then any other metric a limit names, measured or
        not — a limit on a metric the run lacks is a failure, not an error."""
        return list(dict.fromkeys([*(m["id"] for m in metrics), *(limit.metric for limit in self.limits)]))

    def findings(self, metric_id: str, metric_doc: dict[str, Any] | None) -> list[Finding]:
        """Every reason metric ``metric_id`` fails; none when it passes."""
        if metric_doc is None:
            return [Finding(None, "not measured in this run")]
        findings = [] if metric_doc["valid"] else [Finding(None, f"invalid: {result.invalid_reason(metric_doc)}")]
        threshold = metric_doc.get("threshold")
        if self.fail_on_threshold and threshold and threshold["over"] > 0:
            findings.append(Finding(OVER_THRESHOLD, f"{fmt.count(threshold['over'])} samples above "
                                                    f"{fmt.duration(threshold['ns'])}"))
        figures = result.summary(metric_doc, adjusted=self.adjusted)
        for limit in self.limits:
            if limit.metric == metric_id:
                message = _limit_broken(limit, metric_doc, figures[limit.stat])
                if message:
                    findings.append(Finding(limit.stat, message))
        return findings


def _limit_broken(limit: Limit, metric_doc: dict[str, Any], value: float | None) -> str | None:
    """Why ``value`` (statistic ``limit.stat`` of the metric) does not hold ``limit``, or None when it does.

    A limit in the wrong kind of unit is bad input: an RtscopeError."""
    unit = _figure_unit(metric_doc, limit.stat)
    if (unit == "ns") != (limit.unit is not None):
        wanted = "a time with its unit (e.g. 100us)" if unit == "ns" else "a plain number"
        raise RtscopeError(f"--limit {limit.text}: {limit.metric} {result.STATISTICS[limit.stat]} "
                           f"is {'a time' if unit == 'ns' else 'a count'}; give {wanted}")
    name = result.STATISTICS[limit.stat]
    if value is None:
        return f"{name}: no value to hold to the limit {fmt.figure(limit.value, unit)}"
    at_least = _at_least(metric_doc, limit.stat)
    if value < limit.value if at_least else value > limit.value:
        side = "below" if at_least else "above"
        return f"{name} {fmt.figure(value, unit)} is {side} the limit {fmt.figure(limit.value, unit)}"
    return None


def _at_least(metric_doc: dict[str, Any], key: str) -> bool:
    """Whether a figure is the better for being higher: a count of samples or periods, and a count
    metric's iterations (not their spread)."""
    return key == "count" or (result.is_periodic(metric_doc) and key != "stddev")


def _figure_unit(metric_doc: dict[str, Any], key: str) -> str:
    """The unit of statistic ``key`` of a metric: "count" for the number of samples, else the metric's."""
    return "count" if key == "count" else metric_doc["unit"]


def chosen_metrics(doc: dict[str, Any], metric_ids: Iterable[str]) -> list[dict[str, Any]]:
    """The metrics of ``doc`` with the given ids, in the order given (all of them when none are given);
    an id the run lacks is an RtscopeError."""
    ids = list(metric_ids)
    if not ids:
        return list(doc["metrics"])
    chosen = []
    for metric_id in ids:
        metric_doc = result.metric(doc, metric_id)
        if metric_doc is None:
            raise RtscopeError(f"run {doc['run']['id']} has no metric {metric_id} "
                               f"(it has {', '.join(m['id'] for m in doc['metrics'])})")
        chosen.append(metric_doc)
    return chosen


# --- CSV ---------------------------------------------------------------------------------------------

CSV_HEADER = ("run", "label", "hostname", "metric", "unit", "figures", "valid", "invalid_reason",
              *result.STATISTICS.values(), "threshold_ns", "over_threshold")


def csv_text(doc: dict[str, Any], metrics: list[dict[str, Any]], *, adjusted: bool) -> str:
    """One CSV row per metric: the run, the metric, its validity and every statistic of its summary
    (overhead-adjusted unless ``adjusted`` is False) as plain numbers in the row's unit (ns or count;
    the statistic count is always a number of samples or periods), and its threshold where it has one.
    A missing value is an empty cell."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    run = doc["run"]
    for metric_doc in metrics:
        figures = result.summary(metric_doc, adjusted=adjusted)
        threshold = metric_doc.get("threshold") or {}
        writer.writerow([run["id"], run["label"] or "", doc["system"]["hostname"], metric_doc["id"],
                         metric_doc["unit"], _figures_are(adjusted),
                         "true" if metric_doc["valid"] else "false", metric_doc["invalid_reason"] or "",
                         *(_plain(figures[key]) for key in result.STATISTICS),
                         _plain(threshold.get("ns")), _plain(threshold.get("over"))])
    return out.getvalue()


def _plain(value: float | None) -> str:
    return "" if value is None else values.exact(value)


def _figures_are(adjusted: bool) -> str:
    return "overhead-adjusted" if adjusted else "as measured"


# --- cyclictest ----------------------------------------------------------------------------------------

CYCLICTEST_REBINNING = ("the exact min and max are in their own rows; the rest of each histogram bucket "
                        "is shared among the microseconds its values cover, in proportion to how many of "
                        "them each holds (largest remainders: counts stay whole and add up)")


def cyclictest_metrics(doc: dict[str, Any], metric_ids: Iterable[str]) -> list[dict[str, Any]]:
    """The time metrics that become cyclictest's columns: those given, else one per CPU of lat.wakeup
    (lat.wakeup.cpuN, as cyclictest has one per thread), else lat.wakeup itself."""
    ids = list(metric_ids)
    if not ids:
        per_cpu = [m["id"] for m in doc["metrics"] if _PER_CPU.fullmatch(m["id"])]
        ids = per_cpu or [CYCLICTEST_DEFAULT_METRIC]
    metrics = chosen_metrics(doc, ids)
    for metric_doc in metrics:
        if result.is_periodic(metric_doc):
            raise RtscopeError(f"{metric_doc['id']} counts iterations: a cyclictest histogram is of times "
                               "(choose time metrics with --metric)")
    return metrics


@dataclass(frozen=True)
class _Column:
    """One metric as a cyclictest thread: samples per µs row, the rest counted as overflows."""

    rows: list[int]
    overflows: int
    min_us: int
    avg_us: int
    max_us: int


def cyclictest_text(doc: dict[str, Any], metrics: list[dict[str, Any]], *, adjusted: bool,
                    rows: int | None) -> str:
    """The histogram of each metric as ``cyclictest -h ROWS`` prints it, one column per metric.

    Rows are whole microseconds (a sample of 21.9 µs is in row 21, as cyclictest truncates); see
    CYCLICTEST_REBINNING for how rtscope's log-linear buckets become rows. ``rows`` defaults to enough
    for the largest maximum (at most CYCLICTEST_MAX_ROWS); samples beyond the last row, and those
    beyond the probe's histogram, are overflows. Min, Avg and Max are the metric's exact figures,
    truncated to µs. cyclictest's list of the cycles that overflowed is not known: each thread's line
    gives only their number, as cyclictest does for the overflows it did not record.
    """
    if rows is None:
        highest = max((_whole_us(result.summary(m, adjusted=adjusted)["max"]) for m in metrics), default=0)
        rows = min(highest + 1, CYCLICTEST_MAX_ROWS)
    columns = [_column(m, adjusted, rows) for m in metrics]
    lines = [f"# rtscope run {doc['run']['id']}: {' '.join(m['id'] for m in metrics)}, {_figures_are(adjusted)}, "
             f"1 us rows: {CYCLICTEST_REBINNING}",
             # One line each, whatever the reason holds: every comment line must start with "#".
             *(f"# {m['id']} is invalid: {' '.join(result.invalid_reason(m).split())}"
               for m in metrics if not m["valid"]),
             "# Histogram"]
    lines += [f"{row:06d} " + "\t".join(f"{column.rows[row]:06d}" for column in columns) for row in range(rows)]
    lines += ["# Total:" + "".join(f" {sum(column.rows):09d}" for column in columns),
              "# Min Latencies:" + "".join(f" {column.min_us:05d}" for column in columns),
              "# Avg Latencies:" + "".join(f" {column.avg_us:05d}" for column in columns),
              "# Max Latencies:" + "".join(f" {column.max_us:05d}" for column in columns),
              "# Histogram Overflows:" + "".join(f" {column.overflows:05d}" for column in columns),
              "# Histogram Overflow at cycle number:",
              *(f"# Thread {number}:" + (f" # {column.overflows:05d} others" if column.overflows else "")
                for number, column in enumerate(columns)),
              ""]
    return "\n".join(lines) + "\n"


def _column(metric_doc: dict[str, Any], adjusted: bool, rows: int) -> _Column:
    histogram, measured = metric_doc["histogram"], metric_doc["stats"]
    # The histogram is as measured; adjusted rows take the overhead off each value, as the figures do.
    offset = metric_doc["overhead_ns"] if adjusted else 0.0
    counts, overflows = [0] * rows, histogram["overflow"]
    buckets = histogram["buckets"]
    for index, (lower, width, count) in enumerate(buckets):
        first, last = lower, lower + width - 1
        known: list[float] = []
        if measured["min"] is not None:
            # The exact min and max are samples: each has its own row, and they narrow the buckets that
            # hold them, so that the rows agree with the Min and Max lines.
            low, high = measured["min"], measured["max"]
            ends = ((low, index == 0), (high, index == len(buckets) - 1))
            known = [value for value, at_end in ends if at_end and first <= value <= last][:count]
            narrowed = max(first, math.ceil(low)), min(last, math.floor(high))
            if narrowed[0] <= narrowed[1]:
                first, last = narrowed
        shares = _spread(first, last, count - len(known), offset)
        for value in known:
            shares[_row(value, offset)] = shares.get(_row(value, offset), 0) + 1
        for row, share in shares.items():
            if row < rows:
                counts[row] += share
            else:
                overflows += share
    figures = result.summary(metric_doc, adjusted=adjusted)
    return _Column(counts, overflows, *(_whole_us(figures[key]) for key in ("min", "mean", "max")))


def _spread(first: int, last: int, count: int, offset: float) -> dict[int, int]:
    """Share ``count`` samples with values first..last ns (as measured, all equally likely) among the µs
    rows that the values less ``offset`` fall in, each row in proportion to how many of the values it
    holds."""
    top = _row(first, offset)

    def start(row: int) -> int:
        """The first value (ns, as measured) in ``row``."""
        return first if row == top else math.ceil(row * NS_PER_US + offset)

    weights = {row: min(last + 1, start(row + 1)) - start(row) for row in range(top, _row(last, offset) + 1)}
    return dict(zip(weights, _apportion(count, list(weights.values())), strict=True))


def _row(value: float, offset: float) -> int:
    return int(max(0.0, value - offset) // NS_PER_US)


def _apportion(count: int, weights: list[int]) -> list[int]:
    """``count`` split in proportion to ``weights`` into whole numbers that add up to it: each part's
    whole share, then one more to the largest remainders (the earlier part first on a tie)."""
    total = sum(weights)
    parts = [count * weight // total for weight in weights]
    by_remainder = sorted(range(len(weights)), key=lambda i: (-(count * weights[i] % total), i))
    for i in by_remainder[:count - sum(parts)]:
        parts[i] += 1
    return parts


def _whole_us(ns: float | None) -> int:
    """Whole microseconds, truncated as cyclictest's are; a missing figure (no samples) is 0, as there."""
    return 0 if ns is None else int(ns // NS_PER_US)


# --- LAVA ------------------------------------------------------------------------------------------------

def lava_text(doc: dict[str, Any], metric_ids: list[str], judge: Judge) -> str:
    """LAVA test case lines, ``NAME pass|fail [MEASUREMENT UNITS]``, as Linaro's test definitions write
    them to result.txt for send-to-lava.sh to give to ``lava-test-case NAME --result R --measurement M
    --units U``.

    Per metric: ``METRIC pass|fail`` (fails for any reason the judge finds), then ``METRIC.STAT`` for
    every statistic (times in µs, counts as they are; fails when the metric is invalid or the statistic
    breaks a limit), and ``METRIC.over_threshold`` (samples over the bench's threshold) where there is
    one. A metric that is not measured has only its fail lines.
    """
    lines = []
    for metric_id in metric_ids:
        metric_doc = result.metric(doc, metric_id)
        findings = judge.findings(metric_id, metric_doc)
        lines.append(f"{metric_id} {_lava_result(findings)}")
        if metric_doc is None:
            lines += [f"{metric_id}.{result.STATISTICS[limit.stat]} fail" for limit in judge.limits
                      if limit.metric == metric_id]
            continue
        figures = result.summary(metric_doc, adjusted=judge.adjusted)
        for key, name in result.STATISTICS.items():
            verdict = _lava_result(findings, key)
            if figures[key] is None:
                lines.append(f"{metric_id}.{name} {verdict}")
            else:
                lines.append(f"{metric_id}.{name} {verdict} {_lava_measurement(metric_doc, key, figures[key])}")
        if metric_doc.get("threshold"):
            lines.append(f"{metric_id}.{OVER_THRESHOLD} {_lava_result(findings, OVER_THRESHOLD)} "
                         f"{metric_doc['threshold']['over']} samples")
    return "".join(line + "\n" for line in lines)


def _lava_result(findings: list[Finding], stat: str | None = None) -> str:
    """"fail" when a finding concerns the whole metric or ``stat`` (any finding when ``stat`` is None)."""
    failed = any(stat is None or finding.stat in (None, stat) for finding in findings)
    return "fail" if failed else "pass"


def _lava_measurement(metric_doc: dict[str, Any], key: str, value: float) -> str:
    """"MEASUREMENT UNITS": times in µs to the nanosecond ("us", as LAVA's units are plain text),
    the number of samples or periods, or iterations per period."""
    if key == "count":
        return f"{values.exact(value)} {'periods' if result.is_periodic(metric_doc) else 'samples'}"
    if result.is_periodic(metric_doc):
        return f"{values.exact(value)} iterations"
    return f"{values.exact(round(value / NS_PER_US, 3))} us"


# --- JUnit -----------------------------------------------------------------------------------------------

def junit_text(doc: dict[str, Any], metric_ids: list[str], judge: Judge) -> str:
    """JUnit XML: one testsuite for the run, with the system as properties, and one testcase per metric
    whose failure lists every reason the judge finds; its figures are the testcase's output."""
    run, system = doc["run"], doc["system"]
    started, finished = (datetime.fromisoformat(run[key]) for key in ("started", "finished"))
    cases = [(metric_id, result.metric(doc, metric_id)) for metric_id in metric_ids]
    verdicts = [judge.findings(metric_id, metric_doc) for metric_id, metric_doc in cases]
    failures = str(sum(1 for findings in verdicts if findings))
    suites = ET.Element("testsuites", name="rtscope", tests=str(len(cases)), failures=failures, errors="0")
    suite = ET.SubElement(suites, "testsuite", {
        "name": f"rtscope run {run['id']}" + (f" {run['label']}" if run["label"] else ""),
        "tests": str(len(cases)), "failures": failures, "errors": "0", "skipped": "0",
        # JUnit's timestamp has no zone; the result's times are UTC.
        "timestamp": started.strftime("%Y-%m-%dT%H:%M:%S"), "hostname": system["hostname"],
        "time": values.exact(round((finished - started).total_seconds(), 3))})
    properties = ET.SubElement(suite, "properties")
    for name, value in _junit_properties(doc, judge.adjusted):
        ET.SubElement(properties, "property", name=name, value=value)
    for (metric_id, metric_doc), findings in zip(cases, verdicts, strict=True):
        case = ET.SubElement(suite, "testcase", name=metric_id,
                             classname=metric_doc["bench"] if metric_doc else metric_id)
        if findings:
            messages = [finding.message for finding in findings]
            failure = ET.SubElement(case, "failure", message="; ".join(messages), type="rtscope")
            failure.text = "\n".join(messages)
        if metric_doc is not None:
            ET.SubElement(case, "system-out").text = _junit_figures(metric_doc, judge.adjusted)
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def _junit_properties(doc: dict[str, Any], adjusted: bool) -> list[tuple[str, str]]:
    run, system, granted = doc["run"], doc["system"], doc["config"]["granted"]
    return [("run", run["id"]), ("label", run["label"] or ""), ("status", run["status"]),
            ("hostname", system["hostname"]), ("kernel", system["kernel_release"]),
            ("kernel_version", system["kernel_version"]), ("preempt", system["preempt_model"]),
            ("cpu", system["cpu_model"] or ""), ("arch", system["arch"]),
            ("policy", f"{granted['policy']} {granted['priority']}"),
            ("figures", _figures_are(adjusted))]


def _junit_figures(metric_doc: dict[str, Any], adjusted: bool) -> str:
    figures = result.summary(metric_doc, adjusted=adjusted)
    return ", ".join(f"{name} {fmt.figure(figures[key], _figure_unit(metric_doc, key))}"
                     for key, name in result.STATISTICS.items())
