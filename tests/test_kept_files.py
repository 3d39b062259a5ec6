"""A cache file rtscope keeps for later runs (rtscope.files.keep): written whole through a part of its own
beside it, and no part left when the write fails."""

import pytest

from rtscope import files


def test_a_kept_file_is_written_whole_and_replaces_the_old_one(tmp_path):
    kept = tmp_path / "catalogue.json"
    kept.write_bytes(b"old")
    files.keep(kept, b"new content")
    assert kept.read_bytes() == b"new content"
    assert [path.name for path in tmp_path.iterdir()] == ["catalogue.json"]


def test_a_write_that_fails_leaves_no_part_behind(tmp_path):
    kept = tmp_path / "vmlinux.pvh"
    kept.mkdir()  # a directory with something in it cannot be replaced by a file
    (kept / "inside").write_bytes(b"")
    with pytest.raises(OSError):
        files.keep(kept, b"a kernel")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["vmlinux.pvh"]
