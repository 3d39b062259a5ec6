"""A monitor's windows as KCIDB (rtscope export --monitor M --format kcidb): a test per figure per window with
the window's start and the board as its environment, one build per run of windows on one kernel, and each
change point as an issue present in its first window's build and test — valid against KernelCI's schema."""

import json

import kcidb_io
import pytest

from rtscope.model import result
from rtscope.store.database import Store
from support import builders
from test_alerts import MONITOR, STEP_AT, history, run_id
from test_cli_errors import assert_one_line_error

WINDOWS = STEP_AT + 9


@pytest.fixture
def lab(db_path):
    """Board rpi4 steps 1.5 times at window STEP_AT with a new kernel; board bbb stays as it was."""
    with Store.open(db_path, create=True) as store:
        history(store, WINDOWS, board="rpi4")
        history(store, WINDOWS, board="bbb", step_at=10_000)
    return db_path


def kcidb(rtscope, *args):
    outcome = rtscope("export", *args, "--format", "kcidb")
    assert outcome.status == 0, outcome.err
    data = json.loads(outcome.out)
    kcidb_io.schema.V5_3.validate_exactly(data)
    return data


def test_windows_are_tests_on_their_kernels_builds_with_the_board_as_environment(rtscope, lab):
    data = kcidb(rtscope, "--monitor", "lab")
    rpi4_first, rpi4_new, bbb_first = (
        f"rtscope:{run_id(b, n)}" for b, n in (("rpi4", 1), ("rpi4", STEP_AT), ("bbb", 1))
    )
    assert [build["id"] for build in data["builds"]] == [rpi4_first, bbb_first, rpi4_new]
    assert [c["misc"]["kernel_release"] for c in data["checkouts"]] == ["6.1.0-rt", "6.1.0-rt", "6.1.0"]
    tests = data["tests"]
    assert len(tests) == 2 * WINDOWS * 3  # p50, p99 and max of lat.wakeup, per window
    assert len({test["id"] for test in tests}) == len(tests)
    window_30 = [test for test in tests if test["environment"]["misc"]["run"] == run_id("rpi4", STEP_AT)]
    assert [test["path"] for test in window_30] == [f"rtscope.lat.wakeup.{stat}" for stat in ("p50", "p99", "max")]
    for test in window_30:
        assert test["build_id"] == rpi4_new and test["start_time"] == "2026-11-01T02:30:00.000Z"
        assert test["number"]["unit"] == "ns" and test["number"]["value"] > 0 and test["status"] == "DONE"
        environment = test["environment"]
        assert environment["comment"].startswith("board rpi4 (fixture-host: Test CPU 3000 × 4")
        assert {key: environment["misc"][key] for key in ("board", "monitor", "monitor_id", "window", "windows")} == {
            "board": "rpi4", "monitor": "lab", "monitor_id": MONITOR, "window": STEP_AT, "windows": 1,
        }  # fmt: skip
    before = next(t for t in tests if t["environment"]["misc"]["run"] == run_id("rpi4", STEP_AT - 1))
    assert before["build_id"] == rpi4_first


def test_a_change_point_is_an_issue_present_in_its_first_windows_build_and_test(rtscope, lab):
    data = kcidb(rtscope, "--monitor", "lab")
    first = run_id("rpi4", STEP_AT)
    stats = [issue["misc"]["stat"] for issue in data["issues"]]
    assert "p99" in stats and len(stats) == len(set(stats))
    assert all(issue["misc"]["board"] == "rpi4" for issue in data["issues"])  # bbb did not change
    issue = data["issues"][stats.index("p99")]
    assert issue["id"] == f"rtscope:{MONITOR}:rpi4:lat.wakeup:p99:{first}"
    assert issue["culprit"] == {"code": True, "tool": False, "harness": False}  # the kernel changed
    assert issue["comment"].startswith("rpi4: lat.wakeup p99 worse +")
    assert issue["comment"].endswith(f"from run {first} on; kernel 6.1.0-rt → 6.1.0")
    assert issue["misc"]["first_after"]["id"] == first and issue["misc"]["changed"] == ["kernel 6.1.0-rt → 6.1.0"]
    [incident] = [i for i in data["incidents"] if i["issue_id"] == issue["id"]]
    assert incident["build_id"] == f"rtscope:{first}" and incident["present"] is True
    assert incident["test_id"] == f"rtscope:{first}:rtscope.lat.wakeup.p99"
    assert incident["test_id"] in {test["id"] for test in data["tests"]}


def test_one_board_its_metrics_and_a_since(rtscope, lab):
    calm = kcidb(rtscope, "--monitor", "a0000", "--board", "bbb")
    assert calm["issues"] == calm["incidents"] == [] and len(calm["builds"]) == 1
    assert {test["environment"]["misc"]["board"] for test in calm["tests"]} == {"bbb"}
    late = kcidb(rtscope, "--monitor", "lab", "--board", "rpi4", "--since", "2026-11-01T02:30")
    assert [build["id"] for build in late["builds"]] == [f"rtscope:{run_id('rpi4', STEP_AT)}"]
    assert late["issues"] == []  # nothing before the step to step from
    assert len(late["tests"]) == (WINDOWS - STEP_AT + 1) * 3


def test_one_window_exported_alone_names_its_board(rtscope, lab):
    data = kcidb(rtscope, run_id("rpi4", 3))
    assert {test["environment"]["misc"]["board"] for test in data["tests"]} == {"rpi4"}
    assert "issues" not in data


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["export", "last", "--monitor", "lab", "--format", "kcidb"], "name a RUN or, for --format kcidb, a --monitor"),
        (["export", "--format", "kcidb"], "name a RUN or, for --format kcidb, a --monitor (one of them)"),
        (["export", "--monitor", "lab", "--format", "csv"], "--monitor does not apply to --format csv (only to kcidb)"),
        (["export", "last", "--board", "rpi4", "--format", "kcidb"], "--board applies to a --monitor's windows only"),
        (["export", "--monitor", "nosuch", "--format", "kcidb"], "no stored monitor is named or has an id starting"),
        (["export", "--monitor", "lab", "--board", "x", "--format", "kcidb"], "has no stored window of board x"),
    ],
)
def test_bad_input_is_one_line(rtscope, lab, args, message):
    assert_one_line_error(rtscope(*args), message)


def test_a_campaigns_runs_are_not_a_monitors_windows(rtscope, db_path):
    measured = [{**builders.metric("lat.wakeup", 20_000.0), "labels": {}}]
    with Store.open(db_path, create=True) as store:
        store.add(result.from_doc(builders.campaign_run(3, {"load": "idle"}, measured, name="study"), "test"))
    assert_one_line_error(
        rtscope("export", "--monitor", "study", "--format", "kcidb"), "study is a campaign, not a monitor"
    )
