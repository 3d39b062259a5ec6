"""The units a metric can be in: how a figure is shown and which way is better, in one place.

A result document names each metric's unit (format 4: ``ns``, ``count``, ``ratio``, ``percent``,
``bytes/s``); formats 1 to 3 knew only ``ns`` and ``count``. Tables, plots, ``compare``, ``check`` and the
exports ask the unit instead of branching on its name, so a family of benches with a new unit needs no
new code there. ``cycles`` is not a document unit: the operation table shows cycle-counter ticks in it.
"""

import math
from dataclasses import dataclass

MISSING = "—"


def significant(value: float, digits: int = 3) -> str:
    """``value`` rounded to ``digits`` significant digits, trailing zeros kept ("1.20", "123", "1230")."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    rounded = float(f"{value:.{digits - 1}e}")
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(rounded))))
    return f"{rounded:.{decimals}f}"


@dataclass(frozen=True)
class Unit:
    """A unit: its name in documents, what it measures, which way is better and how it is shown.

    ``steps`` are (upper bound, divisor, suffix): a value is shown in the first step whose bound its
    magnitude is below, divided by the divisor, to three significant digits. ``whole``: shown as a whole
    number with thousands separators instead (counts, cycles).
    """

    name: str
    quantity: str  # what it measures, in words ("time", "throughput" …)
    lower_is_better: bool
    steps: tuple[tuple[float, float, str], ...] = ()
    whole: bool = False
    trim_first_step: bool = False  # "20 ns", not "20.0 ns": samples are whole steps, no digits after the point

    def format(self, value: float | None) -> str:
        """``value`` in this unit as people read it ("12.3 µs", "1,234", "4.56 %", "118 MB/s"); "—" for None."""
        if value is None:
            return MISSING
        if self.whole:
            return f"{round(value):,}"
        # Round first so that 999.7 ns becomes "1.00 µs", not "1000 ns".
        rounded = float(significant(value))
        for index, (bound, divisor, suffix) in enumerate(self.steps):
            if abs(rounded) < bound:
                digits = significant(rounded / divisor)
                if index == 0 and self.trim_first_step and "." in digits:
                    digits = digits.rstrip("0").rstrip(".")
                return f"{digits}{suffix}"
        raise AssertionError("unreachable: the last step has no upper bound")

    def worse_by(self, baseline: float, value: float) -> float:
        """How much worse ``value`` is than ``baseline``, as a fraction of it (negative: better; inf: from 0)."""
        if baseline == 0:
            return math.inf if (value > 0) == self.lower_is_better and value != 0 else 0.0
        change = value / baseline - 1
        return change if self.lower_is_better else -change


_TIME_STEPS = ((1e3, 1.0, " ns"), (1e6, 1e3, " µs"), (1e9, 1e6, " ms"), (math.inf, 1e9, " s"))
# Throughput stays in MB/s from 1 MB/s up, as crypto benchmarks (wolfCrypt's, openssl speed) print every row
# in one unit: a column of boards reads "950 MB/s" beside "2480 MB/s", not beside "2.48 GB/s".
_BYTES_STEPS = ((1e3, 1.0, " B/s"), (1e6, 1e3, " kB/s"), (math.inf, 1e6, " MB/s"))

NS = Unit("ns", "time", lower_is_better=True, steps=_TIME_STEPS, trim_first_step=True)
COUNT = Unit("count", "iterations", lower_is_better=False, whole=True)
RATIO = Unit("ratio", "ratio", lower_is_better=True, steps=((math.inf, 1.0, ""),))
PERCENT = Unit("percent", "percentage", lower_is_better=True, steps=((math.inf, 1.0, " %"),))
BYTES_PER_S = Unit("bytes/s", "throughput", lower_is_better=False, steps=_BYTES_STEPS)
CYCLES = Unit("cycles", "cycle-counter ticks", lower_is_better=True, whole=True)

UNITS = {unit.name: unit for unit in (NS, COUNT, RATIO, PERCENT, BYTES_PER_S, CYCLES)}
# The units a result document may name: the schema of the current format enumerates exactly these.
DOCUMENT_UNITS = ("ns", "count", "ratio", "percent", "bytes/s")


def get(name: str) -> Unit:
    """The unit called ``name``; KeyError for a name no document or table uses."""
    return UNITS[name]
