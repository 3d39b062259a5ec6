"""Running a monitor: its stored identity (opened again by a restarted monitor, with what changed in its
spec), and one board's loop — a window measured, stored at once with its ``monitor`` object, the next one —
with the back-off that keeps a failing board retried while the others go on.

A board's windows are numbered from 1 in schedule order; a window is stored in one transaction the moment
it ends, so that a monitor killed at any point has lost at most the window in flight, and the next window
number is always one past the last one stored (Store.last_runs). A window that failed (the target down,
the connection lost, the probe or a bench failed) is not stored: it is measured again, with the same
number, when the board is back. A window stopped by SIGTERM or Ctrl-C is stored as ``interrupted``: kept,
not counted, and measured again by the restarted monitor."""

import contextlib
import dataclasses
import os
import secrets
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from rtscope.errors import RtscopeError
from rtscope.execution.campaign import repetition_seed
from rtscope.execution.measure import (
    FAILED,
    check_against_catalogue,
    check_loads,
    deterministic,
    exit_status,
    measure,
    priority_for,
)
from rtscope.execution.monitor_spec import Board, MonitorSpec, ScheduleStep
from rtscope.loads.session import Session
from rtscope.model import result
from rtscope.model.catalogue import expand_suites
from rtscope.model.request import RunRequest
from rtscope.render import fmt
from rtscope.store.database import Campaign, Store, utc_now
from rtscope.targets import Target

# Housekeeping (retention's compaction) runs at the start and then once an hour.
HOUSEKEEPING_EVERY_S = 3600.0
# The plan key that tells a monitor's campaigns row from a campaign's.
_KIND = "monitor"
# What a plan stored without a key measured: before series_window, the probe's 1 s series window.
_STORED_BEFORE = {"series_window_s": 1.0}
# The plan's keys that say what a window measures: a restarted monitor must keep them.
_MEASURING = ("window_s", "series_window_s", "settle_s", "raw", "steps")


@dataclass(frozen=True)
class Hooks:
    """What a monitor has other parts of rtscope do beside measuring: ``housekeeping`` at the start and
    every HOUSEKEEPING_EVERY_S, called as (store, monitor id, now) — retention's compaction; and
    ``after_window``, after each stored window, as (store, monitor id, board) — alerts on a confirmed
    change — returning the lines the board's log is to say (each alert sent or not). Each runs in one process
    per monitor (housekeeping) or per board (after_window)."""

    housekeeping: tuple[Callable[[Store, str, datetime], object], ...] = ()
    after_window: tuple[Callable[[Store, str, str], Iterable[str]], ...] = ()


class NotRetried(RtscopeError):
    """What retrying the board will not mend, so that its loop ends with it: the spec asks the board for
    what it cannot do (a bench or parameter it does not have), or the store failed to keep a window (a
    lost connection: the monitor, restarted — by systemd — goes on with a new one)."""


class Stopped(Exception):
    """The board's loop was stopped (SIGTERM, Ctrl-C) or has measured every window the spec asks for."""


def open_monitor(store: Store, spec: MonitorSpec) -> tuple[Campaign, list[str]]:
    """The stored monitor of ``spec``'s name — made, the first time — and what changed since it was last
    started, in words. A restarted monitor keeps its id and each board's series goes on, so the series'
    part of the plan (window length, series window, settle time, raw samples, the steps: what a window
    measures) must be the same: a change there is refused, naming it (a new name starts a new monitor).
    Boards may be added or removed, and a board's target changed (its series goes on across the change,
    which is what ``rtscope changes`` then finds and names); the stored plan is updated."""
    plan = {"kind": _KIND, **spec.plan()}
    try:
        previous = store.campaign(spec.name)
    except RtscopeError:
        new = Campaign(secrets.token_hex(8), spec.name, utc_now(), plan)
        store.add_campaign(new)
        return new, []
    stored = {**_STORED_BEFORE, **(previous.plan or {})}
    if stored.get("kind") != _KIND:
        raise RtscopeError(
            f"{spec.name!r} names a campaign in {store.location}, not a monitor: give the monitor another name"
        )
    changed = [key for key in _MEASURING if stored.get(key) != plan[key]]
    if changed:
        # A series window's change has a way to keep the series: the spec says the stored one.
        keep = (
            f' (or series_window = "{stored["series_window_s"]:g}s" in the spec to go on)'
            if changed == ["series_window_s"]
            else ""
        )
        raise RtscopeError(
            f"the spec of monitor {spec.name} changed what a window measures since {previous.id} started "
            f"({_what_changed(stored, plan, changed)}): its windows would not be one series; give the spec "
            f"another name to start a new monitor{keep}"
        )
    notes = _board_changes(stored.get("boards", {}), plan["boards"])
    if notes:
        store.set_campaign_plan(previous.id, plan)
    return Campaign(previous.id, previous.name, previous.started, plan), notes


def _what_changed(old: dict[str, Any], new: dict[str, Any], keys: list[str]) -> str:
    words = []
    for key in keys:
        if key == "steps":
            before = {step["name"]: step for step in old.get("steps", [])}
            after = {step["name"]: step for step in new["steps"]}
            if list(before) != list(after):
                words.append(f"the steps were {', '.join(before)}, are {', '.join(after)}")
            else:
                words += [
                    f"step {name}'s {field} was {before[name][field]!r}, is {step[field]!r}"
                    for name, step in after.items()
                    for field in step
                    if before[name].get(field) != step[field]
                ]
        else:
            words.append(f"{key} was {old.get(key)!r}, is {new[key]!r}")
    return "; ".join(words)


def _board_changes(old: dict[str, str], new: dict[str, str]) -> list[str]:
    return [
        *(f"board {name} is new (target {target})" for name, target in new.items() if name not in old),
        *(f"board {name} is no longer watched" for name in old if name not in new),
        *(
            f"board {name}'s target was {old[name]}, is {target}: its series goes on"
            for name, target in new.items()
            if name in old and old[name] != target
        ),
    ]


def next_window(store: Store, monitor_id: str, board: str) -> int:
    """The number of ``board``'s next window: one past the last window its stored windows hold (a window
    that retention merged holds several), 1 for a board with none."""
    last = store.last_runs(monitor_id).get(board)
    if last is None:
        return 1
    monitor = store.get(last).doc["monitor"]
    return int(monitor["window"]) + int(monitor["windows"])


def request_for(
    spec: MonitorSpec, board: Board, step: ScheduleStep, window: int, benches: tuple[str, ...]
) -> RunRequest:
    """The probe request of window ``window`` of ``board`` (``benches``: the step's, suites expanded)."""
    return RunRequest(
        benches=benches,
        duration_s=spec.window_s,
        duration_given=True,
        policy=step.config.policy,
        priority=priority_for(step.config.policy, step.config.priority),
        cpus=step.config.cpus,
        params=step.params,
        # As a campaign's label: where the run belongs wherever it is shown, and which probe is whose.
        label=f"{spec.label or spec.name}: {board.name} {step.name} #{window}",
        raw=spec.raw,
        mlock=step.config.mlock,
        cpu_latency=step.config.cpu_latency,
        rt_throttling_off=step.config.rt_throttling_off,
        series_window_s=spec.series_window_s,
        quiet=True,
    )


def window_summary(doc: dict[str, Any]) -> str:
    """A window in a line of the monitor's log: each bench's first metric (its headline: all CPUs of a
    latency bench) by its p99 and maximum, overhead-adjusted as rtscope shows them, and the invalid ones."""
    parts = []
    for bench in doc["benches"]:
        metric = next((m for m in doc["metrics"] if m["bench"] == bench["id"]), None)
        if metric is None:
            parts.append(f"{bench['id']} {bench['status']}")
            continue
        figures = metric.get("adjusted") or metric["stats"]
        parts.append(
            f"{metric['id']} p99 {fmt.figure(figures['p99'], metric['unit'])}, "
            f"max {fmt.figure(figures['max'], metric['unit'])}"
        )
    invalid = [metric for metric in doc["metrics"] if not metric["valid"]]
    if invalid:
        parts.append(f"{len(invalid)} invalid ({invalid[0]['id']}: {invalid[0]['invalid_reason']})")
    return "; ".join(parts)


def tagged(
    run_result: result.Result, monitor: Campaign, board: Board, step: ScheduleStep, window: int
) -> result.Result:
    """The window's document with its ``monitor`` object (result format 4)."""
    tag = {"name": monitor.name, "id": monitor.id, "board": board.name, "step": step.name, "window": window}
    return result.tagged(run_result, "monitor", {**tag, "windows": 1}, "the window's result")


class StopRequests:
    """Whether SIGTERM or SIGINT has reached this process, whichever handler took it. During a window the
    probe's runner takes SIGTERM to stop the probe (rtscope.targets.worker), so the loop never sees it; and
    a probe killed by it before it could stop cleanly comes back as a failed window, which the loop would
    retry. Python writes each signal it handles to a wakeup descriptor first: this reads it. Made in the
    main thread (the only one where Python takes signals)."""

    def __init__(self) -> None:
        self._read, write = os.pipe()
        for end in (self._read, write):
            os.set_blocking(end, False)
        signal.set_wakeup_fd(write, warn_on_full_buffer=False)
        self._requested = False

    def __call__(self) -> bool:
        """Whether a stop was asked for since this was made."""
        with contextlib.suppress(BlockingIOError):
            while data := os.read(self._read, 512):
                self._requested |= bool({signal.SIGTERM, signal.SIGINT} & set(data))
        return self._requested


class BoardLoop:
    """One board's windows, measured and stored one after another until stopped, or until the spec's
    ``windows`` are stored. ``make_target`` makes the board's target afresh after a failure (a new
    connection); ``say`` reports on stderr; ``sleep`` waits (time.sleep: a signal cuts it short);
    ``stopped`` says whether the process was asked to stop (StopRequests)."""

    def __init__(
        self,
        spec: MonitorSpec,
        board: Board,
        monitor: Campaign,
        store: Store,
        make_target: Callable[[str], Target],
        hooks: Hooks = Hooks(),
        say: Callable[[str], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        stopped: Callable[[], bool] = lambda: False,
    ):
        self.spec, self.board, self.monitor, self.store = spec, board, monitor, store
        self.make_target, self.hooks, self.sleep, self.stopped = make_target, hooks, sleep, stopped
        self.say = say or _note
        self.window = next_window(store, monitor.id, board.name)
        self.failures = 0  # in the current streak
        self.delay = spec.backoff_s  # before the next try, in a streak
        # The warnings of the board's last window: a window says those it adds, not each one every 5 minutes.
        self.warned: set[str] = set()

    def run(self) -> None:
        """Measure windows until every one the spec asks for is stored (returns) or the process is stopped
        (KeyboardInterrupt, after storing the window in flight as interrupted). A failure is reported
        once per streak, with its reason, and the board tried again after the back-off; NotRetried ends
        the loop."""
        while not self._done():
            try:
                self._measure(self.make_target(self.board.target))
            except NotRetried:
                raise
            except (RtscopeError, OSError) as error:
                if self.stopped():  # the window failed because it was stopped (StopRequests)
                    raise KeyboardInterrupt from None
                if not self.failures:
                    self.say(
                        f"window {self.window} failed: {error}; trying again in {fmt.clock_time(self.delay)}, "
                        f"then at most every {fmt.clock_time(self.spec.backoff_max_s)}, until it is back"
                    )
                self.failures += 1
                self.sleep(self.delay)
                self.delay = min(2 * self.delay, self.spec.backoff_max_s)
            else:
                return

    def _done(self) -> bool:
        return self.spec.windows is not None and self.window > self.spec.windows

    def _measure(self, target: Target) -> None:
        """Windows on ``target`` until done; an error of the target or of a window goes up."""
        seeded = deterministic(target)
        with Session(target.transport, self.spec.settle_s, self.say) as session:
            while not self._done():
                step = self.spec.step_of(self.window)
                request = self._request(target, step)
                check_loads(target, step.loads)
                if seeded:
                    request = dataclasses.replace(request, seed=repetition_seed(self.monitor.id, self.window))
                run_result = tagged(
                    measure(target, request, step.loads, session), self.monitor, self.board, step, self.window
                )
                if exit_status(run_result.doc) == FAILED:
                    raise RtscopeError(_failure(run_result.doc))
                try:
                    self.store.add(run_result)
                except RtscopeError as error:
                    raise NotRetried(f"{error} (window {self.window} was not stored)") from None
                if run_result.doc["run"]["status"] == "interrupted":
                    self.say(
                        f"stopped: window {self.window} ({step.name}) is stored as interrupted "
                        f"({run_result.run_id[:8]}): it does not count, and is measured again on restart"
                    )
                    raise KeyboardInterrupt
                if self.failures:
                    self.say(f"back after {self.failures} failed {'try' if self.failures == 1 else 'tries'}")
                    self.failures, self.delay = 0, self.spec.backoff_s
                for warning in run_result.doc["config"]["warnings"]:
                    if warning not in self.warned:
                        self.say(f"warning: {warning}")
                self.warned = set(run_result.doc["config"]["warnings"])
                self.say(
                    f"stored window {self.window} ({step.name}) as run {run_result.run_id[:8]}: "
                    f"{window_summary(run_result.doc)}"
                )
                self.window += 1
                self._after_window()
                if self.stopped():  # asked while the window's probe was ending: it ended whole
                    raise KeyboardInterrupt
                if step.pause_s and not self._done():
                    self.sleep(step.pause_s)

    def _after_window(self) -> None:
        """The after_window hooks; one that fails is reported, and the board goes on measuring (its window
        is stored: an alert that could not be sent is the alerts' to retry, not a reason to stop)."""
        for after in self.hooks.after_window:
            try:
                for line in after(self.store, self.monitor.id, self.board.name):
                    self.say(line)
            except RtscopeError as error:
                self.say(f"after window {self.window - 1}: {error}")

    def _request(self, target: Target, step: ScheduleStep) -> RunRequest:
        catalogue = target.catalogue
        request = request_for(self.spec, self.board, step, self.window, expand_suites(step.benches, catalogue.suites))
        try:
            check_against_catalogue(request, catalogue)
        except RtscopeError as error:
            raise NotRetried(f"step {step.name}: {error}") from None
        return request


class Housekeeper(threading.Thread):
    """The monitor's housekeeping hooks, run at the start and then every ``every_s`` until :meth:`stop`, in
    a thread of the monitor's process beside its boards' workers, on a store connection of its own
    (``open_store``). A hook's error is reported (``say``) and the hook tried again at the next round: a
    compaction is safe to repeat, and one that failed must not end the measuring."""

    def __init__(
        self,
        open_store: Callable[[], Store],
        monitor_id: str,
        hooks: Hooks,
        say: Callable[[str], None] | None = None,
        every_s: float = HOUSEKEEPING_EVERY_S,
    ):
        super().__init__(name="rtscope-housekeeping", daemon=True)
        self.open_store, self.monitor_id, self.hooks, self.every_s = open_store, monitor_id, hooks, every_s
        self.say = say or _note
        self.rounds = 0
        self._stopping = threading.Event()

    def run(self) -> None:
        with self.open_store() as store:
            while True:
                for hook in self.hooks.housekeeping:
                    try:
                        hook(store, self.monitor_id, datetime.now(UTC))
                    except RtscopeError as error:
                        self.say(f"housekeeping: {error} (tried again in {fmt.clock_time(self.every_s)})")
                self.rounds += 1
                if self._stopping.wait(self.every_s):
                    return

    def stop(self, timeout_s: float) -> None:
        """End after the round in progress, waiting ``timeout_s`` at most: a round cut short by the
        process's exit has each merge in a transaction of its own, which the store rolls back."""
        self._stopping.set()
        self.join(timeout_s)


def _failure(doc: dict[str, Any]) -> str:
    """Why a window's run failed, from its document."""
    failed = [f"{b['id']}: {b.get('error') or 'failed'}" for b in doc["benches"] if b["status"] == "failed"]
    return "the probe run failed" + (f" ({'; '.join(failed)})" if failed else "")


def _note(line: str) -> None:
    print(f"rtscope: {line}", file=sys.stderr, flush=True)
