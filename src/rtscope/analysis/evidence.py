"""Whether two groups of runs really differ in a statistic of a metric: the repetition is the unit of evidence.

A run of 10⁵ samples is one observation of its condition, not 10⁵: the next run of that very condition
lands a few percent away (a cache's layout, a timer's phase, what else the machine did), and a test on the
samples of one run against another's calls such a move "significant" every time (pseudo-replication).
So each run gives one figure of the statistic (its own median, p99, max …: rtscope.analysis.stats.statistic),
and the groups are compared by those figures:

- **Both groups repeated** (two runs or more each): Welch's t test on the logarithms of the runs' figures —
  latency figures are positive and skewed, and spread in proportion to their size, so their logarithms
  are near normal with a spread that does not depend on the level; the effect is the ratio of the
  groups' geometric means, with its t interval. Figures that are not all positive (a count of 0, a
  minimum of 0 ns) are tested as they are, the effect then the ratio of the means.
- **One run against several**: a prediction test — whether the lone run's figure lies where the
  repeated group's runs put the next one (Student's t with the repeated group's spread, n − 1 degrees of
  freedom). This is check's case: a new run against a baseline of several.
- **One run each**: no test can tell the conditions apart, as nothing says how far a rerun would move.
  The samples of the two runs are still compared (rtscope.analysis.stats: Mann–Whitney, the bootstrap
  interval of the median, Welch's z on means, the tail test), which says whether *these runs* differ;
  the difference is never called real (``blind``), and check, which holds one run against one, reads
  that test (``runs_differ``).
- **Identical repetitions**: an emulator reruns bit for bit, so unseeded repetitions have a spread of 0
  that tells nothing, and no difference between them is called real. Repetitions whose seed varied the
  phase of each bench's start (rtscope.model.result.varied) and still gave identical figures measured a
  spread of 0: a difference between such groups is exact (test "exact", p 0), as instruction counts are.

A difference is **real** when its test's p-value, adjusted by Holm's step-down method over every
comparison the verdict weighs (:func:`holm`: the chance of calling any null difference real stays
below 1 − CONFIDENCE however many metrics, statistics and levels it compares), is below SIGNIFICANCE —
and the effect is worth reporting: at least ``min_effect`` (5 % by default) and more than one histogram
step (the run's clock tick). A significant difference below that is **negligible**. A difference not
called real, with a measured spread and an effect worth reporting, gets a power statement: how many runs
per group would find an effect of the size seen four times in five at the level its family needs.

Better is by meaning (rtscope.model.result.nominal): lower or higher as the metric's unit says, or, for
a square wave's period, high time and duty, closer to the nominal value — whose runs are compared by
their distance from it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist, fmean, variance
from typing import Any

from rtscope.analysis import stats
from rtscope.model import result

CONFIDENCE = stats.CONFIDENCE
SIGNIFICANCE = stats.SIGNIFICANCE
DEFAULT_MIN_EFFECT = 0.05
# The power a statement of the runs needed aims at: an effect of the size seen found four times in five.
POWER = 0.8
# Beyond this many runs per group a power statement says "more than".
_NEEDED_UP_TO = 1000
# The tests of the samples of one run against another's (rtscope.analysis.stats).
SAMPLE_TESTS = ("MW", "CI", "z", "tail")
# Why a difference is not called real though its test may say the runs differ.
ONE_RUN_EACH = "a level's rerun could move as far (repeat each)"
IDENTICAL = "identical repetitions (an emulator's reruns): their spread tells nothing"


@dataclass(frozen=True)
class Difference:
    """B against A in one statistic: the test, its p-value (and Holm's over the family it was weighed in),
    the effect — B's figure over A's — with its interval, and what the verdict may say of it."""

    test: str  # "t": Welch's over both groups' runs; "run": one run against a repeated group; "exact":
    # seeded repetitions that did not move; or a sample test of one run against another (SAMPLE_TESTS)
    p_value: float
    runs: tuple[int, int]
    ratio: float | None = None  # B / A: of the geometric means of the runs' figures (t, run), else of the figures
    interval: tuple[float, float] | None = None  # the ratio's CONFIDENCE interval
    negligible: bool = False  # smaller than the smallest effect worth reporting
    blind: str | None = None  # why no difference can be called real here, if so
    spread: float | None = None  # the runs' standard deviation (of log figures for t and run), pooled
    on_logs: bool = True  # the figures were compared by their logarithms (else as they are)
    p_adjusted: float | None = None  # Holm's, over ``comparisons``
    comparisons: int = 1
    needed: int | None = None  # runs per group that would find this effect (POWER), when not real

    @property
    def p(self) -> float:
        """The p-value the verdict goes by: Holm's where the difference was weighed in a family."""
        return self.p_value if self.p_adjusted is None else self.p_adjusted

    @property
    def significant(self) -> bool:
        return self.blind is None and self.p < SIGNIFICANCE

    @property
    def real(self) -> bool:
        """Significant over repetitions, and an effect worth reporting."""
        return self.significant and not self.negligible

    @property
    def runs_differ(self) -> bool:
        """Whether the two runs' samples differ (one run each: a sample test), or the groups really do."""
        return self.p < SIGNIFICANCE if self.test in SAMPLE_TESTS else self.real

    def __str__(self) -> str:
        """ "p=0.012 t, 3 and 3 runs", "p=0.004 t (Holm 0.031 of 8), 5 and 5 runs", "p<0.001 MW, one run each:
        …": the p-value, the test, Holm's where it counted several comparisons, the runs, and why it cannot
        call the difference real where it cannot."""
        said = f"{p_text(self.p_value)} {self.test}"
        if self.p_adjusted is not None and self.comparisons > 1:
            said += f" (Holm {p_text(self.p_adjusted).removeprefix('p=').removeprefix('p')} of {self.comparisons})"
        said += f", {_runs(self.runs)}"
        if self.blind and self.blind != ONE_RUN_EACH:  # "one run each" says it
            return f"{said}: {self.blind}"
        if self.negligible and self.significant:
            return f"{said}: negligible"
        if self.needed is not None and not self.real:
            more = "more than " if self.needed > _NEEDED_UP_TO else ""
            said += f"; about {more}{min(self.needed, _NEEDED_UP_TO)} runs each would tell"
        return said


def p_text(p: float) -> str:
    """A p-value as every verdict writes it: "p=0.012", "p<0.001"."""
    return "p<0.001" if p < 0.001 else f"p={p:.3f}"


def _runs(runs: tuple[int, int]) -> str:
    return "one run each" if runs == (1, 1) else f"{runs[0]} and {runs[1]} runs"


def compare_groups(
    a: Sequence[dict[str, Any]],
    b: Sequence[dict[str, Any]],
    key: str = "p50",
    *,
    min_effect: float = DEFAULT_MIN_EFFECT,
    adjusted: bool = True,
    varied: bool = False,
) -> Difference | None:
    """Whether a metric's runs of group b differ from group a's in statistic ``key`` (a per-period
    metric: its median period), by the runs' figures as this module's docstring says; ``varied``: the
    runs of each group were seeded apart (:func:`seeded_apart`), so that identical figures are a measured
    spread of 0. None when no test applies (no figures; units or kinds differ)."""
    metrics = (*a, *b)
    if not a or not b:
        return None
    if len({m["unit"] for m in metrics}) != 1 or len({result.is_periodic(m) for m in metrics}) != 1:
        return None
    if result.is_periodic(a[0]):
        key = "p50"
    read = [[stats.statistic(m, key, adjusted=adjusted) for m in group] for group in (a, b)]
    figures_a, figures_b = ([v for v in group if v is not None] for group in read)
    if len(figures_a) < len(a) or len(figures_b) < len(b):
        return None
    nominal = result.nominal(a[0])
    if nominal is not None:
        # Closer to the nominal value is better: the runs are compared by how far from it they are.
        figures_a, figures_b = ([abs(v / nominal - 1) for v in group] for group in (figures_a, figures_b))
    runs = (len(a), len(b))
    if len(a) == 1 and len(b) == 1:
        return _one_run_each(a, b, key, figures_a[0], figures_b[0], min_effect)
    step = 0.0 if nominal is not None else result.histogram_step(a[0])
    return _over_runs(figures_a, figures_b, runs, min_effect, step, varied)


def _one_run_each(
    a: Sequence[dict[str, Any]],
    b: Sequence[dict[str, Any]],
    key: str,
    figure_a: float,
    figure_b: float,
    min_effect: float,
) -> Difference | None:
    """The two runs' samples against each other (rtscope.analysis.stats): whether these runs differ."""
    if result.is_periodic(a[0]):
        test, p = (
            "MW",
            stats.mann_whitney(a[0]["periods"], b[0]["periods"]) if a[0]["periods"] and b[0]["periods"] else None,
        )
    elif key in stats.TAIL_QUANTILES:
        test, p = "tail", stats.tail_test(a, b, key)
    elif key in stats.LOW_TAIL_QUANTILES and not result.unit(a[0]).lower_is_better:
        test, p = "tail", stats.low_tail_test(a, b, key)
    elif key == "mean":
        test, p = "z", stats.mean_test(a, b)
    else:
        test, p = stats.body_test(a, b)
    if p is None:
        return None
    ratio = figure_b / figure_a if figure_a > 0 else None
    return Difference(
        test,
        p,
        (1, 1),
        ratio,
        negligible=_negligible(figure_a, figure_b, min_effect, result.histogram_step(a[0])),
        blind=ONE_RUN_EACH,
    )


def _over_runs(
    a: list[float], b: list[float], runs: tuple[int, int], min_effect: float, step: float, varied: bool
) -> Difference:
    """Welch's t over the runs' figures, or the prediction test of a lone run, on their logarithms when
    all are positive."""
    on_logs = min(a + b) > 0
    xa, xb = ([math.log(v) for v in group] if on_logs else group for group in (a, b))
    mean_a, mean_b = fmean(xa), fmean(xb)
    var_a = variance(xa) if len(xa) > 1 else None
    var_b = variance(xb) if len(xb) > 1 else None
    if var_a is None or var_b is None:
        # One lone run against a repeated group: the repeated group's spread is the only one known.
        known = var_a if var_a is not None else var_b
        n = len(xa) if var_a is not None else len(xb)
        assert known is not None
        error_squared, df, test = known * (1 + 1 / n), float(n - 1), "run"
        spread = math.sqrt(known)
    else:
        parts = (var_a / len(xa), var_b / len(xb))
        error_squared, test = sum(parts), "t"
        df = (
            error_squared**2 / sum(part**2 / (n - 1) for part, n in zip(parts, (len(xa), len(xb)), strict=True))
            if error_squared
            else 0
        )
        spread = math.sqrt((var_a + var_b) / 2)
    shift = mean_b - mean_a
    figure_a, figure_b = (math.exp(m) if on_logs else m for m in (mean_a, mean_b))
    ratio = math.exp(shift) if on_logs else (mean_b / mean_a if mean_a > 0 else None)
    negligible = _negligible(figure_a, figure_b, min_effect, step)
    if error_squared == 0:
        if not varied:
            return Difference(test, 1.0, runs, ratio, None, negligible, IDENTICAL, 0.0, on_logs)
        exact = (ratio, ratio) if ratio is not None else None
        return Difference("exact", 0.0 if shift else 1.0, runs, ratio, exact, negligible, None, 0.0, on_logs)
    error = math.sqrt(error_squared)
    p = 2 * t_sf(abs(shift) / error, df)
    half = t_quantile(1 - SIGNIFICANCE / 2, df) * error
    if on_logs:
        interval: tuple[float, float] | None = (math.exp(shift - half), math.exp(shift + half))
    else:
        interval = ((shift - half) / mean_a + 1, (shift + half) / mean_a + 1) if mean_a > 0 else None
    return Difference(test, p, runs, ratio, interval, negligible, None, spread, on_logs)


def seeded_apart(docs: Sequence[dict[str, Any]]) -> bool:
    """Whether every run of ``docs`` was seeded, each with its own seed: repetitions that varied what a
    rerun in instruction time cannot (rtscope.model.result.varied)."""
    seeds = [doc["run"].get("seed") for doc in docs]
    return None not in seeds and len(set(seeds)) == len(seeds)


def _negligible(figure_a: float, figure_b: float, min_effect: float, step: float) -> bool:
    """Whether B's figure is within ``min_effect`` of A's (relative), or within one histogram step."""
    if abs(figure_b - figure_a) < step:
        return True
    low, high = sorted((figure_a, figure_b))
    if low <= 0:
        return high <= 0
    return high / low - 1 < min_effect


def holm(differences: Sequence[Difference | None], *, samples_too: bool = False) -> list[Difference | None]:
    """``differences`` weighed as one family: each with Holm's adjusted p-value over those that could be
    called real (not blind; with ``samples_too``, the sample tests of one run against one as well — check
    decides by them), their number, and — where not real — the runs per group that would find its effect
    at the level Holm asks of the first of the family (a power statement, conservative)."""
    counted = [
        i
        for i, d in enumerate(differences)
        if d is not None and (d.blind is None or (samples_too and d.test in SAMPLE_TESTS))
    ]
    m = len(counted)
    order = sorted(counted, key=lambda i: differences[i].p_value)  # type: ignore[union-attr]
    adjusted: dict[int, float] = {}
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * differences[index].p_value))  # type: ignore[union-attr]
        adjusted[index] = running
    out: list[Difference | None] = list(differences)
    for index in counted:
        d = differences[index]
        assert d is not None
        weighed = replace(d, p_adjusted=adjusted[index], comparisons=m)
        if not weighed.real and not weighed.negligible and weighed.ratio is not None:
            weighed = replace(weighed, needed=runs_needed(weighed, SIGNIFICANCE / max(m, 1)))
        out[index] = weighed
    return out


def runs_needed(difference: Difference, level: float) -> int | None:
    """Runs per group for Welch's t to find ``difference``'s effect at ``level`` with POWER, given the
    spread its runs showed (the noncentral t by its normal approximation); None without a known spread."""
    spread = difference.spread
    if not spread or difference.ratio is None or difference.ratio <= 0:
        return None
    if not difference.on_logs:
        return None  # its effect is a ratio of means, not a shift of a spread the ratio could be set against
    shift = abs(math.log(difference.ratio))
    if shift == 0:
        return None

    def found(n: int) -> bool:
        df = 2 * n - 2
        critical = t_quantile(1 - level / 2, df)
        noncentral = shift / (spread * math.sqrt(2 / n))
        return NormalDist().cdf((noncentral - critical) / math.sqrt(1 + critical**2 / (2 * df))) >= POWER

    # The power grows with n: the smallest n that reaches it, by bisection.
    if not found(_NEEDED_UP_TO):
        return _NEEDED_UP_TO + 1
    low, high = 1, _NEEDED_UP_TO  # not found at low (nor below 2), found at high
    while high - low > 1:
        middle = (low + high) // 2
        if middle >= 2 and found(middle):
            high = middle
        else:
            low = middle
    return high


# --- Student's t, without scipy (its import alone takes longer than a compare) ---------------------------


def t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with ``df`` degrees of freedom (t ≥ 0), from the regularized incomplete
    beta function: P(|T| > t) = I_{df/(df+t²)}(df/2, ½)."""
    if df <= 0:
        return 0.5
    return 0.5 * _incomplete_beta(df / 2, 0.5, df / (df + t * t))


def t_quantile(p: float, df: float) -> float:
    """The t value with P(T ≤ t) = p (p > ½): Newton's method from the normal quantile with its first
    Cornish–Fisher correction, kept within a bracket that bisection narrows where a step would leave it."""
    if df <= 0:
        return math.inf
    tail = 1 - p
    z = NormalDist().inv_cdf(p)
    guess = z + (z**3 + z) / (4 * df)
    low, high = 0.0, max(2 * guess, 1.0)
    while t_sf(high, df) > tail:
        low, high = high, 2 * high
    front = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    x = min(max(guess, low), high)
    for _ in range(60):
        excess = t_sf(x, df) - tail  # > 0: x is below the quantile
        if excess > 0:
            low = x
        else:
            high = x
        density = math.exp(front - (df + 1) / 2 * math.log1p(x * x / df))
        step = x + excess / density
        moved, x = abs(step - x), step if low < step < high else (low + high) / 2
        if moved < 1e-10 * x or high - low < 1e-10 * high:
            break
    return x


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b) by its continued fraction (Lentz's method), on the side where it converges fast."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x > (a + 1) / (a + b + 2):
        return 1 - _incomplete_beta(b, a, 1 - x)
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    fraction = d
    for m in range(1, 300):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            fraction *= c * d
        if abs(c * d - 1) < 1e-15:
            break
    return math.exp(log_front) * fraction / a
