"""A comparison (rtscope.analysis.compare) in the formats scripts and documents read: markdown (drawn
by rtscope.render.comparison), CSV and JSON.

CSV: one line per metric, statistic and group, numbers as every rtscope CSV writes them
(rtscope.exporters.base.csv_number: exact, so nothing is lost reading them back); a metric whose runs
differ in labels is named with them in braces, as a labelled id is ("app.exec{threads=2,op=quick}").

JSON: a document that says what it is, as result documents do::

    {"format": "rtscope-comparison", "version": 1,
     "groups": [{"letter": "A", "name": …, "runs": [run id, …]}, …],
     "metrics": [{"id": metric id, "labels": {its labels} (a metric measured with several is listed per set),
                  "rows": [{"stat": "p99", "unit": "ns",
                            "figures": [{"value", "spread", "ratio", "invalid"} per group],
                            "differs_from_first": [null | {VERDICT_FIELDS} per group after the first]}]}]}

The verdict's fields (rtscope.analysis.evidence.Difference): real, negligible, the test and its p-value,
Holm's p-value over the table's comparisons and their number, the runs of each group, the ratio of X's
figure to A's with its 95 % interval (ratio_low, ratio_high), and the runs each group would need to find
an effect of the size seen where it is not real. Version 2: "beyond_spread" gave way to those.

``version`` grows when a reader of the previous version could misread the document; keys may be
added within a version.
"""

import csv
import io
import json
from collections.abc import Callable
from typing import Any

from rtscope.analysis import evidence
from rtscope.analysis.compare import Comparison
from rtscope.exporters.base import Exporter, csv_number
from rtscope.render import comparison as comparison_text

FORMAT = "rtscope-comparison"
VERSION = 2
VERDICT_FIELDS = (
    "real",
    "negligible",
    "test",
    "p_value",
    "p_adjusted",
    "comparisons",
    "runs_A",
    "runs_X",
    "ratio",
    "ratio_low",
    "ratio_high",
    "runs_needed",
)


def _csv(comparison: Comparison) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        [
            "metric",
            "stat",
            "unit",
            "group",
            "group_name",
            "runs",
            "value",
            "spread",
            "ratio_to_A",
            "invalid",
            *(f"{field}" if field != "real" else "differs_from_A" for field in VERDICT_FIELDS),
        ]
    )
    for row in comparison.rows:
        verdicts = row.verdicts or (None,) * (len(comparison.groups) - 1)
        for g, figure, verdict in zip(comparison.groups, row.figures, (None, *verdicts), strict=True):
            writer.writerow(
                [
                    row.name,
                    row.stat,
                    row.unit,
                    g.letter,
                    g.name,
                    len(g.docs),
                    csv_number(figure.value),
                    csv_number(figure.spread),
                    csv_number(figure.ratio),
                    int(figure.invalid),
                    *(_verdict_fields(verdict).values() if verdict else [""] * len(VERDICT_FIELDS)),
                ]
            )
    return out.getvalue()


def _verdict_fields(verdict: evidence.Difference, *, as_csv: bool = True) -> dict[str, Any]:
    """The verdict's fields (VERDICT_FIELDS), numbers as CSV writes them or as JSON keeps them."""
    low, high = verdict.interval or (None, None)
    fields: dict[str, Any] = dict(
        zip(
            VERDICT_FIELDS,
            (
                verdict.real,
                verdict.negligible,
                verdict.test,
                verdict.p_value,
                verdict.p,
                verdict.comparisons,
                *verdict.runs,
                verdict.ratio,
                low,
                high,
                verdict.needed,
            ),
            strict=True,
        )
    )
    if not as_csv:
        return fields
    return {
        key: int(value) if isinstance(value, bool) else value if isinstance(value, str) else csv_number(value)
        for key, value in fields.items()
    }


def _json(comparison: Comparison) -> str:
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "groups": [
            {"letter": g.letter, "name": g.name, "runs": [doc["run"]["id"] for doc in g.docs]}
            for g in comparison.groups
        ],
        "metrics": [
            {
                "id": metric_id,
                "labels": dict(labels),
                "rows": [
                    {
                        "stat": row.stat,
                        "unit": row.unit,
                        "figures": [
                            {"value": f.value, "spread": f.spread, "ratio": f.ratio, "invalid": f.invalid}
                            for f in row.figures
                        ],
                        "differs_from_first": [
                            None if v is None else _verdict_fields(v, as_csv=False) for v in row.verdicts
                        ],
                    }
                    for row in comparison.rows
                    if (row.metric, row.labels) == (metric_id, labels)
                ],
            }
            for metric_id, labels in dict.fromkeys((row.metric, row.labels) for row in comparison.rows)
        ],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


COMPARISON_EXPORTERS: dict[str, Exporter[Comparison]] = {
    exporter.name: exporter
    for exporter in (
        Exporter("markdown", ".md", "the table and its legend as markdown", comparison_text.markdown),
        Exporter("csv", ".csv", "one line per metric, statistic and group; times in ns", _csv),
        Exporter("json", ".json", f"a {FORMAT} document, version {VERSION}", _json),
    )
}
# What compare writes in each format but text (which it prints itself, in colour on a terminal).
WRITERS: dict[str, Callable[[Comparison], str]] = {name: e.write for name, e in COMPARISON_EXPORTERS.items()}
