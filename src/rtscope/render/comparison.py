"""`rtscope compare`'s views of a comparison (rtscope.analysis.compare), from sections.comparison: as
terminal text and as markdown, opening with the verdict per factor (sections.verdict), with the studies'
own tables — square waves' envelopes, the application workload's — before the comparison's when the runs
hold them, and a published study's Thread-Metric or per-operation figures after it when asked
(sections.published)."""

from collections.abc import Iterable
from typing import Any

from rtscope.analysis.compare import Comparison
from rtscope.analysis.published import Study
from rtscope.analysis.worst_case import DEFAULT_PROBABILITY
from rtscope.render import markdown as markdown_renderer
from rtscope.render import text
from rtscope.render.document import Section
from rtscope.render.fmt import Style
from rtscope.render.sections import comparison as sections
from rtscope.render.sections import envelope, os_config, skipped, verdict, workload, worst_case
from rtscope.render.sections import published as published_sections


def render_text(
    comparison: Comparison,
    style: Style,
    *,
    by: str | None = None,
    published: Study | None = None,
    probability: float = DEFAULT_PROBABILITY,
) -> list[str]:
    """The comparison as terminal text: which group is which and the settings that differ, the verdict
    per factor, the studies' tables when the runs hold them (grouped ``by`` as the comparison;
    ``published``: that study's figures beside them), then the table, its legend and the invalid metrics,
    the latency metrics' worst case at ``probability`` per activation, the study's Thread-Metric or
    per-operation figures, and the benches skipped."""
    docs = [doc for g in comparison.groups for doc in g.docs]
    return text.render(
        [
            sections.names(comparison),
            verdict.section(
                docs, comparison.statistics, adjusted=comparison.adjusted, prefer=by, min_effect=comparison.min_effect
            ),
            os_config.differences(comparison.groups),
            *studies(docs, by=by, adjusted=comparison.adjusted, published=published),
            Section(
                parts=(sections.figures_table(comparison), sections.legend(comparison)),
                notes=sections.invalid_notes(comparison.groups),
            ),
            worst_case.compare_section(comparison.groups, probability),
            *_published_after(comparison, published),
            skipped.section(comparison.groups),
        ],
        style,
    )


def studies(
    docs: list[dict[str, Any]], *, by: str | None = None, adjusted: bool = True, published: Study | None = None
) -> list[Section]:
    """The studies' tables of ``docs``: square waves' envelopes, the workload's tables and, with
    ``published``, crypto throughputs beside that study's; only those the runs hold."""
    found = [
        envelope.section(docs, in_full=False),
        workload.section(docs, by=by, adjusted=adjusted, published=published),
        workload.crypto_section(docs, published, adjusted=adjusted) if published else None,
    ]
    return [section for section in found if section]


def studies_text(
    docs: Iterable[dict[str, Any]],
    style: Style,
    *,
    by: str | None = None,
    adjusted: bool = True,
    published: Study | None = None,
) -> list[str]:
    """The studies' tables among ``docs`` as terminal text, for runs too many (or too few) to compare as
    groups; empty when they hold none."""
    found = studies(list(docs), by=by, adjusted=adjusted, published=published)
    return text.render(found, style) if found else []


def markdown(
    comparison: Comparison,
    *,
    by: str | None = None,
    published: Study | None = None,
    probability: float = DEFAULT_PROBABILITY,
) -> str:
    """The comparison as markdown: the groups, the verdict per factor, the studies' tables, then the table
    and its legend, the latency metrics' worst case at ``probability`` per activation, the published
    study's Thread-Metric or per-operation figures, and the benches skipped."""
    docs = [doc for g in comparison.groups for doc in g.docs]
    found = [
        Section(parts=(sections.group_table(comparison),)),
        verdict.section(
            docs, comparison.statistics, adjusted=comparison.adjusted, prefer=by, min_effect=comparison.min_effect
        ),
        os_config.differences(comparison.groups),
        *studies(docs, by=by, adjusted=comparison.adjusted, published=published),
        Section(parts=(sections.figures_table(comparison), sections.legend(comparison))),
        worst_case.compare_section(comparison.groups, probability),
        *_published_after(comparison, published),
        skipped.section(comparison.groups),
    ]
    return markdown_renderer.render(section for section in found if section)


def _published_after(comparison: Comparison, published: Study | None) -> list[Section]:
    """The study's tables that stand after the comparison's: Thread-Metric's, the operations'."""
    return published_sections.sections(comparison.groups, published, adjusted=comparison.adjusted) if published else []
