"""Shared fixtures: recorded results for the fake target, an isolated database, ways to run the CLI; and the
two tiers of the suite.

A test is slow when a fixture it uses, directly or through another, is a ``slow_fixture``: the probe, an
sshd, QEMU, the FreeRTOS build, Chromium, the loads' tools, an installed package (or when it is marked
``slow`` or ``kernels``). ``pytest --fast``
(./test.sh --fast) runs the others, with RTSCOPE_PROBE and the QEMU emulators replaced by stubs that fail
the test that starts them: a test that needs them without saying so fails there, instead of slowing the
fast tier down or passing on what happened to be built.
"""

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import jsonschema
import pytest

from rtscope import cli
from rtscope.targets import kernels
from support import builders
from support import postgres as pg

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
GOLDEN = sorted((REPO / "tests" / "golden").glob("*.json"))

SLOW = "slow"
_SLOW_FIXTURE = "rtscope_slow_fixture"
# The files whose slow tests take what a test beside them would share: the CPUs their timings or shares
# are judged on (the wave benches' generator and observer, a round-robin's slices, an injected delay, busy
# real-time threads that RT throttling stops when a test beside them takes the other CPU), the
# loads' tools, whose processes test_loads counts machine-wide, and global settings (RT throttling, the
# host's tracefs). Under xdist they run one test at a time with no other slow test running (_Alone).
ALONE = frozenset(
    {
        "test_app.py",
        "test_latency.py",
        "test_loads.py",
        "test_micro.py",
        "test_rt_throttling.py",
        "test_settings_restored.py",
        "test_threadmetric.py",
        "test_wave.py",
        "test_wave_capture.py",
        "test_wave_gpio.py",
    }
)
ALONE_GROUP = "alone"
# What one worker runs beside ALONE's group, one test at a time, the fast tests then the one_cpu ones: the
# other workers' slow tests wait for ALONE's group.
BESIDE_ALONE_GROUP = "beside-alone"
# The files whose slow tests each boot or build what they need (no module fixture shares it): a slow test of
# theirs that uses no module-scoped fixture goes to whichever worker is free, so that one file's boots do
# not queue on one worker while the other has nothing left (test_qemu.py's alone were some 300 s). The
# tests of theirs that share a module fixture keep one worker, the file's.
SPREAD = frozenset({"test_qemu.py"})
ONE = "one:"
# A slow test marked one_cpu (one CPU at most: a build, an install, no timing judged, no global setting, none
# of the loads' tools) runs beside ALONE's group as the fast tests do, after them: the fast tests alone
# ended some 30 s before ALONE's group, and their worker waited.
ONE_CPU = "one_cpu"
# What a test of the fast tier must not start: the probe (through RTSCOPE_PROBE) and the emulators (on PATH).
STUBBED_EMULATORS = ("qemu-system-x86_64", "qemu-system-aarch64", "qemu-system-arm")
STUB = """#!/bin/sh
echo "$(basename "$0") $*" >> "{started}"
echo "$(basename "$0"): a stub of the fast tier (tests/conftest.py)" >&2
exit 70
"""


def slow_fixture(*args: Any, **kwargs: Any) -> Any:
    """``pytest.fixture`` for a fixture that makes every test using it slow (``@slow_fixture(scope=...)``)."""

    def mark(function: Callable[..., Any]) -> Any:
        setattr(function, _SLOW_FIXTURE, True)
        return pytest.fixture(*args, **kwargs)(function)

    return mark


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fast",
        action="store_true",
        help="the fast tier: no test needing the probe, an emulator, a daemon or a browser",
    )


def pytest_configure(config: pytest.Config) -> None:
    # The kernels named in the user's config folder (rtscope kernels add), named in the environment for
    # the session instead: a test that gives rtscope or make a HOME or XDG folder of its own still builds
    # against them, so that a machine with kernels registered runs every RTOS test.
    for key, kernel in kernels.KERNELS.items():
        named = kernels.named(key)
        if named is not None and named.origin == kernels.CONFIG:
            os.environ[kernel.env] = str(named.path)
    # A suite started in the background by a non-interactive shell (`./test.sh &` in a script) inherits
    # Ctrl-C ignored, and so would every rtscope and probe a test starts: the tests of Ctrl-C would see it
    # ignored. A signal Python handles is back to its default in a child; an ignored one stays ignored.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if config.getoption("fast"):
        config.pluginmanager.register(_FastTier(), "rtscope-fast-tier")
    if os.environ.get("PYTEST_XDIST_WORKER"):
        config.pluginmanager.register(_Alone(), "rtscope-alone")


# First: xdist's own hook reads the groups given here.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for position, item in enumerate(items):
        assert isinstance(item, pytest.Function)
        # name2fixturedefs holds the fixtures a test uses through other fixtures too; the last one of a name
        # is the one it gets.
        fixtures = (definitions[-1].func for definitions in item._fixtureinfo.name2fixturedefs.values())
        if item.get_closest_marker("kernels") or any(getattr(func, _SLOW_FIXTURE, False) for func in fixtures):
            item.add_marker(SLOW)
        # One worker for a file's slow tests (their module fixtures' boots and builds are made once), one for
        # all of ALONE's, and one for the tests that run beside them in the full suite: the fast ones, then
        # one_cpu's (the fast tier's spread one by one).
        if _beside_alone(item):
            if not config.getoption("fast"):
                item.add_marker(pytest.mark.xdist_group(BESIDE_ALONE_GROUP))
        elif not item.get_closest_marker("xdist_group"):
            group = ALONE_GROUP if item.path.name in ALONE else item.path.name
            if item.path.name in SPREAD and not _shares_a_module_fixture(item):
                # A group of its own (xdist reads a name with "]" as none: no test id in it).
                group = f"{ONE}{item.path.name}:{position}"
            item.add_marker(pytest.mark.xdist_group(group))
    if config.getoption("fast"):
        slow = [item for item in items if item.get_closest_marker(SLOW)]
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker(SLOW)]
    elif os.environ.get("PYTEST_XDIST_WORKER"):
        items[:] = _scheduled(items)


def _scheduled(items: list[pytest.Item]) -> list[pytest.Item]:
    """``items`` in the order xdist hands them out (test.sh's --no-loadscope-reorder: in collection order, a
    group at its first test): ALONE's group first, then the group that runs beside it (the fast tests, then
    the one_cpu ones), so that while ALONE's tests keep every other slow test out, one worker has those to
    run; then the files' groups, the most tests first, so that no long one starts last; then the slow tests
    spread one by one, which fill what the groups leave."""
    groups: dict[str, int] = {}
    for item in items:
        group = _group(item)
        if group is not None:
            groups[group] = groups.get(group, 0) + 1

    def rank(item: pytest.Item) -> tuple[int, int]:
        group = _group(item)
        if group == ALONE_GROUP:
            return (0, 0)
        if group == BESIDE_ALONE_GROUP:
            return (1, 1 if item.get_closest_marker(SLOW) else 0)
        if group.startswith(ONE):
            return (3, 0)
        return (2, -groups[group])

    return sorted(items, key=rank)


def _beside_alone(item: pytest.Item) -> bool:
    """Whether ``item`` may run beside ALONE's group: a fast test, or a slow one marked one_cpu."""
    return not item.get_closest_marker(SLOW) or item.get_closest_marker(ONE_CPU) is not None


def _group(item: pytest.Item) -> str | None:
    marker = item.get_closest_marker("xdist_group")
    return str(marker.args[0]) if marker is not None and marker.args else None


def _shares_a_module_fixture(item: pytest.Function) -> bool:
    """Whether ``item`` uses, directly or through another, a fixture made once for several tests of its file."""
    return any(
        definitions[-1].scope in ("module", "class", "package")
        for definitions in item._fixtureinfo.name2fixturedefs.values()
    )


class _FastTier:
    """The stubs of the fast tier, and the failure of any test that ran one."""

    def __init__(self) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="rtscope-fast-tier-"))
        self.started = self.directory / "started"
        stub = self.directory / "rtscope-probe"
        stub.write_text(STUB.format(started=self.started))
        stub.chmod(0o755)
        for name in STUBBED_EMULATORS:
            (self.directory / name).symlink_to(stub)
        self.saved = {name: os.environ.get(name) for name in ("RTSCOPE_PROBE", "PATH")}
        os.environ["RTSCOPE_PROBE"] = str(stub)
        os.environ["PATH"] = f"{self.directory}{os.pathsep}{os.environ.get('PATH', '')}"

    def pytest_unconfigure(self) -> None:
        for name, value in self.saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(self.directory, ignore_errors=True)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self) -> Iterator[None]:
        outcome = yield
        if self.started.exists():
            started = self.started.read_text().strip()
            self.started.unlink()
            report = outcome.get_result()
            report.outcome = "failed"
            report.longrepr = (
                f"this test of the fast tier started {started!r}: let it use the fixture that provides it (probe,"
                " or another slow_fixture of tests/conftest.py)"
            )


class _Alone:
    """On an xdist worker: ALONE's group runs with no slow test running on another worker, and a slow test
    waits while it runs, through a lock every worker of the session shares (a readers' and writer's lock:
    flock's shared and exclusive modes, behind a turnstile so that a waiting writer is not passed by readers
    forever). The group holds the lock from its first test to its last, not test by test: one worker runs
    BESIDE_ALONE_GROUP meanwhile (the fast tests, which run beside anything, as the fast tier runs beside
    other work, then the one_cpu tests) and the others wait. Let in between ALONE's tests, the other
    worker's slow tests ran turn about with them, one CPU's worth at a time: in a fresh clone, ALONE's
    phase took 316 s for 121 s of its own tests, with QEMU's boards in between."""

    def __init__(self) -> None:
        # Named by the session's run id, which every worker of one run shares and no other run has.
        directory = Path(tempfile.gettempdir()) / f"rtscope-tests-{os.environ.get('PYTEST_XDIST_TESTRUNUID', 'x')}"
        directory.mkdir(exist_ok=True)
        self.turnstile = directory / "turnstile.lock"
        self.lock = directory / "alone.lock"
        self.held: TextIO | None = None  # the lock's file while this worker holds it

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
        if _beside_alone(item):
            yield
            return
        mode = fcntl.LOCK_EX if _group(item) == ALONE_GROUP else fcntl.LOCK_SH
        if self.held is None:
            lock = open(self.lock, "a")  # noqa: SIM115 (held across ALONE's tests: closed by _release)
            with open(self.turnstile, "a") as turnstile:
                fcntl.flock(turnstile, fcntl.LOCK_EX)
                try:
                    fcntl.flock(lock, mode)
                finally:
                    fcntl.flock(turnstile, fcntl.LOCK_UN)
            self.held = lock
        try:
            yield
        finally:
            # ALONE's group keeps the lock while its next test is one of its own (the worker knows the next test
            # it was handed); every other test gives it back.
            if mode != fcntl.LOCK_EX or nextitem is None or _group(nextitem) != ALONE_GROUP:
                self._release()

    def _release(self) -> None:
        if self.held is not None:
            fcntl.flock(self.held, fcntl.LOCK_UN)
            self.held.close()
            self.held = None


@dataclass
class Outcome:
    """How one rtscope invocation ended."""

    status: int
    out: str
    err: str


@pytest.fixture(scope="session")
def recorded_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Recorded results for ``--target fake:DIR``: a privileged run of the probe's three benches, and an
    unprivileged run of one more bench, mutex.lock, with an invalid metric."""
    directory = tmp_path_factory.mktemp("recorded")
    builders.write(directory / "a-privileged.json", builders.result_doc())
    builders.write(
        directory / "b-unprivileged.json",
        builders.result_doc(
            run_id="fedcba9876543210",
            hostname="other-host",
            privileged=False,
            benches={"mutex.lock": 800.0},
            invalid=("mutex.lock",),
        ),
    )
    return directory


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Where this test's results database goes (not created)."""
    return tmp_path / "data" / "results.sqlite"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def store_location(request: pytest.FixtureRequest, db_path: Path) -> str:
    """Where a new store goes, once on each kind (the test runs twice): this test's SQLite file, or a new
    database of the test cluster (its writer's URL)."""
    if request.param == "sqlite":
        return str(db_path)
    cluster = request.getfixturevalue("postgres")
    return str(cluster.url(cluster.new_database()))


@pytest.fixture
def rtscope(
    db_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., Outcome]:
    """Run rtscope in this process, with this test's database: rtscope("runs", "--limit", "2")."""
    monkeypatch.setenv("RTSCOPE_DB", str(db_path))
    monkeypatch.setenv("NO_COLOR", "1")

    def run(*args: str) -> Outcome:
        status = cli.main([str(arg) for arg in args])
        captured = capsys.readouterr()
        return Outcome(status, captured.out, captured.err)

    return run


@pytest.fixture
def fake(rtscope: Callable[..., Outcome], recorded_dir: Path) -> Callable[..., Outcome]:
    """Like ``rtscope``, with the fake target replaying ``recorded_dir``."""
    return lambda *args: rtscope("--target", f"fake:{recorded_dir}", *args)


def process_env(db_path: Path) -> dict[str, str]:
    """The environment for running rtscope as a separate process with this test's database."""
    return {**os.environ, "RTSCOPE_DB": str(db_path), "PYTHONPATH": str(REPO / "src"), "NO_COLOR": "1"}


@pytest.fixture
def rtscope_process(db_path: Path) -> Callable[..., Outcome]:
    """Run ``python -m rtscope`` as a separate process, with this test's database."""

    def run(*args: str) -> Outcome:
        completed = subprocess.run(
            [sys.executable, "-m", "rtscope", *map(str, args)],
            capture_output=True,
            text=True,
            env=process_env(db_path),
            timeout=120,
            check=False,
        )
        return Outcome(completed.returncode, completed.stdout, completed.stderr)

    return run


def start_rtscope(db_path: Path, *args: str | Path, output: int = subprocess.PIPE) -> subprocess.Popen[str]:
    """``python -m rtscope ARGS`` started with this test's database, in a session of its own (a test signals
    its group, as a terminal's Ctrl-C does); its stdout and stderr go to ``output``."""
    return subprocess.Popen(
        [sys.executable, "-m", "rtscope", *map(str, args)],
        env=process_env(db_path),
        stdout=output,
        stderr=output,
        text=True,
        start_new_session=True,
    )


def probe_result(
    probe: Path, *args: str, status: int = 0, as_user: Sequence[str] = (), timeout: float = 120
) -> dict[str, Any]:
    """The result document of ``rtscope-probe run ARGS`` (``as_user``: the command that runs it as another
    user), read from its standard output, after its exit status, and valid against the schema. A status
    other than ``status`` fails the test naming the benches that failed and why (--quiet keeps stderr
    empty)."""
    ran = subprocess.run(
        [*as_user, str(probe), "run", *args, "--quiet", "--json", "-"],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    doc: dict[str, Any] | None = json.loads(ran.stdout) if ran.stdout.strip() else None
    failed = [(bench["id"], bench["error"]) for bench in doc["benches"] if bench["status"] != "ok"] if doc else []
    assert ran.returncode == status, (ran.stderr, failed)
    jsonschema.validate(doc, builders.SCHEMA)
    assert doc is not None
    return doc


def make_probe(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``make -s -C probe ARGS``, its output kept for the test to judge; one at a time among the suite's
    workers and rtscope's own builds in its folder (rtscope.targets.probes.make's lock), whose rules share
    the generated files: the BUILD=DIR it names, else probe/build (a port's default folders are under it)."""
    named = [str(arg).split("=", 1)[1] for arg in args if str(arg).startswith("BUILD=")]
    build = REPO / "probe" / (named[-1] if named else "build")  # an absolute DIR stays itself
    build.mkdir(parents=True, exist_ok=True)
    with open(build / ".probes.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return subprocess.run(
            ["make", "-s", "-C", str(REPO / "probe"), *map(str, args)],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )


@slow_fixture(scope="session")
def probe() -> Path:
    """The real probe binary, built with ``make -C probe`` when needed; skips when it cannot be built."""
    if os.environ.get("RTSCOPE_PROBE"):
        return Path(os.environ["RTSCOPE_PROBE"])
    built = make_probe()
    binary = REPO / "probe" / "build" / "rtscope-probe"
    if built.returncode != 0 or not binary.exists():
        pytest.skip(f"the probe cannot be built: {built.stderr.strip()[-300:]}")
    return binary


@slow_fixture(scope="session")
def board_tools() -> None:
    """What the emulated RTOS board (--target qemu:mps2-an385:freertos) needs: its emulator, the Cortex-M
    compiler and a FreeRTOS kernel; skips the test without them, saying which is missing."""
    missing = [
        f"needs {what}"
        for what, present in (
            ("qemu-system-arm", shutil.which("qemu-system-arm")),
            ("arm-none-eabi-gcc", shutil.which("arm-none-eabi-gcc")),
        )
        if not present
    ]
    missing += [why for why in (kernels.missing("freertos"),) if why]
    if missing:
        pytest.skip("; ".join(missing))


def assert_kernel_provenance(doc: dict[str, Any], os_name: str) -> None:
    """``doc`` (a result of an image of kernel ``os_name``) names the user's checkout the image was built
    from: its absolute path, outside the repository, and its sources as rtscope.targets.kernels identifies
    them (the commit, or else the hash, which make computed apart) in the manifest and the version line."""
    named = kernels.checkout(os_name)
    identity = kernels.identity(named.kernel, named.path)
    manifest = doc["system"]["os_config"]
    assert manifest["kernel_path"] == str(named.path) and named.path.is_absolute()
    assert not named.path.is_relative_to(REPO)
    assert manifest["kernel_sources_sha256"] == identity.sources_sha256
    assert manifest["kernel_tested"] is (named.kernel.version(named.path) in named.kernel.tested)
    if identity.commit:
        assert manifest["kernel_commit"] == identity.commit and manifest["kernel_modified"] is identity.modified
        assert f"commit {identity.commit}" in doc["system"]["kernel_version"]
    else:
        assert "kernel_modified" not in manifest
        assert f"sources sha256 {identity.sources_sha256}" in doc["system"]["kernel_version"]


@slow_fixture(scope="session")
def postgres() -> Iterator["pg.Cluster"]:
    """A throwaway PostgreSQL cluster (tests/support/postgres.py) for the session; skips when PostgreSQL is not
    installed. ``postgres.new_database()`` gives each test its own database."""
    reason = pg.unavailable()
    if reason:
        pytest.skip(reason)
    with pg.cluster() as cluster:
        yield cluster


# The labgrid lab of tests/test_labgrid_places.py (tests/support/labgrid_lab.py): a real coordinator and exporter on
# 127.0.0.1, two tagged places whose NetworkService is one sshd of tests/support/sshd.py.
LABGRID_PLACES = {"board-a": {"kind": "test", "slot": "1"}, "board-b": {"kind": "test", "slot": "2"}}


@slow_fixture(scope="session")
def labgrid_fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any]]:
    """(the sshd, the labgrid lab) for the session; skips without labgrid or without an sshd to start."""
    import importlib.util

    from support import labgrid_lab, sshd

    if importlib.util.find_spec("labgrid") is None:
        pytest.skip("labgrid is not installed (./setup.sh installs requirements-labgrid.txt)")
    if sshd.unavailable():
        pytest.skip(sshd.unavailable() or "")
    directory = tmp_path_factory.mktemp("labgrid-fleet")
    with (
        sshd.server(directory / "sshd") as server,
        labgrid_lab.lab(directory / "lab", server.port, LABGRID_PLACES) as lab,
    ):
        yield server, lab
