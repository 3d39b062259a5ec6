"""The probe on this machine, through the local transport."""

import contextlib
import functools
import os
from pathlib import Path
from typing import Any

from rtscope import files
from rtscope.errors import ProbeError, ProbeRejected, RtscopeError
from rtscope.model import result
from rtscope.model.catalogue import Catalogue, parse_bench_list
from rtscope.model.request import RunRequest
from rtscope.targets import OnTransport, facts, probes, worker
from rtscope.targets.transport import FETCH_TIMEOUT_S, LocalTransport, Transport


class LocalTarget:
    """Runs the probe binary on this machine, streaming its progress and warnings to stderr."""

    name = "local"

    def __init__(self, probe: Path, transport: Transport | None = None):
        self.probe = probe
        self.transport = transport or LocalTransport()

    @functools.cached_property
    def catalogue(self) -> Catalogue:
        """What ``rtscope-probe list --json`` lists."""
        return parse_bench_list(
            bench_list(self.transport, self._executable, str(self.probe)), f"{self.probe} list --json"
        )

    def load_place(self) -> OnTransport:
        """Here, beside the probe."""
        return OnTransport()

    def record(self) -> dict[str, Any]:
        """This machine, on its own clocks."""
        return {"name": self.name, "kind": "local", "time_base": "hardware"}

    def run(self, request: RunRequest) -> result.Result:
        """Run the probe on ``request``: see run_probe."""
        return run_probe(self.transport, self._executable, request)

    @functools.cached_property
    def _executable(self) -> str:
        """The probe's path, checked, and built first when it is rtscope's own: once per target, though
        a run asks for it twice (its catalogue, then the run)."""
        if self.probe == probes.BUILD_DIR / "rtscope-probe":
            probes.native()  # rtscope's own, kept up to date; one that --probe or RTSCOPE_PROBE names is the user's
        if not self.probe.exists():
            raise RtscopeError(f"probe not built at {self.probe} (run make -C probe)")
        if self.probe.is_dir() or not os.access(self.probe, os.X_OK):
            raise RtscopeError(f"probe at {self.probe} is not an executable file")
        return str(self.probe)

    def probe_system(self) -> dict[str, Any]:
        """What the probe knows of this machine (rtscope.targets.facts.probe_system)."""
        return facts.probe_system(self.transport, self._executable, str(self.probe))


def bench_list(transport: Transport, probe: str, who: str) -> str:
    """What ``probe list --json`` prints there; ProbeError "WHO list failed: why" when it fails."""
    completed = transport.run([probe, "list", "--json"], timeout_s=FETCH_TIMEOUT_S)
    if completed.status != 0:
        reason = worker.last_line(completed.stderr.decode(errors="replace")) or f"exit status {completed.status}"
        raise ProbeError(f"{who} list failed: {reason}")
    return completed.stdout.decode(errors="replace")


def kept_catalogue(transport: Transport, probe: str, build: str, who: str) -> Catalogue:
    """The benches and suites of the probe at ``probe`` there, whose build has the sha256 ``build``: a
    function of the build, so asked there once per build and kept beside the builds here
    (probe/build/catalogue-HASH.json). ``who`` names the target in messages."""
    kept = probes.BUILD_DIR / f"catalogue-{build[:16]}.json"
    with contextlib.suppress(OSError, ProbeError):
        return parse_bench_list(kept.read_text(encoding="utf-8"), str(kept))
    text = bench_list(transport, probe, f"{who}: the probe's")
    catalogue = parse_bench_list(text, f"{who}: rtscope-probe list --json")
    with contextlib.suppress(OSError):
        files.keep(kept, text.encode())
    return catalogue


def run_probe(transport: Transport, probe: str, request: RunRequest) -> result.Result:
    """Run the probe at ``probe`` there on ``request``; it writes its result on its stdout, which comes
    back with its exit status.

    Exit status 2 from the probe (bad input) raises ProbeRejected: the probe printed why; a crash or a
    missing or invalid result raises ProbeError; KeyboardInterrupt when it was stopped before it had
    anything to write.
    """
    status, last_line, output = transport.run_streaming([probe, "run", *request.probe_args(), "--json", "-"])
    return read_outcome(status, last_line, output)


def read_outcome(status: int, last_line: str, output: bytes) -> result.Result:
    """The result the probe wrote (``output``), given how it exited."""
    if status == 2:
        raise ProbeRejected(last_line or "the probe rejected its arguments")
    if status < 0:
        raise ProbeError(f"the probe was killed by {worker.signal_name(-status)}" + _quoted(last_line))
    if status not in (0, 1, 130):
        raise ProbeError(f"the probe exited with status {status}" + _quoted(last_line))
    if not output.strip():
        if status == 130:
            raise KeyboardInterrupt  # stopped before it had anything to write
        raise ProbeError(f"the probe exited with status {status} without writing a result")
    if len(output) > result.MAX_FILE_BYTES:
        raise ProbeError(f"the probe's result is larger than {result.MAX_FILE_BYTES >> 20} MiB")
    try:
        return result.parse(output.decode("utf-8"), "the probe's result")
    except UnicodeDecodeError as error:
        raise ProbeError(f"cannot read the probe's result: {error}") from None
    except RtscopeError as error:
        raise ProbeError(str(error)) from None


def _quoted(line: str) -> str:
    return f": {line}" if line else ""
