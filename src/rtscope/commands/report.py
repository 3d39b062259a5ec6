"""rtscope report: runs as one self-contained HTML page of tables and plots (rtscope.render.report)."""

import argparse
from pathlib import Path

from rtscope import files
from rtscope.analysis import published
from rtscope.commands.compare import add_min_effect_option, add_published_option
from rtscope.commands.context import CAMPAIGN_PREFIX, Context
from rtscope.commands.show import add_raw_times_option, add_worst_case_option
from rtscope.errors import RtscopeError
from rtscope.render import report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """RUN|CAMPAIGN…, -o FILE, --published, --raw-times, --worst-case."""
    parser.add_argument(
        "runs",
        nargs="+",
        metavar="RUN|CAMPAIGN",
        help="runs, in the order to show them: stored ids or id prefixes, 'last', result files, "
        f"or {CAMPAIGN_PREFIX}NAME or {CAMPAIGN_PREFIX}ID for every run of a campaign",
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
