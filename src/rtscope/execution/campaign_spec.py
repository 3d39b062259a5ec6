"""Campaign specs: a TOML file naming benches, parameters, loads, configurations and repetitions, and
the matrix of cells it expands to.

A cell is one probe run: every bench of the spec, on one target, under one load, with one configuration
and one value of each parameter that has a list of values. Its text ("load=cpu config=fifo80
interval_us=200") names it in the store and in comparisons; the load is always in it, the other axes
when they vary. ``targets`` (a list: "local", "ssh://…") makes the target an axis, measured in parallel;
without it the campaign runs on the command's ``--target``.

Every mistake in a spec is one line naming the file, the line and the key.
"""

import argparse
import dataclasses
import itertools
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from rtscope import files
from rtscope.errors import RtscopeError
from rtscope.loads import kinds
from rtscope.loads.session import DEFAULT_SETTLE_S
from rtscope.model import values
from rtscope.model.values import ParamSetting

# Repetitions of each cell when a spec names none: the fewest at which a verdict finds a 10 % shift of the
# median four times in five where reruns move by 3 % (evaluation/verdict_error_rates.py: 90 % at 5, 50 % at 3).
DEFAULT_REPETITIONS = 5
DEFAULT_DURATION_S = 5.0
_TOP_KEYS = (
    "name",
    "benches",
    "repetitions",
    "duration",
    "settle",
    "loads",
    "label",
    "raw",
    "series_window",
    "params",
    "configs",
    "targets",
)
_CONFIG_KEYS = ("name", "policy", "priority", "cpus", "mlock", "cpu_latency", "rt_throttling")
_POLICIES = ("other", "fifo", "rr")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


@dataclass(frozen=True)
class Config:
    """The real-time configuration of a cell, as ``rtscope run`` takes it."""

    name: str
    policy: str = "fifo"
    priority: int | None = None  # None: run's default for the policy
    cpus: tuple[int, ...] = ()
    mlock: bool = True
    cpu_latency: bool = True
    rt_throttling_off: bool = False  # rt_throttling = "off": lifted for each run of the cell


@dataclass(frozen=True)
class CampaignCell:
    """One point of the matrix: its axes' values (for the text and the result), loads, config, params."""

    axes: tuple[tuple[str, str], ...]
    loads: tuple[kinds.LoadSpec, ...]
    config: Config
    params: tuple[ParamSetting, ...]
    target: str | None = None  # None: the command's --target

    @property
    def text(self) -> str:
        return " ".join(f"{axis}={value}" for axis, value in self.axes)


@dataclass(frozen=True)
class CampaignSpec:
    """A parsed campaign spec and its cells, in the order the matrix expands them."""

    name: str
    benches: tuple[str, ...]
    repetitions: int
    duration_s: float
    settle_s: float
    label: str | None
    raw: int | None
    cells: tuple[CampaignCell, ...]
    targets: tuple[str, ...] = ()  # the spec's targets; none: the command's --target
    series_window_s: float | None = None  # None: the probe's (1 s)

    def plan(self, target: str) -> dict[str, Any]:
        """What the campaign measures on ``target`` (the command's, when the spec names none), as stored
        with it: a resumed campaign must have the same plan (but may have more repetitions)."""
        return {
            "benches": list(self.benches),
            "repetitions": self.repetitions,
            "duration_s": self.duration_s,
            "settle_s": self.settle_s,
            "label": self.label,
            "raw": self.raw,
            "cells": [cell.text for cell in self.cells],
            **({"targets": list(self.targets)} if self.targets else {"target": target}),
            # Only when given: a campaign stored before the key existed resumes with the same plan.
            **({"series_window_s": self.series_window_s} if self.series_window_s is not None else {}),
        }

    def on(self, target: str) -> "CampaignSpec":
        """The spec's cells on one of its targets."""
        return dataclasses.replace(self, cells=tuple(cell for cell in self.cells if cell.target == target))


def load(path: Path) -> CampaignSpec:
    """Read and check the spec at ``path``; RtscopeError "PATH:LINE: KEY: what is wrong" when it is bad."""
    text, table = read_toml(path, "campaign spec")
    return SpecReader(path, text).spec(table)


def is_name(text: str) -> bool:
    """Whether ``text`` can name a campaign, a monitor, a board or a step: letters, digits, '_', '.', '-'."""
    return bool(_NAME.fullmatch(text))


def read_toml(path: Path, what: str) -> tuple[str, dict[str, Any]]:
    """The text of the TOML file at ``path`` and its tables; RtscopeError "PATH:LINE: not TOML: why"."""
    text = files.read_text(path, what=what)
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        # tomllib says "… (at line N, column M)": lead with the place, as every other spec error does.
        match = re.search(r"\(at line (\d+), column \d+\)$", str(error))
        where = f":{match[1]}" if match else ""
        raise RtscopeError(f"{path}{where}: not TOML: {str(error).split(' (at line')[0]}") from None


class SpecReader:
    """Checks a parsed spec, naming the line of each mistake (found again in the text: tomllib keeps
    no positions). A monitor's spec (rtscope.execution.monitor_spec) is read with its helpers too."""

    def __init__(self, path: Path, text: str):
        self.path = path
        self.lines = text.splitlines()

    def spec(self, table: dict[str, Any]) -> CampaignSpec:
        self._known_keys(table, _TOP_KEYS, None)
        name = self._required(table, "name", str, None)
        if not is_name(name):
            self._fail(None, "name", f"{name!r} is not a name (letters, digits, '_', '.', '-')")
        benches = self._list_of_str(table, "benches", None, required=True)
        load_texts = self._list_of_str(table, "loads", None) or ["idle"]
        configs = self._configs(table.get("configs", []))
        param_axes = self._params(table.get("params", {}))
        targets = self._list_of_str(table, "targets", None)
        if len(set(targets)) < len(targets):
            self._fail(None, "targets", "names a target twice")
        cells = []
        # None: the command's --target, where the spec names none.
        cell_targets: list[str | None] = [*targets] if targets else [None]
        for target, load_text, config, params in itertools.product(
            cell_targets, load_texts, configs, itertools.product(*param_axes)
        ):
            axes: list[tuple[str, str]] = [("target", target)] if target is not None and len(targets) > 1 else []
            axes.append(("load", load_text))
            if len(configs) > 1:
                axes.append(("config", config.name))
            axes += [
                (str(setting).partition("=")[0], setting.value)
                for setting, axis in zip(params, param_axes, strict=True)
                if len(axis) > 1
            ]
            cells.append(CampaignCell(tuple(axes), self._loads(load_text), config, tuple(params), target))
        duration_s = self._checked(table, "duration", values.duration, None, default=DEFAULT_DURATION_S)
        return CampaignSpec(
            name=name,
            benches=tuple(benches),
            repetitions=self._checked(table, "repetitions", values.positive, None, default=DEFAULT_REPETITIONS),
            duration_s=duration_s,
            settle_s=self._checked(table, "settle", values.duration, None, default=DEFAULT_SETTLE_S),
            label=self._optional(table, "label", str, None),
            raw=self._checked(table, "raw", values.non_negative, None, default=None),
            cells=tuple(cells),
            targets=tuple(targets),
            series_window_s=self.series_window(table, duration_s, "duration", default=None),
        )

    def series_window(self, table: dict[str, Any], run_s: float, run_key: str, *, default: float | None) -> Any:
        """The ``series_window`` key of ``table``: a duration of at least 1 ms and at most ``run_s``, the
        length of a run that ``run_key`` gave (the probe refuses a window longer than the run)."""
        window_s = self._checked(table, "series_window", values.series_window, None, default=default)
        if window_s is not None and window_s > run_s:
            self._fail(None, "series_window", f"{window_s:g} s is longer than {run_key} ({run_s:g} s)")
        return window_s

    def _loads(self, text: str) -> tuple[kinds.LoadSpec, ...]:
        try:
            return kinds.parse([text])
        except RtscopeError as error:
            self._fail(None, "loads", str(error))

    def _configs(self, entries: Any) -> list[Config]:
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            self._fail(None, "configs", "must be tables: [[configs]] blocks")
        if not entries:
            return [Config("default")]
        configs: list[Config] = []
        for number, entry in enumerate(entries):
            where = ("configs", number)
            self._known_keys(entry, _CONFIG_KEYS, where)
            name = self.block_name(entry, where, "config", len(entries), [c.name for c in configs])
            configs.append(self.config(entry, where, name))
        return configs

    def block_name(self, entry: dict[str, Any], where: Any, kind: str, blocks: int, taken: list[str]) -> str:
        """The name of one of ``blocks`` [[kind]] blocks: its own, or "default" for the only one; a name
        one of the blocks before it (``taken``) has is refused."""
        name: str | None = self._optional(entry, "name", str, where)
        if name is None:
            if blocks > 1:
                self._fail(where, "name", f"each of several {kind}s needs a name", line_of_table=True)
            name = "default"
        if name in taken:
            self._fail(where, "name", f"{kind} {name!r} is named twice")
        return name

    def config(self, entry: dict[str, Any], where: Any, name: str) -> Config:
        """The real-time keys of ``entry`` (policy, priority, cpus, mlock, cpu_latency, rt_throttling) as
        ``rtscope run`` takes them: a campaign's [[configs]] block, a monitor's [[step]]."""
        policy = self._optional(entry, "policy", str, where) or "fifo"
        if policy not in _POLICIES:
            self._fail(where, "policy", f"{policy!r} is not one of {', '.join(_POLICIES)}")
        throttling = self._optional(entry, "rt_throttling", str, where) or "on"
        if throttling not in ("on", "off"):
            self._fail(where, "rt_throttling", f"{throttling!r} is not on or off")
        return Config(
            name=name,
            policy=policy,
            priority=self._checked(entry, "priority", values.priority, where, default=None),
            cpus=self._checked(entry, "cpus", values.cpu_list, where, default=()),
            mlock=self._optional(entry, "mlock", bool, where) is not False,
            cpu_latency=self._optional(entry, "cpu_latency", bool, where) is not False,
            rt_throttling_off=throttling == "off",
        )

    def _params(self, table: Any, where: Any = "params", *, axes: bool = True) -> list[list[ParamSetting]]:
        """One axis per parameter: its settings, one per value (a list gives several; without ``axes``, a
        list is refused: a monitor's step measures one value). ``where``: the table, for messages."""
        if not isinstance(table, dict):
            self._fail(
                None if where == "params" else where,
                "params",
                "must be a table: [params] with KEY = value or [values]" if axes else "must be a table of KEY = value",
            )
        found = []
        for key, value in table.items():
            choices = value if isinstance(value, list) and axes else [value]
            if not choices or not all(isinstance(v, (int, float, str, bool)) for v in choices):
                self._fail(where, key, f"must be a number, a string{' or a non-empty list of them' if axes else ''}")
            try:
                settings = [values.param_setting(f"{key}={_toml_scalar(v)}") for v in choices]
            except argparse.ArgumentTypeError as error:
                self._fail(where, key, str(error))
            found.append(settings)
        return found

    def _required(self, table: dict[str, Any], key: str, kind: type, where: Any) -> Any:
        if key not in table:
            self._fail(where, key, "missing", line_of_table=True)
        return self._optional(table, key, kind, where)

    def _optional(self, table: dict[str, Any], key: str, kind: type, where: Any) -> Any:
        value = table.get(key)
        if value is not None and not isinstance(value, kind):
            self._fail(where, key, f"must be a {_KIND_NAMES[kind]}, not {_toml_scalar(value)!r}")
        return value

    def _list_of_str(self, table: dict[str, Any], key: str, where: Any, *, required: bool = False) -> list[str]:
        if required and key not in table:
            self._fail(where, key, "missing", line_of_table=True)
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self._fail(where, key, "must be a list of strings")
        if required and not value:
            self._fail(where, key, "must name at least one")
        return value

    def _checked(
        self, table: dict[str, Any], key: str, convert: Callable[[str], Any], where: Any, *, default: Any
    ) -> Any:
        """The value of ``key`` through one of the command line's argument types (as text)."""
        if key not in table:
            return default
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            self._fail(where, key, f"must be a number or a string, not {_toml_scalar(value)!r}")
        try:
            return convert(str(value))
        except argparse.ArgumentTypeError as error:
            self._fail(where, key, str(error))

    def _known_keys(self, table: dict[str, Any], known: tuple[str, ...], where: Any) -> None:
        for key in table:
            if key not in known:
                self._fail(where, key, f"unknown key (known: {', '.join(known)})")

    def _fail(self, where: Any, key: str, message: str, *, line_of_table: bool = False) -> NoReturn:
        line = self._line(where, None if line_of_table else key)
        place = f"{self.path}:{line}" if line else str(self.path)
        prefix = f"{where[0]}[{where[1]}]." if isinstance(where, tuple) else f"{where}." if where else ""
        raise RtscopeError(f"{place}: {prefix}{key}: {message}")

    def _line(self, where: Any, key: str | None) -> int | None:
        """The line of ``key`` in the table ``where`` (None: the top; "params"; ("configs", n): the n-th
        [[configs]]), or of the table's header when ``key`` is None; None when it cannot be found."""
        table, index = (where, 0) if not isinstance(where, tuple) else where
        current: str | None = None
        seen: dict[str | None, int] = {}
        for number, line in enumerate(self.lines, start=1):
            header = re.match(r"\s*\[\[?\s*([^\]\s]+)\s*\]\]?", line)
            if header:
                current = header[1]
                seen[current] = seen.get(current, -1) + 1
                if key is None and current == table and seen[current] == index:
                    return number
                continue
            if (
                key is not None
                and current == table
                and seen.get(current, 0) == index
                and re.match(rf"\s*(\"{re.escape(key)}\"|'{re.escape(key)}'|{re.escape(key)})\s*=", line)
            ):
                return number
        return 1 if key is None and table is None else None


_KIND_NAMES = {str: "string", bool: "true or false", int: "whole number"}


def _toml_scalar(value: Any) -> str:
    """A TOML value as the command line would spell it (true/false, not True/False)."""
    return str(value).lower() if isinstance(value, bool) else str(value)
