"""A comparison (rtscope.analysis.compare) in the formats scripts and documents read: markdown, CSV and
JSON."""

import csv
import io
import json
from collections.abc import Callable
from typing import Any

from rtscope.analysis import stats
from rtscope.analysis.compare import Comparison
from rtscope.render import comparison as comparison_text


def _csv(comparison: Comparison) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["metric", "stat", "unit", "group", "group_name", "runs", "value", "spread", "ratio_to_A",
                     "invalid", "differs_from_A", "p_value", "test", "beyond_spread"])
    for row in comparison.rows:
        verdicts = row.verdicts or (None,) * (len(comparison.groups) - 1)
        for g, figure, verdict in zip(comparison.groups, row.figures, (None, *verdicts), strict=True):
            writer.writerow([row.metric, row.stat, row.unit, g.letter, g.name, len(g.docs), _plain(figure.value),
                             _plain(figure.spread), _plain(figure.ratio), int(figure.invalid),
                             *(_verdict_fields(verdict) if verdict else ["", "", "", ""])])
    return out.getvalue()


def _verdict_fields(verdict: stats.Difference) -> list[Any]:
    return [int(verdict.real), f"{verdict.p_value:.6g}", verdict.test,
            "" if verdict.beyond_spread is None else int(verdict.beyond_spread)]


def _plain(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"


def _json(comparison: Comparison) -> str:
    doc = {
        "groups": [{"letter": g.letter, "name": g.name, "runs": [doc["run"]["id"] for doc in g.docs]}
                   for g in comparison.groups],
        "metrics": [
            {"id": metric_id,
             "rows": [{"stat": row.stat, "unit": row.unit,
                       "figures": [{"value": f.value, "spread": f.spread, "ratio": f.ratio, "invalid": f.invalid}
                                   for f in row.figures],
                       "differs_from_first": [None if v is None else {
                           "real": v.real, "p_value": v.p_value, "test": v.test, "beyond_spread": v.beyond_spread}
                           for v in row.verdicts]}
                      for row in comparison.rows if row.metric == metric_id]}
            for metric_id in dict.fromkeys(row.metric for row in comparison.rows)],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


WRITERS: dict[str, Callable[[Comparison], str]] = {"markdown": comparison_text.markdown, "csv": _csv,
                                                  "json": _json}
