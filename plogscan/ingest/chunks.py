"""Cutting one input into chunks of whole lines, and parsing one chunk in a worker.

A plain file on disk is cut into newline-aligned byte ranges that each worker reads itself
(``ranges``), so the bytes never pass through the main process. Any other stream (compressed,
an archive member, a pipe) is read here in chunks of whole lines (``read_chunks``) that are
sent to the workers (``parse_task``). Before parsing, NUL bytes and CRs before newlines are
dropped and invalid UTF-8 is replaced (``clean``), each counted. A physical line longer than
``--max-line-bytes`` keeps its first part (``cut_long_lines``); the rest is counted, not read,
so a huge line costs bounded memory.
"""

from __future__ import annotations

import gzip
import itertools
import multiprocessing
import tarfile
import zipfile
import zlib
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

import pyarrow as pa

from plogscan.ingest import handoff
from plogscan.ingest.contextlines import (
    ChunkContext,
    ContextSpec,
    Stitched,
    chunk_context,
    edge_lines,
)
from plogscan.ingest.contextmarks import asked_once
from plogscan.ingest.facts import Reducer
from plogscan.ingest.skimming import reduced_parse
from plogscan.ingest.streams import LimitReached
from plogscan.ingest.textbytes import control_bytes
from plogscan.parse.arrowtext import as_one_value
from plogscan.parse.chunk import parse_chunk
from plogscan.parse.formatcheck import builtin_formats
from plogscan.parse.lineformats import FormatSet
from plogscan.parse.results import ChunkResult, FileContext

# Chunks of 8 MiB: every call into Arrow or numpy costs about the same per chunk whatever its
# size, so 8 MiB chunks parse faster in all than 4 MiB ones (about 5% on bench/'s tree). Larger
# ones gain little more and raise peak memory (bench/README.md).
CHUNK_BYTES = 8 << 20
MAX_LINE_BYTES = 8 << 20  # the default of --max-line-bytes (``limits.Limits.line_bytes``)
READ_ERRORS = (EOFError, zlib.error, gzip.BadGzipFile, tarfile.TarError, zipfile.BadZipFile,
               OSError, ValueError)


@dataclass
class Chunk:
    data: bytes
    first_line: int
    open_record: bool
    # The lines just before and just after the chunk, for context lines (``contextlines``).
    before: tuple[bytes, ...] = ()
    after: tuple[bytes, ...] = ()


@dataclass
class Cleaned:
    result: ChunkResult
    nul_bytes: int
    decode_errors: int
    control_bytes: int = 0
    relative_lines: bool = False  # lines numbered from 1: shift by the lines before the chunk
    problem: str | None = None
    records_file: str | None = None  # the records, in shared memory (see ``handoff``)
    cut_lines: int = 0  # lines longer than the line limit, cut
    cut_bytes: int = 0  # bytes of those lines not read
    first_cut: int = 0  # line number (in the chunk's numbering) of the first cut line
    facts: pa.Table | None = None  # per-process facts of all records (with a reducer)
    dropped_records: int = 0  # records the reducer did not hand on, and their lines
    dropped_lines: int = 0
    context: ChunkContext | None = None  # the lines around the records rules may use


@dataclass
class FileState:
    """Mutable accounting for the file being read; frozen into ``FileStats`` at the end."""

    ctx: FileContext
    stats: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    pending: pa.Table | None = None  # the last record seen, which may continue
    pending_trailing_blank: int = 0
    lines_before: int = 0  # physical lines of the chunks merged so far
    first_cut: int = 0  # line number of the first line cut at the line limit
    saving: tuple | None = None  # (FileKey, digest future): what is handed on gets stored
    kept: list[pa.Table] = field(default_factory=list)
    facts: list[pa.Table] = field(default_factory=list)
    context: Stitched | None = None  # context lines of the records not handed on yet

    def add(self, key: str, value: int) -> None:
        self.stats[key] = self.stats.get(key, 0) + value

    def cut(self, line: int, dropped: int) -> None:
        """One line cut at the line limit: ``dropped`` of its bytes not read."""
        self.add("cut_lines", 1)
        self.add("cut_bytes", dropped)
        if not self.first_cut or line < self.first_cut:
            self.first_cut = line


def cut_long_lines(data: bytes, bound: int) -> tuple[bytes, int, int, int]:
    """``data`` with every line longer than ``bound`` bytes cut to its first ``bound`` bytes.

    Returns (data, lines cut, bytes dropped, 0-based line index of the first cut line). The
    check is one ``rfind`` per ``bound`` bytes, so a chunk without long lines costs nothing;
    ``data`` must start at a line start."""
    n = len(data)
    pos = 0
    parts: list[bytes] = []
    start = 0
    cuts = dropped = 0
    first = -1
    while n - pos > bound:
        newline = data.rfind(b"\n", pos, pos + bound + 1)
        if newline >= 0:
            pos = newline + 1
            continue
        end = data.find(b"\n", pos + bound)
        end = n if end < 0 else end
        parts.append(data[start:pos + bound])
        if first < 0:
            first = data.count(b"\n", 0, pos)
        cuts += 1
        dropped += end - pos - bound
        start = end
        pos = min(end + 1, n)
    if not cuts:
        return data, 0, 0, 0
    parts.append(data[start:])
    return b"".join(parts), cuts, dropped, first


def clean(data: bytes) -> tuple[bytes, int, int, int]:
    """Drop NUL bytes and CRs before newlines; replace invalid UTF-8. Returns the counts too:
    NUL bytes, replaced sequences, control bytes (``textbytes.control_bytes``).

    A chunk ends just before a newline (it was cut there), so a CR at its very end is the CR
    of a CRLF too, wherever the chunk boundaries fall."""
    nul = data.count(b"\x00") if b"\x00" in data else 0
    if nul:
        data = data.translate(None, b"\x00")
    control = control_bytes(data)
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n")
        if data.endswith(b"\r"):
            data = data[:-1]
    if valid_utf8(data):
        return data, nul, 0, control
    text = data.decode("utf-8", errors="replace")
    already = data.count("\ufffd".encode())
    return text.encode("utf-8"), nul, text.count("\ufffd") - already, control


SMALL_UTF8_CHECK = 64 << 10  # below this, Arrow's fixed cost per call outweighs its speed


def valid_utf8(data: bytes) -> bool:
    """Arrow's UTF-8 check: faster than ``bytes.decode`` and it releases the GIL. Small data
    (a small file's bytes: 20,000 of them in a job directory) is decoded in place instead,
    about 100 times cheaper per call than building an Arrow array and casting it."""
    if len(data) < SMALL_UTF8_CHECK:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return False
        return True
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
               reducer: Reducer | None = None, line_bytes: int = MAX_LINE_BYTES,
               context: ContextSpec | None = None) -> Cleaned:
    """Parse one chunk (runs in a worker); with a ``reducer``, compute the chunk's facts and
    hand on only the records it keeps (skimming the chunk first where it can, see
    ``skimming``). Lines past ``line_bytes`` are cut first. With ``context``, the lines
    around the records rules may use come back too (``contextlines``)."""
    fset = fset or builtin_formats()  # worker processes load (and check) the formats once
    reducer, context = asked_once(reducer, context)
    data, cuts, dropped, first = cut_long_lines(chunk.data, line_bytes)
    data, nul, bad, control = clean(data)
    facts, dropped_records, dropped_lines = None, 0, 0
    if reducer is None:
        result = parse_chunk(data, chunk.first_line, ctx, fset, chunk.open_record, encoded)
    else:
        result, facts, dropped_records, dropped_lines = reduced_parse(
            data, chunk.first_line, ctx, fset, chunk.open_record, encoded, reducer)
    around = None
    if context is not None:
        around = chunk_context(context, data, chunk.first_line, result.records, result.head,
                               result.lead, chunk.before, chunk.after, result.line_starts)
    result.line_starts = None  # the worker's alone: not sent back with the records
    if multiprocessing.parent_process() is not None:  # in a worker process
        result.records = result.records.drop_columns(list(CONSTANT_COLUMNS))
    records_file = handoff.put(result.records, shared)
    if records_file is not None:
        result.records = result.records.slice(0, 0)
    return Cleaned(result, nul, bad, control_bytes=control, records_file=records_file,
                   cut_lines=cuts,
                   cut_bytes=dropped, first_cut=chunk.first_line + first if cuts else 0,
                   facts=facts, dropped_records=dropped_records, dropped_lines=dropped_lines,
                   context=around)


def read_chunks(stream: BinaryIO, state: FileState, size: int = CHUNK_BYTES,
                line_bytes: int = MAX_LINE_BYTES) -> Iterator[Chunk]:
    """Chunks of whole lines; a read error ends the file with a problem noted.

    NUL bytes are dropped (and counted) as they are read, so a NUL run (a preallocated or
    torn file) never makes a line. A line longer than ``line_bytes`` keeps its first
    ``line_bytes`` bytes; the rest is counted and not held in memory."""
    carry = b""
    line = 1
    skipping = False  # inside an over-long line whose tail is dropped
    partial = False  # bytes (NULs too) after the last newline: the last line exists
    # A record may be open before a chunk only when a line before it was not blank: lines at
    # the top of a chunk after nothing but blank lines start a record there, as they would
    # in one chunk (what ``bytes.strip`` removes is blank to the parser too).
    written = False
    while True:
        try:
            block = stream.read(size)
        except READ_ERRORS as err:
            read = state.stats.get("bytes", 0)
            if isinstance(err, LimitReached):
                state.problems.append(f"not read past byte {read:,}: {err}")
            else:
                state.problems.append(f"read stopped after {read} bytes: "
                                      f"{type(err).__name__}: {err}".rstrip(": "))
            block = b""
        if not block:
            break
        state.add("bytes", len(block))
        newline = block.rfind(b"\n")
        partial = newline < len(block) - 1 if newline >= 0 else True
        if b"\x00" in block:
            nul = block.count(b"\x00")
            state.add("nul_bytes", nul)
            block = block.translate(None, b"\x00")  # far faster than replace
            if not block:
                continue
        if skipping:
            cut = block.find(b"\n")
            if cut < 0:
                state.add("cut_bytes", len(block))
                continue
            state.add("cut_bytes", cut)
            block = block[cut:]
            skipping = False
        data = carry + block
        cut = data.rfind(b"\n")
        if cut < 0:
            carry = data
        else:
            whole, carry = data[:cut], data[cut + 1:]
            yield Chunk(whole, line, written)
            written = written or bool(whole.strip())
            line += whole.count(b"\n") + 1
        if len(carry) > line_bytes:
            state.cut(line, len(carry) - line_bytes)
            carry, skipping = carry[:line_bytes], True
    if carry or partial:
        yield Chunk(carry, line, written)


def with_last(iterator: Iterator[Chunk], radius: int = 0) -> Iterator[tuple[Chunk, bool]]:
    """Iterate with look-ahead, yielding (item, is_last); with ``radius``, each chunk gets the
    ``radius`` lines before and after it from its neighbours (for context lines,
    ``contextlines``; a neighbour of fewer lines is joined by the ones after it)."""
    ahead: deque[Chunk] = deque()
    tail: tuple[bytes, ...] = ()  # the last lines before the chunk yielded next
    for item in iterator:
        ahead.append(item)
        while len(ahead) > 1 and (not radius or _lines_after(ahead, radius)):
            chunk = ahead.popleft()
            tail = _with_edges(chunk, ahead, tail, radius)
            yield chunk, False
    while ahead:
        chunk = ahead.popleft()
        tail = _with_edges(chunk, ahead, tail, radius)
        yield chunk, not ahead


def _lines_after(ahead: deque[Chunk], count: int) -> bool:
    """Whether the chunks after the first hold ``count`` lines at least."""
    found = 0
    for chunk in itertools.islice(ahead, 1, None):
        pos = -1
        while found < count:
            found += 1  # the line that starts at ``pos + 1``
            pos = chunk.data.find(b"\n", pos + 1)
            if pos < 0:
                break
        if found >= count:
            return True
    return False


def _with_edges(chunk: Chunk, ahead: deque[Chunk], tail: tuple[bytes, ...], radius: int
                ) -> tuple[bytes, ...]:
    """Give ``chunk`` the lines before it (``tail``) and after it (from ``ahead``); the last
    lines before the chunk after it."""
    if not radius:
        return tail
    chunk.before = tail
    after: list[bytes] = []
    for following in ahead:
        after += edge_lines(following.data, radius - len(after), last=False)
        if len(after) >= radius:
            break
    chunk.after = tuple(after)
    return tuple([*tail, *edge_lines(chunk.data, radius, last=True)][-radius:])
