"""rtscope score: the Metrics Number of runs under a weight profile, with its breakdown and a ranking."""

import argparse
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rtscope.analysis import score
from rtscope.analysis.grouping import LETTERS, SHORT_ID
from rtscope.commands.context import Context
from rtscope.commands.show import add_raw_times_option
from rtscope.errors import RtscopeError
from rtscope.model import result, values
from rtscope.render import fmt
from rtscope.render.fmt import MISSING

INVALID_MARK = " *"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """RUN…, --profile, --stat, --raw-times."""
    parser.add_argument("runs", nargs="+", metavar="RUN", help="stored ids or id prefixes, 'last', or result files")
    parser.add_argument(
        "--profile",
        type=Path,
        default=score.DEFAULT_PROFILE,
        metavar="FILE",
        help="weights per metric, TOML (default: the published example, "
        "profiles/published.toml; rtscope profile derives one from a program)",
    )
    parser.add_argument(
        "--stat",
        type=values.statistic,
        metavar="STAT",
        help="the statistic that stands for each time: mean (as published; default unless the "
        "profile says), or p99, max … for worst-case scoring",
    )
    add_raw_times_option(parser)


def run(args: argparse.Namespace, context: Context) -> int:
    """Print the profile, each run's T × W breakdown and score, then the runs ranked by score."""
    if len(args.runs) > len(LETTERS):
        raise RtscopeError(f"score takes at most {len(LETTERS)} runs, not {len(args.runs)}")
    profile = score.load_profile(args.profile, args.stat)
    docs = [context.load_run(ref).doc for ref in args.runs]
    scores = [score.score_run(doc, profile, adjusted=not args.raw_times) for doc in docs]
    style = context.style
    lines = [
        f"{style.heading('Profile')} {profile.name} ({profile.source}): T is each metric's {profile.statistic}, in µs"
    ]
    for letter, doc, result_score in zip(LETTERS, docs, scores, strict=False):
        lines += ["", _run_title(letter, doc, style), *_breakdown(result_score, style)]
    if any(not term.valid for s in scores for term in s.terms):
        lines += [
            "",
            style.bad(
                f"{INVALID_MARK.strip()} an invalid metric: the score stands on a figure its bench did not vouch for"
            ),
        ]
    if len(docs) > 1:
        lines += _rankings(docs, scores, style)
    context.print(lines)
    return 0


def _run_title(letter: str, doc: dict[str, Any], style: fmt.Style) -> str:
    run = doc["run"]
    label = f' "{run["label"]}"' if run["label"] else ""
    return style.heading(f"{letter} {run['id'][:SHORT_ID]}{label}") + f" {doc['system']['hostname']}"


def _breakdown(result_score: score.Score, style: fmt.Style) -> list[str]:
    rows = [["metric", "T (µs)", "W", "T × W"]]
    for term in result_score.terms:
        mark = style.bad(INVALID_MARK) if not term.valid else ""
        rows.append([term.metric + mark, _number(term.time_us), _number(term.weight), _number(term.product)])
    rows.append(["Σ", "", "", _number(result_score.total_us)])
    rows.append(["score", "", "", f"{result_score.value:.2f}"])
    return ["  " + line for line in fmt.columns(rows, "lrrr")]


def _rankings(docs: list[dict[str, Any]], scores: list[score.Score], style: fmt.Style) -> list[str]:
    """The runs ranked by score; runs of several time bases in a ranking per time base, said in one line
    (an emulator's instruction time beside hardware time is no race)."""
    bases: dict[str, list[int]] = {}
    for index, doc in enumerate(docs):
        bases.setdefault(result.time_base_text(doc), []).append(index)
    if len(bases) == 1:
        return ["", style.heading("Ranking") + " (higher is better)", *_ranking(docs, scores, range(len(docs)))]
    lines = [
        "",
        style.warn(f"! the runs are on {len(bases)} time bases ({', '.join(bases)}): ranked within each, never across"),
    ]
    for base, members in bases.items():
        if len(members) > 1:
            lines += ["", style.heading("Ranking") + f" on {base} time (higher is better)"]
            lines += _ranking(docs, scores, members)
    return lines


def _ranking(docs: list[dict[str, Any]], scores: list[score.Score], members: Iterable[int]) -> list[str]:
    order = sorted(members, key=lambda i: scores[i].value, reverse=True)
    best = scores[order[0]].value
    rows = [
        [
            f"{rank}.",
            LETTERS[i],
            docs[i]["run"]["id"][:SHORT_ID],
            docs[i]["run"]["label"] or MISSING,
            f"{scores[i].value:.2f}",
            fmt.ratio(scores[i].value / best),
        ]
        for rank, i in enumerate(order, start=1)
    ]
    return ["  " + line for line in fmt.columns(rows, "llllrr")]


def _number(value: float) -> str:
    """A figure of the breakdown: up to 4 decimals, trailing zeros dropped ("3.5", "55", "4149")."""
    return f"{value:,.4f}".rstrip("0").rstrip(".")
