"""The lines around the records some rule may use, taken from the bytes a worker already holds,
so that the evidence of a finding comes with its context lines and no file is read again.

A worker that parses a chunk knows which of its records some rule may match (the selector's
``candidates``, the ``marker`` of ``ContextSpec``): for those, and for the chunk's last record
(it may go on in the next chunk), it takes the ``radius`` physical lines before the record's
first line and after its last one (``ChunkContext.rows``). Lines beyond the chunk come from
its neighbours: the ``edges`` of a range are read around it in the file, those of a streamed
chunk come from the chunks before and after it. The lines after a record that goes on in the
next chunk are known only there: that chunk hands back its first lines, up to ``radius``
lines past its continuation lines and the records that may join the one before it
(``lead_lines``: the record's end is known only once the main process has joined them), and
the lines before its continuation lines (``head_before``, for continuation lines with no
record before them).

Each line is its text as written (undecodable bytes replaced, NUL bytes dropped, the line
break left out), cut to ``MAX_CHARS`` characters with `` …``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.ingest.contextpool import TextPool, ViewPool
from plogscan.parse.arrowtext import gathered, views_fit
from plogscan.schema import CONTEXT_COLUMNS

MAX_CHARS = 500
# Of a line held: more than MAX_CHARS characters of any UTF-8, after a cut that falls inside
# a character backs off to its start.
LINE_BYTES = 4 * (MAX_CHARS + 2)
EDGE_WINDOW = 64 << 10  # first read around a range for its edge lines (doubled as needed)
EDGE_READ_MAX = 64 << 20  # read at most this far for them (a line longer is cut short)
LINES = pa.list_(pa.string())
CONTEXT_FIELDS = [pa.field(name, LINES) for name in CONTEXT_COLUMNS]
ROWS_SCHEMA = pa.schema([pa.field("line", pa.int64()), *CONTEXT_FIELDS])
_MARK = " …"


class Marker(Protocol):
    """Which records some rule may use (``engine.selector.Selector``)."""

    def candidates(self, records: pa.Table) -> np.ndarray: ...


@dataclass(frozen=True)
class ContextSpec:
    """What a worker takes context lines for: ``radius`` lines each side of the records
    ``marker`` marks."""

    radius: int
    marker: Marker


@dataclass
class ChunkContext:
    """The context lines a worker found for one chunk (lines in the chunk's numbering)."""

    rows: pa.Table  # ROWS_SCHEMA: the first line of each record, the lines around it
    head_before: list[str] = field(default_factory=list)  # before the continuation lines
    # the chunk's first lines, to ``radius`` past what may join the record before the chunk
    lead_lines: list[str] = field(default_factory=list)
    radius: int = 0

    def after(self, end: int) -> list[str]:
        """The ``radius`` lines from line ``end`` of the chunk on (0-based): those after a
        record that ends there."""
        return self.lead_lines[max(end, 0):max(end, 0) + self.radius]


def line_text(raw: bytes) -> str:
    """A line as the evidence shows it."""
    text = raw.decode("utf-8", errors="replace").rstrip("\r\n").replace("\x00", "")
    return text if len(text) <= MAX_CHARS else text[:MAX_CHARS] + _MARK


def with_context_columns(table: pa.Table | pa.RecordBatch) -> pa.Table | pa.RecordBatch:
    """``table`` with both context columns (all null when it has none)."""
    if table.schema.get_field_index(CONTEXT_COLUMNS[0]) >= 0:
        return table
    for spec in CONTEXT_FIELDS:
        table = table.append_column(spec, pa.nulls(table.num_rows, LINES))
    return table


def without_context_columns(table: pa.Table | pa.RecordBatch) -> pa.Table | pa.RecordBatch:
    """``table`` without the context columns (an event table written to disk has none)."""
    if table.schema.get_field_index(CONTEXT_COLUMNS[0]) < 0:
        return table
    return table.drop_columns(list(CONTEXT_COLUMNS))


class Lines:
    """The physical lines of a chunk's bytes, with the lines before and after it."""

    def __init__(self, data: bytes, before: Sequence[bytes] = (),
                 after: Sequence[bytes] = (), starts: np.ndarray | None = None) -> None:
        """``starts``: where each line of ``data`` starts, when the parse found them."""
        self.data = data
        self.array = np.frombuffer(data, np.uint8)
        if starts is None:
            ends = np.flatnonzero(self.array == 10)
            self.starts = np.concatenate(([0], ends + 1)).astype(np.int64)
        else:
            self.starts = starts.astype(np.int64, copy=False)
            ends = self.starts[1:] - 1
        self.ends = np.concatenate((ends, [len(data)])).astype(np.int64)
        self.count = len(self.starts)
        self.before = list(before)
        self.after = list(after)

    def texts(self, first: int, stop: int) -> list[str]:
        """The lines ``first`` to ``stop - 1`` (0-based in the chunk; negative ones are the
        edge lines before it, those past the end the edge lines after it)."""
        out = []
        for k in range(first, stop):
            if k < 0:
                if -k <= len(self.before):
                    out.append(line_text(self.before[k]))
            elif k < self.count:
                out.append(line_text(self.data[self.starts[k]:self.ends[k]]))
            elif k - self.count < len(self.after):
                out.append(line_text(self.after[k - self.count]))
        return out

    def around(self, first: np.ndarray, end: np.ndarray, radius: int,
               low: np.ndarray | None = None, high: np.ndarray | None = None
               ) -> tuple[pa.Array, pa.Array]:
        """The lines before line ``first[i]`` and from line ``end[i]`` on (0-based), ``radius``
        of each, for every row ``i``: one take per side from views of the chunk's lines in
        its bytes, the rows near its edges completed with the edge lines. With ``low`` and
        ``high`` (the bytes are several files joined), row ``i`` takes only lines ``low[i]``
        to ``high[i] - 1``: its file's."""
        steps = np.arange(radius, dtype=np.int64)
        before = first[:, None] - radius + steps[None, :]
        after = end[:, None] + steps[None, :]
        bottom = 0 if low is None else low[:, None]
        top = self.count if high is None else high[:, None]
        sides = []
        for index, edge in ((before, (before < 0) & (before >= -len(self.before))),
                            (after, (after >= self.count)
                             & (after < self.count + len(self.after)))):
            sides.append((index, (index >= bottom) & (index < top), edge))
        edges = [line_text(self.before[k] if k < 0 else self.after[k - self.count])
                 for index, _inside, edge in sides for k in index[edge].tolist()]
        needed = np.zeros(self.count, bool)
        for index, inside, _edge in sides:
            needed[index[inside]] = True
        pool = self._pool(needed, edges)
        place = pool.place
        next_edge = pool.size - len(edges)  # the edge lines come last, side by side
        out = []
        for index, inside, edge in sides:
            wanted = inside | edge
            source = np.empty(index.shape, np.int64)
            source[inside] = place[index[inside]]
            source[edge] = next_edge + np.arange(int(edge.sum()))
            next_edge += int(edge.sum())
            offsets = np.concatenate(([0], np.cumsum(wanted.sum(axis=1)))).astype(np.int32)
            texts = pool.take(pa.array(source[wanted]))
            out.append(pa.ListArray.from_arrays(pa.array(offsets), texts.cast(pa.string())))
        return out[0], out[1]

    def _pool(self, needed: np.ndarray, edges: list[str]) -> TextPool | ViewPool:
        """An array of the ``needed`` chunk lines' texts, cut as ``line_text`` cuts them, then
        ``edges``, and the element of each needed line in it.

        The lines are string views into the chunk's bytes (no byte copied until a row takes
        them); the few longer than ``MAX_CHARS`` characters are added after them, shortened,
        with the edge lines."""
        shown = np.flatnonzero(needed)
        starts = self.starts[shown]
        lengths = self.ends[shown] - starts
        cut = np.minimum(lengths, LINE_BYTES)
        # A cut line ends on a character boundary: UTF-8 continuation bytes are left out.
        for _ in range(3):
            inner = (cut < lengths) & (cut > 0)
            if not inner.any():
                break
            at = self.array[starts[inner] + cut[inner]]
            back = (at & 0xC0) == 0x80
            cut[np.flatnonzero(inner)[back]] -= 1
        # The carriage returns that end a line (CRLF files) are not shown.
        while True:
            cr = np.flatnonzero(cut > 0)
            cr = cr[self.array[starts[cr] + cut[cr] - 1] == 13]
            if not len(cr):
                break
            cut[cr] -= 1
        if not views_fit(len(self.array)):  # a chunk past 2 GiB: the lines are copied out
            lines = gathered(self.array, starts, cut).cast(pa.string())
            return TextPool(lines, *self._fixed(shown, cut, lines.take, edges))
        lines = ViewPool(self.array, self.data, starts, cut)
        return lines.with_extra(*self._fixed(shown, cut, lines.take, edges))

    def _fixed(self, shown: np.ndarray, cut: np.ndarray, take: Callable[[pa.Array], pa.Array],
               edges: list[str]) -> tuple[np.ndarray, list[pa.Array]]:
        """The element of each chunk line among the ``shown`` ones (their texts ``take``s
        and ``cut``), past them for the few longer than ``MAX_CHARS`` characters: those
        shortened, then the ``edges``, are the texts to add after them."""
        place = np.zeros(self.count, np.int64)
        place[shown] = np.arange(len(shown))
        extra = [pa.array(edges, pa.string())]
        maybe = np.flatnonzero(cut > MAX_CHARS)  # more bytes than characters shown
        if len(maybe):
            some = take(pa.array(maybe)).cast(pa.string())
            long = pc.greater(pc.utf8_length(some), MAX_CHARS).to_numpy(zero_copy_only=False)
            if long.any():
                extra.insert(0, pc.binary_join_element_wise(
                    pc.utf8_slice_codeunits(some.filter(pa.array(long)), 0, MAX_CHARS),
                    pa.scalar(_MARK, pa.string()), pa.scalar("", pa.string())))
                place[shown[maybe[long]]] = len(shown) + np.arange(int(long.sum()))
        return place, extra


def chunk_context(spec: ContextSpec, data: bytes, first_line: int, records: pa.Table,
                  head: object, lead: int, before: Sequence[bytes] = (),
                  after: Sequence[bytes] = (), starts: np.ndarray | None = None
                  ) -> ChunkContext:
    """The context lines of a chunk's records some rule may use and of its last record, and
    those around its continuation lines (``head``, a ``parse.results.Head``) and the
    ``lead`` records that continue the record before the chunk."""
    radius = spec.radius
    lines = Lines(data, before, after, starts)
    rows = _rows(spec, lines, first_line, records)
    head_before: list[str] = []
    extent = 0
    if head is not None:
        top = head.first_line - first_line  # type: ignore[attr-defined]
        head_before = lines.texts(top - radius, top)
        extent = top + head.lines  # type: ignore[attr-defined]
    if lead:
        firsts = records.column("line").to_numpy()[:lead] - first_line
        counts = records.column("line_count").to_numpy()[:lead]
        extent = max(extent, int((firsts + counts).max()))
    lead_lines = lines.texts(0, extent + radius) if (head is not None or lead) else []
    return ChunkContext(rows, head_before, lead_lines, radius)


def _rows(spec: ContextSpec, lines: Lines, first_line: int, records: pa.Table) -> pa.Table:
    n = records.num_rows
    if n == 0:
        return ROWS_SCHEMA.empty_table()
    marked = np.asarray(spec.marker.candidates(records), dtype=bool)
    marked[n - 1] = True  # the last record may go on in the next chunk: always taken
    where = np.flatnonzero(marked)
    first = records.column("line").to_numpy().astype(np.int64)[where]
    counts = records.column("line_count").fill_null(1).to_numpy().astype(np.int64)[where]
    start = first - first_line
    before, after = lines.around(start, start + counts, spec.radius)
    return pa.table([pa.array(first, pa.int64()), before, after], schema=ROWS_SCHEMA)


def attached(table: pa.Table, rows: pa.Table) -> pa.Table:
    """``table`` (records of one file, in line order) with the context columns of ``rows``
    (matched by first line; null for a record with none)."""
    n = table.num_rows
    if rows.num_rows == 0 or n == 0:
        return with_context_columns(table)
    side = rows.column("line").to_numpy()
    lines = table.column("line").to_numpy(zero_copy_only=False)
    order = np.argsort(side, kind="stable")
    side_sorted = side[order]
    at = np.searchsorted(side_sorted, lines)
    found = at < len(side_sorted)
    found[found] = side_sorted[at[found]] == lines[found]
    index = pa.array(np.where(found, order[np.minimum(at, len(order) - 1)], 0), pa.int64(),
                     mask=~found)
    for name in CONTEXT_COLUMNS:
        column = rows.column(name).combine_chunks() if isinstance(
            rows.column(name), pa.ChunkedArray) else rows.column(name)
        table = table.append_column(pa.field(name, LINES), column.take(index))
    return table


def edge_lines(data: bytes, count: int, *, last: bool) -> list[bytes]:
    """The first (or, with ``last``, the last) ``count`` lines of ``data`` (whole lines
    without the final newline), each cut to ``LINE_BYTES``."""
    out: list[bytes] = []
    if not data or count <= 0:
        return out
    if last:
        end = len(data)
        while len(out) < count:
            start = data.rfind(b"\n", 0, end) + 1
            out.append(data[start:min(end, start + LINE_BYTES)])
            if start == 0:
                break
            end = start - 1
        out.reverse()
        return out
    start = 0
    while len(out) < count:
        end = data.find(b"\n", start)
        out.append(data[start:(end if end >= 0 else len(data))][:LINE_BYTES])
        if end < 0:
            break
        start = end + 1
    return out


def range_edges(read: Callable[[int, int], bytes], start: int, end: int, radius: int
                ) -> tuple[list[bytes], list[bytes]]:
    """The ``radius`` lines before byte ``start`` and from byte ``end`` on of a file read by
    ``read(size, offset)`` (a range's neighbours: ``start`` follows a newline)."""
    before: list[bytes] = []
    window = EDGE_WINDOW
    while start > 0:
        low = max(0, start - window)
        body = read(start - low, low)
        body = body[:-1] if body.endswith(b"\n") else body
        if body.count(b"\n") >= radius or low == 0 or window >= EDGE_READ_MAX:
            before = edge_lines(body, radius, last=True)
            break
        window *= 2
    after: list[bytes] = []
    window = EDGE_WINDOW
    while True:
        body = read(window, end)
        done = len(body) < window
        if done and body.endswith(b"\n"):
            body = body[:-1]  # the file's final newline ends its last line
        if done or body.count(b"\n") >= radius or window >= EDGE_READ_MAX:
            after = edge_lines(body, radius, last=False) if body else []
            break
        window *= 2
    return before, after


def kept_schema(schema: pa.Schema) -> pa.Schema:
    """The schema of records handed on with their context lines."""
    return pa.schema([*schema, *CONTEXT_FIELDS])


class Stitched:
    """The context rows of one file's records that are not handed on yet, in the file's
    numbering: those of the chunk just merged and of the record that may go on."""

    def __init__(self) -> None:
        self.rows = ROWS_SCHEMA.empty_table()

    def add(self, found: ChunkContext, shift: int) -> None:
        """A chunk's rows, renumbered by the ``shift`` lines before it."""
        rows = found.rows
        if shift and rows.num_rows:
            rows = rows.set_column(0, "line", pc.add(rows.column("line"),
                                                     pa.scalar(shift, pa.int64())))
        self.rows = pa.concat_tables([self.rows, rows]) if self.rows.num_rows else rows

    def put(self, line: int, before: list[str], after: list[str]) -> None:
        """The context of the record at ``line`` (made or grown here), in place of any."""
        rest = self.rows.filter(pc.not_equal(self.rows.column("line"), line))
        row = pa.table({"line": [line], "context_before": [before],
                        "context_after": [after]}, schema=ROWS_SCHEMA)
        self.rows = pa.concat_tables([row, rest])

    def grown(self, line: int, after: list[str]) -> None:
        """The record at ``line`` goes on past its chunk: the lines after it are ``after``."""
        found = self.rows.filter(pc.equal(self.rows.column("line"), line))
        before = found.column("context_before")[0].as_py() if found.num_rows else []
        self.put(line, before or [], after)

    def attach(self, table: pa.Table) -> pa.Table:
        return attached(table, self.rows)

    def keep(self, line: int | None) -> None:
        """Only the context of the record at ``line`` (the one that may go on) is kept."""
        if line is None:
            self.rows = ROWS_SCHEMA.empty_table()
        elif self.rows.num_rows:
            self.rows = self.rows.filter(pc.equal(self.rows.column("line"), line))
