"""rtscope export: one run in a format other tools read — CSV, its JSON document, cyclictest's histogram,
LAVA result lines or JUnit XML (rtscope.exports renders them)."""

import argparse
from pathlib import Path

from rtscope import exporters, files
from rtscope.model import values
from rtscope.model import result
from rtscope.commands.show import add_raw_times_option
from rtscope.commands.context import Context
from rtscope.errors import RtscopeError

NAME = "export"
HELP = "write one run as CSV, JSON, a cyclictest histogram, LAVA result lines or JUnit XML"
FORMATS = ("csv", "json", "cyclictest", "lava", "junit")

# Options that only some formats take: (argument, option, the formats that take it).
_FORMAT_OPTIONS = (
    ("raw_times", "--raw-times", ("csv", "cyclictest", "lava", "junit")),
    ("metric", "--metric", ("csv", "cyclictest", "lava", "junit")),
    ("hist_us", "--hist-us", ("cyclictest",)),
    ("limit", "--limit", ("lava", "junit")),
    ("fail_on_threshold", "--fail-on-threshold", ("lava", "junit")),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """RUN, --format, -o, --raw-times, --metric, --hist-us, --limit, --fail-on-threshold."""
    parser.add_argument("run", metavar="RUN", help="a stored run's id or id prefix, 'last', or a result file")
    parser.add_argument("--format", required=True, choices=FORMATS,
                        help="csv: one row per metric, every statistic as a plain number (ns or count); "
                             "json: the result document exactly as stored; "
                             "cyclictest: the histogram cyclictest -h prints, one 1 µs row per line and one "
                             "column per metric, for the scripts that plot it; "
                             "lava: 'NAME pass|fail VALUE UNITS' lines (times in us) as lava-test-case records "
                             "them; junit: JUnit XML, a testcase per metric")
    parser.add_argument("-o", "--output", type=Path, metavar="FILE",
                        help="write to FILE, complete or not at all (default: standard output)")
    add_raw_times_option(parser)
    parser.add_argument("--metric", action="append", default=[], metavar="ID",
                        help="export this metric (repeatable; default: every metric). For cyclictest each "
                             "is a column; by default one per CPU of lat.wakeup (lat.wakeup.cpuN), else "
                             "lat.wakeup")
    parser.add_argument("--hist-us", type=_rows, metavar="N",
                        help=f"cyclictest: N rows of 1 µs, as cyclictest -h N (default: up to the largest "
                             f"maximum, at most {exporters.CYCLICTEST_MAX_ROWS}); later samples count as "
                             f"overflows. Rows from rtscope's log-linear histogram: "
                             f"{exporters.CYCLICTEST_REBINNING}")
    parser.add_argument("--limit", type=exporters.limit, action="append", default=[], metavar="METRIC:STAT=VALUE",
                        help="lava, junit: fail METRIC when STAT is worse than VALUE, e.g. lat.wakeup:max=100us "
                             "(times with ns, us, ms or s: a time may be at most VALUE; counts as plain "
                             "numbers: a count at least VALUE). Repeatable. A metric the run lacks fails")
    parser.add_argument("--fail-on-threshold", action="store_true",
                        help="lava, junit: fail a metric when any sample passed its bench's threshold "
                             "(lat.wakeup's threshold_us)")


def run(args: argparse.Namespace, context: Context) -> int:
    """Write RUN in the chosen format to standard output or, with -o, atomically to FILE.

    Exits 0 whether or not metrics fail in a LAVA or JUnit export: judging them is the reader's job
    (rtscope check gates on a baseline)."""
    for argument, option, formats in _FORMAT_OPTIONS:
        if getattr(args, argument) and args.format not in formats:
            raise RtscopeError(f"{option} does not apply to --format {args.format} (only to {', '.join(formats)})")
    if args.output is None:
        context.out.write(_render(args, context.load_run(args.run)))
        return 0
    # Created first, so that an unwritable FILE is reported before the run is read.
    with files.AtomicFile(args.output) as output:
        output.commit(_render(args, context.load_run(args.run)))
    return 0


def _render(args: argparse.Namespace, run_result: result.Result) -> str:
    doc, adjusted = run_result.doc, not args.raw_times
    if args.format == "json":
        return run_result.text
    if args.format == "csv":
        return exporters.csv_text(doc, exporters.chosen_metrics(doc, args.metric), adjusted=adjusted)
    if args.format == "cyclictest":
        return exporters.cyclictest_text(doc, exporters.cyclictest_metrics(doc, args.metric), adjusted=adjusted,
                                       rows=args.hist_us)
    judge = exporters.Judge(tuple(args.limit), args.fail_on_threshold, adjusted)
    metric_ids = judge.metric_ids(exporters.chosen_metrics(doc, args.metric))
    render = exporters.lava_text if args.format == "lava" else exporters.junit_text
    return render(doc, metric_ids, judge)


def _rows(text: str) -> int:
    """A number of cyclictest rows: 1 to cyclictest's own maximum."""
    rows = values.positive(text)
    if rows > exporters.CYCLICTEST_MAX_ROWS:
        raise argparse.ArgumentTypeError(f"must be at most {exporters.CYCLICTEST_MAX_ROWS}, as cyclictest's -h, "
                                         f"not {rows}")
    return rows
