"""A monitor's alerts: after each stored window, the board's series is searched for change points
(rtscope.analysis.changes, as `rtscope changes --monitor M --board B` does), and each confirmed change not
sent before goes to the spec's hook (a command given the change as JSON on its standard input) and/or is
POSTed to its URL. What was sent is recorded in the store (its ``alerts`` table), so that a change is sent
once per channel across restarts; a channel that fails is reported and tried again after the next window.
docs/alerts.md says what is sent and when.
"""

import argparse
import bisect
import http.client
import json
import os
import signal
import subprocess
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from rtscope import __version__
from rtscope.analysis import changes
from rtscope.analysis.changes import ChangePoint
from rtscope.errors import RtscopeError
from rtscope.model import units, values
from rtscope.store.database import AlertRecord, RunFilter, Store
from rtscope.store.series import STORED_STATISTICS, histories

FORMAT = "rtscope-alert"
VERSION = 1
DEFAULT_STATISTICS = ("p99", "max")
DEFAULT_TIMEOUT_S = 10.0
# A change's cut may move by a run or two as windows arrive (its segments grow, noise places it anew): one
# already sent about whose first run lies within this many of the series' runs is the same change.
MOVE_RUNS = changes.MIN_RUNS
_KEYS = ("hook", "url", "metrics", "stats", "confirm_runs", "timeout")
# How much of a failing hook's standard error its report keeps: its last line, this long at most.
_STDERR_CHARS = 200


@dataclass(frozen=True)
class AlertConfig:
    """A monitor spec's ``[alerts]`` table: where alerts go (a hook's argv, a URL, or both), about which
    metrics and statistics, how many windows after a change confirm it, and how long a channel may take."""

    hook: tuple[str, ...] = ()
    url: str | None = None
    metrics: tuple[str, ...] = ()  # none: every metric of the board's newest window
    stats: tuple[str, ...] = DEFAULT_STATISTICS
    confirm_runs: int = changes.MIN_RUNS
    timeout_s: float = DEFAULT_TIMEOUT_S

    @property
    def channels(self) -> tuple[str, ...]:
        """ "hook", "url" or both, as given."""
        return (*(("hook",) if self.hook else ()), *(("url",) if self.url else ()))


@dataclass(frozen=True)
class SentAlert:
    """One alert through one channel: sent when ``error`` is None, else why not (tried again after the
    next window). ``payload`` is the JSON it carried."""

    board: str
    metric: str
    stat: str
    channel: str
    payload: dict[str, Any]
    error: str | None = None

    @property
    def sent(self) -> bool:
        """Whether the channel took it."""
        return self.error is None

    def text(self) -> str:
        """One line for the monitor's log: what changed, and where it went or why it did not."""
        what = (
            f"alert: {self.board} {self.metric} {self.stat} {self.payload['direction']} "
            f"{self.payload['size']} from window {self.payload['window']}"
        )
        if self.sent:
            return f"{what}: sent to the {self.channel}"
        return f"{what}: not sent to the {self.channel} ({self.error}); tried again after the next window"


def parse_alerts(table: dict[str, object], where: str) -> AlertConfig:
    """The ``[alerts]`` table of a monitor spec; RtscopeError, one line beginning with ``where``, on an
    unknown key, a bad value, or neither a hook nor a URL."""

    def fail(problem: str) -> RtscopeError:
        return RtscopeError(f"{where}: {problem}")

    unknown = [key for key in table if key not in _KEYS]
    if unknown:
        raise fail(f"unknown key {unknown[0]!r} (alerts take {', '.join(_KEYS)})")
    hook = _strings(table, "hook", fail)
    url = table.get("url")
    if url is not None:
        if not isinstance(url, str):
            raise fail(f"url must be a string, not {url!r}")
        parts = urlsplit(url)
        try:
            parts.port  # noqa: B018 (urlsplit checks the port only when asked for it)
        except ValueError:
            raise fail(f"url has no valid port: {_where(url)!r}") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise fail(f"url must be an http:// or https:// URL, not {_where(url)!r}")
    if not hook and url is None:
        raise fail('names neither a hook nor a url: an alert needs somewhere to go (hook = ["/path/to/cmd"])')
    stats = []
    for text in _strings(table, "stats", fail):
        try:
            keys = values.statistics(text)
        except argparse.ArgumentTypeError:
            keys = ()
        if len(keys) != 1 or keys[0] not in STORED_STATISTICS:
            raise fail(f"stats: the store keeps {', '.join(STORED_STATISTICS)} of every window, not {text!r}")
        stats.append(keys[0])
    confirm = table.get("confirm_runs", changes.MIN_RUNS)
    if not isinstance(confirm, int) or isinstance(confirm, bool) or confirm < changes.MIN_RUNS:
        raise fail(
            f"confirm_runs must be a whole number of windows, at least {changes.MIN_RUNS} (what change detection "
            f"needs after a change), not {confirm!r}"
        )
    return AlertConfig(
        hook=tuple(hook),
        url=url,
        metrics=tuple(_strings(table, "metrics", fail)),
        stats=tuple(dict.fromkeys(stats)) or DEFAULT_STATISTICS,
        confirm_runs=confirm,
        timeout_s=_timeout(table.get("timeout", DEFAULT_TIMEOUT_S), fail),
    )


def _strings(table: dict[str, object], key: str, fail: Any) -> list[str]:
    """A list of non-empty strings (at least one) under ``key``; [] when the key is absent."""
    if key not in table:
        return []
    items = table[key]
    if not isinstance(items, list) or not items or not all(isinstance(item, str) and item for item in items):
        example = '["/usr/local/bin/notify", "--lab"] (a command and its arguments, no shell)' if key == "hook" else ""
        raise fail(f"{key} must be a list of non-empty strings{', e.g. ' + example if example else ''}")
    return items


def _timeout(value: object, fail: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise fail(f'timeout must be a duration such as "10s", not {value!r}')
    try:
        return values.duration(str(value))
    except argparse.ArgumentTypeError as error:  # its message is the one line
        raise fail(f"timeout: {error}") from None


def after_window(store: Store, monitor_id: str, board: str, config: AlertConfig) -> list[SentAlert]:
    """After a window of ``board`` is stored: find the confirmed changes in the board's series of each
    metric and statistic ``config`` names, and send each one not sent before through each channel. Returns
    what was tried, sent or not; a channel's failure is in its SentAlert (and the change stays unsent
    through it), never raised. RtscopeError only when the store itself fails."""
    name = store.campaign(monitor_id, "monitor").name
    already = store.alerts_sent(monitor_id, board)
    tried: list[SentAlert] = []
    for metric in config.metrics or _measured(store, monitor_id, board):
        try:
            series, unit = histories(
                store, metric, config.stats, host=None, since=None, monitor=monitor_id, board=board,
                drop_good_tails=True,
            )  # fmt: skip
        except RtscopeError:  # the board's windows do not measure it (yet)
            continue
        for stat, rows in series.items():
            starts = [row[1] for row in rows]
            place = {row[0]: i for i, row in enumerate(rows)}
            for change in changes.find_in_rows(metric, stat, rows):
                if change.step.runs_after < config.confirm_runs:
                    continue
                direction = change.direction(unit)
                first = AlertRecord(
                    board, metric, stat, direction, change.first_after.run_id, change.first_after.started, ""
                )
                missing = []
                for channel in config.channels:
                    mine = [
                        record.first_started
                        for record in already
                        if (record.metric, record.stat, record.direction, record.channel)
                        == (metric, stat, direction, channel)
                    ]
                    near = _sent_near(mine, starts, place[first.first_run])
                    if near is None:
                        missing.append(channel)
                    elif near != first.first_started:
                        # The same change, its cut moved: remember where it is now, so that it may move on.
                        store.record_alert(monitor_id, _on(first, channel))
                if missing and _between_measured_windows(store, change):
                    tried += _send(store, (name, monitor_id), change, unit, first, missing, config)
    return tried


def _between_measured_windows(store: Store, change: ChangePoint) -> bool:
    """Whether the runs either side of a change are windows as measured, not merged by retention: an
    hour's merge holds the worst of its windows, so the step from merged windows to measured ones (in max
    above all) is the merge's, not the board's; a change among merged windows was one among measured
    windows once, and was sent then."""
    return all(
        (store.get(point.run_id).doc.get("monitor") or {}).get("windows", 1) == 1
        for point in (change.last_before, change.first_after)
    )


def _measured(store: Store, monitor_id: str, board: str) -> list[str]:
    """The metrics of the board's newest window (none yet: none)."""
    newest = store.runs(1, RunFilter(monitor=monitor_id, board=board))
    return [metric["id"] for metric in store.get(newest[0].id).doc["metrics"]] if newest else []


def _sent_near(sent_starts: Sequence[str], starts: Sequence[str], index: int) -> str | None:
    """Of the starts of the first runs of changes already sent, the one within MOVE_RUNS of the series'
    run ``index`` (counted in the series' runs, so a run merged away by retention still has its place)."""
    for sent in sent_starts:
        if abs(bisect.bisect_left(starts, sent) - index) <= MOVE_RUNS:
            return sent
    return None


def _on(record: AlertRecord, channel: str) -> AlertRecord:
    return AlertRecord(
        record.board, record.metric, record.stat, record.direction, record.first_run, record.first_started, channel
    )


def _send(
    store: Store,
    monitor: tuple[str, str],
    change: ChangePoint,
    unit: units.Unit,
    first: AlertRecord,
    channels: list[str],
    config: AlertConfig,
) -> list[SentAlert]:
    """Send one change through ``channels``, recording each that took it."""
    [change] = changes.explained([change], lambda run_id: store.get(run_id).doc)
    body = payload(monitor, first.board, change, unit, _window(store, change.first_after.run_id))
    data = json.dumps(body, ensure_ascii=False).encode()
    tried = []
    for channel in channels:
        if channel == "hook":
            error = run_hook(config.hook, data, config.timeout_s)
        else:
            assert config.url is not None  # a "url" channel is one with a URL
            error = post(config.url, data, config.timeout_s)
        if error is None:
            store.record_alert(monitor[1], _on(first, channel))
        tried.append(SentAlert(first.board, first.metric, first.stat, channel, body, error))
    return tried


def _window(store: Store, run_id: str) -> int | None:
    """The number of the window a stored run is (None: not a monitor's window)."""
    monitor = store.get(run_id).doc.get("monitor")
    return None if monitor is None else int(monitor["window"])


def payload(
    monitor: tuple[str, str], board: str, change: ChangePoint, unit: units.Unit, window: int | None
) -> dict[str, Any]:
    """The alert's JSON: `rtscope changes --json`'s entry for the change with the monitor (name, id), the
    board, the metric and its unit, the window number of the first run after it, and its size in words."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "monitor": {"name": monitor[0], "id": monitor[1]},
        "board": board,
        "metric": change.metric,
        "unit": unit.name,
        "window": window,
        "size": change.size_text(),
        **changes.entry(change, unit),
    }


def run_hook(argv: Sequence[str], data: bytes, timeout_s: float) -> str | None:
    """Run the hook (argv, no shell) with ``data`` on its standard input, in a session of its own; None when
    it exits 0, else why not in one line. Past ``timeout_s`` the whole session is killed."""
    try:
        process = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its children too are killed on time-out
        )
    except OSError as error:
        return f"cannot run {argv[0]}: {error.strerror or error}"
    try:
        _, stderr = process.communicate(data, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return f"{argv[0]} did not finish within {timeout_s:g} s"
    if process.returncode == 0:
        return None
    lines = stderr.decode(errors="replace").strip().splitlines()
    said = f": {lines[-1][:_STDERR_CHARS]}" if lines else ""
    how = f"was killed by signal {-process.returncode}" if process.returncode < 0 else f"exited {process.returncode}"
    return f"{argv[0]} {how}{said}"


def post(url: str, data: bytes, timeout_s: float) -> str | None:
    """POST ``data`` as application/json to ``url``; None when it answers 2xx, else why not in one line
    (naming the server, never the URL's path: a webhook's path is often its secret). Each connection and
    read waits at most ``timeout_s``."""
    request = urllib.request.Request(
        url,
        data=data,
        method="POST",
        headers={"Content-Type": "application/json", "User-Agent": f"rtscope/{__version__}"},
    )
    where = _where(url)
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            response.read()
            status = int(response.status)
    except urllib.error.HTTPError as error:
        return f"{where} answered {error.code} {error.reason}"
    except urllib.error.URLError as error:
        return f"cannot reach {where}: {error.reason}"
    except (OSError, http.client.HTTPException, ValueError) as error:
        return f"cannot post to {where}: {error or type(error).__name__}"
    return None if 200 <= status < 300 else f"{where} answered {status}"


def _where(url: str) -> str:
    """A URL as messages name it: its scheme and host, without credentials, path or query."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # not a port number: the URL is refused anyway
        port = ""
    return f"{parts.scheme}://{host}{port}"
