"""Plots as inline SVG, drawn in Python for rtscope report: numeric axes (linear or logarithmic),
category bands, and the few marks the report needs — lines, bars, boxes and reference lines.

A :class:`Chart` renders to one ``<svg>`` element that needs nothing else: no script, no font, no
style sheet from elsewhere. Every text that goes into it is escaped here, so callers pass plain text.
"""

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# Okabe–Ito colours, which stay apart for colour-blind readers; a chart shows at most this many series.
PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#999999")
WIDTH = 760
HEIGHT = 280
BAND_HEIGHT = 34  # per category of a chart whose categories run down the y axis
_CHAR_PX = 7  # about the width of one character of the 12 px labels: margins are sized with it
_TOP, _RIGHT, _BOTTOM = 14, 18, 46
_ROW = 13  # px between the lines of labels stacked at a plot's top
_LONGEST_NAME = 36  # characters of a category name; a longer one is cut, whole in its tooltip
Point = tuple[float, float]


@dataclass(frozen=True)
class Axis:
    """A numeric axis from ``low`` to ``high``, linear or, with ``log``, logarithmic; ``tick_text``
    writes a tick's value. A range of one value is widened around it."""

    low: float
    high: float
    label: str
    tick_text: Callable[[float], str]
    log: bool = False

    def __post_init__(self) -> None:
        if self.log and self.low <= 0:
            raise ValueError(f"a logarithmic axis needs a positive range, not one from {self.low}")
        if self.high <= self.low:
            low, high = (self.low / 2, self.high * 2) if self.log else (self.low - 1, self.high + 1)
            object.__setattr__(self, "low", low)
            object.__setattr__(self, "high", high)

    def scale(self, start: float, end: float) -> Callable[[float], float]:
        """Where a value lies on the axis drawn from pixel ``start`` (low) to ``end`` (high); values
        outside the range lie at its ends."""
        low, high = self.low, self.high
        if self.log:
            per_unit = (end - start) / math.log(high / low)
            return lambda value: start + per_unit * math.log(min(max(value, low), high) / low)
        per_unit = (end - start) / (high - low)
        return lambda value: start + per_unit * (min(max(value, low), high) - low)

    def ticks(self) -> list[tuple[float, str]]:
        """The values and texts of the ticks: powers of ten on a log axis (1-2-5 steps when that gives
        fewer than three, then plain steps), 1-2-5 steps on a linear one."""
        if self.log:
            exponents = range(math.floor(math.log10(self.low)), math.ceil(math.log10(self.high)) + 1)
            for mantissas in ((1,), (1, 2, 5)):
                inside = [
                    v
                    for v in (m * 10.0**e for e in exponents for m in mantissas)
                    if self.low <= v <= self.high * (1 + 1e-9)
                ]
                if len(inside) >= 3:
                    return [(v, self.tick_text(v)) for v in inside]
        return [(v, self.tick_text(v)) for v in _linear_ticks(self.low, self.high)]


@dataclass(frozen=True)
class Bands:
    """A category axis: one band per name, in order, named at its ticks and not labelled."""

    names: Sequence[str]

    def band(self, index: int, start: float, end: float) -> tuple[float, float]:
        """The pixels of band ``index``, less a gap on either side, on an axis from ``start`` to ``end``."""
        size = (end - start) / len(self.names)
        first = start + index * size
        return first + 0.15 * size, first + 0.85 * size


class Chart:
    """One plot: axes in a frame and the marks added by the methods below, rendered by :meth:`svg`.

    Marks take data values on a numeric axis and a band's index on a category axis.
    """

    def __init__(self, x: Axis | Bands, y: Axis | Bands, *, title: str, width: int = WIDTH, height: int = HEIGHT):
        self.x, self.y, self.title = x, y, title
        self.width, self.height = width, height
        y_texts = y.names if isinstance(y, Bands) else [text for _, text in y.ticks()]
        self.left = 30 + _CHAR_PX * max((len(_cut(text)) for text in y_texts), default=0)
        self.right, self.bottom = width - _RIGHT, height - _BOTTOM
        self._x = x.scale(self.left, self.right) if isinstance(x, Axis) else _categories
        self._y = y.scale(*self._y_span()) if isinstance(y, Axis) else _categories
        self._marks: list[str] = []

    def line(self, points: Sequence[Point | None], colour: str, *, title: str) -> None:
        """A line through ``points``, broken where a point is None; a point alone is a dot."""
        segments: list[list[Point]] = [[]]  # in pixels
        for point in points:
            if point is None:
                segments.append([])
            else:
                segments[-1].append((self._x(point[0]), self._y(point[1])))
        path = " ".join(
            "M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in segment) for segment in segments if len(segment) > 1
        )
        if path:
            self._marks.append(
                f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="1.5" '
                f'stroke-linejoin="round">{_title(title)}</path>'
            )
        self._marks += [
            f'<circle cx="{_px(x)}" cy="{_px(y)}" r="2.5" fill="{colour}">{_title(title)}</circle>'
            for [(x, y)] in (segment for segment in segments if len(segment) == 1)
        ]

    def reference(self, value: float, text: str) -> None:
        """A dashed line across the plot at ``value`` of the y axis, labelled ``text``."""
        y = self._y(value)
        self._marks.append(
            _line(self.left, self.right, y, y, 'stroke="#444" stroke-dasharray="5 4"')
            + f'<text x="{self.right - 4}" y="{_px(y - 4)}" text-anchor="end" '
            f'class="note">{html.escape(text)}</text>'
        )

    def interval(self, band: int, low: float, high: float, point: float, colour: str, *, title: str) -> None:
        """In band ``band`` of the y axis, a line from ``low`` to ``high`` of the x axis with a square at
        ``point``: an effect and its confidence interval, as a forest plot draws them."""
        if not isinstance(self.y, Bands):
            raise TypeError("intervals lie in the bands of a category y axis")
        top, bottom = self.y.band(band, *self._y_span())
        middle = (top + bottom) / 2
        left, right, at = self._x(low), self._x(high), self._x(point)
        stroke = f'stroke="{colour}" stroke-width="2"'
        self._marks.append(
            f"<g>{_title(title)}{_line(left, right, middle, middle, stroke)}"
            f'<rect x="{_px(at - 4)}" y="{_px(middle - 4)}" width="8" height="8" fill="{colour}"/></g>'
        )

    def vertical(
        self, value: float, text: str, *, title: str | None = None, colour: str = "#444", row: int = 0
    ) -> None:
        """A dashed line down the plot at ``value`` of the x axis, labelled ``text`` at its top, ``row``
        lines down (marks close together stagger their labels); with ``title``, the line and label in a
        group whose tooltip it is."""
        x = self._x(value)
        mark = _line(x, x, _TOP, self.bottom, f'stroke="{colour}" stroke-dasharray="5 4"') + (
            f'<text x="{_px(x + 4)}" y="{_TOP + 10 + _ROW * row}" class="note">{html.escape(text)}</text>'
        )
        self._marks.append(mark if title is None else f"<g>{_title(title)}{mark}</g>")

    def bars(self, band: int, bars: Sequence[tuple[float, str, str] | None], *, base: float) -> None:
        """Side by side in band ``band`` of the x axis, one bar per slot from ``base`` to its value;
        a bar is (value, colour, tooltip), an empty slot None."""
        if not isinstance(self.x, Bands):
            raise TypeError("bars stand on a category x axis")
        start, end = self.x.band(band, self.left, self.right)
        size = (end - start) / len(bars)
        for slot, bar in enumerate(bars):
            if bar is not None:
                value, colour, tooltip = bar
                top, bottom = sorted((self._y(value), self._y(base)))
                self._marks.append(
                    f'<rect x="{_px(start + slot * size)}" y="{_px(top)}" width="{_px(size)}" '
                    f'height="{_px(max(bottom - top, 1.0))}" fill="{colour}">'
                    f"{_title(tooltip)}</rect>"
                )

    def box(
        self,
        band: int,
        whiskers: tuple[float, float],
        box: tuple[float, float],
        median: float,
        *,
        extreme: float,
        dots: Sequence[float],
        colour: str,
        title: str,
    ) -> None:
        """A horizontal box plot in band ``band`` of the y axis: whiskers from ``whiskers[0]`` to
        ``whiskers[1]``, a box from ``box[0]`` to ``box[1]`` with a thick line at ``median``, a ring at
        ``extreme`` and small dots at ``dots``."""
        if not isinstance(self.y, Bands):
            raise TypeError("boxes lie in the bands of a category y axis")
        top, bottom = self.y.band(band, *self._y_span())
        middle = (top + bottom) / 2
        low, high, box_low, box_high, at_median, at_extreme = map(self._x, (*whiskers, *box, median, extreme))
        marks = [
            _line(low, high, middle, middle, f'stroke="{colour}"'),
            *(_line(end, end, top + 6, bottom - 6, f'stroke="{colour}"') for end in (low, high)),
            (
                f'<rect x="{_px(box_low)}" y="{_px(top)}" width="{_px(max(box_high - box_low, 1.0))}" '
                f'height="{_px(bottom - top)}" fill="{colour}" fill-opacity="0.25" stroke="{colour}"/>'
            ),
            _line(at_median, at_median, top, bottom, f'stroke="{colour}" stroke-width="2.5"'),
            f'<circle cx="{_px(at_extreme)}" cy="{_px(middle)}" r="3.5" fill="none" stroke="{colour}"/>',
            *(f'<circle r="2" cx="{_px(self._x(value))}" cy="{_px(middle)}" fill="#000"/>' for value in dots),
        ]
        self._marks.append(f"<g>{_title(title)}{''.join(marks)}</g>")

    def svg(self) -> str:
        """The chart as one ``<svg>`` element."""
        parts = [
            (
                f'<svg class="plot" width="{self.width}" height="{self.height}" viewBox="0 0 {self.width} '
                f'{self.height}" role="img" aria-label="{html.escape(self.title)}">{_title(self.title)}'
            )
        ]
        for x, text in self._ticks(self.x, self.left, self.right):
            if isinstance(self.x, Axis):
                parts.append(_line(x, x, _TOP, self.bottom, 'class="grid"'))
            parts.append(f'<text x="{_px(x)}" y="{self.bottom + 16}" text-anchor="middle">{_label(text)}</text>')
        for y, text in self._ticks(self.y, *self._y_span()):
            if isinstance(self.y, Axis):
                parts.append(_line(self.left, self.right, y, y, 'class="grid"'))
            parts.append(f'<text x="{self.left - 6}" y="{_px(y + 4)}" text-anchor="end">{_label(text)}</text>')
        parts.append(f'<path class="frame" d="M{self.left},{_TOP} V{self.bottom} H{self.right}"/>')
        if isinstance(self.x, Axis):
            parts.append(
                f'<text x="{_px((self.left + self.right) / 2)}" y="{self.height - 8}" '
                f'text-anchor="middle">{html.escape(self.x.label)}</text>'
            )
        if isinstance(self.y, Axis):
            parts.append(
                f'<text transform="translate(14 {_px((_TOP + self.bottom) / 2)}) rotate(-90)" '
                f'text-anchor="middle">{html.escape(self.y.label)}</text>'
            )
        return "".join([*parts, *self._marks, "</svg>"])

    def _y_span(self) -> tuple[float, float]:
        # Values grow upwards; categories are read downwards, the first at the top.
        return (self.bottom, _TOP) if isinstance(self.y, Axis) else (_TOP, self.bottom)

    @staticmethod
    def _ticks(axis: Axis | Bands, start: float, end: float) -> list[tuple[float, str]]:
        """Pixels and texts of the ticks of ``axis`` drawn from ``start`` to ``end``: a numeric axis's
        ticks, or the middle of each band and its name."""
        if isinstance(axis, Bands):
            return [(sum(axis.band(i, start, end)) / 2, name) for i, name in enumerate(axis.names)]
        pixel = axis.scale(start, end)
        return [(pixel(value), text) for value, text in axis.ticks()]


def _line(x1: float, x2: float, y1: float, y2: float, attributes: str) -> str:
    return f'<line x1="{_px(x1)}" x2="{_px(x2)}" y1="{_px(y1)}" y2="{_px(y2)}" {attributes}/>'


def _categories(value: float) -> float:
    raise TypeError("a category axis has bands, not values")


def tick_number(value: float) -> str:
    """A tick's value as people write it: "0.05", "2", "10,000"."""
    return f"{value:,.6f}".rstrip("0").rstrip(".")


def _linear_ticks(low: float, high: float) -> list[float]:
    """Round values from ``low`` to ``high``, about five steps of 1, 2 or 5 times a power of ten apart."""
    least = (high - low) / 5
    magnitude = 10.0 ** math.floor(math.log10(least))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= least)
    return [n * step for n in range(math.ceil(low / step - 1e-9), math.floor(high / step + 1e-9) + 1)]


def _label(text: str) -> str:
    """A tick label, cut when too long, the whole text in its tooltip."""
    cut = _cut(text)
    return html.escape(cut) + (_title(text) if cut != text else "")


def _cut(text: str) -> str:
    return text if len(text) <= _LONGEST_NAME else text[: _LONGEST_NAME - 1] + "…"


def _title(text: str) -> str:
    return f"<title>{html.escape(text)}</title>"


def _px(value: float) -> str:
    return f"{value:.1f}"
