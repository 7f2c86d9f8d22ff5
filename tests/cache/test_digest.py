"""The content digest that confirms a cache entry: whole for small files (the digest a
small-file group computes from the bytes it read), sampled for large ones, and changed by
what changes a log (growth, a rewritten head or tail, a sampled block)."""

from __future__ import annotations

import os
from pathlib import Path

from plogscan.cache import digest as reuse
from plogscan.cache.digest import WHOLE_BYTES, content_digest, file_digest
from plogscan.ingest.smallfiles import SMALL_FILE_BYTES


def test_small_files_are_hashed_whole_like_a_group_hashes_them(tmp_path: Path) -> None:
    assert WHOLE_BYTES >= SMALL_FILE_BYTES
    path = tmp_path / "plog.log"
    data = os.urandom(WHOLE_BYTES)
    path.write_bytes(data)
    assert file_digest(str(path)) == content_digest(data).hexdigest()


def test_a_large_file_is_sampled_and_its_changes_seen(tmp_path: Path) -> None:
    path = tmp_path / "plog.log"
    size = 8 << 20
    data = bytearray(os.urandom(size))
    path.write_bytes(data)
    first = file_digest(str(path))
    assert first is not None and first != content_digest(bytes(data)).hexdigest()
    assert file_digest(str(path)) == first

    def changed(offset: int) -> str | None:
        copy = bytearray(data)
        copy[offset] ^= 0xFF
        path.write_bytes(copy)
        return file_digest(str(path))

    step = (size - 2 * reuse.EDGE_BYTES - reuse.SAMPLE_BYTES) // (reuse.SAMPLES - 1)
    for offset in (0, reuse.EDGE_BYTES - 1, size - 1, size - reuse.EDGE_BYTES,
                   reuse.EDGE_BYTES + 3 * step + 5):
        assert changed(offset) != first, offset
    path.write_bytes(bytes(data) + b"one more line\n")
    assert file_digest(str(path)) != first
    assert file_digest(str(tmp_path / "gone.log")) is None
