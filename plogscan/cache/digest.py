"""What ingest needs from a cache of earlier extractions: the typed hand-off to ``cache``.

A ``FileStore`` keeps, per input file, what a reduced parse handed on (the kept records, the
facts of all records, the file's accounting). Ingest asks it for an entry with the file's
path, size and modification time, then compares the entry's content digest with the file's
own (``file_digest``, computed in a worker; sampled for files past 1 MiB) before it uses the
entry instead of parsing.
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
WHOLE_BYTES = 1 << 20  # files up to this size are hashed whole (>= the small-file size)
EDGE_BYTES = 256 << 10  # of a larger file: its first and last bytes hashed
SAMPLES, SAMPLE_BYTES = 32, 16 << 10  # and blocks spread evenly between
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


def sampled_bytes(size: int) -> int:
    """How many bytes ``file_digest`` reads of a file of ``size`` bytes."""
    return size if size <= WHOLE_BYTES else 2 * EDGE_BYTES + SAMPLES * SAMPLE_BYTES


def file_digests(paths: list[str]) -> list[str | None]:
    """``file_digest`` of each path (one task for many small files)."""
    return [file_digest(path) for path in paths]


def file_digest(path: str) -> str | None:
    """SHA-256 of a file's content, sampled past ``WHOLE_BYTES`` (hashlib releases the GIL:
    workers hash in parallel); None when it cannot be read.

    A file of up to ``WHOLE_BYTES`` is hashed whole (the same digest a small-file group gives
    from the bytes it read). A larger one is hashed from its size, its first and last
    ``EDGE_BYTES`` and ``SAMPLES`` blocks of ``SAMPLE_BYTES`` spread evenly between: the entry
    is looked up by path, size and modification time already, and a log changes by growing
    (size) or by being rewritten (mtime; the head and the tail). Hashing every byte cost a
    rerun of an unchanged 512 MiB tree a full read of it. What this digest cannot see is a
    change in the middle of a large file that keeps its size and whose modification time was
    set back; ``--no-cache`` reads everything again."""
    try:
        with open(path, "rb") as handle:
            return stream_digest(handle)
    except OSError:
        return None


def stream_digest(handle: BinaryIO) -> str:
    """``file_digest`` of an open regular file, of the size ``fstat`` gives it (the handle's
    position is left anywhere; OSError when it cannot be read)."""
    digest = content_digest(b"")
    size = os.fstat(handle.fileno()).st_size
    handle.seek(0)
    if size <= WHOLE_BYTES:
        while block := handle.read(DIGEST_BLOCK):
            digest.update(block)
        return digest.hexdigest()
    digest.update(b"sampled %d\n" % size)
    digest.update(handle.read(EDGE_BYTES))
    step = (size - 2 * EDGE_BYTES - SAMPLE_BYTES) // max(1, SAMPLES - 1)
    for index in range(SAMPLES):
        handle.seek(EDGE_BYTES + index * step)
        digest.update(handle.read(SAMPLE_BYTES))
    handle.seek(size - EDGE_BYTES)
    digest.update(handle.read(EDGE_BYTES))
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
