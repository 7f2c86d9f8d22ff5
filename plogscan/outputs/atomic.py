"""Write a file under a temporary name in its directory, then rename it into place.

A report, an event table or a map written straight to its name is half a file when the run is
interrupted (Ctrl-C, a full disk, a crash): a CI step or a person would then read a truncated
report as if it were the result. Here the bytes go to ``.<name>.<random>.tmp`` beside the
target and are renamed over it only when complete (``os.replace`` is atomic on one file
system); on any failure or interruption the temporary file is removed.

A target that exists and is not a regular file (``/dev/stdout``, ``/dev/null``, a FIFO) is
written directly: renaming over a device would replace it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path


class Replacement:
    """A temporary file (``temp``) that becomes ``target`` on ``commit`` and vanishes on
    ``discard``; for a special target (a device, a FIFO) ``temp`` is the target itself."""

    def __init__(self, target: str | os.PathLike[str], *, mode: int | None = None) -> None:
        self.target = Path(target)
        self.direct = _special(self.target)
        if self.direct:
            self.temp = str(self.target)
            return
        handle, self.temp = tempfile.mkstemp(prefix=f".{self.target.name}.", suffix=".tmp",
                                             dir=str(self.target.parent))
        os.close(handle)
        try:
            os.chmod(self.temp, _new_file_mode() if mode is None else mode)
        except BaseException:
            self.discard()
            raise

    def commit(self) -> None:
        if not self.direct:
            os.replace(self.temp, self.target)

    def discard(self) -> None:
        if not self.direct:
            with contextlib.suppress(OSError):
                os.unlink(self.temp)


def _new_file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _special(path: Path) -> bool:
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


@contextlib.contextmanager
def replacing(path: str | os.PathLike[str], *, mode: int | None = None) -> Iterator[str]:
    """Yield a temporary path to write; on success it replaces ``path``, on failure (or
    interruption) it is removed. ``mode`` sets the file's permissions (default: what a new
    file gets, ``0666`` less the umask)."""
    replacement = Replacement(path, mode=mode)
    try:
        yield replacement.temp
        replacement.commit()
    except BaseException:
        replacement.discard()
        raise


def write_bytes(path: str | os.PathLike[str], data: bytes, *, mode: int | None = None) -> None:
    """``data`` into ``path``, complete or not at all."""
    with replacing(path, mode=mode) as temp, open(temp, "wb") as handle:
        handle.write(data)
        handle.flush()
        if stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            os.fsync(handle.fileno())
