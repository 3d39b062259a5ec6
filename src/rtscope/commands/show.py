"""rtscope show: one run in full, or its result document exactly as stored."""

import argparse

from rtscope.commands.context import Context
from rtscope.render import summary


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """RUN, --json, --raw-times."""
    parser.add_argument("run", metavar="RUN", help="a stored run's id or id prefix, 'last', or a result file")
    add_raw_times_option(parser)
    parser.add_argument(
        "--json", action="store_true", help="print the result document exactly as stored, instead of the summary"
    )


def add_raw_times_option(parser: argparse.ArgumentParser) -> None:
    """The --raw-times option of the commands that show metric figures."""
    parser.add_argument(
        "--raw-times", action="store_true", help="show times as measured, without subtracting the timestamp overhead"
    )


def run(args: argparse.Namespace, context: Context) -> int:
    """Print the summary of RUN, or with --json its document text unchanged."""
    run_result = context.load_run(args.run)
    if args.json:
        context.out.write(run_result.text)
    else:
        context.print(summary.render(run_result.doc, context.style, adjusted=not args.raw_times))
    return 0
