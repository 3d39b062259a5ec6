"""What section builders are given: one run (show, and each run of a report), or the runs of a report
with their names, colours, groups and comparison."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rtscope.analysis import compare, evidence
from rtscope.analysis.grouping import LETTERS, Group, default_grouping, group, group_name
from rtscope.analysis.published import Study
from rtscope.analysis.worst_case import DEFAULT_PROBABILITY
from rtscope.errors import RtscopeError
from rtscope.model import result
from rtscope.render import cells, svg


@dataclass(frozen=True)
class OneRun:
    """A run's document, whether its tables show times overhead-adjusted or as measured, and the
    probability per activation its worst case is told at."""

    doc: dict[str, Any]
    adjusted: bool = True
    worst_case: float = DEFAULT_PROBABILITY


@dataclass(frozen=True)
class Run:
    """A run of a report: its place in the order given, its name, its group and its document."""

    index: int
    name: str
    group: Group
    doc: dict[str, Any]

    @property
    def colour(self) -> str:
        """Its colour in the plots (colours repeat in charts of their own beyond the palette)."""
        return svg.PALETTE[self.index % len(svg.PALETTE)]

    @property
    def caption(self) -> str:
        """The name and what tells the run apart: "B1 lab: load=cpu #2", "A stock kernel", "C host 0123abcd"."""
        campaign, run = self.doc.get("campaign"), self.doc["run"]
        if campaign:
            return f"{self.name} {campaign['name']}: {campaign['cell']} #{campaign['repetition']}"
        return f"{self.name} {run['label'] or cells.host_text(self.doc) + ' ' + run['id'][:8]}"

    @property
    def anchor(self) -> str:
        return f"run-{self.name}"


Measured = tuple[Run, dict[str, Any]]  # a run and its document of one metric


@dataclass(frozen=True)
class Report:
    """The runs of a report, in the order given, and compare's view of them: its groups (the one
    grouping rule, by default_grouping) and comparison, or each run a group of its own and the reason
    when compare would refuse them (one group, or more than it has letters for)."""

    runs: tuple[Run, ...]
    groups: tuple[Group, ...]
    comparison: compare.Comparison | None
    no_comparison: str | None
    adjusted: bool
    published: Study | None = None  # a study's published figures to show beside the runs
    min_effect: float = evidence.DEFAULT_MIN_EFFECT  # the smallest effect a verdict calls a win
    worst_case: float = DEFAULT_PROBABILITY  # the probability per activation of the worst case

    def measured(self, metric_id: str) -> list[Measured]:
        """The runs that measured ``metric_id``, each with its document of it."""
        return [(run, m) for run in self.runs if (m := result.metric(run.doc, metric_id)) is not None]

    def caption(self, of: Group) -> str:
        """A group as the report names it: its run's caption when it is one run, else its letter and name."""
        runs = self._runs_of(of)
        return runs[0].caption if len(runs) == 1 else f"{of.letter} {of.name}"

    def swatch(self, of: Group) -> str | None:
        """The colour of a group of one run in the plots (a group of several has none of its own)."""
        runs = self._runs_of(of)
        return runs[0].colour if len(runs) == 1 else None

    def _runs_of(self, of: Group) -> list[Run]:
        return [run for run in self.runs if run.group is of]

    def first_measured(self) -> dict[str, dict[str, Any]]:
        """Each metric any run measured, as the first run that did recorded it, in order of appearance."""
        first: dict[str, dict[str, Any]] = {}
        for run in self.runs:
            for metric_doc in run.doc["metrics"]:
                first.setdefault(metric_doc["id"], metric_doc)
        return first


def report(
    docs: Sequence[dict[str, Any]],
    *,
    adjusted: bool = True,
    published: Study | None = None,
    min_effect: float = evidence.DEFAULT_MIN_EFFECT,
    worst_case: float = DEFAULT_PROBABILITY,
) -> Report:
    """The report's view of ``docs``: grouped and compared as `rtscope compare` does by default (its
    statistics, its grouping), each run named by its group's letter (and its place in the group, A1,
    A2 …, when the group has several runs); with ``published``, that study's figures beside them; the
    worst case told at probability ``worst_case`` per activation."""
    by = default_grouping(list(docs))
    comparison: compare.Comparison | None
    no_comparison: str | None
    try:
        groups = group(list(docs), by)
    except RtscopeError as refusal:
        groups, comparison, no_comparison = _each_alone(docs), None, str(refusal)
    else:
        comparison = compare.build(groups, compare.DEFAULT_STATISTICS, adjusted=adjusted, min_effect=min_effect)
        no_comparison = None
    seen: dict[int, int] = {}
    runs = []
    for index, doc in enumerate(docs):
        of = next(g for g in groups if any(member is doc for member in g.docs))
        seen[id(of)] = seen.get(id(of), 0) + 1
        runs.append(Run(index, of.letter + (str(seen[id(of)]) if len(of.docs) > 1 else ""), of, doc))
    return Report(tuple(runs), tuple(groups), comparison, no_comparison, adjusted, published, min_effect, worst_case)


def _each_alone(docs: Sequence[dict[str, Any]]) -> list[Group]:
    """Each run a group of its own, named A … Z as compare names them, then AA, AB … (compare stops at Z)."""
    groups = []
    for index, doc in enumerate(docs):
        number, letters = index + 1, ""
        while number:
            number, digit = divmod(number - 1, len(LETTERS))
            letters = LETTERS[digit] + letters
        groups.append(Group(letters, group_name(doc, "run", several_campaigns=False), (doc,)))
    return groups
