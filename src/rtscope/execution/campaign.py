"""Running a campaign: its cells' requests checked against the target before anything runs, the
campaign to measure into (new, or resumed), each run tagged with its cell, and the progress line."""

import secrets
import sys
import time

from rtscope.errors import RtscopeError
from rtscope.execution import campaign_spec
from rtscope.execution.measure import check_against_catalogue, priority_for
from rtscope.model import result
from rtscope.model.catalogue import expand_suites
from rtscope.model.request import RunRequest
from rtscope.render import fmt
from rtscope.store.database import Campaign, Store, utc_now
from rtscope.targets import Target

BAR_WIDTH = 20
# Starting the probe and stopping loads, beyond the measuring and settle times: for the first estimate.
_OVERHEAD_PER_RUN_S = 1.0


def requests_for(spec: campaign_spec.Spec, target: Target) -> dict[str, "RequestFor"]:
    """For each cell, how to make its request for a repetition; each is checked against the target's
    benches before anything runs, so that a typing mistake in the last cell does not end a long campaign."""
    benches = expand_suites(spec.benches, target.list_suites())
    catalogue = target.list_benches()
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

    def __init__(self, spec: campaign_spec.Spec, cell: campaign_spec.Cell, benches: tuple[str, ...]):
        self.spec, self.cell, self.benches = spec, cell, benches
        self.priority = priority_for(cell.config.policy, cell.config.priority)

    def __call__(self, repetition: int) -> RunRequest:
        config = self.cell.config
        # The label says where the run belongs wherever it is shown; it also keeps repeated requests apart.
        label = f"{self.spec.label or self.spec.name}: {self.cell.text} #{repetition}"
        return RunRequest(benches=self.benches, duration_s=self.spec.duration_s, policy=config.policy,
                          priority=self.priority, cpus=config.cpus, params=self.cell.params, label=label,
                          raw=self.spec.raw, mlock=config.mlock, cpu_latency=config.cpu_latency)


def open_campaign(store: Store, spec: campaign_spec.Spec, *, resume: bool) -> tuple[Campaign, set[tuple[str, int]]]:
    """The campaign to measure into and the (cell, repetition) pairs it already has: with ``resume``
    the newest of this name (refused when its plan differs from the spec's), else a new one."""
    if resume:
        try:
            previous = store.campaign(spec.name)
        except RtscopeError:
            raise RtscopeError(f"no campaign named {spec.name!r} to resume in {store.path}") from None
        if previous.plan != spec.plan():
            raise RtscopeError(f"the spec of campaign {spec.name} changed since {previous.id} started "
                               f"({plan_change(previous.plan, spec.plan())}): run it without --resume "
                               "to start a new campaign")
        return previous, store.campaign_cells(previous.id)
    new = Campaign(secrets.token_hex(8), spec.name, utc_now(), spec.plan())
    store.add_campaign(new)
    return new, set()


def plan_change(old: dict | None, new: dict) -> str:
    if old is None:
        return "its plan was not stored"
    return ", ".join(f"{key} was {old.get(key)!r}" for key in new if old.get(key) != new[key])


def tagged(run_result: result.Result, this: Campaign, cell: campaign_spec.Cell, repetition: int,
            repetitions: int) -> result.Result:
    doc = dict(run_result.doc, campaign={"name": this.name, "id": this.id, "cell": cell.text,
                                         "axes": dict(cell.axes), "repetition": repetition,
                                         "repetitions": repetitions})
    return result.from_doc(doc, "the run's result")


def planned_s(spec: campaign_spec.Spec, requests: dict[str, RequestFor]) -> float:
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

    def starting(self, repetition: int, cell: campaign_spec.Cell) -> None:
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
