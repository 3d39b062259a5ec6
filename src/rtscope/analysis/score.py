"""The Metrics Number: one figure that weighs a system's service times by how often an application
needs each service.

    score = 1 / Σ (T_i × W_i)        with T_i in seconds; as published: 10^6 / Σ with T_i in µs

T_i is a metric of a stored run (mean, as published, or a tail statistic for worst-case scoring) and
W_i how many times the application uses that service per unit of work: its weight, read from a
profile file. Higher is better. The weights carry the application; the times carry the system.

A profile is TOML::

    name = "published example"
    statistic = "mean"          # optional: which statistic of each metric is T (default mean)
    [weights]
    "ctxsw.sem" = 55            # context switch
    "lat.preempt" = 67          # preemption time
    "lat.irq" = 1134            # interrupt latency
"""

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtscope import files
from rtscope.errors import RtscopeError
from rtscope.model import result
from rtscope.paths import REPO_DIR

PROFILES_DIR = REPO_DIR / "profiles"
DEFAULT_PROFILE = PROFILES_DIR / "published.toml"
DEFAULT_STATISTIC = "mean"
_PROFILE_KEYS = {"name", "statistic", "weights", "derived_from"}


@dataclass(frozen=True)
class Profile:
    """Weights per metric id, and the statistic of each metric that stands for its time."""

    name: str
    statistic: str
    weights: dict[str, float]
    source: str


@dataclass(frozen=True)
class Term:
    """One metric's part of the sum: its time T (µs), its weight W and their product."""

    metric: str
    time_us: float
    weight: float
    valid: bool

    @property
    def product(self) -> float:
        return self.time_us * self.weight


@dataclass(frozen=True)
class Score:
    """A run's terms, their sum Σ (µs) and the score 10^6 / Σ."""

    terms: tuple[Term, ...]

    @property
    def total_us(self) -> float:
        return math.fsum(term.product for term in self.terms)

    @property
    def value(self) -> float:
        return metrics_number(self.total_us)


def metrics_number(total_us: float) -> float:
    """10^6 / Σ: the published score for a sum Σ of T×W with T in µs (1/Σ with Σ in seconds)."""
    if total_us <= 0:
        raise RtscopeError("the weighted sum of times is 0: a score needs at least one non-zero time")
    return 1e6 / total_us


def load_profile(path: str | Path, statistic: str | None = None) -> Profile:
    """Read a profile file; ``statistic`` (a key of result.STATISTICS) overrides the file's.

    Raises RtscopeError with one line naming the file for a missing file, bad TOML (with its line and
    column), unknown keys, weights that are not positive numbers, or an unknown statistic.
    """
    source = str(path)
    text = files.read_text(path, what="profile file")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RtscopeError(f"{source}: not a valid profile: {error}") from None
    return _profile(doc, source, statistic)


def _profile(doc: dict[str, Any], source: str, statistic: str | None) -> Profile:
    unknown = sorted(set(doc) - _PROFILE_KEYS)
    if unknown:
        raise RtscopeError(f"{source}: unknown key {unknown[0]!r} (a profile has name, statistic, weights)")
    weights = doc.get("weights")
    if not isinstance(weights, dict) or not weights:
        raise RtscopeError(f'{source}: no [weights] table: name the metrics to weigh, e.g. "ctxsw.sem" = 55')
    for metric_id, weight in weights.items():
        if isinstance(weight, bool) or not isinstance(weight, int | float) or not math.isfinite(weight) or weight < 0:
            raise RtscopeError(f"{source}: weight of {metric_id} must be a number >= 0, not {weight!r}")
    if all(weight == 0 for weight in weights.values()):
        raise RtscopeError(f"{source}: every weight is 0: nothing would be scored")
    chosen = statistic or doc.get("statistic", DEFAULT_STATISTIC)
    if chosen not in result.STATISTICS or chosen in ("count", "stddev"):
        raise RtscopeError(f"{source}: statistic {chosen!r} is not one of mean, min, p50, p90, p99, p999, p9999, max")
    name = doc.get("name", Path(source).stem)
    if not isinstance(name, str):
        raise RtscopeError(f"{source}: name must be a string")
    return Profile(name, chosen, {key: float(value) for key, value in weights.items()}, source)


def score_run(doc: dict[str, Any], profile: Profile, *, adjusted: bool = True) -> Score:
    """The score of one result document under ``profile``.

    Every weighed metric must be in the run and be a time metric; a missing one is an error that says
    which bench measures it.
    """
    terms = []
    for metric_id, weight in profile.weights.items():
        metric_doc = result.metric(doc, metric_id)
        if metric_doc is None:
            raise RtscopeError(
                f"run {doc['run']['id']} has no metric {metric_id}, which profile "
                f"{profile.name!r} weighs (measure it, or give it no weight)"
            )
        if result.is_periodic(metric_doc):
            raise RtscopeError(f"{metric_id} is a count per period, not a time: it cannot be scored")
        value = result.summary(metric_doc, adjusted=adjusted)[profile.statistic]
        if value is None:
            raise RtscopeError(f"run {doc['run']['id']}: {metric_id} has no {profile.statistic} (no samples)")
        terms.append(Term(metric_id, value / 1e3, weight, metric_doc["valid"]))
    return Score(tuple(terms))
