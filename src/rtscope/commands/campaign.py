"""rtscope campaign: run every cell of a campaign spec, store each run tagged with its cell, resume.

Repetitions are interleaved (every cell once, then every cell again …) so that a slow drift of the
machine spreads over all cells instead of biasing the last ones. Each run is stored in one transaction
the moment it ends: a campaign killed at any point (kill -9 included) has lost at most the run in
progress, and ``--resume`` measures exactly the (cell, repetition) pairs that have no run that counts.
"""

import argparse
import shlex
import sys
from pathlib import Path
from urllib.parse import urlsplit

from rtscope.analysis.compare import DEFAULT_STATISTICS, build
from rtscope.analysis.grouping import Group, NoComparison, group
from rtscope.commands.context import Context
from rtscope.execution import campaign_spec
from rtscope.execution.campaign import Progress, measure_all, open_campaign, planned_s, requests_for
from rtscope.execution.measure import FAILED, INTERRUPTED, check_loads
from rtscope.execution.parallel import Slot, measure_slots
from rtscope.render import comparison as comparison_text
from rtscope.render import fmt, text
from rtscope.render.sections import skipped
from rtscope.store.database import Campaign
from rtscope.targets import boards


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """SPEC, --resume, --dry-run."""
    parser.add_argument(
        "spec", type=Path, metavar="SPEC.toml", help="the campaign spec (examples/campaigns/ has examples)"
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the newest campaign of this spec's name: measure only the cells and "
        "repetitions it has no run for",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="list the cells and the time it would take; measure nothing"
    )
    # One target's share of a campaign with several (rtscope.execution.parallel starts these); --slot K/N:
    # the K-th of a target's N boards (labgrid-tag:…:count=N), which takes every N-th of its runs (Slot).
    parser.add_argument("--worker", metavar="CAMPAIGN_ID", help=argparse.SUPPRESS)
    parser.add_argument("--slot", type=_slot, default=(0, 1), metavar="K/N", help=argparse.SUPPRESS)


def run(args: argparse.Namespace, context: Context) -> int:
    """Check the whole spec against the target, then measure every cell not yet measured, storing each
    run as it ends; at the end, compare the cells. Exits 0 when every run completed, 1 when a bench
    failed somewhere (the other cells are measured all the same), 130 when interrupted. A spec with
    several targets measures them in parallel, one worker process each."""
    spec = campaign_spec.load(args.spec)
    if args.worker:
        return _measure_share(args, context, spec)
    if sum(map(boards, spec.targets)) > 1:
        return _measure_targets(args, context, spec)
    target = context.target(spec.targets[0] if spec.targets else None)
    requests = requests_for(spec, target)
    for cell in spec.cells:
        check_loads(target, cell.loads)
    total = len(spec.cells) * spec.repetitions
    if args.dry_run:
        context.print(_dry_run(spec, total, planned_s(spec, requests)))
        return 0
    store = context.store(create=True)
    this, done = open_campaign(store, spec, target.name, resume=args.resume)
    progress = Progress(total, len(done), planned_s(spec, requests))
    try:
        failed = measure_all(spec, target, store, this, done, requests, progress)
    except KeyboardInterrupt:
        progress.note(f"interrupted; {_resume_command(args, context)} measures the runs left")
        return INTERRUPTED
    return _closing(context, this, total, len(done), f"a bench failed in {failed} of the runs" if failed else None)


def _measure_targets(args: argparse.Namespace, context: Context, spec: campaign_spec.CampaignSpec) -> int:
    """Every target's share at once, each by its own worker, into one campaign."""
    for target in spec.targets:
        context.target(target)  # a target that is not one is refused here, before any worker starts
    shares = {target: spec.on(target) for target in spec.targets}
    if args.dry_run:
        for target, share in shares.items():
            made = context.target(target)
            share_s = planned_s(share, requests_for(share, made)) * len(share.cells) * spec.repetitions
            context.print(
                [
                    (
                        f"{target}: {len(share.cells)} cells × {spec.repetitions} repetitions, about "
                        f"{fmt.clock_time(share_s)}"
                    )
                ]
            )
        total = len(spec.cells) * spec.repetitions
        context.print([f"campaign {spec.name}: {total} runs on {len(shares)} targets in parallel"])
        return 0
    store = context.store(create=True)
    this, done = open_campaign(store, spec, context.target_spec, resume=args.resume)
    statuses = measure_slots(
        args.spec, this.id, spec.targets, context.probe, context.store_location, context.target_options
    )
    unfinished = {target: status for target, status in statuses.items() if status not in (0, FAILED)}
    if unfinished:
        Progress.note(
            f"{', '.join(unfinished)} did not finish its share (the line above each says why); "
            f"{_resume_command(args, context)} measures the runs left"
        )
        return INTERRUPTED if INTERRUPTED in unfinished.values() else FAILED
    failed = [target for target, status in statuses.items() if status == FAILED]
    return _closing(
        context,
        this,
        len(spec.cells) * spec.repetitions,
        len(done),
        f"a bench failed on {', '.join(failed)}" if failed else None,
    )


def _measure_share(args: argparse.Namespace, context: Context, spec: campaign_spec.CampaignSpec) -> int:
    """One target's share of campaign ``--worker``: its cells not yet measured (a worker process)."""
    target = context.target()
    share = spec.on(context.target_spec)
    requests = requests_for(share, target)
    for cell in share.cells:
        check_loads(target, cell.loads)
    store = context.store()
    this = store.campaign(args.worker)
    runs = [(cell.text, repetition) for repetition in range(1, spec.repetitions + 1) for cell in share.cells]
    mine = Slot(context.target_spec, *args.slot).take(runs)
    measured = store.campaign_cells(this.id) & mine
    progress = Progress(len(mine), len(measured), planned_s(share, requests))
    try:
        # Another board's runs count as done here: measure_all skips them.
        failed = measure_all(share, target, store, this, measured | (set(runs) - mine), requests, progress)
    except KeyboardInterrupt:
        progress.note("interrupted")
        return INTERRUPTED
    return FAILED if failed else 0


def _resume_command(args: argparse.Namespace, context: Context) -> str:
    """The command that goes on with this campaign, with the store and target it was run against (a store
    URL that holds a password is named, not echoed)."""
    words = ["rtscope"]
    if args.db:
        words += ["--db", "URL" if urlsplit(str(args.db)).password else str(args.db)]
    if context.target_spec != "local":
        words += ["--target", context.target_spec]
    return shlex.join([*words, "campaign", str(args.spec), "--resume"])


def _slot(text: str) -> tuple[int, int]:
    slot, _, slots = text.partition("/")
    return int(slot), int(slots)


def _closing(context: Context, this: Campaign, total: int, already: int, failed: str | None) -> int:
    """The comparison at the end (or that there was nothing left), and the exit status: 1 when a bench
    failed (``failed`` says where)."""
    if already < total:
        context.print(_summary(context, this))
    else:
        context.print([f"campaign {this.name} ({this.id}) is complete: nothing left to measure"])
    if failed:
        print(f"rtscope: {failed} (rtscope show RUN says why)", file=sys.stderr)
        return FAILED
    return 0


def _dry_run(spec: campaign_spec.CampaignSpec, total: int, planned_s: float) -> list[str]:
    rows = [[cell.text, cell.config.name, " ".join(map(str, cell.params)) or fmt.MISSING] for cell in spec.cells]
    return [
        (
            f"campaign {spec.name}: {len(spec.cells)} cells × {spec.repetitions} repetitions = {total} runs "
            f"of {', '.join(spec.benches)}, about {fmt.clock_time(total * planned_s)}"
        ),
        *fmt.table(["cell", "config", "params"], rows, "lll"),
    ]


def _summary(context: Context, this: Campaign) -> list[str]:
    """The comparison of the campaign's cells, each a group of its repetitions (when there are cells
    to compare)."""
    docs = [run_result.doc for run_result in context.store().campaign_runs(this.id)]
    lines = [
        (
            f"campaign {this.name} ({this.id}): {len(docs)} runs stored; "
            f"rtscope compare campaign:{this.id} compares them, rtscope report campaign:{this.id} draws them"
        )
    ]
    try:
        comparison = build(group(docs, "cell"), DEFAULT_STATISTICS)
    except NoComparison:
        # One cell, or more cells than a table has columns: a study of square waves or thread counts still
        # has its own tables, and what the runs skipped is still said.
        found = text.render(
            [*comparison_text.studies(docs, by="cell"), skipped.section([Group("A", this.name, tuple(docs))])],
            context.style,
        )
        return [*lines, *(["", *found] if found else [])]
    return [*lines, "", *comparison_text.render_text(comparison, context.style, by="cell")]
