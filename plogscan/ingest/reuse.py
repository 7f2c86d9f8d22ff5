"""What ingest needs from a cache of earlier extractions: the typed hand-off to ``cache``.

A ``FileStore`` keeps, per input file, what a reduced parse handed on (the kept records, the
facts of all records, the file's accounting). Ingest asks it for an entry with the file's
path, size and modification time, then compares the entry's content digest with the file's
own (``file_digest``, computed in a worker) before it uses the entry instead of parsing.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol

import pyarrow as pa

from plogscan.model import FileStats

DIGEST_BLOCK = 4 << 20
_CODE_SUFFIXES = (".py", ".yaml", ".yml", ".json")


@dataclass(frozen=True)
class FileKey:
    """Where a plain file is and what ``stat`` says of it."""

    path: str
    size: int
    mtime_ns: int
    # What ingest was told about the file (the path as named, kind, host, rank, device): the
    # records depend on it, so the same file named another way is another entry.
    context: str = ""


@dataclass
class Stored:
    """One file's extraction as a store keeps it."""

    digest: str
    stats: FileStats
    records: pa.Table
    facts: pa.Table


class FileStore(Protocol):
    def find(self, key: FileKey) -> Stored | None: ...

    def save(self, key: FileKey, entry: Stored) -> None: ...


def absolute(path: str, cwd: str | None = None) -> str:
    """``os.path.abspath`` against ``cwd`` (asked once per run: a tree of 100,000 files would
    otherwise ask the OS for the working directory 100,000 times)."""
    if os.path.isabs(path):
        return os.path.normpath(path)
    return os.path.normpath(os.path.join(cwd or os.getcwd(), path))


def file_key(stream: BinaryIO, context: object = "", cwd: str | None = None
             ) -> FileKey | None:
    """The key of a plain file opened for reading; None for pipes, archive members and
    decompressed streams (those are always parsed)."""
    import io
    import stat

    name = getattr(stream, "name", None)
    if not isinstance(stream, io.BufferedReader) or not isinstance(name, str):
        return None
    try:
        info = os.fstat(stream.fileno())
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return FileKey(absolute(name, cwd), info.st_size, info.st_mtime_ns, repr(context))


def file_digests(paths: list[str]) -> list[str | None]:
    """``file_digest`` of each path (one task for many small files)."""
    return [file_digest(path) for path in paths]


def file_digest(path: str) -> str | None:
    """SHA-256 of a file's content (hashlib releases the GIL: workers hash in parallel);
    None when it cannot be read."""
    digest = content_digest(b"")
    try:
        with open(path, "rb") as handle:
            while block := handle.read(DIGEST_BLOCK):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()


def content_digest(data: bytes) -> hashlib._Hash:
    """The hash ``file_digest`` uses, started on ``data``."""
    return hashlib.sha256(data)


def code_fingerprint() -> str:
    """A content hash of plogscan's own code and data files (formats, code tables, schema):
    the version number alone does not change with every change."""
    root = Path(__file__).resolve().parent.parent  # the plogscan package
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.suffix in _CODE_SUFFIXES):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()
