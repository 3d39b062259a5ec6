"""A trend (rtscope.analysis.trend) in the formats scripts read: CSV and JSON, one entry per run.

CSV: one line per run, oldest first, with its group; numbers as every rtscope CSV writes them
(rtscope.exporters.base.csv_number). JSON: a document that says what it is, as compare's does::

    {"format": "rtscope-trend", "version": 1, "metric", "stat", "unit", "by",
     "groups": [{"name", "runs", "median", "spread", "change", "beyond_spread", "time_base"}, …],
     "runs": [{"id", "started", "label", "hostname", "kernel", "group", "valid", "value"}, …]}
"""

import csv
import io
import json

from rtscope.analysis.trend import Trend
from rtscope.exporters.base import Exporter, csv_number

FORMAT = "rtscope-trend"
VERSION = 1


def _csv(trend: Trend) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["run", "started", "label", "hostname", "kernel", trend.by, "valid", trend.stat, "unit"])
    for group in trend.groups:
        for p in group.points:
            row = [p.run_id, p.started, p.label or "", p.hostname, p.kernel, group.name, str(p.valid).lower()]
            writer.writerow([*row, csv_number(p.value), trend.unit.name])
    return out.getvalue()


def _json(trend: Trend) -> str:
    group_of = {p.run_id: group.name for group in trend.groups for p in group.points}
    document = {
        "format": FORMAT,
        "version": VERSION,
        "metric": trend.metric,
        "stat": trend.stat,
        "unit": trend.unit.name,
        "by": trend.by,
        "groups": [
            {
                "name": group.name,
                "runs": len(group.points),
                "median": group.median,
                "spread": group.spread,
                "change": group.change,
                "beyond_spread": group.beyond_spread,
                "time_base": group.time_base,
            }
            for group in trend.groups
        ],
        "runs": [
            {
                "id": p.run_id,
                "started": p.started,
                "label": p.label,
                "hostname": p.hostname,
                "kernel": p.kernel,
                "group": group_of[p.run_id],
                "valid": p.valid,
                "value": p.value,
            }
            for p in trend.points
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


TREND_EXPORTERS: dict[str, Exporter[Trend]] = {
    exporter.name: exporter
    for exporter in (
        Exporter("csv", ".csv", "one line per run, oldest first, with its group", _csv),
        Exporter("json", ".json", f"a {FORMAT} document, version {VERSION}: the groups and every run", _json),
    )
}
