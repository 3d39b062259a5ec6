"""rtscope compare: metrics of several runs or groups of runs side by side, with ratios to the first.

A group is one run, or the repetitions of one campaign cell, label or load: its figure for a statistic
is the median over its runs, shown with the run-to-run spread (± half the range, relative). Whether a
group really differs from the first is told per metric (see stats.compare_groups). The comparison is
built once (Comparison) and written as a text table, markdown, CSV or JSON. Text and markdown open
with the verdict per factor (render.sections.verdict), which has no limit on groups: runs too many for
the table (more groups than its letters) still get it. Then the studies' own tables when the runs hold
them (square waves' envelopes, the application workload's), with --published a study's published
figures beside them.
"""

import argparse
from typing import Any

from rtscope.analysis import evidence, factors, published
from rtscope.analysis.compare import DEFAULT_STATISTICS, OPS_STATISTICS, build
from rtscope.analysis.grouping import GROUPINGS, NoComparison, default_grouping, group
from rtscope.commands.context import Context
from rtscope.commands.show import add_raw_times_option, add_worst_case_option
from rtscope.errors import RtscopeError
from rtscope.exporters import comparison as comparison_formats
from rtscope.model import result, values
from rtscope.render import comparison as comparison_text
from rtscope.render import markdown, text
from rtscope.render.document import Paragraph, Section
from rtscope.render.sections import verdict as verdict_section

FORMATS = ("text", "markdown", "csv", "json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """RUN|campaign:NAME…, --by, --stat, --ops, --format, --raw-times, --worst-case."""
    parser.add_argument(
        "runs",
        nargs="+",
        metavar="RUN|campaign:NAME",
        help="runs (stored ids or id prefixes, 'last', result files) or campaign:NAME|ID for every run of a campaign",
    )
    parser.add_argument(
        "--by",
        choices=GROUPINGS,
        help="how runs form groups: each run alone, or the repetitions of a campaign cell, a "
        "label, a set of loads, a target (default: cell when every run is a campaign's, else run)",
    )
    parser.add_argument(
        "--stat",
        type=values.statistics,
        metavar="LIST",
        help="statistics to compare, e.g. p50,p99.9,max (default "
        f"{','.join(DEFAULT_STATISTICS)}; {','.join(OPS_STATISTICS)} in the operation table)",
    )
    parser.add_argument(
        "--ops",
        action="store_true",
        help="the operation table, as vendors publish it: one row per operation, its cost in "
        "cycles where every run has them (else time), and how many times each group "
        "differs from the first. Chosen by itself when the cycle counter timed every metric",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="text (default), markdown, csv (one line per metric, statistic and group; times in ns) or json",
    )
    add_published_option(parser)
    add_min_effect_option(parser)
    add_raw_times_option(parser)
    add_worst_case_option(parser)


def add_min_effect_option(parser: argparse.ArgumentParser) -> None:
    """The --min-effect option of compare and report."""
    parser.add_argument(
        "--min-effect",
        type=values.percentage,
        default=evidence.DEFAULT_MIN_EFFECT,
        metavar="PERCENT",
        help="the smallest difference worth calling a win, e.g. 2%% (default "
        f"{100 * evidence.DEFAULT_MIN_EFFECT:g}%%); a real difference smaller than this or than one clock "
        "step is negligible",
    )


def add_published_option(parser: argparse.ArgumentParser) -> None:
    """The --published option of compare and report."""
    parser.add_argument(
        "--published",
        choices=published.names(),
        metavar="STUDY",
        help="show a study's published figures beside the runs, marked published (other hardware, "
        "another time base; context, never in a ratio with the runs): "
        + "; ".join(f"{name}: {published.load(name).what}" for name in published.names()),
    )


def run(args: argparse.Namespace, context: Context) -> int:
    """Print which group is which, warnings about settings that differ, and the comparison."""
    docs = [run_result.doc for run_result in context.load_runs(args.runs)]
    by = args.by or default_grouping(docs)
    # The operation table by itself only where every cost is a real CPU's cycles.
    ops = args.ops or all(
        result.counts_cpu_cycles(doc) and all(m["cycles"] is not None for m in doc["metrics"]) for doc in docs
    )
    study = published.load(args.published) if args.published else None
    if study is not None and (refused := published.refusal(study, docs, ops=ops)):
        raise RtscopeError(refused)
    statistics = args.stat or (OPS_STATISTICS if ops else DEFAULT_STATISTICS)
    try:
        groups = group(docs, by)
    except NoComparison as refusal:
        return _without_table(args, context, docs, by, statistics, study, refusal)
    comparison = build(groups, statistics, ops=ops, adjusted=not args.raw_times, min_effect=args.min_effect)
    if args.format == "text":
        context.print(
            comparison_text.render_text(comparison, context.style, by=by, published=study, probability=args.worst_case)
        )
    elif args.format == "markdown":
        context.out.write(comparison_text.markdown(comparison, by=by, published=study, probability=args.worst_case))
    else:
        context.out.write(comparison_formats.WRITERS[args.format](comparison))
    return 0


def _without_table(
    args: argparse.Namespace,
    context: Context,
    docs: list[dict[str, Any]],
    by: str,
    statistics: tuple[str, ...],
    study: published.Study | None,
    refusal: NoComparison,
) -> int:
    """Runs that make more groups than the table has columns (a study of 192 cells), or fewer than two: the
    verdict per factor, which has no such limit, and the studies' own tables, in text or markdown; the
    refusal as the error when there is neither."""
    if args.format not in ("text", "markdown"):
        raise refusal
    adjusted = not args.raw_times
    verdict = (
        [verdict_section.section(docs, statistics, adjusted=adjusted, prefer=by, min_effect=args.min_effect)]
        if factors.design(docs, prefer=by).factors
        else []
    )
    tables = comparison_text.studies(docs, by=by, adjusted=adjusted, published=study)
    if not verdict and not tables:
        raise refusal
    note = Section(parts=(Paragraph((f"No comparison table: {refusal}; --by load, or fewer runs, gives one.",)),))
    if args.format == "markdown":
        context.out.write(markdown.render([*verdict, *tables, note]))
    else:
        context.print(text.render([*verdict, *tables, note], context.style))
    return 0
