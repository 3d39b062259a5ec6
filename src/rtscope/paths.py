"""Where rtscope finds its files: the probe's sources and builds, the result schema, the profiles, the database.

From a clone (./rtscope, an editable install) they are the repository's probe/, schema/ and profiles/, and
make builds the probes in probe/build. An installed package (pip install .) carries copies of those three
directories in rtscope/data/ (setup.py puts them there) and builds its probes under the user's cache
directory, since the package's own directory may not be writable.
"""

import hashlib
import os
import re
from collections.abc import Mapping
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
_INSTALLED_DATA = PACKAGE_DIR / "data"
INSTALLED = _INSTALLED_DATA.is_dir()
# The directory of probe/, schema/ and profiles/: the repository, or the installed package's copy of them.
REPO_DIR = _INSTALLED_DATA if INSTALLED else PACKAGE_DIR.parents[1]
PROBE_DIR = REPO_DIR / "probe"
SCHEMA_DIR = REPO_DIR / "schema"


def probe_version() -> str:
    """The version of the probe and of rtscope (one number: probe/src/version.h's RTS_PROBE_VERSION)."""
    header = (PROBE_DIR / "src" / "version.h").read_text(encoding="utf-8")
    found = re.search(r'^#define RTS_PROBE_VERSION "([^"]+)"$', header, re.MULTILINE)
    if found is None:
        raise RuntimeError(f"no RTS_PROBE_VERSION in {PROBE_DIR / 'src' / 'version.h'}")
    return found.group(1)


def probe_build_dir(env: Mapping[str, str] = os.environ) -> Path:
    """Where make builds the probes: probe/build in a clone; for an installed package
    $XDG_CACHE_HOME/rtscope/probe-VERSION-ID (~/.cache when unset, empty or relative), ID telling installs
    apart, so that two of them (two virtual environments) never run each other's builds."""
    if not INSTALLED:
        return PROBE_DIR / "build"
    cache_home = env.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(cache_home):
        cache_home = os.path.join(env.get("HOME") or os.path.expanduser("~"), ".cache")
    install = hashlib.sha256(str(PACKAGE_DIR).encode()).hexdigest()[:12]
    return Path(cache_home) / "rtscope" / f"probe-{probe_version()}-{install}"


def schema_path(version: int) -> Path:
    """The JSON schema of result format ``version``."""
    return SCHEMA_DIR / f"result-v{version}.schema.json"


def default_store_location(env: Mapping[str, str] = os.environ) -> str:
    """The results store: $RTSCOPE_DB (a SQLite file's path or a postgresql:// URL), else
    $XDG_DATA_HOME/rtscope/results.sqlite.

    XDG_DATA_HOME falls back to ~/.local/share when unset, empty or relative, as the XDG base
    directory specification asks.
    """
    if env.get("RTSCOPE_DB"):
        return env["RTSCOPE_DB"]
    data_home = env.get("XDG_DATA_HOME", "")
    if not os.path.isabs(data_home):
        data_home = os.path.join(env.get("HOME") or os.path.expanduser("~"), ".local", "share")
    return os.path.join(data_home, "rtscope", "results.sqlite")


def default_probe_path(env: Mapping[str, str] = os.environ) -> Path:
    """The probe binary: $RTSCOPE_PROBE (the user's own build), else rtscope's own, which the local target
    builds with make when it is missing or stale (rtscope.targets.probes.native)."""
    if env.get("RTSCOPE_PROBE"):
        return Path(env["RTSCOPE_PROBE"])
    return probe_build_dir(env) / "rtscope-probe"
