"""What the report's plots share: axes in a metric's unit, runs split over charts of distinct colours,
legends and the histogram a distribution is read from."""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rtscope.model import result
from rtscope.model.units import Unit
from rtscope.render import svg
from rtscope.render.document import Cell, Cells
from rtscope.render.subjects import Measured, Run

MARGIN = 1.5  # factor of room around the data on a log axis


@dataclass(frozen=True)
class Scale:
    """How figures of a unit are drawn: divided by ``divisor``, the axis saying ``suffix`` ("µs")."""

    divisor: float
    suffix: str

    def __call__(self, value: float) -> float:
        return value / self.divisor

    def axis(self, low: float, high: float, what: str, *, floor: float) -> svg.Axis:
        """A log axis from ``low`` to ``high`` (in the unit) labelled "WHAT, SUFFIX (log scale)"; from
        ``floor`` (the least figure above 0) at the lowest, as a log axis has no 0."""
        low = max(low, floor)
        label = f"{what}, {self.suffix} (log scale)" if self.suffix else f"{what} (log scale)"
        return svg.Axis(self(low), self(max(high, low)), log=True, tick_text=svg.tick_number, label=label)


def scale(unit: Unit, low: float, high: float) -> Scale:
    """The display step of ``unit`` that suits figures from ``low`` to ``high`` (the one of their geometric
    middle: µs for 10 µs to 3 ms); a unit shown in whole numbers is drawn as it is."""
    middle = math.sqrt(max(low, 0) * max(high, 0))
    step = next(((divisor, suffix.strip()) for bound, divisor, suffix in unit.steps if abs(middle) < bound), None)
    return Scale(*step) if step else Scale(1.0, "")


def by_colour(measured: Sequence[Measured]) -> list[list[Measured]]:
    """``measured`` in charts of at most as many runs as there are colours, each run keeping its colour."""
    charts: dict[int, list[Measured]] = {}
    for run, metric_doc in measured:
        charts.setdefault(run.index // len(svg.PALETTE), []).append((run, metric_doc))
    return list(charts.values())


def names(measured: Sequence[Measured]) -> str:
    """ "A, B, C": the names of the runs."""
    return ", ".join(run.name for run, _ in measured)


def legend(runs: Sequence[Run]) -> Cells:
    """Each run's colour and caption."""
    return tuple(Cell(run.caption, swatch=run.colour) for run in runs)


def samples(metric_doc: dict[str, Any]) -> int:
    """How many samples a metric's histogram holds, those beyond its buckets too."""
    histogram = metric_doc["histogram"]
    buckets: list[list[int]] = histogram["buckets"]
    overflow: int = histogram["overflow"]
    return sum(count for _, _, count in buckets) + overflow


def buckets(metric_doc: dict[str, Any]) -> list[tuple[float, float, int]]:
    """A metric's histogram buckets as (lower bound, width, samples), bounds in the metric's unit."""
    step = result.histogram_step(metric_doc)
    return [(lower * step, width * step, count) for lower, width, count in metric_doc["histogram"]["buckets"]]
