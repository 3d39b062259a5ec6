"""A target that replays recorded result files instead of measuring: deterministic tests of everything
above the target."""

import copy
import dataclasses
import functools
import hashlib
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from rtscope.errors import RtscopeError
from rtscope.model import result
from rtscope.model.catalogue import Bench, Catalogue, Param, param_type_of
from rtscope.model.request import RunRequest
from rtscope.targets import OnTransport
from rtscope.targets.transport import LocalTransport

# Fake runs all start at this moment, so that replaying is deterministic.
_FAKE_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


class FakeTarget:
    """Replays the result files (*.json) recorded in a directory, in file-name order.

    For each requested bench it takes the bench and its metrics from the first recording that has the
    bench; system, timing and granted configuration come from the recording of the first bench. The
    run is written in the current result format (older recordings' metrics get the fields they lack, as
    null), gets a new id (a hash of the request), a fixed start time, the request's label and the probe
    arguments the request stands for (and its seed): the same request always gives the same result. Nothing about
    privilege is acted out (--refuse-privilege included): the granted configuration and the warnings
    are the recording's.
    """

    def __init__(self, directory: Path):
        self.name = f"fake:{directory}"
        # Nothing is measured, but loads asked for still run, on this machine.
        self.transport = LocalTransport()
        if not directory.is_dir():
            raise RtscopeError(f"fake target directory {directory} does not exist")
        self._recordings = [result.load(path).doc for path in sorted(directory.glob("*.json"))]
        if not self._recordings:
            raise RtscopeError(f"fake target directory {directory} holds no result files (*.json)")

    @functools.cached_property
    def catalogue(self) -> Catalogue:
        """The recorded benches, recorded parameter values standing in as defaults; no suites (recordings
        hold benches, not the suites they were run as)."""
        benches = dict.fromkeys(b["id"] for doc in self._recordings for b in doc["benches"])
        return Catalogue([_recorded_bench(bench_id, self._recording_of(bench_id)) for bench_id in benches], [])

    def load_place(self) -> OnTransport:
        """This machine: the loads asked for run here, though nothing is measured under them."""
        return OnTransport()

    def record(self) -> dict[str, Any]:
        """Replayed figures: measured once, elsewhere."""
        return {"name": self.name, "kind": "fake", "time_base": "replayed"}

    def run(self, request: RunRequest) -> result.Result:
        """The replayed result of ``request`` (no measuring)."""
        benches = [self._replayed_bench(bench_id, request) for bench_id in request.benches]
        metrics = [
            result.current_metric(m)
            for bench_id in request.benches
            for m in self._recording_of(bench_id)["metrics"]
            if m["bench"] == bench_id
        ]
        base = self._recording_of(request.benches[0])
        doc = {
            "format": result.FORMAT,
            "version": result.VERSION,
            "run": _fake_run(request, base["run"], [b["status"] for b in benches]),
            "system": copy.deepcopy(base["system"]),
            "timing": copy.deepcopy(base["timing"]),
            "config": {
                "requested": _replayed_request(request, base["config"]["requested"]),
                "granted": copy.deepcopy(base["config"]["granted"]),
                "warnings": list(base["config"]["warnings"]),
            },
            "benches": benches,
            "metrics": metrics,
        }
        return result.from_doc(doc, "fake target result")

    def _recording_of(self, bench_id: str) -> dict[str, Any]:
        for doc in self._recordings:
            if any(b["id"] == bench_id for b in doc["benches"]):
                return doc
        raise RtscopeError(f"the fake target has no recording of bench {bench_id!r}")

    def _replayed_bench(self, bench_id: str, request: RunRequest) -> dict[str, Any]:
        recording = self._recording_of(bench_id)
        bench: dict[str, Any] = copy.deepcopy(next(b for b in recording["benches"] if b["id"] == bench_id))
        catalogue = _recorded_bench(bench_id, recording)
        for setting in request.params:
            param = catalogue.param(setting.key)
            if setting.applies_to(bench_id) and param is not None:
                bench["params"][setting.key] = param.convert(setting.value)
        bench["elapsed_s"] = request.duration_s
        return bench

    def probe_system(self) -> dict[str, Any]:
        """The system of the first recording: what the replayed runs say they ran on (nothing runs)."""
        return copy.deepcopy(self._recordings[0]["system"])


def _recorded_bench(bench_id: str, recording: dict[str, Any]) -> Bench:
    bench = next(b for b in recording["benches"] if b["id"] == bench_id)
    params = tuple(
        Param(
            name,
            param_type_of(value),
            value if isinstance(value, str) else json.dumps(value),
            None,
            None,
            "as recorded",
        )
        for name, value in bench["params"].items()
    )
    metrics = tuple(m["id"] for m in recording["metrics"] if m["bench"] == bench_id)
    return Bench(bench_id, f"replayed from a recording made on {recording['system']['hostname']}", metrics, params)


def _replayed_request(request: RunRequest, recorded: dict[str, Any]) -> dict[str, Any]:
    """The recorded requested configuration, with what ``request`` says in place of what was recorded."""
    return {
        **recorded,
        "policy": request.policy,
        "priority": request.priority,
        "cpus": list(request.cpus),
        "mlockall": request.mlock,
        "cpu_latency_us": recorded["cpu_latency_us"] if request.cpu_latency else None,
        **({"rt_throttling_off": request.rt_throttling_off} if "rt_throttling_off" in recorded else {}),
    }


def _fake_run(request: RunRequest, recorded: dict[str, Any], bench_statuses: list[str]) -> dict[str, Any]:
    digest = hashlib.sha256(json.dumps(dataclasses.asdict(request), sort_keys=True).encode())
    finished = _FAKE_EPOCH + timedelta(seconds=request.duration_s * len(request.benches))
    if "failed" in bench_statuses:
        status = "failed"
    elif "interrupted" in bench_statuses:
        status = "interrupted"
    else:
        status = "complete"
    return {
        "id": digest.hexdigest()[:16],
        "started": _utc_text(_FAKE_EPOCH),
        "finished": _utc_text(finished),
        "label": request.label,
        "probe_version": recorded["probe_version"],
        "port": recorded["port"],
        "status": status,
        "argv": ["rtscope-probe", "run", *request.probe_args()],
        **({"seed": request.seed} if request.seed is not None else {}),
    }


def _utc_text(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
