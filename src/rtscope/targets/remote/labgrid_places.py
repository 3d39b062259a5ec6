"""Boards shared through a lab's labgrid coordinator: ``--target labgrid-place:NAME`` or
``labgrid-tag:KEY=VALUE[,KEY=VALUE][:count=N]``, the coordinator from ``--coordinator HOST:PORT`` (default:
``LG_COORDINATOR``), which the command line hands over in the TargetOptions with ``--wait``.

rtscope takes a board the way labgrid's own client does, never grabbing it: a reservation whose filter is
the place's name or the tags (the coordinator allocates a free place that matches, in the order the
reservations came), then an acquisition of the allocated place. While every matching place is busy it
waits, saying who holds them and for how long it has waited, at most ``--wait`` seconds. The board is
reached through the acquired place's NetworkService resource, by the ssh:// target's own transport
(rtscope.targets.remote.ssh: the user's OpenSSH, config and known_hosts, host keys checked). Nothing is taken
until the target is first used, so that a campaign can name places that its workers take.

Releasing: closing the transport releases the place and cancels the reservation; it is closed at exit,
which Ctrl-C reaches through KeyboardInterrupt and SIGTERM too (turned into one while a place is held).
The coordinator would keep the place of a SIGKILLed rtscope acquired, and its reservation, until someone
released it (``labgrid-client -p NAME release``, ``--kick`` for another user's): so each reservation has
a Guard, a process of its own that gives back what rtscope did not. Only a reservation still waiting or
allocated lapses by itself, 60 s after it was last polled.
"""

import asyncio
import contextlib
import logging
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Self

from rtscope.errors import RtscopeError
from rtscope.targets import TargetOptions, options
from rtscope.targets.registry import PLACE, PLACE_USAGE, TAG, TAG_OPTIONS, TAG_USAGE
from rtscope.targets.remote.labgrid import NOT_INSTALLED
from rtscope.targets.remote.ssh import SshTarget, SshTransport
from rtscope.targets.transport import sigterm_interrupts, undisturbed

if TYPE_CHECKING:
    from labgrid.remote.client import ClientSession

# How often a waiting reservation is polled (each poll keeps it from lapsing) and the wait reported.
_POLL_S = 1.0
_REPORT_EVERY_S = 10.0
# A coordinator that does not answer within this is down, for every call rtscope makes to it.
_ANSWER_S = 10.0
_NAME = re.compile(r"[a-z0-9_-]+", re.IGNORECASE)
_GIVEN_BACK = b"given back\n"


@dataclass(frozen=True)
class Claim:
    """What a labgrid-place: or labgrid-tag: target asks the coordinator for: a reservation filter (a
    place's name is its tag "name", as labgrid has it) and how many places."""

    spec: str
    tags: dict[str, str]
    count: int = 1
    # The command line's --coordinator and --wait.
    given: TargetOptions = field(default_factory=TargetOptions)

    @property
    def address(self) -> str:
        """The coordinator's HOST:PORT; RtscopeError when none was given."""
        if not self.given.coordinator:
            raise RtscopeError("labgrid targets need a coordinator: --coordinator HOST:PORT or LG_COORDINATOR")
        return self.given.coordinator

    @property
    def place(self) -> str | None:
        """The place a labgrid-place: target names (None: a labgrid-tag: target)."""
        return self.tags["name"] if self.spec.startswith(PLACE) else None

    @property
    def what(self) -> str:
        if self.place:
            return f"place {self.place}"
        return "a place tagged " + ",".join(f"{key}={value}" for key, value in self.tags.items())


def parse_spec(spec: str, given: TargetOptions | None = None) -> Claim:
    """``labgrid-place:NAME`` or ``labgrid-tag:K=V[,K=V][:count=N]`` as a Claim (``given``: the command line's
    --coordinator and --wait); RtscopeError when it is not one. Names, keys and values are labgrid's:
    letters, digits, "_" and "-"."""
    given = given or TargetOptions()
    if spec.startswith(PLACE):
        name = spec.removeprefix(PLACE)
        if not _NAME.fullmatch(name):
            raise options.refuse(spec, "a place's name is letters, digits, _ and -", PLACE_USAGE)
        return Claim(spec, {"name": name}, given=given)
    tags_text, *words = spec.removeprefix(TAG).split(":")
    tags = options.pairs(spec, tags_text.split(","), TAG_USAGE)
    if not all(_NAME.fullmatch(key) and _NAME.fullmatch(value) for key, value in tags.items()):
        raise options.refuse(spec, "tags' keys and values are letters, digits, _ and -", TAG_USAGE)
    return Claim(spec, tags, options.parse(spec, words, TAG_OPTIONS, TAG_USAGE)["count"], given)


def boards(spec: str) -> int:
    """How many places a labgrid target takes at once: count (1 unless given). Each is one target's worth:
    a target transport takes one place, a campaign starts one worker per place."""
    return parse_spec(spec).count


class Guard:
    """A process of its own that gives back what this one holds, should this one die without doing so (a
    SIGKILL): it waits for the end of a pipe that only this process holds, then, unless told that all was
    given back, releases the place that the reservation holds and cancels the reservation."""

    def __init__(self, spec: str, address: str, token: str):
        read, self._write = os.pipe()
        try:
            # Its own session: a terminal's Ctrl-C is for rtscope, which gives back itself.
            self._process = subprocess.Popen(
                [sys.executable, "-m", __name__, spec, address, token],
                stdin=read,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        finally:
            os.close(read)

    def stand_down(self) -> None:
        """All was given back: the guard ends doing nothing."""
        if self._write >= 0:
            with contextlib.suppress(OSError):
                os.write(self._write, _GIVEN_BACK)
            os.close(self._write)
            self._write = -1


@dataclass
class Held:
    """A place acquired for this process, the reservation that allocated it, its guard, and the board's
    ssh:// spec."""

    place: str
    token: str
    guard: Guard
    ssh_spec: str = ""
    released: bool = field(default=False)


class Coordinator:
    """A session with labgrid's coordinator, for one phase (taking or releasing), on an event loop of its
    own; every call bounded by _ANSWER_S."""

    def __init__(self, spec: str, address: str):
        try:
            from labgrid.remote.client import ClientSession
            from labgrid.util.proxy import proxymanager
        except ImportError:
            raise RtscopeError(NOT_INSTALLED) from None
        # labgrid logs a coordinator it cannot reach on the root logger; rtscope says so itself, in one line.
        logging.getLogger().addHandler(logging.NullHandler())
        self.spec = spec
        self.address = address
        self.loop = asyncio.new_event_loop()
        # gRPC's channel binds to the thread's current loop when made.
        asyncio.set_event_loop(self.loop)
        try:
            grpc_address = self._bounded(lambda: proxymanager.get_grpc_address(self.address, default_port=20408))
            self.session = ClientSession(grpc_address, self.loop)
            self.call(self.session.start())
        except BaseException:
            self.close()
            raise

    def _bounded(self, call: Callable[[], Any]) -> Any:
        from labgrid.remote.client import Error

        try:
            return call()
        except (Error, TimeoutError, OSError) as error:
            raise RtscopeError(f"{self.spec}: the labgrid coordinator at {self.address} {_said(error)}") from None
        except Exception as error:
            # grpc's own errors (AioRpcError) carry their details.
            details = getattr(error, "details", None)
            if callable(details):
                raise RtscopeError(f"{self.spec}: the labgrid coordinator said: {details()}") from None
            raise

    def call(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        """Run one request to the coordinator, at most _ANSWER_S."""
        return self._bounded(lambda: self.loop.run_until_complete(asyncio.wait_for(coroutine, _ANSWER_S)))

    def close(self) -> None:
        if hasattr(self, "session"):
            with contextlib.suppress(Exception):
                self.loop.run_until_complete(asyncio.wait_for(self._stop(), _ANSWER_S))
        self.loop.close()
        asyncio.set_event_loop(None)

    async def _stop(self) -> None:
        await self.session.stop()
        await self.session.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _said(error: BaseException) -> str:
    if isinstance(error, TimeoutError):
        return f"did not answer within {_ANSWER_S:g} s"
    return f"cannot be reached ({' '.join(str(error).split()) or type(error).__name__})"


def take(claim: Claim, note: Callable[[str], None]) -> Held:
    """Reserve one place for ``claim`` through the coordinator, wait (at most --wait) until it is
    allocated, and acquire it; the place and its board's ssh:// spec. One line for an unknown place or tag,
    a place that matches nothing, a coordinator that is down, a wait that ran out (its reservation
    cancelled)."""
    from labgrid.remote.generated import labgrid_coordinator_pb2 as pb2

    with Coordinator(claim.spec, claim.address) as coordinator:
        stub = coordinator.session.stub
        _check_matches(claim, coordinator.session)
        request = pb2.CreateReservationRequest(filters={"main": pb2.Reservation.Filter(filter=claim.tags)}, prio=0.0)
        token = coordinator.call(stub.CreateReservation(request)).reservation.token
        # From here on there is something to give back.
        sigterm_interrupts()
        guard = Guard(claim.spec, claim.address, token)
        place = None
        try:
            place = _allocated(coordinator, claim, token, note)
            coordinator.call(stub.AcquirePlace(pb2.AcquirePlaceRequest(placename=place)))
        except BaseException:
            with contextlib.suppress(RtscopeError):
                # A Ctrl-C in the acquire's call may come after the coordinator made it: the place is released
                # if this session holds it, left alone if another does or nobody.
                _cancel_and_release(coordinator, token, [place] if place else [], only_mine=True)
                guard.stand_down()
            raise
        held = Held(place, token, guard)
        try:
            coordinator.call(coordinator.session.sync_with_coordinator())
            held.ssh_spec = _ssh_spec(claim, place, coordinator.session)
        except BaseException:
            _give_back(coordinator, held)
            raise
    return held


def _allocated(coordinator: Coordinator, claim: Claim, token: str, note: Callable[[str], None]) -> str:
    """The place the coordinator allocates to reservation ``token``, polled (which keeps it from lapsing)
    and waited for at most --wait, saying every _REPORT_EVERY_S what for."""
    from labgrid.remote.common import Reservation, ReservationState
    from labgrid.remote.generated import labgrid_coordinator_pb2 as pb2

    started = time.monotonic()
    reported = None
    while True:
        polled = coordinator.call(coordinator.session.stub.PollReservation(pb2.PollReservationRequest(token=token)))
        reservation = Reservation.from_pb2(polled.reservation)
        if reservation.state is ReservationState.allocated:
            [place] = reservation.allocations["main"]
            return str(place)
        if reservation.state is not ReservationState.waiting:
            raise RtscopeError(f"{claim.spec}: the coordinator's reservation ended {reservation.state.name}")
        waited = time.monotonic() - started
        holders = _holders(claim, coordinator.session)
        if waited >= claim.given.wait_s:
            raise RtscopeError(
                f"{claim.spec}: {claim.what} still busy after {waited:.0f} s ({holders}); --wait S waits longer"
            )
        if reported is None or time.monotonic() - reported >= _REPORT_EVERY_S:
            reported = time.monotonic()
            note(f"{claim.spec}: waiting for {claim.what}: {holders} ({waited:.0f} s of --wait {claim.given.wait_s:g})")
        coordinator.loop.run_until_complete(asyncio.sleep(_POLL_S))


def release(claim: Claim, held: Held) -> None:
    """Release the place and cancel its reservation (once); RtscopeError in one line when the coordinator
    cannot be told, naming the command that frees the place."""
    if held.released:
        return
    held.released = True
    try:
        with Coordinator(claim.spec, claim.address) as coordinator:
            _give_back(coordinator, held)
    except RtscopeError as error:
        raise RtscopeError(
            f"{error}: place {held.place} stays acquired (labgrid-client -p {held.place} release)"
        ) from None


def _give_back(coordinator: Coordinator, held: Held) -> None:
    _cancel_and_release(coordinator, held.token, [held.place])
    held.guard.stand_down()


def _cancel_and_release(coordinator: Coordinator, token: str, places: list[str], only_mine: bool = False) -> None:
    """Reservation ``token`` cancelled, then the ``places`` it holds released (``only_mine``: each only if
    this session holds it, ReleasePlace's fromuser). In that order, a reservation waiting for one of them
    gets it at once. The coordinator hands out places at the end of each request that changes them, but
    counts as free only the places the previous such round left without a reservation: a place released
    first and its reservation cancelled after waited for the coordinator's own round, every 15 s (labgrid
    26's Coordinator.schedule_reservations), before a waiting run got it."""
    from labgrid.remote.generated import labgrid_coordinator_pb2 as pb2

    stub = coordinator.session.stub
    me = f"{coordinator.session.gethostname()}/{coordinator.session.getuser()}" if only_mine else None
    try:
        coordinator.call(stub.CancelReservation(pb2.CancelReservationRequest(token=token)))
    finally:
        for place in places:
            coordinator.call(stub.ReleasePlace(pb2.ReleasePlaceRequest(placename=place, fromuser=me)))


def _guard(spec: str, address: str, token: str) -> None:
    """The guard's work (rtscope gone): cancel reservation ``token`` and release the places it holds."""
    if sys.stdin.buffer.read() == _GIVEN_BACK:
        return
    with Coordinator(spec, address) as coordinator:
        held = [
            name for name, place in coordinator.session.places.items() if place.reservation == token and place.acquired
        ]
        _cancel_and_release(coordinator, token, held)


def _check_matches(claim: Claim, session: "ClientSession") -> None:
    """RtscopeError when no place can ever match the claim: an unknown place, a tag no place has, or no
    place with all the tags, or fewer than count."""
    places = session.places
    if claim.place:
        if claim.place not in places:
            raise RtscopeError(
                f"{claim.spec}: no place {claim.place} at {claim.address} "
                f"(places: {', '.join(sorted(places)) or 'none'})"
            )
        return
    # A place's name is its tag "name" too, as labgrid's reservations have it.
    known = {"name", *(key for place in places.values() for key in place.tags)}
    unknown = sorted(set(claim.tags) - known)
    if unknown:
        raise RtscopeError(
            f"{claim.spec}: no place has a tag {', '.join(unknown)} (tags: {', '.join(sorted(known)) or 'none'})"
        )
    matching = _matching(claim, session)
    if len(matching) < claim.count:
        found = f"only {', '.join(matching)}" if matching else "none"
        raise RtscopeError(f"{claim.spec}: {claim.count} place(s) wanted, {found} tagged so")


def _matching(claim: Claim, session: "ClientSession") -> list[str]:
    return sorted(
        name
        for name, place in session.places.items()
        if all(({**place.tags, "name": name}).get(key) == value for key, value in claim.tags.items())
    )


def _holders(claim: Claim, session: "ClientSession") -> str:
    """Who holds the places the claim could have, in words."""
    held = []
    for name in _matching(claim, session):
        place = session.places[name]
        held.append(f"{name} acquired by {place.acquired}" if place.acquired else f"{name} reserved")
    return ", ".join(held) or "no place free"


def _ssh_spec(claim: Claim, place: str, session: "ClientSession") -> str:
    """ssh://user@address:port of the acquired place's NetworkService."""
    services = [
        resource
        for (_, cls), resource in session.get_target_resources(session.places[place]).items()
        if cls == "NetworkService"
    ]
    if len(services) != 1:
        count = "several NetworkServices" if services else "no NetworkService"
        raise RtscopeError(f"{claim.spec}: place {place} has {count} (rtscope reaches the board through exactly one)")
    args = services[0].args
    address = str(args["address"])
    host = f"[{address}]" if ":" in address else address
    return f"ssh://{args['username']}@{host}:{args.get('port', 22)}"


class PlaceTransport(SshTransport):
    """The ssh:// transport to a board that a labgrid place holds: the place taken on first connect,
    released on close."""

    def __init__(self, spec: str, given: TargetOptions):
        self.claim = parse_spec(spec, given)
        self.held: Held | None = None
        self._control = ""
        self._reach(spec, "", [])

    def connect(self) -> None:
        if self._connected:
            return
        if self.held is None:
            self.held = take(self.claim, _note)
            self._reach_spec(self.name, self.held.ssh_spec)
        super().connect()

    def close(self) -> None:
        """End the connection, then release the place and cancel its reservation, undisturbed by a second
        Ctrl-C (a campaign's worker gets the terminal's and its parent's): each call to the coordinator is
        bounded anyway."""
        with undisturbed():
            try:
                super().close()
            finally:
                if self.held is not None:
                    try:
                        release(self.claim, self.held)
                    except RtscopeError as error:
                        _note(str(error))


class PlaceTarget(SshTarget):
    """Runs the static probe on a board of a labgrid place, reserved and acquired through the coordinator."""

    def __init__(self, spec: str, given: TargetOptions | None = None):
        """``given``: the command line's --coordinator and --wait."""
        self.place_transport = PlaceTransport(spec, given or TargetOptions())
        super().__init__(spec, self.place_transport)

    def record(self) -> dict[str, Any]:
        """The board, on its own clocks; the place that held it."""
        held = self.place_transport.held
        return {
            "name": self.name,
            "kind": "labgrid",
            "time_base": "hardware",
            "detail": {"place": held.place if held else None, "coordinator": self.place_transport.claim.address},
        }


def _note(line: str) -> None:
    print(f"rtscope: {line}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    # A guard (Guard): nothing to say, no one to say it to.
    with contextlib.suppress(RtscopeError):
        _guard(*sys.argv[1:])
