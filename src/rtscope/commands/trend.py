"""rtscope trend: a metric's statistic across the stored runs, in time order, grouped by kernel release,
label or week — as a text table, CSV or JSON, or one HTML page with a point per run.

The figures come from the store's metrics table in one query (Store.metric_history), so a store of
thousands of runs answers at once; only the newest run's document is read, for the metric's unit, and the
two either side of each change point (rtscope changes), for what changed. That table keeps p50, p99, max and
mean of each run; any other statistic is in the documents (compare). The HTML page adds the long-term
picture per board (rtscope.analysis.longterm), which reads every run's document for its histogram.
"""

import argparse
from collections.abc import Sequence
from datetime import UTC, datetime

from rtscope.analysis import changes, longterm, trend
from rtscope.analysis.changes import Row
from rtscope.commands.context import Context, add_output_option
from rtscope.errors import RtscopeError
from rtscope.exporters.trend import TREND_EXPORTERS
from rtscope.model import result, units, values
from rtscope.render import page, text
from rtscope.render.sections import longterm as longterm_section
from rtscope.render.sections import trend as trend_section
from rtscope.store.database import Store

# What the store's metrics table keeps of every run's metric (Store.metric_history).
STORED_STATISTICS = ("p50", "p99", "max", "mean")
# The statistics of the high tail: a throughput's (or count's) hurts on its low side, which the store lacks.
_HIGH_TAIL = ("p99", "max")
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
    """--host and --since: which stored runs a series over time holds (trend's, changes')."""
    parser.add_argument("--host", metavar="HOST", help="only runs measured on this host (its hostname)")
    parser.add_argument(
        "--since", type=since, metavar="DATE", help="only runs started at or after DATE (2026-11-01, or a time; UTC)"
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
    store: Store, metric: str, stat: str, *, host: str | None, since: str | None
) -> tuple[list[trend.Point], units.Unit]:
    """The stored runs' points of ``metric``'s ``stat`` (oldest first) and the metric's unit; one line and
    exit 2 when no run matches or the statistic is a throughput's good tail."""
    rows, unit = histories(store, metric, (stat,), host=host, since=since)
    return [trend.Point(*row) for row in rows[stat]], unit


def histories(
    store: Store,
    metric: str,
    stats: Sequence[str],
    *,
    host: str | None,
    since: str | None,
    drop_good_tails: bool = False,
) -> tuple[dict[str, list[Row]], units.Unit]:
    """The store's rows (Store.metric_history's) of each statistic of ``stats``, in one query, and the
    metric's unit; with ``drop_good_tails``, a throughput's p99 and max (its good side) are left out rather
    than refused."""
    rows = store.metric_histories(metric, stats, host=host, since=since)
    if not rows[stats[0]]:
        where = "".join(
            f" {what} {value}" for what, value in (("on host", host), ("since", since)) if value is not None
        )
        raise RtscopeError(f"no stored run{where} measured {metric} (rtscope runs lists the runs)")
    unit = metric_unit(store, metric, rows[stats[0]][-1][0])
    if not unit.lower_is_better:
        good = [stat for stat in stats if stat in _HIGH_TAIL]
        if good and not drop_good_tails:
            raise RtscopeError(
                f"{metric} is {unit.quantity} (higher is better): its tail is the low side, p1 and min, which the "
                f"store does not keep; --stat p50 or mean, or rtscope compare on its runs"
            )
        stats = [stat for stat in stats if stat not in good]
    return {stat: rows[stat] for stat in stats}, unit


def metric_unit(store: Store, metric: str, run_id: str) -> units.Unit:
    """The unit of ``metric`` as stored run ``run_id`` measured it."""
    metric_doc = result.metric(store.get(run_id).doc, metric)
    assert metric_doc is not None  # the store's metrics table lists the run's metrics
    return units.get(metric_doc["unit"])


def pictures(store: Store, run_ids: Sequence[str], metrics: Sequence[str] | None = None) -> dict[str, longterm.Picture]:
    """The long-term pictures of ``metrics`` (every metric of samples, when None) over the stored runs of
    ``run_ids``, their documents read one query's worth at a time, with each series' change points."""
    collector = longterm.collect_texts(store.each_text(run_ids), metrics)
    return collector.pictures(lambda run_id: store.get(run_id).doc)


def _render(args: argparse.Namespace, context: Context, chosen: str) -> str:
    store = context.store()
    points, unit = history(store, args.metric, args.stat, host=args.host, since=args.since)
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
