"""Stream log files into event-table record batches, in parallel, with bounded memory.

Each input is cut into chunks of about 8 MiB that end on a line boundary. A plain file is cut
into byte ranges (only a small window around each cut is read here) and every worker reads its
own range; compressed files and archive members are read and decompressed by the main process
and their chunks sent to the workers. Workers are threads by default; as processes (where
``fork`` works) they hand their tables back through shared memory (``handoff``). Either way
they parse with Arrow and numpy kernels. Results are stitched back in order, so a record that
spans two chunks comes out whole. At most a few chunks are in flight at any time, whatever the
input size.

Every physical line is accounted for in ``FileStats``: it is inside exactly one record
(``record_lines``), or blank (``blank_lines``). ``lines == record_lines + blank_lines``.
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
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import BinaryIO

import pyarrow as pa

from plogscan.ingest import handoff
from plogscan.model import FileStats, IngestSummary, SkippedFile
from plogscan.parse.arrowtext import as_one_value
from plogscan.parse.chunk import ChunkResult, FileContext, Head, constant_column, parse_chunk
from plogscan.parse.codescan import extract_codes
from plogscan.parse.formatcheck import builtin_formats
from plogscan.parse.lineformats import FormatSet
from plogscan.schema import EVENT_SCHEMA, STORED_SCHEMA, SourceKind, table_schema

# Chunks of 8 MiB: every call into Arrow or numpy costs about the same per chunk whatever its
# size, so 8 MiB chunks parse faster in all than 4 MiB ones (about 5% on bench/'s tree). Larger
# ones gain little more and raise peak memory (bench/README.md).
CHUNK_BYTES = 8 << 20
# Chunks queued per worker: enough that workers keep busy while the consumer writes a Parquet
# row group (about four chunks' worth of rows), few enough to keep memory bounded.
INFLIGHT_PER_WORKER = 4
MAX_LINE_BYTES = 64 << 20  # a longer physical line keeps its first 64 MiB
_READ_ERRORS = (EOFError, zlib.error, gzip.BadGzipFile, tarfile.TarError, zipfile.BadZipFile,
                OSError, ValueError)


@dataclass
class _Chunk:
    data: bytes
    first_line: int
    open_record: bool


@dataclass
class _Range:
    """A byte range of a plain file, cut after a newline: the worker reads it itself, so the
    bytes never pass through the main process. Its lines are numbered from 1 by the worker
    and shifted by the main process, which knows how many lines came before."""

    path: str
    start: int
    end: int
    open_record: bool


@dataclass
class _Cleaned:
    result: ChunkResult
    nul_bytes: int
    decode_errors: int
    relative_lines: bool = False  # lines numbered from 1: shift by the lines before the chunk
    problem: str | None = None
    records_file: str | None = None  # the records, in shared memory (see ``handoff``)


@dataclass
class _FileState:
    """Mutable accounting for the file being read; frozen into ``FileStats`` at the end."""

    ctx: FileContext
    stats: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    pending: pa.Table | None = None  # the last record seen, which may continue
    pending_trailing_blank: int = 0
    lines_before: int = 0  # physical lines of the chunks merged so far

    def add(self, key: str, value: int) -> None:
        self.stats[key] = self.stats.get(key, 0) + value


def clean(data: bytes) -> tuple[bytes, int, int]:
    """Drop NUL bytes and CRs before newlines; replace invalid UTF-8. Returns counts too."""
    nul = data.count(b"\x00") if b"\x00" in data else 0
    if nul:
        data = data.replace(b"\x00", b"")
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n")
    if _valid_utf8(data):
        return data, nul, 0
    text = data.decode("utf-8", errors="replace")
    already = data.count("\ufffd".encode())
    return text.encode("utf-8"), nul, text.count("\ufffd") - already


def _valid_utf8(data: bytes) -> bool:
    """Arrow's UTF-8 check: faster than ``bytes.decode`` and it releases the GIL."""
    try:
        as_one_value(data, pa.large_binary()).cast(pa.large_string())
    except pa.ArrowInvalid:
        return False
    return True


# Columns that hold one value per file: worker processes leave them out of what they send
# back, and the main process puts them in again (cheaply, in C++), so they are not sent row by
# row.
_CONSTANT_COLUMNS = ("kind", "path", "host")


def _parse(chunk: _Chunk, ctx: FileContext, fset: FormatSet | None,
           shared: str | None = None, encoded: bool = False) -> _Cleaned:
    fset = fset or builtin_formats()  # worker processes load (and check) the formats once
    data, nul, bad = clean(chunk.data)
    result = parse_chunk(data, chunk.first_line, ctx, fset, chunk.open_record, encoded)
    if multiprocessing.parent_process() is not None:  # in a worker process
        result.records = result.records.drop_columns(list(_CONSTANT_COLUMNS))
    records_file = handoff.put(result.records, shared)
    if records_file is not None:
        result.records = result.records.slice(0, 0)
    return _Cleaned(result, nul, bad, records_file=records_file)


def _parse_range(part: _Range, ctx: FileContext, fset: FormatSet | None,
                 shared: str | None = None, encoded: bool = False) -> _Cleaned:
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
        return _Cleaned(nothing, 0, 0, relative_lines=True, problem=problem)
    cleaned = _parse(_Chunk(data, 1, part.open_record), ctx, fset, shared, encoded)
    cleaned.relative_lines = True
    cleaned.problem = problem
    return cleaned


RANGE_SCAN_BYTES = 1 << 20  # a line longer than this near a cut sends the file to read_chunks
CUT_PEEK_BYTES = 16 << 10


def plan_ranges(stream: BinaryIO, chunk_bytes: int) -> list[_Range] | None:
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
    return [_Range(path, a, b, i > 0) for i, (a, b) in enumerate(itertools.pairwise(cuts))
            if b > a]


def read_chunks(stream: BinaryIO, state: _FileState, size: int = CHUNK_BYTES) -> Iterator[_Chunk]:
    """Chunks of whole lines; a read error ends the file with a problem noted."""
    carry = b""
    line = 1
    skipping = False  # inside an over-long line whose tail is dropped
    while True:
        try:
            block = stream.read(size)
        except _READ_ERRORS as err:
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
        yield _Chunk(whole, line, line > 1)
        line += whole.count(b"\n") + 1
    if carry:
        yield _Chunk(carry, line, line > 1)


class Ingest:
    """Parse inputs into record batches; ``summary`` holds the accounting afterwards."""

    def __init__(self, fset: FormatSet | None = None, workers: int | None = None,
                 chunk_bytes: int = CHUNK_BYTES,
                 on_progress: Callable[[str, int], None] | None = None,
                 processes: bool = False, encoded: bool = False) -> None:
        self.fset = fset or builtin_formats()
        self.processes = processes
        # Batches in STORED_SCHEMA (for the Parquet writer) instead of EVENT_SCHEMA.
        self.encoded = encoded
        self.schema = table_schema(encoded)
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.chunk_bytes = chunk_bytes
        self.on_progress = on_progress
        self.files: list[FileStats] = []
        self.skipped: list[SkippedFile] = []
        self.paths: tuple[str, ...] = ()
        self._shared: str | None = None  # shared-memory directory of the running pool

    @property
    def summary(self) -> IngestSummary:
        # Skips in directory-walk order of their paths, so that the report does not depend on
        # the order in which the arguments were given.
        return IngestSummary(self.paths, tuple(self.files),
                             tuple(sorted(self.skipped, key=lambda s: s.path.split("/"))))

    def absorb(self, files: Iterable[FileStats], skipped: Iterable[SkippedFile]) -> None:
        """Add accounting made by an earlier run (stored in an event table)."""
        self.files.extend(files)
        self.skipped.extend(skipped)

    def batches(self, paths: Sequence[str]) -> Iterator[pa.RecordBatch]:
        """Every record of every input, file by file, in line order."""
        from plogscan.ingest.walk import Skipped, iter_inputs

        self.paths = tuple(paths)

        def items() -> Iterator[tuple[FileContext, BinaryIO]]:
            for item in iter_inputs(list(paths)):
                if isinstance(item, Skipped):
                    self.skipped.append(SkippedFile(item.path, item.reason))
                    if self.on_progress:
                        self.on_progress("skipped", 0)
                    continue
                source, stream = item
                yield FileContext(source.path, source.kind.value, source.host, source.rank,
                                  source.device), stream

        yield from self.batches_from(items())

    def batches_from(self, inputs: Iterable[tuple[FileContext, BinaryIO]]
                     ) -> Iterator[pa.RecordBatch]:
        """Like ``batches`` for already opened streams (used by ``parse_text``)."""
        pool = self._pool()
        # The pool is shut down (its workers done) before the hand-off directory is removed,
        # so no worker can write into it after it is gone, even when the run stops early.
        with handoff.Handoff(isinstance(pool, ProcessPoolExecutor)) as box, pool:
            self._shared = box.directory
            inflight: deque[tuple[_FileState, Future[_Cleaned], bool]] = deque()
            limit = self.workers * INFLIGHT_PER_WORKER
            for ctx, stream in inputs:
                state = _FileState(ctx)
                ranges = plan_ranges(stream, self.chunk_bytes)
                tasks = (self._range_tasks(pool, ranges, ctx, state) if ranges else
                         self._chunk_tasks(pool, with_last(read_chunks(stream, state,
                                                                       self.chunk_bytes)), ctx))
                submitted = 0
                for submit, size, is_last in tasks:
                    inflight.append((state, submit(), is_last))
                    submitted += 1
                    if self.on_progress:
                        self.on_progress("bytes", size)
                    while len(inflight) > limit:
                        yield from self._drain(inflight.popleft())
                if not submitted:  # nothing to parse: finish it in its place in the order
                    while inflight:
                        yield from self._drain(inflight.popleft())
                    self._finish(state)
            while inflight:
                yield from self._drain(inflight.popleft())

    def _range_tasks(self, pool: Executor, ranges: list[_Range], ctx: FileContext,
                     state: _FileState
                     ) -> Iterator[tuple[Callable[[], Future[_Cleaned]], int, bool]]:
        for index, part in enumerate(ranges):
            state.add("bytes", part.end - part.start)
            yield ((lambda p=part: pool.submit(_parse_range, p, ctx, self._task_formats,
                                                     self._shared, self.encoded)),
                   part.end - part.start, index == len(ranges) - 1)

    def _chunk_tasks(self, pool: Executor, chunks: Iterator[tuple[_Chunk, bool]], ctx: FileContext
                     ) -> Iterator[tuple[Callable[[], Future[_Cleaned]], int, bool]]:
        for chunk, is_last in chunks:
            yield ((lambda c=chunk: pool.submit(_parse, c, ctx, self._task_formats, self._shared,
                                                self.encoded)),
                   len(chunk.data), is_last)

    def _pool(self) -> Executor:
        """Worker threads by default: on the 2-core benchmark machine they use less CPU in
        all than processes (no hand-off, no per-file columns rebuilt) and finish sooner, though
        the parse holds the GIL between kernels. Worker processes when asked for, there are
        several workers and fork is available."""
        forkable = "fork" in multiprocessing.get_all_start_methods()
        if self.workers > 1 and self.processes and forkable:
            context = multiprocessing.get_context("fork")
            try:
                return ProcessPoolExecutor(self.workers, mp_context=context)
            except (NotImplementedError, ImportError, OSError):
                pass  # no working semaphores (no /dev/shm, sandboxes): threads still work
        return ThreadPoolExecutor(self.workers, thread_name_prefix="plogscan-parse")

    @property
    def _task_formats(self) -> FormatSet | None:
        """Formats to send with each chunk: none for the built-in set (workers load it)."""
        return None if self.fset is builtin_formats() else self.fset

    def _drain(self, item: tuple[_FileState, Future[_Cleaned], bool]) -> Iterator[pa.RecordBatch]:
        state, future, is_last = item
        cleaned = future.result()
        yield from self._merge(state, cleaned)
        if is_last:
            if state.pending is not None:
                self._count(state, state.pending)
                yield from _batches(state.pending)
                state.pending = None
            self._finish(state)

    def _merge(self, state: _FileState, cleaned: _Cleaned) -> Iterator[pa.RecordBatch]:
        result = cleaned.result
        if cleaned.records_file is not None:
            result.records = handoff.take(cleaned.records_file)
        if cleaned.problem:
            state.problems.append(cleaned.problem)
        _restore_constants(result, state.ctx, self.schema)
        if cleaned.relative_lines and state.lines_before:
            _shift_lines(result, state.lines_before)
        state.lines_before += result.lines
        for key, value in (("lines", result.lines), ("blank_lines", result.blank_lines),
                           ("unparsed_lines", result.unparsed_lines),
                           ("record_lines", -result.shared_lines),
                           ("truncated_lines", result.truncated_lines),
                           ("invalid_timestamps", result.invalid_timestamps),
                           ("epoch_clock_records", result.epoch_records),
                           ("nul_bytes", cleaned.nul_bytes),
                           ("decode_errors", cleaned.decode_errors)):
            state.add(key, value)
        head = result.head
        if head is not None and state.pending is not None:
            between = state.pending_trailing_blank + head.lead_blank
            state.pending = _extend(state.pending, head, between, self.schema)
            state.add("blank_lines", -between)
            if state.pending.column("fmt")[0].as_py() in ("unparsed", "text"):
                state.add("unparsed_lines", head.lines + between)
            state.pending_trailing_blank = 0
        elif head is not None:  # continuation lines with nothing before them in the file
            state.pending = _orphan(state.ctx, head, self.schema)
            state.add("unparsed_lines", head.lines)
            state.pending_trailing_blank = 0
        records = result.records
        if records.num_rows == 0:
            state.pending_trailing_blank += result.trailing_blank
            return
        out = [records.slice(0, records.num_rows - 1)]
        if state.pending is not None:
            out.insert(0, state.pending)
        state.pending = records.slice(records.num_rows - 1)
        state.pending_trailing_blank = result.trailing_blank
        table = pa.concat_tables(out)
        self._count(state, table)
        yield from _batches(table)

    def _count(self, state: _FileState, table: pa.Table) -> None:
        state.add("records", table.num_rows)
        state.add("record_lines", int(pa.compute.sum(table.column("line_count")).as_py() or 0))

    def _finish(self, state: _FileState) -> None:
        s = state.stats
        self.files.append(FileStats(
            path=state.ctx.path, kind=state.ctx.kind, bytes=s.get("bytes", 0),
            lines=s.get("lines", 0), records=s.get("records", 0),
            record_lines=s.get("record_lines", 0), blank_lines=s.get("blank_lines", 0),
            unparsed_lines=s.get("unparsed_lines", 0), decode_errors=s.get("decode_errors", 0),
            nul_bytes=s.get("nul_bytes", 0), truncated_lines=s.get("truncated_lines", 0),
            invalid_timestamps=s.get("invalid_timestamps", 0),
            epoch_clock_records=s.get("epoch_clock_records", 0), problems=tuple(state.problems)))
        if self.on_progress:
            self.on_progress("file", 0)


def with_last(iterator: Iterator[_Chunk]) -> Iterator[tuple[_Chunk, bool]]:
    """Iterate with one item of look-ahead, yielding (item, is_last)."""
    previous = None
    for item in iterator:
        if previous is not None:
            yield previous, False
        previous = item
    if previous is not None:
        yield previous, True


def _restore_constants(result: ChunkResult, ctx: FileContext, schema: pa.Schema) -> None:
    """Put back the per-file columns a worker left out (see ``_CONSTANT_COLUMNS``)."""
    table = result.records
    if table.num_columns == len(schema):
        return
    values = {"kind": ctx.kind, "path": ctx.path, "host": ctx.host}
    for name in _CONSTANT_COLUMNS:
        table = table.append_column(schema.field(name), constant_column(
            values[name], table.num_rows, encoded=schema is STORED_SCHEMA))
    result.records = table.select(schema.names)


def _shift_lines(result: ChunkResult, offset: int) -> None:
    """Renumber a chunk parsed from line 1 that starts after ``offset`` lines."""
    table = result.records
    index = table.schema.get_field_index("line")
    shifted = pa.compute.add(table.column(index), pa.scalar(offset, pa.int64()))
    result.records = table.set_column(index, table.schema.field(index), shifted)
    if result.head is not None:
        result.head.first_line += offset


def _orphan(ctx: FileContext, head: Head, schema: pa.Schema) -> pa.Table:
    """An unparsed record made of continuation lines that follow no record."""
    kind_text = ctx.kind in (SourceKind.STDOUT.value, SourceKind.SYSLOG.value)
    row = {name: None for name in EVENT_SCHEMA.names}
    row.update(message=head.text, kind=ctx.kind, path=ctx.path, line=head.first_line,
               line_count=head.lines, host=ctx.host, rank=ctx.rank, device=ctx.device,
               codes=[], fmt="text" if kind_text else "unparsed", truncated=head.truncated,
               ts_invalid=False, clock_epoch=False)
    return pa.Table.from_pylist([row], schema=schema)


def _extend(pending: pa.Table, head: Head, between: int, schema: pa.Schema) -> pa.Table:
    """The pending record with continuation lines from the next chunk appended."""
    row = pending.to_pylist()[0]
    row["message"] = (row["message"] or "") + "\n" * (1 + between) + head.text
    row["line_count"] = row["line_count"] + between + head.lines
    row["truncated"] = bool(row["truncated"] or head.truncated)
    row["codes"] = extract_codes(pa.array([row["message"]], pa.large_string()),
                                 pa.array([row["level"]], pa.string()))[0].as_py()
    return pa.Table.from_pylist([row], schema=schema)


def _batches(table: pa.Table) -> Iterator[pa.RecordBatch]:
    for batch in table.to_batches():
        if batch.num_rows:
            yield batch


# --------------------------------------------------------------------------- conveniences


def _context(path: str, data: bytes, kind: SourceKind | str | None) -> FileContext:
    from plogscan.ingest.walk import classify, path_hints

    host, rank, device, _pid = path_hints(path)
    if kind is None:
        found = classify(path, data[:65536])
        kind = found if found is not None else SourceKind.PLOG
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

