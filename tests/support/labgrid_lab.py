"""A labgrid lab on 127.0.0.1 for the labgrid-place: and labgrid-tag: targets' tests: a real coordinator
and exporter on free ports, the exporter offering tests/support/sshd.py's server as the NetworkService of each
place, the places made and tagged with labgrid's own client."""

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from support.loopback import free_port

BIN = Path(sys.executable).parent
EXPORTER = "rtscope-test"


@dataclass
class Lab:
    address: str  # the coordinator's HOST:PORT
    places: dict[str, dict[str, str]]  # each place's tags

    def client(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """labgrid-client against this lab's coordinator."""
        return subprocess.run(
            [str(BIN / "labgrid-client"), "-x", self.address, *args],
            capture_output=True,
            text=True,
            # A client starting on a loaded machine (stress-ng --cpu 2 beside the suite) took over 30 s.
            timeout=120,
            check=check,
        )

    def acquired(self) -> dict[str, str]:
        """The places acquired now, by whom (labgrid-client's own view)."""
        shown = self.client("-v", "places").stdout
        holders, place = {}, ""
        for line in shown.splitlines():
            if line.startswith("Place '"):
                place = line.split("'")[1]
            elif line.strip().startswith("acquired:") and line.split(":", 1)[1].strip() not in ("", "None"):
                holders[place] = line.split(":", 1)[1].strip()
        return holders

    def reservations(self) -> str:
        return self.client("reservations").stdout


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
        _wait_for(
            "labgrid-exporter",
            lambda: all(f"/{name}/NetworkService" in running.client("resources").stdout for name in places),
            exporter,
            directory / "exporter.log",
        )
        for name, tags in places.items():
            running.client("-p", name, "create")
            running.client("-p", name, "add-match", f"{EXPORTER}/{name}/NetworkService")
            running.client("-p", name, "set-tags", *(f"{key}={value}" for key, value in tags.items()))
        yield running
    finally:
        for process in reversed(started):
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
