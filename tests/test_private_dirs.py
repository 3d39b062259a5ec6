"""Private temporary directories (rtscope.files.private_dir): a killed rtscope cannot remove its own, so
the next one to make a directory of the same kind removes those whose rtscope is gone."""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from rtscope import files

PREFIX = f"rtscope-test-{os.getpid()}x-"  # this test's own kind, apart from every real one


def _dead_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    return int(child.stdout)


def test_a_directory_is_private_named_by_its_owner_and_removed_after_the_block():
    with files.private_dir(PREFIX) as directory:
        assert directory.is_dir() and directory.name.startswith(f"{PREFIX}{os.getpid()}-")
        assert directory.stat().st_mode & 0o777 == 0o700
        (directory / "result.json.part").write_text("half")
    assert not directory.exists()


def test_the_directories_of_a_killed_rtscope_go_and_a_living_ones_stay():
    temp = Path(tempfile.gettempdir())
    orphan = temp / f"{PREFIX}{_dead_pid()}-abc"
    living = temp / f"{PREFIX}{os.getppid()}-abc"
    for directory in (orphan, living):
        directory.mkdir()
        (directory / "serial.log").write_text("left behind")
    try:
        with files.private_dir(PREFIX):
            assert not orphan.exists()
            assert living.is_dir()
    finally:
        for directory in (orphan, living):
            subprocess.run(["rm", "-rf", str(directory)], check=True)
