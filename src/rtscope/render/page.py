"""Sections drawn as one self-contained HTML page: inline style sheet, plots as inline SVG (render.svg),
no script and nothing fetched. Every string of the model is escaped where it is written; markup is
made only here (and, escaped in the same way, by svg.Chart).
"""

import html
from collections.abc import Sequence

from rtscope.render.document import Cell, Cells, Figure, Items, Paragraph, Part, Section, Table, title_text

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;color:#222;margin:24px auto;max-width:1200px;padding:0 16px}
h1{font-size:24px}h2{font-size:19px;margin-top:36px;border-bottom:1px solid #ccc}h3{font-size:16px}
h4{font-size:14px}
table{border-collapse:collapse;margin:8px 0 16px}th,td{padding:3px 9px;border-bottom:1px solid #e4e4e4;
text-align:left;vertical-align:top}thead th{background:#f4f4f4}tbody th{font-weight:600}
td.r,th.r{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}td:first-child{white-space:nowrap}
.bad{color:#b00020}.warn{color:#9a5b00}.good{color:#0a7a35;font-weight:600}.strong{font-weight:600}.muted{color:#888}
figure{margin:12px 0 24px}figcaption{font-size:13px;color:#444;max-width:760px}
.legend{list-style:none;padding:0;margin:4px 0}.legend li{display:inline-block;margin-right:14px}
.swatch{display:inline-block;width:12px;height:12px;margin-right:5px;vertical-align:-1px;border-radius:2px}
svg.plot{max-width:100%;height:auto;font:12px system-ui,sans-serif}svg.plot text{fill:#333}
svg.plot .grid{stroke:#e6e6e6}svg.plot .frame{stroke:#333;fill:none}
svg.plot .note{font-size:11px;paint-order:stroke;stroke:#fff;stroke-width:3px}
nav ul{columns:3;padding-left:18px}.wide{overflow-x:auto}
"""


def render(title: str, intro: Sequence[Part], sections: Sequence[Section]) -> str:
    """The page: ``title`` as its heading, the ``intro`` parts, contents linking the sections that have
    an anchor, then ``sections`` (h2, their subsections h3 …)."""
    contents = [
        _element("li", _element("a", _text(title_text(s.title)), href=f"#{s.anchor}")) for s in sections if s.anchor
    ]
    body = [
        _element("h1", _text(title)),
        *map(_part, intro),
        *([_element("nav", _element("ul", *contents))] if contents else []),
        *(_section(section, 2) for section in sections),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"{_element('title', _text(title))}<style>{_STYLE}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def _text(text: str) -> str:
    return html.escape(text)


def _element(tag: str, *children: str, **attributes: str | None) -> str:
    """``<tag attributes>children</tag>``: children are markup already; attribute values are escaped
    here, ``class_`` is written ``class`` and an attribute of None is left out."""
    written = "".join(
        f' {name.rstrip("_")}="{html.escape(value)}"' for name, value in attributes.items() if value is not None
    )
    return f"<{tag}{written}>{''.join(children)}</{tag}>"


def _section(section: Section, level: int) -> str:
    # A heading is strong already: only its other emphases are marked.
    title = "".join(_cell(Cell(cell.text) if cell.emphasis == "strong" else cell) for cell in section.title)
    heading = [_element(f"h{min(level, 6)}", title)] if section.title else []
    notes = [_element("ul", *(_element("li", _cell(note)) for note in section.notes))] if section.notes else []
    return _element(
        "section",
        *heading,
        *map(_part, section.parts),
        *notes,
        *(_section(sub, level + 1) for sub in section.subsections),
        id=section.anchor or None,
    )


def _part(part: Part) -> str:
    if isinstance(part, Table):
        return _element("div", _table(part), class_="wide")
    if isinstance(part, Paragraph):
        return _element("p", _text(" ".join(part.lines)), class_=part.emphasis or None)
    if isinstance(part, Items):
        return _element("ul", *(_element("li", _cell(item)) for item in part.items))
    if isinstance(part, Figure):
        legend = _element("ul", *(_element("li", _cell(entry)) for entry in part.legend), class_="legend")
        return _element(
            "figure",
            part.chart.svg(),
            _element("figcaption", legend if part.legend else "", _text(" ".join(part.notes))),
        )
    raise TypeError(f"not a part: {part!r}")


def _table(table: Table) -> str:
    """With a header, a row of th over rows of td; without, each row named by a th in its first column."""

    def row(cells: Cells, header: bool) -> str:
        return _element(
            "tr",
            *(
                _element(
                    "th" if header or (table.header is None and index == 0) else "td",
                    _cell(cell),
                    class_=side if side == "r" else None,
                )
                for index, (cell, side) in enumerate(zip(cells, table.align, strict=True))
            ),
        )

    head = [_element("thead", row(tuple(map(Cell, table.header)), True))] if table.header else []
    return _element("table", *head, _element("tbody", *(row(cells, False) for cells in table.rows)))


def _cell(cell: Cell) -> str:
    swatch = _element("span", "", class_="swatch", style=f"background:{cell.swatch}") if cell.swatch else ""
    text = _element("a", _text(cell.text), href=f"#{cell.link}") if cell.link else _text(cell.text)
    return swatch + (_element("span", text, class_=cell.emphasis) if cell.emphasis else text)
