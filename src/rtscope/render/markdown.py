"""Sections drawn as markdown: titles as headings, tables as pipe tables, paragraphs as their lines,
items and notes as lists; figures are left out (markdown has no inline plot), emphasis is not marked."""

from collections.abc import Iterable, Sequence

from rtscope.render import fmt
from rtscope.render.document import Figure, Items, Paragraph, Part, Section, Table, title_text


def render(sections: Iterable[Section], level: int = 2) -> str:
    """The markdown text of ``sections``, blocks apart by a blank line; titles at heading ``level``."""
    return "\n".join(fmt.blocks(_section_lines(section, level) for section in sections)) + "\n"


def _section_lines(section: Section, level: int) -> list[str]:
    return fmt.blocks(
        filter(
            None,
            [
                ["#" * level + " " + title_text(section.title)] if section.title else [],
                *map(_part_lines, section.parts),
                ["- " + note.text for note in section.notes],
                *(_section_lines(sub, level + 1) for sub in section.subsections),
            ],
        )
    )


def _part_lines(part: Part) -> list[str]:
    if isinstance(part, Table):
        header = list(part.header) if part.header else [""] * len(part.align)
        return [_row(header), "|" + "---|" * len(header), *(_row([cell.text for cell in row]) for row in part.rows)]
    if isinstance(part, Paragraph):
        return list(part.lines)
    if isinstance(part, Items):
        return ["- " + item.text for item in part.items]
    if isinstance(part, Figure):
        return []
    raise TypeError(f"not a part: {part!r}")


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"
