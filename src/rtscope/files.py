"""Writing output files whole or not at all, and private temporary directories that a killed rtscope
does not leave behind for long."""

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Self

from rtscope.errors import RtscopeError


class AtomicFile:
    """A file that appears complete or not at all.

    Creating one creates its temporary file beside ``path`` at once, so that an unwritable place is
    reported before any work is done. :meth:`commit` writes the text and renames the temporary file
    onto ``path``; leaving the ``with`` block without committing removes it.
    """

    def __init__(self, path: Path):
        self.path = path
        if path.is_dir():
            raise RtscopeError(f"cannot write {path}: it is a directory")
        try:
            fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        except OSError as error:
            raise RtscopeError(f"cannot write {path}: {error.strerror}") from None
        os.close(fd)
        self._temporary: Path | None = Path(temporary)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.discard()

    def commit(self, text: str) -> None:
        """Write ``text`` as the whole content of the file, replacing any file that was there."""
        if self._temporary is None:
            raise ValueError(f"{self.path} is already committed or discarded")
        try:
            with open(self._temporary, "w", encoding="utf-8") as stream:
                stream.write(text)
                stream.flush()
                os.fsync(stream.fileno())
            # mkstemp made the file private; give it the permissions a new file would have.
            os.chmod(self._temporary, 0o666 & ~_umask())
            os.replace(self._temporary, self.path)
        except OSError as error:
            self.discard()
            raise RtscopeError(f"cannot write {self.path}: {error.strerror}") from None
        self._temporary = None

    def discard(self) -> None:
        """Remove the temporary file, if it is still there; the target path is left as it was."""
        if self._temporary is not None:
            self._temporary.unlink(missing_ok=True)
            self._temporary = None


def keep(path: Path, content: bytes) -> None:
    """Write ``content`` as the whole of ``path``, a file kept for later runs (a cache): through a file of
    this process's own beside it, renamed onto it, so that another rtscope reading it or keeping it at
    the same moment finds the old file or a whole new one, never a part. OSError as writing raises it,
    with no part left behind (as AtomicFile discards its temporary file)."""
    partial = path.with_name(f"{path.name}.{os.getpid()}.part")
    try:
        partial.write_bytes(content)
        partial.replace(path)
    except OSError:
        partial.unlink(missing_ok=True)
        raise


def _umask() -> int:
    # The umask can only be read by setting it; set it straight back.
    mask = os.umask(0)
    os.umask(mask)
    return mask


def read_text(path: str | Path, *, what: str = "file") -> str:
    """The UTF-8 text of the file at ``path``; a one-line RtscopeError naming it when it is missing
    ("PATH: no such <what>") or cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RtscopeError(f"{path}: no such {what}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise RtscopeError(f"{path}: cannot read: {getattr(error, 'strerror', None) or error}") from None


def make_private_dir(prefix: str) -> Path:
    """A new private directory in the system's temporary directory, named PREFIX<pid>-<random>: a
    SIGKILLed rtscope cannot remove its own, so each new one first removes those of ``prefix`` whose
    rtscope is gone (their pid is no longer a process). The caller removes it (shutil.rmtree)."""
    _remove_orphans(prefix)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-"))


@contextlib.contextmanager
def private_dir(prefix: str) -> Iterator[Path]:
    """make_private_dir's directory for a ``with`` block, removed with what it holds on leaving it."""
    directory = make_private_dir(prefix)
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _remove_orphans(prefix: str) -> None:
    for path in Path(tempfile.gettempdir()).glob(f"{prefix}[0-9]*-*"):
        pid = path.name.removeprefix(prefix).split("-", 1)[0]
        with contextlib.suppress(OSError):
            if pid.isdigit() and not _alive(int(pid)) and path.is_dir() and path.stat().st_uid == os.getuid():
                shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True
