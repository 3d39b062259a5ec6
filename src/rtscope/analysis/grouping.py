"""How runs form groups for comparison: the one rule that compare, check and the report share.

A group is one run, or the runs of one campaign cell, label, set of loads or target, named by a letter (A, B …)
in order of first appearance.
"""

import string
from dataclasses import dataclass
from typing import Any

from rtscope.errors import RtscopeError

# Groups are named A, B, C … in tables; the header says which runs each letter is.
LETTERS = string.ascii_uppercase
GROUPINGS = ("run", "cell", "label", "load", "target")
SHORT_ID = 8


class NoComparison(RtscopeError):
    """The runs make fewer than two groups, or more than a table can name: no comparison table."""


@dataclass(frozen=True)
class Group:
    """Runs compared as one: a letter, what they share (a cell, a label …) and their documents."""

    letter: str
    name: str
    docs: tuple[dict[str, Any], ...]


def default_grouping(docs: list[dict[str, Any]]) -> str:
    """cell when every run belongs to a campaign (its repetitions form the groups), else run."""
    return "cell" if all("campaign" in doc for doc in docs) else "run"


def group(docs: list[dict[str, Any]], by: str) -> list[Group]:
    """The runs in groups (in order of first appearance): each run alone, or by campaign cell (named with
    its campaign when runs of several campaigns are compared), label or loads."""
    campaigns = {doc["campaign"]["id"] for doc in docs if "campaign" in doc}
    keys: dict[str, tuple[str, list[dict[str, Any]]]] = {}
    for doc in docs:
        name = group_name(doc, by, several_campaigns=len(campaigns) > 1)
        # A run is itself by its whole id: two runs may share the short id their name shows.
        key = doc["run"]["id"] if by == "run" else name
        keys.setdefault(key, (name, []))[1].append(doc)
    if len(keys) < 2:
        raise NoComparison(
            f"compare needs two or more runs or groups, not {len(keys)} "
            f"({len(docs)} run{'s' if len(docs) > 1 else ''} by {by})"
        )
    if len(keys) > len(LETTERS):
        raise NoComparison(f"compare takes at most {len(LETTERS)} groups, not {len(keys)} (by {by})")
    return [
        Group(letter, name, tuple(members)) for letter, (name, members) in zip(LETTERS, keys.values(), strict=False)
    ]


def group_name(doc: dict[str, Any], by: str, *, several_campaigns: bool) -> str:
    """The name of the group ``doc`` belongs to by ``by``: a run's short id and label, its label, its
    loads, its target, or its campaign cell (with the campaign's name when several campaigns are compared)."""
    if by == "run":
        return f"{doc['run']['id'][:SHORT_ID]} {doc['run']['label'] or ''}".strip()
    if by == "label":
        return doc["run"]["label"] or "(no label)"
    if by == "load":
        return ",".join(load["name"] for load in doc.get("loads") or []) or "(none given)"
    if by == "target":
        # Format 4 names it; older results were measured where rtscope ran.
        target_name: str = (doc.get("target") or {}).get("name", "local")
        return target_name
    if "campaign" not in doc:
        raise RtscopeError(
            f"run {doc['run']['id'][:SHORT_ID]} belongs to no campaign: it has no cell (--by run, label or load)"
        )
    cell = doc["campaign"]["cell"]
    return f"{doc['campaign']['name']}: {cell}" if several_campaigns else cell
