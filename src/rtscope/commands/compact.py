"""rtscope compact: merge a monitor's older windows now, as the monitor does every hour (docs/retention.md):
windows older than --keep-full into one document per board, step and hour, those older than --keep-hourly
into one per day, each the exact merge of what it replaces."""

import argparse
from datetime import UTC, datetime

from rtscope.commands.context import Context
from rtscope.errors import RtscopeError
from rtscope.execution import retention
from rtscope.model import values


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--monitor, --keep-full, --keep-hourly."""
    parser.add_argument("--monitor", required=True, metavar="NAME|ID", help="the monitor whose windows to merge")
    default = retention.RetentionPolicy()
    parser.add_argument(
        "--keep-full",
        type=values.days,
        default=default.full_days,
        metavar="DAYS",
        help=f"keep windows as measured this long, e.g. 30d, 8w (default {default.full_days}d)",
    )
    parser.add_argument(
        "--keep-hourly",
        type=values.days,
        default=default.hourly_days,
        metavar="DAYS",
        help=f"keep hourly documents this long, then daily, e.g. 1y (default {default.hourly_days}d)",
    )


def run(args: argparse.Namespace, context: Context) -> int:
    """Compact the monitor's windows as of now; say what was merged, and what could not be."""
    if args.keep_hourly < args.keep_full:
        raise RtscopeError(
            f"--keep-hourly ({args.keep_hourly} days) is shorter than --keep-full ({args.keep_full} days)"
        )
    store = context.store()
    monitor = store.campaign(args.monitor)
    policy = retention.RetentionPolicy(args.keep_full, args.keep_hourly)
    summary = retention.compact(store, monitor.id, policy, datetime.now(UTC))
    context.print([f"monitor {monitor.name}: {summary.text()}"])
    return 0
