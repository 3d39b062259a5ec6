#!/usr/bin/env python3
"""Figures in the docs that the tree decides, written from the tree rather than typed by hand.

A figure is a marked spot in a Markdown file:

    <!-- figure:lines probe/port/freertos/port_freertos.c -->675<!-- /figure -->

``lines GLOB…`` is the number of lines of the files the globs match (relative to the repository), written
with thousands separators. ``python3 docs/figures.py`` rewrites every stale figure of README.md and
docs/*.md; ``--check`` changes nothing and exits 1 naming each stale one (tests/test_doc_figures.py runs it
in the fast tier). Figures that need a build or a measurement are not here: a doc gives those with the
command that measured them.
"""

import argparse
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MARK = re.compile(r"<!-- figure:(?P<spec>[^>]*?) -->(?P<value>.*?)<!-- /figure -->")
COMMAND = "python3 docs/figures.py"


class FigureError(Exception):
    """A marked spot that names no figure this script computes, or files that are not there."""


def lines(root: Path, patterns: list[str]) -> str:
    """The lines of every file the globs match, together."""
    files = sorted({path for pattern in patterns for path in root.glob(pattern) if path.is_file()})
    if not patterns or not files:
        raise FigureError(f"lines {' '.join(patterns)}: no file matches")
    return f"{sum(len(path.read_bytes().splitlines()) for path in files):,}"


FIGURES = {"lines": lines}


def compute(root: Path, spec: str) -> str:
    kind, *args = spec.split()
    if kind not in FIGURES:
        raise FigureError(f"figure:{spec}: no figure '{kind}' (known: {', '.join(sorted(FIGURES))})")
    return FIGURES[kind](root, args)


def documents(root: Path) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def refresh(root: Path, text: str, where: str) -> tuple[str, list[str]]:
    """The text with every figure computed afresh, and a line per figure that was stale."""
    stale: list[str] = []

    def replace(found: re.Match[str]) -> str:
        try:
            value = compute(root, found["spec"])
        except FigureError as error:
            raise FigureError(f"{where}: {error}") from None
        if value != found["value"]:
            line = text.count("\n", 0, found.start()) + 1
            stale.append(f"{where}:{line}: figure:{found['spec']} reads {found['value']!r}, the tree gives {value!r}")
        return f"<!-- figure:{found['spec']} -->{value}<!-- /figure -->"

    return MARK.sub(replace, text), stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the docs' marked figures from the tree.")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when a figure is stale")
    parser.add_argument("--root", type=Path, default=REPO, help="the repository (default: this one)")
    args = parser.parse_args(argv)
    all_stale: list[str] = []
    try:
        for path in documents(args.root):
            if not path.is_file():
                continue
            text = path.read_text(encoding="utf-8")
            new, stale = refresh(args.root, text, str(path.relative_to(args.root)))
            all_stale += stale
            if stale and not args.check:
                path.write_text(new, encoding="utf-8")
    except FigureError as error:
        print(f"figures: {error}", file=sys.stderr)
        return 2
    if all_stale and args.check:
        print("\n".join(all_stale), file=sys.stderr)
        print(f"figures: {len(all_stale)} stale; {COMMAND} rewrites them", file=sys.stderr)
        return 1
    if all_stale:
        print(f"figures: {len(all_stale)} rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
