"""A monitor's windows read from the store for an export (rtscope export --monitor): each window that counts,
oldest first, and the change points of each board's series in the metrics exported — what
rtscope.exporters.kcidb.write_windows marks as issues on the builds of the changes' first windows.
"""

from collections.abc import Sequence

from rtscope.analysis import changes
from rtscope.analysis.changes import BoardChange
from rtscope.errors import RtscopeError
from rtscope.model import result
from rtscope.store.database import RunFilter, Store
from rtscope.store.series import histories

# The statistics searched for change points: a lab's level and tail, as `rtscope changes` looks at by default.
CHANGE_STATISTICS = ("p50", "p99", "max")


def monitor_windows(
    store: Store, monitor: str, metrics: Sequence[str] = (), *, board: str | None = None, since: str | None = None
) -> tuple[list[result.Result], list[BoardChange]]:
    """The windows of ``monitor`` (a name or id prefix) that count, of ``board`` and since ``since`` when
    given, oldest first, and the change points (explained) of each board's series of ``metrics`` (none:
    every metric its windows measured) in p50, p99 and max. RtscopeError when the monitor has no such
    window or is a campaign."""
    found = store.campaign(monitor, "monitor")
    rows = store.runs(only=RunFilter(monitor=found.id, board=board, since=since))
    if not rows:
        where = "".join(f" {what} {value}" for what, value in (("of board", board), ("since", since)) if value)
        raise RtscopeError(f"monitor {found.name} ({found.id}) has no stored window{where}")
    windows = store.documents([row.id for row in reversed(rows)])
    if "monitor" not in windows[0].doc:
        raise RtscopeError(f"{found.name} is a campaign, not a monitor: rtscope export RUN exports its runs one by one")
    marked = []
    for name in dict.fromkeys(window.doc["monitor"]["board"] for window in windows):
        chosen = metrics or tuple(
            dict.fromkeys(
                str(metric["id"])
                for window in windows
                if window.doc["monitor"]["board"] == name
                for metric in window.doc["metrics"]
            )
        )
        for metric in chosen:
            try:
                series, unit = histories(
                    store, metric, CHANGE_STATISTICS, host=None, since=since, monitor=found.id, board=name,
                    drop_good_tails=True,
                )  # fmt: skip
            except RtscopeError:  # this board's windows do not measure it
                continue
            points = [change for stat, rows in series.items() for change in changes.find_in_rows(metric, stat, rows)]
            for change in changes.explained(points, lambda run_id: store.get(run_id).doc):
                marked.append(BoardChange(found.id, name, unit, change))
    return windows, marked
