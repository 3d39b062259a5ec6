"""Where the probe runs. A target lists its benches and runs a request, returning a validated result;
its transport (rtscope.targets.transport) is how rtscope reaches the machine, for the probe, the loads
and the facts about the system alike.

LocalTarget runs the probe on this machine; FakeTarget replays recorded result files, so that everything
above it can be tested deterministically without measuring anything.
"""

from pathlib import Path
from typing import Any, Protocol

from rtscope.errors import RtscopeError
from rtscope.model import result
from rtscope.model.catalogue import Bench, Suite
from rtscope.model.request import RunRequest
from rtscope.targets.transport import Transport


class Target(Protocol):
    """A machine the probe runs on."""

    name: str
    transport: Transport

    def list_benches(self) -> list[Bench]:
        """The benches this target can run."""

    def list_suites(self) -> list[Suite]:
        """The named sets of benches this target offers."""

    def run(self, request: RunRequest) -> result.Result:
        """Run ``request`` and return its validated result.

        A run stopped by Ctrl-C returns what was measured until then (run.status "interrupted").
        """

    def record(self) -> dict[str, Any]:
        """What a result keeps of the target: its name, kind and time base (format 4's ``target``)."""

    def probe_system(self) -> dict[str, Any]:
        """What the probe there knows of the system: the ``system`` every result records, with the
        preemption model and virtualisation by the probe's rules (``rtscope-probe system``, run as the
        probe is run there). RtscopeError in one line when the probe cannot run there."""


def make_target(spec: str, probe: Path) -> Target:
    """The target named by a ``--target`` value: "local" (runs ``probe``), "ssh://[user@]host[:port]" (a
    board, which gets the static probe for its architecture), "labgrid:ENV.yaml[:NAME]" (a board of a
    labgrid environment, reached by its SSHDriver), "qemu:ARCH:FLAVOUR[:…]" (a Debian kernel in QEMU),
    "qemu:BOARD:OS[:shift=N]" (an RTOS image booted on an emulated board: qemu:mps2-an385:freertos) or
    "fake:DIR" (replays DIR)."""
    # Imported here: each target module imports this one for the protocol.
    from rtscope.targets.fake import FakeTarget
    from rtscope.targets.labgrid import LabgridTarget
    from rtscope.targets.local import LocalTarget
    from rtscope.targets.qemu import QemuTarget
    from rtscope.targets.qemu_board import QemuBoardTarget, names_a_board
    from rtscope.targets.ssh import SshTarget

    if spec == "local":
        return LocalTarget(probe)
    if spec.startswith("ssh://"):
        return SshTarget(spec)
    if spec.startswith("labgrid:"):
        return LabgridTarget(spec)
    if spec.startswith("qemu:"):
        return QemuBoardTarget(spec) if names_a_board(spec) else QemuTarget(spec)
    if spec.startswith("fake:") and len(spec) > len("fake:"):
        return FakeTarget(Path(spec.removeprefix("fake:")))
    raise RtscopeError(
        f"unknown target {spec!r} (local, ssh://[user@]host[:port], labgrid:ENV.yaml[:NAME], "
        "qemu:ARCH:FLAVOUR, qemu:mps2-an385:freertos or fake:DIR)"
    )
