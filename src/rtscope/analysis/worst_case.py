"""A probabilistic worst case (measurement-based probabilistic timing analysis, MBPTA): from a latency
run's block maxima, the value one activation exceeds with a given probability (10⁻⁹ by default), with
its 95 % interval — only once the tests the method rests on pass, refused with the failing test named
otherwise. The method and why it was chosen: docs/worst-case.md.

- Blocks: a metric's raw samples in time order (the probe's ``--raw``, when it kept every sample), cut
  into blocks of equal count; otherwise its ``series``, the worst sample of each series window (1 s by
  default, ``run --series-window``), whose windows a periodic bench fills with equal counts (one per
  planned activation; the last, partial window is left out).
- Fit: the generalised extreme value distribution (GEV) by maximum likelihood on the block maxima.
  The per-activation probability p is the block's 1 − (1 − p)^B for blocks of B samples.
- Interval: the profile likelihood of the quantile itself (Coles 2001, §3.3.3): every value whose
  best fit is within χ²₁(95 %)/2 of the maximum likelihood; its upper end may be unbounded.
- Tests, each at 5 %: independence of the maxima (Ljung–Box), identical distribution (two-sample
  Kolmogorov–Smirnov, first half of the blocks against the second) and goodness of fit
  (Anderson–Darling against the fitted GEV, p-value by a parametric bootstrap that refits each
  resample, seeded so that a run's verdict is reproducible).

numpy and scipy are imported by the functions that use them (as rtscope.analysis.stats explains).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from rtscope.model import result

if TYPE_CHECKING:
    import numpy as np

DEFAULT_PROBABILITY = 1e-9
CONFIDENCE = 0.95
ALPHA = 0.05  # each test's level
# Fewer maxima than this and a three-parameter fit's interval, and the halves' comparison (25 each),
# say too little: the literature's MBPTA studies fit 50 to a few hundred maxima.
MIN_BLOCKS = 50
# From raw samples: about this many blocks, none smaller than MIN_BLOCK_SIZE samples (below it, a
# block's maximum is far from its limit distribution).
TARGET_BLOCKS = 200
MIN_BLOCK_SIZE = 20
LJUNG_BOX_LAGS = 10
BOOTSTRAP_RESAMPLES = 99  # the goodness of fit's p-value is read to 1 %: enough to judge it at 5 %
_SEED = 20261128
_OUTSIDE = 1e12  # a negative log-likelihood no fit within the support reaches

INDEPENDENCE = "independence"
IDENTICAL = "identical distribution"
GOODNESS = "goodness of fit"


@dataclass(frozen=True)
class AssumptionCheck:
    """One test the method requires: its name, the test that made it, and its p-value."""

    name: str  # INDEPENDENCE, IDENTICAL or GOODNESS
    method: str  # "Ljung–Box, 10 lags", "KS, halves", "Anderson–Darling, bootstrap"
    p_value: float

    @property
    def passed(self) -> bool:
        return self.p_value >= ALPHA

    def __str__(self) -> str:
        """ "independence (Ljung–Box, 10 lags) failed (p=0.003)"."""
        p = "p<0.001" if self.p_value < 0.001 else f"p={self.p_value:.3f}"
        return f"{self.name} ({self.method}) {'passed' if self.passed else 'failed'} ({p})"


@dataclass(frozen=True)
class Blocks:
    """The maxima a fit is made on, in time order, in the metric's unit, and what each is the worst of."""

    maxima: tuple[float, ...]
    size: int  # samples per block
    source: str  # "raw samples" or "1 s windows"


@dataclass(frozen=True)
class Gev:
    """A GEV distribution (ξ > 0: a heavy tail; 0: Gumbel; < 0: bounded above)."""

    loc: float
    scale: float
    shape: float

    def quantile(self, upper: float) -> float:
        """The value a draw exceeds with probability ``upper``."""
        return self.loc - self.scale * _h(self.shape, math.log(-math.log1p(-upper)))


@dataclass(frozen=True)
class Estimate:
    """A probabilistic worst case, or why there is none: the value one activation exceeds with
    ``probability`` and its interval (``high`` None: no upper bound at the confidence asked), the fit,
    and the checks made. ``refusal`` is None for an estimate, else why none was made."""

    probability: float
    blocks: int
    block_size: int
    source: str
    checks: tuple[AssumptionCheck, ...]
    refusal: str | None
    value: float | None = None
    low: float | None = None
    high: float | None = None
    fit: Gev | None = None

    @property
    def failed(self) -> tuple[AssumptionCheck, ...]:
        return tuple(check for check in self.checks if not check.passed)


def block_probability(probability: float, block_size: int) -> float:
    """A block of ``block_size`` independent activations has a sample beyond a value with this
    probability when one activation exceeds it with ``probability``: 1 − (1 − p)^B."""
    return -math.expm1(block_size * math.log1p(-probability))


def blocks_of(metric_doc: dict[str, Any]) -> Blocks | str:
    """The block maxima of a metric of samples (in its unit), or why it has none: its raw samples
    when it kept all of them, else its series; a metric with neither (a run before result format 3,
    a bench that keeps no series) has none."""
    step = result.histogram_step(metric_doc)
    raw = metric_doc.get("raw")
    if raw and not metric_doc.get("raw_dropped"):
        size = max(MIN_BLOCK_SIZE, len(raw) // TARGET_BLOCKS)
        maxima = tuple(max(raw[k : k + size]) * step for k in range(0, len(raw) - size + 1, size))
        return Blocks(maxima, size, "raw samples")
    series = metric_doc.get("series")
    if not series:
        return "it keeps no series"
    windows = [value for value in series["max"] if value is not None]
    count = metric_doc["stats"]["count"] - series["dropped"]  # dropped: samples in no window kept
    if not windows or not count:
        return "no samples"
    # The last window is partial (the bench stopped inside it); B is the samples per window, which a
    # periodic bench holds equal (one per planned activation).
    size = max(1, round(count / len(windows)))
    kept = windows[:-1] if series["max"][-1] is not None and len(windows) > 1 else windows
    return Blocks(tuple(value * step for value in kept), size, f"{_seconds(series['window_s'])} windows")


def for_metrics(metric_docs: Sequence[dict[str, Any]], probability: float = DEFAULT_PROBABILITY) -> Estimate | str:
    """The worst case at ``probability`` per activation of one metric of samples measured by one run or
    several (a group's repetitions: their blocks, run after run, are one sequence whose tests then judge
    the runs alike too), or why it has none."""
    if not metric_docs:
        return "no run measured it"
    if any(not m["valid"] for m in metric_docs):
        # An invalid run (e.g. stopped by RT throttling) measured something else than the bench meant.
        return "the metric is invalid (its validity says why)"
    found = [blocks_of(m) for m in metric_docs]
    if whys := [why for why in found if isinstance(why, str)]:
        return whys[0]
    kept = [blocks for blocks in found if isinstance(blocks, Blocks)]
    if len({(blocks.size, blocks.source) for blocks in kept}) > 1:
        return "its runs' blocks differ (" + ", ".join(sorted({f"{b.size:,} × {b.source}" for b in kept})) + ")"
    return estimate(
        Blocks(tuple(v for blocks in kept for v in blocks.maxima), kept[0].size, kept[0].source), probability
    )


def estimate(blocks: Blocks, probability: float = DEFAULT_PROBABILITY) -> Estimate:
    """The worst case at ``probability`` per activation from ``blocks``: the tests first — independence and
    identical distribution, both, so that a refusal names each that failed; goodness of fit once they
    pass — then the fit's profile interval."""
    if not 0 < probability < 1:
        raise ValueError(f"a probability per activation is between 0 and 1, not {probability}")
    n, size, source = len(blocks.maxima), blocks.size, blocks.source
    if n < MIN_BLOCKS:  # said before numpy and scipy are imported: a short run costs nothing
        counted = f"{n} block{'s' if n != 1 else ''}"
        return Estimate(probability, n, size, source, (), f"{counted} ({source}), {MIN_BLOCKS} needed")
    import numpy as np

    data = np.asarray(blocks.maxima, dtype=float)
    centre, spread = float(np.mean(data)), float(np.std(data))
    if spread <= 0 or len(np.unique(data)) < 10:
        # A clock too coarse for the tail (a tick, an emulator's repeating instruction counts).
        distinct = len(np.unique(data))
        return Estimate(probability, n, size, source, (), f"{distinct} distinct block maxima, 10 needed")
    z = (data - centre) / spread  # the fit in standard units: the optimiser's steps suit any scale
    checks = [ljung_box(z), halves(z)]
    if failed := [check for check in checks if not check.passed]:
        # Maxima that are not one sequence of independent draws have no distribution to fit.
        return Estimate(probability, n, size, source, tuple(checks), "; ".join(map(str, failed)))
    fitted = fit(z)
    if fitted is None:
        return Estimate(probability, n, size, source, tuple(checks), "the GEV fit did not converge")
    checks.append(anderson_darling(z, fitted))
    if not checks[-1].passed:
        return Estimate(probability, n, size, source, tuple(checks), str(checks[-1]))
    upper = block_probability(probability, size)
    value, low, high = quantile_interval(z, upper, fitted)

    def to_unit(v: float) -> float:
        return centre + spread * v

    return Estimate(
        probability,
        n,
        size,
        source,
        tuple(checks),
        None,
        to_unit(value),
        to_unit(low),
        None if high is None else to_unit(high),
        Gev(to_unit(fitted.loc), spread * fitted.scale, fitted.shape),
    )


# --- the tests -------------------------------------------------------------------------------------


def ljung_box(x: np.ndarray, lags: int = LJUNG_BOX_LAGS) -> AssumptionCheck:
    """Whether the series is uncorrelated at lags 1 … ``lags`` (fewer for a short series): Ljung–Box's Q
    against χ² with as many degrees of freedom."""
    import numpy as np
    from scipy import stats

    n = len(x)
    lags = max(1, min(lags, n // 5))
    d = x - x.mean()
    denominator = float(d @ d)
    q = sum(float(d[:-k] @ d[k:]) ** 2 / denominator**2 / (n - k) for k in range(1, lags + 1)) * n * (n + 2)
    return AssumptionCheck(
        INDEPENDENCE, f"Ljung–Box, {lags} lags", float(stats.chi2.sf(q, lags)) if np.isfinite(q) else 0.0
    )


def halves(x: np.ndarray) -> AssumptionCheck:
    """Whether the first half of the blocks and the second come from one distribution (two-sample KS):
    a level that moved during the run (a step, a drift) is not one distribution to extrapolate."""
    from scipy import stats

    half = len(x) // 2
    return AssumptionCheck(IDENTICAL, "KS, first half against second", float(stats.ks_2samp(x[:half], x[half:]).pvalue))


def anderson_darling(x: np.ndarray, fitted: Gev, resamples: int = BOOTSTRAP_RESAMPLES) -> AssumptionCheck:
    """Whether the fitted GEV describes the maxima: Anderson–Darling's A², its p-value the share of
    resamples of the fit (each refitted, as the fit was) whose A² is as large."""
    import numpy as np

    observed = _a2(x, fitted)
    rng = np.random.default_rng(_SEED)
    beyond = 0
    for _ in range(resamples):
        sample = _draw(fitted, len(x), rng)
        refit = fit(sample, start=fitted, tolerance=1e-3)
        beyond += refit is None or _a2(sample, refit) >= observed
    return AssumptionCheck(GOODNESS, f"Anderson–Darling, {resamples} bootstrap refits", (1 + beyond) / (1 + resamples))


def _a2(x: np.ndarray, g: Gev) -> float:
    import numpy as np

    n = len(x)
    cdf = np.clip(np.sort(_cdf(x, g)), 1e-300, 1 - 1e-16)
    i = np.arange(1, n + 1)
    return float(-n - np.mean((2 * i - 1) * (np.log(cdf) + np.log1p(-cdf[::-1]))))


def _cdf(x: np.ndarray, g: Gev) -> np.ndarray:
    import numpy as np

    z = (x - g.loc) / g.scale
    if abs(g.shape) < 1e-9:
        return np.asarray(np.exp(-np.exp(-z)))
    t = np.maximum(1 + g.shape * z, 0.0)
    with np.errstate(divide="ignore"):
        return np.asarray(np.exp(-(t ** (-1 / g.shape))))


def _draw(g: Gev, n: int, rng: np.random.Generator) -> np.ndarray:
    import numpy as np

    y = -np.log(rng.uniform(size=n))  # G(x) = exp(-y): a GEV draw is its quantile at y
    return np.asarray(g.loc - g.scale * np.array([_h(g.shape, v) for v in np.log(y)]))


# --- the fit and its interval ---------------------------------------------------------------------


def fit(x: np.ndarray, start: Gev | None = None, tolerance: float = 1e-5) -> Gev | None:
    """The GEV of largest likelihood for ``x`` (None if the optimiser found none), its shape held
    within ±1 (beyond, the likelihood has no regular maximum); ``tolerance``: of the parameters (in x's
    units), looser for the bootstrap's refits, whose A² needs no more."""
    starts = [start] if start else [_moments(x, 0.1), _moments(x, -0.1)]
    best: tuple[list[float], float] | None = None
    for guess in starts:
        found = _minimize(
            lambda t: _nll(x, t[0], math.exp(t[1]), t[2]),
            [guess.loc, math.log(guess.scale), guess.shape],
            4000,
            tolerance,
        )
        if found[1] < _OUTSIDE and (best is None or found[1] < best[1]):
            best = found
    if best is None:
        return None
    return Gev(best[0][0], math.exp(best[0][1]), best[0][2])


def quantile_interval(x: np.ndarray, upper: float, fitted: Gev | None = None) -> tuple[float, float, float | None]:
    """The value a block maximum exceeds with probability ``upper``, and its profile-likelihood
    interval at CONFIDENCE (upper end None where the profile never drops that far: unbounded)."""
    g = fitted or fit(x)
    if g is None:
        raise ValueError("the GEV fit did not converge")
    from scipy import stats

    level = math.log(-math.log1p(-upper))
    best = _nll(x, g.loc, g.scale, g.shape)
    value = g.quantile(upper)
    drop = best + float(stats.chi2.ppf(CONFIDENCE, 1)) / 2
    warm = {1: [math.log(g.scale), g.shape], -1: [math.log(g.scale), g.shape]}

    def profile(xq: float, side: int) -> float:
        # The best fit whose quantile is xq: loc follows from (xq, scale, shape).
        found, nll = _minimize(
            lambda t: _nll(x, xq + math.exp(t[0]) * _h(t[1], level), math.exp(t[0]), t[1]), warm[side], 2000
        )
        if nll < _OUTSIDE:
            warm[side] = found
        return nll - drop

    low, high = (_crossing(partial(profile, side=side), value, side * g.scale * 0.25, g.scale) for side in (-1, 1))
    return value, value if low is None else low, high


def _minimize(
    f: Callable[[Any], float], start: list[float], most: int, tolerance: float = 1e-5
) -> tuple[list[float], float]:
    """Nelder–Mead from ``start`` (at most ``most`` iterations): the point found and f there. The fit is in
    standard units (estimate divides by the maxima's spread), so one tolerance suits every run."""
    from scipy import optimize

    minimize: Any = optimize.minimize  # its typed overloads know no Nelder–Mead options
    found = minimize(
        f, start, method="Nelder-Mead", options={"xatol": tolerance, "fatol": tolerance / 100, "maxiter": most}
    )
    return [float(v) for v in found.x], float(found.fun)


def _crossing(f: Callable[[float], float], start: float, step: float, scale: float) -> float | None:
    """Where f, below 0 at ``start``, first rises above 0 going by ``step`` (doubled each time) —
    None if it stays below for 40 doublings — to 10⁻³ of f (a thousandth of a log-likelihood unit) or
    10⁻⁴ of ``scale``."""
    inside, f_inside = start, f(start)
    for _ in range(40):
        outside = inside + step
        if (f_outside := f(outside)) > 0:
            return _regula_falsi(f, (inside, f_inside), (outside, f_outside), 1e-4 * scale)
        inside, f_inside, step = outside, f_outside, step * 2
    return None


def _regula_falsi(
    f: Callable[[float], float], inside: tuple[float, float], outside: tuple[float, float], tolerance: float
) -> float:
    """The root of f between ``inside`` (f < 0) and ``outside`` (f > 0), each (x, f(x)), by false position
    with the Illinois step (Dowell & Jarratt 1971): a few evaluations where bisection takes a dozen, and
    the bracket holds whatever an optimiser's small inconsistencies make of f."""
    (a, fa), (b, fb) = inside, outside
    moved = 0  # which end the last step replaced: -1 the inside one, 1 the outside one
    for _ in range(60):
        x = (a * fb - b * fa) / (fb - fa)
        fx = f(x)
        if abs(fx) < 1e-3 or abs(b - a) < tolerance:
            return x
        if fx > 0:
            b, fb = x, fx
            if moved == 1:  # the inside end held twice: halve its weight (Illinois)
                fa /= 2
            moved = 1
        else:
            a, fa = x, fx
            if moved == -1:
                fb /= 2
            moved = -1
    return (a + b) / 2


def _h(shape: float, level: float) -> float:
    """(1 − e^{−shape·level}) / shape, its limit ``level`` at shape 0: a quantile is loc − scale·h."""
    return level if abs(shape) < 1e-12 else -math.expm1(-shape * level) / shape


def _nll(x: np.ndarray, loc: float, scale: float, shape: float) -> float:
    """The GEV's negative log-likelihood of ``x``. Outside its support (a sample beyond the
    distribution's end) or beyond |shape| ≤ 1 it is _OUTSIDE plus how far outside, not infinite: the
    optimiser then walks back in instead of stalling on a flat infinity."""
    import numpy as np

    z = (x - loc) / scale
    n = len(x)
    if abs(shape) < 1e-9:
        return float(n * math.log(scale) + z.sum() + np.exp(-z).sum())
    t = 1 + shape * z
    if abs(shape) > 1 or t.min() <= 0:
        return _OUTSIDE * (1 + max(0.0, abs(shape) - 1) + float(np.maximum(-t, 0).sum()))
    log_t = np.log(t)
    with np.errstate(over="ignore"):  # a far-off trial point's likelihood is 0: inf here, as it should be
        return float(n * math.log(scale) + (1 + 1 / shape) * log_t.sum() + np.exp(-log_t / shape).sum())


def _moments(x: np.ndarray, shape: float) -> Gev:
    """A starting point: the Gumbel of x's mean and standard deviation, with ``shape``."""
    scale = math.sqrt(6) * float(x.std()) / math.pi
    return Gev(float(x.mean()) - 0.5772 * scale, scale, shape)


def _seconds(window_s: float) -> str:
    return f"{window_s:g} s"
