"""Targets: the fake one that replays recordings, and the local one that runs a probe binary
(here a stub standing in for the probe, to reach every way a probe can end)."""

import dataclasses
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import REPO, process_env
from rtscope import cli
from rtscope.errors import ProbeError, RtscopeError
from rtscope.execution.parallel import Slot, slots
from rtscope.model.request import RunRequest
from rtscope.model.values import ParamSetting
from rtscope.targets import TargetOptions, make_target, registry
from rtscope.targets.fake import FakeTarget
from rtscope.targets.local import LocalTarget
from rtscope.targets.mcu.gdb_board import GdbBoardTarget
from rtscope.targets.mcu.qemu_board import QemuBoardTarget
from rtscope.targets.mcu.serial_board import SerialBoardTarget
from rtscope.targets.qemu import debian
from rtscope.targets.qemu.debian import QemuTarget
from rtscope.targets.remote.labgrid_places import PlaceTarget
from rtscope.targets.remote.ssh import SshTarget
from support import builders

REQUEST = RunRequest(benches=("ctxsw.sem",), duration_s=0.5, policy="fifo", priority=80)

BENCH_LIST = {
    "format": "rtscope-bench-list",
    "version": 1,
    "port": "posix",
    "benches": [
        {
            "id": "ctxsw.sem",
            "summary": "context switch",
            "metrics": ["ctxsw.sem"],
            "params": [{"name": "cpu", "type": "int", "default": "-1", "min": -1, "max": 255, "description": "CPU"}],
        }
    ],
}

# Acts out what the STUB_* variables say: prints, writes a result, exits or dies by a signal.
STUB = """\
#!{python}
import os, sys
args = sys.argv[1:]
if os.environ.get("STUB_ARGV"):
    open(os.environ["STUB_ARGV"], "w").write("\\n".join(args))
sys.stderr.write(os.environ.get("STUB_STDERR", ""))
if args[0] == "list":
    sys.stdout.write(os.environ["STUB_LIST"])
elif os.environ.get("STUB_RESULT"):
    assert args[args.index("--json") + 1] == "-"  # the result on stdout
    sys.stdout.write(open(os.environ["STUB_RESULT"]).read())
if os.environ.get("STUB_SIGNAL"):
    os.kill(os.getpid(), int(os.environ["STUB_SIGNAL"]))
sys.exit(int(os.environ.get("STUB_EXIT", "0")))
"""


@pytest.fixture
def stub(tmp_path, monkeypatch):
    path = tmp_path / "stub-probe"
    path.write_text(textwrap.dedent(STUB.format(python=sys.executable)))
    path.chmod(0o755)
    monkeypatch.setenv("STUB_LIST", json.dumps(BENCH_LIST))
    return LocalTarget(path)


def test_request_becomes_probe_arguments():
    request = RunRequest(
        benches=("ctxsw.sem", "lat.wakeup"),
        duration_s=0.3,
        policy="rr",
        priority=50,
        cpus=(0, 2),
        params=(ParamSetting("lat.wakeup", "cpu", "1"),),
        label="x",
        raw=10,
        mlock=False,
        cpu_latency=False,
        rt_throttling_off=True,
        refuse_privilege=True,
        series_window_s=0.25,
        quiet=True,
    )
    assert request.probe_args() == [
        "ctxsw.sem",
        "lat.wakeup",
        "--duration",
        "0.3",
        "--policy",
        "rr",
        "--priority",
        "50",
        "--cpus",
        "0,2",
        "--param",
        "lat.wakeup:cpu=1",
        "--label",
        "x",
        "--raw",
        "10",
        "--no-mlock",
        "--no-cpu-latency",
        "--rt-throttling",
        "off",
        "--refuse-privilege",
        "--series-window",
        "0.25",
        "--quiet",
    ]


def test_local_run_relays_stderr_and_reads_the_result(stub, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("STUB_RESULT", str(builders.write(tmp_path / "r.json", builders.result_doc())))
    monkeypatch.setenv("STUB_STDERR", "warning: no RT\nctxsw.sem  0.2 / 0.5 s\r")
    monkeypatch.setenv("STUB_ARGV", str(tmp_path / "argv"))
    run = stub.run(REQUEST)
    assert run.run_id == "0123456789abcdef"
    assert capsys.readouterr().err == "warning: no RT\nctxsw.sem  0.2 / 0.5 s\r"
    argv = (tmp_path / "argv").read_text().split("\n")
    assert argv[:3] == ["run", "ctxsw.sem", "--duration"] and "--json" in argv


def test_local_run_bad_input_gives_the_probes_message(stub, monkeypatch):
    monkeypatch.setenv("STUB_STDERR", "progress\nrtscope-probe: unknown bench 'x'\n")
    monkeypatch.setenv("STUB_EXIT", "2")
    with pytest.raises(RtscopeError, match="^rtscope-probe: unknown bench 'x'$"):
        stub.run(REQUEST)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"STUB_SIGNAL": str(int(signal.SIGSEGV))}, "the probe was killed by SIGSEGV"),
        ({"STUB_EXIT": "1"}, "exited with status 1 without writing a result"),
        ({"STUB_EXIT": "3", "STUB_STDERR": "oops\n"}, "exited with status 3: oops"),
    ],
    ids=["crash", "no-result", "odd-status"],
)
def test_local_run_probe_failures(stub, monkeypatch, settings, message):
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ProbeError, match=message):
        stub.run(REQUEST)


def test_local_run_invalid_result_is_a_probe_failure(stub, tmp_path, monkeypatch):
    (tmp_path / "bad.json").write_text("{")
    monkeypatch.setenv("STUB_RESULT", str(tmp_path / "bad.json"))
    with pytest.raises(ProbeError, match="the probe's result is not valid JSON"):
        stub.run(REQUEST)


def test_local_run_interrupted_before_writing_anything(stub, monkeypatch):
    monkeypatch.setenv("STUB_EXIT", "130")
    with pytest.raises(KeyboardInterrupt):
        stub.run(REQUEST)


def test_local_list(stub):
    (bench,) = stub.catalogue.benches
    assert bench.id == "ctxsw.sem"
    assert bench.param("cpu").range_text() == "-1..255"


def test_local_list_rejects_a_bad_bench_list(stub, monkeypatch):
    bad_list = {"format": "rtscope-bench-list", "version": 1, "benches": [{}]}
    monkeypatch.setenv("STUB_LIST", json.dumps(bad_list))
    with pytest.raises(ProbeError, match="no valid bench list \\(missing field"):
        _ = stub.catalogue


def test_a_missing_probe(tmp_path):
    with pytest.raises(RtscopeError, match=f"probe not built at {tmp_path / 'nope'} \\(run make -C probe\\)"):
        LocalTarget(tmp_path / "nope").run(REQUEST)


def test_fake_lists_recorded_benches(recorded_dir):
    benches = FakeTarget(recorded_dir).catalogue.benches
    assert [b.id for b in benches] == ["ctxsw.sem", "lat.wakeup", "clock.read", "mutex.lock"]
    assert benches[0].param("cpu").type == "int"


def test_fake_replays_deterministically(recorded_dir):
    first = FakeTarget(recorded_dir).run(REQUEST)
    assert first.text == FakeTarget(recorded_dir).run(REQUEST).text
    relabelled = FakeTarget(recorded_dir).run(dataclasses.replace(REQUEST, label="other"))
    assert relabelled.run_id != first.run_id
    assert relabelled.doc["run"]["label"] == "other"


def test_fake_takes_each_bench_from_its_first_recording(recorded_dir):
    request = RunRequest(
        benches=("mutex.lock", "ctxsw.sem"),
        duration_s=2,
        policy="fifo",
        priority=80,
        params=(ParamSetting(None, "cpu", "3"),),
    )
    doc = FakeTarget(recorded_dir).run(request).doc
    assert [m["id"] for m in doc["metrics"]] == ["mutex.lock", "ctxsw.sem"]
    assert doc["system"]["hostname"] == "other-host"  # the recording of the first bench
    assert [b["params"]["cpu"] for b in doc["benches"]] == [3, 3]
    assert doc["run"]["status"] == "complete"


def test_fake_without_recordings(tmp_path):
    with pytest.raises(RtscopeError, match="holds no result files"):
        FakeTarget(tmp_path)
    with pytest.raises(RtscopeError, match="does not exist"):
        FakeTarget(tmp_path / "missing")


@pytest.mark.parametrize("spec", ["remote", "ssh:host"])
def test_unknown_targets(spec, tmp_path):
    with pytest.raises(RtscopeError, match="unknown target"):
        make_target(spec, tmp_path / "probe")


def test_fake_without_a_directory(tmp_path):
    with pytest.raises(RtscopeError, match=r"^--target fake:: no DIR \(expected fake:DIR\)$"):
        make_target("fake:", tmp_path / "probe")


def test_target_help_is_the_registrys():
    """--target's help names every kind by its usage (generated: it cannot drift from the registry)."""
    action = next(action for action in cli.build_parser()._actions if "--target" in action.option_strings)
    assert action.help == registry.help_text()
    # argparse wraps the help at spaces and hyphens: compare without the line breaks.
    squeezed = "".join(cli.build_parser().format_help().split())
    for kind in registry.KINDS:
        assert "".join(kind.usage.split()) in squeezed, kind.usage
    for scheme in ("labgrid-place:", "labgrid-tag:", "serial:", "gdb://", "threadx", "freertos"):
        assert scheme in registry.help_text()


# The regenerating command, run as a contributor runs it from a clone.
REGISTRY_ENV = {**os.environ, "PYTHONPATH": str(REPO / "src")}


def test_doc_table_of_kinds_is_the_registrys():
    """docs/targets.md's table is what the registry generates: the regenerating command says it is current."""
    doc = REPO / "docs" / "targets.md"
    checked = subprocess.run(
        [sys.executable, "-m", "rtscope.targets.registry", "--check", str(doc)],
        check=False,
        capture_output=True,
        text=True,
        env=REGISTRY_ENV,
    )
    assert checked.returncode == 0, checked.stderr
    assert "\n".join(registry.doc_table()) in doc.read_text(encoding="utf-8")


def test_a_stale_doc_table_is_found_and_rewritten(tmp_path):
    doc = tmp_path / "targets.md"
    doc.write_text(f"# Targets\n\n{registry.TABLE_START}\n| old |\n{registry.TABLE_END}\n\nmore\n", encoding="utf-8")
    command = [sys.executable, "-m", "rtscope.targets.registry"]
    stale = subprocess.run(
        [*command, "--check", str(doc)], check=False, capture_output=True, text=True, env=REGISTRY_ENV
    )
    assert stale.returncode == 1 and "stale" in stale.stderr
    assert subprocess.run([*command, str(doc)], check=False, capture_output=True, env=REGISTRY_ENV).returncode == 0
    assert doc.read_text(encoding="utf-8") == "# Targets\n\n" + "\n".join(registry.doc_table()) + "\n\nmore\n"
    assert subprocess.run([*command, "--check", str(doc)], check=False, env=REGISTRY_ENV).returncode == 0


def test_every_kind_names_its_options_in_its_usage():
    for kind in registry.KINDS:
        for option in kind.options:
            assert f"[:{option.usage}]" in kind.usage, (kind.usage, option.name)


@pytest.mark.parametrize(
    ("spec", "cls"),
    [
        ("local", LocalTarget),
        ("ssh://root@board:2222", SshTarget),
        ("qemu:aarch64:rt", QemuTarget),
        ("qemu:x86_64:stock:memory=512", QemuTarget),
        ("qemu:mps2-an385:freertos", QemuBoardTarget),
        ("qemu:mps2-an385:threadx:shift=5", QemuBoardTarget),
        ("labgrid-place:rpi", PlaceTarget),
        ("labgrid-tag:board=rpi4:count=2", PlaceTarget),
        ("serial:/dev/ttyACM0:baud=9600", SerialBoardTarget),
        ("gdb://localhost:3333:serial=tcp:localhost:4444", GdbBoardTarget),
    ],
)
def test_each_value_is_of_one_kind(spec, cls):
    """The lookup, and the one rule for qemu: (a board rtscope boots, else a Debian kernel's architecture)."""
    assert registry.kind_of(spec).cls is cls


def test_the_registrys_names_are_the_families_own():
    """The registry declares what a usage names; the families' tables behind those names hold the same ones."""
    assert tuple(debian.ARCHES) == registry.GUEST_ARCHES and tuple(debian.FLAVOURS) == registry.GUEST_FLAVOURS
    for kind in registry.KINDS:
        assert kind.cls.__module__ + "." + kind.cls.__name__ == kind.target


def test_the_command_line_starts_without_importing_a_family():
    """Every command builds --target's help from the registry: that imports no kind's module (their imports
    cost the CLI's start-up some 140 ms), which the kind's first target does."""
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            (
                "import sys; from rtscope import cli; cli.build_parser(); "
                "print(' '.join(name for name in sys.modules if name.startswith('rtscope.targets.')))"
            ),
        ],
        check=True,
        capture_output=True,
        text=True,
        env=REGISTRY_ENV,
    ).stdout.split()
    families = {"rtscope.targets.remote", "rtscope.targets.qemu", "rtscope.targets.mcu"}
    assert "rtscope.targets.registry" in loaded
    assert not [name for name in loaded if name.rpartition(".")[0] in families or name in families]
    assert "rtscope.targets.local" not in loaded and "rtscope.targets.fake" not in loaded


# One ill-formed value per kind that takes options, and the words every kind says it in.
@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("qemu:aarch64:rt:cpu=2", "no option 'cpu'; did you mean cpus?"),
        ("qemu:aarch64:rt:cpus=2:cpus=1", "cpus is given twice"),
        ("qemu:aarch64:rt:cpus=two", "cpus=two is not a whole number from 1 to 8"),
        ("qemu:aarch64:rt:time=hots", "time=hots is not one of icount, host; did you mean host?"),
        ("qemu:aarch64:rt:cpus", "'cpus' is not KEY=VALUE"),
        ("qemu:mps2-an385:freertos:shfit=3", "no option 'shfit'; did you mean shift?"),
        ("qemu:mps2-an385:freertos:shift=1:shift=2", "shift is given twice"),
        ("qemu:mps2-an385:freertos:shift=11", "shift=11 is not a whole number from 0 to 10"),
        ("serial:/dev/ttyX:baud=1:baud=2", "baud is given twice"),
        ("serial:/dev/ttyX:bad=1", "no option 'bad'; did you mean baud or board?"),
        ("serial:/dev/ttyX:baud=fast", "baud=fast is not a whole number from 1 up"),
        ("gdb://h:1:rtos=a:rtos=b:serial=/dev/ttyX", "rtos is given twice"),
        ("gdb://h:1:serial=/dev/ttyX:baud=1:baud=2", "baud is given twice"),
        ("gdb://h:1:rest=x:serial=/dev/ttyX", "no option 'rest'; did you mean reset?"),
        ("labgrid-tag:board=a:count=2:count=3", "count is given twice"),
        ("labgrid-tag:board=a:cont=2", "no option 'cont'; did you mean count?"),
        ("labgrid-tag:board=a,board=b", "board is given twice"),
        ("labgrid-tag:board=a:count=0", "count=0 is not a whole number from 1 up"),
    ],
)
def test_a_bad_option_is_one_line_in_the_same_words_for_every_kind(spec, said, rtscope):
    outcome = rtscope("--target", spec, "list")
    kind = registry.kind_of(spec)
    assert outcome.status == 2
    assert outcome.err == f"rtscope: --target {spec}: {said} (expected {kind.usage})\n"
    assert outcome.err.count("expected") == 1, "the usage says what is expected, once"


def test_an_unknown_target_names_every_kind_and_a_near_miss(rtscope):
    outcome = rtscope("--target", "shh://board", "list")
    assert outcome.status == 2
    assert outcome.err.startswith("rtscope: unknown target 'shh://board'; did you mean ssh://? (one of: local, ")
    for usage in registry.usages():
        assert usage in outcome.err


def test_target_options_travel_as_a_value_not_through_the_environment(monkeypatch):
    """--coordinator and --wait reach the labgrid target through the context; the environment only
    gives their defaults, read once, and is not written."""
    monkeypatch.setenv("LG_COORDINATOR", "lab:20408")
    monkeypatch.setenv("RTSCOPE_WAIT", "30")
    before = dict(os.environ)
    seen = []

    def run(args, context):
        seen.append(context.target("labgrid-place:rpi"))
        return 0

    monkeypatch.setattr("rtscope.commands.list.run", run)
    assert cli.main(["--coordinator", "other:1", "--target", "labgrid-place:rpi", "list"]) == 0
    assert cli.main(["--wait", "5", "list"]) == 0
    assert dict(os.environ) == before
    first, second = (target.place_transport.claim.given for target in seen)
    assert first == TargetOptions("other:1", 30.0)
    assert second == TargetOptions("lab:20408", 5.0)
    assert second.argv() == ["--coordinator", "lab:20408", "--wait", "5"]


def test_a_campaigns_slots_split_its_runs_every_nth():
    runs = [("cell", repetition) for repetition in range(1, 8)]
    taken = [Slot("labgrid-tag:board=a:count=3", index, 3).take(runs) for index in range(3)]
    assert set().union(*taken) == set(runs)
    assert sum(map(len, taken)) == len(runs)
    assert [slot.name for slot in slots(["local", "labgrid-tag:board=a:count=2"])] == [
        "local",
        "labgrid-tag:board=a:count=2 [1/2]",
        "labgrid-tag:board=a:count=2 [2/2]",
    ]


# rtscope's run of a stand-in probe (the script in argv[1]), as a process of its own: what worker.run
# returned, or "stopped" for the run stopped.
_RUN_THE_STAND_IN = (
    "from rtscope.targets import worker\n"
    "try:\n    print(worker.run(['sh', '-c', sys.argv[1]]))\nexcept KeyboardInterrupt:\n    print('stopped')\n"
)


@pytest.mark.parametrize("ends", ["killed", "writes"], ids=["before-its-handler", "after-writing"])
def test_a_probe_stopped_before_it_could_catch_the_stop_is_the_run_stopped(ends, tmp_path, db_path):
    # A stand-in probe: one that dies of SIGTERM as a process does before its handler is in place, or one
    # that catches it and writes its result, as the probe does once running. It says it runs by a file.
    started = tmp_path / "started"
    script = {
        "killed": f"touch {started}; exec sleep 60",
        "writes": f"trap 'kill $!; echo {{}}; exit 143' TERM; touch {started}; sleep 60 & wait",
    }[ends]
    caller = f"import sys\n{_RUN_THE_STAND_IN}"
    rtscope = subprocess.Popen(
        [sys.executable, "-c", caller, script], stdout=subprocess.PIPE, text=True, env=process_env(db_path)
    )
    try:
        deadline = time.monotonic() + 60
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        rtscope.send_signal(signal.SIGTERM)  # as a service manager stops rtscope
        out, _ = rtscope.communicate(timeout=60)
    finally:
        rtscope.kill()
    expected = "stopped" if ends == "killed" else "(143, '', b'{}\\n')"  # what it measured is rtscope's to report
    assert out.strip() == expected


def test_a_stop_that_comes_as_the_probe_starts_stops_it_and_leaves_nothing_running(tmp_path, db_path):
    # rtscope gets SIGTERM between starting the probe and anything after: in the caller, Popen sends it
    # the signal as it returns. The stand-in probe says its pid, then sleeps; it must not outlive rtscope.
    pid_file = tmp_path / "pid"
    caller = (
        "import os, signal, subprocess, sys\n"
        "class StoppedAsItStarts(subprocess.Popen):\n"
        "    def __init__(self, *args, **kwargs):\n"
        "        super().__init__(*args, **kwargs)\n"
        "        os.kill(os.getpid(), signal.SIGTERM)\n"
        f"subprocess.Popen = StoppedAsItStarts\n{_RUN_THE_STAND_IN}"
    )
    rtscope = subprocess.run(
        [sys.executable, "-c", caller, f"echo $$ > {pid_file}.new && mv {pid_file}.new {pid_file}; exec sleep 60"],
        capture_output=True,
        text=True,
        env=process_env(db_path),
        timeout=60,
        check=False,
    )
    pid = int(pid_file.read_text()) if pid_file.exists() else None
    left = pid is not None and Path(f"/proc/{pid}").exists()
    if left:
        os.kill(pid, signal.SIGKILL)
    assert (rtscope.returncode, rtscope.stdout.strip(), left) == (0, "stopped", False), rtscope.stderr
