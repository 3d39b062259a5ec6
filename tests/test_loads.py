"""Disturbance loads: parsing, and each real load started, verified and stopped leaving no process behind —
on success, on error, on Ctrl-C and when rtscope itself is killed."""

import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import slow_fixture, start_rtscope
from rtscope.errors import RtscopeError
from rtscope.execution.measure import check_loads
from rtscope.loads import kinds, session
from rtscope.loads.kinds import LoadKind, Place
from rtscope.targets import InGuest, Nowhere, OnTransport, make_target
from rtscope.targets.transport import LocalTransport
from support import processes

LOCAL = LocalTransport()

TOOLS = {"cpu": "stress-ng", "memory": "stress-ng", "io": "stress-ng", "net": "iperf3", "sched": "hackbench"}


# The processes that ran before the test began (a stress-ng beside the suite, another suite's loads on this shared
# machine): a test counts only those started after (taken by the fixture beside_the_test, which every test uses).
_beside: frozenset[int] = frozenset()


def _live() -> dict[int, str]:
    """Every live process (zombies excepted): pid -> its command name."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        command, state = text[text.index("(") + 1 : text.rindex(")")], text[text.rindex(")") + 2]
        if state != "Z":
            found[int(stat.parent.name)] = command
    return found


def processes_of(names: tuple[str, ...]) -> list[str]:
    """Live processes started since the test began whose command is one of ``names``."""
    return [
        f"{pid} {command}"
        for pid, command in _live().items()
        if pid not in _beside and any(command.startswith(name[:15]) for name in names)
    ]


def await_gone(names: tuple[str, ...], timeout_s: float = 10.0) -> list[str]:
    deadline = time.monotonic() + timeout_s
    while (left := processes_of(names)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


# A test that needed a load running ends when rtscope refused it on a busy machine, once that reason and nothing
# left running are checked.
BUSY = processes.BUSY_MACHINE


@contextlib.contextmanager
def unless_the_machine_is_busy(*tools: str) -> Iterator[None]:
    try:
        yield
    except RtscopeError as refused:
        if BUSY not in str(refused):
            raise
        assert not await_gone(tools, timeout_s=5)
        pytest.skip(str(refused))


def needs(*tools: str) -> None:
    missing = [tool for tool in tools if not any(Path(d, tool).exists() for d in os.environ["PATH"].split(":"))]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (./setup.sh installs it)")


# Slow: the loads take whole CPUs, which a busy machine gives them late (the fast tier runs beside other work).
@slow_fixture(autouse=True)
def beside_the_test():
    """Tests count processes by name: those running already are someone else's."""
    global _beside
    _beside = frozenset(_live())


def test_every_load_kind_is_one_a_result_may_name():
    # A load the schema does not name makes every run under it fail when it is stored.
    schema = json.loads((Path(__file__).parents[1] / "schema" / "result-v4.schema.json").read_text())
    names = _find_load_name_enum(schema)
    assert set(kinds.KINDS) == set(names)


def _find_load_name_enum(node):
    """The enum of ``loads[].name``: the object whose properties hold ``loopback_bytes_per_s``."""
    if isinstance(node, dict):
        properties = node.get("properties")
        if isinstance(properties, dict) and "loopback_bytes_per_s" in properties:
            return properties["name"]["enum"]
        found = (_find_load_name_enum(value) for value in node.values())
    elif isinstance(node, list):
        found = (_find_load_name_enum(value) for value in node)
    else:
        return None
    return next((enum for enum in found if enum is not None), None)


def test_parse_names_combinations_and_parameters():
    specs = kinds.parse(["cpu,net", "memory:workers=2:bytes=64M"])
    assert [str(spec) for spec in specs] == ["cpu", "net", "memory:workers=2:bytes=64M"]
    assert specs[2].values() == {"workers": 2, "bytes": "64M"}
    assert kinds.parse(["cpu:cpus=0+1"])[0].values()["cpus"] == "0,1"
    one_cpu = kinds.parse(["cpu:cpus=1"])[0]
    assert one_cpu.kind.commands(one_cpu.values(), Place("/tmp", 0, 2))[0][:3] == ["stress-ng", "--cpu", "1"]
    assert kinds.parse([]) == ()


def test_a_hold_s_priority_reaches_its_loader_in_a_guest():
    place = Place("/tmp", 0, 2)
    (irqs,) = kinds.parse(["hold:what=irqs:prio=95:cpu=1"])
    assert irqs.kind.busybox(irqs.values(), place) == [["rtscope-kmod-hold", "irqs", "500", "20000", "1", "95"]]
    (fifo,) = kinds.parse(["hold:what=fifo"])
    assert fifo.kind.busybox(fifo.values(), place)[0][-1] == "0"  # the module's own: 90 for fifo


@pytest.mark.parametrize(
    "texts, message",
    [
        (["gpu"], "--load gpu: unknown load 'gpu' (known: idle, cpu, memory, io, net, sched, hold)"),
        (
            ["cpu:speed=9"],
            "--load cpu:speed=9: 'speed=9' is not KEY=VALUE with a parameter of cpu (its parameters: cpus, load)",
        ),
        (["cpu:load=150"], "--load cpu:load=150: '150' is not a percentage of 1..100"),
        (["memory:bytes=lots"], "--load memory:bytes=lots: 'lots' is not a size such as 256M"),
        (["cpu,cpu"], "--load: cpu is named twice"),
        (["idle", "net"], "--load: idle cannot be combined with another load"),
        (["idle:x=1"], "--load idle:x=1: 'x=1' is not KEY=VALUE with a parameter of idle (its parameters: none)"),
        (["hold:what=fifo:prio=100"], "--load hold:what=fifo:prio=100: '100' is not default or a priority 1..99"),
        (["hold:prio=0"], "--load hold:prio=0: '0' is not default or a priority 1..99"),
    ],
)
def test_bad_load_specs_get_one_line(texts, message):
    with pytest.raises(RtscopeError) as raised:
        kinds.parse(texts)
    assert str(raised.value) == message


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_each_load_runs_is_verified_and_leaves_nothing(name):
    needs(TOOLS[name])
    with (
        unless_the_machine_is_busy(TOOLS[name]),
        session.Session(LOCAL, settle_s=0.6) as loads,
        loads.hold(kinds.parse([name])) as active,
    ):
        assert processes_of((TOOLS[name],))
        record = active[0].record()
    assert record["held"] and record["cpus_used"] > 0
    if name == "net":
        assert record["loopback_bytes_per_s"] > 1e6
    assert active[0].left_behind == 0
    assert not await_gone((TOOLS[name],), timeout_s=2)


def test_loads_are_stopped_when_the_run_fails():
    needs("stress-ng", "iperf3")
    # Refused on a busy machine, the loads are stopped as when the run fails.
    with (
        pytest.raises((RuntimeError, RtscopeError), match=f"the probe crashed|{BUSY}"),
        session.Session(LOCAL, settle_s=0.4) as loads,
        loads.hold(kinds.parse(["cpu,net"])),
    ):
        raise RuntimeError("the probe crashed")
    assert not await_gone(("stress-ng", "iperf3"), timeout_s=2)


def brief_cpu_load(then: str = "") -> LoadKind:
    """A "cpu" load that keeps a CPU busy for a second and ends (``then``: what its shell does after)."""
    busy = "timeout --foreground 1 sh -c 'while :; do :; done'"
    return LoadKind(
        "cpu",
        "busy for a second, then gone",
        "sh",
        "dash",
        {},
        lambda s, w: [["sh", "-c", busy + then]],
        lambda s, w: 0.2,
    )


def test_a_load_that_ends_during_the_run_did_not_hold(monkeypatch):
    monkeypatch.setitem(kinds.KINDS, "cpu", brief_cpu_load(then="; exit 3"))
    with session.Session(LOCAL, settle_s=0.2) as loads, loads.hold(kinds.parse(["cpu"])) as active:
        time.sleep(2.5)  # the run outlives the load
    record = active[0].record()
    assert not record["held"]
    assert record["ended_early"] == ["sh exited with status 3"]


def test_a_load_that_does_not_really_run_is_refused(monkeypatch):
    idle_tool = LoadKind(
        "cpu", "sleeps instead of loading", "sleep", "coreutils", {}, lambda s, w: [["sleep", "30"]], lambda s, w: 1.0
    )
    monkeypatch.setitem(kinds.KINDS, "cpu", idle_tool)
    with (
        pytest.raises(RtscopeError, match=r"load cpu is not really running: its processes used 0 CPUs"),
        session.Session(LOCAL, settle_s=0.2) as loads,
        loads.hold(kinds.parse(["cpu"])),
    ):
        pass
    assert not await_gone(("sleep 30",), timeout_s=2)


def test_a_load_crowded_out_by_other_work_is_refused_saying_the_machine_is_busy(monkeypatch):
    # CPU hogs, four per CPU, take the CPUs; the load's one busy loop at nice 10 gets a small part of a CPU
    # beside them, of the CPUs' worth it asks for. Each hog is a session of its own: where the kernel groups
    # a session's processes for fairness (autogroup), the load (a session of its own) would get a whole
    # group's share against one group of hogs, whatever their number or its nice value.
    spin = ["sh", "-c", "while :; do :; done"]
    crowded = LoadKind(
        "cpu", "a busy loop at nice 10", "sh", "dash", {}, lambda s, w: [["nice", "-n", "10", *spin]], lambda s, w: 2.0
    )
    monkeypatch.setitem(kinds.KINDS, "cpu", crowded)
    hogs = [subprocess.Popen(spin, start_new_session=True) for _ in range(4 * (os.cpu_count() or 1))]
    try:
        with (
            pytest.raises(
                RtscopeError,
                match=rf"^load cpu {BUSY}: its processes used 0\.\d+ CPUs in the settle time, expected about 2, "
                r"while other work kept the rest busy \(0\.?\d* CPUs idle\)$",
            ),
            session.Session(LOCAL, settle_s=0.4) as loads,
            loads.hold(kinds.parse(["cpu"])),
        ):
            pass
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def test_a_missing_tool_names_its_package(monkeypatch):
    monkeypatch.setitem(
        kinds.KINDS, "net", LoadKind("net", "", "iperf3-not-here", "iperf3", {}, lambda s, w: [], lambda s, w: 0)
    )
    with pytest.raises(
        RtscopeError,
        match=r"load net needs iperf3-not-here, which is not installed on the target "
        r"local \(Debian package iperf3; ./setup.sh installs it here\)",
    ):
        kinds.check_tools(LOCAL, kinds.parse(["net"]))


@pytest.mark.parametrize(
    ("spec", "place"),
    [("local", OnTransport), ("qemu:aarch64:stock", InGuest), ("qemu:mps2-an385:freertos", Nowhere)],
)
def test_each_target_says_where_its_loads_run(spec, place):
    target = make_target(spec, Path("unused"))
    assert isinstance(target.load_place(), place)


def test_a_target_that_runs_no_loads_takes_idle_and_refuses_the_others():
    board = make_target("qemu:mps2-an385:freertos", Path("unused"))
    check_loads(board, kinds.parse(["idle"]))  # idle starts nothing
    with pytest.raises(
        RtscopeError,
        match=r"^--load sched: qemu:mps2-an385:freertos cannot run loads: it runs only the probe's image, "
        r"with no shell or processes beside it$",
    ):
        check_loads(board, kinds.parse(["sched"]))


def test_a_session_keeps_a_load_across_runs_and_checks_it_for_each():
    needs("stress-ng")
    notes: list[str] = []
    cpu = kinds.parse(["cpu:load=50"])
    with unless_the_machine_is_busy("stress-ng"), session.Session(LOCAL, settle_s=0.4, progress=notes.append) as loads:
        with loads.hold(cpu) as first:
            time.sleep(0.3)
        leader = first[0].processes[0].pid
        with loads.hold(cpu) as second:  # the same loads: kept, not settled again
            time.sleep(0.3)
        assert second[0].processes[0].pid == leader and len(notes) == 1
        assert second[0].record()["held"] and second[0].cpus_used > 0.2  # measured over this run
        with loads.hold(()) as none:  # another set: the old one is stopped
            assert none == [] and not await_gone(("stress-ng",), timeout_s=5)
        with loads.hold(cpu):
            assert len(notes) == 2  # started and settled again
    assert not await_gone(("stress-ng",), timeout_s=5)


def test_a_kept_load_that_ended_is_refused_before_the_next_run(monkeypatch):
    monkeypatch.setitem(kinds.KINDS, "cpu", brief_cpu_load())
    with session.Session(LOCAL, settle_s=0.2) as loads:
        with loads.hold(kinds.parse(["cpu"])):
            pass
        time.sleep(1.5)
        with (
            pytest.raises(RtscopeError, match="load cpu ended since the run before: sh exited with status"),
            loads.hold(kinds.parse(["cpu"])),
        ):
            pass


def test_a_run_under_load_records_it(probe, rtscope, tmp_path):
    needs("stress-ng")
    out = tmp_path / "run.json"
    outcome = rtscope(
        "--probe",
        probe,
        "run",
        "lat.wakeup",
        "--duration",
        "0.5",
        "--load",
        "cpu:load=50",
        "--settle",
        "0.6",
        "--json",
        out,
    )
    if BUSY in outcome.err:
        assert outcome.status != 0 and not await_gone(("stress-ng",), timeout_s=5)
        pytest.skip(outcome.err.strip())
    assert outcome.status == 0, outcome.err
    doc = json.loads(out.read_text())
    assert doc["version"] == 4 and doc["target"] == {"name": "local", "kind": "local", "time_base": "hardware"}
    [record] = doc["loads"]
    assert record["name"] == "cpu" and record["settings"] == {"cpus": "all", "load": "50"}
    # Metered over the run: half of every CPU asked for, of which a busy machine gives it what others leave.
    assert record["held"] and record["cpus_used"] > 0
    assert "Loads" in outcome.out and "held" in outcome.out
    assert rtscope("show", "last", "--json").out == out.read_text()
    assert not await_gone(("stress-ng",), timeout_s=2)


def start_long_run(probe: Path, db_path: Path, *args: str, output: int) -> subprocess.Popen[str]:
    """rtscope measuring lat.wakeup for 30 s under the loads ARGS name (start_rtscope)."""
    return start_rtscope(
        db_path, "--probe", probe, "run", "lat.wakeup", "--duration", "30", "--settle", "0.4", *args, output=output
    )


def test_ctrl_c_stops_the_run_and_its_loads(probe, db_path):
    needs("stress-ng", "iperf3")
    run = start_long_run(probe, db_path, "--load", "cpu,net", output=subprocess.PIPE)
    # Once the probe measures (the loads settled first: seconds on a busy machine), or the run was refused.
    deadline = time.monotonic() + 60
    while not processes_of(("rtscope-probe",)) and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    if run.poll() is None:
        os.killpg(run.pid, signal.SIGINT)  # what a terminal's Ctrl-C does to the foreground group
    out, err = run.communicate(timeout=60)
    if BUSY in err:
        assert run.returncode != 0 and not await_gone(("stress-ng", "iperf3"), timeout_s=5)
        pytest.skip(err.strip().splitlines()[-1])
    assert run.returncode == 130, err
    assert "Loads" in out
    assert not await_gone(("stress-ng", "iperf3"), timeout_s=5)


def test_killing_rtscope_takes_its_loads_along(probe, db_path):
    needs("stress-ng")
    run = start_long_run(probe, db_path, "--load", "cpu", "--no-store", output=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while not processes_of(("rtscope-probe",)) and time.monotonic() < deadline:
        time.sleep(0.1)
    run.kill()  # kill -9: no finally runs
    run.wait()
    try:
        assert not await_gone(("stress-ng",), timeout_s=10)
    finally:
        with contextlib.suppress(ProcessLookupError):  # the orphaned probe (it would end by itself after 30 s)
            os.killpg(run.pid, signal.SIGKILL)
