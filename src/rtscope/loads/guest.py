"""Loads inside a guest that runs one job per boot (``--target qemu:…``): the kinds of ``--load`` with
their parameters, made of busybox commands (LoadKind.busybox), and run by the guest's own shell around
the probe, in guest time — nothing crosses between host and guest while it measures.

The shell starts each command in a session of its own (``setsid``), lets them settle, records every
process's CPU time (/proc/PID/stat) with the guest's uptime at the settle's middle and end, as the
probe starts and as it ends, then stops them (SIGTERM, SIGKILL a second later) and records what is left.
The host reads those snapshots after the boot and judges them as rtscope.loads.session judges a load on
any target: each load used at least MIN_EXPECTED_SHARE of the CPU time it should over the second half of
the settle time (else the run is refused), it still ran when the probe ended (else the result says it
did not hold), its CPUs' worth of time during the run and, for net, its loopback bytes per second.
"""

import shlex

from rtscope.errors import RtscopeError
from rtscope.loads.kinds import LoadSpec, Place
from rtscope.loads.session import MIN_EXPECTED_SHARE, ActiveLoad, Snapshot, groups_cpu_s, loopback_bytes, parse_stats
from rtscope.model import result
from rtscope.model.request import RunRequest
from rtscope.targets import GuestTarget

SCRATCH = "/tmp/loads"
PORT = 5201
# The snapshots the guest's shell takes, in order, each a file load-NAME in the job's output directory.
_SNAPSHOTS = ("settle-mid", "settle-end", "run-start", "run-end", "stopped")
_STOP_GRACE_S = 1


def check(specs: tuple[LoadSpec, ...], cpus: int) -> None:
    """RtscopeError in one line for a load whose settings have no busybox equivalent."""
    place = Place(SCRATCH, PORT, cpus)
    for spec in specs:
        spec.kind.busybox(spec.values(), place)


def measure(
    target: GuestTarget, request: RunRequest, specs: tuple[LoadSpec, ...], settle_s: float
) -> tuple[result.Result, list[ActiveLoad]]:
    """Run ``request`` on ``target`` under ``specs``, started, settled for ``settle_s`` seconds of guest
    time and stopped in the guest; the result and each load with what was measured of it."""
    place = Place(SCRATCH, PORT, target.cpus)
    active = [ActiveLoad(spec, place) for spec in specs]
    for load in active:
        load.commands = load.spec.kind.busybox(load.spec.values(), place)
    started = [load for load in active if load.commands]
    if not started:
        return target.run_with(request, "", "", 0.0)[0], active
    out = target.out_dir
    snap = (
        f'snap() {{ {{ echo "== uptime"; cat /proc/uptime; echo "== net"; cat /proc/net/dev; echo "== stat"; '
        f"cat /proc/[0-9]*/stat 2>/dev/null; }} >{out}/load-$1; }}"
    )
    starts = [
        f"setsid {shlex.join(command)} >{SCRATCH}/{number}.log 2>&1 &\necho $! >>{out}/load-groups"
        for number, command in enumerate(command for load in started for command in load.commands)
    ]
    half = f"{settle_s / 2:.3f}"
    before = "\n".join(
        [
            snap,
            f"mkdir -p {SCRATCH}",
            *starts,
            f"sleep {half}",
            "snap settle-mid",
            f"sleep {half}",
            "snap settle-end",
            "snap run-start",
        ]
    )
    after = "\n".join(
        [
            "snap run-end",
            f"for g in $(cat {out}/load-groups); do kill -TERM -$g 2>/dev/null; done",
            f"sleep {_STOP_GRACE_S}",
            f"for g in $(cat {out}/load-groups); do kill -KILL -$g 2>/dev/null; done",
            "wait",
            "snap stopped",
        ]
    )
    run_result, files = target.run_with(
        request,
        before,
        after,
        settle_s + _STOP_GRACE_S,
        kernel_module=any(load.spec.kind.kernel_module for load in started),
    )
    _judge(target.name, started, files)
    return run_result, active


def _judge(name: str, started: list[ActiveLoad], files: dict[str, bytes]) -> None:
    """Fill in each load's figures from the guest's snapshots; RtscopeError for one that did not run."""
    try:
        groups = [int(word) for word in files["load-groups"].split()]
        snapshots = {which: _snapshot(files[f"load-{which}"].decode(errors="replace")) for which in _SNAPSHOTS}
    except (KeyError, ValueError):
        raise RtscopeError(f"{name}: the guest did not record its loads") from None
    wanted = sum(load.expected_cpus for load in started)
    crowding = min(1.0, started[0].place.cpus / wanted) if wanted else 1.0
    for load in started:
        ordered, groups = groups[: len(load.commands)], groups[len(load.commands) :]
        own = set(ordered)
        settled = _cpus_used(snapshots["settle-mid"], snapshots["settle-end"], own)
        expected = load.expected_cpus * crowding
        if settled < expected * MIN_EXPECTED_SHARE:
            raise RtscopeError(
                f"load {load.spec} is not really running in the guest: its processes used "
                f"{settled:g} CPUs in the settle time, expected about {expected:.3g}"
            )
        load.cpus_used = round(_cpus_used(snapshots["run-start"], snapshots["run-end"], own), 3)
        if load.spec.kind.name == "net":
            uptime = snapshots["run-end"][0] - snapshots["run-start"][0]
            load.loopback_bytes_per_s = round((snapshots["run-end"][1] - snapshots["run-start"][1]) / max(uptime, 1e-3))
        load.processes = []  # they lived in the guest and are gone with it
        for command, group in zip(load.commands, ordered, strict=True):
            if not _alive(snapshots["run-end"][2], group):
                load.ended_early.append(f"{command[0]} ended before the probe did")
        load.left_behind = sum(_alive(snapshots["stopped"][2], group) for group in own)


def _snapshot(text: str) -> tuple[float, int, Snapshot]:
    """(uptime s, loopback bytes sent, processes) of one snapshot file."""
    sections: dict[str, list[str]] = {}
    current = ""
    for line in text.splitlines():
        if line.startswith("== "):
            current = line[3:]
            sections[current] = []
        else:
            sections.setdefault(current, []).append(line)
    uptime = float(sections["uptime"][0].split()[0])
    # A busybox load is a shell loop of short-lived programs: their time is the shell's once reaped.
    return uptime, loopback_bytes("\n".join(sections["net"])), parse_stats("\n".join(sections["stat"]), reaped=True)


def _cpus_used(first: tuple[float, int, Snapshot], last: tuple[float, int, Snapshot], groups: set[int]) -> float:
    elapsed = max(last[0] - first[0], 1e-3)
    return (groups_cpu_s(last[2], groups) - groups_cpu_s(first[2], groups)) / elapsed


def _alive(snapshot: Snapshot, group: int) -> bool:
    return any(pgid == group and state != "Z" for pgid, state, _ in snapshot)
