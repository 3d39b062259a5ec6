"""rtscope campaign: run every cell of a campaign spec, store each run tagged with its cell, resume.

Repetitions are interleaved (every cell once, then every cell again …) so that a slow drift of the
machine spreads over all cells instead of biasing the last ones. Each run is stored in one transaction
the moment it ends: a campaign killed at any point (kill -9 included) has lost at most the run in
progress, and ``--resume`` measures exactly the (cell, repetition) pairs that have no run that counts.
"""

import argparse
import secrets
import sys
import time
from pathlib import Path

from rtscope import campaign, fmt, loads, result
from rtscope.benches import expand_suites
from rtscope.commands import compare
from rtscope.commands.run import (FAILED, INTERRUPTED, check_against_catalogue, exit_status, measure,
                                  priority_for)
from rtscope.context import Context
from rtscope.errors import RtscopeError
from rtscope.request import RunRequest
from rtscope.store import Campaign, Store, utc_now
from rtscope.targets import Target

NAME = "campaign"
HELP = "run a campaign spec (benches × params × loads × configs × repetitions), storing every cell"
BAR_WIDTH = 20
# Starting the probe and stopping loads, beyond the measuring and settle times: for the first estimate.
_OVERHEAD_PER_RUN_S = 1.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """SPEC, --resume, --dry-run."""
    parser.add_argument("spec", type=Path, metavar="SPEC.toml",
                        help="the campaign spec (examples/campaigns/ has examples)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the newest campaign of this spec's name: measure only the cells and "
                             "repetitions it has no run for")
    parser.add_argument("--dry-run", action="store_true", help="list the cells and the time it would take; "
                                                               "measure nothing")


def run(args: argparse.Namespace, context: Context) -> int:
    """Check the whole spec against the target, then measure every cell not yet measured, storing each
    run as it ends; at the end, compare the cells. Exits 0 when every run completed, 1 when a bench
    failed somewhere (the other cells are measured all the same), 130 when interrupted."""
    spec = campaign.load(args.spec)
    target = context.target()
    requests = _requests(spec, target)
    for cell in spec.cells:
        loads.check_tools(cell.loads)
    total = len(spec.cells) * spec.repetitions
    if args.dry_run:
        context.print(_dry_run(spec, total, _planned_s(spec, requests)))
        return 0
    store = context.store(create=True)
    this, done = _campaign(store, spec, resume=args.resume)
    todo = [(repetition, cell) for repetition in range(1, spec.repetitions + 1) for cell in spec.cells
            if (cell.text, repetition) not in done]
    progress = _Progress(total, len(done), _planned_s(spec, requests))
    resume_hint = f"rtscope campaign {args.spec} --resume measures the runs left"
    failed = 0
    try:
        for repetition, cell in todo:
            progress.starting(repetition, cell)
            run_result = _tagged(measure(target, requests[cell.text](repetition), cell.loads, spec.settle_s,
                                         progress=progress.note), this, cell, repetition, spec.repetitions)
            store.add(run_result)
            if run_result.doc["run"]["status"] == "interrupted":
                progress.note(f"interrupted: the run of {cell.text} #{repetition} is stored "
                              f"({run_result.run_id[:8]}) but does not count; {resume_hint}")
                return INTERRUPTED
            failed += exit_status(run_result.doc) == FAILED
            progress.finished(run_result)
    except KeyboardInterrupt:
        progress.note(f"interrupted before measuring; {resume_hint}")
        raise
    progress.close()
    if todo:
        context.print(_summary(context, this))
    else:
        context.print([f"campaign {this.name} ({this.id}) is complete: nothing left to measure"])
    if failed:
        print(f"rtscope: a bench failed in {failed} of the runs (rtscope show RUN says why)", file=sys.stderr)
        return FAILED
    return 0


def _requests(spec: campaign.Spec, target: Target) -> dict[str, "_RequestFor"]:
    """For each cell, how to make its request for a repetition; each is checked against the target's
    benches before anything runs, so that a typing mistake in the last cell does not end a long campaign."""
    benches = expand_suites(spec.benches, target.list_suites())
    catalogue = target.list_benches()
    made = {}
    for cell in spec.cells:
        make = _RequestFor(spec, cell, benches)
        try:
            check_against_catalogue(make(1), catalogue)
        except RtscopeError as error:
            raise RtscopeError(f"{spec.name}, cell {cell.text!r}: {error}") from None
        made[cell.text] = make
    return made


class _RequestFor:
    """The probe request of one cell and repetition."""

    def __init__(self, spec: campaign.Spec, cell: campaign.Cell, benches: tuple[str, ...]):
        self.spec, self.cell, self.benches = spec, cell, benches
        self.priority = priority_for(cell.config.policy, cell.config.priority)

    def __call__(self, repetition: int) -> RunRequest:
        config = self.cell.config
        # The label says where the run belongs wherever it is shown; it also keeps repeated requests apart.
        label = f"{self.spec.label or self.spec.name}: {self.cell.text} #{repetition}"
        return RunRequest(benches=self.benches, duration_s=self.spec.duration_s, policy=config.policy,
                          priority=self.priority, cpus=config.cpus, params=self.cell.params, label=label,
                          raw=self.spec.raw, mlock=config.mlock, cpu_latency=config.cpu_latency)


def _campaign(store: Store, spec: campaign.Spec, *, resume: bool) -> tuple[Campaign, set[tuple[str, int]]]:
    """The campaign to measure into and the (cell, repetition) pairs it already has: with ``resume``
    the newest of this name (refused when its plan differs from the spec's), else a new one."""
    if resume:
        try:
            previous = store.campaign(spec.name)
        except RtscopeError:
            raise RtscopeError(f"no campaign named {spec.name!r} to resume in {store.path}") from None
        if previous.plan != spec.plan():
            raise RtscopeError(f"the spec of campaign {spec.name} changed since {previous.id} started "
                               f"({_plan_change(previous.plan, spec.plan())}): run it without --resume "
                               "to start a new campaign")
        return previous, store.campaign_cells(previous.id)
    new = Campaign(secrets.token_hex(8), spec.name, utc_now(), spec.plan())
    store.add_campaign(new)
    return new, set()


def _plan_change(old: dict | None, new: dict) -> str:
    if old is None:
        return "its plan was not stored"
    return ", ".join(f"{key} was {old.get(key)!r}" for key in new if old.get(key) != new[key])


def _tagged(run_result: result.Result, this: Campaign, cell: campaign.Cell, repetition: int,
            repetitions: int) -> result.Result:
    doc = dict(run_result.doc, campaign={"name": this.name, "id": this.id, "cell": cell.text,
                                         "axes": dict(cell.axes), "repetition": repetition,
                                         "repetitions": repetitions})
    return result.from_doc(doc, "the run's result")


def _planned_s(spec: campaign.Spec, requests: dict[str, _RequestFor]) -> float:
    """The planned time of one run: every bench's measuring time, the loads' settle time, the overhead."""
    benches = len(next(iter(requests.values())).benches)
    return benches * spec.duration_s + spec.settle_s + _OVERHEAD_PER_RUN_S


class _Progress:
    """One line per run on stderr: a bar, how many runs are done, the time left and what runs now.

    The time left is, until a run has been timed, the planned time per run; then the mean of the runs
    this invocation measured."""

    def __init__(self, total: int, already: int, planned_s: float):
        self.total, self.already, self.measured, self.planned_s = total, already, 0, planned_s
        self.started = time.monotonic()
        self.run_started = self.started
        if already:
            self.note(f"resuming: {already} of {total} runs already measured")

    def starting(self, repetition: int, cell: campaign.Cell) -> None:
        done = self.already + self.measured
        per_run = (time.monotonic() - self.started) / self.measured if self.measured else self.planned_s
        filled = round(BAR_WIDTH * done / self.total)
        self.note(f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{self.total} "
                  f"· {fmt.clock_time(per_run * (self.total - done))} left · {cell.text} #{repetition}")
        self.run_started = time.monotonic()

    def finished(self, run_result: result.Result) -> None:
        self.measured += 1
        self.note(f"stored run {run_result.run_id[:8]} after {fmt.clock_time(time.monotonic() - self.run_started)}")

    def close(self) -> None:
        if self.measured:
            self.note(f"[{'#' * BAR_WIDTH}] {self.total}/{self.total} · measured {self.measured} runs in "
                      f"{fmt.clock_time(time.monotonic() - self.started)}")

    @staticmethod
    def note(line: str) -> None:
        print(f"rtscope: {line}", file=sys.stderr, flush=True)


def _dry_run(spec: campaign.Spec, total: int, planned_s: float) -> list[str]:
    rows = [[cell.text, cell.config.name, " ".join(map(str, cell.params)) or fmt.MISSING] for cell in spec.cells]
    return [f"campaign {spec.name}: {len(spec.cells)} cells × {spec.repetitions} repetitions = {total} runs "
            f"of {', '.join(spec.benches)}, about {fmt.clock_time(total * planned_s)}",
            *fmt.table(["cell", "config", "params"], rows, "lll")]


def _summary(context: Context, this: Campaign) -> list[str]:
    """The comparison of the campaign's cells, each a group of its repetitions (when there are cells
    to compare)."""
    docs = [run_result.doc for run_result in context.store().campaign_runs(this.id)]
    lines = [f"campaign {this.name} ({this.id}): {len(docs)} runs stored; "
             f"rtscope compare campaign:{this.id} compares them, rtscope report campaign:{this.id} draws them"]
    if len({doc["campaign"]["cell"] for doc in docs}) > 1:
        comparison = compare.build(compare.group(docs, "cell"), compare.DEFAULT_STATISTICS)
        lines += ["", *compare.render_text(comparison, context.style)]
    return lines
