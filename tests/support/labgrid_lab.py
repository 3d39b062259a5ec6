"""A labgrid lab on 127.0.0.1 for the labgrid-place: and labgrid-tag: targets' tests: a real coordinator
and exporter on free ports, the exporter offering tests/support/sshd.py's server as the NetworkService of each
place. The places are made, tagged, taken by "another user" and watched through one session of labgrid's own
client library (what labgrid-client runs, opened as rtscope opens it) in a helper process of its own: a
labgrid-client process per look cost a second of CPU to start, and the tests look often; and gRPC is kept
out of the test's process, whose later forks (subprocess's preexec_fn) it crashed."""

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from rtscope.targets.remote import labgrid_places
from support.loopback import free_port

BIN = Path(sys.executable).parent
EXPORTER = "rtscope-test"
TESTS = Path(__file__).resolve().parent.parent
# A helper's answer (rtscope's Coordinator bounds each call to the coordinator itself); this is for a machine
# loaded to a standstill.
_ANSWER_S = 60


class Lab:
    """The coordinator at ``address`` (HOST:PORT) with ``places`` (each place's tags), seen through the
    helper process's session: each method is one request to it, a JSON line each way."""

    def __init__(self, address: str, places: dict[str, dict[str, str]]):
        self.address = address
        self.places = places
        self._helper = subprocess.Popen(
            [
                sys.executable,
                "-c",
                (
                    f"import sys; sys.path[:0] = [{str(TESTS)!r}, {str(TESTS.parent / 'src')!r}]; "
                    "from support import labgrid_lab; "
                    "labgrid_lab.serve(sys.argv[1])"
                ),
                address,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def _ask(self, what: str, *args: Any) -> Any:
        assert self._helper.stdin is not None and self._helper.stdout is not None
        self._helper.stdin.write(json.dumps([what, *args]) + "\n")
        self._helper.stdin.flush()
        answer = self._helper.stdout.readline()
        if not answer:
            raise RuntimeError(f"the lab's client session ended (status {self._helper.wait(_ANSWER_S)})")
        said = json.loads(answer)
        if "error" in said:
            raise RuntimeError(f"the lab's client session: {what}: {said['error']}")
        return said["value"]

    def resources(self) -> list[str]:
        """The resources the exporters offer now, as EXPORTER/GROUP/NAME (a resource's name is its class's
        unless the exporter names it)."""
        return list(self._ask("resources"))

    def make_place(self, name: str, tags: dict[str, str]) -> None:
        """A place whose resource is the exporter's NetworkService of group ``name``, with ``tags``."""
        self._ask("make_place", name, tags)

    def acquire(self, place: str) -> None:
        """Take ``place`` as another user of the lab would."""
        self._ask("acquire", place)

    def release(self, place: str) -> None:
        self._ask("release", place)

    def acquired(self) -> dict[str, str]:
        """The places acquired now, by whom."""
        return dict(self._ask("acquired"))

    def reservations(self) -> list[str]:
        """The state of each reservation the coordinator holds now ("waiting", "allocated", …)."""
        return list(self._ask("reservations"))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            if self._helper.stdin is not None:
                self._helper.stdin.close()  # the helper's end of input: it closes its session and ends
        try:
            self._helper.wait(_ANSWER_S)
        except subprocess.TimeoutExpired:
            self._helper.kill()
            self._helper.wait()


class _Session:
    """The helper's session with the coordinator: rtscope's own (rtscope.targets.remote.labgrid_places'
    Coordinator, each call bounded), which it takes and releases places through."""

    def __init__(self, address: str):
        self._coordinator = labgrid_places.Coordinator("the test lab", address)

    def _request(self, method: str, **fields: Any) -> Any:
        """One request to the coordinator: ``method`` of its service, with the request's ``fields``."""
        from labgrid.remote.generated import labgrid_coordinator_pb2 as pb2

        request = getattr(pb2, f"{method}Request")(**fields)
        return self._coordinator.call(getattr(self._coordinator.session.stub, method)(request))

    def _synced(self) -> Any:
        """The session, once it has seen every update the coordinator sent before now."""
        self._coordinator.call(self._coordinator.session.sync_with_coordinator())
        return self._coordinator.session

    def resources(self) -> list[str]:
        return [
            f"{exporter}/{group}/{name}"
            for exporter, groups in self._synced().resources.items()
            for group, named in groups.items()
            for name, entry in named.items()
            if entry.data  # a resource the exporter withdrew stays, emptied
        ]

    def make_place(self, name: str, tags: dict[str, str]) -> None:
        self._request("AddPlace", name=name)
        self._request("AddPlaceMatch", placename=name, pattern=f"{EXPORTER}/{name}/NetworkService")
        self._request("SetPlaceTags", placename=name, tags=tags)

    def acquire(self, place: str) -> None:
        self._request("AcquirePlace", placename=place)

    def release(self, place: str) -> None:
        self._request("ReleasePlace", placename=place)

    def acquired(self) -> dict[str, str]:
        return {name: place.acquired for name, place in self._synced().places.items() if place.acquired}

    def reservations(self) -> list[str]:
        from labgrid.remote.common import Reservation

        found = self._request("GetReservations").reservations
        return [Reservation.from_pb2(reservation).state.name for reservation in found]

    def close(self) -> None:
        self._coordinator.close()


def serve(address: str) -> None:
    """The helper process: a session with the coordinator at ``address``, answering each request line on
    stdin (a JSON list: the method and its arguments) with a JSON line (its value, or the error), until
    stdin ends."""
    session = _Session(address)
    try:
        for line in sys.stdin:
            what, *args = json.loads(line)
            try:
                said = {"value": getattr(session, what)(*args)}
            except Exception as error:  # noqa: BLE001 (whatever failed is said to the test, which fails naming it)
                said = {"error": f"{type(error).__name__}: {error}"}
            print(json.dumps(said), flush=True)
    finally:
        session.close()


def _wait_for(what: str, ready: Callable[[], bool], process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and process.poll() is None:
        if ready():
            return
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not start: {log.read_text()[-500:]}")


def _listening(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        return True
    return False


@contextlib.contextmanager
def lab(directory: Path, ssh_port: int, places: dict[str, dict[str, str]]) -> Iterator[Lab]:
    """A coordinator and an exporter until the block ends, each place a NetworkService of root on
    127.0.0.1:``ssh_port`` with its tags; their state and logs in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    port = free_port()
    address = f"127.0.0.1:{port}"
    resources = directory / "exporter.yaml"
    resources.write_text(
        "".join(
            f"{name}:\n  NetworkService:\n    address: 127.0.0.1\n    username: root\n    port: {ssh_port}\n"
            for name in places
        )
    )
    started: list[subprocess.Popen[bytes]] = []
    watching: list[Lab] = []
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    try:
        with open(directory / "coordinator.log", "wb") as log:
            # Its places.yaml goes to its working directory.
            coordinator = subprocess.Popen(
                [str(BIN / "labgrid-coordinator"), "-l", address],
                cwd=directory,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
            )
        started.append(coordinator)
        _wait_for("labgrid-coordinator", lambda: _listening(port), coordinator, directory / "coordinator.log")
        with open(directory / "exporter.log", "wb") as log:
            exporter = subprocess.Popen(
                [
                    str(BIN / "labgrid-exporter"),
                    "-c",
                    address,
                    "-n",
                    EXPORTER,
                    "--hostname",
                    "127.0.0.1",
                    str(resources),
                ],
                cwd=directory,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
            )
        started.append(exporter)
        running = Lab(address, places)
        watching.append(running)
        offered = {f"{EXPORTER}/{name}/NetworkService" for name in places}
        _wait_for("labgrid-exporter", lambda: offered <= set(running.resources()), exporter, directory / "exporter.log")
        for name, tags in places.items():
            running.make_place(name, tags)
        yield running
    finally:
        for session in watching:
            session.close()
        for process in reversed(started):
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
