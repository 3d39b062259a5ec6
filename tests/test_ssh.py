"""The SSH target against a real sshd on 127.0.0.1 (tests/support/sshd.py): the probe goes to the "board" by itself,
runs as root and as a user without privilege, under loads that run and stop there; every way of failing to
connect is one line within a bounded time; a connection lost mid-run or a Ctrl-C leaves nothing running
there."""

import concurrent.futures
import json
import os
import pwd
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import Outcome, process_env, slow_fixture
from rtscope.model import result
from rtscope.store.database import Store
from support import processes, sshd
from support.loopback import free_port
from support.processes import processes_before_test  # noqa: F401  (autouse: a board's processes are those started since)

pytestmark = pytest.mark.skipif(sshd.unavailable() is not None, reason=sshd.unavailable() or "")


@slow_fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sshd.Server]:
    with sshd.server(tmp_path_factory.mktemp("sshd")) as running:
        yield running


def _env(db_path: Path, server: sshd.Server) -> dict[str, str]:
    return {**process_env(db_path), **server.env()}


def _rtscope(db_path: Path, server: sshd.Server, *args: str, timeout: float = 120) -> Outcome:
    ran = subprocess.run(
        [sys.executable, "-m", "rtscope", *args],
        capture_output=True,
        text=True,
        env=_env(db_path, server),
        timeout=timeout,
        check=False,
    )
    return Outcome(ran.returncode, ran.stdout, ran.stderr)


def _remote_probes(server: sshd.Server) -> list[str]:
    """Probe and load processes running now that a board's login started (the probe from its ~/.cache/rtscope)."""
    return processes.started_under(
        server.process.pid,
        lambda args: "/.cache/rtscope/rtscope-probe-" in args or args.startswith(("stress-ng", "iperf3")),
    )


def _refused_as_busy(server: sshd.Server, err: str) -> None:
    """End the test when rtscope refused its load on a busy machine (other work kept it from its CPUs), once
    nothing of it runs on the board."""
    if processes.BUSY_MACHINE in err:
        assert _until(lambda: not _remote_probes(server), 10), _remote_probes(server)
        pytest.skip(err.strip().splitlines()[-1])


def _until(condition, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.1)
    return condition()


def test_a_run_on_the_board_copies_the_probe_once_and_stores_its_result(db_path, server, tmp_path):
    out = tmp_path / "run.json"
    first = _rtscope(
        db_path, server, "--target", server.spec(), "run", "clock.read", "--duration", "0.3", "--json", str(out)
    )
    assert first.status == 0, first.err
    doc = result.load(out).doc
    assert doc["target"] == {"name": server.spec(), "kind": "ssh", "time_base": "hardware"}
    assert doc["config"]["granted"]["policy"] == "fifo"  # root on the board
    copied = Path("/root/.cache/rtscope") / _build_name()
    before = copied.stat().st_mtime_ns
    again = _rtscope(db_path, server, "--target", server.spec(), "run", "clock.read", "--duration", "0.3")
    assert again.status == 0, again.err
    assert copied.stat().st_mtime_ns == before  # the same build is not copied again
    runs = _rtscope(db_path, server, "runs")
    assert runs.out.count(server.spec()) >= 2 or runs.out.count("clock.read") >= 2


def test_a_login_without_privilege_degrades_visibly(db_path, server, tmp_path):
    out = tmp_path / "run.json"
    ran = _rtscope(
        db_path,
        server,
        "--target",
        server.spec(sshd.USER),
        "run",
        "clock.read",
        "--duration",
        "0.3",
        "--json",
        str(out),
    )
    assert ran.status == 0, ran.err
    doc = result.load(out).doc
    assert doc["config"]["granted"]["policy"] == "other"
    assert any("privilege" in warning or "refused" in warning for warning in doc["config"]["warnings"])


# The load the tests put on the board to see it metered and stopped there: a quarter of one CPU, which gets
# its share beside other work. A hog on every CPU was refused on a busy machine ("did not get its CPUs"), and
# those tests skipped there.
LIGHT_LOAD = "cpu:cpus=0:load=25"


def _run_under_remote_load(db_path: Path, server: sshd.Server, tmp_path: Path, load: str) -> dict[str, Any]:
    """The record of ``load`` from a short run on the board under it, once nothing of it runs there."""
    out = tmp_path / "run.json"
    ran = _rtscope(
        db_path,
        server,
        "--target",
        server.spec(),
        "run",
        "clock.read",
        "--duration",
        "0.5",
        "--load",
        load,
        "--settle",
        "0.5",
        "--json",
        str(out),
    )
    _refused_as_busy(server, ran.err)
    assert ran.status == 0, ran.err
    [record] = result.load(out).doc["loads"]
    assert _until(lambda: not _remote_probes(server), 10), _remote_probes(server)
    return record


def test_loads_run_on_the_board_and_are_stopped_there(db_path, server, tmp_path):
    load = _run_under_remote_load(db_path, server, tmp_path, LIGHT_LOAD)
    # Its CPU use was checked over the settle time (the run fails otherwise); here only that it was metered.
    assert load["name"] == "cpu" and load["held"] and load["cpus_used"] > 0


@pytest.mark.parametrize(
    ("how", "error"),
    [
        ("closed port", r"ssh://root@127\.0\.0\.1:\d+: unreachable \(.*Connection refused\)"),
        ("unknown user", r"ssh://nosuchuser@127\.0\.0\.1:\d+: the login was refused \(.*Permission denied.*\)"),
        (
            "changed host key",
            (
                r"ssh://root@127\.0\.0\.1:\d+: host key verification failed: its key is not in "
                r"known_hosts or has changed \(rtscope never bypasses that; check the key, then update "
                r"known_hosts\)"
            ),
        ),
    ],
)
def test_a_board_that_cannot_be_reached_is_one_line_in_bounded_time(db_path, server, tmp_path, how, error):
    import re

    spec = server.spec()
    env = _env(db_path, server)
    if how == "closed port":
        spec = f"ssh://root@127.0.0.1:{free_port()}"
    elif how == "unknown user":
        spec = server.spec("nosuchuser")
    else:
        other = tmp_path / "other_key"
        sshd._keygen(other)
        known = tmp_path / "known_hosts"
        known.write_text(f"[127.0.0.1]:{server.port} {other.with_suffix('.pub').read_text()}")
        config = tmp_path / "ssh_config"
        config.write_text(server.config.read_text().replace(str(server.known_hosts), str(known)))
        env["RTSCOPE_SSH_CONFIG"] = str(config)
    started = time.monotonic()
    ran = subprocess.run(
        [sys.executable, "-m", "rtscope", "--target", spec, "run", "clock.read"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert time.monotonic() - started < 40
    assert ran.returncode == 2 and "Traceback" not in ran.stderr
    [line] = ran.stderr.strip().splitlines()
    assert re.fullmatch(f"rtscope: {error}", line), line


@pytest.mark.parametrize(
    "spec", ["ssh://", "ssh://host:0", "ssh://host:99999", "ssh://-oProxyCommand=x", "ssh://user@host/path"]
)
def test_a_malformed_ssh_target_is_refused(db_path, server, spec):
    ran = _rtscope(db_path, server, "--target", spec, "list")
    assert ran.status == 2
    assert ran.err.strip() == f"rtscope: --target {spec}: not a user, host and port (expected ssh://[user@]host[:port])"


def _start_long_run(db_path: Path, server: sshd.Server, tmp_path: Path) -> subprocess.Popen[str]:
    """rtscope measuring on the board for 60 s, once its probe runs there."""
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rtscope",
            "--target",
            server.spec(),
            "run",
            "lat.wakeup",
            "--duration",
            "60",
            "--load",
            LIGHT_LOAD,
            "--settle",
            "0.5",
            "--json",
            str(tmp_path / "run.json"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(db_path, server),
    )
    # The load settles first: seconds on a busy machine, or refused there.
    started = _until(
        lambda: (
            run.poll() is not None
            or any("/.cache/rtscope/rtscope-probe-" in p and " run " in p for p in _remote_probes(server))
        ),
        60,
    )
    if run.poll() is not None:
        _refused_as_busy(server, run.communicate()[1])
    assert started and run.poll() is None, run.communicate()
    return run


def test_a_connection_lost_mid_run_ends_it_as_interrupted_and_leaves_nothing_there(db_path, server, tmp_path):
    run = _start_long_run(db_path, server, tmp_path)
    for session in server.sessions():  # sshd's side of every connection dies, as when the board's sshd is killed
        os.kill(session, signal.SIGKILL)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    assert "lost the connection" in err.strip().splitlines()[-1] and "Traceback" not in err
    assert _until(lambda: not _remote_probes(server), 10), _remote_probes(server)


def test_ctrl_c_stops_the_probe_there_which_writes_what_it_measured(db_path, server, tmp_path):
    run = _start_long_run(db_path, server, tmp_path)
    time.sleep(1)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    doc = json.loads((tmp_path / "run.json").read_text())
    assert doc["run"]["status"] == "interrupted"
    assert _until(lambda: not _remote_probes(server), 10), _remote_probes(server)


def _two_target_spec(tmp_path: Path, second: str) -> Path:
    spec = tmp_path / "two.toml"
    spec.write_text(
        f'name = "two-targets"\nbenches = ["clock.read"]\nduration = "0.3"\nrepetitions = 2\n'
        f'targets = ["local", "{second}"]\n'
    )
    return spec


def test_a_campaign_measures_its_targets_in_parallel_into_one_store(db_path, server, tmp_path):
    ran = _rtscope(db_path, server, "campaign", str(_two_target_spec(tmp_path, server.spec())))
    assert ran.status == 0, ran.err
    # Each worker's lines come under its target's name; the closing comparison has a column per target.
    assert f"rtscope: {server.spec()}: " in ran.err and "rtscope: local: " in ran.err
    assert f"target={server.spec()} load=idle" in ran.out and "target=local load=idle" in ran.out
    with Store.open(db_path) as store:
        runs = store.campaign_runs("two-targets")
    assert sorted((run.doc["target"]["kind"], run.doc["campaign"]["repetition"]) for run in runs) == [
        ("local", 1),
        ("local", 2),
        ("ssh", 1),
        ("ssh", 2),
    ]
    by_target = _rtscope(db_path, server, "compare", "campaign:two-targets", "--by", "target")
    assert by_target.status == 0, by_target.err
    assert "  A  local  " in by_target.out and f"  B  {server.spec()}  " in by_target.out


def test_a_dead_board_holds_up_no_other_and_resume_measures_what_is_left(db_path, server, tmp_path):
    dead = f"ssh://root@127.0.0.1:{free_port()}"
    spec = _two_target_spec(tmp_path, dead)
    ran = _rtscope(db_path, server, "campaign", str(spec))
    assert ran.status == 1, ran.err
    assert f"rtscope: {dead}: {dead}: unreachable" in ran.err
    assert f"{dead} did not finish its share" in ran.err.strip().splitlines()[-1]
    # The live target's runs are stored; resuming with the board still dead measures nothing again there.
    again = _rtscope(db_path, server, "campaign", str(spec), "--resume")
    assert again.status == 1 and "rtscope: local: " in again.err and "nothing left" not in again.out


def test_other_builds_on_the_board_stay_a_day_after_a_new_one_comes(db_path, server):
    """Another rtscope version may have just found its build there and be about to start it."""
    cache = Path(pwd.getpwnam(sshd.USER).pw_dir) / ".cache" / "rtscope"
    cache.mkdir(parents=True, exist_ok=True)
    (cache / _build_name()).unlink(missing_ok=True)  # so that this run copies its build
    old, young = cache / "rtscope-probe-0000000000000old", cache / "rtscope-probe-000000000000young"
    for path in (old, young):
        path.write_bytes(b"#!/bin/sh\n")
    two_days_ago = time.time() - 2 * 86400
    os.utime(old, (two_days_ago, two_days_ago))
    try:
        ran = _rtscope(db_path, server, "--target", server.spec(sshd.USER), "run", "clock.read", "--duration", "0.3")
        assert ran.status == 0, ran.err
        assert (cache / _build_name()).is_file() and young.exists() and not old.exists()
    finally:
        old.unlink(missing_ok=True)
        young.unlink(missing_ok=True)


def _build_name() -> str:
    """The name the x86_64 probe build has on the board."""
    from rtscope.targets import probes

    return f"rtscope-probe-{probes.identity(probes.probe_for('x86_64'))[:16]}"


def test_no_space_on_the_board_is_one_line_and_leaves_no_partial_probe(db_path, server):
    name = _build_name()
    cache = Path(pwd.getpwnam(sshd.USER).pw_dir) / ".cache" / "rtscope"
    cache.mkdir(parents=True, exist_ok=True)
    # The board's cache on a file system of 16 KiB: the probe's megabyte does not fit.
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16k,mode=0777", "tmpfs", cache], check=False)
    if mounted.returncode != 0:
        pytest.skip("needs to mount a small tmpfs (root)")
    try:
        ran = _rtscope(db_path, server, "--target", server.spec(sshd.USER), "run", "clock.read", "--duration", "0.3")
        assert ran.status == 2 and "Traceback" not in ran.err
        assert ran.err.strip() == (
            f"rtscope: cannot copy the probe to {server.spec(sshd.USER)}:{cache / name}: "
            "cat: write error: No space left on device"
        )
        assert list(cache.iterdir()) == []  # neither the probe nor a part of it
    finally:
        subprocess.run(["umount", cache], check=True)


def _copy_at(start: threading.Barrier, transport: Any, remote: Path) -> None:
    """The x86_64 probe copied to ``remote`` by ``transport`` as soon as every copier is ready."""
    from rtscope.targets import probes

    start.wait()
    transport.put_probe(probes.probe_for("x86_64"), str(remote))


def test_copies_of_one_build_to_one_board_at_once_all_succeed(server, monkeypatch, tmp_path):
    # Two places of a fleet on one host copy the same build into the same cache at the same moment.
    from rtscope.targets import probes
    from rtscope.targets.remote.ssh import SshTransport

    for key, value in server.env().items():
        monkeypatch.setenv(key, value)
    cache = Path(pwd.getpwnam(sshd.USER).pw_dir) / ".cache" / "rtscope"
    cache.mkdir(parents=True, exist_ok=True)
    remote = cache / "rtscope-probe-concurrentcopy"
    transports = [SshTransport(server.spec(sshd.USER)) for _ in range(4)]
    try:
        for transport in transports:
            transport.connect()
        for _ in range(3):
            remote.unlink(missing_ok=True)
            start = threading.Barrier(len(transports))
            with concurrent.futures.ThreadPoolExecutor(len(transports)) as pool:
                for done in [pool.submit(_copy_at, start, transport, remote) for transport in transports]:
                    done.result()
            assert remote.read_bytes() == probes.probe_for("x86_64").read_bytes() and os.access(remote, os.X_OK)
            assert [p.name for p in cache.glob("rtscope-probe-concurrentcopy.part*")] == []
    finally:
        for transport in transports:
            transport.close()
        remote.unlink(missing_ok=True)


def test_a_net_load_streams_on_the_boards_own_loopback(db_path, server, tmp_path):
    load = _run_under_remote_load(db_path, server, tmp_path, "net")
    assert load["name"] == "net" and load["held"] and load["loopback_bytes_per_s"] > 1e6


def test_doctor_reads_the_board_as_it_reads_this_machine(db_path, server):
    """Here the board is this machine: the same checks, in the same states, whoever logs in."""
    here = _rtscope(db_path, server, "doctor", "--format", "json")
    there = _rtscope(db_path, server, "--target", server.spec(sshd.USER), "doctor", "--format", "json")
    assert here.status == there.status and there.status in (0, 1), there.err
    states = lambda outcome: {check["id"]: check["state"] for check in json.loads(outcome.out)["checks"]}
    assert states(there) == states(here)


def test_a_campaign_naming_a_target_that_is_not_one_is_refused_before_it_starts(db_path, server, tmp_path):
    ran = _rtscope(db_path, server, "campaign", str(_two_target_spec(tmp_path, "mars")))
    assert ran.status == 2 and ran.err.strip().startswith("rtscope: unknown target 'mars'")
    assert "local: " not in ran.err  # no worker started
