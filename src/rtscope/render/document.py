"""The section model every view is built in, once, before it is drawn as text, markdown or HTML.

A view is a list of :class:`Section`: a title, parts — tables, paragraphs, lists of items, figures — and
notes. The data says what to show and what to stress (a cell's emphasis); the renderers (render.text,
render.markdown, render.page) say how. Text is plain here: the HTML renderer escapes every string.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from rtscope.render import svg

# What a cell stresses: "" nothing, "strong" (a heading, the best of a row), "warn" (needs attention:
# settings not as requested), "bad" (wrong: invalid, failed), "good" (a difference shown to be real).
EMPHASES = ("", "strong", "warn", "bad", "good", "muted")


@dataclass(frozen=True)
class Cell:
    """A piece of text and how it is stressed; ``swatch`` (a colour shown before it) and ``link`` (the
    anchor of the section it leads to) only where a page can show them."""

    text: str
    emphasis: str = ""
    swatch: str | None = None
    link: str | None = None

    def __post_init__(self) -> None:
        if self.emphasis not in EMPHASES:
            raise ValueError(f"emphasis {self.emphasis!r} is not one of {EMPHASES}")


Cells = tuple[Cell, ...]


@dataclass(frozen=True)
class Table:
    """Rows of cells under an optional header; ``align`` has a letter per column, "l" for text and "r"
    for numbers. Without a header the first column names each row (a list of fields)."""

    header: tuple[str, ...] | None
    rows: tuple[Cells, ...]
    align: str

    def __post_init__(self) -> None:
        if any(len(row) != len(self.align) for row in (*self.rows, *([self.header] if self.header else []))):
            raise ValueError(f"every row must have {len(self.align)} cells, as align {self.align!r} says")


@dataclass(frozen=True)
class Paragraph:
    """One paragraph, in the lines text shows it in (a page joins them)."""

    lines: tuple[str, ...]
    emphasis: str = ""


@dataclass(frozen=True)
class Items:
    """Separate statements, one a line: warnings, notes."""

    items: Cells


@dataclass(frozen=True)
class Figure:
    """A chart with, under it, what each colour is (``legend``: cells with swatches) and how to read it."""

    chart: svg.Chart
    legend: Cells = ()
    notes: tuple[str, ...] = ()


Part = Table | Paragraph | Items | Figure


@dataclass(frozen=True)
class Section:
    """A titled (or untitled) group of parts and subsections; ``notes`` are said after them, at the
    section's own level; ``anchor`` names it for links and a page's contents."""

    title: Cells = ()
    parts: tuple[Part, ...] = ()
    notes: Cells = ()
    subsections: tuple["Section", ...] = ()
    anchor: str = ""


def cells(*values: str | Cell) -> Cells:
    """Cells of plain strings and of cells as they are."""
    return tuple(value if isinstance(value, Cell) else Cell(value) for value in values)


def table(header: Sequence[str] | None, rows: Sequence[Sequence[str | Cell]], align: str) -> Table:
    """A :class:`Table` of rows of plain strings or cells."""
    return Table(None if header is None else tuple(header), tuple(cells(*row) for row in rows), align)


def heading(title: str, aside: str = "") -> Cells:
    """A section title: ``title`` stressed, ``aside`` (", as measured") plain after it."""
    return (Cell(title, "strong"), *((Cell(aside),) if aside else ()))


def title_text(title: Cells) -> str:
    """A title as one plain string."""
    return "".join(cell.text for cell in title)
