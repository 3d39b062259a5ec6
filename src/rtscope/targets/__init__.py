"""Where the probe runs. A target offers a catalogue of benches and suites, says where disturbance loads
run beside its probe (through its transport, inside its guest in the same boot, or nowhere), and runs a
request, returning a validated result; its transport (rtscope.targets.transport) is how rtscope reaches
the machine, for the probe, the loads and the facts about the system alike.

LocalTarget runs the probe on this machine; FakeTarget replays recorded result files, so that everything
above it can be tested deterministically without measuring anything.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from rtscope.errors import RtscopeError
from rtscope.model import result
from rtscope.model.catalogue import Catalogue
from rtscope.model.request import RunRequest
from rtscope.targets.transport import Transport


class GuestTarget(Protocol):
    """A target whose probe runs in a guest booted per run, with shell text around it."""

    name: str
    cpus: int
    out_dir: str

    def run_with(
        self, request: RunRequest, before: str, after: str, guest_s: float, *, kernel_module: bool = False
    ) -> tuple[result.Result, dict[str, bytes]]:
        """Run ``request`` between ``before`` and ``after``; the result and the files left in out_dir.
        ``kernel_module``: the shell text needs rtscope's kernel module and its loaders (probe/kmod/)."""


@dataclass(frozen=True)
class OnTransport:
    """Loads run beside the probe through the target's transport: started before it, stopped after
    (rtscope.loads.session)."""


@dataclass(frozen=True)
class InGuest:
    """Loads run inside the guest, started and stopped by its shell around the probe in the same boot
    (rtscope.loads.guest)."""

    guest: GuestTarget


@dataclass(frozen=True)
class Nowhere:
    """The target cannot run loads: ``reason`` says why, in words that follow "cannot run loads: "."""

    reason: str


# Where a target's disturbance loads run.
LoadPlace = OnTransport | InGuest | Nowhere


class Target(Protocol):
    """A machine the probe runs on."""

    name: str

    @property
    def transport(self) -> Transport:
        """How rtscope reaches the machine: for the probe, the loads and the facts about the system."""

    @property
    def catalogue(self) -> Catalogue:
        """The benches this target can run and the named sets of them it offers."""

    def load_place(self) -> LoadPlace:
        """Where the disturbance loads of a run on this target run, if anywhere."""

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
    "labgrid-place:NAME" or "labgrid-tag:K=V[,K=V]" (a board reserved through the lab's labgrid
    coordinator, taken on first use), "qemu:BOARD:OS[:shift=N]" (an RTOS image booted on an emulated
    board: qemu:mps2-an385:freertos), "serial:DEVICE[:baud=N]" (a board the user flashed, on its serial
    line), "gdb://HOST:PORT[:board=…][:rtos=…]:serial=DEVICE" (a board whose image rtscope loads through a
    GDB server) or "fake:DIR" (replays DIR)."""
    # Imported here: each target module imports this one for the protocol.
    from rtscope.targets.fake import FakeTarget
    from rtscope.targets.local import LocalTarget
    from rtscope.targets.mcu.gdb_board import GdbBoardTarget
    from rtscope.targets.mcu.qemu_board import QemuBoardTarget, names_a_board
    from rtscope.targets.mcu.serial_board import SerialBoardTarget
    from rtscope.targets.qemu.debian import QemuTarget
    from rtscope.targets.remote.labgrid import LabgridTarget
    from rtscope.targets.remote.labgrid_places import PLACE, TAG, PlaceTarget
    from rtscope.targets.remote.ssh import SshTarget

    if spec == "local":
        return LocalTarget(probe)
    if spec.startswith("ssh://"):
        return SshTarget(spec)
    if spec.startswith((PLACE, TAG)):
        return PlaceTarget(spec)
    if spec.startswith("labgrid:"):
        return LabgridTarget(spec)
    if spec.startswith("qemu:"):
        return QemuBoardTarget(spec) if names_a_board(spec) else QemuTarget(spec)
    if spec.startswith("serial:"):
        return SerialBoardTarget(spec)
    if spec.startswith("gdb://"):
        return GdbBoardTarget(spec)
    if spec.startswith("fake:") and len(spec) > len("fake:"):
        return FakeTarget(Path(spec.removeprefix("fake:")))
    raise RtscopeError(
        f"unknown target {spec!r} (local, ssh://[user@]host[:port], labgrid:ENV.yaml[:NAME], "
        "labgrid-place:NAME, labgrid-tag:KEY=VALUE[,KEY=VALUE], "
        "qemu:ARCH:FLAVOUR, qemu:mps2-an385:freertos, serial:DEVICE, gdb://HOST:PORT:serial=DEVICE or fake:DIR)"
    )


def boards(spec: str) -> int:
    """How many boards the target ``spec`` names at once: N for labgrid-tag:…:count=N (places with those
    tags, each taken by a target of that spec), else 1."""
    from rtscope.targets.remote.labgrid_places import TAG
    from rtscope.targets.remote.labgrid_places import boards as places

    return places(spec) if spec.startswith(TAG) else 1


def one_board(spec: str) -> str:
    """``spec``, when it names one board; RtscopeError for several (a command measures one; a campaign's
    targets axis measures several, each by a worker of its own)."""
    if boards(spec) > 1:
        raise RtscopeError(f"--target {spec}: count above 1 is for a campaign's targets; this command takes one board")
    return spec
