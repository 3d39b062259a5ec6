"""Shared fixtures: recorded results for the fake target, an isolated database, ways to run the CLI."""

import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

import builders
from rtscope import cli

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
GOLDEN = sorted((REPO / "tests" / "golden").glob("*.json"))


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


@pytest.fixture(scope="session")
def probe() -> Path:
    """The real probe binary, built with ``make -C probe`` when needed; skips when it cannot be built."""
    if os.environ.get("RTSCOPE_PROBE"):
        return Path(os.environ["RTSCOPE_PROBE"])
    built = subprocess.run(["make", "-s", "-C", str(REPO / "probe")], capture_output=True, text=True, check=False)
    binary = REPO / "probe" / "build" / "rtscope-probe"
    if built.returncode != 0 or not binary.exists():
        pytest.skip(f"the probe cannot be built: {built.stderr.strip()[-300:]}")
    return binary
