"""Where rtscope finds its files: the repository, the result schema, the probe, the database."""

import os
from collections.abc import Mapping
from pathlib import Path

# This file is src/rtscope/paths.py in the repository.
REPO_DIR = Path(__file__).resolve().parents[2]
SCHEMA_DIR = REPO_DIR / "schema"


def schema_path(version: int) -> Path:
    """The JSON schema of result format ``version``."""
    return SCHEMA_DIR / f"result-v{version}.schema.json"


def default_db_path(env: Mapping[str, str] = os.environ) -> Path:
    """The results database: $RTSCOPE_DB, else $XDG_DATA_HOME/rtscope/results.sqlite.

    XDG_DATA_HOME falls back to ~/.local/share when unset, empty or relative, as the XDG base
    directory specification asks.
    """
    if env.get("RTSCOPE_DB"):
        return Path(env["RTSCOPE_DB"])
    data_home = env.get("XDG_DATA_HOME", "")
    if not os.path.isabs(data_home):
        data_home = os.path.join(env.get("HOME") or os.path.expanduser("~"), ".local", "share")
    return Path(data_home) / "rtscope" / "results.sqlite"


def default_probe_path(env: Mapping[str, str] = os.environ) -> Path:
    """The probe binary: $RTSCOPE_PROBE, else the one ``make -C probe`` builds in this repository."""
    if env.get("RTSCOPE_PROBE"):
        return Path(env["RTSCOPE_PROBE"])
    return REPO_DIR / "probe" / "build" / "rtscope-probe"
