"""Running a campaign: its cells' requests checked against the target before anything runs, the
campaign to measure into (new, resumed, or extended to more repetitions), the loop that measures what
is missing — repetitions interleaved, a load kept running across the consecutive cells that share it,
each run stored tagged with its cell as it ends — and the progress line."""

import dataclasses
import hashlib
import secrets
import sys
import time
from typing import Any

from rtscope.errors import RtscopeError
from rtscope.execution import campaign_spec
from rtscope.execution.measure import (
    FAILED,
    check_against_catalogue,
    deterministic,
    exit_status,
    measure,
    priority_for,
)
from rtscope.loads.session import Session
from rtscope.model import result
from rtscope.model.catalogue import expand_suites
from rtscope.model.request import RunRequest
from rtscope.model.values import SEED_MAX
from rtscope.render import fmt
from rtscope.store.database import Campaign, Store, utc_now
from rtscope.targets import Target

BAR_WIDTH = 20
# Starting the probe and stopping loads, beyond the measuring and settle times: for the first estimate.
_OVERHEAD_PER_RUN_S = 1.0


def requests_for(spec: campaign_spec.CampaignSpec, target: Target) -> dict[str, "RequestFor"]:
    """For each cell, how to make its request for a repetition; each is checked against the target's
    benches before anything runs, so that a typing mistake in the last cell does not end a long campaign."""
    benches = expand_suites(spec.benches, target.catalogue.suites)
    catalogue = target.catalogue
    made = {}
    for cell in spec.cells:
        make = RequestFor(spec, cell, benches)
        try:
            check_against_catalogue(make(1), catalogue)
        except RtscopeError as error:
            raise RtscopeError(f"{spec.name}, cell {cell.text!r}: {error}") from None
        made[cell.text] = make
    return made


class RequestFor:
    """The probe request of one cell and repetition."""

    def __init__(self, spec: campaign_spec.CampaignSpec, cell: campaign_spec.CampaignCell, benches: tuple[str, ...]):
        self.spec, self.cell, self.benches = spec, cell, benches
        self.priority = priority_for(cell.config.policy, cell.config.priority)

    def __call__(self, repetition: int) -> RunRequest:
        config = self.cell.config
        # The label says where the run belongs wherever it is shown; it also keeps repeated requests apart.
        label = f"{self.spec.label or self.spec.name}: {self.cell.text} #{repetition}"
        return RunRequest(
            benches=self.benches,
            duration_s=self.spec.duration_s,
            policy=config.policy,
            priority=self.priority,
            cpus=config.cpus,
            params=self.cell.params,
            label=label,
            raw=self.spec.raw,
            mlock=config.mlock,
            cpu_latency=config.cpu_latency,
            rt_throttling_off=config.rt_throttling_off,
            series_window_s=self.spec.series_window_s,
        )


def open_campaign(
    store: Store, spec: campaign_spec.CampaignSpec, target: str, *, resume: bool
) -> tuple[Campaign, set[tuple[str, int]]]:
    """The campaign to measure into and the (cell, repetition) pairs it already has: with ``resume``
    the newest of this name, else a new one. A resumed campaign must have the same plan — targets
    included, so that two machines' runs never mix in one cell — but for a higher number of
    repetitions, which extends it in place; any other change is refused, naming it. ``target``: the
    command's, for a spec that names none."""
    plan = spec.plan(target)
    if not resume:
        new = Campaign(secrets.token_hex(8), spec.name, utc_now(), plan)
        store.add_campaign(new)
        return new, set()
    try:
        previous = store.campaign(spec.name)
    except RtscopeError:
        raise RtscopeError(f"no campaign named {spec.name!r} to resume in {store.location}") from None
    # Campaigns stored before plans named their target could only have run here.
    stored = (
        previous.plan
        if previous.plan is None or {"target", "targets"} & previous.plan.keys()
        else {"target": "local", **previous.plan}
    )
    if stored != plan:
        extended = (
            stored is not None
            and stored["repetitions"] < plan["repetitions"]
            and {**stored, "repetitions": plan["repetitions"]} == plan
        )
        if not extended:
            raise RtscopeError(
                f"the spec of campaign {spec.name} changed since {previous.id} started "
                f"({plan_change(stored, plan)}): run it without --resume to start a new "
                "campaign (only a higher repetitions extends one)"
            )
        store.set_campaign_plan(previous.id, plan)
        previous = Campaign(previous.id, previous.name, previous.started, plan)
    return previous, store.campaign_cells(previous.id)


def plan_change(old: dict[str, Any] | None, new: dict[str, Any]) -> str:
    """What differs between two plans, in words ("repetitions was 3, target was 'local'")."""
    if old is None:
        return "its plan was not stored"
    # Over both plans' keys: an optional key (series_window_s) may be in either alone.
    return ", ".join(f"{key} was {old.get(key)!r}" for key in {**old, **new} if old.get(key) != new.get(key))


def measure_all(
    spec: campaign_spec.CampaignSpec,
    target: Target,
    store: Store,
    this: Campaign,
    done: set[tuple[str, int]],
    requests: dict[str, "RequestFor"],
    progress: "Progress",
) -> int:
    """Measure every (repetition, cell) not in ``done``, repetitions interleaved, storing each run as it
    ends; a load is kept running across consecutive cells that ask for it. Returns how many runs had a
    failed bench; KeyboardInterrupt (after storing what was measured) when interrupted."""
    todo = [
        (repetition, cell)
        for repetition in range(1, spec.repetitions + 1)
        for cell in spec.cells
        if (cell.text, repetition) not in done
    ]
    failed = 0
    seeded = deterministic(target)
    with Session(target.transport, spec.settle_s, progress.note) as session:
        for repetition, cell in todo:
            progress.starting(repetition, cell)
            request = requests[cell.text](repetition)
            if seeded:
                request = dataclasses.replace(request, seed=repetition_seed(this.id, repetition))
            run_result = tagged(
                measure(target, request, cell.loads, session),
                this,
                cell,
                repetition,
                spec.repetitions,
            )
            try:
                store.add(run_result)
            except RtscopeError as error:
                # A store lost mid-campaign (a dropped connection): the runs stored so far stay, this one
                # was not stored, and --resume measures it again with the rest.
                raise RtscopeError(
                    f"{error} (the run of {cell.text} #{repetition} was not stored; campaign --resume "
                    "measures it and the runs left)"
                ) from None
            if run_result.doc["run"]["status"] == "interrupted":
                progress.note(
                    f"interrupted: the run of {cell.text} #{repetition} is stored "
                    f"({run_result.run_id[:8]}) but does not count"
                )
                raise KeyboardInterrupt
            failed += exit_status(run_result.doc) == FAILED
            progress.finished(run_result)
    progress.close()
    return failed


def repetition_seed(campaign_id: str, repetition: int) -> int:
    """The seed of a repetition on a deterministic target: drawn from the campaign's id (kept when it is
    resumed, new in every campaign) and the repetition, so that a resumed campaign measures a missing run
    as it would have been. Every cell of one repetition has the same seed: levels that run the same code
    then give the same figures, and a factor's difference is the levels', not the seeds'."""
    digest = hashlib.sha256(f"{campaign_id}:{repetition}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % (SEED_MAX + 1)


def tagged(
    run_result: result.Result, this: Campaign, cell: campaign_spec.CampaignCell, repetition: int, repetitions: int
) -> result.Result:
    tag = {"name": this.name, "id": this.id, "cell": cell.text, "axes": dict(cell.axes)}
    return result.tagged(
        run_result, "campaign", {**tag, "repetition": repetition, "repetitions": repetitions}, "the run's result"
    )


def planned_s(spec: campaign_spec.CampaignSpec, requests: dict[str, RequestFor]) -> float:
    """The planned time of one run: every bench's measuring time, the loads' settle time, the overhead."""
    benches = len(next(iter(requests.values())).benches)
    return benches * spec.duration_s + spec.settle_s + _OVERHEAD_PER_RUN_S


class Progress:
    """One line per run on stderr: a bar, how many runs are done, the time left and what runs now.

    The time left is, until a run has been timed, the planned time per run; then the mean of the runs
    this invocation measured."""

    def __init__(self, total: int, already: int, planned_s: float):
        self.total, self.already, self.measured, self.planned_s = total, already, 0, planned_s
        self.started = time.monotonic()
        self.run_started = self.started
        if already:
            self.note(f"resuming: {already} of {total} runs already measured")

    def starting(self, repetition: int, cell: campaign_spec.CampaignCell) -> None:
        done = self.already + self.measured
        per_run = (time.monotonic() - self.started) / self.measured if self.measured else self.planned_s
        filled = round(BAR_WIDTH * done / self.total)
        self.note(
            f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{self.total} "
            f"· {fmt.clock_time(per_run * (self.total - done))} left · {cell.text} #{repetition}"
        )
        self.run_started = time.monotonic()

    def finished(self, run_result: result.Result) -> None:
        self.measured += 1
        skipped = result.skipped(run_result.doc)
        self.note(
            f"stored run {run_result.run_id[:8]} after {fmt.clock_time(time.monotonic() - self.run_started)}"
            + (f" (skipped: {', '.join(skipped)})" if skipped else "")
        )

    def close(self) -> None:
        if self.measured:
            self.note(
                f"[{'#' * BAR_WIDTH}] {self.total}/{self.total} · measured {self.measured} runs in "
                f"{fmt.clock_time(time.monotonic() - self.started)}"
            )

    @staticmethod
    def note(line: str) -> None:
        print(f"rtscope: {line}", file=sys.stderr, flush=True)
