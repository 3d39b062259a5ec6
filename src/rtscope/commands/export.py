"""rtscope export: one run in a format other tools read — CSV, its JSON document, cyclictest's histogram,
LAVA result lines, JUnit XML or KCIDB (rtscope.exporters writes them; rtscope.analysis.judge judges the
metrics for LAVA, JUnit and KCIDB) — or, in KCIDB, a monitor's windows with its boards' change points."""

import argparse

from rtscope import exporters
from rtscope.analysis import judge
from rtscope.commands.context import Context, add_output_option
from rtscope.commands.show import add_raw_times_option
from rtscope.commands.trend import since
from rtscope.errors import RtscopeError
from rtscope.execution import windows
from rtscope.exporters import cyclictest, kcidb
from rtscope.exporters.base import RunExport
from rtscope.model import values

# Options that only some formats take: (argument, option, the formats that take it).
_FORMAT_OPTIONS = (
    ("raw_times", "--raw-times", ("csv", "cyclictest", "lava", "junit", "kcidb")),
    ("metric", "--metric", ("csv", "cyclictest", "lava", "junit", "kcidb")),
    ("hist_us", "--hist-us", ("cyclictest",)),
    ("limit", "--limit", ("lava", "junit", "kcidb")),
    ("fail_on_threshold", "--fail-on-threshold", ("lava", "junit", "kcidb")),
    ("monitor", "--monitor", ("kcidb",)),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """RUN, --format, -o, --raw-times, --metric, --hist-us, --limit, --monitor, --board, --since,
    --fail-on-threshold."""
    # From the registry, so that a new exporter is named here without a word typed (issue 32).
    *others, last = exporters.RUN_EXPORTERS
    parser.description = (
        f"write one run in a format another tool reads: {', '.join(others)} or {last} (--format says what each is)"
    )
    parser.add_argument(
        "run", metavar="RUN", nargs="?", help="a stored run's id or id prefix, 'last', or a result file"
    )
    parser.add_argument(
        "--format",
        required=True,
        choices=exporters.RUN_EXPORTERS,
        help="; ".join(f"{e.name}: {e.description}" for e in exporters.RUN_EXPORTERS.values()),
    )
    add_output_option(parser)
    add_raw_times_option(parser)
    parser.add_argument(
        "--metric",
        action="append",
        default=[],
        metavar="ID",
        help="export this metric (repeatable; default: every metric). For cyclictest each "
        "is a column; by default one per CPU of lat.wakeup (lat.wakeup.cpuN), else "
        "lat.wakeup",
    )
    parser.add_argument(
        "--hist-us",
        type=_rows,
        metavar="N",
        help=f"cyclictest: N rows of 1 µs, as cyclictest -h N (default: up to the largest "
        f"maximum, at most {cyclictest.MAX_ROWS}); later samples count as "
        f"overflows. Rows from rtscope's log-linear histogram: {cyclictest.REBINNING}",
    )
    parser.add_argument(
        "--limit",
        type=judge.limit,
        action="append",
        default=[],
        metavar="METRIC:STAT=VALUE",
        help="lava, junit, kcidb: fail METRIC when STAT is worse than VALUE, e.g. lat.wakeup:max=100us "
        "(times with ns, us, ms or s; other figures as plain numbers in the metric's unit; "
        "a figure may be no worse than VALUE, as its unit has it: a time at most VALUE, "
        "a count at least VALUE). Repeatable. A metric the run lacks fails",
    )
    parser.add_argument(
        "--monitor",
        metavar="NAME|ID",
        help="kcidb, instead of RUN: every window of this monitor (rtscope monitor), a test per figure per window "
        "with the board as its environment, and each change point of a board's series as an issue on the build "
        "of its first window",
    )
    parser.add_argument("--board", metavar="NAME", help="with --monitor: only this board's windows")
    parser.add_argument("--since", type=since, metavar="DATE", help="with --monitor: only windows started since DATE")
    parser.add_argument(
        "--fail-on-threshold",
        action="store_true",
        help="lava, junit, kcidb: fail a metric when any sample passed its bench's threshold (lat.wakeup's threshold_us)",
    )


def run(args: argparse.Namespace, context: Context) -> int:
    """Write RUN in the chosen format to standard output or, with -o, atomically to FILE.

    Exits 0 whether or not metrics fail in a LAVA, JUnit or KCIDB export: judging them is the reader's job
    (rtscope check gates on a baseline)."""
    for argument, option, formats in _FORMAT_OPTIONS:
        if getattr(args, argument) and args.format not in formats:
            raise RtscopeError(f"{option} does not apply to --format {args.format} (only to {', '.join(formats)})")
    if (args.run is None) == (args.monitor is None):
        raise RtscopeError("name a RUN or, for --format kcidb, a --monitor (one of them)")
    for argument, option in (("board", "--board"), ("since", "--since")):
        if getattr(args, argument) is not None and args.monitor is None:
            raise RtscopeError(f"{option} applies to a --monitor's windows only")
    context.write_output(args.output, lambda: _render(args, context))
    return 0


def _render(args: argparse.Namespace, context: Context) -> str:
    asked = judge.Judge(tuple(args.limit), args.fail_on_threshold, adjusted=not args.raw_times)
    if args.monitor is not None:
        found, marked = windows.monitor_windows(
            context.store(), args.monitor, tuple(args.metric), board=args.board, since=args.since
        )
        made = tuple(RunExport(window, tuple(args.metric), not args.raw_times, None, asked) for window in found)
        return kcidb.write_windows(kcidb.WindowsExport(made, tuple(marked)))
    export = RunExport(context.load_run(args.run), tuple(args.metric), not args.raw_times, args.hist_us, asked)
    return exporters.RUN_EXPORTERS[args.format].write(export)


def _rows(text: str) -> int:
    """A number of cyclictest rows: 1 to cyclictest's own maximum."""
    rows = values.positive(text)
    if rows > cyclictest.MAX_ROWS:
        raise argparse.ArgumentTypeError(f"must be at most {cyclictest.MAX_ROWS}, as cyclictest's -h, not {rows}")
    return rows
