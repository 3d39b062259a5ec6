"""Change points in a stored series: the runs of one metric's statistic in time order (trend's points, one
time base), cut where its level steps, each step with its size, a 95 % interval, and what changed in the
stored documents of the runs either side. docs/changes.md says why this method and what it promises.

The method, on the logarithms of the values (a step is a ratio, and the tail's spread grows with its level):

1. The series' noise σ is the standard deviation of consecutive runs' differences, each clipped at 3 MADs
   (over √2): a few steps in a long series are a few large differences, which the clip leaves out, where
   the spread of the values would count every step as noise.
2. Binary segmentation: a segment is cut at the run that maximises the standardized CUSUM (the difference
   of the means either side in units of σ) when that exceeds ``threshold(n)`` — about √(2 ln n) + 1.5,
   above what the maximum over n cuts of pure noise reaches; each side is searched again. The values
   the CUSUM sees are clipped at the segment's median ± 3 σ, so that a single spike (a maximum of one window
   hit by a rare stall) cannot pull a cut towards itself; a real step keeps at least 3 σ.
3. Each cut is placed again, within PLACE_RUNS, where the runs either side lie least far (absolute
   deviations) from their own side's median: the clipping blurs where a large step was.
4. Confirmation: each cut must leave at least ``MIN_RUNS`` runs either side and its two neighbouring segments
   must differ by Mann–Whitney's rank test (p < ``CONFIRM_P``), which no handful of outliers passes; a cut
   that fails is dropped and its neighbours tested again as one segment.

A step's size is the ratio of the geometric means of the two segments either side, with a Welch t interval
on the logs. The detection is numpy over the whole series: 0.17 s over 100,000 runs on a busy 2-vCPU
machine (evaluation/changes.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from operator import itemgetter
from statistics import NormalDist
from typing import TYPE_CHECKING, Any, cast

from rtscope.analysis import stats
from rtscope.analysis.grouping import SHORT_ID
from rtscope.analysis.trend import Point
from rtscope.model.units import Unit

if TYPE_CHECKING:
    import numpy as np

CONFIDENCE = 0.95
# A change is reported once this many runs on each side show it: a monitor's "confirmed by the next runs".
MIN_RUNS = 3
# The rank test that confirms a cut; loose, because the CUSUM threshold already holds false alarms down and
# this test only guards against steps made of a few outliers (5 deterministic runs against 5 pass it).
CONFIRM_P = 0.01
# The least noise assumed, in log units (0.1 %): an emulator's instruction time repeats a run exactly,
# and a series without noise would make every rounding a change.
SIGMA_FLOOR = 1e-3
# How far from a segment's median (in σ) a value still counts in full when placing a cut.
CLIP_SIGMAS = 3.0
# Added to √(2 ln n): set on null series with a real run's noise; 100 null histories of 1,000 runs raised no
# alarm in p50, p99 or max, and 300 of 300 runs none (evaluation/changes.py; docs/changes.md).
THRESHOLD_MARGIN = 1.5
# How far from a cut "what changed" is looked for, in runs either side.
EXPLAIN_RUNS = 3
# How far a cut may move when it is placed again on the values themselves.
PLACE_RUNS = 10
_MAD_TO_SIGMA = 1.4826  # a normal distribution's σ per median absolute deviation


def threshold(n: int) -> float:
    """The standardized CUSUM a cut in a series of ``n`` runs must exceed."""
    return math.sqrt(2 * math.log(max(n, 2))) + THRESHOLD_MARGIN


@dataclass(frozen=True)
class Step:
    """A cut in a series of values: ``index`` is the first value after it; the ratio is after over before
    (geometric means of the segments either side), with its interval."""

    index: int
    ratio: float
    low: float
    high: float
    before: float  # the geometric mean of the segment before
    after: float  # and of the segment after
    runs_before: int
    runs_after: int
    p_value: float  # Mann–Whitney's, between the two segments


def find_steps(values: Sequence[float]) -> list[Step]:
    """The confirmed steps in ``values`` (in time order, positive; a value ≤ 0 counts as half the least
    positive one), in order."""
    import numpy as np

    series = np.asarray(values, dtype=float)
    if len(series) < 2 * MIN_RUNS:
        return []
    positive = series[series > 0]
    if not len(positive):
        return []
    logs = np.log(np.maximum(series, positive.min() / 2))
    sigma = noise(logs)
    limit = threshold(len(logs))
    cuts: list[int] = []
    pending = [(0, len(logs))]
    while pending:
        start, end = pending.pop()
        cut = _best_cut(logs[start:end], sigma, limit)
        if cut is not None:
            cuts.append(start + cut)
            pending += [(start, start + cut), (start + cut, end)]
    return _confirmed(logs, _placed(logs, sorted(cuts)))


def noise(logs: np.ndarray) -> float:
    """σ of a series of logs from its consecutive differences: the MAD's, else (more than half the
    differences 0: a series of few distinct values) their standard deviation; at least SIGMA_FLOOR."""
    import numpy as np

    differences = np.diff(logs)
    if not len(differences):
        return SIGMA_FLOOR
    spread = _MAD_TO_SIGMA * float(np.median(np.abs(differences - np.median(differences))))
    if spread == 0:
        return max(float(np.std(differences)) / math.sqrt(2), SIGMA_FLOOR)
    # The MAD alone reads a peaked, long-shouldered noise (a p99's) as quieter than the CUSUM finds it: the
    # differences' standard deviation once clipped at 3 MADs counts the shoulders and still not a step.
    clipped = np.clip(differences, -CLIP_SIGMAS * spread, CLIP_SIGMAS * spread)
    return max(float(np.std(clipped)) / math.sqrt(2), SIGMA_FLOOR)


def _best_cut(segment: np.ndarray, sigma: float, limit: float) -> int | None:
    """Where the standardized CUSUM of ``segment`` (clipped about its median) peaks, when it passes
    ``limit`` with MIN_RUNS values on either side; else None."""
    import numpy as np

    size = len(segment)
    if size < 2 * MIN_RUNS:
        return None
    middle = float(np.median(segment))
    clipped = np.clip(segment, middle - CLIP_SIGMAS * sigma, middle + CLIP_SIGMAS * sigma)
    sums = np.cumsum(clipped - clipped.mean())
    before = np.arange(MIN_RUNS, size - MIN_RUNS + 1)
    # |Σ of the first t deviations| / (σ √(t (n − t) / n)) is the difference of the two means in standard errors.
    score = np.abs(sums[before - 1]) / (sigma * np.sqrt(before * (size - before) / size))
    best = int(np.argmax(score))
    return int(before[best]) if score[best] > limit else None


def _placed(logs: np.ndarray, cuts: list[int]) -> list[int]:
    """Each cut moved to where, within PLACE_RUNS of it, the runs either side lie least far (in sum) from
    their own side's median: clipping reads a large step as 3 σ, which blurs where it was, and absolute
    deviations keep one spike from pulling the cut towards itself."""
    import numpy as np

    placed = list(cuts)
    for i, cut in enumerate(placed):
        start = placed[i - 1] if i else 0
        end = placed[i + 1] if i + 1 < len(placed) else len(logs)
        left, right = float(np.median(logs[start:cut])), float(np.median(logs[cut:end]))
        low, high = max(start + MIN_RUNS, cut - PLACE_RUNS), min(end - MIN_RUNS, cut + PLACE_RUNS)
        window = logs[low:high]
        # The cost of cutting at low + t, less what it has in common with every cut: Σ_{j<t} |x−left| − |x−right|.
        cost = np.concatenate([[0.0], np.cumsum(np.abs(window - left) - np.abs(window - right))])
        placed[i] = low + int(np.argmin(cost))
    return placed


def _confirmed(logs: np.ndarray, cuts: list[int]) -> list[Step]:
    """The cuts whose neighbouring segments differ by the rank test, each as a Step; a cut that fails is
    dropped and the test run again on what it joins, until every cut left passes."""
    while cuts:
        edges = [0, *cuts, len(logs)]
        # Arrays, not lists: the rank test takes them as they are (a list of 100,000 floats costs more than the test).
        segments = [cast(Sequence[float], logs[edges[i] : edges[i + 1]]) for i in range(len(edges) - 1)]
        tests = [stats.mann_whitney(segments[i], segments[i + 1]) for i in range(len(cuts))]
        failing = [i for i, p in enumerate(tests) if p >= CONFIRM_P]
        if not failing:
            return [
                _step(logs[edges[i] : edges[i + 1]], logs[edges[i + 1] : edges[i + 2]], edges[i + 1], p)
                for i, p in enumerate(tests)
            ]
        # Drop the weakest first: the others' segments change with it.
        del cuts[max(failing, key=lambda i: tests[i])]
    return []


def _step(before: np.ndarray, after: np.ndarray, index: int, p_value: float) -> Step:
    """The step between two segments of logs: the ratio of their geometric means and its Welch t interval."""
    difference = float(after.mean() - before.mean())
    var_before, var_after = float(before.var(ddof=1)) / len(before), float(after.var(ddof=1)) / len(after)
    error = math.sqrt(var_before + var_after)
    if error == 0:
        low = high = difference
    else:
        # Welch–Satterthwaite degrees of freedom (both variances 0 is handled above).
        freedom = (var_before + var_after) ** 2 / (var_before**2 / (len(before) - 1) + var_after**2 / (len(after) - 1))
        half = t_quantile(1 - (1 - CONFIDENCE) / 2, freedom) * error
        low, high = difference - half, difference + half
    return Step(
        index,
        math.exp(difference),
        math.exp(low),
        math.exp(high),
        math.exp(float(before.mean())),
        math.exp(float(after.mean())),
        len(before),
        len(after),
        p_value,
    )


def t_quantile(probability: float, freedom: float) -> float:
    """Student's t quantile, by the Cornish–Fisher expansion about the normal's (Abramowitz & Stegun
    26.7.5): within 0.5 % of the exact value from 3 degrees of freedom up, and scipy is not imported
    for it (its start-up alone would spend half of `changes`' budget over 100,000 runs)."""
    z = NormalDist().inv_cdf(probability)
    v = max(freedom, 1.0)
    return (
        z
        + (z**3 + z) / (4 * v)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
        + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * v**4)
    )


# --- Change points of a stored series ---------------------------------------------------------------------


@dataclass(frozen=True)
class ChangePoint:
    """A step in a metric's statistic across stored runs: the last run before it and the first after, its size
    (after over before, with its interval), and what changed between the two runs' documents."""

    metric: str
    stat: str
    time_base: str
    last_before: Point
    first_after: Point
    step: Step
    # The series' runs from EXPLAIN_RUNS before the cut to EXPLAIN_RUNS after it, in order: where to look for
    # what changed when a cut is placed a run or two off (as noise may place it).
    around: tuple[Point, ...] = ()
    changed: tuple[str, ...] = ()  # "kernel 6.1.0-rt → 6.1.0", …; empty: nothing the documents record
    changed_after: Point | None = None  # the run whose document differs from the one before it

    def direction(self, unit: Unit) -> str:
        """ "worse" or "better" as the unit has it."""
        return "worse" if (self.step.ratio > 1) == unit.lower_is_better else "better"

    def size_text(self) -> str:
        """ "+20.1 % [+17.9, +22.4]": the change in per cent with its 95 % interval."""
        step = self.step
        return f"{_percent(step.ratio)} % [{_percent(step.low)}, {_percent(step.high)}]"

    def changed_text(self) -> str:
        """What changed, on one line, and where when not at the cut; what to say when the documents record
        nothing near it."""
        if not self.changed or self.changed_after is None:
            return f"nothing the runs within {EXPLAIN_RUNS} of it record"
        what = "; ".join(self.changed)
        if self.changed_after == self.first_after:
            return what
        offset = self.around.index(self.changed_after) - self.around.index(self.first_after)
        runs = f"{abs(offset)} run{'s' if abs(offset) != 1 else ''}"
        return f"{what} (from run {self.changed_after.run_id[:SHORT_ID]}, {runs} {'after' if offset > 0 else 'before'} the cut)"


def _percent(ratio: float) -> str:
    return f"{100 * (ratio - 1):+.1f}"


# A run's figure as the store's metric_history gives it: (run id, started, label, hostname, kernel, valid,
# value, time base), the fields of a trend Point.
Row = tuple[str, str, str | None, str, str, bool, float | None, str]


def find(metric: str, stat: str, points: Sequence[Point]) -> list[ChangePoint]:
    """The change points of ``points`` (a trend's, oldest first) in each time base's series of valid
    values; ``changed`` is left for :func:`explained` (it needs the documents)."""
    bases, valid, values = [p.time_base for p in points], [p.valid for p in points], [p.value for p in points]
    return _find(metric, stat, bases, valid, values, points.__getitem__)


def find_in_rows(metric: str, stat: str, rows: Sequence[Row]) -> list[ChangePoint]:
    """:func:`find` over the store's rows, a Point made only for the runs around each change (100,000
    Points alone take a second)."""
    if not rows:
        return []
    # The columns taken out in C: a loop over 100,000 rows in Python costs more than the detection.
    valid, values, bases = (list(map(itemgetter(column), rows)) for column in (5, 6, 7))
    return _find(metric, stat, bases, valid, values, lambda i: Point(*rows[i]))


def _find(
    metric: str,
    stat: str,
    bases: Sequence[str],
    valid: Sequence[bool],
    values: Sequence[float | None],
    point: Callable[[int], Point],
) -> list[ChangePoint]:
    """The change points of a series given as columns (each run's time base, validity and value),
    ``point(i)`` its i-th run."""
    import numpy as np

    figures = np.array(values, dtype=float)  # a missing value (None) is NaN
    usable = np.array(valid, dtype=bool) & ~np.isnan(figures)
    kinds = list(dict.fromkeys(bases))
    found = []
    for base in kinds:
        mask = usable if len(kinds) == 1 else usable & (np.array(bases, dtype=object) == base)
        chosen = np.flatnonzero(mask)
        for step in find_steps(cast(Sequence[float], figures[chosen])):
            near = chosen[max(0, step.index - EXPLAIN_RUNS) : step.index + EXPLAIN_RUNS]
            found.append(
                ChangePoint(
                    metric,
                    stat,
                    base,
                    point(int(chosen[step.index - 1])),
                    point(int(chosen[step.index])),
                    step,
                    tuple(point(int(i)) for i in near),
                )
            )
    return sorted(found, key=lambda change: (change.first_after.started, change.first_after.run_id))


# --- What changed between two runs ------------------------------------------------------------------------


def explained(found: Sequence[ChangePoint], document: Callable[[str], dict[str, Any]]) -> list[ChangePoint]:
    """``found`` with what changed between the runs either side of each, from their documents
    (``document(run_id)``: the store's); when those two record no difference, between the nearest two
    consecutive runs around the cut that do (a cut placed by noise a run off still names its cause)."""
    read: dict[str, dict[str, Any]] = {}

    def cached(run_id: str) -> dict[str, Any]:
        if run_id not in read:
            read[run_id] = document(run_id)
        return read[run_id]

    done = []
    for change in found:
        around = change.around or (change.last_before, change.first_after)
        cut = around.index(change.first_after)
        # The pairs of consecutive runs, the cut's first, then outwards: 0, -1, +1, -2, +2 …
        order = sorted(range(1, len(around)), key=lambda i: (abs(i - cut), i > cut))
        for i in order:
            lines = explain(cached(around[i - 1].run_id), cached(around[i].run_id), change.metric)
            if lines:
                done.append(replace(change, changed=lines, changed_after=around[i]))
                break
        else:
            done.append(change)
    return done


def explain(before: dict[str, Any], after: dict[str, Any], metric: str) -> tuple[str, ...]:
    """What differs between two result documents in what shapes a measurement: the kernel (release,
    version, command line), the RTOS configuration, the probe's version, the loads, the bench's
    parameters, the host, the target and how many monitored windows a document holds (retention's
    merge); each one short line ("kernel 6.1.0-rt → 6.1.0")."""
    system_a, system_b = before.get("system", {}), after.get("system", {})
    lines = _changed("OS", system_a.get("os"), system_b.get("os"))
    lines += _changed("kernel", system_a.get("kernel_release"), system_b.get("kernel_release"))
    if not lines:  # another OS or release says it all; the same release may still be built otherwise
        lines += _words("kernel version", system_a.get("kernel_version"), system_b.get("kernel_version"))
        lines += _settings("RTOS configuration", system_a.get("os_config") or {}, system_b.get("os_config") or {})
    lines += _words("kernel command line", system_a.get("cmdline"), system_b.get("cmdline"))
    lines += _changed("rtscope", before.get("run", {}).get("probe_version"), after.get("run", {}).get("probe_version"))
    lines += _changed("loads", _loads(before), _loads(after))
    lines += _settings(f"{metric}'s parameters", _params(before, metric), _params(after, metric))
    lines += _changed("host", system_a.get("hostname"), system_b.get("hostname"))
    lines += _changed("target", _target(before), _target(after))
    # Retention's merge: an hour's document holds the worst of its 12 windows, so a series' maximum steps
    # where merged documents meet windows as measured, with nothing changed on the board.
    lines += _changed("windows merged", _windows(before), _windows(after))
    return tuple(lines)


def _windows(doc: dict[str, Any]) -> int:
    """How many monitored windows a document holds (1: as measured; a run of no monitor: 1)."""
    return int((doc.get("monitor") or {}).get("windows", 1))


# "What changed" stays one line: longer values are cut, and a long list of differences ends in "…".
_LONGEST_VALUE = 40
_MOST_ITEMS = 4


def _changed(name: str, a: object, b: object) -> list[str]:
    if a == b:
        return []
    return [f"{name} {_short(a)} → {_short(b)}"]


def _short(value: object) -> str:
    text = "none" if value is None or value == "" else str(value)
    return text if len(text) <= _LONGEST_VALUE else text[: _LONGEST_VALUE - 1] + "…"


def _words(name: str, a: str | None, b: str | None) -> list[str]:
    """A long text's change as the words it lost and gained ("kernel command line −quiet +isolcpus=1")."""
    if a == b:
        return []
    if a is None or b is None:
        return _changed(name, a, b)
    old, new = a.split(), b.split()
    lost = [w for w in old if w not in new]
    gained = [w for w in new if w not in old]
    if not lost and not gained:  # the same words in another order
        return [f"{name}: the same words in another order"]
    return [f"{name} " + _few([*(f"−{_short(w)}" for w in lost), *(f"+{_short(w)}" for w in gained)], " ")]


def _settings(name: str, a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """A mapping's change as the keys that differ ("RTOS configuration tick_hz 1000 → 100")."""
    keys = [key for key in dict.fromkeys([*a, *b]) if a.get(key) != b.get(key)]
    if not keys:
        return []
    return [f"{name} " + _few([f"{key} {_short(a.get(key))} → {_short(b.get(key))}" for key in keys], ", ")]


def _few(items: list[str], separator: str) -> str:
    """The first _MOST_ITEMS of ``items`` joined, and how many more there are."""
    more = len(items) - _MOST_ITEMS
    return separator.join(items[:_MOST_ITEMS]) + (f"{separator}… ({more} more)" if more > 0 else "")


def _loads(doc: dict[str, Any]) -> str | None:
    """The loads a run ran under, as they were asked for: "cpu (cpus=all load=100), net"."""
    loads = doc.get("loads") or []
    names = []
    for load in loads:
        settings = " ".join(f"{key}={value}" for key, value in sorted((load.get("settings") or {}).items()))
        names.append(f"{load.get('name')} ({settings})" if settings else str(load.get("name")))
    return ", ".join(names) or None


def _params(doc: dict[str, Any], metric: str) -> dict[str, Any]:
    """The parameters of the bench that measured ``metric``."""
    bench = next((m.get("bench") for m in doc.get("metrics", []) if m.get("id") == metric), None)
    return next((b.get("params") or {} for b in doc.get("benches", []) if b.get("id") == bench), {})


def _target(doc: dict[str, Any]) -> str:
    target = doc.get("target")
    return "local" if not target else str(target.get("name"))


@dataclass(frozen=True)
class BoardChange:
    """A change point in one board's series of a monitor, with the metric's unit (a KCIDB export marks it)."""

    monitor_id: str
    board: str
    unit: Unit
    change: ChangePoint


# --- As JSON ----------------------------------------------------------------------------------------------


def entry(change: ChangePoint, unit: Unit) -> dict[str, Any]:
    """One change point as `rtscope changes --json` lists it (and a monitor's alert sends it): its statistic,
    the runs either side, its size with its interval, its direction and what changed."""
    return {
        "stat": change.stat,
        "time_base": change.time_base,
        "first_after": _run_entry(change.first_after),
        "last_before": _run_entry(change.last_before),
        "before": change.step.before,
        "after": change.step.after,
        "ratio": change.step.ratio,
        "ratio_low": change.step.low,
        "ratio_high": change.step.high,
        "runs_before": change.step.runs_before,
        "runs_after": change.step.runs_after,
        "p_value": change.step.p_value,
        "direction": change.direction(unit),
        "changed": list(change.changed),
    }


def _run_entry(point: Point) -> dict[str, Any]:
    return {
        "id": point.run_id,
        "started": point.started,
        "label": point.label,
        "hostname": point.hostname,
        "kernel": point.kernel,
        "value": point.value,
    }
