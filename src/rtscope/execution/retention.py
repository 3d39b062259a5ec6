"""Retention of a monitor's windows (docs/retention.md): windows older than ``full_days`` merged into one
document per board, step and hour, those older than ``hourly_days`` into one per day — each the exact merge
of what it replaces (rtscope.analysis.merge), so no maximum is lost and every percentile stays within one
histogram bucket.

What merges: windows of one board and one UTC hour (or day) whose merge key agrees (the step, the system as
change points compare it, the time base, the benches, the clock, each metric's layout) and that the same
rtscope version stored: a change of kernel, configuration or version mid-hour leaves two documents, so a
change point stays where it was. Only complete windows merge; an interrupted or failed one stays as it is
(it is kept as evidence, and its window was measured again).

Each merge is one transaction: the merged document is stored and the windows it holds deleted together,
so a crash leaves one or the other. A merged document's run id is drawn from the ids it replaces, so
compacting again finds nothing left to do (idempotent), and two compactions racing cannot both succeed.

Each level's progress is marked in the store (Store.mark: the first bucket not yet old enough), so an hourly
call looks only at the buckets that aged since the last one. A window stored later into a bucket already
passed (copied in by rtscope pull) stays as it is.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from rtscope.analysis import merge
from rtscope.errors import RtscopeError
from rtscope.model import result, values
from rtscope.store.database import Store, StoredWindow

# What a retention table of a spec may say, each a duration in days ("30d", "8w", "1y").
_KEYS = {"keep_full": "full_days", "keep_hourly": "hourly_days"}


@dataclass(frozen=True)
class RetentionPolicy:
    """How long a monitor keeps its windows as measured (``full_days``), then merged per hour
    (``hourly_days``, counted from the window's start too); after that, merged per day."""

    full_days: int = 30
    hourly_days: int = 42  # six weeks: the defaults keep a board-year of 10 metrics under 100 MB (docs/retention.md)


def parse_retention(table: dict[str, object], where: str) -> RetentionPolicy:
    """The policy a spec's retention table gives (``keep_full = "30d"``, ``keep_hourly = "1y"``; a key left
    out keeps its default); ``where`` names the table in errors. RtscopeError, one line, on an unknown key,
    a value that is not a duration in days, or hourly kept for less time than full windows."""
    chosen: dict[str, int] = {}
    for name, value in table.items():
        if name not in _KEYS:
            raise RtscopeError(f"{where}: unknown key {name!r} (retention takes {', '.join(_KEYS)})")
        if not isinstance(value, str):
            raise RtscopeError(f'{where}: {name} is a duration in days as text, e.g. "30d", not {value!r}')
        try:
            chosen[_KEYS[name]] = values.days(value)
        except argparse.ArgumentTypeError as error:
            raise RtscopeError(f"{where}: {name}: {error}") from None
    policy = RetentionPolicy(**chosen)
    if policy.hourly_days < policy.full_days:
        raise RtscopeError(
            f"{where}: keep_hourly ({policy.hourly_days} days) is shorter than keep_full ({policy.full_days} days)"
        )
    return policy


@dataclass(frozen=True)
class CompactSummary:
    """What one compaction did: merged documents made per level ("hourly", "daily"), how many stored
    documents they replaced, and the groups it could not merge (one line each; left as they were)."""

    made: dict[str, int] = field(default_factory=dict)
    replaced: int = 0
    refused: tuple[str, ...] = ()

    def text(self) -> str:
        """ "12 windows merged into 1 hourly document" or "nothing to merge", for a log line."""
        if not self.replaced:
            done = "nothing to merge"
        else:
            made = ", ".join(f"{count} {level}" for level, count in self.made.items() if count)
            total = sum(self.made.values())
            done = f"{self.replaced} windows merged into {made} document{'s' if total != 1 else ''}"
        return done + "".join(f"; not merged: {line}" for line in self.refused)


# The levels, oldest data last: the age (by the policy) past which a window merges, and its bucket.
_LEVELS = (("hourly", "full_days", timedelta(hours=1)), ("daily", "hourly_days", timedelta(days=1)))


def compact(store: Store, monitor_id: str, policy: RetentionPolicy, now: datetime) -> CompactSummary:
    """Merge monitor ``monitor_id``'s windows as ``policy`` says at time ``now`` (timezone-aware): every
    whole hour (day) that ended ``full_days`` (``hourly_days``) before ``now``, per board and merge key,
    one document. Idempotent, one transaction per merged document; safe to call at any time, and again
    after a crash. A group that cannot merge is left as it is and named in the summary."""
    if now.tzinfo is None:
        raise ValueError("compact needs a timezone-aware time")
    made: dict[str, int] = {}
    replaced, refused = 0, list[str]()
    for level, age, bucket in _LEVELS:
        cutoff = now.astimezone(UTC) - timedelta(days=getattr(policy, age))
        mark = f"retention {monitor_id} {level}"
        done = store.mark(mark)
        since = _time(done) if done else None
        made[level] = 0
        # The day before the mark, as text: a time's fraction of a second sorts before its "Z".
        listed = store.monitor_windows(monitor_id, "" if since is None else f"{since - timedelta(days=1):%Y-%m-%d}")
        for group in _groups(store, listed, since, cutoff, bucket):
            try:
                _merge_group(store, group)
            except RtscopeError as error:
                refused.append(str(error))
                continue
            made[level] += 1
            replaced += len(group)
        # Every bucket before the one that holds the cutoff is done: the next call starts there, and so
        # reads no document of a bucket it has merged (an idle/load alternation leaves two per hour).
        reached = _bucket_start(cutoff, bucket)
        if since is None or reached > since:
            store.set_mark(mark, reached.isoformat().replace("+00:00", "Z"))
    return CompactSummary(made, replaced, tuple(refused))


def _groups(
    store: Store, windows: list[StoredWindow], since: datetime | None, cutoff: datetime, bucket: timedelta
) -> Iterable[list[result.Result]]:
    """The stored documents that merge, group by group: complete windows whose bucket starts at or after
    ``since`` (None: any) and ended by ``cutoff``, of one board and bucket, alike in the runs table's columns,
    then in their merge key. Only groups that the columns leave at two or more are read."""
    candidates: dict[tuple[str, datetime, str], list[StoredWindow]] = defaultdict(list)
    for window in windows:
        if window.status != "complete":
            continue
        start = _bucket_start(_time(window.started), bucket)
        if start + bucket <= cutoff and (since is None or start >= since):
            candidates[(window.board, start, window.columns)].append(window)
    for alike in candidates.values():
        if len(alike) < 2:
            continue
        by_key: dict[str, list[result.Result]] = defaultdict(list)
        for run in store.documents([window.id for window in alike]):
            by_key[merge.key(run.doc)].append(run)
        yield from (group for group in by_key.values() if len(group) > 1)


def _merge_group(store: Store, group: list[result.Result]) -> None:
    ids = sorted(run.run_id for run in group)
    run_id = hashlib.sha256(" ".join(ids).encode()).hexdigest()[:16]
    merged = merge.merge([run.doc for run in group], run_id)
    source = f"the merge of {len(group)} windows of board {merged['monitor']['board']!r}"
    # Without indentation: a merged document is rtscope's to write, and its histograms are most of it.
    text = json.dumps(merged, separators=(",", ":"), ensure_ascii=False) + "\n"
    run = result.Result(result.validate(merged, source), text)
    # Who stored the first window stored the merge (the rtscope version is one: the columns say so).
    still = next((run_id for run_id in ids if store.has(run_id)), None)
    if still is None:
        raise RtscopeError(f"the {len(ids)} windows to merge are no longer stored")
    store.add(run, store.provenance(still), replacing=ids)


def _time(utc: str) -> datetime:
    return datetime.fromisoformat(utc)


def _bucket_start(moment: datetime, bucket: timedelta) -> datetime:
    """The start of the UTC hour or day that holds ``moment``."""
    if bucket >= timedelta(days=1):
        return moment.replace(hour=0, minute=0, second=0, microsecond=0)
    return moment.replace(minute=0, second=0, microsecond=0)
