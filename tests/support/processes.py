"""The probes still running on this machine (the boards of the tests' labs are this machine too), found by
the label a campaign gives each run ("NAME: cell #N")."""

import os
from pathlib import Path


def probes_labelled(spec_name: str) -> list[int]:
    """Probe processes still running for campaign ``spec_name`` (their label names it)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(arg.startswith(f"{spec_name}: ".encode()) for arg in argv):
            found.append(int(pid))
    return found
