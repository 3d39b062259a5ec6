"""The bench catalogue: suites expand to their benches; parameters convert and check what the user gives."""

import json

import pytest

from rtscope.model.catalogue import Suite, expand_suites, parse_bench_list

SUITES = [Suite("quick", "", ("ctxsw.sem", "lat.wakeup")), Suite("more", "", ("lat.wakeup", "clock.read"))]


def test_suites_expand_in_order_and_bring_each_bench_once():
    assert expand_suites(("quick", "ctxsw.sem", "more"), SUITES) == ("ctxsw.sem", "lat.wakeup", "clock.read")


def test_a_bench_named_twice_by_itself_stays_twice_to_be_refused():
    assert expand_suites(("clock.read", "clock.read"), SUITES) == ("clock.read", "clock.read")


LISTING = json.dumps({"format": "rtscope-bench-list", "version": 1, "benches": [{
    "id": "wave.import", "summary": "", "metrics": ["wave.period"], "params": [
        {"name": "format", "type": "string", "default": "auto", "min": None, "max": None,
         "choices": ["auto", "csv", "vcd"], "description": "how the capture is written"},
        {"name": "file", "type": "string", "default": "", "description": "the capture"},
        {"name": "period_us", "type": "float", "default": "1000", "min": 1, "max": 1e6, "description": ""}]}]})


def test_a_listed_text_parameter_keeps_its_choices_and_checks_them():
    [bench], _ = parse_bench_list(LISTING, "probe")
    fmt = bench.param("format")
    assert fmt.choices == ("auto", "csv", "vcd") and fmt.range_text() == "auto|csv|vcd"
    assert fmt.convert("vcd") == "vcd"
    with pytest.raises(ValueError, match=r"^format expects one of auto, csv, vcd, not 'xml'$"):
        fmt.convert("xml")


def test_free_text_and_numbers_are_converted_as_before():
    [bench], _ = parse_bench_list(LISTING, "probe")
    assert bench.param("file").convert("a b.csv") == "a b.csv" and bench.param("file").range_text() == ""
    assert bench.param("period_us").convert("2.5") == 2.5 and bench.param("period_us").choices == ()
    with pytest.raises(ValueError, match="at most 1000000"):
        bench.param("period_us").convert("2e6")
