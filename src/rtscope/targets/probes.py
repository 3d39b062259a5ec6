"""The static probes rtscope copies to boards: which build a board needs, made here on demand.

A board tells its architecture by ``uname -m``, in one of several spellings. The interface:

- ``arch_for(machine)``: the probe build for a ``uname -m`` value (one of ``ARCHES``), or RtscopeError
  ``no probe build for architecture X (builds: aarch64, armhf, riscv64, x86_64)``.
- ``probe_for(machine)``: the file of that build, ``probe/build/rtscope-probe-ARCH``: fully static and
  stripped, so it runs on the board without Python or a matching C library. Every call runs ``make -C
  probe build/rtscope-probe-ARCH``, which does nothing (a few ms) when the build is up to date and
  cross-compiles it (about 6 s) when it is missing or older than a probe source. A missing cross
  compiler or a failed build raises RtscopeError with one line (the Debian packages to install, or the
  compiler's first error). Safe to call from several threads or processes at once: builds are serialised
  by a lock file, and make renames a finished build into place, so a reader never sees half a file.
- ``make(goals, what)``: ``make -s -C probe GOALS…``, the one way rtscope builds a probe image (the
  static probes above, the RTOS images of rtscope.targets.mcu.qemu_board), one at a time, with the same
  one-line errors.
- ``native()``: this machine's own probe, ``BUILD_DIR/rtscope-probe`` (make's default build), brought up
  to date the same way: the local target's, unless --probe or RTSCOPE_PROBE names another. BUILD_DIR is
  probe/build in a clone, a directory in the user's cache for an installed package (rtscope.paths).
- ``identity(path)``: what a build is, cheaply: the sha256 of the file in hex, as ``sha256sum``
  prints it (about 2 ms for 1 MB). A remote target can keep the probe under a name that includes it and
  skip the copy when that file is already there.

Adding an architecture (docs/targets.md): CROSS_ARCHES, TRIPLET_ and DEBARCH_ in probe/Makefile, its
``uname -m`` spellings in MACHINES below.
"""

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

from rtscope import paths
from rtscope.errors import RtscopeError

PROBE_DIR = paths.PROBE_DIR
BUILD_DIR = paths.probe_build_dir()
# A bound, not an estimate: a cross build takes about 6 s, an RTOS image (its kernel compiled too) about 12 s to 50 s.
BUILD_TIMEOUT_S = 900
# How make ends on a Makefile's $(error TEXT): "FILE:LINE: *** TEXT.  Stop."
_MAKE_STOP = re.compile(r"\S+:\d+: \*\*\* (.*)\.  Stop\.")

# uname -m values (and Debian's names for the same) to the probe build that runs there.
MACHINES = {
    "x86_64": "x86_64",
    "amd64": "x86_64",
    "aarch64": "aarch64",
    "arm64": "aarch64",
    # Debian's armhf needs ARMv7 (Thumb-2, VFPv3); a 64-bit ARM CPU running 32-bit says armv8l.
    # Not armv6l (Raspberry Pi 1 and Zero): Debian's armhf C library dies of SIGILL there.
    "armv7l": "armhf",
    "armv8l": "armhf",
    "armhf": "armhf",
    "riscv64": "riscv64",
}
ARCHES = tuple(sorted(set(MACHINES.values())))


def arch_for(machine: str) -> str:
    """The probe build that runs on a machine whose ``uname -m`` is ``machine``.

    Raises RtscopeError naming the architecture and the builds there are when there is none for it.
    """
    arch = MACHINES.get(machine.strip())
    if arch is None:
        raise RtscopeError(
            f"no probe build for architecture {machine.strip() or '(empty)'} (builds: {', '.join(ARCHES)})"
        )
    return arch


def probe_for(machine: str, build_dir: Path = BUILD_DIR) -> Path:
    """The static probe for a machine whose ``uname -m`` is ``machine``, built in ``build_dir`` when it is
    missing or stale (``build_dir`` is make's BUILD: the repository's probe/build unless a test says).

    Raises RtscopeError (one line) for an architecture without a build, a missing cross compiler or make,
    or a build that fails.
    """
    arch = arch_for(machine)
    build_dir = build_dir.resolve()
    probe = build_dir / f"rtscope-probe-{arch}"
    make([f"BUILD={build_dir}", str(probe)], f"the {arch} probe", build_dir)
    return probe


def make(goals: list[str], what: str, build_dir: Path = BUILD_DIR) -> None:
    """``make -s -C probe GOALS…`` (variables and targets), building ``what`` (named so in messages),
    one build at a time in ``build_dir``.

    Raises RtscopeError (one line) without make, when the build outlasts BUILD_TIMEOUT_S or when it
    fails (the Makefile's message or the compiler's first error).
    """
    build_dir.mkdir(parents=True, exist_ok=True)
    command = ["make", "-s", "-C", str(PROBE_DIR), *goals]
    # make's rules share the generated bench registry: one build at a time in a build directory.
    with open(build_dir / ".probes.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            completed = subprocess.run(
                command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, check=False
            )
        except FileNotFoundError:
            raise RtscopeError(f"building {what} needs make (apt-get install make)") from None
        except subprocess.TimeoutExpired:
            raise RtscopeError(f"building {what} took more than {BUILD_TIMEOUT_S} s") from None
    if completed.returncode != 0:
        raise RtscopeError(f"building {what} failed: {_first_error(completed.stderr)}")


def native() -> Path:
    """rtscope's own probe for this machine (make's default build, ``BUILD_DIR/rtscope-probe``), built when
    it is missing or stale: how rtscope installed as a package gets the probe it runs here.

    Raises RtscopeError (one line) when it is missing and there is no C compiler, without make, or when the
    build fails.
    """
    probe = BUILD_DIR.resolve() / "rtscope-probe"
    compiler = (os.environ.get("CC") or "cc").split()[0]  # make's, which CC may give with its options
    if not probe.exists() and shutil.which(compiler) is None:
        raise RtscopeError(
            f"building the probe needs a C compiler: no {compiler} (Debian: apt-get install build-essential)"
        )
    make([f"BUILD={probe.parent}", str(probe)], "the probe", probe.parent)
    return probe


def identity(path: Path) -> str:
    """The sha256 of the probe file at ``path``, in hex: equal for the same build, wherever it is."""
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def _first_error(stderr: str) -> str:
    """The line of a failed build's output that says why: the Makefile's own message or the compiler's
    first error, rather than make's closing "Error 1"."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        # A Makefile's $(error …): its text, without make's place and "Stop".
        stopped = _MAKE_STOP.fullmatch(line)
        if stopped:
            return stopped.group(1)
    not_make = [line for line in lines if not line.startswith("make")]
    errors = [line for line in not_make if line.startswith("probe:") or "error" in line.lower()]
    return (errors or not_make or lines or ["make gave no reason"])[0].removeprefix("probe: ")
