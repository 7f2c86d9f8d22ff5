"""Which files the extraction cache keeps, and how a reused file whose content changed is read
again."""

from __future__ import annotations

import io
from typing import BinaryIO

from plogscan.ingest.batching import Reuse, SmallFile
from plogscan.ingest.streams import PlainFile
from plogscan.parse.results import TEXT_KINDS, FileContext

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
