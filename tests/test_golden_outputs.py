"""What users see, pinned: show, compare (every format), score and the report's structure, made from
the recorded results in tests/golden/ and compared with tests/golden/outputs/.

A change to what a command prints shows here as a diff to review. After reviewing it, write the new
outputs with ``RTSCOPE_REGOLD=1 ./test.sh tests/test_golden_outputs.py``.
"""

import html.parser
import os
import time
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO

GOLDEN = REPO / "tests" / "golden"
OUTPUTS = GOLDEN / "outputs"
V1 = [GOLDEN / "result-v1-privileged.json", GOLDEN / "result-v1-refused.json"]
EVERY = sorted(GOLDEN.glob("*.json"))
UNDER_LOAD = GOLDEN / "result-v3-under-load.json"
LATENCY = GOLDEN / "result-v3-latency.json"
THREADMETRIC = GOLDEN / "result-v2-threadmetric.json"

CASES = {
    **{f"show-{path.stem}.txt": ("show", path) for path in EVERY},
    "show-raw-times.txt": ("show", V1[0], "--raw-times"),
    **{
        f"compare-v1.{suffix}": ("compare", *V1, "--format", name)
        for name, suffix in (("text", "txt"), ("markdown", "md"), ("csv", "csv"), ("json", "json"))
    },
    "compare-every.txt": ("compare", *EVERY),
    "compare-by-load.txt": ("compare", LATENCY, UNDER_LOAD, "--by", "load"),
    "compare-ops.txt": ("compare", V1[0], THREADMETRIC, "--ops"),
    "compare-threadmetric.csv": ("compare", THREADMETRIC, V1[0], "--format", "csv"),
    "score.txt": ("score", *V1, UNDER_LOAD, "--profile", FIXTURES / "golden-profile.toml"),
    "score-max.txt": ("score", *V1, "--profile", FIXTURES / "golden-profile.toml", "--stat", "max"),
}


@pytest.fixture(autouse=True)
def utc(monkeypatch):
    """Times are shown in local time: pin the zone, so the outputs do not depend on the machine's."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _matches(name: str, text: str) -> None:
    # Outputs name the files given by path: pinned as FIXTURES/…, wherever this checkout is.
    text = text.replace(str(FIXTURES), "FIXTURES")
    path = OUTPUTS / name
    if os.environ.get("RTSCOPE_REGOLD"):
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no golden output {name}: write it with RTSCOPE_REGOLD=1"
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from the golden output"


@pytest.mark.parametrize("name", CASES)
def test_command_output_is_unchanged(rtscope, name):
    outcome = rtscope(*CASES[name])
    assert outcome.status == 0, outcome.err
    _matches(name, outcome.out)


class _Structure(html.parser.HTMLParser):
    """The report as an outline: headings, figure captions' first words and every table's cells,
    one line each; the SVG inside figures is left out (its bytes are not what is pinned)."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self._text: list[str] | None = None
        self._row: list[str] | None = None
        self._in_svg = 0

    def handle_starttag(self, tag, attrs):
        if tag == "svg":
            self._in_svg += 1
        elif tag in ("h1", "h2", "h3", "h4", "td", "th", "figcaption") and not self._in_svg:
            self._text = []
        elif tag == "tr":
            self._row = []
        elif tag == "table":
            self.lines.append("table")

    def handle_endtag(self, tag):
        if tag == "svg":
            self._in_svg -= 1
        elif tag in ("h1", "h2", "h3", "h4", "figcaption") and self._text is not None:
            text = " ".join("".join(self._text).split())
            self.lines.append(f"{tag}: {text[:60] if tag == 'figcaption' else text}")
            self._text = None
        elif tag in ("td", "th") and self._text is not None and self._row is not None:
            self._row.append(" ".join("".join(self._text).split()))
            self._text = None
        elif tag == "tr" and self._row is not None:
            self.lines.append("  | " + " | ".join(self._row))
            self._row = None

    def handle_data(self, data):
        if self._text is not None and not self._in_svg:
            self._text.append(data)


def test_report_structure_is_unchanged(rtscope, tmp_path: Path):
    output = tmp_path / "report.html"
    outcome = rtscope("report", *EVERY, "-o", output)
    assert outcome.status == 0, outcome.err
    parser = _Structure()
    parser.feed(output.read_text(encoding="utf-8"))
    _matches("report-structure.txt", "\n".join(parser.lines) + "\n")
