"""A plain file on disk cut into newline-aligned byte ranges, each read and parsed by a worker.

Only a small window around each cut is read here (``plan_ranges``); every worker reads its own
range (``parse_range``), so the bytes never pass through the main process: through the walk's
descriptor in a worker thread, else by path, checking that the file is still the one planned.
With context lines (``contextlines``) the worker reads the lines around its range too.
"""

from __future__ import annotations

import io
import itertools
import os
from dataclasses import dataclass
from typing import BinaryIO

from plogscan.cache.digest import read_at
from plogscan.ingest.chunks import MAX_LINE_BYTES, Chunk, Cleaned, FileState, parse_task
from plogscan.ingest.contextlines import ContextSpec, range_edges
from plogscan.ingest.facts import Reducer
from plogscan.ingest.filekeys import absolute
from plogscan.parse.lineformats import FormatSet
from plogscan.parse.results import ChunkResult, FileContext
from plogscan.schema import table_schema


@dataclass
class Range:
    """A byte range of a plain file, cut after a newline: the worker reads it itself, so the
    bytes never pass through the main process. Its lines are numbered from 1 by the worker
    and shifted by the main process, which knows how many lines came before."""

    path: str
    start: int
    end: int
    open_record: bool
    file_id: tuple[int, int] | None = None  # (device, inode) the worker must find at ``path``
    # A descriptor of the file the walk opened (a duplicate, in a worker thread of this
    # process): read with ``os.pread``, so the file is not opened again. Worker processes and
    # a cluster's workers open ``path`` instead (a descriptor does not cross to them).
    fd: int | None = None


class _Replaced(OSError):
    """The file at a range's path is no longer the file that was planned."""


def _open_range(part: Range):  # type: ignore[no-untyped-def]
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    handle = open(part.path, "rb", opener=lambda p, _f: os.open(p, flags))  # noqa: SIM115
    st = os.fstat(handle.fileno())
    if part.file_id is not None and (st.st_dev, st.st_ino) != part.file_id:
        handle.close()
        raise _Replaced("the file was replaced by another one during the scan")
    return handle


def _read_range(part: Range, radius: int = 0
                ) -> tuple[bytes, bytes, tuple[list[bytes], list[bytes]]]:
    """The range's bytes but its last, and its last byte: that is the range's final newline,
    left out without copying the chunk (only a file's last range may end without one); and
    the ``radius`` lines before and after the range (``contextlines.range_edges``)."""
    size = part.end - part.start
    if part.fd is not None:
        fd = part.fd
        return (read_at(fd, size - 1, part.start) if size > 1 else b"",
                read_at(fd, 1, part.end - 1),
                range_edges(lambda n, at: read_at(fd, n, at), part.start, part.end, radius)
                if radius else ([], []))
    with _open_range(part) as handle:
        handle.seek(part.start)
        data = handle.read(size - 1) if size > 1 else b""
        last = handle.read(1)

        def read(n: int, at: int) -> bytes:
            handle.seek(at)
            return handle.read(n)

        edges = range_edges(read, part.start, part.end, radius) if radius else ([], [])
        return data, last, edges


def parse_range(part: Range, ctx: FileContext, fset: FormatSet | None,
                shared: str | None = None, encoded: bool = False,
                reducer: Reducer | None = None, line_bytes: int = MAX_LINE_BYTES,
                context: ContextSpec | None = None) -> Cleaned:
    """Read and parse one range of a plain file (runs in a worker)."""
    problem = None
    size = part.end - part.start
    edges: tuple[list[bytes], list[bytes]] = ([], [])
    try:
        data, last, edges = _read_range(part, context.radius if context is not None else 0)
    except _Replaced as err:
        data, last, edges = b"", b"", ([], [])
        problem = f"read stopped at byte {part.start}: {err}"
    except FileNotFoundError:
        data, last, edges = b"", b"", ([], [])
        problem = f"read stopped at byte {part.start}: the file vanished during the scan"
    except OSError as err:
        data, last, edges = b"", b"", ([], [])
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
    cleaned = parse_task(Chunk(data, 1, part.open_record, tuple(edges[0]), tuple(edges[1])),
                         ctx, fset, shared, encoded, reducer, line_bytes, context)
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
        st = os.fstat(stream.fileno())
        size, file_id = st.st_size, (st.st_dev, st.st_ino)
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
    return [Range(path, a, b, i > 0, file_id)
            for i, (a, b) in enumerate(itertools.pairwise(cuts)) if b > a]


def note_growth(stream: BinaryIO, planned: int, state: FileState) -> None:
    """A plain file is read up to the size it had when its ranges were planned; what was
    appended while it was read is reported, not silently dropped."""
    try:
        now = os.fstat(stream.fileno()).st_size
    except (OSError, ValueError, AttributeError):
        return
    if now > planned:
        state.problems.append(f"the file grew by {now - planned:,} bytes while it was read: "
                              f"bytes after {planned:,} were not read")
