"""rtscope run: run benches on the target, store the result and show its summary."""

import argparse
import contextlib
import sys
from pathlib import Path

from rtscope.commands.context import Context
from rtscope.commands.show import add_raw_times_option
from rtscope.errors import RtscopeError
from rtscope.execution.measure import (
    DEFAULT_RT_PRIORITY,
    FAILED,
    INTERRUPTED,
    check_against_catalogue,
    check_loads,
    exit_status,
    measure,
    priority_for,
)
from rtscope.files import AtomicFile
from rtscope.loads import kinds
from rtscope.loads.session import DEFAULT_SETTLE_S, Session
from rtscope.model import values
from rtscope.model.catalogue import expand_suites
from rtscope.model.request import RunRequest
from rtscope.render import summary
from rtscope.targets import one_board

DEFAULT_BENCHES = ("ctxsw.sem", "lat.wakeup")
DEFAULT_DURATION_S = 5.0
# What the last line on stderr says when a run did not simply complete, by exit status.
_OUTCOME_NOTES = {
    FAILED: "a bench failed (its error is in the summary above)",
    INTERRUPTED: "run interrupted; what it measured until then is kept",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """BENCH…, the real-time configuration, bench parameters and output options."""
    parser.add_argument(
        "benches",
        nargs="*",
        metavar="BENCH|SUITE",
        help=f"benches or suites to run (default: {' '.join(DEFAULT_BENCHES)}; rtscope list shows all)",
    )
    parser.add_argument(
        "--duration",
        type=values.duration,
        metavar="S",
        help=f"measuring time per bench, in seconds or with a unit: 500ms, 2m (default {DEFAULT_DURATION_S:g})",
    )
    parser.add_argument(
        "--policy",
        choices=("other", "fifo", "rr"),
        default="fifo",
        help="scheduling policy of the measuring threads (default fifo)",
    )
    parser.add_argument(
        "--priority",
        type=values.priority,
        metavar="N",
        help=f"real-time priority, {values.RT_PRIORITIES[0]}..{values.RT_PRIORITIES[-1]} "
        f"(default {DEFAULT_RT_PRIORITY}; 0 with --policy other)",
    )
    parser.add_argument(
        "--cpus",
        type=values.cpu_list,
        default=(),
        metavar="LIST",
        help="CPUs to pin the measuring threads to, e.g. 0 or 0-3,6 (default: not pinned)",
    )
    parser.add_argument(
        "--param",
        type=values.param_setting,
        action="append",
        default=[],
        metavar="[BENCH:]KEY=VALUE",
        help="set a bench parameter (repeatable)",
    )
    parser.add_argument(
        "--load",
        action="append",
        default=[],
        metavar="NAME[,NAME]|NAME:KEY=VALUE…",
        help=f"measure under these loads: {', '.join(kinds.KINDS)}; combine with a comma "
        "or by repeating --load; parameters after the name: cpu:cpus=1:load=50 "
        "(rtscope list shows them)",
    )
    parser.add_argument(
        "--settle",
        type=values.duration,
        default=DEFAULT_SETTLE_S,
        metavar="S",
        help=f"time the loads run before measuring; their activity is checked over its second "
        f"half (default {DEFAULT_SETTLE_S:g})",
    )
    parser.add_argument("--label", metavar="TEXT", help="a label to tell this run by")
    parser.add_argument(
        "--raw", type=values.non_negative, metavar="N", help="also keep the first N raw samples of each metric"
    )
    parser.add_argument(
        "--no-mlock", dest="mlock", action="store_false", help="do not lock the probe's memory (mlockall)"
    )
    parser.add_argument(
        "--no-cpu-latency",
        dest="cpu_latency",
        action="store_false",
        help="leave CPU idle states alone (default: hold their wake-up latency at 0 µs)",
    )
    parser.add_argument(
        "--rt-throttling",
        choices=("on", "off"),
        default="on",
        help="off: lift the kernel's RT throttling for the run (sched_rt_runtime_us -1, put back after; needs "
        "root, else a warning) — a busy real-time thread is otherwise stopped for the rest of each period "
        "(default: on, as the system has it)",
    )
    parser.add_argument(
        "--refuse-privilege",
        action="store_true",
        help="run as if unprivileged: no real-time policy, mlockall or CPU latency limit",
    )
    parser.add_argument(
        "--grace",
        type=values.duration,
        metavar="S",
        help="how long a bench may take to stop before the probe's watchdog declares it hung "
        "and ends the run, keeping what it measured (default 10 s)",
    )
    parser.add_argument(
        "--seed",
        type=values.seed,
        metavar="N",
        help="start each bench after a wait of 0-10 ms drawn from N (0..4294967295), what a rerun varies on "
        "a target that repeats to the bit (an emulator counting instructions draws one when none is given); "
        "the same seed repeats such a run exactly",
    )
    parser.add_argument(
        "--series-window",
        type=values.series_window,
        metavar="S",
        help="the window of the latency benches' series of worst samples, which places a spike in the run "
        "(show, the report's worst over time): 1 ms to --duration (default 1 s); a coarser one makes a long "
        "run's result smaller, its maximum and histogram exact all the same",
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the result document to FILE")
    parser.add_argument(
        "--no-store", dest="store", action="store_false", help="do not store the result in the database"
    )
    add_raw_times_option(parser)


def run(args: argparse.Namespace, context: Context) -> int:
    """Check the request against the target's benches, run it, store and write it, print its summary.

    Everything that can be checked is checked before the probe starts: arguments, bench names and
    parameters, loads and their tools, the database and the --json destination. The loads run around
    the probe and are always stopped; the result records them. Exits 0 when the run completed, 1 when
    a bench failed, 130 when it was interrupted (what was measured is stored and shown all the same).
    """
    _duration_s(args)  # checked before a target is reached
    one_board(context.target_spec)
    target = context.target()
    load_specs = kinds.parse(args.load)
    check_loads(target, load_specs)
    request = _request(args, expand_suites(tuple(args.benches) or DEFAULT_BENCHES, target.catalogue.suites))
    check_against_catalogue(request, target.catalogue)
    with AtomicFile(args.json) if args.json else contextlib.nullcontext() as json_file:
        store = context.store(create=True) if args.store else None
        with Session(target.transport, args.settle, note) as session:
            run_result = measure(target, request, load_specs, session)
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


def _duration_s(args: argparse.Namespace) -> float:
    """The run's duration; RtscopeError when --series-window is longer (the probe would refuse it: a series
    of one window places nothing)."""
    duration_s = DEFAULT_DURATION_S if args.duration is None else args.duration
    if args.series_window is not None and args.series_window > duration_s:
        raise RtscopeError(
            f"--series-window {values.exact(args.series_window)} s is longer than the run "
            f"(--duration {values.exact(duration_s)} s)"
        )
    return duration_s


def _request(args: argparse.Namespace, benches: tuple[str, ...]) -> RunRequest:
    return RunRequest(
        benches=benches,
        duration_s=_duration_s(args),
        duration_given=args.duration is not None,
        policy=args.policy,
        priority=priority_for(args.policy, args.priority),
        cpus=args.cpus,
        params=tuple(args.param),
        label=args.label,
        raw=args.raw,
        mlock=args.mlock,
        cpu_latency=args.cpu_latency,
        rt_throttling_off=args.rt_throttling == "off",
        refuse_privilege=args.refuse_privilege,
        grace_s=args.grace,
        seed=args.seed,
        series_window_s=args.series_window,
    )
