"""Bad input, run as a separate process: exit status 2, one line on stderr, never a traceback."""

import sqlite3

import pytest

from conftest import FIXTURES
from rtscope.targets import registry
from support import builders


def assert_one_line_error(outcome, message):
    assert outcome.status == 2, outcome
    assert outcome.err.count("\n") == 1 and outcome.err.startswith("rtscope: "), outcome.err
    assert message in outcome.err
    assert "Traceback" not in outcome.err + outcome.out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", FIXTURES / "not-json.json"], "not-json.json is not valid JSON (line 4 column 1"),
        (["show", FIXTURES / "foreign.json"], 'is not an rtscope result (format is "hyperfine-export")'),
        (
            ["show", FIXTURES / "version7.json"],
            "result format version 7 is not supported (this rtscope reads 1, 2, 3 and 4)",
        ),
        (["show", "missing.json"], "missing.json: no such file"),
        (["runs"], "no results database at"),
        (["show", "last"], "no results database at"),
        (["compare", "last", "abcd"], "no results database at"),
        (["run", "--duration", "soon"], "bad duration 'soon'"),
        (["run", "--series-window", "0"], "--series-window: duration must be more than zero, not '0'"),
        (["run", "--series-window", "-1"], "--series-window: duration must be more than zero, not '-1'"),
        (["run", "--series-window", "x"], "--series-window: bad duration 'x'"),
        (["run", "--series-window", "0.5ms"], "--series-window: a series window is at least 1 ms, not '0.5ms'"),
        (["run", "--series-window", "10"], "--series-window 10 s is longer than the run (--duration 5 s)"),
        (["run", "--duration", "2", "--series-window", "3s"], "--series-window 3 s is longer than the run (--duration"),
        (["frobnicate"], "unknown command 'frobnicate' (commands: list, run,"),
        ([], "the following arguments are required: COMMAND"),
        (
            ["--target", "mars", "list"],
            f"unknown target 'mars' (one of: {', '.join(registry.usages())})",
        ),
        (["--probe", "/nonexistent/rtscope-probe", "list"], "probe not built at /nonexistent/rtscope-probe"),
    ],
)
def test_bad_input(rtscope_process, args, message):
    assert_one_line_error(rtscope_process(*args), message)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "nope"], "unknown bench or suite 'nope' (rtscope list shows them)"),
        (["run", "--param", "cpu:1"], "bad parameter 'cpu:1'"),
        (["run", "--json", "/nonexistent/dir/out.json"], "cannot write /nonexistent/dir/out.json"),
    ],
)
def test_bad_run_requests(rtscope_process, recorded_dir, db_path, args, message):
    assert_one_line_error(rtscope_process("--target", f"fake:{recorded_dir}", *args), message)
    assert not db_path.exists()


def test_a_load_on_a_board_that_runs_none_is_refused_before_anything_starts(rtscope, db_path, tmp_path, monkeypatch):
    # Without a kernel the board's image cannot be built: the load's refusal comes before anything is.
    monkeypatch.setenv("FREERTOS_KERNEL", str(tmp_path / "nowhere"))
    outcome = rtscope("--target", "qemu:mps2-an385:freertos", "run", "heap.ops", "--load", "cpu")
    assert_one_line_error(outcome, "--load cpu: qemu:mps2-an385:freertos cannot run loads: it runs only the probe's")
    assert not db_path.exists()


def test_a_schema_violation_names_the_path(rtscope_process, tmp_path):
    doc = builders.result_doc()
    doc["config"]["granted"]["policy"] = "deadline"
    path = builders.write(tmp_path / "odd.json", doc)
    assert_one_line_error(rtscope_process("show", path), "invalid result at $.config.granted.policy: 'deadline'")


@pytest.mark.parametrize("command", [["runs"], ["show", "last"], ["run", "ctxsw.sem"]])
def test_a_file_that_is_not_a_database_is_left_unchanged(rtscope_process, recorded_dir, db_path, command):
    db_path.parent.mkdir()
    db_path.write_bytes(b"precious notes, not a database\n")
    outcome = rtscope_process("--target", f"fake:{recorded_dir}", *command)
    assert_one_line_error(outcome, "is not an rtscope results database")
    assert db_path.read_bytes() == b"precious notes, not a database\n"
    assert sorted(p.name for p in db_path.parent.iterdir()) == ["results.sqlite"]


def test_another_sqlite_database_is_left_unchanged(rtscope_process, db_path):
    db_path.parent.mkdir()
    with sqlite3.connect(db_path) as connection:
        connection.execute("CREATE TABLE accounts (name TEXT)")
    before = db_path.read_bytes()
    assert_one_line_error(rtscope_process("runs"), "is not an rtscope results database (no such table: meta)")
    assert db_path.read_bytes() == before


def test_version_and_help_exit_0(rtscope_process):
    assert rtscope_process("--version").out == "rtscope 1.0.0\n"
    assert rtscope_process("run", "--help").status == 0


@pytest.mark.usefixtures("probe")
def test_input_only_the_probe_can_reject_is_reported_once(rtscope_process):
    # rtscope cannot know a target's CPUs; the probe refuses them in its own single line.
    outcome = rtscope_process("run", "lat.wakeup", "--cpus", "4000", "--duration", "0.2")
    assert outcome.status == 2
    assert outcome.err.count("\n") == 1 and "CPU 4000 is not available" in outcome.err, outcome.err
    assert "Traceback" not in outcome.err
