"""Figures a study published, carried as data (src/rtscope/published/NAME.toml, each naming its source),
to be shown beside a user's runs as context: other hardware, another time, means only — never a verdict,
and never in a ratio of the user's own figures.

A study file holds its platforms, its per-thread-count times (execution, waiting, response; ms), the
same per operation family where it has them, and its crypto throughputs (MB/s) with the rtscope metric
that measures each algorithm.
"""

import tomllib
from dataclasses import dataclass
from pathlib import Path

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
class Study:
    """A study's published figures and where they come from."""

    name: str
    source: str
    statistic: str
    platforms: dict[str, str]  # name: "board, CPU, OS"
    times: tuple[Times, ...]
    crypto: tuple[Throughput, ...]
    crypto_metrics: dict[str, str]  # rtscope metric id: the study's algorithm

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
        for threads, platform, *figures in table["times"]["rows"]
    ]
    times += [
        Times(threads, platform, family, *(ms * NS_PER_MS for ms in figures))
        for threads, platform, family, *figures in table.get("times_by_op", {}).get("rows", [])
    ]
    crypto = table.get("crypto", {})
    return Study(
        table["name"],
        table["source"],
        table["statistic"],
        {key: f"{p['board']}, {p['cpu']}, {p['os']}" for key, p in table["platforms"].items()},
        tuple(times),
        tuple(Throughput(algorithm, os, mb * BYTES_PER_MB) for algorithm, os, _, mb in crypto.get("rows", [])),
        dict(crypto.get("metrics", {})),
    )
