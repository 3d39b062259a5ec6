"""Square waves' operating envelopes (docs/wave.md): from runs of wave benches, per load (when the runs
differ in loads), per model and per nominal period, the max relative period error over the runs — the
worst case, the study's figure of merit — and each model's shortest period under each threshold.

A run tells its model and period by the labels of its wave.rel_error metric ({"model", "period_us"}),
or, when its wave bench failed before measuring, by that bench's parameters. A cell's worst is the
largest max of wave.rel_error over its valid runs; its median, the median of those maxima (the
spread over repetitions). Invalid runs take no part in either and are counted, as are failed ones.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import median
from typing import Any

from rtscope.analysis.grouping import group_name
from rtscope.model import result

REL_ERROR = "wave.rel_error"
# The requirements the envelope is told against: a max relative period error under 1 % and under 10 %.
THRESHOLDS = (0.01, 0.10)


@dataclass(frozen=True)
class EnvelopeCell:
    """One model at one period (under one load): what its runs give."""

    worst: float | None  # the max of wave.rel_error over the valid runs; None when none is valid
    median: float | None  # the median over the valid runs of their max
    valid: int  # runs with a valid wave.rel_error
    invalid: int  # runs whose wave.rel_error is invalid (not counted in worst and median)
    failed: int  # runs whose wave bench failed without measuring


@dataclass(frozen=True)
class Reach:
    """How far a model goes under one threshold: the shortest period (µs) whose worst stays under it
    (None: no period does), and whether every longer period with a figure stays under it too."""

    threshold: float
    shortest_us: float | None
    monotone: bool


@dataclass(frozen=True)
class Model:
    """A model's row: a cell per period of its panel (None where it was not measured), its reaches per
    threshold (in the order of THRESHOLDS)."""

    name: str
    cells: tuple[EnvelopeCell | None, ...]
    reaches: tuple[Reach, ...]


@dataclass(frozen=True)
class Panel:
    """The runs under one load (``load`` None when the runs do not differ in loads): their periods,
    longest first, and their models in order of first appearance."""

    load: str | None
    periods_us: tuple[float, ...]
    models: tuple[Model, ...]


def build(docs: Iterable[dict[str, Any]]) -> tuple[Panel, ...]:
    """The envelope panels of the wave runs among ``docs``; empty when none is a wave run."""
    found: list[tuple[str, str, float, str]] = []  # (load, model, period, "valid"|"invalid"|"failed") per run
    worsts: dict[tuple[str, str, float], list[float]] = {}
    for doc in docs:
        load = group_name(doc, "load", several_campaigns=False)
        for model, period_us, state, worst in _wave_figures(doc):
            found.append((load, model, period_us, state))
            if worst is not None:
                worsts.setdefault((load, model, period_us), []).append(worst)
    loads = list(dict.fromkeys(load for load, *_ in found))
    return tuple(_panel(load, len(loads) > 1, [f for f in found if f[0] == load], worsts) for load in loads)


def metric_name(metric_doc: dict[str, Any]) -> str:
    """A metric's id without the labels it may carry in braces: "wave.period"."""
    metric_id: str = metric_doc["id"]
    return metric_id.split("{")[0]


def reach(cells: Sequence[tuple[float, EnvelopeCell | None]], threshold: float) -> Reach:
    """The reach under ``threshold`` of a model whose cells are given with their periods (µs)."""
    judged = [(period, cell.worst) for period, cell in cells if cell is not None and cell.worst is not None]
    under = [period for period, worst in judged if worst < threshold]
    if not under:
        return Reach(threshold, None, True)
    shortest = min(under)
    return Reach(threshold, shortest, all(worst < threshold for period, worst in judged if period > shortest))


def _panel(
    load: str, named: bool, found: list[tuple[str, str, float, str]], worsts: dict[tuple[str, str, float], list[float]]
) -> Panel:
    """The panel of ``load``'s runs (``found``), named by its load when ``named``."""
    periods = tuple(sorted({period for _, _, period, _ in found}, reverse=True))
    models = []
    for name in dict.fromkeys(model for _, model, _, _ in found):
        cells = []
        for period in periods:
            states = [state for _, model, p, state in found if model == name and p == period]
            values = worsts.get((load, name, period), [])
            cells.append(
                EnvelopeCell(
                    max(values) if values else None,
                    median(values) if values else None,
                    states.count("valid"),
                    states.count("invalid"),
                    states.count("failed"),
                )
                if states
                else None
            )
        models.append(
            Model(
                name,
                tuple(cells),
                tuple(reach(list(zip(periods, cells, strict=True)), threshold) for threshold in THRESHOLDS),
            )
        )
    return Panel(load if named else None, periods, tuple(models))


def _wave_figures(doc: dict[str, Any]) -> Iterable[tuple[str, float, str, float | None]]:
    """(model, period in µs, state, worst) for each wave measured in ``doc``: its wave.rel_error's max
    when valid; a failed wave bench without that metric as ("failed", None)."""
    measured = set()
    for metric_doc in doc["metrics"]:
        labels = result.labels(metric_doc)
        if metric_name(metric_doc) == REL_ERROR and "model" in labels and "period_us" in labels:
            key = (str(labels["model"]), float(labels["period_us"]))
            measured.add(key)
            valid = metric_doc["valid"] and metric_doc["stats"]["max"] is not None
            yield (*key, "valid" if valid else "invalid", metric_doc["stats"]["max"] if valid else None)
    for bench in doc["benches"]:
        params = bench["params"]
        if (
            bench["id"].startswith("wave.")
            and bench["status"] == "failed"
            and "model" in params
            and "period_us" in params
        ):
            key = (str(params["model"]), float(params["period_us"]))
            if key not in measured:
                yield (*key, "failed", None)
