"""Cutting one input into chunks of whole lines, and parsing one chunk in a worker.

A plain file on disk is cut into newline-aligned byte ranges (``plan_ranges``: only a small
window around each cut is read here) that each worker reads itself (``parse_range``), so the
bytes never pass through the main process. Any other stream (compressed, an archive member,
a pipe) is read here in chunks of whole lines (``read_chunks``) that are sent to the workers
(``parse_task``). Before parsing, NUL bytes and CRs before newlines are dropped and invalid
UTF-8 is replaced (``clean``), each counted. A physical line longer than ``MAX_LINE_BYTES``
keeps its first part.
"""

from __future__ import annotations

import gzip
import io
import itertools
import multiprocessing
import os
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

import pyarrow as pa

from plogscan.ingest import handoff
from plogscan.ingest.facts import Reducer, as_whole, facts_of, reduced
from plogscan.ingest.reuse import absolute
from plogscan.parse.arrowtext import as_one_value
from plogscan.parse.chunk import parse_chunk
from plogscan.parse.formatcheck import builtin_formats
from plogscan.parse.lineformats import FormatSet
from plogscan.parse.results import ChunkResult, FileContext
from plogscan.schema import table_schema

# Chunks of 8 MiB: every call into Arrow or numpy costs about the same per chunk whatever its
# size, so 8 MiB chunks parse faster in all than 4 MiB ones (about 5% on bench/'s tree). Larger
# ones gain little more and raise peak memory (bench/README.md).
CHUNK_BYTES = 8 << 20
MAX_LINE_BYTES = 64 << 20  # a longer physical line keeps its first 64 MiB
READ_ERRORS = (EOFError, zlib.error, gzip.BadGzipFile, tarfile.TarError, zipfile.BadZipFile,
               OSError, ValueError)


@dataclass
class Chunk:
    data: bytes
    first_line: int
    open_record: bool


@dataclass
class Range:
    """A byte range of a plain file, cut after a newline: the worker reads it itself, so the
    bytes never pass through the main process. Its lines are numbered from 1 by the worker
    and shifted by the main process, which knows how many lines came before."""

    path: str
    start: int
    end: int
    open_record: bool


@dataclass
class Cleaned:
    result: ChunkResult
    nul_bytes: int
    decode_errors: int
    relative_lines: bool = False  # lines numbered from 1: shift by the lines before the chunk
    problem: str | None = None
    records_file: str | None = None  # the records, in shared memory (see ``handoff``)
    facts: pa.Table | None = None  # per-process facts of all records (with a reducer)
    dropped_records: int = 0  # records the reducer did not hand on, and their lines
    dropped_lines: int = 0


@dataclass
class FileState:
    """Mutable accounting for the file being read; frozen into ``FileStats`` at the end."""

    ctx: FileContext
    stats: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    pending: pa.Table | None = None  # the last record seen, which may continue
    pending_trailing_blank: int = 0
    lines_before: int = 0  # physical lines of the chunks merged so far
    saving: tuple | None = None  # (FileKey, digest future): what is handed on gets stored
    kept: list[pa.Table] = field(default_factory=list)
    facts: list[pa.Table] = field(default_factory=list)

    def add(self, key: str, value: int) -> None:
        self.stats[key] = self.stats.get(key, 0) + value


def clean(data: bytes) -> tuple[bytes, int, int]:
    """Drop NUL bytes and CRs before newlines; replace invalid UTF-8. Returns counts too."""
    nul = data.count(b"\x00") if b"\x00" in data else 0
    if nul:
        data = data.replace(b"\x00", b"")
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n")
    if valid_utf8(data):
        return data, nul, 0
    text = data.decode("utf-8", errors="replace")
    already = data.count("\ufffd".encode())
    return text.encode("utf-8"), nul, text.count("\ufffd") - already


def valid_utf8(data: bytes) -> bool:
    """Arrow's UTF-8 check: faster than ``bytes.decode`` and it releases the GIL."""
    try:
        as_one_value(data, pa.large_binary()).cast(pa.large_string())
    except pa.ArrowInvalid:
        return False
    return True


# Columns that hold one value per file: worker processes leave them out of what they send
# back, and the main process puts them in again (cheaply, in C++), so they are not sent row by
# row.
CONSTANT_COLUMNS = ("kind", "path", "host")


def parse_task(chunk: Chunk, ctx: FileContext, fset: FormatSet | None,
               shared: str | None = None, encoded: bool = False,
               reducer: Reducer | None = None) -> Cleaned:
    """Parse one chunk (runs in a worker); with a ``reducer``, compute the chunk's facts and
    hand on only the records it keeps."""
    fset = fset or builtin_formats()  # worker processes load (and check) the formats once
    data, nul, bad = clean(chunk.data)
    result = parse_chunk(data, chunk.first_line, ctx, fset, chunk.open_record, encoded)
    facts, dropped, dropped_lines = None, 0, 0
    if reducer is not None:
        facts = facts_of(result.records)
        result.records, dropped, dropped_lines = reduced(result.records, reducer)
        facts = as_whole(facts, dropped == 0)
    if multiprocessing.parent_process() is not None:  # in a worker process
        result.records = result.records.drop_columns(list(CONSTANT_COLUMNS))
    records_file = handoff.put(result.records, shared)
    if records_file is not None:
        result.records = result.records.slice(0, 0)
    return Cleaned(result, nul, bad, records_file=records_file, facts=facts,
                   dropped_records=dropped, dropped_lines=dropped_lines)


def parse_range(part: Range, ctx: FileContext, fset: FormatSet | None,
                shared: str | None = None, encoded: bool = False,
                reducer: Reducer | None = None) -> Cleaned:
    """Read and parse one range of a plain file (runs in a worker)."""
    problem = None
    size = part.end - part.start
    try:
        with open(part.path, "rb") as handle:
            handle.seek(part.start)
            # The last byte apart: it is the range's final newline, left out without copying
            # the chunk (only a file's last range may end without one).
            data = handle.read(size - 1) if size > 1 else b""
            last = handle.read(1)
    except OSError as err:
        data, last = b"", b""
        problem = f"read stopped at byte {part.start}: {type(err).__name__}: {err}"
    read = len(data) + len(last)
    if problem is None and read < size:
        problem = f"read stopped at byte {part.start + read}: the file became shorter"
    if last and last != b"\n":
        data += last
    elif not last and data.endswith(b"\n"):  # the file became shorter
        data = data[:-1]
    if not data and not last:  # nothing could be read: no line to count
        nothing = ChunkResult(records=table_schema(encoded).empty_table(), head=None)
        return Cleaned(nothing, 0, 0, relative_lines=True, problem=problem)
    cleaned = parse_task(Chunk(data, 1, part.open_record), ctx, fset, shared, encoded, reducer)
    cleaned.relative_lines = True
    cleaned.problem = problem
    return cleaned


RANGE_SCAN_BYTES = 1 << 20  # a line longer than this near a cut sends the file to read_chunks
CUT_PEEK_BYTES = 16 << 10


def plan_ranges(stream: BinaryIO, chunk_bytes: int, cwd: str | None = None
                ) -> list[Range] | None:
    """Newline-aligned ranges of a plain file, or None when the file must be streamed
    (not a plain file on disk, unreadable, or a line longer than ``RANGE_SCAN_BYTES`` at a
    cut). Only a small window around each cut is read here."""
    path = getattr(stream, "name", None)
    if not isinstance(stream, io.BufferedReader) or not isinstance(path, str):
        return None
    try:
        size = os.fstat(stream.fileno()).st_size
        cuts = [0]
        pos = chunk_bytes
        while pos < size:
            stream.seek(pos)
            window = stream.read(min(CUT_PEEK_BYTES, RANGE_SCAN_BYTES))  # lines are short
            newline = window.find(b"\n")
            if newline < 0:
                window += stream.read(RANGE_SCAN_BYTES - len(window))
                newline = window.find(b"\n")
            if newline < 0 and pos + len(window) >= size:
                break  # the rest of the file is its last line
            if newline < 0:
                stream.seek(0)
                return None
            cut = pos + newline + 1
            if cut >= size:
                break
            cuts.append(cut)
            pos = cut + chunk_bytes
        stream.seek(0)
    except (OSError, ValueError):
        return None
    cuts.append(size)
    path = absolute(path, cwd)  # workers elsewhere (a cluster's) read it by this name
    return [Range(path, a, b, i > 0) for i, (a, b) in enumerate(itertools.pairwise(cuts))
            if b > a]


def read_chunks(stream: BinaryIO, state: FileState, size: int = CHUNK_BYTES) -> Iterator[Chunk]:
    """Chunks of whole lines; a read error ends the file with a problem noted."""
    carry = b""
    line = 1
    skipping = False  # inside an over-long line whose tail is dropped
    while True:
        try:
            block = stream.read(size)
        except READ_ERRORS as err:
            state.problems.append(f"read stopped after {state.stats.get('bytes', 0)} bytes: "
                                  f"{type(err).__name__}: {err}".rstrip(": "))
            block = b""
        if not block:
            break
        state.add("bytes", len(block))
        if skipping:
            cut = block.find(b"\n")
            if cut < 0:
                continue
            block = block[cut:]
            skipping = False
        data = carry + block
        cut = data.rfind(b"\n")
        if cut < 0:
            if len(data) > MAX_LINE_BYTES:
                state.problems.append(f"line {line} is longer than {MAX_LINE_BYTES >> 20} MiB: "
                                      "kept its first part")
                carry, skipping = data[:MAX_LINE_BYTES], True
            else:
                carry = data
            continue
        whole, carry = data[:cut], data[cut + 1:]
        yield Chunk(whole, line, line > 1)
        line += whole.count(b"\n") + 1
    if carry:
        yield Chunk(carry, line, line > 1)


def with_last(iterator: Iterator[Chunk]) -> Iterator[tuple[Chunk, bool]]:
    """Iterate with one item of look-ahead, yielding (item, is_last)."""
    previous = None
    for item in iterator:
        if previous is not None:
            yield previous, False
        previous = item
    if previous is not None:
        yield previous, True
