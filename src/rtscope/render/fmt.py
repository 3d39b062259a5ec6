"""Text formatting: numbers, durations, times and aligned tables, with optional colour."""

import os
import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TextIO

from rtscope.model import units
from rtscope.model.units import significant

MISSING = units.MISSING
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def duration(ns: float | None) -> str:
    """A duration given in nanoseconds, in the unit that suits it: "845 ns", "12.3 µs", "4.56 ms", "1.23 s".

    Three significant digits. Below 1 µs trailing zeros are dropped ("20 ns", not "20.0 ns"): samples
    are whole nanoseconds, so a zero after the point would claim precision there is not.
    None (a statistic the probe could not compute) shows as "—".
    """
    return units.NS.format(ns)


def seconds(value: float) -> str:
    """A duration given in seconds, formatted like :func:`duration`."""
    return duration(value * 1e9)


def clock_time(value: float) -> str:
    """A span of seconds as people say it on a clock: "42 s", "4 min 10 s", "3 h 5 min"."""
    whole = round(value)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s" if whole % 60 else f"{whole // 60} min"
    return f"{whole // 3600} h {whole % 3600 // 60} min" if whole % 3600 // 60 else f"{whole // 3600} h"


def count(value: int | None) -> str:
    """An integer with thousands separators ("1,234,567"); None shows as "—"."""
    return MISSING if value is None else f"{value:,}"


def figure(value: float | None, unit: str) -> str:
    """A statistic of a metric in its unit (see rtscope.model.units): "12.3 µs", "1,234", "4.56 %"."""
    return units.get(unit).format(value)


def below_resolution(step: float, *, short: bool = False) -> str:
    """A figure less than one step of the clock (model.result.below_resolution), as what it is: "< 40 ns
    (below the clock's resolution)", not as a measured 0; ``short``: "< 40 ns", where a note says why."""
    return f"< {duration(step)}" + ("" if short else " (below the clock's resolution)")


def ratio(value: float | None) -> str:
    """A ratio such as "1.23×"; None (nothing to divide) shows as "—"."""
    return MISSING if value is None else f"{significant(value)}×"


def local_time(utc: str, *, with_seconds: bool = False) -> str:
    """A result timestamp ("2024-05-01T12:00:03.5Z") in local time: "2024-05-01 14:00" (or with seconds)."""
    moment = datetime.fromisoformat(utc).astimezone()
    return moment.strftime("%Y-%m-%d %H:%M:%S" if with_seconds else "%Y-%m-%d %H:%M")


def visible_width(text: str) -> int:
    """How many columns ``text`` takes on a terminal, colour codes excluded."""
    return len(_ANSI.sub("", text))


def blocks(groups: Iterable[list[str]]) -> list[str]:
    """The lines of each group in turn, with a blank line between groups."""
    lines: list[str] = []
    for group in groups:
        lines += ["", *group] if lines else group
    return lines


def table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str) -> list[str]:
    """Lines of a table with a header line; see :func:`columns`."""
    return columns([header, *rows], align)


def columns(rows: Sequence[Sequence[str]], align: str) -> list[str]:
    """Lines of aligned columns: ``align`` has one letter per column, "l" (text) or "r" (numbers).

    Columns are separated by two spaces; trailing spaces are dropped. Every row has len(align) cells.
    """
    if any(len(row) != len(align) for row in rows):
        raise ValueError(f"every row must have {len(align)} cells, as align {align!r} says")
    widths = [max(visible_width(cell) for cell in column) for column in zip(*rows, strict=True)]
    return [_table_line(cells, widths, align) for cells in rows]


def _table_line(cells: Sequence[str], widths: Sequence[int], align: str) -> str:
    padded = []
    for cell, width, side in zip(cells, widths, align, strict=True):
        padding = " " * (width - visible_width(cell))
        padded.append(padding + cell if side == "r" else cell + padding)
    return "  ".join(padded).rstrip()


class Style:
    """Colour for terminal output; plain text when disabled (output not a TTY, or NO_COLOR set)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    @classmethod
    def for_stream(cls, stream: TextIO) -> "Style":
        """Colour only for a terminal, and only when the user has not asked for none (no-color.org)."""
        return cls(stream.isatty() and not os.environ.get("NO_COLOR"))

    def warn(self, text: str) -> str:
        """Text that needs the reader's attention (warnings, differences), in yellow."""
        return self._paint(text, "33")

    def bad(self, text: str) -> str:
        """Text that marks something wrong (invalid metrics, failed benches), in red."""
        return self._paint(text, "31")

    def good(self, text: str) -> str:
        """Text that marks something shown to be so (a real difference), in green."""
        return self._paint(text, "32")

    def muted(self, text: str) -> str:
        """Text of little weight (a negligible or untold difference), dimmed."""
        return self._paint(text, "2")

    def heading(self, text: str) -> str:
        """A section heading, in bold."""
        return self._paint(text, "1")

    def _paint(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text
