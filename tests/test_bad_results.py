"""A result file of any shape gets one line and a non-zero exit from every command that reads results:
nested without end, huge, truncated, binary, empty, a directory, JSON of the wrong shape."""

import json

import pytest

from conftest import FIXTURES
from support import builders

DEPTH = 100_000


def _files(tmp_path):
    doc = builders.result_doc()
    good = builders.write(tmp_path / "good.json", doc)
    text = json.dumps(doc)
    shapes = {
        "nested": "[" * DEPTH + "]" * DEPTH,
        "nested-inside": text.replace('"same_cpu": true', '"same_cpu": ' + "[" * 900 + "]" * 900, 1),
        "nested-deeper": text.replace('"same_cpu": true', '"same_cpu": ' + "[" * 5000 + "]" * 5000, 1),
        "truncated": text[: len(text) // 2],
        "binary": bytes(range(256)) * 64,
        "empty": "",
        "a-list": "[1, 2, 3]",
        "a-number": "42",
        "wrong-buckets": text.replace('"buckets": [[3200, 16, 40000]]', '"buckets": [[3200, "16", 40000]]', 1),
        "nan": text.replace('"overhead_ns": 20.0', '"overhead_ns": NaN', 1),
    }
    assert all(shapes[name] != text for name in ("nested-inside", "wrong-buckets", "nan"))
    paths = {}
    for name, content in shapes.items():
        path = tmp_path / f"{name}.json"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        paths[name] = path
    directory = tmp_path / "a-directory.json"
    directory.mkdir()
    paths["a-directory"] = directory
    return good, paths


COMMANDS = {
    "show": lambda bad, good, tmp: ("show", bad),
    "compare": lambda bad, good, tmp: ("compare", good, bad),
    "report": lambda bad, good, tmp: ("report", good, bad, "-o", tmp / "report.html"),
    "score": lambda bad, good, tmp: ("score", bad, "--profile", FIXTURES / "golden-profile.toml"),
    "export": lambda bad, good, tmp: ("export", bad, "--format", "csv"),
    "check": lambda bad, good, tmp: ("check", bad, "--baseline", good),
}


@pytest.mark.parametrize("command", COMMANDS)
def test_every_shape_is_one_line_from_every_reader(rtscope, tmp_path, command):
    good, paths = _files(tmp_path)
    for name, bad in paths.items():
        outcome = rtscope(*COMMANDS[command](bad, good, tmp_path))
        assert outcome.status == 2, f"{command} {name}: {outcome}"
        assert outcome.err.count("\n") == 1 and outcome.err.startswith("rtscope: "), f"{command} {name}: {outcome.err}"
        assert str(bad) in outcome.err, f"{command} {name}: {outcome.err}"
    assert not (tmp_path / "report.html").exists()


def test_a_huge_file_is_refused_before_it_is_read(rtscope, tmp_path, monkeypatch):
    from rtscope.model import result

    good, _ = _files(tmp_path)
    monkeypatch.setattr(result, "MAX_FILE_BYTES", 1000)
    outcome = rtscope("show", good)
    assert outcome.status == 2 and "larger than any result" in outcome.err


def test_the_good_file_is_read(rtscope, tmp_path):
    good, _ = _files(tmp_path)
    assert rtscope("show", good).status == 0
    assert json.loads(good.read_text())["version"] == 3
