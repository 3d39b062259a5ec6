"""`rtscope compare`'s views of a comparison (rtscope.analysis.compare), from sections.comparison: as
terminal text and as markdown."""

from collections.abc import Iterable
from typing import Any

from rtscope.analysis.compare import Comparison
from rtscope.render import markdown as markdown_renderer
from rtscope.render import text
from rtscope.render.document import Section
from rtscope.render.fmt import Style
from rtscope.render.sections import comparison as sections
from rtscope.render.sections import envelope


def render_text(comparison: Comparison, style: Style) -> list[str]:
    """The comparison as terminal text: which group is which and the settings that differ, square waves'
    envelopes when the runs hold them, then the table, its legend and the invalid metrics."""
    return text.render([sections.names(comparison),
                        envelope.section((doc for g in comparison.groups for doc in g.docs), in_full=False),
                        Section(parts=(sections.figures_table(comparison), sections.legend(comparison)),
                                notes=sections.invalid_notes(comparison.groups))], style)


def envelope_text(docs: Iterable[dict[str, Any]], style: Style) -> list[str]:
    """The square waves' envelopes among ``docs`` as terminal text, for runs too many (or too few) to
    compare as groups; empty when none is a wave run."""
    section = envelope.section(docs, in_full=False)
    return text.render([section], style) if section else []


def markdown(comparison: Comparison) -> str:
    """The comparison as markdown: the groups, then the table and its legend."""
    return markdown_renderer.render([Section(parts=(sections.group_table(comparison),)),
                                     Section(parts=(sections.figures_table(comparison), sections.legend(comparison)))])
