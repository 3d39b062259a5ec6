"""Loading and validating result documents."""

import json
from pathlib import Path

import pytest

from conftest import FIXTURES, GOLDEN
from rtscope.errors import RtscopeError
from rtscope.model import result, units
from rtscope.paths import schema_path
from support import builders


def test_a_built_document_is_valid_and_keeps_its_text(tmp_path):
    path = builders.write(tmp_path / "run.json", builders.result_doc())
    loaded = result.load(path)
    assert loaded.run_id == "0123456789abcdef"
    assert loaded.text == path.read_text()


NO_GOLDEN = pytest.param(None, marks=pytest.mark.skip(reason="no golden files"))


@pytest.mark.parametrize("path", GOLDEN or [NO_GOLDEN], ids=lambda path: getattr(path, "name", "none"))
def test_golden_files_are_valid(path):
    assert result.load(path).doc["format"] == "rtscope-result"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("not-json.json", "is not valid JSON (line"),
        ("foreign.json", 'is not an rtscope result (format is "hyperfine-export")'),
        ("version7.json", "result format version 7 is not supported (this rtscope reads 1, 2, 3 and 4)"),
    ],
)
def test_bad_files_get_one_line_messages(name, message):
    with pytest.raises(RtscopeError, match=r".*") as raised:
        result.load(FIXTURES / name)
    assert str(raised.value).startswith(str(FIXTURES / name))
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_schema_violation_names_the_json_path():
    doc = builders.result_doc()
    doc["metrics"][1]["stats"]["count"] = -1
    with pytest.raises(RtscopeError, match=r"x\.json: invalid result at \$\.metrics\[1\]\.stats\.count: -1"):
        result.validate(doc, "x.json")


def test_a_json_array_is_not_a_result():
    with pytest.raises(RtscopeError, match='not an rtscope result \\(no "format" field\\)'):
        result.parse("[1, 2]", "list.json")


def test_nan_is_not_json():
    text = json.dumps(builders.result_doc()).replace('"mean": 3360.0', '"mean": NaN', 1)
    with pytest.raises(RtscopeError, match="NaN is not a JSON number"):
        result.parse(text, "nan.json")


def test_a_period_length_stands_beside_each_period():
    """period_lengths_s (format 4, since 2026-11-28) holds one measured length per period; a document of
    before, without it, reads as before."""
    doc = json.loads((Path(__file__).parent / "golden" / "result-v4-threadx.json").read_text(encoding="utf-8"))
    basic = next(m for m in doc["metrics"] if m["id"] == "tm.basic")
    assert "period_lengths_s" not in basic
    result.validate(doc, "before.json")
    basic["period_lengths_s"] = [0.101] * len(basic["periods"])
    result.validate(doc, "lengths.json")
    basic["period_lengths_s"] = [0.101] * (len(basic["periods"]) + 1)
    with pytest.raises(RtscopeError, match=rf"{len(basic['periods']) + 1} period lengths for {len(basic['periods'])} "):
        result.validate(doc, "long.json")
    basic["period_lengths_s"] = [0.0] * len(basic["periods"])
    with pytest.raises(RtscopeError, match="period_lengths_s"):
        result.validate(doc, "zero.json")


def test_a_metric_may_appear_only_once():
    doc = builders.result_doc()
    doc["metrics"].append(doc["metrics"][0])
    with pytest.raises(RtscopeError, match="metric ctxsw.sem appears twice"):
        result.validate(doc, "twice.json")


def test_missing_and_unreadable_files(tmp_path):
    with pytest.raises(RtscopeError, match="no such file"):
        result.load(tmp_path / "missing.json")
    with pytest.raises(RtscopeError, match="cannot read"):
        result.load(tmp_path)


def test_metric_lookup_and_summaries():
    doc = builders.result_doc()
    found = result.metric(doc, "lat.wakeup")
    assert found["id"] == "lat.wakeup"
    assert result.metric(doc, "no.such") is None
    assert result.summary(found)["p50"] == result.summary(found, adjusted=False)["p50"] - builders.OVERHEAD_NS


def test_the_units_registry_and_the_schema_agree():
    schema = json.loads(schema_path(result.VERSION).read_text(encoding="utf-8"))
    assert schema["$defs"]["metric"]["properties"]["unit"]["enum"] == list(units.DOCUMENT_UNITS)
    assert all(name in units.UNITS for name in units.DOCUMENT_UNITS)


def test_an_analyzer_tag_is_validated_alone_and_gives_what_the_whole_document_would():
    window = builders.monitor_window("0000000000000001", "rpi4", 3)
    tag = window.pop("monitor")
    untagged = result.from_doc(window, "test")
    made = result.tagged(untagged, "monitor", tag, "the window")
    assert made.text == result.from_doc({**window, "monitor": tag}, "test").text
    with pytest.raises(RtscopeError, match=r"^the window: invalid result at \$\.monitor\.window: 0 is less than"):
        result.tagged(untagged, "monitor", {**tag, "window": 0}, "the window")
    with pytest.raises(RtscopeError, match=r"^the window: invalid result at \$\.monitor: 'windows' is a required"):
        result.tagged(untagged, "monitor", {k: v for k, v in tag.items() if k != "windows"}, "the window")
    # Format 3 knows campaigns, not monitors.
    older = result.from_doc(builders.result_doc(), "test")
    with pytest.raises(RtscopeError, match=r"^a run: result format version 3 has no 'monitor'$"):
        result.tagged(older, "monitor", tag, "a run")
