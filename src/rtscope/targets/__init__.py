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


# How long a labgrid-place: or labgrid-tag: target waits while its places are busy, unless --wait says.
DEFAULT_WAIT_S = 600.0


@dataclass(frozen=True)
class TargetOptions:
    """What the command line says of a target besides its ``--target`` value, handed to the target that
    needs it: the labgrid coordinator of labgrid-place: and labgrid-tag: targets (HOST:PORT, "" when none)
    and how long they wait for a busy place."""

    coordinator: str = ""
    wait_s: float = DEFAULT_WAIT_S

    def argv(self) -> list[str]:
        """These options on a command line of rtscope's (a campaign's worker's)."""
        return [*(["--coordinator", self.coordinator] if self.coordinator else []), "--wait", f"{self.wait_s:g}"]


def make_target(spec: str, probe: Path, options: TargetOptions | None = None) -> Target:
    """The target the ``--target`` value ``spec`` names, by its kind (rtscope.targets.registry: every kind
    there is); ``probe`` is the probe a local target runs, ``options`` the command line's --coordinator
    and --wait."""
    # Imported here: the registry imports this module (and each kind's module, when it makes one, imports both).
    from rtscope.targets import registry

    return registry.make_target(spec, probe, options)


def boards(spec: str) -> int:
    """How many boards the target ``spec`` names at once: N for labgrid-tag:…:count=N (places with those
    tags, each taken by a target of that spec), else 1."""
    from rtscope.targets import registry

    return registry.boards(spec)


def one_board(spec: str) -> str:
    """``spec``, when it names one board; RtscopeError for several (a command measures one; a campaign's
    targets axis measures several, each by a worker of its own)."""
    if boards(spec) > 1:
        raise RtscopeError(f"--target {spec}: count above 1 is for a campaign's targets; this command takes one board")
    return spec
