"""Whether a run passes: the one judge behind rtscope check (a run against one or more baseline runs) and
the LAVA, JUnit and KCIDB exports (a run against a user's limits).

A metric fails when
- it is not measured, though a limit names it or the baseline measured it — unless the run skipped its
  bench (the target cannot run it): then it is absent, neither passed nor failed;
- it is invalid — against a baseline, only where the baseline measured it validly: a metric new to
  the run, or invalid in both, has nothing to be held to;
- when asked (``fail_on_threshold``), any sample passed the threshold its bench was given;
- a statistic is worse than a limit on it;
- a statistic is worse than the baseline's by more than ``max_regression`` AND the run really differs
  from the baseline in it (rtscope.analysis.evidence): a worse figure that chance could explain passes —
  a gate that fails on noise is soon ignored. Against several baseline runs, as compare has a group:
  their figure is the median over them, and the run's figure is tested against where their spread puts
  a rerun (a prediction test); against one baseline run, the two runs' samples are tested (nothing says
  how far a rerun moves). Every statistic of every metric checked is one family: the p-values are
  Holm's over them all, so that checking more metrics does not make a false alarm more likely.

Worse is as the statistic's unit has it (rtscope.model.units): a time higher, iterations or a
throughput lower; in any unit a spread is worse higher and a number of samples lower. So is the tail
held to the baseline: a time's p99 and max, a throughput's p1 and min (rtscope.analysis.stats.bad_side).
A square wave's period, high time and duty are worse further from their nominal values
(rtscope.model.result.nominal), by the change of that distance as a share of the nominal value.
"""

import argparse
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from rtscope.analysis import evidence, stats
from rtscope.analysis.compare import median_and_spread
from rtscope.errors import RtscopeError
from rtscope.model import result, units, values

# A finding about the samples over the bench's threshold is about this, as if it were a statistic.
OVER_THRESHOLD = "over_threshold"
# Against a baseline, p99 by default: the tail a deadline sees, yet stable from run to run where the max
# is one sample, often a VM's pause.
DEFAULT_STATISTICS = ("p99",)
DEFAULT_MAX_REGRESSION = 0.10
# The status of a metric the run did not measure because it skipped its bench, before the reason.
SKIPPED = "skipped"
# A per-period metric (iterations per period) is held to its baseline by its median period, as compare
# shows it.
PERIODIC_STATISTIC = "p50"

_NS_PER_TIME_UNIT = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}
_LIMIT = re.compile(
    r"(?P<metric>[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+):(?P<stat>[^=]+)="
    r"(?P<number>[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(?P<unit>ns|us|µs|ms|s)?"
)


@dataclass(frozen=True)
class Limit:
    """A user's limit on one statistic of one metric, as ``--limit METRIC:STAT=VALUE`` gives it: how bad
    the figure may get. ``value`` is in ns when ``unit`` is given, else in the statistic's own unit."""

    metric: str
    stat: str  # a summary key: "max", "p999" …
    value: float
    unit: str | None  # the time unit as written ("us", "ms" …); None for a plain number
    text: str


def limit(text: str) -> Limit:
    """A limit from "lat.wakeup:max=100us", "lat.irq:p99.9=0.5ms" or "tm.basic:p50=2000000"; an
    argparse.ArgumentTypeError names what is wrong."""
    match = _LIMIT.fullmatch(text.strip())
    if not match:
        raise argparse.ArgumentTypeError(
            f"bad limit {text!r} (METRIC:STAT=VALUE, e.g. lat.wakeup:max=100us; "
            "times in ns, us, ms or s; other figures as plain numbers)"
        )
    # Rounded, so that "2.792967ms" is 2792967 ns and not a hair less.
    value = round(float(match["number"]) * _NS_PER_TIME_UNIT.get(match["unit"], 1.0), 6)
    return Limit(match["metric"], values.statistic(match["stat"]), value, match["unit"], text.strip())


def statistic_unit(metric_doc: dict[str, Any], key: str) -> units.Unit:
    """The unit statistic ``key`` of a metric is in, with the way it is better: the metric's unit, but
    the number of samples or periods is a count (the more, the better) and a spread is better lower
    whatever the unit."""
    if key == "count":
        return units.COUNT
    unit = result.unit(metric_doc)
    return replace(unit, lower_is_better=True) if key == "stddev" else unit


def _worse_by(unit: units.Unit, nominal: float | None, baseline: float, value: float) -> float:
    """How much worse ``value`` is than ``baseline``: as the unit has it, or for a metric with a nominal
    value, how much further from it, as a share of it (a period 1 % short is as wrong as one 1 % long)."""
    if nominal is None or nominal == 0:
        return unit.worse_by(baseline, value)
    return (abs(value - nominal) - abs(baseline - nominal)) / abs(nominal)


@dataclass(frozen=True)
class Finding:
    """One reason a metric fails: what it concerns — a summary key, OVER_THRESHOLD, or None for the
    whole metric — and why, in words ("p99 23.2 µs is above the limit 20.0 µs")."""

    stat: str | None
    message: str


@dataclass(frozen=True)
class Change:
    """A statistic of a metric against the baseline's: both figures, the test of whether the runs
    differ in it, and the judge's word on it ("ok", "ok: worse, within 10 %" … "REGRESSED")."""

    stat: str
    unit: units.Unit
    baseline: float | None
    value: float | None
    difference: evidence.Difference | None
    verdict: str

    @property
    def relative(self) -> float | None:
        """(value − baseline) / baseline; None without both figures, or from a baseline of 0 to more."""
        if self.baseline is None or self.value is None or (self.baseline == 0 and self.value != 0):
            return None
        return self.value / self.baseline - 1 if self.baseline else 0.0


@dataclass(frozen=True)
class MetricVerdict:
    """The judge's word on one metric of a run: the metric as a whole in words (empty when its changes
    say it all), each statistic held to the baseline's, and every reason it fails (none: it passes)."""

    metric: str
    metric_doc: dict[str, Any] | None  # None: the run did not measure it
    status: str
    changes: tuple[Change, ...]
    findings: tuple[Finding, ...]

    @property
    def failed(self) -> bool:
        return bool(self.findings)

    @property
    def skipped(self) -> bool:
        """Not measured, because the run skipped its bench (the status gives the reason)."""
        return self.metric_doc is None and not self.findings

    def fails(self, stat: str) -> bool:
        """Whether a finding concerns the whole metric or ``stat`` (a summary key or OVER_THRESHOLD)."""
        return any(finding.stat in (None, stat) for finding in self.findings)


@dataclass(frozen=True)
class Judge:
    """The rules a run is held to: limits, the threshold (when ``fail_on_threshold``) and baseline runs
    (none, one or a group), any of them; figures overhead-adjusted unless ``adjusted`` is False."""

    limits: tuple[Limit, ...] = ()
    fail_on_threshold: bool = False
    baselines: tuple[dict[str, Any], ...] = ()
    statistics: tuple[str, ...] = DEFAULT_STATISTICS  # held to the baseline (per-period metrics: their median)
    max_regression: float = DEFAULT_MAX_REGRESSION
    adjusted: bool = True

    def verdicts(self, doc: dict[str, Any], metric_ids: Iterable[str] = ()) -> list[MetricVerdict]:
        """The verdict on each metric of result document ``doc`` to judge: ``metric_ids`` (by default the
        baselines' metrics and then the run's others, or without a baseline the run's), then any other
        metric a limit names — measured or not: a limit on a metric the run lacks is a failure, unless the
        run skipped its bench (the target cannot run it): a skipped metric is absent, not failed."""
        ids = list(metric_ids) or [m["id"] for source in (*self.baselines, doc) for m in source["metrics"]]
        ids = list(dict.fromkeys([*ids, *(each.metric for each in self.limits)]))
        tests = self._tests(doc, ids)
        return [
            self._verdict(metric_id, result.metric(doc, metric_id), self._skip_reason(doc, metric_id), tests)
            for metric_id in ids
        ]

    def _tests(self, doc: dict[str, Any], ids: list[str]) -> dict[tuple[str, str], evidence.Difference | None]:
        """The test of each statistic held to the baseline, per metric, weighed as one family (Holm)."""
        asked: list[tuple[str, str]] = []
        found: list[evidence.Difference | None] = []
        exact = self._exact_baselines()
        for metric_id in ids:
            after = result.metric(doc, metric_id)
            before = [m for b in self.baselines if (m := result.metric(b, metric_id)) is not None and m["valid"]]
            if after is None or not after["valid"] or not before:
                continue
            for key in self._keys(before[0]):
                asked.append((metric_id, key))
                found.append(evidence.compare_groups(before, [after], key, adjusted=self.adjusted, varied=exact))
        return dict(zip(asked, evidence.holm(found, samples_too=True), strict=True))

    def _exact_baselines(self) -> bool:
        """Whether baseline runs that agree to the bit are evidence: in instruction time a rerun repeats to
        the bit (or its seed varied it), so a run that moves off them changed what it executes."""
        return all(result.deterministic(b) for b in self.baselines) or evidence.seeded_apart(self.baselines)

    def _keys(self, metric_doc: dict[str, Any]) -> tuple[str, ...]:
        """The statistics held to the baseline, each on its bad side."""
        keys = (PERIODIC_STATISTIC,) if result.is_periodic(metric_doc) else self.statistics
        return tuple(stats.bad_side(asked, statistic_unit(metric_doc, asked).lower_is_better) for asked in keys)

    def _skip_reason(self, doc: dict[str, Any], metric_id: str) -> str | None:
        """Why ``doc`` has no metric ``metric_id`` when it skipped the bench of it (a baseline's metric
        names that bench), else None."""
        bench = next((m["bench"] for b in self.baselines if (m := result.metric(b, metric_id)) is not None), None)
        return result.skip_reason(doc, metric_id, bench)

    def _verdict(
        self,
        metric_id: str,
        metric_doc: dict[str, Any] | None,
        skipped: str | None,
        tests: dict[tuple[str, str], evidence.Difference | None],
    ) -> MetricVerdict:
        if metric_doc is None and skipped is not None:
            return MetricVerdict(metric_id, None, f"{SKIPPED}: {skipped}", (), ())
        if metric_doc is None:
            return MetricVerdict(
                metric_id, None, "MISSING from the run", (), (Finding(None, "not measured in this run"),)
            )
        measured = [m for baseline in self.baselines if (m := result.metric(baseline, metric_id)) is not None]
        # A baseline run whose metric is invalid says nothing of what the run should reach.
        before = [m for m in measured if m["valid"]]
        status, changes, findings = "", (), []
        if self.baselines and not measured:
            status = "new: not in the baseline"
        elif measured and not before:
            status = f"not checked: invalid in the baseline ({result.invalid_reason(measured[0])})"
        elif not metric_doc["valid"]:
            status = f"INVALID: {result.invalid_reason(metric_doc)}"
            findings.append(Finding(None, f"invalid: {result.invalid_reason(metric_doc)}"))
        elif before:
            changes, regressions = zip(
                *(self._change(before, metric_doc, key, tests[(metric_id, key)]) for key in self._keys(before[0]))
            )
            findings += filter(None, regressions)
        findings += filter(
            None,
            [
                self._over_threshold(metric_doc),
                *(self._limit_broken(each, metric_doc) for each in self.limits if each.metric == metric_id),
            ],
        )
        return MetricVerdict(metric_id, metric_doc, status, tuple(changes), tuple(findings))

    def _change(
        self, before: list[dict[str, Any]], after: dict[str, Any], key: str, difference: evidence.Difference | None
    ) -> tuple[Change, Finding | None]:
        """Statistic ``key`` of a metric (on its bad side) against the baseline runs' (their median), and
        the finding when it regressed."""
        figures = [stats.statistic(m, key, adjusted=self.adjusted) for m in before]
        old = median_and_spread([v for v in figures if v is not None])[0]
        new = stats.statistic(after, key, adjusted=self.adjusted)
        unit = statistic_unit(before[0], key)
        if old is None or new is None:
            return Change(key, unit, old, new, difference, "not compared: no figure"), None
        worse_by, allowed = _worse_by(unit, result.nominal(after), old, new), f"{100 * self.max_regression:g} %"
        regressed = worse_by > self.max_regression and difference is not None and difference.runs_differ
        if worse_by <= 0:
            verdict = "ok"
        elif worse_by <= self.max_regression:
            verdict = f"ok: worse, within {allowed}"
        elif difference is None:
            verdict = "ok: worse, but no test tells whether it is real"
        else:
            verdict = "REGRESSED" if regressed else "ok: worse, but not significantly"
        change = Change(key, unit, old, new, difference, verdict)
        if not regressed:
            return change, None
        how_much = "from 0" if math.isinf(worse_by) else f"{100 * worse_by:.1f} % worse"
        return change, Finding(key, f"{stats.statistic_name(key)} {how_much} (more than {allowed}, {difference})")

    def _over_threshold(self, metric_doc: dict[str, Any]) -> Finding | None:
        threshold = metric_doc.get("threshold")
        if not (self.fail_on_threshold and threshold and threshold["over"] > 0):
            return None
        return Finding(
            OVER_THRESHOLD, f"{units.COUNT.format(threshold['over'])} samples above {units.NS.format(threshold['ns'])}"
        )

    def _limit_broken(self, limit: Limit, metric_doc: dict[str, Any]) -> Finding | None:
        """Why the metric does not hold ``limit``, or None when it does. A limit in the wrong kind of
        unit (a time for a figure that is not one, or the other way round) is bad input: an RtscopeError."""
        unit, name = statistic_unit(metric_doc, limit.stat), result.STATISTICS[limit.stat]
        is_time = unit.quantity == units.NS.quantity
        if is_time != (limit.unit is not None):
            wanted = "a time with its unit (e.g. 100us)" if is_time else "a plain number"
            raise RtscopeError(
                f"--limit {limit.text}: {limit.metric} {name} is {'' if is_time else 'not '}a time; give {wanted}"
            )
        value = result.summary(metric_doc, adjusted=self.adjusted)[limit.stat]
        if value is None:
            return Finding(limit.stat, f"{name}: no value to hold to the limit {unit.format(limit.value)}")
        if unit.worse_by(limit.value, value) <= 0:
            return None
        side = "above" if unit.lower_is_better else "below"
        return Finding(limit.stat, f"{name} {unit.format(value)} is {side} the limit {unit.format(limit.value)}")
