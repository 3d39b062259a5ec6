"""labgrid-place: and labgrid-tag: targets against a real coordinator and exporter (tests/support/labgrid_lab.py):
places reserved, waited for, acquired, measured over SSH and always released; two runs on one place take
turns; a campaign on count=2 measures both places at once; every bad input is one line."""

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from conftest import Outcome, process_env
from rtscope.store.database import Store
from support import labgrid_lab, sshd
from support.loopback import free_port
from support.processes import probes_labelled
from support.waiting import until

Fleet = tuple[sshd.Server, labgrid_lab.Lab]


@pytest.fixture
def fleet(labgrid_fleet: Fleet) -> Iterator[Fleet]:
    """The lab, checked free after each test: no place acquired, no reservation left."""
    yield labgrid_fleet
    _, lab = labgrid_fleet
    assert lab.acquired() == {}
    assert lab.reservations() == []


def _env(db_path: Path, fleet: Fleet, **more: str) -> dict[str, str]:
    server, lab = fleet
    return {**process_env(db_path), **server.env(), "LG_COORDINATOR": lab.address, **more}


def _start(db_path: Path, fleet: Fleet, *args: str) -> subprocess.Popen[str]:
    """rtscope as a process of its own, in a session of its own (as a terminal starts it)."""
    return subprocess.Popen(
        [sys.executable, "-m", "rtscope", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(db_path, fleet),
        start_new_session=True,
    )


def _rtscope(db_path: Path, fleet: Fleet, *args: str, timeout: float = 120) -> Outcome:
    process = _start(db_path, fleet, *args)
    out, err = process.communicate(timeout=timeout)
    return Outcome(process.returncode, out, err)


def _span(doc: dict[str, Any]) -> tuple[datetime, datetime]:
    run = doc["run"]
    return datetime.fromisoformat(run["started"]), datetime.fromisoformat(run["finished"])


def test_a_run_on_a_place_is_measured_on_its_board_and_the_place_released(db_path, fleet, tmp_path):
    out = tmp_path / "run.json"
    ran = _rtscope(
        db_path,
        fleet,
        "--target",
        "labgrid-place:board-a",
        "run",
        "clock.read",
        "--duration",
        "0.3",
        "--json",
        str(out),
    )
    assert ran.status == 0, ran.err
    target = json.loads(out.read_text())["target"]
    assert target["name"] == "labgrid-place:board-a"
    assert target["kind"] == "labgrid"
    assert target["detail"]["place"] == "board-a"


def test_doctor_takes_a_place_with_the_tags(db_path, fleet):
    _, lab = fleet
    ran = _rtscope(
        db_path,
        fleet,
        "--coordinator",
        lab.address,
        "--target",
        "labgrid-tag:kind=test,slot=2",
        "doctor",
        "--format",
        "json",
    )
    assert ran.status in (0, 1), ran.err
    assert json.loads(ran.out)["target"] == "labgrid-tag:kind=test,slot=2"


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("labgrid-place:board-z", "no place board-z at 127.0.0.1:"),
        ("labgrid-tag:colour=red", "no place has a tag colour (tags: kind, name, slot)"),
        ("labgrid-tag:kind=test,slot=3", "1 place(s) wanted, none tagged so"),
        ("labgrid-tag:name=board-z", "1 place(s) wanted, none tagged so"),
    ],
)
def test_a_target_no_place_can_match_is_one_line_and_nothing_is_written(db_path, fleet, target, message):
    started = time.monotonic()
    ran = _rtscope(db_path, fleet, "--target", target, "run", "clock.read", timeout=30)
    assert ran.status == 2
    assert ran.err.count("\n") == 1, ran.err
    assert message in ran.err
    assert time.monotonic() - started < 20
    assert not db_path.exists()


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("labgrid-tag:kind=test:count=2", "count above 1 is for a campaign's targets"),
        ("labgrid-tag:kind", "expected labgrid-tag:KEY=VALUE[,KEY=VALUE][:count=N]"),
        ("labgrid-tag:kind=test:count=0", "expected labgrid-tag:KEY=VALUE[,KEY=VALUE][:count=N]"),
        ("labgrid-place:", "expected labgrid-place:NAME"),
        ("labgrid-place:a b", "expected labgrid-place:NAME"),
    ],
)
def test_a_malformed_labgrid_target_is_one_line_and_nothing_is_written(rtscope, db_path, monkeypatch, target, message):
    monkeypatch.setenv("LG_COORDINATOR", "127.0.0.1:9")
    ran = rtscope("--target", target, "run", "clock.read")
    assert ran.status == 2
    assert ran.err.count("\n") == 1, ran.err
    assert message in ran.err
    assert not db_path.exists()


def test_a_labgrid_target_without_a_coordinator_says_how_to_name_one(rtscope, monkeypatch):
    monkeypatch.delenv("LG_COORDINATOR", raising=False)
    ran = rtscope("--target", "labgrid-place:board-a", "doctor")
    assert (ran.status, ran.err) == (
        2,
        "rtscope: labgrid targets need a coordinator: --coordinator HOST:PORT or LG_COORDINATOR\n",
    )


def test_a_coordinator_that_is_down_is_one_line_in_bounded_time(db_path, labgrid_fleet):
    started = time.monotonic()
    ran = _rtscope(
        db_path,
        labgrid_fleet,
        "--coordinator",
        f"127.0.0.1:{free_port()}",
        "--target",
        "labgrid-place:board-a",
        "run",
        timeout=60,
    )
    assert ran.status == 2
    assert ran.err.count("\n") == 1, ran.err
    assert "the labgrid coordinator at 127.0.0.1:" in ran.err
    assert "cannot be reached" in ran.err
    assert time.monotonic() - started < 30
    assert not db_path.exists()


def test_two_runs_on_one_place_take_turns(db_path, fleet, tmp_path):
    outs = [tmp_path / "first.json", tmp_path / "second.json"]
    processes = [
        _start(
            db_path,
            fleet,
            "--target",
            "labgrid-place:board-a",
            "run",
            "lat.wakeup",
            "--duration",
            "2",
            "--json",
            str(out),
        )
        for out in outs
    ]
    _, lab = fleet
    until("one run to end", lambda: any(process.poll() is not None for process in processes), timeout_s=120)
    # The other's reservation got the place as the first gave it back, not at the coordinator's next round
    # of its own (every 15 s): it is no longer waiting.
    assert "waiting" not in lab.reservations()
    ended = [process.communicate(timeout=120) for process in processes]
    assert [process.returncode for process in processes] == [0, 0], ended
    # One waited for the other, saying for what.
    assert any("waiting for place board-a: board-a " in err for _, err in ended), ended
    first, second = sorted(_span(json.loads(out.read_text())) for out in outs)
    assert first[1] <= second[0], "two measurements overlapped on one place"


def test_a_busy_place_is_waited_for_at_most_wait_and_the_reservation_cancelled(db_path, fleet):
    _, lab = fleet
    lab.acquire("board-b")
    try:
        started = time.monotonic()
        ran = _rtscope(db_path, fleet, "--wait", "2", "--target", "labgrid-place:board-b", "run", timeout=60)
        waited = time.monotonic() - started
        assert ran.status == 2
        assert "waiting for place board-b: board-b acquired by " in ran.err
        assert "place board-b still busy after 2 s (board-b acquired by " in ran.err.splitlines()[-1]
        assert 2 <= waited < 30
        assert not db_path.exists()
    finally:
        lab.release("board-b")


@pytest.mark.parametrize("stop", ["ctrl-c", "sigterm"])
def test_ctrl_c_and_sigterm_release_the_place(db_path, fleet, stop):
    _, lab = fleet
    process = _start(
        db_path,
        fleet,
        "--target",
        "labgrid-place:board-a",
        "run",
        "lat.wakeup",
        "--duration",
        "60",
        "--label",
        "stopped: run",
    )
    try:
        until("board-a acquired", lambda: "board-a" in lab.acquired())
        # Stopped once the probe runs on the board (seconds after the place is taken, a minute on a busy
        # machine): a fixed 3 s sent the signal before it on a loaded one.
        until("the board's probe started", lambda: probes_labelled("stopped"), timeout_s=120)
        if stop == "ctrl-c":
            err, took = _stopped(process, lambda: os.killpg(process.pid, signal.SIGINT))  # to the group, as a terminal
        else:
            err, took = _stopped(process, lambda: process.send_signal(signal.SIGTERM))  # to rtscope alone
    finally:
        process.kill()
        # A busy FIFO probe left on the board (this machine) would starve the tests after this one.
        until("the board's probe stopped", lambda: not probes_labelled("stopped"), timeout_s=70)
    assert process.returncode == 130, err
    assert lab.acquired() == {}
    assert took < 30
    print(f"{stop}: place released and rtscope ended {took:.2f} s after the signal")


def _stopped(process: subprocess.Popen[str], stop: Callable[[], None]) -> tuple[str, float]:
    """``stop()`` rtscope and wait for it to end: its stderr, and the seconds from the signal to its end."""
    sent = time.monotonic()
    stop()
    _, err = process.communicate(timeout=60)
    return err, time.monotonic() - sent


def _spec(tmp_path: Path, name: str, targets: list[str], repetitions: int, duration: float) -> Path:
    """A campaign measuring wake-ups: a sleeping bench (clock.read would keep a CPU busy per place)."""
    spec = tmp_path / f"{name}.toml"
    spec.write_text(
        f'name = "{name}"\nbenches = ["lat.wakeup"]\nduration = {duration}\nrepetitions = {repetitions}\n'
        f"targets = {json.dumps(targets)}\n"
    )
    return spec


def test_a_campaign_on_count_2_measures_both_places_at_once(db_path, fleet, tmp_path):
    spec = _spec(tmp_path, "fleet", ["labgrid-tag:kind=test:count=2"], repetitions=2, duration=2)
    ran = _rtscope(db_path, fleet, "campaign", str(spec))
    assert ran.status == 0, ran.err
    with Store.open(db_path) as store:
        docs = [run.doc for run in store.campaign_runs("fleet")]
    assert sorted(doc["target"]["detail"]["place"] for doc in docs) == ["board-a", "board-b"]
    (a_start, a_end), (b_start, b_end) = (_span(doc) for doc in docs)
    assert a_start < b_end and b_start < a_end, "the two places were not measured at once"


def test_a_campaign_mixes_a_place_with_an_ssh_board(db_path, fleet, tmp_path):
    server, _ = fleet
    spec = _spec(tmp_path, "mixed", ["labgrid-place:board-b", server.spec()], repetitions=1, duration=0.3)
    ran = _rtscope(db_path, fleet, "campaign", str(spec))
    assert ran.status == 0, ran.err
    with Store.open(db_path) as store:
        kinds = sorted(run.doc["target"]["kind"] for run in store.campaign_runs("mixed"))
    assert kinds == ["labgrid", "ssh"]


def test_ctrl_c_on_a_campaign_on_two_places_releases_both_and_ends_it_as_interrupted(db_path, fleet, tmp_path):
    _, lab = fleet
    spec = _spec(tmp_path, "stopped", ["labgrid-tag:kind=test:count=2"], repetitions=2, duration=60)
    process = _start(db_path, fleet, "campaign", str(spec))
    try:
        until("both places acquired", lambda: {"board-a", "board-b"} <= lab.acquired().keys())
        until("both boards' probes started", lambda: len(probes_labelled("stopped")) >= 2, timeout_s=120)
        err, took = _stopped(process, lambda: os.killpg(process.pid, signal.SIGINT))
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert lab.acquired() == {}
    assert took < 30
    print(f"campaign on 2 places: both released and rtscope ended {took:.2f} s after Ctrl-C")


def test_a_killed_campaign_s_place_is_freed_by_its_guard_for_the_next_one(db_path, fleet, tmp_path):
    _, lab = fleet
    spec = _spec(tmp_path, "killed", ["labgrid-place:board-a", "labgrid-place:board-b"], repetitions=1, duration=60)
    process = _start(db_path, fleet, "campaign", str(spec))
    try:
        until("both places acquired", lambda: {"board-a", "board-b"} <= lab.acquired().keys())
    finally:
        process.kill()  # its workers die with it (SIGKILL): none can give back its place
        process.communicate()
    killed = time.monotonic()
    until(
        "the places released and the reservations cancelled",
        lambda: not lab.acquired() and not lab.reservations(),
    )
    print(f"the guards freed both places {time.monotonic() - killed:.2f} s after the SIGKILL")
    # The probes started on the boards end with their connections (the lifeline: TERM, then KILL); a
    # busy one left running at SCHED_FIFO would starve the tests after this one.
    until("the boards' probes stopped", lambda: not probes_labelled("killed"), timeout_s=30)
    again = _rtscope(db_path, fleet, "campaign", str(_spec(tmp_path, "next", ["labgrid-place:board-a"], 1, 0.3)))
    assert again.status == 0, again.err


def test_a_killed_run_waiting_for_a_place_leaves_no_reservation(db_path, fleet):
    _, lab = fleet
    lab.acquire("board-b")
    try:
        process = _start(db_path, fleet, "--target", "labgrid-place:board-b", "run")
        try:
            until("a reservation waiting", lambda: "waiting" in lab.reservations())
        finally:
            process.kill()
            process.communicate()
        until("the reservation cancelled", lambda: not lab.reservations(), timeout_s=30)
    finally:
        lab.release("board-b")
