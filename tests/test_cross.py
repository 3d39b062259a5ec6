"""The static probes for boards (rtscope.targets.probes, make -C probe cross): which build a board's
``uname -m`` gets, building one on demand, and each cross-built probe listing its benches and measuring
under qemu-user (qemu-ARCH-static invoked explicitly: no binfmt registration needed)."""

import hashlib
import os
import platform
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, slow_fixture
from rtscope.errors import RtscopeError
from rtscope.model import result
from rtscope.targets import probes

# Per build: the cross compiler probe/Makefile uses and the qemu-user that runs it here.
TOOLS = {
    "x86_64": ("x86_64-linux-gnu-gcc", "qemu-x86_64-static"),
    "aarch64": ("aarch64-linux-gnu-gcc", "qemu-aarch64-static"),
    "armhf": ("arm-linux-gnueabihf-gcc", "qemu-arm-static"),
    "riscv64": ("riscv64-linux-gnu-gcc", "qemu-riscv64-static"),
}
NATIVE_ARCH = probes.MACHINES.get(platform.machine())
UNKNOWN = "no probe build for architecture {} (builds: aarch64, armhf, riscv64, x86_64)"


@pytest.mark.parametrize(
    ("machine", "arch"),
    [
        ("x86_64", "x86_64"),
        ("amd64", "x86_64"),
        ("aarch64", "aarch64"),
        ("arm64", "aarch64"),
        ("armv7l", "armhf"),
        ("armv8l", "armhf"),
        ("riscv64", "riscv64"),
        ("aarch64\n", "aarch64"),
    ],
)
def test_a_machine_gets_the_build_of_its_architecture(machine: str, arch: str):
    assert probes.arch_for(machine) == arch


@pytest.mark.parametrize("machine", ["armv6l", "mips", "i686", "ppc64le"])
def test_an_architecture_without_a_build_is_refused_in_one_line(machine: str):
    with pytest.raises(RtscopeError, match=re.escape(UNKNOWN.format(machine))):
        probes.probe_for(machine)


def test_the_builds_are_those_the_makefile_makes():
    declared = re.search(r"^CROSS_ARCHES\s*:=(.*)$", (REPO / "probe" / "Makefile").read_text(), re.MULTILINE)
    assert declared and sorted(declared.group(1).split()) == list(probes.ARCHES)


def _require_compiler(arch: str) -> None:
    compiler = TOOLS[arch][0]
    if not shutil.which(compiler):
        pytest.skip(f"{compiler} missing (./setup.sh installs Debian's cross compilers)")


@slow_fixture(scope="session", params=probes.ARCHES)
def built(request: pytest.FixtureRequest) -> tuple[str, Path]:
    """Each architecture's probe, built (when stale) once per session in probe/build."""
    arch = request.param
    _require_compiler(arch)
    return arch, probes.probe_for(arch)


def _runner(arch: str) -> list[str]:
    """How this machine runs a probe of ``arch``: directly when it is its own, else under qemu-user."""
    if arch == NATIVE_ARCH:
        return []
    qemu = TOOLS[arch][1]
    if not shutil.which(qemu):
        pytest.skip(f"{qemu} missing (./setup.sh installs qemu-user-static)")
    return [qemu]


def test_a_cross_built_probe_is_static_and_lists_its_benches(built: tuple[str, Path]):
    arch, probe = built
    headers = subprocess.run(["readelf", "-lS", str(probe)], capture_output=True, text=True, check=True).stdout
    assert "INTERP" not in headers, "not static: it names a dynamic loader"
    assert ".symtab" not in headers, "not stripped"
    listed = subprocess.run(
        [*_runner(arch), str(probe), "list"], capture_output=True, text=True, timeout=60, check=False
    )
    assert listed.returncode == 0, listed.stderr
    assert "clock.read" in listed.stdout and "ctxsw.sem" in listed.stdout


def test_a_cross_built_probe_measures_a_valid_result(built: tuple[str, Path], tmp_path: Path):
    arch, probe = built
    output = tmp_path / "result.json"
    # Under user-mode emulation on a busy machine, ctxsw.sem's two threads may not finish one round trip in
    # its 0.2 s: the probe then says "no samples" (invalid), and the run is made again, up to three times.
    for _ in range(3):
        measured = subprocess.run(
            [
                *_runner(arch),
                str(probe),
                "run",
                "clock.read",
                "ctxsw.sem",
                "--duration",
                "0.2",
                # 1000 warm-up round trips by default: under user-mode emulation on a busy machine they can
                # outlast the 0.2 s, leaving nothing measured (seen for riscv64).
                "--param",
                "ctxsw.sem:warmup=10",
                "--policy",
                "other",
                "--no-mlock",
                "--quiet",
                "--json",
                str(output),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert measured.returncode == 0, measured.stderr
        doc = result.load(output).doc  # validated against the schema
        metrics = {metric["id"]: metric for metric in doc["metrics"]}
        if metrics["ctxsw.sem"]["stats"]["count"] > 0:
            break
        assert (metrics["ctxsw.sem"]["valid"], metrics["ctxsw.sem"]["invalid_reason"]) == (False, "no samples")
    # What the probe says it ran on (under qemu-arm: armv7l) maps back to its own build.
    assert probes.arch_for(doc["system"]["arch"]) == arch
    assert metrics["clock.read"]["valid"] and metrics["clock.read"]["stats"]["count"] > 0
    assert metrics["ctxsw.sem"]["stats"]["count"] > 0


# A cross compiler's stand-in: it answers probe/Makefile's question for the static C library, and builds by
# writing a line to -o's file, counting its builds in CALLS beside it. Whether a real build runs is
# test_a_cross_built_probe_is_static_and_lists_its_benches's and test_ssh's; this is when one is made.
STAND_IN_GCC = """#!/bin/sh
case "$1" in -print-file-name=*) echo /stand-in/libc.a; exit 0;; esac
echo build >> "$(dirname "$0")/CALLS"
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
echo "a stand-in for a probe" > "$out"
"""


def test_a_missing_or_stale_probe_is_built_and_an_up_to_date_one_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    compiler = tmp_path / "tools" / "stand-in-gcc"
    compiler.parent.mkdir()
    compiler.write_text(STAND_IN_GCC)
    compiler.chmod(0o755)
    monkeypatch.setenv("MAKEFLAGS", f"TRIPLET_aarch64={compiler.parent / 'stand-in'}")
    build = tmp_path / "build"

    def builds() -> int:
        calls = compiler.parent / "CALLS"
        return len(calls.read_text().splitlines()) if calls.exists() else 0

    probe = probes.probe_for("aarch64", build_dir=build)
    assert probe == build / "rtscope-probe-aarch64" and builds() == 1
    built_at = probe.stat().st_mtime_ns
    assert probes.probe_for("aarch64", build_dir=build) == probe and builds() == 1
    assert probe.stat().st_mtime_ns == built_at

    os.utime(probe, (0, 0))  # older than every probe source: stale
    probes.probe_for("aarch64", build_dir=build)
    assert builds() == 2 and probe.stat().st_mtime_ns > built_at
    assert probes.identity(probe) == hashlib.sha256(probe.read_bytes()).hexdigest()
    assert not list(build.glob("*.tmp"))


def test_a_missing_cross_compiler_is_named_with_its_debian_packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # A command-line variable in MAKEFLAGS: make looks for a compiler that no machine has.
    monkeypatch.setenv("MAKEFLAGS", "TRIPLET_aarch64=nowhere-linux-gnu")
    with pytest.raises(RtscopeError) as raised:
        probes.probe_for("arm64", build_dir=tmp_path)
    assert str(raised.value) == (
        "building the aarch64 probe failed: no nowhere-linux-gnu-gcc with a static "
        "C library (apt-get install gcc-nowhere-linux-gnu libc6-dev-arm64-cross)"
    )
    assert not (tmp_path / "rtscope-probe-aarch64").exists()


def test_identity_tells_builds_apart(tmp_path: Path):
    (tmp_path / "a").write_bytes(b"one build")
    (tmp_path / "b").write_bytes(b"one build")
    (tmp_path / "c").write_bytes(b"another build")
    identities = [probes.identity(tmp_path / name) for name in "abc"]
    assert identities[0] == identities[1] != identities[2]
    assert re.fullmatch(r"[0-9a-f]{64}", identities[0])
