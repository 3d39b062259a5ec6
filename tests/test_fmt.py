"""Number, duration and table formatting."""

import io

import pytest

from rtscope.render import fmt


@pytest.mark.parametrize(
    ("ns", "text"),
    [
        (0, "0 ns"),
        (0.5, "0.5 ns"),
        (20, "20 ns"),
        (24.14, "24.1 ns"),
        (845, "845 ns"),
        (999.7, "1.00 µs"),
        (12_345, "12.3 µs"),
        (999_999, "1.00 ms"),
        (4_561_000, "4.56 ms"),
        (1_234_000_000, "1.23 s"),
        (None, "—"),
    ],
)
def test_duration_picks_the_unit_and_three_significant_digits(ns, text):
    assert fmt.duration(ns) == text


def test_seconds_are_durations_too():
    assert fmt.seconds(0.3) == "300 ms"


@pytest.mark.parametrize(("value", "text"), [(1.0, "1.00×"), (1.234, "1.23×"), (12.34, "12.3×"), (None, "—")])
def test_ratio(value, text):
    assert fmt.ratio(value) == text


def test_count_has_thousands_separators():
    assert fmt.count(1_234_567) == "1,234,567"
    assert fmt.count(None) == "—"


def test_table_pads_columns_and_right_aligns_numbers():
    lines = fmt.table(["name", "value"], [["a", "1"], ["longer", "1,000"]], "lr")
    assert lines == ["name    value", "a           1", "longer  1,000"]


def test_table_ignores_colour_codes_when_aligning():
    style = fmt.Style(enabled=True)
    lines = fmt.table(["x", "y"], [[style.bad("ab"), "1"], ["abc", "2"]], "lr")
    assert [fmt.visible_width(line) for line in lines] == [6, 6, 6]


def test_table_rejects_rows_of_the_wrong_width():
    with pytest.raises(ValueError):
        fmt.table(["a", "b"], [["only one"]], "ll")


def test_style_adds_no_codes_when_disabled():
    assert fmt.Style(enabled=False).warn("text") == "text"
    assert fmt.Style.for_stream(io.StringIO()).enabled is False


def test_local_time_drops_seconds_unless_asked():
    assert len(fmt.local_time("2024-05-01T10:00:00.5Z")) == len("2024-05-01 10:00")
    assert fmt.local_time("2024-05-01T10:00:07Z", with_seconds=True).endswith(":07")
