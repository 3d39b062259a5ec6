"""Where the probe runs. A target lists its benches and runs a request, returning a validated result.

LocalTarget runs the probe binary on this machine as a worker process; FakeTarget replays recorded
result files, so that everything above it can be tested deterministically without measuring anything.
"""

import copy
import dataclasses
import functools
import hashlib
import json
import os
import subprocess
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from rtscope.model import result
from rtscope.targets import worker
from rtscope.model.catalogue import Bench, Param, Suite, param_type_of, parse_bench_list
from rtscope.errors import ProbeError, ProbeRejected, RtscopeError
from rtscope.model.request import RunRequest

# Fake runs all start at this moment, so that replaying is deterministic.
_FAKE_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


class Target(Protocol):
    """A machine the probe runs on."""

    def list_benches(self) -> list[Bench]:
        """The benches this target can run."""

    def list_suites(self) -> list[Suite]:
        """The named sets of benches this target offers."""

    def run(self, request: RunRequest) -> result.Result:
        """Run ``request`` and return its validated result.

        A run stopped by Ctrl-C returns what was measured until then (run.status "interrupted").
        """


def make_target(spec: str, probe: Path) -> Target:
    """The target named by a ``--target`` value: "local" (runs ``probe``) or "fake:DIR" (replays DIR)."""
    if spec == "local":
        return LocalTarget(probe)
    if spec.startswith("fake:") and len(spec) > len("fake:"):
        return FakeTarget(Path(spec.removeprefix("fake:")))
    raise RtscopeError(f"unknown target {spec!r} (local or fake:DIR)")


class LocalTarget:
    """Runs the probe binary on this machine, streaming its progress and warnings to stderr."""

    def __init__(self, probe: Path):
        self.probe = probe

    def list_benches(self) -> list[Bench]:
        """The benches of ``rtscope-probe list --json``."""
        return self._catalogue[0]

    def list_suites(self) -> list[Suite]:
        """The suites of ``rtscope-probe list --json``."""
        return self._catalogue[1]

    @functools.cached_property
    def _catalogue(self) -> tuple[list[Bench], list[Suite]]:
        command = [self._executable(), "list", "--json"]
        completed = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                   check=False)
        if completed.returncode != 0:
            reason = worker.last_line(completed.stderr) or f"exit status {completed.returncode}"
            raise ProbeError(f"{self.probe} list failed: {reason}")
        return parse_bench_list(completed.stdout, f"{self.probe} list --json")

    def run(self, request: RunRequest) -> result.Result:
        """Run the probe on ``request``; it writes its result to a scratch file that is read back.

        Exit status 2 from the probe (bad input) raises ProbeRejected: the probe printed why;
        a crash or a missing or invalid result raises ProbeError.
        """
        probe = self._executable()
        with tempfile.TemporaryDirectory(prefix="rtscope-") as scratch:
            output = Path(scratch) / "result.json"
            status, last_line = worker.run([probe, "run", *request.probe_args(), "--json", str(output)])
            return _read_outcome(status, last_line, output)

    def _executable(self) -> str:
        if not self.probe.exists():
            raise RtscopeError(f"probe not built at {self.probe} (run make -C probe)")
        if self.probe.is_dir() or not os.access(self.probe, os.X_OK):
            raise RtscopeError(f"probe at {self.probe} is not an executable file")
        return str(self.probe)


def _read_outcome(status: int, last_line: str, output: Path) -> result.Result:
    """The result the probe wrote to ``output``, given how it exited."""
    if status == 2:
        raise ProbeRejected(last_line or "the probe rejected its arguments")
    if status < 0:
        raise ProbeError(f"the probe was killed by {worker.signal_name(-status)}" + _quoted(last_line))
    if status not in (0, 1, 130):
        raise ProbeError(f"the probe exited with status {status}" + _quoted(last_line))
    if not output.exists():
        if status == 130:
            raise KeyboardInterrupt  # stopped before it had anything to write
        raise ProbeError(f"the probe exited with status {status} without writing a result")
    try:
        return result.parse(output.read_text(encoding="utf-8"), "the probe's result")
    except RtscopeError as error:
        raise ProbeError(str(error)) from None


def _quoted(line: str) -> str:
    return f": {line}" if line else ""


class FakeTarget:
    """Replays the result files (*.json) recorded in a directory, in file-name order.

    For each requested bench it takes the bench and its metrics from the first recording that has the
    bench; system, timing and granted configuration come from the recording of the first bench. The
    run is written in the current result format (older recordings' metrics get the fields they lack, as
    null), gets a new id (a hash of the request), a fixed start time, the request's label and the probe
    arguments the request stands for: the same request always gives the same result. Nothing about
    privilege is acted out (--refuse-privilege included): the granted configuration and the warnings
    are the recording's.
    """

    def __init__(self, directory: Path):
        if not directory.is_dir():
            raise RtscopeError(f"fake target directory {directory} does not exist")
        self._recordings = [result.load(path).doc for path in sorted(directory.glob("*.json"))]
        if not self._recordings:
            raise RtscopeError(f"fake target directory {directory} holds no result files (*.json)")

    def list_benches(self) -> list[Bench]:
        """The recorded benches; recorded parameter values stand in as defaults."""
        return [_recorded_bench(bench_id, self._recording_of(bench_id))
                for bench_id in dict.fromkeys(b["id"] for doc in self._recordings for b in doc["benches"])]

    def list_suites(self) -> list[Suite]:
        """None: recordings hold benches, not the suites they were run as."""
        return []

    def run(self, request: RunRequest) -> result.Result:
        """The replayed result of ``request`` (no measuring)."""
        benches = [self._replayed_bench(bench_id, request) for bench_id in request.benches]
        metrics = [result.current_metric(m) for bench_id in request.benches
                   for m in self._recording_of(bench_id)["metrics"] if m["bench"] == bench_id]
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
        bench = copy.deepcopy(next(b for b in recording["benches"] if b["id"] == bench_id))
        catalogue = _recorded_bench(bench_id, recording)
        for setting in request.params:
            param = catalogue.param(setting.key)
            if setting.applies_to(bench_id) and param is not None:
                bench["params"][setting.key] = param.convert(setting.value)
        bench["elapsed_s"] = request.duration_s
        return bench


def _recorded_bench(bench_id: str, recording: dict[str, Any]) -> Bench:
    bench = next(b for b in recording["benches"] if b["id"] == bench_id)
    params = tuple(Param(name, param_type_of(value), value if isinstance(value, str) else json.dumps(value),
                         None, None, "as recorded")
                   for name, value in bench["params"].items())
    metrics = tuple(m["id"] for m in recording["metrics"] if m["bench"] == bench_id)
    return Bench(bench_id, f"replayed from a recording made on {recording['system']['hostname']}",
                 metrics, params)


def _replayed_request(request: RunRequest, recorded: dict[str, Any]) -> dict[str, Any]:
    """The recorded requested configuration, with what ``request`` says in place of what was recorded."""
    return {**recorded, "policy": request.policy, "priority": request.priority, "cpus": list(request.cpus),
            "mlockall": request.mlock,
            "cpu_latency_us": recorded["cpu_latency_us"] if request.cpu_latency else None}


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
    }


def _utc_text(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
