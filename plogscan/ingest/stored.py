"""Which files the extraction cache keeps, how a reused file whose content changed is read
again, and how extractions are saved to it and handed on from it."""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from typing import BinaryIO

import pyarrow as pa

from plogscan.cache.entries import FileKey, FileStore, Stored
from plogscan.ingest.batching import Reuse, SmallFile
from plogscan.ingest.chunks import FileState
from plogscan.ingest.stitch import nonempty_batches
from plogscan.ingest.streams import PlainFile
from plogscan.model import FileStats
from plogscan.parse.results import TEXT_KINDS, FileContext
from plogscan.schema.facts import FACTS_SCHEMA

JOIN_ROWS = 65536  # stored records of reused files are joined up to this many rows
STORE_MIN_BYTES = 16 << 10  # smaller plog and device logs are not cached (``cheaper_parsed``)


def cheaper_parsed(ctx: FileContext, small: SmallFile | None) -> bool:
    """Whether a file costs less to parse again than to keep in the cache: a plog or device
    log under ``STORE_MIN_BYTES``, which its small-file group parses joined with the others.
    Storing its extraction and reading it back cost more (20,000 plogs of about 150 bytes: a
    first run with the cache took 1.8 times as long as one without, a rerun with one file
    changed 1.3 times). Text kinds (job stdout) are kept: their groups often fall back to one
    file at a time (a record may run past a file's end, where a join is not exact), at
    milliseconds a file."""
    return small is not None and small.size < STORE_MIN_BYTES and ctx.kind not in TEXT_KINDS


def reopened(item: Reuse) -> BinaryIO:
    """A reused file whose content changed, to parse: from the walk's descriptor the item
    holds (the file is not opened again), else opened by its path."""
    if item.fd is None:
        return open(item.key.path, "rb")
    raw = io.FileIO(item.fd, "r")
    raw.name = item.key.path  # type: ignore[misc]  # ranges are planned by the file's name
    return PlainFile(raw)  # type: ignore[return-value]


def joined_records(tables: Iterable[pa.Table]) -> Iterator[pa.RecordBatch]:
    """The stored records of consecutive reused files as few batches: joined up to
    ``JOIN_ROWS`` rows; a larger table goes alone."""
    small: list[pa.Table] = []
    rows = 0
    for records in tables:
        if small and rows + records.num_rows > JOIN_ROWS:
            yield from nonempty_batches(pa.concat_tables(small).combine_chunks())
            small, rows = [], 0
        if records.num_rows:
            small.append(records)
            rows += records.num_rows
    if small:
        yield from nonempty_batches(pa.concat_tables(small).combine_chunks())


def saved_extraction(store: FileStore, state: FileState, stats: FileStats,
                     schema: pa.Schema) -> tuple[FileKey, str | None]:
    """Save a parsed file's kept records and facts (each chunk's, as handed on) under its key
    once its content digest is known (a future, or the digest); the key and the digest."""
    key, digest = state.saving
    content = digest.result() if hasattr(digest, "result") else digest
    if content is not None:
        records = pa.concat_tables(state.kept) if state.kept else schema.empty_table()
        facts = pa.concat_tables(state.facts) if state.facts else FACTS_SCHEMA.empty_table()
        store.save(key, Stored(content, stats, records, facts))
    return key, content
