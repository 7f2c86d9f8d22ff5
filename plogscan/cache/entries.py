"""What ingest needs from a cache of earlier extractions: the typed hand-off to ``cache``.

A ``FileStore`` keeps, per input file, what a reduced parse handed on (the kept records, the
facts of all records, the file's accounting). Ingest asks it for an entry with the file's
path, size and modification time, then compares the entry's content digest with the file's
own (``cache.digest.file_digest``, computed in a worker; sampled for files past 1 MiB) before
it uses the entry instead of parsing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import pyarrow as pa

from plogscan.model import FileStats


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
