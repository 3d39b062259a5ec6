"""rtscope report: runs as one self-contained HTML page of tables and plots (rtscope.render.report); or,
with --monitor NAME, a monitor's long-term picture per board (rtscope.analysis.longterm)."""

import argparse
from pathlib import Path

from rtscope import files
from rtscope.analysis import published
from rtscope.commands.compare import add_min_effect_option, add_published_option
from rtscope.commands.context import CAMPAIGN_PREFIX, Context
from rtscope.commands.show import add_raw_times_option, add_worst_case_option
from rtscope.commands.trend import pictures, since
from rtscope.errors import RtscopeError
from rtscope.render import report
from rtscope.store.database import RunFilter


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """RUN|CAMPAIGN…, --monitor NAME, --since, -o FILE, --published, --raw-times, --worst-case."""
    parser.add_argument(
        "runs",
        nargs="*",
        metavar="RUN|CAMPAIGN",
        help="runs, in the order to show them: stored ids or id prefixes, 'last', result files, "
        f"or {CAMPAIGN_PREFIX}NAME or {CAMPAIGN_PREFIX}ID for every run of a campaign",
    )
    parser.add_argument(
        "--monitor",
        metavar="NAME",
        help="instead of runs, a monitor's stored windows (its name or id): per metric the histogram cumulated "
        "over them, the worst of each window over time with kernel releases and change points, a table per board",
    )
    parser.add_argument(
        "--since", type=since, metavar="DATE", help="with --monitor, only windows started at or after DATE (UTC)"
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        required=True,
        metavar="FILE",
        help="the HTML file to write (required): self-contained, it opens in any browser without "
        "a network; an existing file is replaced, and only by a complete report",
    )
    add_published_option(parser)
    add_min_effect_option(parser)
    add_raw_times_option(parser)
    add_worst_case_option(parser)


def run(args: argparse.Namespace, context: Context) -> int:
    """Write the report on the runs to the output file and say so."""
    if args.monitor is not None and args.runs:
        raise RtscopeError("report takes runs or --monitor NAME, not both")
    if args.monitor is None and not args.runs:
        raise RtscopeError("report needs runs, or --monitor NAME")
    if args.since is not None and args.monitor is None:
        raise RtscopeError("--since chooses a monitor's windows: give it with --monitor NAME")
    if args.monitor is not None:
        return _monitor(args, context)
    # The output file is claimed first, so that an unwritable place is reported before any work.
    with files.AtomicFile(args.output) as output:
        runs = context.load_runs(args.runs)
        if not runs:
            raise RtscopeError(f"no runs to report: {' '.join(args.runs)} holds none")
        study = published.load(args.published) if args.published else None
        if study is not None and (refused := published.refusal(study, [run_result.doc for run_result in runs])):
            raise RtscopeError(refused)
        output.commit(
            report.render(
                runs,
                adjusted=not args.raw_times,
                published=study,
                min_effect=args.min_effect,
                probability=args.worst_case,
            )
        )
    context.print([f"wrote {args.output}: {len(runs)} run{'s' if len(runs) != 1 else ''}"])
    return 0


def _monitor(args: argparse.Namespace, context: Context) -> int:
    """Write the page of a monitor's windows: their documents are read a query's worth at a time."""
    with files.AtomicFile(args.output) as output:
        store = context.store()
        monitor = store.campaign(args.monitor)
        rows = store.runs(only=RunFilter(campaign=monitor.id, since=args.since))
        if not rows:
            since = "" if args.since is None else f" started since {args.since}"
            raise RtscopeError(f"monitor {monitor.name} has no window{since} stored")
        newest = store.get(rows[0].id).doc
        if "monitor" not in newest:
            raise RtscopeError(
                f"{monitor.name} is a campaign, not a monitor: rtscope report {CAMPAIGN_PREFIX}{monitor.name}"
            )
        made = pictures(store, [row.id for row in reversed(rows)])
        latest: dict[str, str] = {}  # board → its newest window's run id, over every metric
        started: dict[str, str] = {}
        for picture in made.values():
            for board in picture.boards:
                last = board.windows[-1]
                if last.started >= started.get(board.name, ""):
                    latest[board.name], started[board.name] = last.run_id, last.started
        if not latest:
            raise RtscopeError(f"monitor {monitor.name} has no window with a metric of samples")
        output.commit(
            report.render_monitor(
                monitor.name, monitor.id, made, {board: store.get(run_id).doc for board, run_id in latest.items()}
            )
        )
    boards = f"{len(latest)} board{'s' if len(latest) != 1 else ''}"
    context.print([f"wrote {args.output}: monitor {monitor.name}, {boards}, {len(rows)} windows"])
    return 0
