"""A board a labgrid lab already describes: ``--target labgrid:ENV.yaml[:NAME]``.

labgrid is optional (requirements-labgrid.txt; ./setup.sh installs it into .venv/). Its environment file
names the board; NAME picks one of its targets (default: ``main``, labgrid's convention, or the file's
only target), which must have an SSHDriver bound to a NetworkService. rtscope activates that driver, so
labgrid opens the connection as the lab configured it (address, port, user, key or password, its retries
while a board boots, its proxy through an exporter), and rtscope's own SSH transport runs everything over
that master connection: the lifeline, the argv quoting, the probe's placement and the error messages are
the ssh:// target's (rtscope.targets.remote.ssh). Closing the target deactivates the driver, which ends the
connection, and with it whatever still runs on the board.

Host keys are labgrid's business here: its SSHDriver starts its master connection with
``StrictHostKeyChecking=no`` and ``UserKnownHostsFile=/dev/null`` (and ``-F none``: no ssh config), so a
labgrid target's host key is not checked. rtscope's commands add no bypass of their own: they ride that
connection, and ``--target ssh://`` stays strict.
"""

import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rtscope.errors import RtscopeError
from rtscope.targets import options
from rtscope.targets.registry import LABGRID as PREFIX
from rtscope.targets.registry import LABGRID_USAGE as USAGE
from rtscope.targets.remote.ssh import SshTarget, SshTransport, connection_error

if TYPE_CHECKING:
    from labgrid.driver import SSHDriver

DEFAULT_NAME = "main"
_TARGET_REPR = re.compile(r"'?Target\(name='([^']*)', env=[^)]*\)\)'?")
NOT_INSTALLED = (
    "labgrid is not installed: ./setup.sh installs it (or: .venv/bin/pip install -r requirements-labgrid.txt)"
)


def parse_spec(spec: str) -> tuple[Path, str | None]:
    """``labgrid:ENV.yaml[:NAME]`` as (the environment file, NAME or None); RtscopeError when it is not one.
    NAME is what follows the last colon, unless that holds a slash (then it is all a path)."""
    rest = spec.removeprefix(PREFIX)
    path, colon, name = rest.rpartition(":")
    if not colon or "/" in name:
        path, name = rest, ""
    if not path or (colon and not name):
        raise options.refuse(spec, "no environment file", USAGE)
    return Path(path), name or None


class LabgridTransport(SshTransport):
    """rtscope's SSH transport over the master connection that labgrid's SSHDriver opens when activated."""

    def __init__(self, name: str, driver: "SSHDriver"):
        self._driver = driver
        # The options that reach labgrid's master are known once it is open: connect sets them.
        self._reach(name, driver.networkservice.address, [])

    def connect(self) -> None:
        if self._connected:
            return
        try:
            self._driver.target.activate(self._driver)
        # labgrid raises a bare Exception when its connection attempts run out.
        except Exception as error:  # noqa: BLE001
            raise RtscopeError(connection_error(self.name, _ssh_said(error))) from None
        service = self._driver.networkservice
        # ssh_prefix: labgrid's key, "-F none" and its master's ControlPath. BatchMode: nothing ever asks,
        # should a command find that master gone.
        self._options = [
            "-o",
            "BatchMode=yes",
            *self._driver.ssh_prefix,
            "-p",
            str(service.port),
            "-l",
            self._driver.username or service.username,
        ]
        self._connected = True

    def close(self) -> None:
        """Deactivate labgrid's driver: it ends its master connection, and what runs on the board with it."""
        if self._connected:
            self._connected = False
            self._driver.target.deactivate(self._driver)


class LabgridTarget(SshTarget):
    """Runs the static probe on a board of a labgrid environment, through labgrid's SSHDriver."""

    def __init__(self, spec: str):
        super().__init__(spec, LabgridTransport(spec, _ssh_driver(spec, *parse_spec(spec))))

    def record(self) -> dict[str, Any]:
        """The board, on its own clocks."""
        return {"name": self.name, "kind": "labgrid", "time_base": "hardware"}


def _ssh_driver(spec: str, path: Path, name: str | None) -> "SSHDriver":
    """The SSHDriver of target ``name`` in the environment file ``path``, bound but not yet active: reading
    the file connects to nothing. One line for each way it is not there."""
    try:
        from labgrid import Environment
        from labgrid.driver import SSHDriver
        from labgrid.exceptions import InvalidConfigError, NoSupplierFoundError
    except ImportError:
        raise RtscopeError(NOT_INSTALLED) from None
    if not path.is_file():
        raise RtscopeError(f"{spec}: no environment file {path}")
    try:
        environment = Environment(str(path))
    except InvalidConfigError as error:
        raise RtscopeError(f"{spec}: {path} is not a valid labgrid environment ({_one_line(error)})") from None
    except (TypeError, AttributeError, ValueError):  # labgrid's reading of a YAML document of another shape
        raise RtscopeError(f"{spec}: {path} is not a labgrid environment (a YAML mapping with targets:)") from None
    described = environment.config.get_targets()
    names = sorted(described) if isinstance(described, dict) else []
    if name is None:
        name = DEFAULT_NAME if DEFAULT_NAME in names or len(names) != 1 else names[0]
    if name not in names:
        listed = f"its targets: {', '.join(names)}" if names else "it describes none"
        raise RtscopeError(f"{spec}: no target {name!r} in {path} ({listed})")
    try:
        target = environment.get_target(name)
    except NoSupplierFoundError as error:
        raise RtscopeError(f"{spec}: target {name!r} lacks what its drivers need ({_one_line(error)})") from None
    except InvalidConfigError as error:
        raise RtscopeError(f"{spec}: target {name!r} is not valid ({_one_line(error)})") from None
    drivers = [driver for driver in target.drivers if isinstance(driver, SSHDriver)] if target else []
    if len(drivers) != 1:
        count = "several SSHDrivers" if drivers else "no SSHDriver bound to a NetworkService"
        raise RtscopeError(f"{spec}: target {name!r} has {count} (rtscope reaches the board through exactly one)")
    [driver] = drivers
    # Its connection attempts are logged as warnings; rtscope reports the failure itself, in one line.
    driver.logger.addHandler(logging.NullHandler())
    return driver


def _ssh_said(error: BaseException) -> str:
    """What ssh printed when labgrid's driver could not connect (its ExecutionError keeps the lines),
    else labgrid's own message."""
    cause = error.__cause__ or error
    lines = getattr(cause, "stdout", None) or []
    said = "\n".join(line.decode(errors="replace") if isinstance(line, bytes) else str(line) for line in lines)
    return said.strip() or str(error)


def _one_line(error: BaseException) -> str:
    """labgrid's message in one line, a target's repr (Target(name='main', env=Environment(…))) as 'main'."""
    return _TARGET_REPR.sub(r"'\1'", " ".join(str(error).split()))
