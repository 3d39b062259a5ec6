"""rtscope runs: the stored runs, newest first."""

import argparse

from rtscope.commands.context import Context
from rtscope.model import values
from rtscope.render import fmt
from rtscope.render.summary import describe_status
from rtscope.store.database import RunRow

SHORT_ID = 8


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--limit N."""
    parser.add_argument(
        "--limit", type=values.positive, default=20, metavar="N", help="show at most N runs (default 20)"
    )


def run(args: argparse.Namespace, context: Context) -> int:
    """Print a table of the newest stored runs; says so when there are none."""
    rows = context.store().runs(args.limit)
    if not rows:
        context.print([f"no runs stored in {context.db_path} yet (rtscope run stores them)"])
        return 0
    header = ["id", "started", "label", "host", "kernel", "benches", "status", "invalid", "warnings"]
    context.print(fmt.table(header, [_row(r, context.style) for r in rows], "lllllllrr"))
    return 0


def _row(run: RunRow, style: fmt.Style) -> list[str]:
    return [
        run.id[:SHORT_ID],
        fmt.local_time(run.started),
        run.label or fmt.MISSING,
        run.hostname,
        run.kernel,
        " ".join(run.benches),
        describe_status(run.status, style),
        style.bad(str(run.invalid_metrics)) if run.invalid_metrics else "0",
        style.warn(str(run.warnings)) if run.warnings else "0",
    ]
