"""The RTOS kernels the probe's ports build against: the user's checkouts, never rtscope's (docs/rtos.md).

A kernel is named by its variable (``FREERTOS_KERNEL``, ``THREADX``: probe/Makefile reads the same ones),
else by the link ``rtscope kernels add`` makes in ``$XDG_CONFIG_HOME/rtscope/kernels/NAME`` (~/.config
when unset or relative), which probe/Makefile reads as well; the variable wins. What each port knows of
its kernel's versions — those it was tested with, the oldest it builds with and why — is written once, in
its port.mk, and read from there. A checkout is identified by its git commit (and whether the files the
ports compile have local changes) and by a hash of those files, computed as port.mk computes it.
"""

import dataclasses
import hashlib
import os
import re
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from rtscope import paths
from rtscope.errors import RtscopeError

ENVIRONMENT, CONFIG = "environment", "config"
# Characters make cannot take in a path (it splits words at blanks, and the rest is its syntax or the
# shell's in a recipe).
_UNSAFE_PATH = re.compile(r"[\s'\"$\\#%:;*?\[\]()`]")
GIT_TIMEOUT_S = 30


class KernelMissing(RtscopeError):
    """No checkout of a kernel a command needs is named, or the one named is not there: nothing can be
    built for that kernel until the user names one (the message says how)."""


@dataclasses.dataclass(frozen=True)
class Kernel:
    """An RTOS the probe has a port for: how the user names its checkout and how it reads one."""

    key: str  # the word rtscope kernels, --target qemu:BOARD:KEY and make's PORT= use
    name: str  # as its users spell it
    env: str  # the variable naming the user's checkout
    marker: str  # a file every checkout has
    checkout: str  # what the variable must name
    product: str  # how results name the kernel (its version line)

    def port_setting(self, name: str) -> str:
        """The value of ``NAME := value`` in the port's port.mk (its tested versions, its oldest, the
        files that identify a checkout): the one place make and rtscope read them from."""
        port_mk = paths.PROBE_DIR / "port" / self.key / "port.mk"
        found = re.search(rf"^{name}\s*:=[ \t]*(.*)$", port_mk.read_text(encoding="utf-8"), re.MULTILINE)
        if found is None:
            raise RuntimeError(f"no {name} in {port_mk}")
        return found.group(1).strip()

    @property
    def tested(self) -> tuple[str, ...]:
        """The versions the port was tested with, as the checkout's header spells them."""
        return tuple(self.port_setting(f"{self.prefix}_TESTED").split())

    @property
    def oldest(self) -> str:
        """The oldest version the port builds with."""
        return self.port_setting(f"{self.prefix}_OLDEST")

    @property
    def oldest_why(self) -> str:
        """What the port needs that versions before the oldest lack."""
        return self.port_setting(f"{self.prefix}_OLDEST_WHY")

    @property
    def repository(self) -> str:
        """The kernel's official repository."""
        return self.port_setting(f"{self.prefix}_REPOSITORY")

    @property
    def release(self) -> str:
        """The tag to clone from it: the newest release the port was tested with."""
        return self.port_setting(f"{self.prefix}_RELEASE")

    def how_to_get(self) -> str:
        """The command that fetches it, on a machine with network access."""
        return f"git clone --depth 1 --branch {self.release} {self.repository} DIR"

    def where_to_get(self) -> str:
        """Where to get a checkout and which versions were tested, in words that follow a semicolon."""
        return f"to get one (tested: {', '.join(self.tested)}): {self.how_to_get()}"

    @property
    def identity_files(self) -> tuple[str, ...]:
        """The files and folders of a checkout that the ports compile from: what its hash covers."""
        return tuple(self.port_setting(f"{self.prefix}_SOURCES").split())

    @property
    def prefix(self) -> str:
        """The prefix of the port's make variables."""
        return self.key.upper()

    def version(self, path: Path) -> str | None:
        """The version the checkout at ``path`` says it is (FreeRTOS: "V11.1.0", "V11.1.0+" between
        releases; ThreadX: "6.4.2"); None when its header does not say."""
        if self.key == "freertos":
            text = _read(path / "include" / "task.h")
            found = re.search(r'^#define\s+tskKERNEL_VERSION_NUMBER\s+"([^"]+)"', text, re.MULTILINE)
            return found.group(1) if found else None
        text = _read(path / "common" / "inc" / "tx_api.h")
        parts = [re.search(rf"^#define\s+THREADX_{part}_VERSION\s+(\d+)", text, re.MULTILINE) for part in _TX_PARTS]
        return ".".join(found.group(1) for found in parts if found) if all(parts) else None

    def too_old(self, version: str) -> bool:
        """Whether ``version`` is older than the oldest the port builds with."""
        return _numbers(version) < _numbers(self.oldest)

    def how_to_name(self) -> str:
        """How a user names a checkout of this kernel, in words that follow a colon."""
        return f"set {self.env}=DIR or run: rtscope kernels add {self.key} DIR (DIR: {self.checkout}; docs/rtos.md)"


_TX_PARTS = ("MAJOR", "MINOR", "PATCH")

KERNELS = {
    "freertos": Kernel(
        "freertos",
        "FreeRTOS",
        "FREERTOS_KERNEL",
        "tasks.c",
        "a FreeRTOS-Kernel checkout",
        "FreeRTOS-Kernel",
    ),
    "threadx": Kernel(
        "threadx",
        "ThreadX",
        "THREADX",
        "common/src/tx_thread_create.c",
        "an Eclipse ThreadX checkout",
        "Eclipse ThreadX",
    ),
}


@dataclasses.dataclass(frozen=True)
class Named:
    """A kernel as the user named it: the checkout's path (resolved: the link's target), where it was
    named (ENVIRONMENT or CONFIG) and the name itself (the variable's value, or the link)."""

    kernel: Kernel
    path: Path
    origin: str
    given: str


@dataclasses.dataclass(frozen=True)
class Identity:
    """What identifies a checkout's sources: its git commit (None when it is no git checkout of its own),
    whether the files the ports compile differ from that commit, and the sha256 of those files."""

    commit: str | None
    modified: bool
    sources_sha256: str

    def text(self) -> str:
        """The commit (with "modified" when it is), else the hash, shortened."""
        if self.commit:
            return f"commit {self.commit[:12]}" + (" modified" if self.modified else "")
        return f"sha256 {self.sources_sha256[:16]} (no git)"


def kernel(key: str) -> Kernel:
    """The kernel of that key; RtscopeError naming the ones there are."""
    if key not in KERNELS:
        raise RtscopeError(f"no kernel {key!r} (the kernels are: {', '.join(KERNELS)})")
    return KERNELS[key]


def config_dir(env: Mapping[str, str] = os.environ) -> Path:
    """Where ``rtscope kernels add`` puts its links: $XDG_CONFIG_HOME/rtscope/kernels, ~/.config when that
    is unset, empty or relative (the XDG base directory rule, which probe/Makefile follows too)."""
    config_home = env.get("XDG_CONFIG_HOME", "")
    if not os.path.isabs(config_home):
        config_home = os.path.join(env.get("HOME") or os.path.expanduser("~"), ".config")
    return Path(config_home) / "rtscope" / "kernels"


def named(key: str, env: Mapping[str, str] = os.environ) -> Named | None:
    """The kernel ``key`` as the user named it — its variable, else its link — or None when neither names
    one (a dangling link still names one: the checkout it named is gone)."""
    kernel_ = kernel(key)
    if env.get(kernel_.env):
        given = env[kernel_.env]
        return Named(kernel_, Path(given).expanduser().resolve(), ENVIRONMENT, given)
    link = config_dir(env) / key
    if link.is_symlink() or link.exists():
        return Named(kernel_, link.resolve(), CONFIG, str(link))
    return None


def checkout(key: str, env: Mapping[str, str] = os.environ) -> Named:
    """The kernel ``key``'s checkout as named, which must hold the kernel; KernelMissing in one line
    saying which kernel is missing and how to name one."""
    kernel_ = kernel(key)
    found = named(key, env)
    if found is None:
        raise KernelMissing(f"no {kernel_.name} kernel is named: {kernel_.how_to_name()}")
    if not (found.path / kernel_.marker).is_file():
        by = kernel_.env if found.origin == ENVIRONMENT else f"the link {found.given}"
        raise KernelMissing(
            f"no {kernel_.name} kernel at {found.path} (named by {by}; {kernel_.checkout} has {kernel_.marker}): "
            f"{kernel_.how_to_name()}"
        )
    return found


def missing(key: str, env: Mapping[str, str] = os.environ) -> str:
    """Why kernel ``key`` cannot be built against, in one line; "" when its checkout is there."""
    try:
        checkout(key, env)
    except KernelMissing as error:
        return str(error)
    return ""


def identity(kernel_: Kernel, path: Path) -> Identity:
    """The checkout at ``path``: its commit where it is a git checkout of its own (not a folder inside
    another repository), whether git sees local changes in the files the ports compile, and their hash
    (port.mk computes the same: sha256sum's lines for each file, sorted by path, hashed)."""
    files = kernel_.identity_files
    commit, modified = None, False
    top = _git(path, "rev-parse", "--show-toplevel")
    if top and Path(top).resolve() == path.resolve():
        commit = _git(path, "rev-parse", "HEAD") or None
        modified = bool(_git(path, "status", "--porcelain", "--", *files))
    return Identity(commit, modified, sources_sha256(path, files))


def sources_sha256(path: Path, files: tuple[str, ...]) -> str:
    """The sha256 of the lines ``sha256sum`` prints for every regular file under ``files`` (relative to
    ``path``), in the C locale's order of their paths: what port.mk's find | sort | sha256sum gives."""
    found: list[str] = []
    for name in files:
        start = path / name
        if start.is_file() and not start.is_symlink():
            found.append(name)
        elif start.is_dir() and not start.is_symlink():
            for directory, _, names in os.walk(start):
                for file_name in names:
                    full = Path(directory) / file_name
                    if full.is_file() and not full.is_symlink():
                        found.append(str(full.relative_to(path)))
    lines = b"".join(
        hashlib.sha256((path / name).read_bytes()).hexdigest().encode() + b"  " + name.encode() + b"\n"
        for name in sorted(found, key=lambda name: name.encode())
    )
    return hashlib.sha256(lines).hexdigest()


@dataclasses.dataclass(frozen=True)
class Status:
    """What ``rtscope kernels`` says of a kernel: how it is named (None: not at all), the checkout's version
    and identity where it is there, and why the port cannot be built against it ("" when it can)."""

    kernel: Kernel
    named: Named | None
    version: str | None
    identity: Identity | None
    problem: str

    @property
    def tested(self) -> bool:
        """Whether the port was tested with the checkout's version."""
        return self.version is not None and self.version in self.kernel.tested


def status(key: str, env: Mapping[str, str] = os.environ) -> Status:
    """Kernel ``key`` as named in ``env`` (and the config folder): see Status."""
    kernel_ = kernel(key)
    found = named(key, env)
    problem = missing(key, env)
    if found is None or problem:
        return Status(kernel_, found, None, None, problem)
    version = kernel_.version(found.path)
    if version is None:
        problem = f"{found.path}: no version in its headers: is it {kernel_.checkout}?"
    elif kernel_.too_old(version):
        problem = too_old_text(kernel_, version, found.path)
    return Status(kernel_, found, version, identity(kernel_, found.path), problem)


def too_old_text(kernel_: Kernel, version: str, path: Path) -> str:
    """Why the port refuses ``version``, as port/common/kernel.mk says it."""
    return (
        f"{kernel_.product} {version} at {path} is too old for the port: it builds with {kernel_.oldest} and "
        f"later ({kernel_.oldest_why})"
    )


def add(key: str, directory: str, env: Mapping[str, str] = os.environ) -> Named:
    """Name ``directory`` as kernel ``key``'s checkout: a link in config_dir, replaced in one step (a
    reader sees the old link or the new one). RtscopeError in one line when it is no checkout of that
    kernel, its version cannot be read or is too old for the port, or it lies inside rtscope's files."""
    kernel_ = kernel(key)
    path = Path(directory).expanduser().resolve()
    if not (path / kernel_.marker).is_file():
        raise RtscopeError(f"{directory} is not {kernel_.checkout}: it has no {kernel_.marker}")
    if _UNSAFE_PATH.search(str(path)):
        raise RtscopeError(f"{path}: make cannot build from a path with blanks or any of '\"$\\#%:;*?[]()`")
    if path.is_relative_to(paths.REPO_DIR.resolve()):
        raise RtscopeError(
            f"{path} is inside rtscope's own files ({paths.REPO_DIR}): the kernels are the user's, kept outside them"
        )
    version = kernel_.version(path)
    if version is None:
        raise RtscopeError(f"{path}: no version in its headers: is it {kernel_.checkout}?")
    if kernel_.too_old(version):
        raise RtscopeError(too_old_text(kernel_, version, path))
    folder = config_dir(env)
    folder.mkdir(parents=True, exist_ok=True)
    link = folder / key
    with tempfile.TemporaryDirectory(dir=folder, prefix=f".{key}-") as scratch:
        new = Path(scratch) / key
        new.symlink_to(path)
        os.replace(new, link)
    return Named(kernel_, path, CONFIG, str(link))


def remove(key: str, env: Mapping[str, str] = os.environ) -> Path:
    """Forget kernel ``key``'s link (the checkout itself stays); the link's path. RtscopeError when there
    is none."""
    kernel_ = kernel(key)
    link = config_dir(env) / key
    if not link.is_symlink():
        raise RtscopeError(f"no {kernel_.name} kernel is named in {config_dir(env)} (rtscope kernels lists them)")
    link.unlink()
    return link


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _numbers(version: str) -> tuple[int, ...]:
    """A version's first three numbers, for ordering, then 1 for a "+" (a commit after that release:
    FreeRTOS's development) and 0 for the release itself, as port/common/kernel.mk orders them."""
    return (*(int(number) for number in re.findall(r"\d+", version)[:3]), int(version.endswith("+")))


def _git(path: Path, *args: str) -> str:
    """git's answer in ``path`` (stripped), "" when git is missing or fails there."""
    try:
        completed = subprocess.run(
            ["git", "-C", str(path), *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return completed.stdout.strip() if completed.returncode == 0 else ""
