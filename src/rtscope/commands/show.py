"""rtscope show: one run in full, or its result document exactly as stored."""

import argparse

from rtscope.analysis.worst_case import DEFAULT_PROBABILITY
from rtscope.commands.context import Context
from rtscope.model import values
from rtscope.render import summary


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """RUN, --json, --raw-times, --worst-case."""
    parser.add_argument("run", metavar="RUN", help="a stored run's id or id prefix, 'last', or a result file")
    add_raw_times_option(parser)
    add_worst_case_option(parser)
    parser.add_argument(
        "--json", action="store_true", help="print the result document exactly as stored, instead of the summary"
    )


def add_raw_times_option(parser: argparse.ArgumentParser) -> None:
    """The --raw-times option of the commands that show metric figures."""
    parser.add_argument(
        "--raw-times", action="store_true", help="show times as measured, without subtracting the timestamp overhead"
    )


def add_worst_case_option(parser: argparse.ArgumentParser) -> None:
    """The --worst-case option of the commands that show the latency metrics' probabilistic worst case."""
    parser.add_argument(
        "--worst-case",
        type=values.probability,
        default=DEFAULT_PROBABILITY,
        metavar="P",
        help="the latency metrics' worst case is the value one activation exceeds with probability P "
        "(default 1e-9; an extreme-value fit, see docs/worst-case.md)",
    )


def run(args: argparse.Namespace, context: Context) -> int:
    """Print the summary of RUN, or with --json its document text unchanged."""
    run_result = context.load_run(args.run)
    if args.json:
        context.out.write(run_result.text)
    else:
        context.print(
            summary.render(run_result.doc, context.style, adjusted=not args.raw_times, probability=args.worst_case)
        )
    return 0
