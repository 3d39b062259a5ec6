"""rtscope runs: the stored runs, newest first, those of a target, kernel, label, user, campaign, monitor or
board, or since a date; as a table or as JSON."""

import argparse
import dataclasses
import json
from datetime import UTC, datetime

from rtscope.commands.context import Context
from rtscope.model import values
from rtscope.render import fmt
from rtscope.render.summary import describe_status
from rtscope.store.database import RunFilter, RunRow

SHORT_ID = 8


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--limit N, the filters, --format table|json."""
    parser.add_argument(
        "--limit", type=values.positive, default=20, metavar="N", help="show at most N runs (default 20)"
    )
    # --target is the global option (where benches run): the filter is --on.
    parser.add_argument(
        "--on", metavar="TARGET", help="only runs measured on this --target (e.g. local, ssh://pi@board)"
    )
    parser.add_argument("--kernel", help="only runs on this kernel release (uname -r)")
    parser.add_argument("--label", help="only runs with this label")
    parser.add_argument("--user", help="only runs stored by this user")
    parser.add_argument("--campaign", metavar="NAME|ID", help="only the runs of this campaign (the newest of a name)")
    parser.add_argument("--since", type=_since, metavar="DATE", help="only runs started at or after DATE (UTC)")
    parser.add_argument(
        "--monitor", metavar="NAME|ID", help="only the windows of this monitor (rtscope monitor) that count"
    )
    parser.add_argument("--board", metavar="NAME", help="only the windows of this board that count")
    parser.add_argument("--format", choices=("table", "json"), default="table", help="table (default) or json")


def run(args: argparse.Namespace, context: Context) -> int:
    """Print the newest stored runs the filters let through; says so when there are none."""
    store = context.store()
    only = RunFilter(args.on, args.kernel, args.label, args.user, args.campaign, args.since, args.monitor, args.board)
    rows = store.runs(args.limit, only)
    if args.format == "json":
        context.print([json.dumps([dataclasses.asdict(row) for row in rows], indent=2)])
    elif not rows:
        context.print(
            [
                f"no stored run in {store.location} matches"
                if only != RunFilter()
                else f"no runs stored in {store.location} yet (rtscope run stores them)"
            ]
        )
    else:
        header = [
            "id",
            "started",
            "label",
            "target",
            "host",
            "kernel",
            "benches",
            "status",
            "invalid",
            "warnings",
            "by",
        ]
        context.print(fmt.table(header, [_row(r, context.style) for r in rows], "llllllllrrl"))
    return 0


def _since(text: str) -> str:
    """A date or time as the store writes times ("2026-11-01", "2026-11-01T08:00" → UTC), to compare with."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad date {text!r} (e.g. 2026-11-01 or 2026-11-01T08:00)") from None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.isoformat(timespec="seconds")


def _row(run: RunRow, style: fmt.Style) -> list[str]:
    return [
        run.id[:SHORT_ID],
        fmt.local_time(run.started),
        run.label or fmt.MISSING,
        # A run of a format before 4 does not say where it ran.
        run.target or fmt.MISSING,
        # A guest without a hostname calls itself "(none)": its target names it.
        fmt.MISSING if run.hostname == "(none)" else run.hostname,
        run.kernel,
        " ".join(run.benches),
        describe_status(run.status, style),
        style.bad(str(run.invalid_metrics)) if run.invalid_metrics else "0",
        style.warn(str(run.warnings)) if run.warnings else "0",
        run.measured_by or fmt.MISSING,
    ]
