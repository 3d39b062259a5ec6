"""Debian packages for a guest's architecture, fetched with apt's ordinary client and kept in the user's
cache: the kernels the QEMU guests boot, the busybox of their initramfs, the kernel headers their
modules are built against.

rtscope keeps an apt state of its own per Debian architecture in ``~/.cache/rtscope/debian/apt-ARCH``
(lists, no installed packages), read from this machine's sources (``/etc/apt/sources.list*``). Its
own state rather than ``dpkg --add-architecture``: a foreign architecture's packages can be
downloaded without root, and without changing what this machine installs or upgrades. Its lists are
fetched once (about 14 MB per architecture) and again only when a package is not in them.

A package is named by what it provides (``linux-image-rt-arm64``); :func:`fetch` resolves it to the
concrete package behind it (``linux-image-6.1.0-56-rt-arm64``) and that package's exact version, which
the result records. A resolution is kept (``resolved.json`` in the state) until the lists or this
machine's apt preferences change: apt-cache takes some 2 s of CPU to answer, on every boot of a guest.
Its ``.deb`` is kept in ``debs/``; what a guest needs of it is extracted next to it, once, by
:func:`extract`.
"""

import contextlib
import fcntl
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rtscope.errors import RtscopeError

_APT_TIMEOUT_S = 600
# Debian's kernel metapackages (linux-image-rt-arm64): no kernel of their own, one dependency that has it.
_METAPACKAGE = re.compile(r"linux-(image|headers)-(rt-)?[a-z0-9]+")
_RESOLVED = "resolved.json"
_INDEX_TARGETS_OFF = ("DEP-11", "DEP-11-icons", "DEP-11-icons-small", "DEP-11-icons-hidpi", "CNF")


def cache_dir() -> Path:
    """Where the packages are kept: $XDG_CACHE_HOME/rtscope/debian (~/.cache when unset or relative)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rtscope" / "debian"


@dataclass(frozen=True)
class Package:
    """A fetched package: its name, exact version, Debian architecture and its .deb here."""

    name: str
    version: str
    debarch: str
    deb: Path

    def record(self) -> str:
        """ "name=version", as the result's target detail keeps it."""
        return f"{self.name}={self.version}"


def fetch(debarch: str, wanted: str) -> Package:
    """The package ``wanted`` for ``debarch``, or the one it depends on when it is a metapackage (a
    ``linux-image-…`` that has no kernel of its own): its .deb downloaded unless already here.

    RtscopeError in one line when apt cannot be run, the package does not exist, or the download fails.
    """
    with _locked(debarch):
        apt = _Apt(debarch)
        name, version = apt.resolve(wanted)
        deb = cache_dir() / "debs" / f"{name}_{version.replace(':', '%3a')}_{debarch}.deb"
        if not deb.exists():
            apt.download(name, version, deb)
        return Package(name, version, debarch, deb)


def extract(package: Package, members: tuple[str, ...]) -> Path:
    """A directory holding the files of ``package`` under ``members`` (paths as in the .deb, "./boot"),
    extracted once and kept beside the .deb."""
    key = "-".join(member.strip("./").replace("/", "_") for member in members)
    directory = package.deb.with_name(f"{package.deb.stem}.{key}")
    if directory.is_dir():
        return directory
    scratch = Path(tempfile.mkdtemp(prefix=".extract-", dir=package.deb.parent))
    try:
        _extract_members(package.deb, scratch, members)
        with contextlib.suppress(OSError):
            scratch.rename(directory)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return directory


def _extract_members(deb: Path, into: Path, members: tuple[str, ...]) -> None:
    dpkg = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    tar = subprocess.run(
        ["tar", "-x", "-C", str(into), "--wildcards", *members],
        stdin=dpkg.stdout,
        capture_output=True,
        text=True,
        timeout=_APT_TIMEOUT_S,
        check=False,
    )
    assert dpkg.stdout is not None
    dpkg.stdout.close()
    dpkg.wait(timeout=_APT_TIMEOUT_S)
    if dpkg.returncode != 0 or tar.returncode != 0:
        said = (tar.stderr or "").strip().splitlines()
        raise RtscopeError(f"cannot extract {deb.name}: {said[0] if said else 'dpkg-deb failed'}")


class _Apt:
    """apt-get and apt-cache on rtscope's own state for one architecture."""

    def __init__(self, debarch: str):
        self.debarch = debarch
        self.state = cache_dir() / f"apt-{debarch}"
        for part in ("lists/partial", "archives/partial"):
            (self.state / part).mkdir(parents=True, exist_ok=True)
        (self.state / "status").touch()
        self.options = [
            "-o",
            f"Dir::State={self.state}",
            "-o",
            f"Dir::State::status={self.state}/status",
            "-o",
            f"Dir::Cache={self.state}",
            "-o",
            f"APT::Architecture={debarch}",
            "-o",
            f"APT::Architectures::={debarch}",
            "-o",
            "Debug::NoLocking=1",
            "-o",
            "Acquire::Languages=none",
            *(
                option
                for target in _INDEX_TARGETS_OFF
                for option in ("-o", f"Acquire::IndexTargets::deb::{target}::DefaultEnabled=false")
            ),
        ]
        self._updated = False

    def resolve(self, wanted: str) -> tuple[str, str]:
        """(the concrete package, its candidate version): ``wanted`` itself, or for a metapackage whose
        name has no version the package of its first dependency."""
        kept = self._kept()
        if wanted in kept:
            name, version = kept[wanted]
            return name, version
        resolved = self._resolve_now(wanted)
        self._keep(wanted, resolved)
        return resolved

    def _resolve_now(self, wanted: str) -> tuple[str, str]:
        if not any((self.state / "lists").glob("*Packages*")):
            self.update()
        version = self._candidate(wanted)
        if version is None and not self._updated:
            self.update()
            version = self._candidate(wanted)
        if version is None:
            raise RtscopeError(f"no Debian package {wanted} for {self.debarch} in this machine's apt sources")
        if _METAPACKAGE.fullmatch(wanted):
            shown = self._apt("apt-cache", "show", f"{wanted}={version}").stdout
            depends = next((line.split(":", 1)[1] for line in shown.splitlines() if line.startswith("Depends:")), "")
            concrete = depends.split(",")[0].split("(")[0].strip()
            if concrete:
                return self.resolve(concrete)
        return wanted, version

    def _stamp(self) -> str:
        """What a resolution depends on besides the name: the lists (each update replaces them, so their
        folder changes) and this machine's apt preferences (pins)."""
        preferences = Path("/etc/apt/preferences.d")
        paths = [self.state / "lists", Path("/etc/apt/preferences"), preferences]
        paths += sorted(preferences.glob("*")) if preferences.is_dir() else []
        return " ".join(str(path.stat().st_mtime_ns) if path.exists() else "-" for path in paths)

    def _kept(self) -> dict[str, list[str]]:
        """The resolutions kept under the present stamp (none when it changed or the file is unreadable)."""
        try:
            kept = json.loads((self.state / _RESOLVED).read_text())
        except (OSError, ValueError):
            return {}
        if not isinstance(kept, dict) or kept.get("stamp") != self._stamp():
            return {}
        packages = kept.get("packages")
        return packages if isinstance(packages, dict) else {}

    def _keep(self, wanted: str, resolved: tuple[str, str]) -> None:
        """``wanted``'s resolution kept with the others of the present stamp; written whole (the callers
        hold the architecture's lock)."""
        kept = {"stamp": self._stamp(), "packages": {**self._kept(), wanted: list(resolved)}}
        scratch = self.state / f".{_RESOLVED}.tmp"
        scratch.write_text(json.dumps(kept, indent=1))
        scratch.replace(self.state / _RESOLVED)

    def _candidate(self, name: str) -> str | None:
        policy = self._apt("apt-cache", "policy", name).stdout
        candidate = next(
            (line.split(":", 1)[1].strip() for line in policy.splitlines() if line.strip().startswith("Candidate:")), ""
        )
        return candidate if candidate and candidate != "(none)" else None

    def update(self) -> None:
        completed = self._apt("apt-get", "-q", "update")
        self._updated = True
        if completed.returncode != 0:
            raise RtscopeError(f"apt-get update for {self.debarch} failed: {_last_error(completed.stderr)}")

    def download(self, name: str, version: str, deb: Path) -> None:
        """The .deb of name=version to ``deb`` (whole or not at all)."""
        deb.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix=".download-", dir=deb.parent) as scratch:
            os.chmod(scratch, 0o755)  # apt downloads as its _apt user when run as root
            completed = self._apt("apt-get", "-q", "download", f"{name}={version}", cwd=scratch)
            got = list(Path(scratch).glob("*.deb"))
            if completed.returncode != 0 or len(got) != 1:
                raise RtscopeError(
                    f"cannot download {name}={version} ({self.debarch}): {_last_error(completed.stderr)}"
                )
            got[0].replace(deb)

    def _apt(self, tool: str, *args: str, cwd: str | None = None) -> subprocess.CompletedProcess[str]:
        try:
            return subprocess.run(
                [tool, *self.options, *args],
                capture_output=True,
                text=True,
                cwd=cwd,
                timeout=_APT_TIMEOUT_S,
                check=False,
                env={**os.environ, "LC_ALL": "C"},
            )
        except FileNotFoundError:
            raise RtscopeError(f"the QEMU guests' packages need {tool} (a Debian machine's apt)") from None
        except subprocess.TimeoutExpired:
            raise RtscopeError(f"{tool} {' '.join(args[:2])} took more than {_APT_TIMEOUT_S} s") from None


def _last_error(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("E:", "Err:"))]
    return (errors or lines or ["no reason given"])[-1]


@contextlib.contextmanager
def _locked(debarch: str) -> Iterator[None]:
    """One apt at a time on an architecture's state, across processes."""
    cache_dir().mkdir(parents=True, exist_ok=True)
    with open(cache_dir() / f".apt-{debarch}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
