"""rtscope trend: a metric's statistic across the stored runs, in time order, grouped by kernel release,
label or week — as a text table, CSV or JSON, or one HTML page with a point per run.

The figures come from the store's metrics table in one query (rtscope.store.series), so a store of
thousands of runs answers at once; only the newest run's document is read, for the metric's unit, and the
two either side of each change point (rtscope changes), for what changed. That table keeps p50, p99, max and
mean of each run; any other statistic is in the documents (compare). The HTML page adds the long-term
picture per board (rtscope.analysis.longterm), which reads every run's document for its histogram.
"""

import argparse
from collections.abc import Sequence
from datetime import UTC, datetime

from rtscope.analysis import changes, longterm, trend
from rtscope.commands.context import Context, add_output_option
from rtscope.errors import RtscopeError
from rtscope.exporters.trend import TREND_EXPORTERS
from rtscope.model import units, values
from rtscope.render import page, text
from rtscope.render.sections import longterm as longterm_section
from rtscope.render.sections import trend as trend_section
from rtscope.store.database import Store
from rtscope.store.series import STORED_STATISTICS, histories

FORMATS = ("text", "html", *TREND_EXPORTERS)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """METRIC, --stat, --host, --by, --since, --format, -o."""
    parser.add_argument("metric", metavar="METRIC", help="a metric id, e.g. lat.wakeup")
    parser.add_argument(
        "--stat",
        type=stored_statistic,
        default="p99",
        metavar="STAT",
        help=f"the statistic: {', '.join(STORED_STATISTICS)} (default p99; what the store keeps of every run)",
    )
    add_run_filters(parser)
    parser.add_argument(
        "--by",
        choices=trend.GROUPINGS,
        default="kernel",
        help="how runs form groups: their kernel release (default), label, or the ISO week they started in",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help="text (the default on standard output), html (the default with -o: a page with a point per run), "
        "csv or json (one entry per run)",
    )
    add_output_option(parser)


def add_run_filters(parser: argparse.ArgumentParser) -> None:
    """--host, --since, --monitor and --board: which stored runs a series over time holds (trend's, changes')."""
    parser.add_argument("--host", metavar="HOST", help="only runs measured on this host (its hostname)")
    parser.add_argument(
        "--since", type=since, metavar="DATE", help="only runs started at or after DATE (2026-11-01, or a time; UTC)"
    )
    parser.add_argument(
        "--monitor",
        metavar="NAME|ID",
        help="only the windows of this monitor (rtscope monitor; its name, the newest of that name, or an id prefix)",
    )
    parser.add_argument(
        "--board", metavar="NAME", help="only the windows of this board (its name in the monitor's spec): its series"
    )


def stored_statistic(text: str) -> str:
    """A statistic the store keeps of every run, by the names compare takes."""
    keys = values.statistics(text)
    if len(keys) != 1 or keys[0] not in STORED_STATISTICS:
        raise argparse.ArgumentTypeError(
            f"the store keeps {', '.join(STORED_STATISTICS)} of every run, not {text!r} "
            "(rtscope compare reads the others from the runs' documents)"
        )
    return keys[0]


def since(text: str) -> str:
    """A date or time as the store's start times compare with it: "2026-11-01", or "2026-11-01T10:00:00" in UTC."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad date {text!r} (e.g. 2026-11-01 or 2026-11-01T10:00)") from None
    if "T" not in text and " " not in text.strip():
        return moment.strftime("%Y-%m-%d")
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def run(args: argparse.Namespace, context: Context) -> int:
    """Print or write the metric's trend; one line and exit 2 when no run matches."""
    chosen = args.format or ("html" if args.output else "text")
    if chosen == "text" and args.output:
        raise RtscopeError("-o writes html, csv or json, not text (--format)")
    context.write_output(args.output, lambda: _render(args, context, chosen))
    if args.output:
        context.print([f"wrote {args.output}"])
    return 0


def history(
    store: Store,
    metric: str,
    stat: str,
    *,
    host: str | None,
    since: str | None,
    monitor: str | None = None,
    board: str | None = None,
) -> tuple[list[trend.Point], units.Unit]:
    """The stored runs' points of ``metric``'s ``stat`` (oldest first) and the metric's unit; one line and
    exit 2 when no run matches or the statistic is a throughput's good tail."""
    rows, unit = histories(store, metric, (stat,), host=host, since=since, monitor=monitor, board=board)
    return [trend.Point(*row) for row in rows[stat]], unit


def pictures(store: Store, run_ids: Sequence[str], metrics: Sequence[str] | None = None) -> dict[str, longterm.Picture]:
    """The long-term pictures of ``metrics`` (every metric of samples, when None) over the stored runs of
    ``run_ids``, their documents read one query's worth at a time, with each series' change points."""
    collector = longterm.collect(store.each_document(run_ids), metrics)
    return collector.pictures(lambda run_id: store.get(run_id).doc)


def _render(args: argparse.Namespace, context: Context, chosen: str) -> str:
    store = context.store()
    points, unit = history(
        store, args.metric, args.stat, host=args.host, since=args.since, monitor=args.monitor, board=args.board
    )
    made = trend.build(args.metric, args.stat, unit, points, args.by)
    if chosen in TREND_EXPORTERS:
        return TREND_EXPORTERS[chosen].write(made)
    found = changes.explained(changes.find(args.metric, args.stat, points), lambda run_id: store.get(run_id).doc)
    section = trend_section.build(made, figure=chosen == "html", changes=found)
    if chosen == "html":
        # The page's long-term picture needs the windows' histograms: the only documents read whole.
        picture = pictures(store, [point.run_id for point in points], [args.metric]).get(args.metric)
        picture_section = None if picture is None else longterm_section.build(picture)
        return page.render(f"rtscope trend: {args.metric}", (), [section, *filter(None, [picture_section])])
    return "\n".join(text.render([section], context.style)) + "\n"
