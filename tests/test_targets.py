"""Targets: the fake one that replays recordings, and the local one that runs a probe binary
(here a stub standing in for the probe, to reach every way a probe can end)."""

import dataclasses
import json
import signal
import sys
import textwrap

import pytest

from rtscope.errors import ProbeError, RtscopeError
from rtscope.model.request import RunRequest
from rtscope.model.values import ParamSetting
from rtscope.targets import make_target
from rtscope.targets.fake import FakeTarget
from rtscope.targets.local import LocalTarget
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


@pytest.mark.parametrize("spec", ["remote", "fake:", "ssh:host"])
def test_unknown_targets(spec, tmp_path):
    with pytest.raises(RtscopeError, match="unknown target"):
        make_target(spec, tmp_path / "probe")
