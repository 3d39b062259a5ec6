"""rtscope run: run benches on the target, store the result and show its summary."""

import argparse
import contextlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rtscope import argtypes, loads, result, summary
from rtscope.benches import Bench, expand_suites
from rtscope.commands.show import add_raw_times_option
from rtscope.context import Context
from rtscope.errors import RtscopeError
from rtscope.files import AtomicFile
from rtscope.request import RunRequest
from rtscope.targets import Target

NAME = "run"
HELP = "run benches, store the result and show it"
DEFAULT_BENCHES = ("ctxsw.sem", "lat.wakeup")
DEFAULT_DURATION_S = 5.0
# cyclictest's convention: high, but below the kernel's own threads at 99.
DEFAULT_RT_PRIORITY = 80
FAILED = 1
INTERRUPTED = 130
# What the last line on stderr says when a run did not simply complete, by exit status.
_OUTCOME_NOTES = {
    FAILED: "a bench failed (its error is in the summary above)",
    INTERRUPTED: "run interrupted; what it measured until then is kept",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """BENCH…, the real-time configuration, bench parameters and output options."""
    parser.add_argument("benches", nargs="*", metavar="BENCH|SUITE",
                        help=f"benches or suites to run (default: {' '.join(DEFAULT_BENCHES)}; "
                             "rtscope list shows all)")
    parser.add_argument("--duration", type=argtypes.duration, default=DEFAULT_DURATION_S, metavar="S",
                        help=f"measuring time per bench, in seconds or with a unit: 500ms, 2m "
                             f"(default {DEFAULT_DURATION_S:g})")
    parser.add_argument("--policy", choices=("other", "fifo", "rr"), default="fifo",
                        help="scheduling policy of the measuring threads (default fifo)")
    parser.add_argument("--priority", type=argtypes.priority, metavar="N",
                        help=f"real-time priority, 1..99 (default {DEFAULT_RT_PRIORITY}; "
                             "0 with --policy other)")
    parser.add_argument("--cpus", type=argtypes.cpu_list, default=(), metavar="LIST",
                        help="CPUs to pin the measuring threads to, e.g. 0 or 0-3,6 (default: not pinned)")
    parser.add_argument("--param", type=argtypes.param_setting, action="append", default=[],
                        metavar="[BENCH:]KEY=VALUE", help="set a bench parameter (repeatable)")
    parser.add_argument("--load", action="append", default=[], metavar="NAME[,NAME]|NAME:KEY=VALUE…",
                        help="measure under these loads: idle, cpu, memory, io, net, sched; combine with a comma "
                             "or by repeating --load; parameters after the name: cpu:cpus=1:load=50 "
                             "(rtscope list shows them)")
    parser.add_argument("--settle", type=argtypes.duration, default=loads.DEFAULT_SETTLE_S, metavar="S",
                        help=f"time the loads run before measuring; their activity is checked over its second "
                             f"half (default {loads.DEFAULT_SETTLE_S:g})")
    parser.add_argument("--label", metavar="TEXT", help="a label to tell this run by")
    parser.add_argument("--raw", type=argtypes.non_negative, metavar="N",
                        help="also keep the first N raw samples of each metric")
    parser.add_argument("--no-mlock", dest="mlock", action="store_false",
                        help="do not lock the probe's memory (mlockall)")
    parser.add_argument("--no-cpu-latency", dest="cpu_latency", action="store_false",
                        help="leave CPU idle states alone (default: hold their wake-up latency at 0 µs)")
    parser.add_argument("--refuse-privilege", action="store_true",
                        help="run as if unprivileged: no real-time policy, mlockall or CPU latency limit")
    parser.add_argument("--grace", type=argtypes.duration, metavar="S",
                        help="how long a bench may take to stop before the probe's watchdog declares it hung "
                             "and ends the run, keeping what it measured (default 10 s)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the result document to FILE")
    parser.add_argument("--no-store", dest="store", action="store_false",
                        help="do not store the result in the database")
    add_raw_times_option(parser)


def run(args: argparse.Namespace, context: Context) -> int:
    """Check the request against the target's benches, run it, store and write it, print its summary.

    Everything that can be checked is checked before the probe starts: arguments, bench names and
    parameters, loads and their tools, the database and the --json destination. The loads run around
    the probe and are always stopped; the result records them. Exits 0 when the run completed, 1 when
    a bench failed, 130 when it was interrupted (what was measured is stored and shown all the same).
    """
    target = context.target()
    request = _request(args, expand_suites(tuple(args.benches) or DEFAULT_BENCHES, target.list_suites()))
    check_against_catalogue(request, target.list_benches())
    load_specs = loads.parse(args.load)
    loads.check_tools(load_specs)
    with AtomicFile(args.json) if args.json else contextlib.nullcontext() as json_file:
        store = context.store(create=True) if args.store else None
        run_result = measure(target, request, load_specs, args.settle, progress=note)
        if json_file:
            json_file.commit(run_result.text)
    if store:
        store.add(run_result)
    context.print(summary.render(run_result.doc, context.style, adjusted=not args.raw_times))
    status = exit_status(run_result.doc)
    if status in _OUTCOME_NOTES:
        print(f"rtscope: {_OUTCOME_NOTES[status]}", file=sys.stderr)
    return status


def note(line: str) -> None:
    """Tell the user how things go, on stderr."""
    print(f"rtscope: {line}", file=sys.stderr)


def measure(target: Target, request: RunRequest, load_specs: tuple[loads.LoadSpec, ...], settle_s: float,
            progress: Callable[[str], None]) -> result.Result:
    """Run ``request`` on ``target`` under the loads (started, verified and always stopped around it);
    the result records the loads and warns of any that did not hold."""
    with loads.running(load_specs, settle_s, progress=progress) as active:
        run_result = target.run(request)
    return _with_loads(run_result, active) if load_specs else run_result


def _with_loads(run_result: result.Result, active: list[loads.ActiveLoad]) -> result.Result:
    """The result with the loads it was measured under, and a warning for each that did not hold."""
    doc = dict(run_result.doc, loads=[load.record() for load in active])
    for load in active:
        if load.ended_early:
            doc["config"]["warnings"].append(f"load {load.spec} ended during the run "
                                             f"({'; '.join(load.ended_early)}): not every result was "
                                             f"measured under it")
    return result.from_doc(doc, "the run's result")


def _request(args: argparse.Namespace, benches: tuple[str, ...]) -> RunRequest:
    return RunRequest(
        benches=benches, duration_s=args.duration, policy=args.policy,
        priority=priority_for(args.policy, args.priority), cpus=args.cpus, params=tuple(args.param),
        label=args.label, raw=args.raw, mlock=args.mlock, cpu_latency=args.cpu_latency,
        refuse_privilege=args.refuse_privilege, grace_s=args.grace)


def priority_for(policy: str, priority: int | None) -> int:
    """The priority to request: SCHED_OTHER has only priority 0, the real-time policies 1..99."""
    if policy == "other":
        if priority not in (None, 0):
            raise RtscopeError(f"--priority {priority} does not go with --policy other "
                               "(its only priority is 0)")
        return 0
    if priority == 0:
        raise RtscopeError(f"--priority must be 1..99 with --policy {policy}")
    return DEFAULT_RT_PRIORITY if priority is None else priority


def check_against_catalogue(request: RunRequest, catalogue: list[Bench]) -> None:
    """Raise RtscopeError for an unknown or repeated bench, or a parameter no bench to run takes."""
    known = {bench.id: bench for bench in catalogue}
    for number, bench_id in enumerate(request.benches):
        if bench_id not in known:
            raise RtscopeError(f"unknown bench or suite {bench_id!r} (rtscope list shows them)")
        if bench_id in request.benches[:number]:
            raise RtscopeError(f"bench {bench_id} is named twice")
    for setting in request.params:
        if setting.bench is not None and setting.bench not in request.benches:
            raise RtscopeError(f"--param {setting}: {setting.bench} is not among the benches to run")
        params = [known[b].param(setting.key) for b in request.benches if setting.applies_to(b)]
        if not any(params):
            raise RtscopeError(f"--param {setting}: no bench to run has a parameter {setting.key!r} "
                               f"(rtscope list shows them)")
        for param in filter(None, params):
            try:
                param.convert(setting.value)
            except ValueError as error:
                raise RtscopeError(f"--param {setting}: {error}") from None


def exit_status(doc: dict[str, Any]) -> int:
    """0 for a complete run, 1 when the run or one of its benches failed, 130 when it was interrupted."""
    if doc["run"]["status"] == "interrupted":
        return INTERRUPTED
    if doc["run"]["status"] == "failed" or any(bench["status"] == "failed" for bench in doc["benches"]):
        return FAILED
    return 0
