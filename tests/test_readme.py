"""The README as a newcomer meets it: short, its tour's commands running as written, in order, on a fresh
store; and the docs it leads to: every page in docs/index.md, every relative link landing on a file."""

import os
import re
import subprocess

from conftest import REPO

README = REPO / "README.md"
DOCS = REPO / "docs"
TOUR_MARK = "<!-- tour: tests/test_readme.py runs this block's commands in order -->"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def tour(text: str) -> list[str]:
    """The commands of the fenced block right after the tour's mark, comments dropped."""
    after = text.split(TOUR_MARK, 1)[1].lstrip("\n")
    found = re.match(r"```sh\n(.*?)\n```", after, re.DOTALL)
    assert found, "the tour's mark is not followed by a ```sh block"
    return [line.split("  #", 1)[0].strip() for line in found[1].splitlines() if line.strip()]


def test_the_readme_reads_in_five_minutes():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 80
    cells = [cell for line in text.splitlines() if line.startswith("|") for cell in line.split("|")]
    assert max(map(len, cells), default=0) <= 150
    commands = tour(text)
    assert len(commands) >= 5 and all(command.startswith("./rtscope ") for command in commands)


def test_every_doc_page_is_in_the_index_and_every_relative_link_lands():
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    missing = [
        page.name for page in sorted(DOCS.glob("*.md")) if page.name != "index.md" and f"]({page.name})" not in index
    ]
    assert not missing, f"pages docs/index.md does not list: {missing}"
    broken = []
    for page in [README, REPO / "CHANGELOG.md", *sorted(DOCS.glob("*.md"))]:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if not re.match(r"[a-z]+:", target) and not (page.parent / target).exists():
                broken.append(f"{page.relative_to(REPO)}: {target}")
    assert not broken


def test_the_tour_runs_as_written(tmp_path, probe):
    # A fresh directory and store, ./rtscope the clone's launcher: as a newcomer who cloned and ran setup.sh.
    (tmp_path / "rtscope").symlink_to(REPO / "rtscope")
    env = {**os.environ, "RTSCOPE_DB": str(tmp_path / "results.sqlite"), "RTSCOPE_PROBE": str(probe), "NO_COLOR": "1"}
    commands = tour(README.read_text(encoding="utf-8"))
    for command in commands:
        ran = subprocess.run(
            ["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False
        )
        assert ran.returncode == 0, f"{command}: exit {ran.returncode}\n{ran.stderr[-2000:]}"
    # What the tour says it writes (--json FILE, -o FILE) is there.
    written = [name for command in commands for name in re.findall(r"(?:--json|-o) (\S+)", command)]
    assert written and all((tmp_path / name).stat().st_size > 0 for name in written)
