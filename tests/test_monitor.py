"""rtscope monitor: its spec and the errors in it, the board loop (windows numbered and stored as they end,
a restart going on, a failing board retried with back-off, the hooks), and the real thing on this machine —
windows of the probe, SIGTERM, SIGKILL and a restart, a board that cannot be reached beside one that can —
and the systemd unit."""

import contextlib
import copy
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import REPO, process_env, start_rtscope
from rtscope.commands import monitor as monitor_command
from rtscope.errors import RtscopeError
from rtscope.execution import monitor, monitor_spec, retention
from rtscope.execution.monitor import (
    BoardLoop,
    Hooks,
    Housekeeper,
    NotRetried,
    StopRequests,
    next_window,
    open_monitor,
)
from rtscope.model import result
from rtscope.store.database import Store
from rtscope.targets.fake import FakeTarget
from support import builders, sshd
from support.loopback import free_port
from support.processes import probes_labelled
from support.waiting import until

SPEC = """\
    name = "lab"
    window = "1s"
    windows = 5

    [[board]]
    name = "here"
    target = "{target}"

    [[step]]
    name = "idle"
    benches = ["clock.read"]

    [[step]]
    name = "busy"
    benches = ["clock.read"]
    load = "idle"
    policy = "other"
    params = {{ cpu = 0 }}
    pause = "0s"
"""


def spec_file(tmp_path: Path, text: str, name: str = "monitor.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_a_spec_reads_its_boards_and_steps(tmp_path):
    spec = monitor_spec.load(spec_file(tmp_path, SPEC.format(target="local")))
    assert (spec.name, spec.window_s, spec.windows) == ("lab", 1.0, 5)
    assert [(b.name, b.target) for b in spec.boards] == [("here", "local")]
    assert [s.name for s in spec.steps] == ["idle", "busy"]
    assert [spec.step_of(n).name for n in range(1, 6)] == ["idle", "busy", "idle", "busy", "idle"]
    busy = spec.steps[1]
    assert (busy.config.policy, [str(p) for p in busy.params], busy.pause_s) == ("other", ["cpu=0"], 0.0)
    assert (spec.backoff_s, spec.backoff_max_s) == (monitor_spec.DEFAULT_BACKOFF_S, monitor_spec.DEFAULT_BACKOFF_MAX_S)


def test_the_example_spec_reads():
    spec = monitor_spec.load(REPO / "examples" / "monitors" / "lab.toml")
    assert [(step.name, step.load, step.pause_s) for step in spec.steps] == [
        ("idle", "idle", 0.0),
        ("cpu", "cpu", 10.0),
    ]
    assert (spec.window_s, spec.windows, [board.target for board in spec.boards]) == (60.0, None, ["local"])
    assert spec.series_window_s == monitor_spec.DEFAULT_SERIES_WINDOW_S == 10.0


def test_a_windows_series_window_is_the_monitors_and_reaches_the_probe(tmp_path):
    """10 s by default (the window when shorter), else the spec's; each window's request passes it on."""

    def args(text: str) -> list[str]:
        spec = monitor_spec.load(spec_file(tmp_path, text))
        step = spec.steps[0]
        return monitor.request_for(spec, spec.boards[0], step, 1, step.benches).probe_args()

    five_minutes = SPEC.format(target="local").replace('"1s"', '"5m"')
    assert args(five_minutes)[args(five_minutes).index("--series-window") + 1] == "10"
    given = five_minutes.replace('"5m"', '"5m"\n    series_window = "30s"')
    assert args(given)[args(given).index("--series-window") + 1] == "30"
    assert monitor_spec.load(spec_file(tmp_path, SPEC.format(target="local"))).series_window_s == 1.0


@pytest.mark.parametrize(
    ("change", "replacement", "message"),
    [
        ('window = "1s"', 'window = "1 fortnight"', r"monitor.toml:2: window: bad duration"),
        ("windows = 5", "windows = 0", r"monitor.toml:3: windows: must be one or more, not 0"),
        ('name = "here"', 'name = "my board"', r"monitor.toml:6: board\[0\].name: 'my board' is not a name"),
        ('target = "local"', 'targat = "local"', r"monitor.toml:7: board\[0\].targat: unknown key"),
        ('load = "idle"', 'load = "dusk"', r"monitor.toml:16: step\[1\].load: --load dusk: unknown load 'dusk'"),
        ('policy = "other"', 'policy = "edf"', r"monitor.toml:17: step\[1\].policy: 'edf' is not one of"),
        ("cpu = 0", "cpu = [0, 1]", r"monitor.toml: step\[1\].cpu: must be a number"),
        ('pause = "0s"', 'pause = "soon"', r"monitor.toml:19: step\[1\].pause: bad duration 'soon'"),
        ('name = "busy"', 'name = "idle"', r"monitor.toml:14: step\[1\].name: step 'idle' is named twice"),
        ('window = "1s"', "[alarms]\nhook = 3", r"monitor.toml: alarms: unknown key \(known: name, window"),
        ('benches = ["clock.read"]\n\n[[step]]', "benches = []\n\n[[step]]", r"step\[0\].benches: must name at least"),
        ('window = "1s"', 'window = "1s"\nbackoff = "1m"\nbackoff_max = "10s"', r"backoff_max: must be at least"),
        ('window = "1s"', "window = 1s", r"monitor.toml:2: not TOML"),
        ('window = "1s"', 'window = "1s"\nseries_window = "2s"', r"monitor.toml:3: series_window: 2 s is longer than"),
        (
            'window = "1s"',
            'window = "1s"\nseries_window = "0"',
            r"monitor.toml:3: series_window: duration must be more",
        ),
        ('window = "1s"', 'window = "1s"\nseries_window = "-5s"', r"monitor.toml:3: series_window: duration must be"),
        ('window = "1s"', 'window = "1s"\nseries_window = "x"', r"monitor.toml:3: series_window: bad duration 'x'"),
        (
            'window = "1s"',
            'window = "1s"\nseries_window = "0.1ms"',
            r"monitor.toml:3: series_window: a series window is",
        ),
    ],
)
def test_a_bad_spec_names_the_line_and_the_key(tmp_path, change, replacement, message):
    text = textwrap.dedent(SPEC.format(target="local"))
    assert change in text
    with pytest.raises(RtscopeError, match=message):
        monitor_spec.load(spec_file(tmp_path, text.replace(change, replacement, 1), "monitor.toml"))


def test_retention_and_alerts_tables_are_read_and_become_the_monitors_hooks(tmp_path):
    tables = '\n[retention]\nkeep_full = "7d"\n\n[alerts]\nurl = "http://127.0.0.1:9/hook"\nmetrics = ["clock.read"]\n'
    spec = monitor_spec.load(spec_file(tmp_path, textwrap.dedent(SPEC.format(target="local")) + tables))
    assert spec.sections["retention"] == retention.RetentionPolicy(full_days=7)
    assert spec.sections["alerts"].url == "http://127.0.0.1:9/hook"
    hooks = monitor_command.hooks_for(spec)
    assert (len(hooks.housekeeping), len(hooks.after_window)) == (1, 1)
    # Without [alerts] nothing is sent; retention runs with its defaults.
    plain = monitor_command.hooks_for(monitor_spec.load(spec_file(tmp_path, SPEC.format(target="local"))))
    assert (len(plain.housekeeping), len(plain.after_window)) == (1, 0)
    with pytest.raises(RtscopeError, match=r"^.*monitor.toml.*retention.*keep_ful"):
        monitor_spec.load(
            spec_file(tmp_path, textwrap.dedent(SPEC.format(target="local")) + '[retention]\nkeep_ful = "7d"\n')
        )


def test_a_spec_without_boards_or_steps_or_with_a_board_of_several(tmp_path):
    with pytest.raises(RtscopeError, match=r"monitor.toml:1: board: missing: at least one \[\[board\]\]"):
        monitor_spec.load(spec_file(tmp_path, 'name = "x"\n[[step]]\nbenches = ["a.b"]\n'))
    with pytest.raises(RtscopeError, match=r"step: missing"):
        monitor_spec.load(spec_file(tmp_path, 'name = "x"\n[[board]]\nname = "b"\ntarget = "local"\n'))
    with pytest.raises(RtscopeError, match=r"monitor.toml:4: board\[0\].target: names several boards"):
        monitor_spec.load(
            spec_file(
                tmp_path,
                'name = "x"\n[[board]]\nname = "b"\ntarget = "labgrid-tag:board=rpi4:count=2"\n'
                '[[step]]\nbenches = ["a.b"]\n',
            )
        )


def test_a_bad_spec_is_one_line_and_exit_2(rtscope, tmp_path, db_path):
    outcome = rtscope(
        "monitor", spec_file(tmp_path, SPEC.format(target="local").replace("windows = 5", "windows = -1"))
    )
    assert outcome.status == 2
    assert outcome.err.count("\n") == 1 and "monitor.toml:3: windows: must be one or more" in outcome.err
    outcome = rtscope("monitor", spec_file(tmp_path, SPEC.format(target="nowhere:at-all")))
    assert outcome.status == 2 and outcome.err.count("\n") == 1 and "nowhere:at-all" in outcome.err
    outcome = rtscope("monitor", tmp_path / "absent.toml")
    assert outcome.status == 2 and "absent.toml: no such monitor spec" in outcome.err
    assert not db_path.exists()  # nothing opened before the spec and its targets were checked


class _Flaky:
    """Makes the fake target, failing ``fails`` times first as an unreachable board does."""

    def __init__(self, recorded_dir: Path, fails: int):
        self.recorded_dir, self.fails, self.calls = recorded_dir, fails, 0

    def __call__(self, spec: str) -> FakeTarget:
        self.calls += 1
        if self.calls <= self.fails:
            raise RtscopeError(f"ssh: connect to host board port 22: Connection refused (try {self.calls})")
        return FakeTarget(self.recorded_dir)


def _loop(spec, store, make, **kwargs) -> BoardLoop:
    this, _ = open_monitor(store, spec)
    return BoardLoop(spec, spec.boards[0], this, store, make, **kwargs)


def test_a_warning_is_said_by_the_window_that_brings_it_not_by_every_window(tmp_path, db_path, recorded_dir):
    warnings = {1: ["A"], 2: ["A"], 3: ["A", "B"], 4: [], 5: ["A"]}

    class Warned(FakeTarget):
        def run(self, request):
            assert "--quiet" in request.probe_args()  # the probe's own table and warnings: not in the log
            doc = copy.deepcopy(super().run(request).doc)
            doc["config"]["warnings"] = warnings[int(request.label.rsplit("#", 1)[1])]
            return result.from_doc(doc, "a replayed window")

    spec = monitor_spec.load(spec_file(tmp_path, SPEC.format(target="fake")))
    said: list[str] = []
    with Store.open(db_path, create=True) as store:
        _loop(spec, store, lambda _: Warned(recorded_dir), say=said.append).run()
    assert [line if line.startswith("warning") else line.split(" as run")[0] for line in said] == [
        "warning: A",
        "stored window 1 (idle)",
        "stored window 2 (busy)",
        "warning: B",
        "stored window 3 (idle)",
        "stored window 4 (busy)",
        "warning: A",
        "stored window 5 (idle)",
    ]


def test_a_window_line_names_each_benchs_headline_and_the_invalid_metrics():
    doc = builders.result_doc(benches={"ctxsw.sem": 2_000.0, "clock.read": 20.0}, invalid=("ctxsw.sem",))
    assert monitor.window_summary(doc) == (
        "ctxsw.sem p99 2.98 µs, max 14.0 µs; clock.read p99 10 ns, max 120 ns; "
        "1 invalid (ctxsw.sem: the partner thread did not run on the same CPU)"
    )


def test_windows_are_numbered_stored_as_they_end_and_a_restart_goes_on(tmp_path, db_path, recorded_dir):
    spec = monitor_spec.load(spec_file(tmp_path, SPEC.format(target="fake")))
    said, after = [], []
    with Store.open(db_path, create=True) as store:

        def after_window(stored, monitor_id, board):
            after.append((monitor_id, board, len(stored.runs())))
            if len(after) == 2:
                raise RtscopeError("the alert's URL did not answer")
            return [f"alert: checked after window {len(after)}"] if len(after) == 3 else []

        hooks = Hooks(after_window=(after_window,))
        first = _loop(spec, store, _Flaky(recorded_dir, 0), hooks=hooks, say=said.append)
        first.run()
        windows = [run.doc["monitor"] for run in store.campaign_runs("lab")]
        assert [(w["board"], w["window"], w["step"], w["windows"]) for w in windows] == [
            ("here", n, "idle" if n % 2 else "busy", 1) for n in range(1, 6)
        ]
        # After each window, with that window already stored.
        assert after == [(first.monitor.id, "here", n) for n in range(1, 6)]
        # One line a window: its headline figures, not the probe's table (the probe runs --quiet).
        assert re.fullmatch(r"stored window 1 \(idle\) as run [0-9a-f]{8}: clock\.read p99 \S+ ns, max \S+ ns", said[0])
        assert "after window 2: the alert's URL did not answer" in said  # said, and the board goes on
        assert "alert: checked after window 3" in said  # what a hook returns is said
        # The same spec with more windows: the same monitor, going on at window 6.
        more = monitor_spec.load(spec_file(tmp_path, SPEC.format(target="fake").replace("windows = 5", "windows = 7")))
        again = _loop(more, store, _Flaky(recorded_dir, 0))
        assert (again.monitor.id, again.window) == (first.monitor.id, 6)
        again.run()
        assert sorted(w for _, w in store.campaign_cells(first.monitor.id)) == list(range(1, 8))
        labels = [run.label for run in store.runs()]
        assert "lab: here busy #6" in labels and len(set(labels)) == 7


def test_a_failing_board_is_retried_with_back_off_and_reported_once(tmp_path, db_path, recorded_dir):
    text = SPEC.format(target="fake").replace("windows = 5", 'windows = 2\nbackoff = "10s"\nbackoff_max = "30s"')
    spec = monitor_spec.load(spec_file(tmp_path, text))
    said, slept = [], []
    with Store.open(db_path, create=True) as store:
        loop = _loop(spec, store, _Flaky(recorded_dir, 4), say=said.append, sleep=slept.append)
        loop.run()
        assert [run.doc["monitor"]["window"] for run in store.campaign_runs("lab")] == [1, 2]
    assert slept == [10.0, 20.0, 30.0, 30.0]  # doubling, bounded
    failed = [line for line in said if "window 1 failed" in line]
    assert len(failed) == 1, said  # once per streak
    assert "window 1 failed: ssh: connect to host board port 22: Connection refused (try 1)" in failed[0]
    assert failed[0].endswith("trying again in 10 s, then at most every 30 s, until it is back")
    assert said[1] == "back after 4 failed tries"
    assert loop.delay == 10.0  # the next streak starts at the first back-off again


def test_a_window_that_failed_because_it_was_stopped_stops_the_loop(tmp_path, db_path, recorded_dir):
    # A probe killed by the stop before its handler was set comes back as a failure: not one to retry.
    spec = monitor_spec.load(spec_file(tmp_path, SPEC.format(target="fake")))
    with Store.open(db_path, create=True) as store:
        loop = _loop(spec, store, _Flaky(recorded_dir, 1), sleep=pytest.fail, say=pytest.fail, stopped=lambda: True)
        with pytest.raises(KeyboardInterrupt):
            loop.run()
        assert not store.runs()


def test_stop_requests_are_seen_whichever_handler_took_them():
    previous = signal.signal(signal.SIGTERM, lambda *_: None)  # as the probe's runner takes it
    stopped = StopRequests()
    try:
        assert not stopped()
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.01)
        assert stopped() and stopped()  # and it stays asked
    finally:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGTERM, previous)


def test_a_bench_the_board_does_not_have_ends_its_loop(tmp_path, db_path, recorded_dir):
    spec = monitor_spec.load(spec_file(tmp_path, SPEC.format(target="fake").replace('"clock.read"]', '"clock.reed"]')))
    with Store.open(db_path, create=True) as store:
        with pytest.raises(
            NotRetried, match=r"step idle: unknown bench or suite 'clock.reed'; did you mean clock.read"
        ):
            _loop(spec, store, _Flaky(recorded_dir, 0), sleep=pytest.fail).run()
        assert not store.runs()


def test_a_window_the_store_refuses_ends_the_loop(tmp_path, db_path, recorded_dir):
    spec = monitor_spec.load(spec_file(tmp_path, SPEC.format(target="fake")))
    with Store.open(db_path, create=True) as store:
        loop = _loop(spec, store, _Flaky(recorded_dir, 0), sleep=pytest.fail)
        # Another process of the same monitor stored window 1 meanwhile: never stored twice, nor retried.
        doc = builders.monitor_window("2000000000000001", "here", 1, name="lab", monitor_id=loop.monitor.id)
        store.add(result.from_doc(doc, "window 1"))
        with pytest.raises(NotRetried, match=r"monitor lab already has window 1 of board 'here' \(window 1 was not"):
            loop.run()
        assert len(store.runs()) == 1


def test_several_boards_store_their_series_at_once(store_location, tmp_path, db_path, recorded_dir):
    location = store_location
    boards = "".join(f'\n[[board]]\nname = "b{n}"\ntarget = "fake:{recorded_dir}"\n' for n in range(3))
    text = textwrap.dedent(SPEC.format(target=f"fake:{recorded_dir}")).replace("windows = 5", "windows = 4")
    spec = spec_file(tmp_path, text.replace("\n[[step]]", boards + "\n[[step]]", 1))
    # One worker process per board, each writing its windows as they end into the one store.
    ended = subprocess.run(
        [sys.executable, "-m", "rtscope", "--db", location, "monitor", str(spec)],
        capture_output=True,
        text=True,
        env=process_env(db_path),
        timeout=300,
        check=False,
    )
    assert ended.returncode == 0, ended.stderr
    for board in ("here", "b0", "b1", "b2"):
        assert f"  {board}: stored windows 1..4 (4)" in ended.stdout
        assert f"rtscope: {board}: stored window 4 (busy) as run " in ended.stderr
    with Store.open(location) as store:
        cells = store.campaign_cells(store.campaign("lab").id)
        assert sorted(cells) == sorted((board, n) for board in ("here", "b0", "b1", "b2") for n in range(1, 5))
        assert len(store.runs()) == 16


def test_a_changed_spec_keeps_its_series_or_is_refused(tmp_path, db_path):
    spec = monitor_spec.load(spec_file(tmp_path, SPEC.format(target="local")))
    with Store.open(db_path, create=True) as store:
        this, notes = open_monitor(store, spec)
        assert notes == []
        switched = monitor_spec.load(spec_file(tmp_path, SPEC.format(target="qemu:x86_64:stock")))
        again, notes = open_monitor(store, switched)
        assert again.id == this.id
        assert notes == ["board here's target was local, is qemu:x86_64:stock: its series goes on"]
        assert store.campaign(this.id).plan["boards"] == {"here": "qemu:x86_64:stock"}
        longer = monitor_spec.load(spec_file(tmp_path, SPEC.format(target="local").replace('"1s"', '"2s"')))
        with pytest.raises(RtscopeError, match=r"changed what a window measures .*window_s was 1.0, is 2.0"):
            open_monitor(store, longer)
        loaded = monitor_spec.load(
            spec_file(tmp_path, SPEC.format(target="local").replace('load = "idle"', 'load = "cpu"'))
        )
        with pytest.raises(RtscopeError, match=r"step busy's load was 'idle', is 'cpu'"):
            open_monitor(store, loaded)
        # The series window is part of what a window measures.
        finer = monitor_spec.load(
            spec_file(tmp_path, SPEC.format(target="local").replace('"1s"', '"1s"\nseries_window = "0.5s"'))
        )
        with pytest.raises(RtscopeError, match=r"series_window_s was 1.0, is 0.5.* series_window = \"1s\" in the spec"):
            open_monitor(store, finer)


def test_a_monitor_started_before_series_windows_measured_one_second(tmp_path, db_path):
    """A plan stored without the key (rtscope 1.0.0) had the probe's 1 s series window: the new default of a
    long window is refused, naming how to go on; the spec saying 1 s goes on with the series."""
    minutes = SPEC.format(target="local").replace('"1s"', '"1m"')
    spec = monitor_spec.load(spec_file(tmp_path, minutes))
    with Store.open(db_path, create=True) as store:
        this, _ = open_monitor(store, spec)
        old_plan = {key: value for key, value in this.plan.items() if key != "series_window_s"}
        store.set_campaign_plan(this.id, old_plan)
        with pytest.raises(RtscopeError, match=r"series_window_s was 1.0, is 10.0\).*series_window = \"1s\""):
            open_monitor(store, spec)
        kept = monitor_spec.load(spec_file(tmp_path, minutes.replace('"1m"', '"1m"\nseries_window = "1s"')))
        again, notes = open_monitor(store, kept)
        assert (again.id, notes) == (this.id, [])


def test_the_next_window_follows_a_merged_window(db_path):
    with Store.open(db_path, create=True) as store:
        for run_id, window, windows, status in (
            ("1000000000000001", 1, 12, "complete"),
            ("1000000000000002", 13, 1, "complete"),
            ("1000000000000003", 14, 1, "interrupted"),
        ):
            store.add(
                result.from_doc(builders.monitor_window(run_id, "rpi4", window, windows=windows, status=status), "t")
            )
        assert next_window(store, "a000000000000001", "rpi4") == 14  # the interrupted window is measured again
        store.add(result.from_doc(builders.monitor_window("1000000000000004", "rpi4", 14, windows=12), "t"))
        assert next_window(store, "a000000000000001", "rpi4") == 26
        assert next_window(store, "a000000000000001", "other") == 1


def test_housekeeping_runs_at_the_start_and_then_every_period(db_path):
    calls, said = [], []

    def compact(store, monitor_id, now):
        calls.append((monitor_id, now.tzinfo is not None))
        if len(calls) == 2:
            raise RtscopeError("the store is busy")

    Store.open(db_path, create=True).close()
    keeper = Housekeeper(
        lambda: Store.open(db_path), "a000000000000001", Hooks(housekeeping=(compact,)), said.append, 0.05
    )
    keeper.start()
    deadline = time.monotonic() + 30
    while keeper.rounds < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    keeper.stop(10)
    assert not keeper.is_alive()
    assert calls[:3] == [("a000000000000001", True)] * 3  # a failed round is tried again at the next
    assert said == ["housekeeping: the store is busy (tried again in " + said[0].split("tried again in ")[1]]
    assert monitor.HOUSEKEEPING_EVERY_S == 3600.0


UNIT = REPO / "contrib" / "rtscope-monitor.service"


def test_the_systemd_unit_verifies(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (the systemd package)")
    text = UNIT.read_text(encoding="utf-8")
    for line in ("Restart=on-failure", "KillSignal=SIGTERM", "KillMode=mixed", "TimeoutStopSec=", " --db "):
        assert line in text
    # verify checks that ExecStart's program exists: the unit's /usr/local/bin/rtscope (pipx's) is here
    # this clone's launcher, and nothing else changes.
    assert "ExecStart=/usr/local/bin/rtscope " in text
    unit = tmp_path / UNIT.name
    unit.write_text(
        text.replace("ExecStart=/usr/local/bin/rtscope ", f"ExecStart={REPO / 'rtscope'} "), encoding="utf-8"
    )
    verified = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True, check=False, cwd=tmp_path)
    # verify says what it finds wrong on stderr; a unit it finds nothing wrong in gives no line of its own.
    assert verified.returncode == 0 and UNIT.name not in verified.stderr, verified.stderr


# The real thing: the probe on this machine, measuring wake-ups (a sleeping bench: clock.read kept a CPU busy
# for every window of every board).

REAL = """\
    name = "{name}"
    window = "{window}"
    {windows}
    backoff = "1s"
    backoff_max = "2s"

    [[board]]
    name = "here"
    target = "local"
    {more}
    [[step]]
    name = "idle"
    benches = ["lat.wakeup"]
    policy = "other"
"""


def _windows(db_path: Path, name: str) -> list[tuple[str, int, str]]:
    if not db_path.exists():
        return []
    with Store.open(db_path) as store:
        try:
            this = store.campaign(name)
        except RtscopeError:
            return []
        return sorted(
            (run.doc["monitor"]["board"], run.doc["monitor"]["window"], run.doc["run"]["status"])
            for run in (store.get(row.id) for row in store.runs())
            if run.doc.get("monitor", {}).get("id") == this.id
        )


@pytest.mark.usefixtures("probe")
def test_a_monitor_stores_its_windows_and_stops_on_sigterm(tmp_path, db_path, rtscope_process):
    spec = spec_file(tmp_path, REAL.format(name="real", window="1s", windows="windows = 3", more=""))
    ended = rtscope_process("monitor", spec)
    assert ended.status == 0, ended.err
    assert _windows(db_path, "real") == [("here", n, "complete") for n in (1, 2, 3)]
    assert "here: stored windows 1..3 (3)" in ended.out
    # For ever, until SIGTERM: it goes on at window 4, and stops within a window's stop.
    spec.write_text(textwrap.dedent(REAL.format(name="real", window="2s", windows="", more="")), encoding="utf-8")
    refused = rtscope_process("monitor", spec)
    assert refused.status == 2 and "window_s was 1.0, is 2.0" in refused.err
    spec.write_text(textwrap.dedent(REAL.format(name="real", window="1s", windows="", more="")), encoding="utf-8")
    running = start_rtscope(db_path, "monitor", spec)
    until("5 windows stored", lambda: len(_windows(db_path, "real")) >= 5, timeout_s=90)
    until("window 6 started", lambda: bool(probes_labelled("real")), timeout_s=90)  # window 6 in flight
    stopped_at = time.monotonic()
    running.send_signal(signal.SIGTERM)
    out, err = running.communicate(timeout=60)
    assert running.returncode == 0, err
    assert time.monotonic() - stopped_at < 30
    assert not probes_labelled("real")  # nothing left running
    windows = _windows(db_path, "real")
    counted = [window for _, window, status in windows if status == "complete"]
    assert counted == list(range(1, len(counted) + 1))
    # The window in flight is kept as interrupted (or, stopped between windows, there was none).
    assert [window for _, window, status in windows if status == "interrupted"] in ([], [len(counted) + 1])
    assert f"here: stored windows 4..{len(counted)} ({len(counted) - 3})" in out


@pytest.mark.usefixtures("probe")
def test_a_monitors_series_window_reaches_its_windows(tmp_path, db_path, rtscope_process):
    """A window shorter than the monitor's default series window (10 s) keeps a series of its own length,
    not the probe's 1 s: the monitor's series window reached the probe."""
    text = REAL.format(name="series", window="0.4s", windows="windows = 1", more="")
    ended = rtscope_process("monitor", spec_file(tmp_path, text))
    assert ended.status == 0, ended.err
    with Store.open(db_path) as store:
        [window] = [store.get(row.id) for row in store.runs()]
    [metric] = [m for m in window.doc["metrics"] if m["id"] == "lat.wakeup"]
    assert metric["series"]["window_s"] == 0.4
    assert max(v for v in metric["series"]["max"] if v is not None) == metric["stats"]["max"]


@pytest.mark.usefixtures("probe")
def test_a_monitor_killed_hard_loses_no_window_and_stores_none_twice(tmp_path, db_path):
    spec = spec_file(tmp_path, REAL.format(name="killed", window="1s", windows="", more=""))
    killed = start_rtscope(db_path, "monitor", spec)
    until("2 windows stored", lambda: len(_windows(db_path, "killed")) >= 2, timeout_s=90)
    until("a window started", lambda: bool(probes_labelled("killed")), timeout_s=90)  # mid-window
    os.killpg(killed.pid, signal.SIGKILL)
    killed.communicate()
    until("the window in flight ended", lambda: not probes_labelled("killed"), timeout_s=30)  # by itself, unstored
    before = _windows(db_path, "killed")
    assert [window for _, window, _ in before] == list(range(1, len(before) + 1))
    restarted = start_rtscope(db_path, "monitor", spec)
    until("2 more windows stored", lambda: len(_windows(db_path, "killed")) >= len(before) + 2, timeout_s=90)
    restarted.send_signal(signal.SIGTERM)
    _, err = restarted.communicate(timeout=60)
    assert restarted.returncode == 0, err
    after = [(window, status) for _, window, status in _windows(db_path, "killed")]
    complete = [window for window, status in after if status == "complete"]
    assert complete == list(range(1, len(complete) + 1))  # numbering goes on: nothing lost, nothing twice
    assert complete[: len(before)] == [window for _, window, _ in before]


@pytest.mark.usefixtures("probe")
def test_a_board_that_cannot_be_reached_is_retried_while_the_other_goes_on(tmp_path, db_path):
    closed = free_port()  # nothing listens there
    board = f'\n    [[board]]\n    name = "gone"\n    target = "ssh://nobody@127.0.0.1:{closed}"\n'
    spec = spec_file(tmp_path, REAL.format(name="two", window="1s", windows="", more=board))
    running = start_rtscope(db_path, "monitor", spec)
    until("4 windows stored", lambda: len(_windows(db_path, "two")) >= 4, timeout_s=90)
    time.sleep(3)  # a few more tries of the gone board (1 s, then every 2 s)
    running.send_signal(signal.SIGTERM)
    out, err = running.communicate(timeout=60)
    assert running.returncode == 0, err
    assert {board for board, _, _ in _windows(db_path, "two")} == {"here"}
    reports = [line for line in err.splitlines() if line.startswith("rtscope: gone: window 1 failed")]
    assert len(reports) == 1, err  # once for the whole streak
    assert f"127.0.0.1:{closed}" in reports[0] or "refused" in reports[0], reports[0]
    assert "gone: stored no window" in out


@pytest.mark.usefixtures("probe")
@pytest.mark.skipif(sshd.unavailable() is not None, reason=sshd.unavailable() or "")
def test_a_board_that_drops_out_is_retried_and_goes_on_when_back(tmp_path, db_path):
    with sshd.server(tmp_path / "sshd") as server:
        board = f'\n    [[board]]\n    name = "pi"\n    target = "{server.spec()}"\n'
        spec = spec_file(tmp_path, REAL.format(name="drops", window="1s", windows="", more=board))
        log = tmp_path / "monitor.err"
        with open(log, "w", encoding="utf-8") as err:
            running = subprocess.Popen(
                [sys.executable, "-m", "rtscope", "monitor", str(spec)],
                env={**process_env(db_path), **server.env()},
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
                start_new_session=True,
            )
        back = None
        try:

            def pi() -> list[int]:
                return [window for board, window, _ in _windows(db_path, "drops") if board == "pi"]

            until("2 windows of pi stored", lambda: len(pi()) >= 2, timeout_s=180)
            # The board goes down: its sshd (new connections are refused) and every connection to it, the
            # master one that carries the window in flight included.
            sessions = server.sessions()
            server.process.terminate()
            server.process.wait(10)
            for session in sessions:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(session, signal.SIGKILL)
            until(
                "pi's failure said",
                lambda: "rtscope: pi: window" in log.read_text() and "failed" in log.read_text(),
                timeout_s=90,
            )
            down = len(pi())
            # The board comes back: its sshd again, on its port with its keys.
            back = subprocess.Popen(
                [str(sshd.SSHD), "-D", "-e", "-f", str(tmp_path / "sshd" / "sshd_config")],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            until("pi back", lambda: "rtscope: pi: back after " in log.read_text(), timeout_s=120)
            until("2 more windows of pi stored", lambda: len(pi()) >= down + 2, timeout_s=120)
        finally:
            running.send_signal(signal.SIGTERM)
            out, _ = running.communicate(timeout=60)
            if back is not None:
                back.terminate()
                back.wait(10)
    text = log.read_text()
    assert running.returncode == 0, text
    assert len([line for line in text.splitlines() if line.startswith("rtscope: pi: window")]) == 1, text
    windows = [(window, status) for board, window, status in _windows(db_path, "drops") if board == "pi"]
    complete = [window for window, status in windows if status == "complete"]
    assert complete == list(range(1, len(complete) + 1))  # the window that failed was measured again
    assert "here: stored windows 1.." in out and "pi: stored windows 1.." in out
