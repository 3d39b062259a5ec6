"""A monitor's alerts (rtscope.execution.alerts) and a board's series (--monitor, --board): a synthetic board
history with a planted step sends one alert per confirmed change and statistic to a hook and to an HTTP
server on loopback, once, across a restart; a failing channel is reported and tried again."""

import http.server
import json
import socket
import sys
import threading
import time
from datetime import datetime, timedelta

import numpy as np
import pytest

from rtscope.analysis import changes
from rtscope.errors import RtscopeError
from rtscope.execution import alerts
from rtscope.execution.alerts import AlertConfig, after_window, parse_alerts
from rtscope.model import result
from rtscope.store.database import AlertRecord, RunFilter, Store
from support import builders
from support.loopback import free_port
from test_cli_errors import assert_one_line_error

MONITOR = "a000000000000001"
START = datetime(2026, 11, 1)
STEP_AT = 30  # the first window of the planted step (window numbers from 1)
_PREFIX = {"rpi4": "1", "bbb": "2"}  # a board's windows' run ids begin with it


def run_id(board: str, n: int) -> str:
    return f"{_PREFIX.get(board, '3')}{n:015x}"


def window(n: int, value_ns: float, *, board: str = "rpi4", kernel: str = "6.1.0-rt", monitor: str = MONITOR):
    """Window ``n`` of ``board``, five minutes after the one before, lat.wakeup around ``value_ns``."""
    doc = builders.monitor_window(
        run_id(board, n) if monitor == MONITOR else f"b{n:015x}", board, n, monitor_id=monitor
    )
    started = (START + timedelta(minutes=5 * n)).isoformat(timespec="milliseconds") + "Z"
    doc["run"].update(started=started, finished=started)
    doc["system"]["kernel_release"] = kernel
    doc["benches"] = [{"id": "lat.wakeup", "params": {"cpu": 1}, "status": "ok", "elapsed_s": 300.0, "error": None}]
    doc["metrics"] = [{**builders.metric("lat.wakeup", value_ns), "labels": {}}]
    return result.from_doc(doc, "test")


def history(store: Store, windows: int, *, board: str = "rpi4", seed: int = 1, step_at: int = STEP_AT) -> None:
    """``windows`` windows of ``board``: lat.wakeup 20 µs with 5 % noise, 1.5 times that (and a new kernel)
    from window ``step_at`` on."""
    noise = np.random.default_rng(seed).normal(0, 0.05, windows)
    for n in range(1, windows + 1):
        after = n >= step_at
        value = 20_000.0 * (1.5 if after else 1.0) * float(np.exp(noise[n - 1]))
        store.add(window(n, value, board=board, kernel="6.1.0" if after else "6.1.0-rt"))


@pytest.fixture
def location(store_location):
    return store_location


@pytest.fixture
def hook(tmp_path):
    """A hook that appends its standard input, one line per alert, to a file: (its argv, the file)."""
    script = tmp_path / "hook.py"
    script.write_text(
        "import pathlib, sys\n"
        "with pathlib.Path(sys.argv[1]).open('ab') as out:\n"
        "    out.write(sys.stdin.buffer.read() + b'\\n')\n"
    )
    received = tmp_path / "received.jsonl"
    return (sys.executable, str(script), str(received)), received


def received(path):
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


class Receiver:
    """An HTTP server on 127.0.0.1 (in a thread) that keeps what is POSTed to it and answers ``status``."""

    def __init__(self, port: int = 0, status: int = 200):
        self.posted: list[tuple[str, str, dict]] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                outer.posted.append((self.path, self.headers["Content-Type"], json.loads(body)))
                self.send_response(status)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/secret-token"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch):
    """Loopback is reached directly, whatever proxy the machine names."""
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("no_proxy", "127.0.0.1")


def test_a_planted_step_sends_one_alert_per_statistic_to_the_hook_and_the_url(location, hook, tmp_path):
    argv, out = hook
    receiver = Receiver()
    config = AlertConfig(hook=argv, url=receiver.url, metrics=("lat.wakeup",))
    try:
        with Store.open(location, create=True) as store:
            history(store, STEP_AT + 1)  # two windows after the step: not yet a change
            assert after_window(store, MONITOR, "rpi4", config) == []
            store.add(window(STEP_AT + 2, 30_000.0, kernel="6.1.0"))  # the third confirms it
            tried = after_window(store, MONITOR, "rpi4", config)
            assert [(a.stat, a.channel, a.sent) for a in tried] == [
                ("p99", "hook", True),
                ("p99", "url", True),
                ("max", "hook", True),
                ("max", "url", True),
            ]
            assert after_window(store, MONITOR, "rpi4", config) == []  # sent once
            store.add(window(STEP_AT + 3, 30_000.0, kernel="6.1.0"))
            assert after_window(store, MONITOR, "rpi4", config) == []
    finally:
        receiver.close()
    by_hook = received(out)
    assert [alert["stat"] for alert in by_hook] == ["p99", "max"]
    assert [(path, kind) for path, kind, _ in receiver.posted] == [("/hooks/secret-token", "application/json")] * 2
    assert [body for *_, body in receiver.posted] == by_hook
    alert = by_hook[0]
    first = run_id("rpi4", STEP_AT)
    assert alert["format"] == "rtscope-alert" and alert["version"] == 1
    assert alert["monitor"] == {"name": "lab", "id": MONITOR}
    assert (alert["board"], alert["metric"], alert["unit"], alert["window"]) == ("rpi4", "lat.wakeup", "ns", STEP_AT)
    assert alert["first_after"]["id"] == first and alert["direction"] == "worse"
    assert alert["runs_after"] == 3 and 1.3 < alert["ratio"] < 1.7
    assert alert["ratio_low"] < alert["ratio"] < alert["ratio_high"]
    assert alert["changed"] == ["kernel 6.1.0-rt → 6.1.0"]
    # `rtscope changes --json`'s entry, and the monitor's, the board's and the metric's names besides.
    assert set(alert) - {"format", "version", "monitor", "board", "metric", "unit", "window", "size"} == {
        "stat", "time_base", "first_after", "last_before", "before", "after", "ratio", "ratio_low", "ratio_high",
        "runs_before", "runs_after", "p_value", "direction", "changed",
    }  # fmt: skip


def test_a_restart_does_not_send_again(location, hook):
    argv, out = hook
    config = AlertConfig(hook=argv, metrics=("lat.wakeup",), stats=("p99",))
    with Store.open(location, create=True) as store:
        history(store, STEP_AT + 5)
        assert [a.sent for a in after_window(store, MONITOR, "rpi4", config)] == [True]
    # Another process: another Store on the same database.
    with Store.open(location) as store:
        store.add(window(STEP_AT + 6, 30_000.0, kernel="6.1.0"))
        assert after_window(store, MONITOR, "rpi4", config) == []
    assert len(received(out)) == 1


def test_a_down_url_is_reported_and_tried_again_after_the_next_window(db_path, hook):
    argv, out = hook
    port = free_port()
    url = f"http://127.0.0.1:{port}/alert"
    config = AlertConfig(hook=argv, url=url, metrics=("lat.wakeup",), stats=("p99",), timeout_s=2)
    with Store.open(db_path, create=True) as store:
        history(store, STEP_AT + 4)
        [by_hook, by_url] = after_window(store, MONITOR, "rpi4", config)
        assert by_hook.sent and not by_url.sent
        assert by_url.error.startswith(f"cannot reach http://127.0.0.1:{port}: ")
        assert "/alert" not in by_url.error
        assert by_url.text().endswith("; tried again after the next window")
        assert by_url.text().startswith("alert: rpi4 lat.wakeup p99 worse +")
        receiver = Receiver(port)
        try:
            store.add(window(STEP_AT + 5, 30_000.0, kernel="6.1.0"))
            [again] = after_window(store, MONITOR, "rpi4", config)
            assert (again.channel, again.sent) == ("url", True)
            assert after_window(store, MONITOR, "rpi4", config) == []
        finally:
            receiver.close()
    assert len(received(out)) == 1 and len(receiver.posted) == 1


def test_a_url_that_refuses_is_reported_with_its_status(db_path):
    receiver = Receiver(status=503)
    try:
        with Store.open(db_path, create=True) as store:
            history(store, STEP_AT + 4)
            [refused] = after_window(store, MONITOR, "rpi4", AlertConfig(url=receiver.url, stats=("p99",)))
    finally:
        receiver.close()
    assert refused.error == f"http://127.0.0.1:{receiver.server.server_address[1]} answered 503 Service Unavailable"


def test_a_server_that_never_answers_is_given_up_after_the_timeout(db_path):
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # the kernel completes the connection; nobody ever answers on it
        where = f"http://127.0.0.1:{silent.getsockname()[1]}"
        url = f"{where}/alert"
        with Store.open(db_path, create=True) as store:
            history(store, STEP_AT + 4)
            started = time.monotonic()
            [silence] = after_window(store, MONITOR, "rpi4", AlertConfig(url=url, stats=("p99",), timeout_s=1))
            # Loose: the machine is shared; without the timeout it would wait for ever.
            assert time.monotonic() - started < 30
    assert silence.error in (f"cannot post to {where}: timed out", f"cannot reach {where}: timed out")


def test_a_change_whose_cut_moves_a_window_is_the_same_change(db_path, hook):
    """Sent when its first run was placed two windows later, it is not sent again where it is now; one
    placed further off than MOVE_RUNS is another change."""
    argv, out = hook
    config = AlertConfig(hook=argv, metrics=("lat.wakeup",), stats=("p99",))
    with Store.open(db_path, create=True) as store:
        history(store, STEP_AT + 8)
        [row] = [r for r in store.metric_history("lat.wakeup", "p99") if r[0] == run_id("rpi4", STEP_AT + 2)]
        store.record_alert(MONITOR, AlertRecord("rpi4", "lat.wakeup", "p99", "worse", row[0], row[1], "hook"))
        assert after_window(store, MONITOR, "rpi4", config) == []
        # Remembered where it is now, so that it may move on.
        assert len(store.alerts_sent(MONITOR, "rpi4")) == 2
    # Another store whose only record is further off: sent.
    other = db_path.parent / "other.sqlite"
    with Store.open(other, create=True) as store:
        history(store, STEP_AT + 8)
        far = STEP_AT - alerts.MOVE_RUNS - 1
        [row] = [r for r in store.metric_history("lat.wakeup", "p99") if r[0] == run_id("rpi4", far)]
        store.record_alert(MONITOR, AlertRecord("rpi4", "lat.wakeup", "p99", "worse", row[0], row[1], "hook"))
        assert [a.sent for a in after_window(store, MONITOR, "rpi4", config)] == [True]
    assert len(received(out)) == 1


def test_confirm_runs_waits_for_that_many_windows_after_the_change(db_path, hook):
    argv, _out = hook
    config = AlertConfig(hook=argv, stats=("p99",), confirm_runs=5)
    with Store.open(db_path, create=True) as store:
        history(store, STEP_AT + 3)  # four windows after it
        assert after_window(store, MONITOR, "rpi4", config) == []
        store.add(window(STEP_AT + 4, 30_000.0, kernel="6.1.0"))
        assert [a.sent for a in after_window(store, MONITOR, "rpi4", config)] == [True]


def test_the_step_from_windows_merged_by_retention_to_measured_ones_is_not_sent(db_path, hook):
    """Hourly merges (12 windows each) hold each hour's worst: their max stands above a single window's,
    a step down where the measured windows begin that changes finds and alerts leave alone; a real step
    among the measured windows after it is sent."""
    argv, out = hook
    config = AlertConfig(hook=argv, stats=("max",))
    noise = np.random.default_rng(5).normal(0, 0.05, 60)
    with Store.open(db_path, create=True) as store:
        for n in range(1, 7):
            doc = window(n, 20_000.0 * float(np.exp(noise[n]))).doc
            doc["monitor"]["windows"] = 12
            for figures in (doc["metrics"][0]["stats"], doc["metrics"][0]["adjusted"]):
                figures["max"] *= 2
            store.add(result.from_doc(doc, "test"))
        for n in range(7, 40):
            store.add(window(n, 20_000.0 * float(np.exp(noise[n]))))
        series = store.metric_history("lat.wakeup", "max", monitor=MONITOR, board="rpi4")
        assert [change.first_after.run_id for change in changes.find_in_rows("lat.wakeup", "max", series)] == [
            run_id("rpi4", 7)
        ]
        assert after_window(store, MONITOR, "rpi4", config) == []
        for n in range(40, 46):
            store.add(window(n, 45_000.0 * float(np.exp(noise[n]))))
        [sent] = after_window(store, MONITOR, "rpi4", config)
        assert sent.payload["first_after"]["id"] == run_id("rpi4", 40) and sent.payload["direction"] == "worse"
    assert len(received(out)) == 1


def test_each_board_is_its_own_series(db_path, hook):
    """A step on one board is not another board's, and a board without it sends nothing."""
    argv, _out = hook
    config = AlertConfig(hook=argv, stats=("p99",))
    with Store.open(db_path, create=True) as store:
        history(store, STEP_AT + 5, board="rpi4")
        history(store, STEP_AT + 5, board="bbb", step_at=10_000)
        assert after_window(store, MONITOR, "bbb", config) == []
        assert [a.board for a in after_window(store, MONITOR, "rpi4", config)] == ["rpi4"]
        assert after_window(store, MONITOR, "nowhere", config) == []


def test_a_failing_hook_is_reported_in_one_line(db_path, tmp_path):
    failing = tmp_path / "failing.py"
    failing.write_text("import sys\nsys.stdin.read()\nprint('webhook relay is down', file=sys.stderr)\nsys.exit(3)\n")
    slow = tmp_path / "slow.py"
    slow.write_text("import time\ntime.sleep(60)\n")
    with Store.open(db_path, create=True) as store:
        history(store, STEP_AT + 4)
        for argv, timeout, error in (
            ((sys.executable, str(failing)), 10, f"{sys.executable} exited 3: webhook relay is down"),
            ((sys.executable, str(slow)), 0.5, f"{sys.executable} did not finish within 0.5 s"),
            (("/nonexistent/notify",), 10, "cannot run /nonexistent/notify: No such file or directory"),
        ):
            [tried] = after_window(store, MONITOR, "rpi4", AlertConfig(hook=argv, stats=("p99",), timeout_s=timeout))
            assert tried.error == error
        assert store.alerts_sent(MONITOR, "rpi4") == []


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"hook": ["notify"], "hooks": ["x"]}, "unknown key 'hooks' \\(alerts take hook, url, metrics"),
        ({}, "names neither a hook nor a url"),
        ({"hook": "notify --lab"}, 'hook must be a list of non-empty strings, e.g. \\["/usr/local/bin/notify"'),
        ({"url": "ftp://lab/x"}, "url must be an http:// or https:// URL, not 'ftp://lab'"),
        ({"url": 5}, "url must be a string, not 5"),
        ({"url": "http://lab:http/x"}, "url has no valid port: 'http://lab'"),
        (
            {"url": "http://lab/", "stats": ["p99.9"]},
            "stats: the store keeps p50, p99, max, mean of every window, not 'p99.9'",
        ),
        ({"url": "http://lab/", "stats": ["median"]}, "stats: the store keeps"),
        ({"url": "http://lab/", "confirm_runs": 2}, "confirm_runs must be a whole number of windows, at least 3"),
        ({"url": "http://lab/", "confirm_runs": True}, "confirm_runs must be"),
        ({"url": "http://lab/", "timeout": "soon"}, "timeout: bad duration 'soon'"),
        ({"url": "http://lab/", "timeout": 0}, "timeout: duration must be more than zero"),
        ({"url": "http://lab/", "metrics": []}, "metrics must be a list of non-empty strings"),
    ],
)
def test_a_bad_alerts_table_is_one_line_naming_where(table, message):
    with pytest.raises(RtscopeError, match=f"^lab.toml \\[alerts\\]: {message}") as raised:
        parse_alerts(table, "lab.toml [alerts]")
    assert "\n" not in str(raised.value)


def test_an_alerts_table_as_written():
    config = parse_alerts(
        {"hook": ["notify", "--lab"], "url": "https://ci.example/hook", "metrics": ["lat.wakeup"],
         "stats": ["p50", "max"], "confirm_runs": 4, "timeout": "2s"},
        "lab.toml [alerts]",
    )  # fmt: skip
    assert config == AlertConfig(
        ("notify", "--lab"), "https://ci.example/hook", ("lat.wakeup",), ("p50", "max"), 4, 2.0
    )
    assert config.channels == ("hook", "url")
    assert parse_alerts({"url": "http://lab/"}, "x") == AlertConfig(url="http://lab/")
    assert parse_alerts({"hook": ["n"], "timeout": 3}, "x").timeout_s == 3.0


# --- A board's series: --monitor and --board ---------------------------------------------------------------


def test_the_store_filters_a_monitors_and_a_boards_windows(location):
    with Store.open(location, create=True) as store:
        history(store, 8, board="rpi4")
        history(store, 8, board="bbb")
        store.add(window(9, 20_000.0, board="rpi4", monitor="b000000000000002"))  # another monitor ("lab" too)
        store.add(result.from_doc(builders.result_doc(run_id="f" * 16, benches={"lat.wakeup": 1.0}), "test"))
        interrupted = builders.monitor_window("e" * 16, "rpi4", 10, status="interrupted")
        store.add(result.from_doc(interrupted, "test"))

        def ids(**only):
            return {row[0] for row in store.metric_history("lat.wakeup", "p99", **only)}

        everything = ids()
        assert len(everything) == 8 + 8 + 1 + 1 + 1
        rpi4 = ids(monitor=MONITOR, board="rpi4")
        assert len(rpi4) == 8 and all(found.startswith("1") for found in rpi4)
        assert ids(monitor="a0000", board="bbb") == ids(board="bbb") and len(ids(board="bbb")) == 8
        assert len(ids(monitor=MONITOR)) == 16  # the interrupted window does not count
        assert len(ids(board="rpi4")) == 9  # both monitors'
        assert ids(board="x' OR '1'='1") == set()
        listed = {row.id for row in store.runs(only=RunFilter(monitor=MONITOR, board="rpi4"))}
        assert listed == rpi4
        with pytest.raises(RtscopeError, match="^no stored monitor is named or has an id starting with 'c0'$"):
            ids(monitor="c0")


def test_changes_trend_and_runs_take_a_board(rtscope, db_path):
    with Store.open(db_path, create=True) as store:
        history(store, STEP_AT + 10, board="rpi4")
        history(store, STEP_AT + 10, board="bbb", step_at=10_000)
    found = json.loads(rtscope("changes", "lat.wakeup", "--monitor", "lab", "--board", "rpi4", "--json").out)
    assert {change["stat"] for change in found["changes"]} >= {"p99"}
    assert {change["first_after"]["id"] for change in found["changes"]} == {run_id("rpi4", STEP_AT)}
    assert found["runs"]["p99"] == STEP_AT + 10
    calm = json.loads(rtscope("changes", "lat.wakeup", "--board", "bbb", "--json").out)
    assert calm["changes"] == []
    trend = rtscope("trend", "lat.wakeup", "--board", "rpi4", "--format", "json")
    assert trend.status == 0 and len(json.loads(trend.out)["runs"]) == STEP_AT + 10
    listed = json.loads(rtscope("runs", "--monitor", "lab", "--board", "bbb", "--format", "json", "--limit", "100").out)
    assert len(listed) == STEP_AT + 10 and {row["campaign_id"] for row in listed} == {MONITOR}
    assert_one_line_error(
        rtscope("changes", "lat.wakeup", "--board", "nowhere"),
        "no stored run of board nowhere measured lat.wakeup (rtscope runs lists the runs)",
    )
    assert_one_line_error(
        rtscope("trend", "lat.wakeup", "--monitor", "nosuch"),
        "no stored monitor is named or has an id starting with 'nosuch'",
    )
