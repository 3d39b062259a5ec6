"""rtscope monitor: watch boards for as long as it runs — each board's windows measured on the spec's
schedule and stored one by one as they end — until SIGTERM or Ctrl-C (or the spec's ``windows``).

Each board is watched by a worker process of its own (``rtscope monitor SPEC --worker ID --board NAME``),
so that a board that is down, slow or retried holds up no other, and each worker runs its probe from its
main thread, where the probe's stop on SIGTERM is handled (rtscope.targets.worker). The monitor's
housekeeping (retention's compaction) runs in the monitor's own process, so that no board's windows wait
for it.
"""

import argparse
import os
import signal
import sys
from datetime import datetime
from pathlib import Path

from rtscope.commands.context import Context
from rtscope.execution import alerts, monitor_spec, retention
from rtscope.execution.measure import INTERRUPTED
from rtscope.execution.monitor import BoardLoop, Hooks, Housekeeper, StopRequests, next_window, open_monitor
from rtscope.execution.parallel import run_workers
from rtscope.store.database import Store
from rtscope.targets.transport import sigterm_interrupts

# How long a stopped monitor waits for a compaction in progress before it exits (which rolls it back).
_HOUSEKEEPING_STOP_S = 10.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """SPEC."""
    parser.add_argument(
        "spec", type=Path, metavar="SPEC.toml", help="the monitor spec (examples/monitors/ has an example)"
    )
    # A board's worker (or the housekeeping one) of monitor --worker ID, which the monitor starts.
    parser.add_argument("--worker", metavar="MONITOR_ID", help=argparse.SUPPRESS)
    parser.add_argument("--board", help=argparse.SUPPRESS)


def hooks_for(spec: monitor_spec.MonitorSpec) -> Hooks:
    """What retention and alerts do for this monitor: retention's compaction as its housekeeping (by the
    spec's [retention], else the default policy) and, where the spec has [alerts], alerts after each window."""
    policy = spec.sections.get("retention", retention.RetentionPolicy())
    config = spec.sections.get("alerts")
    assert isinstance(policy, retention.RetentionPolicy) and isinstance(config, alerts.AlertConfig | None)

    def compact(store: Store, monitor_id: str, now: datetime) -> None:
        retention.compact(store, monitor_id, policy, now)

    def alert(store: Store, monitor_id: str, board: str) -> list[str]:
        assert config is not None
        return [sent.text() for sent in alerts.after_window(store, monitor_id, board, config)]

    return Hooks(housekeeping=(compact,), after_window=(alert,) if config is not None else ())


def run(args: argparse.Namespace, context: Context) -> int:
    """Check the spec and every board's target, open the monitor (new, or going on after a restart, with
    what changed said), then watch every board until stopped. Exits 0 when stopped by SIGTERM or Ctrl-C,
    or when every board has its ``windows``; 1 when a board's worker ended on an error (its line above
    says which); each board's line says what it stored."""
    spec = monitor_spec.load(args.spec)
    hooks = hooks_for(spec)
    if args.worker:
        return _worker(args, context, spec, hooks)
    for board in spec.boards:
        context.target(board.target)  # a target that is not one is refused here, before any worker starts
    store = context.store(create=True)
    this, notes = open_monitor(store, spec)
    for note in notes:
        _say(f"monitor {spec.name}: {note}")
    before = {board.name: next_window(store, this.id, board.name) for board in spec.boards}
    _say(
        f"monitor {spec.name} ({this.id}): watching {', '.join(board.name for board in spec.boards)}; "
        "SIGTERM or Ctrl-C stops it"
    )
    workers = {board.name: _worker_argv(args, context, this.id, board.name) for board in spec.boards}
    housekeeper = Housekeeper(lambda: Store.open(context.store_location), this.id, hooks, _say)
    if hooks.housekeeping:
        housekeeper.start()
    # The store's URL may hold a password, which every user could read on a command line.
    statuses = run_workers(workers, {**os.environ, "RTSCOPE_DB": str(context.store_location)}, signal.SIGTERM)
    if hooks.housekeeping:
        housekeeper.stop(_HOUSEKEEPING_STOP_S)
    lines = []
    for board in spec.boards:
        first, stored = before[board.name], next_window(store, this.id, board.name) - before[board.name]
        lines.append(
            f"{board.name}: stored "
            + (
                f"windows {first}..{first + stored - 1} ({stored})"
                if stored > 1
                else f"window {first}"
                if stored
                else "no window"
            )
        )
    context.print([f"monitor {spec.name} ({this.id}):", *(f"  {line}" for line in lines)])
    failed = [name for name, status in statuses.items() if status not in (0, INTERRUPTED)]
    if failed:
        _say(f"{', '.join(failed)} ended on an error (the line above each says which)")
        return 1
    return 0


def _worker_argv(args: argparse.Namespace, context: Context, monitor_id: str, board: str) -> list[str]:
    """The command line of one board's worker."""
    return [
        sys.executable,
        "-m",
        "rtscope",
        "--probe",
        str(context.probe),
        *context.target_options.argv(),
        "monitor",
        str(args.spec),
        "--worker",
        monitor_id,
        "--board",
        board,
    ]


def _worker(args: argparse.Namespace, context: Context, spec: monitor_spec.MonitorSpec, hooks: Hooks) -> int:
    """One board's windows of monitor ``--worker``, until stopped: exit status 130 when stopped, 0 when the
    board has every window the spec asks for."""
    sigterm_interrupts()  # SIGTERM, the monitor's stop, ends the worker as Ctrl-C does
    stopped = StopRequests()
    store = context.store()
    this = store.campaign(args.worker)
    board = spec.board(args.board or "")
    try:
        BoardLoop(spec, board, this, store, context.target, hooks, stopped=stopped).run()
    except KeyboardInterrupt:
        return INTERRUPTED
    return 0


def _say(line: str) -> None:
    print(f"rtscope: {line}", file=sys.stderr, flush=True)
