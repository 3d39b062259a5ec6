"""Monitor specs: a TOML file naming the boards to watch and the schedule of windows each measures, for
ever (or ``windows`` of them, for a test).

A window is one probe run: every bench of a schedule step, each for ``window`` seconds, under the step's
load and real-time configuration. The steps follow each other in the order written and start again from
the first: window N of a board measures step (N - 1) mod len(steps), so that a restarted monitor goes on
with the step its window number says. The steps take the vocabulary of ``rtscope run`` and of a
campaign's spec (benches, params, load, policy, priority, cpus, mlock, cpu_latency, rt_throttling),
checked by the same code (rtscope.execution.campaign_spec.SpecReader).

Every mistake in a spec is one line naming the file, the line and the key.
"""

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtscope.errors import RtscopeError
from rtscope.execution import alerts, retention
from rtscope.execution.campaign_spec import Config, SpecReader, is_name, read_toml
from rtscope.loads import kinds
from rtscope.loads.session import DEFAULT_SETTLE_S
from rtscope.model import values
from rtscope.model.values import ParamSetting
from rtscope.targets import boards

DEFAULT_WINDOW_S = 300.0
# The window of a monitor window's series of worst samples: 10 s, not the probe's 1 s. At 1 s the series is a
# third of a 5-minute window's stored bytes (issue 33, evaluation/retention.py); 10 s still places a spike
# within the window, and its maximum and histogram are exact whatever the series window (docs/monitor.md).
DEFAULT_SERIES_WINDOW_S = 10.0
# A board that fails is tried again after 10 s, then 20 s, 40 s … up to 10 minutes between tries: a board
# that reboots is back within seconds of it, one that is gone for a day costs a connection attempt every
# 10 minutes.
DEFAULT_BACKOFF_S = 10.0
DEFAULT_BACKOFF_MAX_S = 600.0
# The spec's tables that other parts of rtscope read, each by its parser, called as parse(table, where)
# with ``where`` "FILE:LINE: TABLE" for its messages; what it returns is kept in MonitorSpec.sections.
# [retention] (rtscope.execution.retention.parse_retention) and [alerts] (rtscope.execution.alerts.parse_alerts)
# go here; a table without a parser is an unknown key.
SECTION_PARSERS: dict[str, Callable[[dict[str, Any], str], object]] = {
    "retention": retention.parse_retention,
    "alerts": alerts.parse_alerts,
}
_TOP_KEYS = (
    "name",
    "window",
    "windows",
    "series_window",
    "settle",
    "label",
    "raw",
    "backoff",
    "backoff_max",
    "board",
    "step",
)
_BOARD_KEYS = ("name", "target")
_STEP_KEYS = (
    "name",
    "benches",
    "load",
    "params",
    "pause",
    "policy",
    "priority",
    "cpus",
    "mlock",
    "cpu_latency",
    "rt_throttling",
)


@dataclass(frozen=True)
class Board:
    """A board the monitor watches: its name in the spec (its series' name) and the target that reaches it."""

    name: str
    target: str


@dataclass(frozen=True)
class ScheduleStep:
    """One step of the schedule: what a window of it measures, and the pause after it."""

    name: str
    benches: tuple[str, ...]
    load: str  # as --load takes it: "idle", "cpu,net", "cpu:cpus=1:load=50"
    loads: tuple[kinds.LoadSpec, ...]
    config: Config
    params: tuple[ParamSetting, ...]
    pause_s: float = 0.0

    def plan(self) -> dict[str, Any]:
        """What a window of this step measures, as the monitor's stored plan keeps it (the pause, which
        changes when windows are measured but not what, is left out)."""
        return {
            "name": self.name,
            "benches": list(self.benches),
            "load": self.load,
            # As JSON gives it back from the store: a list, not a tuple, of CPUs.
            "config": {
                **{key: value for key, value in dataclasses.asdict(self.config).items() if key != "name"},
                "cpus": list(self.config.cpus),
            },
            "params": [str(setting) for setting in self.params],
        }


@dataclass(frozen=True)
class MonitorSpec:
    """A parsed monitor spec."""

    name: str
    window_s: float
    windows: int | None  # windows per board before the monitor ends by itself; None: for ever
    settle_s: float
    label: str | None
    raw: int | None
    backoff_s: float
    backoff_max_s: float
    boards: tuple[Board, ...]
    steps: tuple[ScheduleStep, ...]
    sections: dict[str, object] = dataclasses.field(default_factory=dict)
    series_window_s: float = DEFAULT_SERIES_WINDOW_S

    def step_of(self, window: int) -> ScheduleStep:
        """The step window number ``window`` (from 1) of any board measures."""
        return self.steps[(window - 1) % len(self.steps)]

    def board(self, name: str) -> Board:
        """The board of this name; RtscopeError when the spec has none."""
        for board in self.boards:
            if board.name == name:
                return board
        raise RtscopeError(f"monitor {self.name} has no board named {name!r}")

    def plan(self) -> dict[str, Any]:
        """What the monitor measures, stored with it: the series part (the window, its series window, the
        settle time, raw samples and the steps), which a restarted monitor must keep, and its boards'
        targets, which it may change (rtscope.execution.monitor.open_monitor)."""
        return {
            "window_s": self.window_s,
            "series_window_s": self.series_window_s,
            "settle_s": self.settle_s,
            "raw": self.raw,
            "steps": [step.plan() for step in self.steps],
            "boards": {board.name: board.target for board in self.boards},
        }


def load(path: Path) -> MonitorSpec:
    """Read and check the spec at ``path``; RtscopeError "PATH:LINE: KEY: what is wrong" when it is bad."""
    text, table = read_toml(path, "monitor spec")
    return _Reader(path, text).monitor(table)


class _Reader(SpecReader):
    """A monitor spec's checks, with a campaign spec's helpers (and so its words for each mistake)."""

    def monitor(self, table: dict[str, Any]) -> MonitorSpec:
        self._known_keys(table, (*_TOP_KEYS, *SECTION_PARSERS), None)
        name = self._required(table, "name", str, None)
        if not is_name(name):
            self._fail(None, "name", f"{name!r} is not a name (letters, digits, '_', '.', '-')")
        backoff_s = self._checked(table, "backoff", values.duration, None, default=DEFAULT_BACKOFF_S)
        backoff_max_s = self._checked(table, "backoff_max", values.duration, None, default=DEFAULT_BACKOFF_MAX_S)
        if backoff_max_s < backoff_s:
            self._fail(None, "backoff_max", f"must be at least backoff ({backoff_s:g} s), not {backoff_max_s:g} s")
        window_s = self._checked(table, "window", values.duration, None, default=DEFAULT_WINDOW_S)
        # A window shorter than the default series window (a test's) has a series of one window by default.
        series_default = min(DEFAULT_SERIES_WINDOW_S, window_s)
        return MonitorSpec(
            name=name,
            window_s=window_s,
            series_window_s=self.series_window(table, window_s, "window", default=series_default),
            windows=self._checked(table, "windows", values.positive, None, default=None),
            settle_s=self._checked(table, "settle", values.duration, None, default=DEFAULT_SETTLE_S),
            label=self._optional(table, "label", str, None),
            raw=self._checked(table, "raw", values.non_negative, None, default=None),
            backoff_s=backoff_s,
            backoff_max_s=backoff_max_s,
            boards=self._boards(table.get("board")),
            steps=self._steps(table.get("step")),
            sections={
                section: parse(self._table(table[section], section), self._where(section))
                for section, parse in SECTION_PARSERS.items()
                if section in table
            },
        )

    def _boards(self, entries: Any) -> tuple[Board, ...]:
        entries = self._blocks(entries, "board")
        found: list[Board] = []
        for number, entry in enumerate(entries):
            where = ("board", number)
            self._known_keys(entry, _BOARD_KEYS, where)
            name = self._required(entry, "name", str, where)
            if not is_name(name):
                self._fail(where, "name", f"{name!r} is not a name (letters, digits, '_', '.', '-')")
            if name in (board.name for board in found):
                self._fail(where, "name", f"board {name!r} is named twice")
            target = self._required(entry, "target", str, where)
            try:
                several = boards(target) > 1
            except RtscopeError as error:
                self._fail(where, "target", str(error))
            if several:
                # One board is one series: N boards of a tag are N [[board]] blocks, each with its name.
                self._fail(where, "target", "names several boards (count above 1): give each a [[board]] of its own")
            found.append(Board(name, target))
        return tuple(found)

    def _steps(self, entries: Any) -> tuple[ScheduleStep, ...]:
        entries = self._blocks(entries, "step")
        found: list[ScheduleStep] = []
        for number, entry in enumerate(entries):
            where = ("step", number)
            self._known_keys(entry, _STEP_KEYS, where)
            name = self.block_name(entry, where, "step", len(entries), [step.name for step in found])
            load = self._optional(entry, "load", str, where) or "idle"
            try:
                loads = kinds.parse([load])
            except RtscopeError as error:
                self._fail(where, "load", str(error))
            found.append(
                ScheduleStep(
                    name=name,
                    benches=tuple(self._list_of_str(entry, "benches", where, required=True)),
                    load=load,
                    loads=loads,
                    config=self.config(entry, where, name),
                    params=tuple(s for [s] in self._params(entry.get("params", {}), where, axes=False)),
                    pause_s=self._checked(entry, "pause", _pause, where, default=0.0),
                )
            )
        return tuple(found)

    def _blocks(self, entries: Any, key: str) -> list[dict[str, Any]]:
        if entries is None:
            self._fail(None, key, f"missing: at least one [[{key}]] block", line_of_table=True)
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            self._fail(None, key, f"must be tables: [[{key}]] blocks")
        return entries

    def _table(self, value: Any, key: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self._fail(None, key, f"must be a table: [{key}]")
        return value

    def _where(self, table: str) -> str:
        line = self._line(table, None)
        return f"{self.path}:{line}: {table}" if line else f"{self.path}: {table}"


def _pause(text: str) -> float:
    """A pause: a duration, or zero ("0", "0s")."""
    if text.strip() in ("0", "0s", "0.0"):
        return 0.0
    return values.duration(text)
