"""Which inputs are plain files on disk, and the key the extraction cache finds each one by.

A pipe, an archive member or a decompressed stream has no key: it is always parsed.
"""

from __future__ import annotations

import os
from typing import BinaryIO

from plogscan.cache.entries import FileKey


def absolute(path: str, cwd: str | None = None) -> str:
    """``os.path.abspath`` against ``cwd`` (asked once per run: a tree of 100,000 files would
    otherwise ask the OS for the working directory 100,000 times)."""
    if os.path.isabs(path):
        return os.path.normpath(path)
    return os.path.normpath(os.path.join(cwd or os.getcwd(), path))


def plain_file(stream: BinaryIO) -> tuple[str, os.stat_result] | None:
    """The name and status of a regular file read as it is on disk (not a pipe, an archive
    member or a decompressed stream); None otherwise."""
    import io
    import stat

    name = getattr(stream, "name", None)
    if not isinstance(stream, io.BufferedReader) or not isinstance(name, str):
        return None
    try:
        info = os.fstat(stream.fileno())
    except (OSError, ValueError):
        return None
    return (name, info) if stat.S_ISREG(info.st_mode) else None


def file_key(stream: BinaryIO, context: object = "", cwd: str | None = None
             ) -> FileKey | None:
    """The key of a plain file opened for reading; None for pipes, archive members and
    decompressed streams (those are always parsed)."""
    plain = plain_file(stream)
    if plain is None:
        return None
    name, info = plain
    return FileKey(absolute(name, cwd), info.st_size, info.st_mtime_ns, repr(context))
