"""The labgrid target: an environment file written here points labgrid's SSHDriver at tests/support/sshd.py's server;
rtscope lists and runs over the connection that driver opens, and every bad environment is one line."""

import importlib.util
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conftest import Outcome, process_env, slow_fixture
from rtscope.model import result
from support import processes, sshd
from support.processes import processes_before_test  # noqa: F401  (autouse: a board's processes are those started since)

needs_labgrid = pytest.mark.skipif(
    importlib.util.find_spec("labgrid") is None,
    reason="labgrid is not installed (./setup.sh installs requirements-labgrid.txt)",
)
needs_sshd = pytest.mark.skipif(sshd.unavailable() is not None, reason=sshd.unavailable() or "")


@slow_fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sshd.Server]:
    with sshd.server(tmp_path_factory.mktemp("sshd")) as running:
        yield running


def _rtscope(db_path: Path, *args: str, block_labgrid: bool = False) -> Outcome:
    """rtscope as a process of its own, without tests/support/sshd.py's client config: only labgrid's options apply.
    ``block_labgrid``: as if labgrid were not installed."""
    start = ["-m", "rtscope"]
    if block_labgrid:
        start = [
            "-c",
            (
                "import runpy, sys; sys.modules['labgrid'] = None; "
                "runpy.run_module('rtscope', run_name='__main__', alter_sys=True)"
            ),
        ]
    ran = subprocess.run(
        [sys.executable, *start, *args],
        capture_output=True,
        text=True,
        env=process_env(db_path),
        timeout=90,
        check=False,
    )
    return Outcome(ran.returncode, ran.stdout, ran.stderr)


def _target(
    name: str,
    server: sshd.Server,
    *,
    user: str = "root",
    port: int | None = None,
    driver: str = "SSHDriver:\n        keyfile: client_key\n",
) -> str:
    """One target of an environment file: the test server's address, its client key (relative: labgrid
    resolves it against the file's directory)."""
    return (
        f"  {name}:\n    resources:\n      NetworkService:\n        address: 127.0.0.1\n"
        f"        port: {port or server.port}\n        username: {user}\n    drivers:\n      {driver}"
    )


def _environment(server: sshd.Server, name: str, text: str) -> Path:
    """The environment file ``name`` beside the server's client key."""
    path = server.config.parent / name
    path.write_text(text)
    return path


def _labgrid_masters() -> list[str]:
    """ssh master connections that labgrid's SSHDriver opened and that still run."""
    return [
        args
        for pid, (_, args) in processes.processes().items()
        if pid not in processes.before_test() and args.startswith("ssh ") and "/lg-ssh-" in args
    ]


def _remote_probes(server: sshd.Server) -> list[str]:
    """Probes running now that a login to the server started (from its ~/.cache/rtscope)."""
    return processes.started_under(
        server.process.pid, lambda args: "/.cache/rtscope/rtscope-probe-" in args and " run " in args
    )


def _until(condition: Callable[[], bool], within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.1)
    return condition()


def _one_line_error(outcome: Outcome) -> str:
    assert outcome.status == 2 and "Traceback" not in outcome.err, outcome
    [line] = outcome.err.strip().splitlines()
    assert line.startswith("rtscope: ")
    return line.removeprefix("rtscope: ")


@needs_labgrid
@needs_sshd
def test_list_and_a_run_go_over_labgrids_ssh_driver_and_its_connection_ends_with_rtscope(db_path, server, tmp_path):
    # No known_hosts holds the server's key: labgrid's SSHDriver does not check host keys (its choice).
    env = _environment(server, "one.yaml", "targets:\n" + _target("main", server))
    spec = f"labgrid:{env}"
    listed = _rtscope(db_path, "--target", spec, "list")
    assert listed.status == 0, listed.err
    assert "clock.read" in listed.out
    out = tmp_path / "run.json"
    ran = _rtscope(db_path, "--target", spec, "run", "clock.read", "--duration", "0.3", "--json", str(out))
    assert ran.status == 0, ran.err
    assert result.load(out).doc["target"] == {"name": spec, "kind": "labgrid", "time_base": "hardware"}
    assert f"measured on  {spec}: hardware time" in _rtscope(db_path, "show", "last").out  # stored
    assert not _labgrid_masters()


@needs_labgrid
@needs_sshd
def test_name_picks_the_target_in_the_environment(db_path, server):
    env = _environment(server, "two.yaml", "targets:\n" + _target("bench", server) + _target("spare", server, port=1))
    unnamed = _rtscope(db_path, "--target", f"labgrid:{env}", "list")
    assert _one_line_error(unnamed) == f"labgrid:{env}: no target 'main' in {env} (its targets: bench, spare)"
    named = _rtscope(db_path, "--target", f"labgrid:{env}:bench", "list")
    assert named.status == 0 and "clock.read" in named.out, named.err


@needs_labgrid
@needs_sshd
def test_a_refused_login_is_one_line_in_bounded_time(db_path, server):
    # connection_timeout bounds labgrid's retries (30 s by default, for boards still booting).
    env = _environment(
        server,
        "refused.yaml",
        "targets:\n"
        + _target(
            "main",
            server,
            user="nosuchuser",
            driver="SSHDriver:\n        keyfile: client_key\n        connection_timeout: 2.0\n",
        ),
    )
    started = time.monotonic()
    line = _one_line_error(_rtscope(db_path, "--target", f"labgrid:{env}", "run", "clock.read"))
    assert time.monotonic() - started < 20
    assert re.fullmatch(rf"labgrid:{re.escape(str(env))}: the login was refused \(.*Permission denied.*\)", line), line


BAD_ENVIRONMENTS = {
    "invalid YAML": ("targets: [\n", "{env} is not a valid labgrid environment (Error in configuration file: "),
    "a list": ("- main\n", "{env} is not a labgrid environment (a YAML mapping with targets:)"),
    "no targets": ("options: {}\n", "no target 'main' in {env} (it describes none)"),
    "no NetworkService": (
        "targets:\n  main:\n    drivers:\n      SSHDriver: {}\n",
        (
            "target 'main' lacks what its drivers need (binding SSHDriver failed: no NetworkService "
            "resource found in 'main')"
        ),
    ),
    "no SSHDriver": (
        "targets:\n  main:\n    resources:\n      NetworkService: {address: 127.0.0.1, username: root}\n",
        "target 'main' has no SSHDriver bound to a NetworkService (rtscope reaches the board through exactly one)",
    ),
}


@needs_labgrid
@pytest.mark.parametrize("case", BAD_ENVIRONMENTS)
def test_a_bad_environment_is_one_line(db_path, tmp_path, case):
    text, message = BAD_ENVIRONMENTS[case]
    env = tmp_path / "env.yaml"
    env.write_text(text)
    line = _one_line_error(_rtscope(db_path, "--target", f"labgrid:{env}", "list"))
    assert line.startswith(f"labgrid:{env}: {message.format(env=env)}"), line


@needs_labgrid
@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("labgrid:/nonexistent/env.yaml", "labgrid:/nonexistent/env.yaml: no environment file /nonexistent/env.yaml"),
        (
            "labgrid:/nonexistent/env.yaml:main",
            "labgrid:/nonexistent/env.yaml:main: no environment file /nonexistent/env.yaml",
        ),
        ("labgrid:", "--target labgrid:: no environment file (expected labgrid:ENV.yaml[:NAME])"),
        ("labgrid:env.yaml:", "--target labgrid:env.yaml:: no environment file (expected labgrid:ENV.yaml[:NAME])"),
    ],
)
def test_a_missing_environment_or_a_malformed_spec_is_one_line(db_path, spec, message):
    assert _one_line_error(_rtscope(db_path, "--target", spec, "list")) == message


def test_without_labgrid_the_target_says_how_to_install_it(db_path, tmp_path):
    env = tmp_path / "env.yaml"
    env.write_text("targets: {}\n")
    line = _one_line_error(_rtscope(db_path, "--target", f"labgrid:{env}", "list", block_labgrid=True))
    assert line == (
        "labgrid is not installed: ./setup.sh installs it (or: .venv/bin/pip install -r requirements-labgrid.txt)"
    )


@needs_labgrid
@needs_sshd
def test_a_connection_lost_mid_run_ends_it_as_interrupted_and_leaves_nothing_there(db_path, server, tmp_path):
    env = _environment(server, "lost.yaml", "targets:\n" + _target("main", server))
    run = subprocess.Popen(
        [sys.executable, "-m", "rtscope", "--target", f"labgrid:{env}", "run", "lat.wakeup", "--duration", "60"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=process_env(db_path),
    )
    assert _until(lambda: bool(_remote_probes(server)), 30)
    for session in server.sessions():  # sshd's side of labgrid's connection dies, as when sshd is killed
        os.kill(session, signal.SIGKILL)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    assert "lost the connection" in err.strip().splitlines()[-1] and "Traceback" not in err
    assert _until(lambda: not _remote_probes(server), 10), _remote_probes(server)
    assert not _labgrid_masters()
