"""A metric's series as trend, changes and a monitor's alerts read it from the store: the rows of each
statistic (Store.metric_histories: one query, no document read) and the metric's unit (from the newest
run's document), filtered by host, start, monitor and board. Here, below the commands, so that a monitor's
alerts (rtscope.execution.alerts) read a board's series as `rtscope changes --board` does.
"""

from collections.abc import Sequence

from rtscope.errors import RtscopeError
from rtscope.model import result, units
from rtscope.store.database import Store

# A run's figure as Store.metric_histories gives it: (run id, started, label, hostname, kernel, valid, value,
# time base), the fields of a trend Point (rtscope.analysis.changes.Row).
_Row = tuple[str, str, str | None, str, str, bool, float | None, str]
# What the store's metrics table keeps of every run's metric (Store.metric_histories).
STORED_STATISTICS = ("p50", "p99", "max", "mean")
# The statistics of the high tail: a throughput's (or count's) hurts on its low side, which the store lacks.
HIGH_TAIL = ("p99", "max")


def histories(
    store: Store,
    metric: str,
    stats: Sequence[str],
    *,
    host: str | None,
    since: str | None,
    monitor: str | None = None,
    board: str | None = None,
    drop_good_tails: bool = False,
) -> tuple[dict[str, list[_Row]], units.Unit]:
    """The store's rows (Store.metric_history's) of each statistic of ``stats``, in one query, and the
    metric's unit; only runs on ``host``, since ``since``, of ``monitor`` (a name or id prefix) and of
    ``board`` when given. With ``drop_good_tails``, a throughput's p99 and max (its good side) are left out
    rather than refused. RtscopeError (one line) when no run matches."""
    rows = store.metric_histories(metric, stats, host=host, since=since, monitor=monitor, board=board)
    if not rows[stats[0]]:
        where = "".join(
            f" {what} {value}"
            for what, value in (("on host", host), ("since", since), ("of monitor", monitor), ("of board", board))
            if value is not None
        )
        raise RtscopeError(f"no stored run{where} measured {metric} (rtscope runs lists the runs)")
    unit = metric_unit(store, metric, rows[stats[0]][-1][0])
    if not unit.lower_is_better:
        good = [stat for stat in stats if stat in HIGH_TAIL]
        if good and not drop_good_tails:
            raise RtscopeError(
                f"{metric} is {unit.quantity} (higher is better): its tail is the low side, p1 and min, which the "
                f"store does not keep; --stat p50 or mean, or rtscope compare on its runs"
            )
        stats = [stat for stat in stats if stat not in good]
    return {stat: rows[stat] for stat in stats}, unit


def metric_unit(store: Store, metric: str, run_id: str) -> units.Unit:
    """The unit of ``metric`` as stored run ``run_id`` measured it."""
    metric_doc = result.metric(store.get(run_id).doc, metric)
    assert metric_doc is not None  # the store's metrics table lists the run's metrics
    return units.get(metric_doc["unit"])
