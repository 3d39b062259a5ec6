"""Command-line argument types."""

import argparse

import pytest

from rtscope.model import values
from rtscope.model.values import ParamSetting


@pytest.mark.parametrize(("text", "seconds"), [("5", 5.0), ("0.3", 0.3), ("10s", 10.0), ("500ms", 0.5), ("2m", 120.0)])
def test_duration_accepts_seconds_and_units(text, seconds):
    assert values.duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["-1", "0", "abc", "5h", ""])
def test_duration_rejects_nonsense_and_non_positive(text):
    with pytest.raises(argparse.ArgumentTypeError):
        values.duration(text)


def test_cpu_list_expands_ranges_sorted_without_repeats():
    assert values.cpu_list("3,0-2,1") == (0, 1, 2, 3)


@pytest.mark.parametrize("text", ["", "a", "3-1", "0-", "0-99999999"])
def test_cpu_list_rejects_bad_lists(text):
    with pytest.raises(argparse.ArgumentTypeError):
        values.cpu_list(text)


def test_param_setting_with_and_without_bench():
    assert values.param_setting("cpu=1") == ParamSetting(None, "cpu", "1")
    assert values.param_setting("lat.wakeup:interval_us=250") == ParamSetting("lat.wakeup", "interval_us", "250")


@pytest.mark.parametrize("text", ["cpu", "=1", "Bad.Bench:cpu=1", "lat.wakeup:=1"])
def test_param_setting_rejects_bad_syntax(text):
    with pytest.raises(argparse.ArgumentTypeError):
        values.param_setting(text)


def test_statistics_accept_both_spellings_of_percentiles():
    assert values.statistics("p50,p99.9,p999,max") == ("p50", "p999", "max")


def test_statistics_reject_unknown_names():
    with pytest.raises(argparse.ArgumentTypeError, match="p42"):
        values.statistics("p50,p42")


@pytest.mark.parametrize(
    ("convert", "text"),
    [(values.priority, "100"), (values.priority, "x"), (values.positive, "0"), (values.non_negative, "-1")],
)
def test_integers_out_of_range(convert, text):
    with pytest.raises(argparse.ArgumentTypeError):
        convert(text)
