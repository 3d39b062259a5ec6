"""What the runs skipped: each bench a target could not run (or a run ended before), with the reason, said
once for every group that skipped it for that reason — one short section, so that the tables hold only
what was measured. One run's benches table already says it, bench by bench."""

from collections.abc import Sequence

from rtscope.analysis.grouping import Group
from rtscope.model import result
from rtscope.render.document import Cell, Items, Section, heading
from rtscope.render.subjects import Report


def build(report: Report) -> Section | None:
    """The report's section: :func:`section` of its groups."""
    return section(report.groups)


def section(groups: Sequence[Group]) -> Section | None:
    """A line per bench and reason, "lat.timerlat in B, D (4 of 8 runs): the kernel has no timerlat
    tracer (…)", naming the groups by their letters (when there are several); None when no run skipped a
    bench."""
    found: dict[tuple[str, str], dict[str, int]] = {}  # (bench, reason) → runs that skipped it, per group
    for group in groups:
        for doc in group.docs:
            for bench, reason in result.skipped(doc).items():
                per_group = found.setdefault((bench, reason), {})
                per_group[group.letter] = per_group.get(group.letter, 0) + 1
    if not found:
        return None
    runs = sum(len(group.docs) for group in groups)
    lines = [
        f"{bench}{_where(per_group, len(groups))} ({_count(sum(per_group.values()), runs)}): {reason}"
        for (bench, reason), per_group in found.items()
    ]
    return Section(heading("Skipped benches"), (Items(tuple(map(Cell, lines))),))


def _where(per_group: dict[str, int], groups: int) -> str:
    """ " in B, D": the groups' letters, when there are several groups to tell apart."""
    return f" in {', '.join(per_group)}" if groups > 1 else ""


def _count(skipped: int, runs: int) -> str:
    return f"{skipped} of {runs} run{'' if runs == 1 else 's'}"
