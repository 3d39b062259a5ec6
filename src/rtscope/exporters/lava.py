"""A run as LAVA test case lines, judged (rtscope.analysis.judge): what a LAVA job records per metric."""

from typing import Any

from rtscope.analysis.judge import OVER_THRESHOLD
from rtscope.exporters.base import RunExport, chosen_metrics, skipped_benches
from rtscope.model import result, units, values

# LAVA's units are plain text: a time is given in "us" (to the nanosecond), as Linaro's test
# definitions give latencies, and Thread-Metric's counts as iterations; any other unit by its name.
_UNITS = {units.NS: ("us", 1e3), units.COUNT: ("iterations", 1.0)}


def write(export: RunExport) -> str:
    """LAVA test case lines, ``NAME pass|fail [MEASUREMENT UNITS]``, as Linaro's test definitions write
    them to result.txt for send-to-lava.sh to give to ``lava-test-case NAME --result R --measurement M
    --units U``.

    Per metric asked for (default: every metric; then any a limit names): ``METRIC pass|fail`` (fails
    for any reason the judge finds), then ``METRIC.STAT`` for every statistic (fails when the metric is
    invalid or the statistic breaks a limit), and ``METRIC.over_threshold`` (samples over the bench's
    threshold) where there is one. A metric that is not measured has only its fail lines; one whose bench
    the run skipped (the target cannot run it) is ``METRIC skip``, and so is each skipped bench when every
    metric is exported.
    """
    doc = export.run.doc
    lines = []
    for verdict in export.judge.verdicts(doc, [m["id"] for m in chosen_metrics(doc, export.metrics)]):
        metric_id, metric_doc = verdict.metric, verdict.metric_doc
        lines.append(f"{metric_id} {'skip' if verdict.skipped else _result(verdict.failed)}")
        if verdict.skipped:
            continue
        if metric_doc is None:
            lines += [
                f"{metric_id}.{result.STATISTICS[limit.stat]} fail"
                for limit in export.judge.limits
                if limit.metric == metric_id
            ]
            continue
        figures = result.summary(metric_doc, adjusted=export.adjusted)
        lines += [
            f"{metric_id}.{name} {_result(verdict.fails(key))}{_measurement(metric_doc, key, figures[key])}"
            for key, name in result.STATISTICS.items()
        ]
        if metric_doc.get("threshold"):
            lines.append(
                f"{metric_id}.{OVER_THRESHOLD} {_result(verdict.fails(OVER_THRESHOLD))} "
                f"{metric_doc['threshold']['over']} samples"
            )
    lines += [f"{bench} skip" for bench, _ in skipped_benches(export)]
    return "".join(line + "\n" for line in lines)


def _result(failed: bool) -> str:
    return "fail" if failed else "pass"


def _measurement(metric_doc: dict[str, Any], key: str, value: float | None) -> str:
    """ " MEASUREMENT UNITS" of a statistic (nothing when it has no value): the number of samples or
    periods, else the figure in the metric's unit as LAVA is given it."""
    if value is None:
        return ""
    if key == "count":
        return f" {values.exact(value)} {'periods' if result.is_periodic(metric_doc) else 'samples'}"
    unit = result.unit(metric_doc)
    name, per = _UNITS.get(unit, (unit.name, 1.0))
    return f" {values.exact(round(value / per, 3) if per > 1 else value)} {name}"
