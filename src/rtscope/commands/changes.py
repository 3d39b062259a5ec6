"""rtscope changes: where a metric's level or tail stepped across the stored runs, by how much, and what
changed between the runs either side (rtscope.analysis.changes; docs/changes.md).

The series are trend's (the store's metrics table, one query per statistic, runs of one time base apart);
only the documents of the two runs either side of each step are read.
"""

import argparse
import json

from rtscope.analysis import changes
from rtscope.analysis.changes import ChangePoint
from rtscope.commands.context import Context
from rtscope.commands.trend import add_run_filters, stored_statistic
from rtscope.model.units import Unit
from rtscope.render import text
from rtscope.render.sections import changes as changes_section
from rtscope.store.series import histories

# The level and the tail: what a lab watches of every run.
DEFAULT_STATISTICS = ("p50", "p99", "max")
FORMAT = "rtscope-changes"
VERSION = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """METRIC, --stat, --host, --since, --monitor, --board, --json."""
    parser.add_argument("metric", metavar="METRIC", help="a metric id, e.g. lat.wakeup")
    parser.add_argument(
        "--stat",
        type=stored_statistic,
        action="append",
        metavar="STAT",
        help="a statistic to look at: p50, p99, max or mean; again for more (default p50, p99 and max; "
        "p50 alone where higher is better)",
    )
    add_run_filters(parser)
    parser.add_argument("--json", action="store_true", help="print the change points as JSON")


def run(args: argparse.Namespace, context: Context) -> int:
    """Print the change points of every statistic asked for (none found is not an error)."""
    store = context.store()
    chosen = list(dict.fromkeys(args.stat or DEFAULT_STATISTICS))
    series, unit = histories(
        store,
        args.metric,
        chosen,
        host=args.host,
        since=args.since,
        monitor=args.monitor,
        board=args.board,
        drop_good_tails=args.stat is None,
    )
    runs = {stat: sum(1 for row in rows if row[5] and row[6] is not None) for stat, rows in series.items()}
    found = [change for stat, rows in series.items() for change in changes.find_in_rows(args.metric, stat, rows)]
    found = changes.explained(found, lambda run_id: store.get(run_id).doc)
    if args.json:
        context.print([json.dumps(document(args.metric, unit, found, runs), indent=1)])
    else:
        context.print(text.render([changes_section.build(args.metric, unit, found, runs)], context.style))
    return 0


def document(metric: str, unit: Unit, found: list[ChangePoint], runs: dict[str, int]) -> dict[str, object]:
    """The change points as JSON: what was looked at and each step with what changed."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "metric": metric,
        "unit": unit.name,
        "runs": runs,
        "changes": [changes.entry(change, unit) for change in found],
    }
