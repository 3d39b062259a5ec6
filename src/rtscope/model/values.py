"""Text into checked values, for the command line and campaign specs alike: durations, priorities, CPU
lists, bench parameter settings, statistic names; and numbers back into exact text.

Each parser raises argparse.ArgumentTypeError with a message naming what is wrong, which the command line
shows as a one-line error and a campaign spec as one line naming its file, line and key.
"""

import argparse
import math
import re
from dataclasses import dataclass

from rtscope.model.result import STATISTICS

_DURATION = re.compile(r"(?P<number>[-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(?P<unit>ms|s|m|min)?")
_SECONDS_PER_UNIT = {None: 1.0, "s": 1.0, "ms": 1e-3, "m": 60.0, "min": 60.0}
# CPU numbers beyond this are surely typing mistakes, and would make huge sets.
_MAX_CPU = 65535
_CPU_RANGE = re.compile(r"(?P<first>[0-9]+)(?:-(?P<last>[0-9]+))?")
_PARAM = re.compile(
    r"(?:(?P<bench>[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+):)?"  # a dotted bench id and ":", or none
    r"(?P<key>[A-Za-z_][A-Za-z0-9_]*)=(?P<value>.*)"
)
# Statistic names people type, mapped to the summary keys.
_STAT_KEYS = {**{key: key for key in STATISTICS}, **{name: key for key, name in STATISTICS.items()}}


def exact(value: float) -> str:
    """A number in full, without a needless ".0": "5", "0.3", "1000000000000"."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


@dataclass(frozen=True)
class ParamSetting:
    """A ``--param [BENCH:]key=value``: for one bench, or for every bench that has ``key``."""

    bench: str | None
    key: str
    value: str

    def __str__(self) -> str:
        return f"{self.bench}:{self.key}={self.value}" if self.bench else f"{self.key}={self.value}"

    def applies_to(self, bench_id: str) -> bool:
        """Whether this setting names ``bench_id`` or names no bench at all."""
        return self.bench in (None, bench_id)


def duration(text: str) -> float:
    """Seconds from "5", "0.3", "10s", "500ms" or "2m"; must be more than zero."""
    match = _DURATION.fullmatch(text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"bad duration {text!r} (seconds, e.g. 5, 0.5, 500ms, 2m)")
    seconds = float(match["number"]) * _SECONDS_PER_UNIT[match["unit"]]
    if seconds <= 0:
        raise argparse.ArgumentTypeError(f"duration must be more than zero, not {text!r}")
    return seconds


# The shortest series window the probe takes (rtscope-probe run --series-window): lat.wakeup's default
# period; shorter, most windows would hold no sample.
SERIES_WINDOW_MIN_S = 0.001


def series_window(text: str) -> float:
    """A series window: a duration (as ``duration`` takes it) of at least SERIES_WINDOW_MIN_S."""
    seconds = duration(text)
    if seconds < SERIES_WINDOW_MIN_S:
        raise argparse.ArgumentTypeError(f"a series window is at least 1 ms, not {text!r}")
    return seconds


_DAYS = re.compile(r"(?P<number>[0-9]+)\s*(?P<unit>d|w|y)")
_DAYS_PER_UNIT = {"d": 1, "w": 7, "y": 365}


def days(text: str) -> int:
    """Whole days from "30d", "8w" or "1y" (365 days): how long retention keeps a kind of window."""
    match = _DAYS.fullmatch(text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"bad duration {text!r} (whole days, weeks or years, e.g. 30d, 8w, 1y)")
    return int(match["number"]) * _DAYS_PER_UNIT[match["unit"]]


# The priorities of Linux's real-time policies (SCHED_FIFO, SCHED_RR); SCHED_OTHER has only 0.
RT_PRIORITIES = range(1, 100)


def priority(text: str) -> int:
    """A scheduling priority: 0 (SCHED_OTHER's) or a real-time one."""
    value = _integer(text, "priority")
    if value != 0 and value not in RT_PRIORITIES:
        raise argparse.ArgumentTypeError(f"priority must be 0..{RT_PRIORITIES[-1]}, not {value}")
    return value


def non_negative(text: str) -> int:
    """An integer of at least zero."""
    value = _integer(text, "count")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be zero or more, not {value}")
    return value


# What the probe's --seed takes: 32 bits, so that a microcontroller's build reads it as any other.
SEED_MAX = 2**32 - 1


def seed(text: str) -> int:
    """A run's seed: a whole number from 0 to SEED_MAX."""
    value = _integer(text, "seed")
    if not 0 <= value <= SEED_MAX:
        raise argparse.ArgumentTypeError(f"must be 0..{SEED_MAX}, not {value}")
    return value


def positive(text: str) -> int:
    """An integer of at least one."""
    value = _integer(text, "count")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be one or more, not {value}")
    return value


def cpu_list(text: str) -> tuple[int, ...]:
    """CPU numbers from a list such as "0", "0,2" or "0-3,6", ascending and without repeats."""
    cpus: set[int] = set()
    for part in text.split(","):
        match = _CPU_RANGE.fullmatch(part.strip())
        if not match:
            raise argparse.ArgumentTypeError(f"bad CPU list {text!r} (e.g. 0, 0,2 or 0-3)")
        first, last = int(match["first"]), int(match["last"] or match["first"])
        if not first <= last <= _MAX_CPU:
            raise argparse.ArgumentTypeError(f"bad CPU range {part.strip()!r} in {text!r}")
        cpus.update(range(first, last + 1))
    return tuple(sorted(cpus))


def param_setting(text: str) -> ParamSetting:
    """A bench parameter setting, "key=value" or "bench:key=value"."""
    match = _PARAM.fullmatch(text)
    if not match:
        raise argparse.ArgumentTypeError(f"bad parameter {text!r} (key=value or bench:key=value)")
    return ParamSetting(match["bench"], match["key"], match["value"])


_PERCENTAGE = re.compile(r"(?P<number>[-+]?[0-9]*\.?[0-9]+)\s*%?")


def percentage(text: str) -> float:
    """A fraction from a percentage of zero or more: "10%", "2.5 %" or "10" give 0.1, 0.025, 0.1."""
    match = _PERCENTAGE.fullmatch(text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"bad percentage {text!r} (e.g. 10%)")
    value = float(match["number"])
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be zero or more, not {text!r}")
    return value / 100


def statistics(text: str) -> tuple[str, ...]:
    """Summary keys from a comma-separated list of statistic names ("p50,p99.9,max")."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in _STAT_KEYS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown statistic {', '.join(unknown) or repr(text)} (choose from {', '.join(STATISTICS.values())})"
        )
    return tuple(dict.fromkeys(_STAT_KEYS[name] for name in names))


def probability(text: str) -> float:
    """A probability strictly between 0 and 1 ("1e-9", "0.001")."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a probability between 0 and 1 (e.g. 1e-9)")
    return value


def statistic(text: str) -> str:
    """One summary key from a statistic name ("p99.9" gives "p999")."""
    keys = statistics(text)
    if len(keys) != 1:
        raise argparse.ArgumentTypeError(f"name one statistic, not {text!r}")
    return keys[0]


def _integer(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be an integer, not {text!r}") from None
