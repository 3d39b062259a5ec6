"""Figures a study published, carried as data (src/rtscope/published/NAME.toml, each naming its source),
to be shown beside a user's runs as context: other hardware, another time, means only — never a verdict,
and never in a ratio of the user's own figures.

A study file holds its platforms (board, CPU, OS), its time base, and the tables it published, each with
the rtscope metrics that measure what a row does: the application workload's per-thread-count times
(execution, waiting, response; ms) and crypto throughputs (MB/s) of a single-board study; Thread-Metric's
iterations per period and ratios to its calibration test; per-operation costs (cycles) on two systems.
Which runs a study fits follows from those tables (:func:`refusal`).
"""

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtscope.errors import RtscopeError

STUDIES_DIR = Path(__file__).resolve().parents[1] / "published"
NS_PER_MS = 1e6
BYTES_PER_MB = 1e6
# The workload's operations by the family the study's tables name them by.
OP_FAMILIES = {"selection": "sort", "quick": "sort", "matrix_add": "matrix", "matrix_mul": "matrix"}


@dataclass(frozen=True)
class Times:
    """One published row: a platform's mean times in ns at a thread count, of an operation family
    ("all": the study's mix)."""

    threads: int
    platform: str
    family: str
    exec_ns: float
    wait_ns: float
    response_ns: float

    def of(self, metric_id: str) -> float:
        """The time of one of the workload's metrics (app.exec, app.wait, app.response)."""
        return {"app.exec": self.exec_ns, "app.wait": self.wait_ns, "app.response": self.response_ns}[metric_id]


@dataclass(frozen=True)
class Throughput:
    """One published crypto figure: an algorithm under an OS, in bytes/s."""

    algorithm: str
    os: str
    bytes_per_s: float


@dataclass(frozen=True)
class ThreadMetricTest:
    """One Thread-Metric test as the study printed it: its iterations per period and their ratio to the
    calibration test's."""

    test: str  # as the study names it
    iterations: int
    ratio: float


@dataclass(frozen=True)
class ThreadMetric:
    """A study's Thread-Metric table: its tests in its order, which of rtscope's tm.* counts what each
    counts, and what a reader must know of a row (one without a counterpart says why)."""

    period_s: float
    tests: tuple[ThreadMetricTest, ...]
    metrics: dict[str, str]  # rtscope metric id: the study's test
    notes: dict[str, str]  # the study's test (or a row of it not transcribed): the note

    def metrics_of(self, test: str) -> list[str]:
        """rtscope's metrics that count what ``test`` counts; empty when none does."""
        return [metric_id for metric_id, name in self.metrics.items() if name == test]


@dataclass(frozen=True)
class Operation:
    """One operation's published cost on each platform, in the study's unit."""

    name: str  # as the study names it
    costs: dict[str, float]  # platform: cost


@dataclass(frozen=True)
class Operations:
    """A study's per-operation table: each operation's cost per platform, which of rtscope's metrics
    measures what each does, how the study measured each family, and what a reader must know of a row."""

    unit: str
    operations: tuple[Operation, ...]
    metrics: dict[str, str]  # rtscope metric id: the study's operation
    method: dict[str, str]  # a family of operations: how the study measured it
    notes: dict[str, str]  # the study's operation: the note

    def metrics_of(self, name: str) -> list[str]:
        """rtscope's metrics that measure what operation ``name`` does; empty when none does."""
        return [metric_id for metric_id, op in self.metrics.items() if op == name]


@dataclass(frozen=True)
class Study:
    """A study's published figures and where they come from."""

    name: str
    source: str
    what: str  # what it published, in a few words
    statistic: str
    time_base: str  # what the study's figures count, and on what clock
    platforms: dict[str, str]  # name: "board, CPU, OS"
    times: tuple[Times, ...]
    crypto: tuple[Throughput, ...]
    crypto_metrics: dict[str, str]  # rtscope metric id: the study's algorithm
    thread_metric: ThreadMetric | None = None
    operations: Operations | None = None
    notes: str = ""  # what the study says of its own figures

    def times_at(self, threads: int, family: str) -> list[Times]:
        """The rows at ``threads`` of operation family ``family`` ("all", "sort", "matrix")."""
        return [t for t in self.times if t.threads == threads and t.family == family]

    def columns(self) -> list[tuple[str, str]]:
        """(platform, family) of every column a table of times shows, in the file's order."""
        return list(dict.fromkeys((t.platform, "all" if t.family == "all" else "op") for t in self.times))

    def throughputs(self, metric_id: str) -> list[Throughput]:
        """The published figures of the algorithm ``metric_id`` measures; empty when none matches."""
        algorithm = self.crypto_metrics.get(metric_id)
        return [t for t in self.crypto if t.algorithm == algorithm]

    def fitting(self, metric_ids: set[str]) -> dict[str, bool]:
        """Which of the study's tables has a counterpart among ``metric_ids``."""
        return {
            "workload": bool(self.times) and any(metric_id.startswith("app.") for metric_id in metric_ids),
            "crypto": bool(metric_ids & set(self.crypto_metrics)),
            "thread_metric": self.thread_metric is not None and bool(metric_ids & set(self.thread_metric.metrics)),
            "operations": self.operations is not None and bool(metric_ids & set(self.operations.metrics)),
        }


def refusal(study: Study, docs: Iterable[dict[str, Any]], *, ops: bool | None = None) -> str | None:
    """Why ``study`` cannot stand beside the runs ``docs`` (one line), None when it can: none of its tables
    has a counterpart among their metrics, or compare's table is not the one it stands beside (``ops``:
    whether compare shows the operation table; None for the report, which shows what fits)."""
    fitting = study.fitting({m["id"] for doc in docs for m in doc["metrics"]})
    beside = f"--published {study.name}"
    if not any(fitting.values()):
        return f"{beside}: the runs measured nothing the study published ({_what(study)})"
    if ops is True and [table for table, fits in fitting.items() if fits] == ["thread_metric"]:
        return (
            f"{beside}: its Thread-Metric figures stand beside the runs' ratios to tm.basic, which the operation "
            "table (--ops) does not show; compare without --ops"
        )
    if ops is False and [table for table, fits in fitting.items() if fits] == ["operations"]:
        return f"{beside}: its per-operation costs stand beside the operation table; compare with --ops"
    return None


def _what(study: Study) -> str:
    """What a study's tables hold, for a line that says it does not fit."""
    held = [
        *(["the application workload's times, app.*"] if study.times else []),
        *([f"crypto throughputs, {' '.join(study.crypto_metrics)}"] if study.crypto_metrics else []),
        *([f"Thread-Metric, {' '.join(study.thread_metric.metrics)}"] if study.thread_metric else []),
        *([f"per-operation costs, {' '.join(study.operations.metrics)}"] if study.operations else []),
    ]
    return "; ".join(held)


def names() -> list[str]:
    """The studies rtscope carries."""
    return sorted(path.stem for path in STUDIES_DIR.glob("*.toml"))


def load(name: str) -> Study:
    """The study called ``name``; an RtscopeError naming the ones there are when there is none."""
    path = STUDIES_DIR / f"{name}.toml"
    if name not in names():
        raise RtscopeError(f"no published figures called {name!r} (there are: {', '.join(names())})")
    table = tomllib.loads(path.read_text(encoding="utf-8"))
    times = [
        Times(threads, platform, "all", *(ms * NS_PER_MS for ms in figures))
        for threads, platform, *figures in table.get("times", {}).get("rows", [])
    ]
    times += [
        Times(threads, platform, family, *(ms * NS_PER_MS for ms in figures))
        for threads, platform, family, *figures in table.get("times_by_op", {}).get("rows", [])
    ]
    crypto = table.get("crypto", {})
    return Study(
        table["name"],
        table["source"],
        table["what"],
        table["statistic"],
        table["time_base"],
        {key: _platform_text(p) for key, p in table["platforms"].items()},
        tuple(times),
        tuple(Throughput(algorithm, os, mb * BYTES_PER_MB) for algorithm, os, _, mb in crypto.get("rows", [])),
        dict(crypto.get("metrics", {})),
        _thread_metric(table["thread_metric"]) if "thread_metric" in table else None,
        _operations(table["operations"], list(table["platforms"])) if "operations" in table else None,
        table.get("notes", ""),
    )


def _thread_metric(table: dict[str, Any]) -> ThreadMetric:
    return ThreadMetric(
        table["period_s"],
        tuple(ThreadMetricTest(test, iterations, ratio) for test, iterations, ratio in table["rows"]),
        dict(table["metrics"]),
        dict(table.get("notes", {})),
    )


def _operations(table: dict[str, Any], platforms: list[str]) -> Operations:
    """The table of operations, each row's costs in the order of the study's platforms."""
    return Operations(
        table["unit"],
        tuple(Operation(name, dict(zip(platforms, costs, strict=True))) for name, *costs in table["rows"]),
        dict(table["metrics"]),
        dict(table.get("method", {})),
        dict(table.get("notes", {})),
    )


def _platform_text(platform: dict[str, Any]) -> str:
    """ "i.MX RT1050 EVK, Cortex-M7 600 MHz × 1, Zephyr 1.11.99": what a study's file says of a platform."""
    cpu = platform["cpu"] + (f" {platform['mhz']} MHz" if "mhz" in platform else "")
    cpu += f" × {platform['cores']}" if "cores" in platform else ""
    return ", ".join([platform["board"], cpu, platform["os"], *([platform["setup"]] if "setup" in platform else [])])
