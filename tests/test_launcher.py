"""The ./rtscope launcher script (with the .venv it prepared already in place)."""

import os
import subprocess

import pytest

from conftest import REPO

LAUNCHER = REPO / "rtscope"


@pytest.mark.skipif(
    not (REPO / ".venv" / ".requirements.stamp").exists(),
    reason="the launcher has not prepared .venv yet (preparing it needs the network)",
)
def test_launcher_works_through_a_symlink_from_another_directory(tmp_path, probe):
    link = tmp_path / "rtscope"
    link.symlink_to(LAUNCHER)
    env = {key: value for key, value in os.environ.items() if key != "RTSCOPE_PROBE"}
    completed = subprocess.run(
        [str(link), "--version"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert (completed.returncode, completed.stdout) == (0, "rtscope 1.0.0\n"), completed.stderr
    assert "preparing" not in completed.stderr


def test_launcher_is_executable():
    assert os.access(LAUNCHER, os.X_OK)
