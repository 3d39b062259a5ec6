#!/usr/bin/env python3
"""Figures in the docs that the tree decides, written from the tree rather than typed by hand.

A figure is a marked spot in a Markdown file:

    <!-- figure:lines probe/port/freertos/port_freertos.c -->675<!-- /figure -->

``lines GLOB…`` is the number of lines of the files the globs match (relative to the repository).
``image BUILD FIELD`` is a size in bytes of the RTOS image probe/build/BUILD/rtscope-probe, as
``arm-none-eabi-size -A`` gives it: FIELD ``text`` (.text with .ARM.exidx), ``data``, ``flash`` (text +
data), ``bss``, ``rtos-heap``, ``libc-heap``, ``main-stack``, or ``flash-left`` (what MCU=small's 128 KiB of
flash leaves). Figures are written with thousands separators.

``python3 docs/figures.py`` rewrites every stale figure of README.md and docs/*.md; ``--check`` changes
nothing and exits 1 naming each stale one; ``--kinds`` limits either to some kinds. An image figure whose
image is not built is left alone (and named); the images are those the slow tier builds
(tests/test_doc_figures.py builds them and checks the image figures; it checks the lines in the fast
tier). Figures that need a measurement are not here: a doc gives those with the command that measured them.
"""

import argparse
import re
import shutil
import subprocess
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


class NotBuilt(Exception):
    """An image figure whose image is not in probe/build: nothing to read it from."""


# MCU=small's flash region (probe/boards/mps2-an385/memory-small.ld: CODE, LENGTH = 128K).
SMALL_FLASH = 128 * 1024
SECTIONS = {
    "text": (".text", ".ARM.exidx"),
    "data": (".data",),
    "flash": (".text", ".ARM.exidx", ".data"),
    "bss": (".bss",),
    "rtos-heap": (".rtos_heap",),
    "libc-heap": (".libc_heap",),
    "main-stack": (".main_stack",),
}


def image(root: Path, args: list[str]) -> str:
    """A size of an RTOS image, read with arm-none-eabi-size -A."""
    fields = [*SECTIONS, "flash-left"]
    if len(args) != 2 or args[1] not in fields:
        raise FigureError(f"image {' '.join(args)}: expected image BUILD FIELD, FIELD one of {', '.join(fields)}")
    elf = root / "probe" / "build" / args[0] / "rtscope-probe"
    if not elf.is_file():
        raise NotBuilt(f"{elf.relative_to(root)} is not built")
    if shutil.which("arm-none-eabi-size") is None:
        raise NotBuilt("no arm-none-eabi-size (apt-get install binutils-arm-none-eabi)")
    listing = subprocess.run(["arm-none-eabi-size", "-A", elf], capture_output=True, text=True, check=True).stdout
    sizes = {name: int(size) for name, size, _ in re.findall(r"^(\S+)\s+(\d+)\s+(\d+)$", listing, re.MULTILINE)}
    field = "flash" if args[1] == "flash-left" else args[1]
    total = sum(sizes.get(section, 0) for section in SECTIONS[field])
    return f"{SMALL_FLASH - total if args[1] == 'flash-left' else total:,}"


FIGURES = {"lines": lines, "image": image}


def compute(root: Path, spec: str) -> str:
    kind, *args = spec.split()
    if kind not in FIGURES:
        raise FigureError(f"figure:{spec}: no figure '{kind}' (known: {', '.join(FIGURES)})")
    return FIGURES[kind](root, args)


def documents(root: Path) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def refresh(root: Path, text: str, where: str, kinds: set[str]) -> tuple[str, list[str], list[str]]:
    """The text with every figure of ``kinds`` computed afresh, a line per figure that was stale, and a line
    per figure that could not be computed (an image not built)."""
    stale: list[str] = []
    unavailable: list[str] = []

    def replace(found: re.Match[str]) -> str:
        line = text.count("\n", 0, found.start()) + 1
        kind = found["spec"].split(" ", 1)[0]
        if kind in FIGURES and kind not in kinds:
            return found[0]
        try:
            value = compute(root, found["spec"])
        except NotBuilt as why:
            unavailable.append(f"{where}:{line}: figure:{found['spec']} left as it is: {why}")
            return found[0]
        except FigureError as error:
            raise FigureError(f"{where}: {error}") from None
        if value != found["value"]:
            stale.append(f"{where}:{line}: figure:{found['spec']} reads {found['value']!r}, the tree gives {value!r}")
        return f"<!-- figure:{found['spec']} -->{value}<!-- /figure -->"

    return MARK.sub(replace, text), stale, unavailable


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the docs' marked figures from the tree.")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when a figure is stale")
    parser.add_argument("--root", type=Path, default=REPO, help="the repository (default: this one)")
    parser.add_argument(
        "--kinds", default=",".join(FIGURES), help=f"the kinds of figure, comma-separated (default {','.join(FIGURES)})"
    )
    args = parser.parse_args(argv)
    kinds = set(args.kinds.split(","))
    if not kinds <= set(FIGURES):
        print(f"figures: --kinds {args.kinds}: known kinds are {', '.join(FIGURES)}", file=sys.stderr)
        return 2
    all_stale: list[str] = []
    try:
        for path in documents(args.root):
            if not path.is_file():
                continue
            text = path.read_text(encoding="utf-8")
            new, stale, unavailable = refresh(args.root, text, str(path.relative_to(args.root)), kinds)
            all_stale += stale
            if unavailable:
                print("\n".join(unavailable), file=sys.stderr)
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
