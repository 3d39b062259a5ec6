"""rtscope doctor: facts read through a transport, each check's states judged, the command's text,
JSON and exit status — on fixture /proc and /sys trees, and once for real on this machine."""

import ast
import fnmatch
import json
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO
from rtscope.analysis import readiness
from rtscope.commands.context import Context
from rtscope.errors import RtscopeError
from rtscope.targets import facts
from rtscope.targets.transport import Completed
from test_cli_errors import assert_one_line_error

TREES = FIXTURES / "doctor"
CHECK_IDS = [
    "rt-throttling",
    "cpu-governor",
    "cpu-boost",
    "idle-states",
    "cpu-isolation",
    "smt",
    "irqbalance",
    "transparent-hugepages",
    "swap",
    "clocksource",
    "timer-slack",
    "preemption",
    "virtualization",
    "kernel-cmdline",
]


class TreeTransport:
    """A machine whose files are a fixture tree: /proc/cmdline is ROOT/proc/cmdline. Of commands it
    answers only ``pgrep -x NAME``, from the tree's proc/*/comm; a tree without proc has no pgrep."""

    def __init__(self, root: Path, unreadable: Sequence[str] = (), refusal: type[OSError] = PermissionError):
        self.name = f"tree:{root.name}"
        self.root = root
        self.unreadable = set(unreadable)
        self.refusal = refusal
        self.read: list[str] = []

    def read_file(self, path: str) -> bytes:
        self.read.append(path)
        if path in self.unreadable:
            raise self.refusal(13, "Permission denied", path)
        return (self.root / path.lstrip("/")).read_bytes()

    def read_files(self, patterns: Sequence[str]) -> dict[str, bytes | None]:
        # The files that are there but cannot be read are there whether the tree has them or not.
        found: dict[str, bytes | None] = {
            path: None for path in self.unreadable if any(fnmatch.fnmatchcase(path, pattern) for pattern in patterns)
        }
        for pattern in patterns:
            for match in sorted(self.root.glob(pattern.lstrip("/"))):
                path = "/" + str(match.relative_to(self.root))
                try:
                    found[path] = self.read_file(path)
                except PermissionError:
                    found[path] = None
        return found

    def run(self, argv: Sequence[str], *, timeout_s: float | None = None) -> Completed:
        assert list(argv[:2]) == ["pgrep", "-x"], argv
        if not (self.root / "proc").is_dir():
            raise RtscopeError("cannot run pgrep: No such file or directory")
        names = {comm.read_text().strip() for comm in (self.root / "proc").glob("*/comm")}
        return Completed(0 if argv[2] in names else 1, b"", b"")


class TreeTarget:
    def __init__(self, root: Path, unreadable: Sequence[str] = ()):
        self.transport = TreeTransport(root, unreadable)
        self.name = self.transport.name


def verdicts_of(
    root: Path, unreadable: Sequence[str] = (), refusal: type[OSError] = PermissionError
) -> dict[str, readiness.Check]:
    return {check.id: check for check in readiness.assess(facts.gather(TreeTransport(root, unreadable, refusal)))}


@pytest.fixture
def tree(tmp_path: Path) -> Callable[[str], Path]:
    """A copy of a fixture tree to change: tree("stock")."""

    def copy(name: str) -> Path:
        return Path(shutil.copytree(TREES / name, tmp_path / name))

    return copy


def write(root: Path, path: str, text: str) -> None:
    (root / path.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
    (root / path.lstrip("/")).write_text(text + "\n")


def remove(root: Path, path: str) -> None:
    target = root / path.lstrip("/")
    shutil.rmtree(target) if target.is_dir() else target.unlink()


# A tuned real-time system: every check ok. A stock desktop in a VM: every way to go wrong.
# An empty tree (no /proc, no /sys): every fact unknown, and no traceback.
EXPECTED = {
    "tuned": dict.fromkeys(CHECK_IDS, "ok"),
    "stock": {
        "rt-throttling": "warn",
        "cpu-governor": "bad",
        "cpu-boost": "warn",
        "idle-states": "bad",
        "cpu-isolation": "warn",
        "smt": "warn",
        "irqbalance": "warn",
        "transparent-hugepages": "warn",
        "swap": "warn",
        "clocksource": "bad",
        "timer-slack": "warn",
        "preemption": "warn",
        "virtualization": "warn",
        "kernel-cmdline": "ok",
    },
    "empty": dict.fromkeys(CHECK_IDS, "unknown"),
}


@pytest.mark.parametrize("name", EXPECTED)
def test_each_tree_is_judged_check_by_check(name, tmp_path):
    root = TREES / name if name != "empty" else tmp_path
    checks = verdicts_of(root)
    assert list(checks) == CHECK_IDS
    assert {check_id: check.verdict for check_id, check in checks.items()} == EXPECTED[name]
    for check in checks.values():
        assert check.why and check.state
        # What is not ok says how to change it, where a command can.
        if check.verdict in (readiness.WARN, readiness.BAD):
            assert check.fix or check.id == "kernel-cmdline", check


def test_states_say_what_was_read():
    tuned, stock = verdicts_of(TREES / "tuned"), verdicts_of(TREES / "stock")
    assert tuned["rt-throttling"].state == "off (real-time threads may use all CPU time)"
    assert stock["rt-throttling"].state == "95 % (950 ms of every 1000 ms; paused 50 ms)"
    assert stock["cpu-governor"].state == "powersave (CPU 0,1); performance (CPU 2,3), driver acpi-cpufreq"
    assert tuned["cpu-governor"].state == "performance, driver intel_pstate"
    assert stock["idle-states"].state == "driver intel_idle, deep states enabled (C6 133 µs); no /dev/cpu_dma_latency"
    assert tuned["cpu-isolation"].state == "isolated 2-3; nohz_full 2-3; rcu_nocbs 2-3"
    assert stock["cpu-isolation"].state == "isolated none; nohz_full none; rcu_nocbs none"
    assert stock["swap"].state == "/dev/sda2 4095 MiB; swappiness 60"
    assert (
        stock["clocksource"].fix
        == "echo tsc | sudo tee /sys/devices/system/clocksource/clocksource0/current_clocksource"
    )
    assert stock["timer-slack"].state == "1000 µs"
    assert stock["preemption"].state == "voluntary preemption (desktop) (6.1.0-18-amd64)"
    assert tuned["preemption"].state == "PREEMPT_RT (6.1.0-18-rt-amd64)"
    assert stock["virtualization"].state == "virtual machine (QEMU), container"
    assert (
        tuned["kernel-cmdline"].state == "isolcpus=2-3 nohz_full=2-3 rcu_nocbs=2-3 intel_idle.max_cstate=1 skew_tick=1"
    )
    assert stock["kernel-cmdline"].state.startswith("none of the real-time parameters")


# Each further state of a check, made by changing one thing in a tree: (tree, change, check, verdict, state).
def _set(path: str, text: str) -> Callable[[Path], None]:
    return lambda root: write(root, path, text)


def _drop(*paths: str) -> Callable[[Path], None]:
    return lambda root: [remove(root, path) for path in paths]


def _both(*changes: Callable[[Path], None]) -> Callable[[Path], None]:
    return lambda root: [change(root) for change in changes]


CPU = "/sys/devices/system/cpu"
STATES = [
    ("stock", _set("/proc/sys/kernel/sched_rt_runtime_us", "1000000"), "rt-throttling", "ok", "100 %"),
    ("stock", _drop(*(f"{CPU}/cpu{n}/cpufreq" for n in range(4))), "cpu-governor", "ok", "no cpufreq driver"),
    ("stock", _drop(f"{CPU}/online"), "cpu-governor", "unknown", "unknown"),
    ("tuned", _set(f"{CPU}/intel_pstate/no_turbo", "0"), "cpu-boost", "warn", "on"),
    ("stock", _set(f"{CPU}/cpufreq/boost", "0"), "cpu-boost", "ok", "off"),
    ("stock", _set("/dev/cpu_dma_latency", ""), "idle-states", "ok", "deep states enabled"),
    ("stock", _set(f"{CPU}/cpu0/cpuidle/state2/disable", "1"), "idle-states", "ok", "no state deeper than 10 µs"),
    ("tuned", _drop(f"{CPU}/cpu0/cpuidle", f"{CPU}/cpuidle/current_driver"), "idle-states", "unknown", "unknown"),
    (
        "tuned",
        _both(_set(f"{CPU}/cpuidle/current_driver", "none"), _drop(f"{CPU}/cpu0/cpuidle")),
        "idle-states",
        "ok",
        "the default idle",
    ),
    ("tuned", _set(f"{CPU}/nohz_full", "(null)"), "cpu-isolation", "warn", "nohz_full none"),
    ("tuned", _drop(f"{CPU}/nohz_full"), "cpu-isolation", "warn", "nohz_full not in this kernel"),
    ("tuned", _set("/proc/cmdline", "ro isolcpus=2-3 nohz_full=2-3 rcu_nocbs"), "cpu-isolation", "ok", "rcu_nocbs all"),
    ("stock", _drop(f"{CPU}/smt"), "smt", "warn", "active"),
    ("tuned", _drop(f"{CPU}/smt"), "smt", "ok", "inactive"),
    ("tuned", _drop(f"{CPU}/smt", f"{CPU}/cpu0/topology"), "smt", "unknown", "unknown"),
    ("tuned", _drop("/proc"), "irqbalance", "unknown", "unknown (no pgrep there)"),
    ("tuned", _drop("/sys/kernel/mm"), "transparent-hugepages", "unknown", "unknown"),
    (
        "stock",
        _set("/sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never"),
        "transparent-hugepages",
        "ok",
        "enabled madvise",
    ),
    ("tuned", _drop("/proc/swaps"), "swap", "unknown", "unknown"),
    (
        "tuned",
        _set("/sys/devices/system/clocksource/clocksource0/current_clocksource", "arch_sys_counter"),
        "clocksource",
        "ok",
        "arch_sys_counter",
    ),
    ("tuned", _drop("/proc/self/timerslack_ns"), "timer-slack", "unknown", "unknown"),
    ("tuned", _set("/proc/self/timerslack_ns", "1"), "timer-slack", "ok", "0.001 µs"),
    ("stock", _drop("/sys/kernel/debug"), "preemption", "warn", "PREEMPT_DYNAMIC, mode unknown"),
    (
        "stock",
        _set("/sys/kernel/debug/sched/preempt", "none voluntary (full)"),
        "preemption",
        "warn",
        "full preemption, not PREEMPT_RT",
    ),
    (
        "tuned",
        _both(_set("/proc/sys/kernel/version", "#1 SMP Debian"), _drop("/sys/kernel/realtime")),
        "preemption",
        "warn",
        "no forced preemption",
    ),
    ("tuned", _drop("/sys/kernel/realtime", "/proc/sys/kernel/version"), "preemption", "unknown", "unknown"),
    (
        "stock",
        _drop("/.dockerenv", "/proc/cpuinfo", "/sys/class/dmi"),
        "virtualization",
        "unknown",
        "no container; virtual machine unknown",
    ),
    ("tuned", _set("/sys/class/dmi/id/sys_vendor", "QEMU"), "virtualization", "warn", "virtual machine (QEMU)"),
    ("tuned", _set("/run/.containerenv", ""), "virtualization", "warn", "container"),
    ("tuned", _drop("/proc/cmdline"), "kernel-cmdline", "unknown", "unknown"),
]


@pytest.mark.parametrize(
    ("name", "change", "check_id", "verdict", "state"),
    STATES,
    ids=[f"{check_id}-{verdict}-{n}" for n, (_, _, check_id, verdict, _) in enumerate(STATES)],
)
def test_each_state_of_each_check(tree, name, change, check_id, verdict, state):
    root = tree(name)
    change(root)
    check = verdicts_of(root)[check_id]
    assert (check.verdict, state in check.state) == (verdict, True), check
    if verdict == "ok":
        assert check.fix is None, check
    if verdict in ("warn", "bad"):
        assert check.fix, check


# The local transport refuses with PermissionError, an SSH transport with the OSError of cat's message.
@pytest.mark.parametrize("refusal", [PermissionError, OSError])
def test_a_device_only_root_may_read_is_still_there(refusal):
    checks = verdicts_of(TREES / "stock", unreadable=["/dev/cpu_dma_latency", "/.dockerenv"], refusal=refusal)
    assert "/dev/cpu_dma_latency present" in checks["idle-states"].state
    assert checks["virtualization"].state == "virtual machine (QEMU), container"


def test_a_kernel_that_cannot_be_reached_is_an_error_not_unknown():
    class Unreachable(TreeTransport):
        def read_file(self, path: str) -> bytes:
            raise RtscopeError("cannot reach board: Connection refused")

    with pytest.raises(RtscopeError, match="Connection refused"):
        facts.gather(Unreachable(TREES / "tuned"))


def test_every_fact_is_read_through_the_transport():
    transport = TreeTransport(TREES / "tuned")
    facts.gather(transport)
    assert "/proc/cmdline" in transport.read and "/proc/sys/kernel/sched_rt_runtime_us" in transport.read
    # Neither module opens a file itself: what the machine holds comes only through read_file and run.
    for module in ("targets/facts.py", "analysis/readiness.py", "commands/doctor.py"):
        source = ast.parse((REPO / "src" / "rtscope" / module).read_text())
        names = {node.id for node in ast.walk(source) if isinstance(node, ast.Name)}
        imported = {
            alias.name
            for node in ast.walk(source)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for alias in node.names
        }
        assert not {"open", "Path", "os", "pathlib", "subprocess"} & (names | imported), module


@pytest.fixture
def doctor_on(rtscope, monkeypatch) -> Callable[..., object]:
    """Run rtscope doctor in this process on a fixture tree as its target."""

    def run(root: Path, *args: str):
        monkeypatch.setattr(Context, "target", lambda context: TreeTarget(root))
        return rtscope("doctor", *args)

    return run


def test_doctor_exits_1_when_a_setting_would_distort_measurements(doctor_on):
    outcome = doctor_on(TREES / "stock")
    assert outcome.status == 1
    lines = outcome.out.splitlines()
    assert lines[0] == "Real-time readiness of tree:stock (Linux 6.1.0-18-amd64)"
    assert "  bad     clocksource: hpet (available: hpet acpi_pm tsc)" in lines
    assert "    fix: sudo cpupower frequency-set -g performance" in lines
    assert lines[-1] == (
        "1 ok, 10 warn, 3 bad: CPU frequency governor, CPU idle states, clocksource would distort "
        "measurements (exit status 1)"
    )
    assert sum(line.startswith("    why: ") for line in lines) == len(CHECK_IDS)


def test_doctor_exits_0_when_all_is_fine(doctor_on):
    outcome = doctor_on(TREES / "tuned")
    assert outcome.status == 0
    assert outcome.out.splitlines()[-1] == f"{len(CHECK_IDS)} ok: nothing would distort measurements"
    assert "fix:" not in outcome.out


def test_doctor_json_has_its_documented_shape(doctor_on):
    outcome = doctor_on(TREES / "stock", "--format", "json")
    assert outcome.status == 1
    document = json.loads(outcome.out)
    assert list(document) == ["format", "version", "target", "distorting", "checks", "facts"]
    assert (document["format"], document["version"], document["target"]) == ("rtscope-doctor", 1, "tree:stock")
    assert document["distorting"] == ["cpu-governor", "idle-states", "clocksource"]
    assert [check["id"] for check in document["checks"]] == CHECK_IDS
    assert all(list(check) == ["id", "title", "state", "verdict", "why", "fix"] for check in document["checks"])
    assert document["facts"]["rt_throttling"] == {"runtime_us": 950000, "period_us": 1000000}
    assert document["facts"]["cpufreq"]["governors"] == {
        "0": "powersave",
        "1": "powersave",
        "2": "performance",
        "3": "performance",
    }


def test_doctor_on_this_machine(rtscope_process):
    outcome = rtscope_process("doctor")
    assert outcome.status in (0, 1), outcome
    assert "Traceback" not in outcome.err
    titles = {check.title for check in readiness.assess(facts.gather(TreeTransport(TREES / "tuned")))}
    for title in titles:
        assert f" {title}: " in outcome.out, title
    as_json = rtscope_process("doctor", "--format", "json")
    assert as_json.status == outcome.status
    document = json.loads(as_json.out)
    assert [check["id"] for check in document["checks"]] == CHECK_IDS
    assert all(check["verdict"] in readiness.VERDICTS for check in document["checks"])
    assert (as_json.status == 1) == bool(document["distorting"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["doctor", "--format", "xml"], "argument --format: invalid choice: 'xml'"),
        (["--target", "mars", "doctor"], "unknown target 'mars'"),
    ],
)
def test_bad_input(rtscope_process, args, message):
    assert_one_line_error(rtscope_process(*args), message)
