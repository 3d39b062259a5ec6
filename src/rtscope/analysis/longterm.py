"""The long-term picture of a metric over many windows — a monitor's, or any stored runs — as the labs
that watch boards for months publish it (OSADL's latency plots): per series (a board, and a step of its
schedule where it alternates idle and load) the histogram cumulated over every window, the worst sample
of each window over time with the kernel releases where they change, the change points of the series
(rtscope.analysis.changes), and a table row: windows, samples, worst, p99.99 and the last change.

A run's board is its monitor's (``doc["monitor"]["board"]``), else its target's name, else its host's; its
step is the monitor's schedule step ("" for a run that is not a monitor's). The cumulated histogram is the
exact sum of the windows' buckets (a retention-merged window's are the exact merge of its windows), its
maximum the worst window's, both as measured (the probe's histograms hold times as measured); the change
points are found in what the store keeps of each window (overhead-adjusted p50, p99 and max), as
`rtscope changes` finds them.

Windows are read one document at a time (:class:`Collector`): a board-year after retention is some
20,000 documents, which are never held at once; each bucket list is summed in numpy, in batches. Parsing
the documents is most of the cost, so of a document's text only what the picture needs is parsed
(:func:`read`: the run, system, target and monitor objects and the wanted metrics' own), the whole only
where that is not certain.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rtscope.analysis import changes
from rtscope.analysis.changes import ChangePoint
from rtscope.analysis.trend import Point
from rtscope.model import result, units

if TYPE_CHECKING:
    import numpy as np

# The quantile the table gives beside the worst: OSADL's plots read the tail at 10⁻⁴.
TAIL_QUANTILE = 0.9999
# The statistics whose steps are looked for, as `rtscope changes` does by default; where higher is better
# only p50 (a throughput's p99 and max are its good side).
CHANGE_STATISTICS = ("p50", "p99", "max")
# Bucket lists summed at once: enough that numpy's call costs little, few enough to hold (about 300
# buckets of 24 bytes per window).
_BATCH = 512


@dataclass(frozen=True)
class Window:
    """What the picture keeps of one window (a stored run): where it lies, what it measured of the metric."""

    run_id: str
    started: str
    finished: str
    board: str
    step: str
    kernel: str
    windows: int  # measured windows it holds: 1, or N once retention merged N
    samples: int
    worst: float  # the largest sample, as measured
    label: str | None
    hostname: str
    time_base: str
    adjusted: tuple[float | None, ...]  # CHANGE_STATISTICS, overhead-adjusted (as the store keeps them)

    def point(self, stat: str) -> Point:
        """The window as a trend point of ``stat`` (what rtscope.analysis.changes looks at)."""
        value = self.adjusted[CHANGE_STATISTICS.index(stat)]
        return Point(self.run_id, self.started, self.label, self.hostname, self.kernel, True, value, self.time_base)


@dataclass(frozen=True)
class Cumulated:
    """A histogram summed over windows: per bucket its lowest value, width and samples (ascending, in the
    metric's unit), the samples beyond every bucket, and the least and largest sample of all."""

    lowest: tuple[float, ...]
    widths: tuple[float, ...]
    counts: tuple[int, ...]
    step: float  # one histogram step in the metric's unit
    overflow: int
    least: float
    worst: float

    @property
    def samples(self) -> int:
        """Every sample, those beyond the buckets too."""
        return sum(self.counts) + self.overflow

    def buckets(self) -> list[tuple[float, float, int]]:
        """(lower bound, width, samples) of each bucket, as rtscope.render.plots.buckets gives a run's."""
        return list(zip(self.lowest, self.widths, self.counts, strict=True))

    def quantile(self, q: float) -> float:
        """The ``q`` quantile as the probe reads one from its histogram: the middle of the bucket holding
        rank ⌈q·n⌉, kept within the least and largest sample (so a rank beyond the buckets is the largest)."""
        rank = max(1, math.ceil(q * self.samples))
        seen = 0
        for lowest, width, count in zip(self.lowest, self.widths, self.counts, strict=True):
            seen += count
            if seen >= rank:
                return min(max(lowest + (width - self.step) / 2, self.least), self.worst)
        return self.worst


@dataclass(frozen=True)
class Release:
    """A kernel release a board's windows changed to, at the first window that ran it."""

    started: str
    kernel: str
    previous: str
    run_id: str


@dataclass(frozen=True)
class BoardSeries:
    """One board's windows of one schedule step, in time order, with their cumulated histogram (None
    when no window has a bucket) and the change points found in them."""

    board: str
    step: str
    windows: tuple[Window, ...]
    histogram: Cumulated | None
    changes: tuple[ChangePoint, ...] = ()

    @property
    def measured(self) -> int:
        """The windows measured (a merged window counts as the windows it holds)."""
        return sum(window.windows for window in self.windows)

    @property
    def samples(self) -> int:
        return sum(window.samples for window in self.windows)

    @property
    def worst(self) -> Window:
        """The window with the largest sample (the first of equals)."""
        return max(self.windows, key=lambda window: window.worst)

    @property
    def tail(self) -> float | None:
        """p99.99 of every sample, from the cumulated histogram; None without one."""
        return None if self.histogram is None else self.histogram.quantile(TAIL_QUANTILE)

    @property
    def last_change(self) -> ChangePoint | None:
        """The latest change point; of several at one window (p50, p99, max), the largest step."""
        return max(
            self.changes,
            key=lambda change: (change.first_after.started, abs(math.log(change.step.ratio))),
            default=None,
        )

    @property
    def name(self) -> str:
        """ "rpi4", or "rpi4 · cpu" for a step of a schedule."""
        return f"{self.board} · {self.step}" if self.step else self.board


@dataclass(frozen=True)
class BoardPicture:
    """A board's series (a step each, in order of first window) and the kernel releases it changed to."""

    name: str
    series: tuple[BoardSeries, ...]
    first_kernel: str
    releases: tuple[Release, ...]

    @property
    def windows(self) -> list[Window]:
        """Every window of the board, in time order."""
        return sorted((w for s in self.series for w in s.windows), key=lambda w: (w.started, w.run_id))


@dataclass(frozen=True)
class Picture:
    """A metric's long-term picture: its unit, its boards (in order of first window), and the stored runs
    of it left out: interrupted (a monitor measures such a window again), or with the metric invalid."""

    metric: str
    unit: units.Unit
    boards: tuple[BoardPicture, ...]
    interrupted: int = 0
    invalid: int = 0

    @property
    def series(self) -> list[BoardSeries]:
        return [series for board in self.boards for series in board.series]

    @property
    def first(self) -> str:
        """When the first window started."""
        return min(w.started for s in self.series for w in s.windows)

    @property
    def last(self) -> str:
        """When the last window finished."""
        return max(w.finished for s in self.series for w in s.windows)


@dataclass
class _Sum:
    """A series being read: its windows, and its buckets as numpy rows [lower, width, count] in histogram
    steps, summed whenever _BATCH lists have come."""

    step: float
    windows: list[Window] = field(default_factory=list)
    pending: list[list[list[int]]] = field(default_factory=list)
    summed: np.ndarray | None = None
    overflow: int = 0
    least: float = math.inf

    def add(self, buckets: list[list[int]]) -> None:
        if buckets:
            self.pending.append(buckets)
        if len(self.pending) >= _BATCH:
            self.reduce()

    def reduce(self) -> np.ndarray:
        """Every bucket so far, one row per (lower, width), ascending."""
        import numpy as np

        # One fromiter over the batch's lists flattened: several times faster than asarray per window.
        size = sum(len(b) for b in self.pending)
        flat = itertools.chain.from_iterable(itertools.chain.from_iterable(self.pending))
        parts = [np.fromiter(flat, dtype=np.int64, count=3 * size).reshape(-1, 3)] if size else []
        if self.summed is not None:
            parts.append(self.summed)
        self.pending = []
        if not parts:
            summed: np.ndarray = np.zeros((0, 3), dtype=np.int64)
        else:
            rows = np.concatenate(parts)
            # Sorted by (lower, width), then the counts of each run of equal bounds added: np.unique over
            # rows sorts them as bytes, ten times slower.
            rows = rows[np.lexsort((rows[:, 1], rows[:, 0]))]
            starts = np.flatnonzero(np.r_[True, np.any(rows[1:, :2] != rows[:-1, :2], axis=1)])
            summed = np.column_stack([rows[starts, :2], np.add.reduceat(rows[:, 2], starts)])
        self.summed = summed
        return summed


class Collector:
    """Reads documents one at a time and keeps what the pictures of ``metrics`` need (every metric of
    samples the documents have, when None); :meth:`pictures` makes them."""

    def __init__(self, metrics: Iterable[str] | None = None) -> None:
        self._wanted = None if metrics is None else set(metrics)
        self._sums: dict[str, dict[tuple[str, str, str], _Sum]] = {}  # metric → (monitor, board, step) → sum
        self._units: dict[str, units.Unit] = {}
        self._interrupted: dict[str, int] = {}
        self._invalid: dict[str, int] = {}

    def add(self, doc: dict[str, Any]) -> None:
        """One stored run's document."""
        for metric_doc in doc["metrics"]:
            metric = metric_doc["id"]
            if (self._wanted is not None and metric not in self._wanted) or not metric_doc.get("histogram"):
                continue
            if result.is_periodic(metric_doc):
                continue
            self._units.setdefault(metric, result.unit(metric_doc))
            if doc["run"]["status"] == "interrupted":
                self._interrupted[metric] = self._interrupted.get(metric, 0) + 1
                continue
            if not metric_doc["valid"]:
                self._invalid[metric] = self._invalid.get(metric, 0) + 1
                continue
            self._add_window(doc, metric_doc)

    def _add_window(self, doc: dict[str, Any], metric_doc: dict[str, Any]) -> None:
        stats, histogram = metric_doc["stats"], metric_doc["histogram"]
        if not stats["count"]:
            return
        monitor = doc.get("monitor")
        key = (monitor["name"], monitor["board"], monitor["step"]) if monitor else ("", board_of(doc), "")
        step = result.histogram_step(metric_doc)
        summing = self._sums.setdefault(metric_doc["id"], {}).setdefault(key, _Sum(step))
        if step != summing.step:
            # Buckets of different steps do not line up; a board's probe does not change its step.
            raise ValueError(
                f"{metric_doc['id']} of run {doc['run']['id']} has histogram steps of {step}, not {summing.step}"
            )
        adjusted = result.summary(metric_doc)
        summing.windows.append(
            Window(
                run_id=doc["run"]["id"],
                started=doc["run"]["started"],
                finished=doc["run"]["finished"],
                board=key[1],
                step=key[2],
                kernel=doc["system"]["kernel_release"],
                windows=monitor["windows"] if monitor else 1,
                samples=stats["count"],
                worst=float(stats["max"]),
                label=doc["run"]["label"],
                hostname=doc["system"]["hostname"],
                time_base=result.time_base_text(doc),
                adjusted=tuple(adjusted.get(stat) for stat in CHANGE_STATISTICS),
            )
        )
        summing.add(histogram["buckets"])
        summing.overflow += histogram["overflow"]
        summing.least = min(summing.least, float(stats["min"]))

    def metrics(self) -> list[str]:
        """The metrics read, in the order first seen."""
        return list(self._units)

    def pictures(self, document: Callable[[str], dict[str, Any]] | None = None) -> dict[str, Picture]:
        """Each metric's picture, in the order first seen; with ``document`` (a stored run's document by
        id), each series' change points and what changed at them (without, none are looked for)."""
        return {metric: self.picture(metric, document) for metric in self._units}

    def picture(self, metric: str, document: Callable[[str], dict[str, Any]] | None = None) -> Picture:
        """The picture of ``metric`` (KeyError when no document had it)."""
        unit = self._units[metric]
        sums = self._sums.get(metric, {})
        several = len({monitor for monitor, _, _ in sums}) > 1  # boards of two monitors may share a name
        per_board: dict[str, list[BoardSeries]] = {}
        for (monitor, board, step), summing in sums.items():
            name = f"{monitor}/{board}" if several and monitor else board
            windows = tuple(sorted(summing.windows, key=lambda w: (w.started, w.run_id)))
            found = _changes(metric, unit, windows, document) if document is not None else ()
            per_board.setdefault(name, []).append(BoardSeries(name, step, windows, _cumulated(summing, windows), found))
        boards = []
        for name, series in per_board.items():
            series.sort(key=lambda s: (s.windows[0].started, s.step))
            boards.append(_board(name, tuple(series)))
        boards.sort(key=lambda board: (board.windows[0].started, board.name))
        return Picture(metric, unit, tuple(boards), self._interrupted.get(metric, 0), self._invalid.get(metric, 0))


def collect(docs: Iterable[dict[str, Any]], metrics: Iterable[str] | None = None) -> Collector:
    """A :class:`Collector` that has read ``docs``."""
    collector = Collector(metrics)
    for doc in docs:
        collector.add(doc)
    return collector


def board_of(doc: dict[str, Any]) -> str:
    """The board a run was measured on: its monitor's name for it, else its target's (a local run: its host)."""
    if monitor := doc.get("monitor"):
        board: str = monitor["board"]
        return board
    target = (doc.get("target") or {}).get("name")
    return str(target) if target and target != "local" else str(doc["system"]["hostname"])


def releases(windows: Iterable[Window]) -> list[Release]:
    """Where the kernel release changes between consecutive ``windows`` (in time order)."""
    found: list[Release] = []
    previous: str | None = None
    for window in windows:
        if previous is not None and window.kernel != previous:
            found.append(Release(window.started, window.kernel, previous, window.run_id))
        previous = window.kernel
    return found


def _board(name: str, series: tuple[BoardSeries, ...]) -> BoardPicture:
    windows = sorted((w for s in series for w in s.windows), key=lambda w: (w.started, w.run_id))
    return BoardPicture(name, series, windows[0].kernel, tuple(releases(windows)))


def _cumulated(summing: _Sum, windows: tuple[Window, ...]) -> Cumulated | None:
    rows = summing.reduce()
    rows = rows[rows[:, 2] > 0]
    if not len(rows) and not summing.overflow:
        return None
    step = summing.step
    return Cumulated(
        tuple(float(lower) * step for lower in rows[:, 0]),
        tuple(float(width) * step for width in rows[:, 1]),
        tuple(int(count) for count in rows[:, 2]),
        step,
        summing.overflow,
        summing.least,
        max(window.worst for window in windows),
    )


def _changes(
    metric: str, unit: units.Unit, windows: tuple[Window, ...], document: Callable[[str], dict[str, Any]]
) -> tuple[ChangePoint, ...]:
    """The change points of a series' p50, p99 and max (p50 alone where higher is better), explained."""
    stats = CHANGE_STATISTICS if unit.lower_is_better else ("p50",)
    found = [
        change
        for stat in stats
        for change in changes.find(
            metric, stat, [w.point(stat) for w in windows if w.adjusted[CHANGE_STATISTICS.index(stat)] is not None]
        )
    ]
    return tuple(changes.explained(found, document))
