"""The content digest the extraction cache checks before it uses an entry instead of parsing.

``file_digest`` hashes a file whole up to 1 MiB and sampled past it (its size, head, tail and
blocks between); it is computed in a worker, and by the result memo for every input file.
"""

from __future__ import annotations

import hashlib
import os
from typing import BinaryIO

DIGEST_BLOCK = 4 << 20
WHOLE_BYTES = 1 << 20  # files up to this size are hashed whole (>= the small-file size)
EDGE_BYTES = 256 << 10  # of a larger file: its first and last bytes hashed
SAMPLES, SAMPLE_BYTES = 32, 16 << 10  # and blocks spread evenly between


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


def fd_digest(fd: int) -> str | None:
    """``file_digest`` of the regular file open as ``fd``, read with ``os.pread`` (no open,
    and the descriptor's position is left alone); None when it cannot be read."""
    try:
        size = os.fstat(fd).st_size
        digest = content_digest(b"")
        if size <= WHOLE_BYTES:
            offset = 0
            while block := os.pread(fd, DIGEST_BLOCK, offset):
                digest.update(block)
                offset += len(block)
            return digest.hexdigest()
        digest.update(b"sampled %d\n" % size)
        digest.update(read_at(fd, EDGE_BYTES, 0))
        step = (size - 2 * EDGE_BYTES - SAMPLE_BYTES) // max(1, SAMPLES - 1)
        for index in range(SAMPLES):
            digest.update(read_at(fd, SAMPLE_BYTES, EDGE_BYTES + index * step))
        digest.update(read_at(fd, EDGE_BYTES, size - EDGE_BYTES))
        return digest.hexdigest()
    except OSError:
        return None


def fd_digests(fds: list[int]) -> list[str | None]:
    """``fd_digest`` of each descriptor (one task for many small files)."""
    return [fd_digest(fd) for fd in fds]


def read_at(fd: int, size: int, offset: int) -> bytes:
    """Up to ``size`` bytes of the file open as ``fd`` at ``offset`` (fewer only at its end),
    the descriptor's position left alone."""
    parts = []
    while size > 0:
        block = os.pread(fd, size, offset)
        if not block:
            break
        parts.append(block)
        size -= len(block)
        offset += len(block)
    return b"".join(parts)


def content_digest(data: bytes) -> hashlib._Hash:
    """The hash ``file_digest`` uses, started on ``data``."""
    return hashlib.sha256(data)
