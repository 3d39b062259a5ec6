"""rtscope as a package: one version for the analyzer, the probe and the package; where its probe is built;
and a wheel installed into a new virtual environment outside the repository, whose rtscope builds its
probe on first use and measures."""

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import rtscope
from conftest import REPO, Outcome, slow_fixture
from rtscope import paths

# A wheel's build, pip and the probe's build: one CPU at a time, nothing ALONE's tests judge.
pytestmark = pytest.mark.one_cpu


def test_the_version_is_the_probes():
    header = (REPO / "probe" / "src" / "version.h").read_text(encoding="utf-8")
    assert f'#define RTS_PROBE_VERSION "{rtscope.__version__}"\n' in header


def test_a_clone_builds_its_probes_in_probe_build():
    assert not paths.INSTALLED
    assert paths.default_probe_path({}) == REPO / "probe" / "build" / "rtscope-probe"
    assert paths.default_probe_path({"RTSCOPE_PROBE": "/opt/probe"}) == Path("/opt/probe")


def test_an_installed_package_builds_its_probes_in_the_users_cache(monkeypatch):
    monkeypatch.setattr(paths, "INSTALLED", True)
    build = paths.probe_build_dir({"HOME": "/home/u"})
    assert build.parent == Path("/home/u/.cache/rtscope")
    assert build.name.startswith(f"probe-{rtscope.__version__}-")
    assert paths.probe_build_dir({"HOME": "/home/u", "XDG_CACHE_HOME": "/cache"}) == Path("/cache/rtscope", build.name)
    assert paths.probe_build_dir({"HOME": "/home/u", "XDG_CACHE_HOME": "cache"}) == build


@dataclass
class Installed:
    wheel: Path
    bin: Path
    directory: Path

    def run(self, *args: str, **env: str) -> Outcome:
        """rtscope from the installed package, in ``directory``, with a home of its own unless ``env`` says."""
        environment = {
            **{key: value for key, value in os.environ.items() if key not in ("RTSCOPE_PROBE", "PYTHONPATH")},
            "PATH": f"{self.bin}{os.pathsep}{os.environ['PATH']}",
            "HOME": str(self.directory / "home"),
            "XDG_CACHE_HOME": "",
            "RTSCOPE_DB": str(self.directory / "results.sqlite"),
            "NO_COLOR": "1",
            **env,
        }
        completed = subprocess.run(
            ["rtscope", *args],
            check=False,
            cwd=self.directory,
            env=environment,
            capture_output=True,
            text=True,
            timeout=300,
        )
        return Outcome(completed.returncode, completed.stdout, completed.stderr)


@slow_fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """A wheel built from a copy of the repository (a build writes into its source tree), installed with its
    dependencies into a new virtual environment; all of it in a temporary directory."""
    root = tmp_path_factory.mktemp("install")
    source = root / "source"
    shutil.copytree(
        REPO, source, ignore=shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info", "__pycache__", ".*_cache")
    )
    pip = ["-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([sys.executable, *pip, "wheel", "--no-deps", source, "-w", root / "wheels"], check=True, timeout=300)
    [wheel] = (root / "wheels").glob("*.whl")
    # Without a pip of its own (ensurepip's install of one took 6 s of CPU): this pip installs into it.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", root / "venv"], check=True, timeout=120)
    # --no-compile, as setup.sh installs: compiling every file of numpy and scipy was most of the install.
    subprocess.run(
        [sys.executable, *pip, "--python", root / "venv" / "bin" / "python", "install", "--no-compile", wheel],
        check=True,
        timeout=600,
    )
    (root / "work").mkdir()
    return Installed(wheel, root / "venv" / "bin", root / "work")


def test_the_package_rtscope_and_its_probe_have_one_version(installed):
    assert installed.wheel.name.startswith(f"rtscope-{rtscope.__version__}-")
    assert installed.run("--version") == Outcome(0, f"rtscope {rtscope.__version__}\n", "")
    assert installed.run("list").status == 0  # builds the probe
    [probe] = (installed.directory / "home" / ".cache" / "rtscope").glob("probe-*/rtscope-probe")
    said = subprocess.run([probe, "version"], capture_output=True, text=True, check=True).stdout
    assert said.startswith(f"rtscope-probe {rtscope.__version__} ")


def test_the_installed_rtscope_builds_its_probe_lists_and_measures(installed):
    listed = installed.run("list")
    assert listed.status == 0, listed.err
    assert "clock.read" in listed.out and "ctxsw.sem" in listed.out
    ran = installed.run("run", "clock.read", "--duration", "0.2", "--policy", "other", "--no-mlock")
    assert ran.status == 0, ran.err
    assert "clock.read" in ran.out and "valid" in ran.out
    assert "clock.read" in installed.run("runs").out


def test_without_a_c_compiler_the_installed_rtscope_says_so(installed):
    outcome = installed.run("list", HOME=str(installed.directory / "bare-home"), CC="/nonexistent/cc")
    assert outcome == Outcome(
        2,
        "",
        "rtscope: building the probe needs a C compiler: no /nonexistent/cc (Debian: apt-get install build-essential)\n",
    )


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--only", "kernels"], "setup: --only needs one of packages, python, probe"),
        (["--only"], "setup: --only needs one of packages, python, probe"),
        (["--kernels"], "setup: --kernels needs a folder"),
        (["--fast"], "setup: unknown argument --fast"),
    ],
)
def test_setup_refuses_bad_arguments_in_one_line_before_doing_anything(arguments, message):
    refused = subprocess.run([REPO / "setup.sh", *arguments], capture_output=True, text=True, timeout=60, check=False)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == f"{message} (setup.sh [--kernels DIR] [--only packages|python|probe])\n"
