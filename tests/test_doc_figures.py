"""The docs' marked figures (docs/figures.py) agree with the tree: a port or a board that grows, or an RTOS
image that changes size, makes this fail, naming the command that writes the figures again."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from rtscope.targets import kernels
from rtscope.targets.mcu import qemu_board

SCRIPT = REPO / "docs" / "figures.py"


def figures(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=60, check=False)


def test_the_docs_figures_are_the_trees():
    checked = figures("--check", "--kinds", "lines")
    assert checked.returncode == 0, checked.stderr


def test_the_rtos_image_sizes_in_the_docs_are_the_builds(board_tools):
    # The images the slow tier's board tests build (make leaves them as they are when those ran first).
    marked = set(re.findall(r"<!-- figure:image (\S+) ", (REPO / "docs" / "rtos.md").read_text()))
    assert marked
    for build in sorted(marked):
        os_name, _, mcu = build.partition("-mps2-an385")  # the dev configuration's folders: OS-BOARD[-small]
        assert mcu in ("", "-small"), build
        if why := kernels.missing(os_name):
            pytest.skip(why)
        assert (
            qemu_board.image_path(os_name, "mps2-an385", mcu=mcu[1:])
            == REPO / "probe" / "build" / build / "rtscope-probe"
        )
        qemu_board.build_image(os_name, "mps2-an385", mcu=mcu[1:])
    checked = figures("--check", "--kinds", "image")
    assert (checked.returncode, checked.stderr) == (0, "")


def test_the_docs_mark_figures():
    # The ports' and boards' sizes are marked, not typed (issue 32: they had drifted in three places).
    assert "<!-- figure:lines probe/port/freertos/port_freertos.c -->" in (REPO / "docs" / "rtos.md").read_text()


def make_tree(root: Path, figure: str) -> Path:
    (root / "docs").mkdir()
    (root / "src").mkdir()
    (root / "src" / "a.c").write_text("one\ntwo\n")
    (root / "src" / "b.c").write_text("x\n" * 1200)
    doc = root / "docs" / "page.md"
    doc.write_text(f"The code is {figure} lines.\n")
    return doc


def test_a_stale_figure_fails_the_check_and_is_rewritten(tmp_path):
    doc = make_tree(tmp_path, "<!-- figure:lines src/*.c -->900<!-- /figure -->")
    checked = figures("--check", "--root", tmp_path)
    assert checked.returncode == 1
    assert "docs/page.md:1: figure:lines src/*.c reads '900', the tree gives '1,202'" in checked.stderr
    assert "python3 docs/figures.py rewrites them" in checked.stderr
    assert "900" in doc.read_text()
    assert figures("--root", tmp_path).returncode == 0
    assert doc.read_text() == "The code is <!-- figure:lines src/*.c -->1,202<!-- /figure --> lines.\n"
    assert figures("--check", "--root", tmp_path).returncode == 0


def test_an_unknown_figure_or_a_missing_file_is_one_line(tmp_path):
    make_tree(tmp_path, "<!-- figure:words src/a.c -->2<!-- /figure -->")
    unknown = figures("--check", "--root", tmp_path)
    assert (unknown.returncode, unknown.stderr) == (
        2,
        "figures: docs/page.md: figure:words src/a.c: no figure 'words' (known: lines, image)\n",
    )
    (tmp_path / "docs" / "page.md").write_text("<!-- figure:lines src/none.c -->2<!-- /figure -->\n")
    missing = figures("--check", "--root", tmp_path)
    assert (missing.returncode, missing.stderr) == (2, "figures: docs/page.md: lines src/none.c: no file matches\n")
