"""Parse text held in memory as if it were files: rule cases, tests and library callers.

Kind and host, rank and device hints come from each path, as for files on disk
(``classify``, ``path_hints``); the text goes through the same ``Ingest`` as any input.
"""

from __future__ import annotations

import io
from collections.abc import Mapping

import pyarrow as pa

from plogscan.ingest.chunks import CHUNK_BYTES
from plogscan.ingest.classify import classify
from plogscan.ingest.pipeline import Ingest
from plogscan.parse.lineformats import FormatSet
from plogscan.parse.results import FileContext
from plogscan.pathhints import path_hints, text_kind_by_place
from plogscan.schema import EVENT_SCHEMA, SourceKind


def _context(path: str, data: bytes, kind: SourceKind | str | None) -> FileContext:
    host, rank, device, _pid = path_hints(path)
    if kind is None:
        found = classify(path, data[:65536])
        kind = found if found is not None else text_kind_by_place(path)  # as the walk reads it
    kind_value = kind.value if isinstance(kind, SourceKind) else str(kind)
    return FileContext(path, kind_value, host, rank, device)


def parse_files(files: Mapping[str, str | bytes], *, fset: FormatSet | None = None,
                chunk_bytes: int = CHUNK_BYTES) -> pa.Table:
    """Parse in-memory files ``{path: content}``; kind and hints come from each path."""
    inputs = []
    for path, content in files.items():
        data = content.encode("utf-8") if isinstance(content, str) else content
        inputs.append((_context(path, data, None), io.BytesIO(data)))
    ingest = Ingest(fset, chunk_bytes=chunk_bytes)
    batches = list(ingest.batches_from(inputs))
    return pa.Table.from_batches(batches, schema=EVENT_SCHEMA)


def parse_text(text: str | bytes, path: str = "case.log", kind: SourceKind | str | None = None,
               *, fset: FormatSet | None = None, chunk_bytes: int = CHUNK_BYTES) -> pa.Table:
    """Parse one in-memory file into an event table (tests, rule cases, the API)."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    ctx = _context(path, data, kind)
    ingest = Ingest(fset, chunk_bytes=chunk_bytes)
    batches = list(ingest.batches_from([(ctx, io.BytesIO(data))]))
    return pa.Table.from_batches(batches, schema=EVENT_SCHEMA)
