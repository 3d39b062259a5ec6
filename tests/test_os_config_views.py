"""An RTOS run's configuration manifest (system.os_config): show prints it whole, compare and the report list
where two RTOS runs' builds differ, and say nothing when they agree or when the runs are Linux runs. The runs
are the golden FreeRTOS board result given manifests, as the dev and bench images record them."""

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO
from rtscope.analysis.grouping import Group
from rtscope.errors import RtscopeError
from rtscope.model import result
from rtscope.render.sections import os_config

GOLDEN = REPO / "tests" / "golden"
DEV = {
    "kernel": "FreeRTOS",
    "kernel_version": "V11.1.0+",
    "config": "dev",
    "tick_hz": 1000,
    "preemption": True,
    "time_slicing": False,
    "assertions": True,
    "stack_check": "method 1",
    "heap": "heap_4",
    "priorities": 102,
    "cflags": "-O2 -g -mcpu=cortex-m3",
}
BENCH = dict(DEV, config="bench", assertions=False, stack_check="off", priorities=32)


def board_run(tmp_path: Path, name: str, manifest: dict[str, Any] | None, run_id: str) -> Path:
    """The golden board result with ``manifest`` (none: as a Linux run has none) and its own run id, as a file."""
    doc = json.loads((GOLDEN / "result-v4-freertos.json").read_text())
    if manifest is not None:
        doc["system"]["os_config"] = copy.deepcopy(manifest)
    doc["run"]["id"] = run_id
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc))
    return path


def section(out: str, title: str) -> list[str]:
    """The lines of the section titled ``title`` in ``out``, up to the next blank line."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


def test_the_schema_takes_a_manifest_of_text_numbers_and_booleans_and_nothing_else(tmp_path):
    doc = json.loads(board_run(tmp_path, "dev", DEV, "1" * 16).read_text())
    assert result.from_doc(doc, "dev").doc["system"]["os_config"] == DEV
    for bad in ({"tick_hz": 1.5}, {"heap": None}, {"Heap": "heap_4"}, {"trace": ["switches"]}):
        broken = copy.deepcopy(doc)
        broken["system"]["os_config"] = bad
        with pytest.raises(RtscopeError, match=r"^broken: invalid result at \$\.system\.os_config"):
            result.from_doc(broken, "broken")


def test_show_prints_the_manifest_of_an_rtos_run_and_nothing_for_a_run_without_one(rtscope, tmp_path):
    outcome = rtscope("show", board_run(tmp_path, "dev", DEV, "1" * 16))
    assert outcome.status == 0, outcome.err
    lines = section(outcome.out, "OS configuration")
    assert lines[0] == "OS configuration: as the image was built"
    rows = {line.split()[0]: " ".join(line.split()[1:]) for line in lines[1:]}
    assert rows == {
        "kernel": "FreeRTOS",
        "kernel_version": "V11.1.0+",
        "config": "dev",
        "tick_hz": "1000",
        "preemption": "yes",
        "time_slicing": "no",
        "assertions": "yes",
        "stack_check": "method 1",
        "heap": "heap_4",
        "priorities": "102",
        "cflags": "-O2 -g -mcpu=cortex-m3",
    }
    assert "OS configuration" not in rtscope("show", board_run(tmp_path, "none", None, "2" * 16)).out


def test_compare_lists_only_the_settings_that_differ(rtscope, tmp_path):
    dev, bench = board_run(tmp_path, "dev", DEV, "1" * 16), board_run(tmp_path, "bench", BENCH, "2" * 16)
    outcome = rtscope("compare", dev, bench)
    assert outcome.status == 0, outcome.err
    lines = section(outcome.out, "OS configuration")
    assert lines[0] == "OS configuration: where the runs' builds differ"
    assert [line.split() for line in lines[1:]] == [
        ["setting", "A", "B"],
        ["config", "dev", "bench"],
        ["assertions", "yes", "no"],
        ["stack_check", "method", "1", "off"],
        ["priorities", "102", "32"],
    ]
    markdown = rtscope("compare", dev, bench, "--format", "markdown").out
    assert "## OS configuration: where the runs' builds differ" in markdown
    assert "| stack_check | method 1 | off |" in markdown


def test_compare_says_nothing_of_builds_that_agree_or_of_runs_without_a_manifest(rtscope, tmp_path):
    twins = rtscope("compare", board_run(tmp_path, "a", DEV, "1" * 16), board_run(tmp_path, "b", DEV, "2" * 16))
    linux = rtscope("compare", board_run(tmp_path, "c", None, "3" * 16), board_run(tmp_path, "d", None, "4" * 16))
    # An RTOS run beside a run without a manifest: nothing to set it against.
    one = rtscope("compare", board_run(tmp_path, "e", DEV, "5" * 16), board_run(tmp_path, "f", None, "6" * 16))
    for outcome in (twins, linux, one):
        assert outcome.status == 0, outcome.err
        assert "OS configuration" not in outcome.out


def test_a_setting_one_build_lacks_and_runs_of_one_group_that_differ_are_shown_as_such():
    def doc(manifest: dict[str, Any]) -> dict[str, Any]:
        return {"system": {"os_config": manifest}}

    groups = [
        Group("A", "dev", (doc(DEV), doc(dict(DEV, tick_hz=100)))),
        Group("B", "bench", (doc({k: v for k, v in BENCH.items() if k != "heap"}),)),
    ]
    differences = os_config.differences(groups)
    assert differences is not None
    rows = {row[0].text: [cell.text for cell in row[1:]] for row in differences.parts[0].rows}
    assert rows["tick_hz"] == ["100/1000", "1000"]
    assert rows["heap"] == ["heap_4", "—"]


def test_the_report_shows_each_runs_manifest_and_where_they_differ(rtscope, tmp_path):
    output = tmp_path / "report.html"
    dev, bench = board_run(tmp_path, "dev", DEV, "1" * 16), board_run(tmp_path, "bench", BENCH, "2" * 16)
    outcome = rtscope("report", dev, bench, "-o", output)
    assert outcome.status == 0, outcome.err
    page = output.read_text()
    assert page.count("OS configuration") >= 3  # where they differ, and each run's
    assert "where the runs&#x27; builds differ" in page or "where the runs' builds differ" in page
