"""rtscope doctor: facts read through a transport and asked of the probe, each check's states judged,
the command's text, JSON and exit status — on fixture /proc and /sys trees (each with what the probe
prints there), and for real: on this machine, on a fake target, on the FreeRTOS board and in a Debian
guest when they can be booted here. The probe's own rules are tested in C (probe/tests/
test_sysinfo_posix.c)."""

import ast
import fnmatch
import json
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, REPO
from rtscope.analysis import readiness
from rtscope.commands.context import Context
from rtscope.errors import ProbeError, RtscopeError
from rtscope.targets import facts
from rtscope.targets.qemu import debian_packages
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


# What the probe prints there (rtscope-probe system), kept in the tree; a tree without it has no probe.
PROBE_SYSTEM = "probe-system.json"


class TreeTarget:
    """The machine of a fixture tree: its files through a TreeTransport, its probe's answer from the
    tree's probe-system.json."""

    def __init__(self, root: Path, unreadable: Sequence[str] = (), refusal: type[OSError] = PermissionError):
        self.transport = TreeTransport(root, unreadable, refusal)
        self.name = self.transport.name
        self.root = root

    def probe_system(self) -> dict[str, Any]:
        if not (self.root / PROBE_SYSTEM).is_file():
            raise ProbeError("cannot run the probe there: no rtscope-probe")
        return facts.read_system(Completed(0, (self.root / PROBE_SYSTEM).read_bytes(), b""), self.name)


def verdicts_of(
    root: Path, unreadable: Sequence[str] = (), refusal: type[OSError] = PermissionError
) -> dict[str, readiness.SettingCheck]:
    return {check.id: check for check in readiness.assess(facts.gather(TreeTarget(root, unreadable, refusal)))}


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


def probe_says(root: Path, **system: Any) -> None:
    """Make the probe of the tree at ``root`` report ``system``'s values instead of its own."""
    document = json.loads((root / PROBE_SYSTEM).read_text())
    document["system"].update(system)
    (root / PROBE_SYSTEM).write_text(json.dumps(document))


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
    assert stock["preemption"].state == "voluntary preemption (desktop)"
    assert tuned["preemption"].state == "PREEMPT_RT"
    assert stock["virtualization"].state == "vm (QEMU), container"
    assert (
        tuned["kernel-cmdline"].state == "isolcpus=2-3 nohz_full=2-3 rcu_nocbs=2-3 intel_idle.max_cstate=1 skew_tick=1"
    )
    assert stock["kernel-cmdline"].state.startswith("none of the real-time parameters")


# Each further state of a check, made by changing one thing in a tree: (tree, change, check, verdict, state).
def _set(path: str, text: str) -> Callable[[Path], None]:
    return lambda root: write(root, path, text)


def _drop(*paths: str) -> Callable[[Path], None]:
    return lambda root: [remove(root, path) for path in paths]


def _probe(**system: Any) -> Callable[[Path], None]:
    return lambda root: probe_says(root, **system)


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
    ("stock", _probe(preempt_model="dynamic"), "preemption", "warn", "PREEMPT_DYNAMIC, mode unknown"),
    ("stock", _probe(preempt_model="full"), "preemption", "warn", "full preemption, not PREEMPT_RT"),
    ("tuned", _probe(preempt_model="none", realtime_kernel=False), "preemption", "warn", "no forced preemption"),
    ("tuned", _probe(preempt_model="unknown"), "preemption", "unknown", "unknown"),
    ("tuned", _drop("/" + PROBE_SYSTEM), "preemption", "unknown", "unknown"),
    ("stock", _probe(virtualization=None), "virtualization", "unknown", "unknown"),
    ("tuned", _probe(virtualization="vm (QEMU)"), "virtualization", "warn", "vm (QEMU)"),
    ("tuned", _probe(virtualization="container"), "virtualization", "warn", "container"),
    ("tuned", _drop("/" + PROBE_SYSTEM), "virtualization", "unknown", "unknown"),
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
    checks = verdicts_of(TREES / "stock", unreadable=["/dev/cpu_dma_latency"], refusal=refusal)
    assert "/dev/cpu_dma_latency present" in checks["idle-states"].state


def test_a_kernel_that_cannot_be_reached_is_an_error_not_unknown():
    class Unreachable(TreeTransport):
        def read_file(self, path: str) -> bytes:
            raise RtscopeError("cannot reach board: Connection refused")

    target = TreeTarget(TREES / "tuned")
    target.transport = Unreachable(TREES / "tuned")
    with pytest.raises(RtscopeError, match="Connection refused"):
        facts.gather(target)


def test_every_fact_is_read_through_the_transport():
    target = TreeTarget(TREES / "tuned")
    transport = target.transport
    facts.gather(target)
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


class OneJobTreeTransport(TreeTransport):
    """A tree machine reached one job at a time, as a QEMU guest is (a boot each): files and commands in
    one job, counted; a job of its own is refused."""

    def __init__(self, root: Path):
        super().__init__(root)
        self.jobs: list[tuple[str, ...]] = []

    def read_files_and_run(
        self, patterns: Sequence[str], commands: Sequence[Sequence[str]], *, timeout_s: float
    ) -> tuple[dict[str, bytes | None], list[Completed]]:
        self.jobs.append(tuple(" ".join(argv) for argv in commands))
        probe = self.root / PROBE_SYSTEM
        answers = [
            Completed(0, probe.read_bytes(), b"") if argv[0] == "rtscope-probe" else TreeTransport.run(self, argv)
            for argv in commands
        ]
        return TreeTransport.read_files(self, patterns), answers

    def read_files(self, patterns: Sequence[str]) -> dict[str, bytes | None]:
        raise AssertionError("a job of its own")

    def run(self, argv: Sequence[str], *, timeout_s: float | None = None) -> Completed:
        raise AssertionError(f"a job of its own: {argv}")


class OneJobTreeTarget(TreeTarget):
    def __init__(self, root: Path):
        super().__init__(root)
        self.transport = OneJobTreeTransport(root)
        self.system_argv = ("rtscope-probe", "system")

    def probe_system(self) -> dict[str, Any]:
        raise AssertionError("a job of its own")


@pytest.mark.parametrize("name", ["tuned", "stock"])
def test_a_machine_reached_one_job_at_a_time_gives_every_fact_in_one_job(name):
    """A QEMU guest boots once for doctor, where it booted for the files, for pgrep and for the probe."""
    target = OneJobTreeTarget(TREES / name)
    assert facts.gather(target) == facts.gather(TreeTarget(TREES / name))
    assert target.transport.jobs == [("pgrep -x irqbalance", "rtscope-probe system")]


def test_a_qemu_guest_reads_the_files_and_runs_the_commands_in_one_boot(tmp_path, monkeypatch):
    """The guest's job script, run here in place of a boot (its GUEST_OUT a scratch folder): the files'
    listing and each command's status and output come back, and one boot was asked for."""
    from rtscope.targets.qemu import debian as qemu

    boots: list[str] = []

    def boot_files(guest: qemu.Guest, argv: Sequence[str], timeout_s: float) -> dict[str, bytes]:
        out = tmp_path / "out"
        out.mkdir()
        script = argv[2].replace(qemu.GUEST_OUT, str(out))
        boots.append(script)
        job = subprocess.run(["sh", "-c", script], capture_output=True, check=False)
        files = {path.name: path.read_bytes() for path in out.iterdir()}
        return {**files, "status": str(job.returncode).encode(), "stdout": job.stdout, "stderr": job.stderr}

    monkeypatch.setattr(qemu.Guest, "boot_files", boot_files)
    write(tmp_path, "proc/cmdline", "quiet")
    transport = qemu.QemuTarget("qemu:aarch64:stock").transport
    files, outcomes = transport.read_files_and_run(
        [f"{tmp_path}/proc/cmdline", f"{tmp_path}/proc/nothing*"],
        [["sh", "-c", "echo said; echo moaned >&2; exit 3"], ["true"]],
        timeout_s=1.0,
    )
    assert len(boots) == 1
    assert files == {f"{tmp_path}/proc/cmdline": b"quiet\n"}
    assert outcomes == [Completed(3, b"said\n", b"moaned\n"), Completed(0, b"", b"")]


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


def test_doctor_names_the_benches_rt_throttling_distorts(doctor_on, tree):
    """Throttling on distorts the benches that keep a CPU busy only: the outcome names them, not
    "nothing would distort"."""
    root = tree("tuned")
    write(root, "/proc/sys/kernel/sched_rt_runtime_us", "950000")
    outcome = doctor_on(root)
    assert outcome.status == 0
    last = outcome.out.splitlines()[-1]
    assert last.startswith(f"{len(CHECK_IDS) - 1} ok, 1 warn: RT throttling would distort those whose real-time ")
    assert "ctxsw.yield" in last and "threadmetric" in last and last.endswith("nothing would distort the others")
    assert "--rt-throttling off" in outcome.out


def test_doctor_exits_0_when_all_is_fine(doctor_on):
    outcome = doctor_on(TREES / "tuned")
    assert outcome.status == 0
    assert outcome.out.splitlines()[-1] == f"{len(CHECK_IDS)} ok: nothing would distort measurements"
    assert "fix:" not in outcome.out


def test_doctor_json_has_its_documented_shape(doctor_on):
    outcome = doctor_on(TREES / "stock", "--format", "json")
    assert outcome.status == 1
    document = json.loads(outcome.out)
    assert list(document) == ["format", "version", "target", "os", "distorting", "checks", "notes", "facts"]
    assert (document["format"], document["version"], document["target"]) == ("rtscope-doctor", 2, "tree:stock")
    assert (document["os"], document["notes"]) == ("Linux", [])
    assert document["distorting"] == ["cpu-governor", "idle-states", "clocksource"]
    assert [check["id"] for check in document["checks"]] == CHECK_IDS
    assert all(list(check) == ["id", "title", "state", "verdict", "why", "fix"] for check in document["checks"])
    assert document["facts"]["rt_throttling"] == {"runtime_us": 950000, "period_us": 1000000}
    assert document["facts"]["probe"]["system"]["preempt_model"] == "voluntary"
    assert document["facts"]["cpufreq"]["governors"] == {
        "0": "powersave",
        "1": "powersave",
        "2": "performance",
        "3": "performance",
    }


def test_doctor_on_this_machine(rtscope_process, probe):
    outcome = rtscope_process("--probe", probe, "doctor")
    assert outcome.status in (0, 1), outcome
    assert "Traceback" not in outcome.err
    titles = {check.title for check in readiness.assess(facts.gather(TreeTarget(TREES / "tuned")))}
    for title in titles:
        assert f" {title}: " in outcome.out, title
    as_json = rtscope_process("--probe", probe, "doctor", "--format", "json")
    assert as_json.status == outcome.status
    document = json.loads(as_json.out)
    assert [check["id"] for check in document["checks"]] == CHECK_IDS
    assert all(check["verdict"] in readiness.VERDICTS for check in document["checks"])
    assert (as_json.status == 1) == bool(document["distorting"])
    # One rule: doctor judges what the probe records in every result.
    measured = subprocess.run(
        [probe, "run", "clock.read", "--duration", "0.1", "--policy", "other", "--no-mlock", "--quiet", "--json", "-"],
        capture_output=True,
        check=True,
    )
    recorded = json.loads(measured.stdout)["system"]
    system = document["facts"]["probe"]["system"]
    for key in ("preempt_model", "realtime_kernel", "virtualization", "kernel_version"):
        assert system[key] == recorded[key], key


def test_doctor_says_in_one_line_when_the_probe_cannot_run_and_judges_the_rest(rtscope_process, tmp_path):
    outcome = rtscope_process("--probe", tmp_path / "nowhere", "doctor")
    assert outcome.status in (0, 1), outcome
    assert outcome.err == ""
    notes = [line for line in outcome.out.splitlines() if line.strip().startswith("note:")]
    why = f"probe not built at {tmp_path / 'nowhere'} (run make -C probe)"
    assert notes == [f"  note: the probe could not run there ({why}): preemption model and virtualization unknown"]
    assert "  unknown preemption model: unknown" in outcome.out
    assert "  unknown virtualization: unknown" in outcome.out
    # Everything read through the transport is judged as ever.
    assert sum(line.startswith("    why: ") for line in outcome.out.splitlines()) == len(CHECK_IDS)


def test_doctor_on_a_fake_target_judges_what_its_recordings_ran_on(fake, recorded_dir):
    first = json.loads(min(recorded_dir.glob("*.json")).read_text())["system"]
    outcome = fake("doctor", "--format", "json")
    assert outcome.status in (0, 1), outcome
    document = json.loads(outcome.out)
    assert document["facts"]["probe"]["system"] == first
    checks = {check["id"]: check for check in document["checks"]}
    assert checks["virtualization"]["state"] == first["virtualization"]
    assert outcome.err == ""


def test_an_rtos_gets_only_the_checks_that_apply_to_it(tree, doctor_on):
    root = tree("stock")
    probe_says(
        root, os="FreeRTOS", kernel_release="V11.1.0", preempt_model="full", realtime_kernel=None, virtualization="qemu"
    )
    checks = verdicts_of(root)
    assert {check_id: (check.verdict, check.state) for check_id, check in checks.items()} == {
        "preemption": ("ok", "preemptive scheduling"),
        "virtualization": ("warn", "qemu"),
    }
    probe_says(root, preempt_model="none")
    assert verdicts_of(root)["preemption"].verdict == "warn"
    outcome = doctor_on(root)
    assert outcome.status == 0
    lines = outcome.out.splitlines()
    assert lines[:2] == [
        "Real-time readiness of tree:stock (FreeRTOS V11.1.0)",
        "  note: FreeRTOS has none of the Linux settings the other checks read: only what applies is shown",
    ]


@pytest.mark.parametrize(
    ("completed", "message"),
    [
        (
            Completed(2, b"", b"rtscope-probe: unknown command 'system'\n"),
            "board system failed: rtscope-probe: unknown",
        ),
        (Completed(0, b"Hello", b""), "board system printed no JSON document"),
        (Completed(0, b'{"format": "rtscope-bench-list"}', b""), "no rtscope-system document of version 1"),
        (Completed(0, b'{"format": "rtscope-system", "version": 1, "system": {}}', b""), "invalid system at \\$"),
    ],
)
def test_a_probe_answer_that_is_not_a_system_is_one_line(completed, message):
    with pytest.raises(ProbeError, match=message):
        facts.read_system(completed, "board")


@pytest.mark.usefixtures("board_tools")
def test_doctor_on_the_rtos_board_says_what_applies(rtscope):
    outcome = rtscope("--target", "qemu:mps2-an385:freertos", "doctor", "--format", "json")
    assert outcome.status == 0, outcome
    document = json.loads(outcome.out)
    assert document["os"] == "FreeRTOS"
    assert [(check["id"], check["verdict"]) for check in document["checks"]] == [
        ("preemption", "ok"),
        ("virtualization", "warn"),
    ]
    assert document["facts"]["probe"]["system"]["cpu_model"].startswith("Arm Cortex-M3")


def _cached_kernel(debarch: str) -> bool:
    return any((debian_packages.cache_dir() / "debs").glob(f"linux-image-[0-9]*[0-9]-{debarch}_*.deb"))


@pytest.mark.kernels
@pytest.mark.skipif(not _cached_kernel("arm64"), reason="Debian's arm64 kernel is not in ~/.cache/rtscope/debian")
def test_doctor_in_an_arm64_guest_finds_the_vm_without_a_hypervisor_flag(rtscope):
    outcome = rtscope("--target", "qemu:aarch64:stock", "doctor", "--format", "json")
    assert outcome.status in (0, 1), outcome
    checks = {check["id"]: check for check in json.loads(outcome.out)["checks"]}
    assert (checks["virtualization"]["verdict"], checks["virtualization"]["state"]) == ("warn", "vm (QEMU)")
    # Debian's stock arm64 kernel: voluntary preemption, not PREEMPT_DYNAMIC, so uname -v names no model.
    assert checks["preemption"]["state"].startswith("no forced preemption, or voluntary")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["doctor", "--format", "xml"], "argument --format: invalid choice: 'xml'"),
        (["--target", "mars", "doctor"], "unknown target 'mars'"),
    ],
)
def test_bad_input(rtscope_process, args, message):
    assert_one_line_error(rtscope_process(*args), message)
