"""Measuring a request on a target: checked against the target's catalogue, run under the disturbance
loads (started, verified and always stopped through the target's transport), and the exit status a run
ends with."""

import dataclasses
import secrets
from typing import Any

from rtscope.errors import RtscopeError, did_you_mean
from rtscope.loads import guest, kinds
from rtscope.loads.kinds import LoadSpec
from rtscope.loads.session import ActiveLoad, Session
from rtscope.model import result
from rtscope.model.catalogue import Catalogue
from rtscope.model.request import RunRequest
from rtscope.model.values import RT_PRIORITIES, SEED_MAX
from rtscope.targets import InGuest, Nowhere, OnTransport, Target

# cyclictest's convention: high, but below the kernel's own threads at 99.
DEFAULT_RT_PRIORITY = 80
COMPLETE, FAILED, INTERRUPTED = 0, 1, 130


def measure(target: Target, request: RunRequest, load_specs: tuple[LoadSpec, ...], session: Session) -> result.Result:
    """Run ``request`` on ``target`` under the loads the session holds for it (started and verified, or
    kept from the run before and checked again); the result records the target, the loads, and a
    warning for each load that did not hold until the probe ended. A target that runs its loads inside
    its guest (rtscope.loads.guest) has them started and stopped there, around the probe, in one boot.
    On a deterministic target a request without a seed is given a random one (recorded in the result),
    so that its reruns differ as a real machine's do."""
    if request.seed is None and deterministic(target):
        request = dataclasses.replace(request, seed=secrets.randbelow(SEED_MAX + 1))
    place = target.load_place()
    if isinstance(place, InGuest):
        run_result, in_guest = guest.measure(place.guest, request, load_specs, session.settle_s)
        return _annotated(run_result, target, in_guest if load_specs else [])
    with session.hold(load_specs) as active:
        run_result = target.run(request)
    return _annotated(run_result, target, active if load_specs else [])


def deterministic(target: Target) -> bool:
    """Whether a rerun on ``target`` repeats to the bit: an emulator counting instructions (a QEMU guest or
    board under -icount), where only a seed (RunRequest.seed) makes repetitions differ."""
    return bool(target.record().get("time_base") == "instructions")


def _annotated(run_result: result.Result, target: Target, active: list[ActiveLoad]) -> result.Result:
    """The result with what only the analyzer knows: the target (format 4 has a place for it), the
    loads it was measured under, and a warning for each that did not hold."""
    doc = dict(run_result.doc)
    if doc["version"] >= 4:
        record = target.record()
        doc["target"] = {**record, "time_base": result.time_base({"system": doc["system"], "target": record})}
    if active:
        doc["loads"] = [load.record() for load in active]
        doc["config"] = dict(
            doc["config"],
            warnings=[
                *doc["config"]["warnings"],
                *(
                    f"load {load.spec} ended during the run ({'; '.join(load.ended_early)}): not every result was "
                    f"measured under it"
                    for load in active
                    if load.ended_early
                ),
            ],
        )
    if doc == run_result.doc:
        return run_result
    return result.from_doc(doc, "the run's result")


def check_loads(target: Target, load_specs: tuple[LoadSpec, ...]) -> None:
    """RtscopeError naming what is missing when a load cannot run on ``target``: its tool (the package to
    install); in a guest, a setting its busybox version does not have; on a target that runs no loads,
    any load but idle (which starts nothing)."""
    match target.load_place():
        case OnTransport():
            kinds.check_tools(target.transport, load_specs)
        case InGuest(guest=booted):
            guest.check(load_specs, booted.cpus)
        case Nowhere(reason=reason):
            for spec in load_specs:
                if spec.kind.tool:
                    raise RtscopeError(f"--load {spec}: {target.name} cannot run loads: {reason}")


def priority_for(policy: str, priority: int | None) -> int:
    """The priority to request: SCHED_OTHER has only priority 0, the real-time policies RT_PRIORITIES."""
    if policy == "other":
        if priority not in (None, 0):
            raise RtscopeError(f"--priority {priority} does not go with --policy other (its only priority is 0)")
        return 0
    if priority is None:
        return DEFAULT_RT_PRIORITY
    if priority not in RT_PRIORITIES:
        raise RtscopeError(f"--priority must be {RT_PRIORITIES[0]}..{RT_PRIORITIES[-1]} with --policy {policy}")
    return priority


def check_against_catalogue(request: RunRequest, catalogue: Catalogue) -> None:
    """Raise RtscopeError for an unknown or repeated bench, or a parameter no bench to run takes; a name
    mistyped gets the names it is closest to."""
    known = {bench.id: bench for bench in catalogue.benches}
    for number, bench_id in enumerate(request.benches):
        if bench_id not in known:
            names = [*known, *(suite.id for suite in catalogue.suites)]
            raise RtscopeError(
                f"unknown bench or suite {bench_id!r}{did_you_mean(bench_id, names)} (rtscope list shows them)"
            )
        if bench_id in request.benches[:number]:
            raise RtscopeError(f"bench {bench_id} is named twice")
    for setting in request.params:
        if setting.bench is not None and setting.bench not in request.benches:
            raise RtscopeError(f"--param {setting}: {setting.bench} is not among the benches to run")
        params = [known[b].param(setting.key) for b in request.benches if setting.applies_to(b)]
        if not any(params):
            taken = dict.fromkeys(p.name for b in request.benches if setting.applies_to(b) for p in known[b].params)
            raise RtscopeError(
                f"--param {setting}: no bench to run has a parameter {setting.key!r}"
                f"{did_you_mean(setting.key, list(taken))} (rtscope list shows them)"
            )
        for param in filter(None, params):
            try:
                param.convert(setting.value)
            except ValueError as error:
                raise RtscopeError(f"--param {setting}: {error}") from None


def exit_status(doc: dict[str, Any]) -> int:
    """0 for a complete run (every bench ran, or was skipped because the target cannot run it), 1 when the
    run or one of its benches failed, 130 when it was interrupted."""
    if doc["run"]["status"] == "interrupted":
        return INTERRUPTED
    if doc["run"]["status"] == "failed" or any(bench["status"] == "failed" for bench in doc["benches"]):
        return FAILED
    return COMPLETE
