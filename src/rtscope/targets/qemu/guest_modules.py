"""rtscope's kernel module for a QEMU guest: probe/kmod/rtscope_wave.c built against Debian's headers
for the guest's exact kernel — wave.square's kernel generators, and the known culprit of the load hold
— and its loaders (probe/kmod/rtscope-kmod-wave puts the generators behind the generator interface of
docs/wave.md; probe/kmod/rtscope-kmod-hold starts and stops the culprit).

- x86_64 (this machine's architecture): the headers Debian installs here, ``/usr/src/linux-headers-
  RELEASE`` (``apt install linux-headers-RELEASE``; ./setup.sh installs the current stock and rt ones).
- aarch64: a cross build. Debian's arm64 headers for the flavour are fetched like the kernel
  (rtscope.targets.qemu.debian_packages) and extracted into the cache; their ``scripts`` link points at this
  machine's kbuild tools (``/usr/lib/linux-kbuild-6.1``, amd64 binaries, from the amd64 headers) and
  their Makefile includes the architecture-free common headers the amd64 ones installed here; the
  compiler is Debian's ``aarch64-linux-gnu-gcc-12``.

A module is built once per kernel release and module source, in about 2 s, and kept in
``~/.cache/rtscope/debian/kmod``. What is missing is named in one line with the package to install.
"""

import hashlib
import shutil
import subprocess
from pathlib import Path

from rtscope import files
from rtscope.errors import RtscopeError
from rtscope.targets.probes import PROBE_DIR
from rtscope.targets.qemu import debian_packages

KMOD_DIR = PROBE_DIR / "kmod"
SOURCE = KMOD_DIR / "rtscope_wave.c"
# The module's loaders: the wave's generator interface, and the load hold (rtscope's known culprit).
LOADERS = (KMOD_DIR / "rtscope-kmod-wave", KMOD_DIR / "rtscope-kmod-hold")
HOST_KBUILD = Path("/usr/lib/linux-kbuild-6.1")
_BUILD_TIMEOUT_S = 300
# Guest architecture: (kernel ARCH, cross compiler prefix; "" when this machine builds natively).
_KERNEL_ARCH = {"x86_64": ("x86", ""), "aarch64": ("arm64", "aarch64-linux-gnu-")}


def module_for(arch: str, kernel: debian_packages.Package) -> Path:
    """The rtscope_wave.ko for the guest kernel of package ``kernel`` (linux-image-RELEASE) on ``arch``,
    built unless already kept. RtscopeError in one line when headers, tools or the build fail."""
    release = kernel.name.removeprefix("linux-image-")
    source_hash = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:12]
    kept = debian_packages.cache_dir() / "kmod" / f"{release}-{source_hash}" / "rtscope_wave.ko"
    if kept.exists():
        return kept
    kernel_arch, cross = _KERNEL_ARCH[arch]
    headers = _native_headers(release) if not cross else _cross_headers(kernel, release)
    with files.private_dir("rtscope-kmod-") as scratch:
        shutil.copy(SOURCE, scratch)
        Path(scratch, "Kbuild").write_text("obj-m := rtscope_wave.o\n")
        command = [
            "make",
            "-s",
            "-C",
            str(headers),
            f"M={scratch}",
            f"ARCH={kernel_arch}",
            "modules",
            *([f"CROSS_COMPILE={cross}"] if cross else []),
        ]
        try:
            built = subprocess.run(command, capture_output=True, text=True, timeout=_BUILD_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            raise RtscopeError(
                f"building the kernel generators for {release} took more than {_BUILD_TIMEOUT_S} s"
            ) from None
        module = Path(scratch, "rtscope_wave.ko")
        if built.returncode == 0 and module.exists():
            # Without its debug information (about 95 % of it), the guest loads it in a fraction of the time.
            built = subprocess.run(
                [f"{cross}strip", "--strip-debug", str(module)],
                capture_output=True,
                text=True,
                timeout=_BUILD_TIMEOUT_S,
                check=False,
            )
        if built.returncode != 0 or not module.exists():
            said = [line for line in built.stderr.splitlines() if "error" in line.lower()] or built.stderr.splitlines()
            raise RtscopeError(
                f"building the kernel generators for {release} failed: "
                f"{said[0].strip() if said else f'make exited with {built.returncode}'}"
            )
        kept.parent.mkdir(parents=True, exist_ok=True)
        files.keep(kept, module.read_bytes())
    return kept


def _native_headers(release: str) -> Path:
    headers = Path("/usr/src") / f"linux-headers-{release}"
    if not (headers / "Makefile").exists():
        raise RtscopeError(
            f"the kernel generators for {release} need its headers here: apt install linux-headers-{release}"
        )
    return headers


def _cross_headers(kernel: debian_packages.Package, release: str) -> Path:
    """Debian's headers for a foreign kernel, extracted into the cache and pointed at this machine's
    kbuild tools and common headers."""
    package = debian_packages.fetch(kernel.debarch, f"linux-headers-{release}")
    if package.version != kernel.version:
        raise RtscopeError(
            f"linux-headers-{release} is {package.version} in the apt lists, the kernel "
            f"{kernel.version}: the module would not load"
        )
    root = debian_packages.extract(package, ("./usr/src",))
    headers = root / "usr" / "src" / f"linux-headers-{release}"
    common = next(
        (line.split()[-1] for line in (headers / "Makefile").read_text().splitlines() if line.startswith("include ")),
        "",
    )
    if not HOST_KBUILD.is_dir() or not Path(common).exists():
        raise RtscopeError(
            f"the kernel generators for {release} need this machine's kbuild tools and the "
            f"common headers {Path(common).parent.name}: apt install "
            f"{Path(common).parent.name} linux-kbuild-6.1"
        )
    tools = root / "usr" / "lib" / HOST_KBUILD.name
    if not tools.exists():
        tools.parent.mkdir(parents=True, exist_ok=True)
        tools.symlink_to(HOST_KBUILD)
    return headers
