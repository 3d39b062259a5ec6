"""Sections drawn as terminal text: a titled section's parts indented under its title, sections and
parts apart by a blank line, emphasis in colour (fmt.Style); a figure is a one-line note."""

from collections.abc import Callable, Iterable

from rtscope.render import fmt
from rtscope.render.document import Cell, Cells, Figure, Items, Paragraph, Part, Section, Table
from rtscope.render.fmt import Style

INDENT = "  "


def render(sections: Iterable[Section | None], style: Style) -> list[str]:
    """The lines of ``sections`` (None: a section that had nothing to show) in turn."""
    return fmt.blocks(_section_lines(section, style) for section in sections if section)


def _section_lines(section: Section, style: Style) -> list[str]:
    """A section's title, its parts and subsections (indented under a title), then its notes."""
    body = fmt.blocks(
        [
            *filter(None, (_part_lines(part, style) for part in section.parts)),
            *(_section_lines(sub, style) for sub in section.subsections),
        ]
    )
    if section.title:
        body = [_title(section.title, style), *(INDENT + line if line else line for line in body)]
    return body + [paint(note, style) for note in section.notes]


def _title(pieces: Cells, style: Style) -> str:
    """A title's pieces, each as stressed."""
    return "".join(paint(piece, style) for piece in pieces)


def _part_lines(part: Part, style: Style) -> list[str]:
    """The lines of one part."""
    if isinstance(part, Table):
        rows = [[paint(cell, style) for cell in row] for row in part.rows]
        return fmt.columns([list(part.header), *rows] if part.header else rows, part.align)
    if isinstance(part, Paragraph):
        return [paint(Cell(line, part.emphasis), style) for line in part.lines]
    if isinstance(part, Items):
        return [paint(item, style) for item in part.items]
    if isinstance(part, Figure):
        return [f"[plot: {part.chart.title}]"]
    raise TypeError(f"not a part: {part!r}")


_PAINT: dict[str, Callable[[Style, str], str]] = {
    "": lambda style, text: text,
    "strong": Style.heading,
    "warn": Style.warn,
    "bad": Style.bad,
    "good": Style.good,
    "muted": Style.muted,
}


def paint(cell: Cell, style: Style) -> str:
    """A cell's text in the colour of its emphasis."""
    return _PAINT[cell.emphasis](style, cell.text)
