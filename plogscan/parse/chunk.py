"""Parse one chunk of log text into event-table records, with vectorized Arrow kernels.

The hot path runs one RE2 pass (the one-pass CANN header pattern of ``cannheader``) over every
line of the chunk; everything else works on the lines it did not match, or on small subsets.
There is no Python loop per line. A chunk always holds whole lines; a record that continues
into the next chunk is stitched by ``ingest``: the lines at the top of a chunk that continue
the previous record come back as ``ChunkResult.head``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.parse import cannheader
from plogscan.parse import fieldvalues as fv
from plogscan.parse.arrowtext import (
    LARGE,
    byte_lengths,
    line_buffers,
    slice_from,
    split_lines,
    substrings,
)
from plogscan.parse.codescan import extract_codes
from plogscan.parse.lineformats import FormatSet
from plogscan.parse.linematch import Spans, match_lines
from plogscan.parse.timestamps import epoch_mask
from plogscan.schema import (
    ENCODED_COLUMNS,
    ENCODED_TEXT,
    SourceKind,
    encoded_text,
    plain_text,
    table_schema,
)

TRUNCATION_CHARS = 1022  # the CANN log library cuts records here without a marker
_TEXT_KINDS = {SourceKind.STDOUT.value, SourceKind.SYSLOG.value}
_INT_FIELDS = {"pid": pa.int64(), "tid": pa.int64(), "src_line": pa.int32(),
               "rank": pa.int32(), "device": pa.int32()}
# Two records glued on one physical line (a lost newline): split before the second header.
_GLUE_RE2 = r".\[(?:ERROR|WARNING|INFO|DEBUG|EVENT|TRACE)\] ?[A-Z][A-Z0-9_]*\(-?\d+,[^)]*\):"
# The same second header anywhere in a text (a record's message, which starts after its own
# header): where the lines' regex matches, this one does too.
_GLUE_IN_TEXT = _GLUE_RE2[1:]
_GLUE_IN_TEXT_PY = re.compile(_GLUE_IN_TEXT)
_GLUE_TAGS = ("[ERROR]", "[WARNING]", "[INFO]", "[DEBUG]", "[EVENT]", "[TRACE]")
_TAG_INITIAL = np.zeros(256, bool)  # first letters of the level tags
_TAG_INITIAL[list(b"EWIDT")] = True
_GLUE_PY = re.compile(r"(?<=.)(?=\[(?:ERROR|WARNING|INFO|DEBUG|EVENT|TRACE)\] ?[A-Z][A-Z0-9_]*"
                      r"\(-?\d+,[^)]*\):)")


@dataclass(frozen=True)
class FileContext:
    """What is known about a file before its content is read."""

    path: str
    kind: str
    host: str | None = None
    rank: int | None = None
    device: int | None = None


@dataclass
class Head:
    """Lines at the top of a chunk that continue the record before the chunk."""

    text: str  # continuation text from the first non-blank line, joined with "\n"
    first_line: int  # physical line number of that first non-blank line
    lines: int  # physical lines from it to the last continuation line
    lead_blank: int  # blank lines before it at the top of the chunk (counted as blank)
    truncated: bool


@dataclass
class ChunkResult:
    """Records of one chunk and the line accounting that goes with them."""

    records: pa.Table
    head: Head | None
    lines: int = 0
    blank_lines: int = 0  # blank lines outside every record of this chunk
    trailing_blank: int = 0  # blank lines after the chunk's last record (may become interior)
    unparsed_lines: int = 0
    shared_lines: int = 0  # physical lines holding two glued records (counted once)
    truncated_lines: int = 0
    invalid_timestamps: int = 0
    epoch_records: int = 0
    formats_seen: dict[str, int] = field(default_factory=dict)


# --------------------------------------------------------------------------- records


def _glue_suspects(buf: bytes) -> np.ndarray:
    """Indices of lines with a level tag (``[ERROR]``...) after their first byte.

    A numpy scan of the raw bytes: ``[`` positions not at a line start, followed by a tag.
    """
    raw = np.frombuffer(buf, dtype=np.uint8)
    brackets = np.flatnonzero(raw == 91)
    brackets = brackets[(brackets > 0) & (brackets + 1 < len(raw))]
    # Only a "[" not at a line start and followed by a tag's first letter can glue.
    brackets = brackets[(raw[brackets - 1] != 10) & _TAG_INITIAL[raw[brackets + 1]]]
    found = np.zeros(len(brackets), bool)
    for tag in _GLUE_TAGS:
        inside = brackets + len(tag) <= len(raw)
        hit = inside.copy()
        for k, byte in enumerate(tag.encode()[1:], start=1):
            hit[inside] &= raw[brackets[inside] + k] == byte
        found |= hit
    if not found.any():
        return np.zeros(0, np.int64)
    newlines = np.flatnonzero(raw == 10)
    return np.unique(np.searchsorted(newlines, brackets[found]))


def _split_glued(lines: pa.Array, lineno: np.ndarray, suspects: np.ndarray
                 ) -> tuple[pa.Array, np.ndarray]:
    """Split lines that hold two records; the parts keep the physical line number."""
    suspects = suspects[suspects < len(lines)]
    if len(suspects) == 0:
        return lines, lineno
    glued = np.zeros(len(lines), bool)
    glued[suspects] = pc.match_substring_regex(
        lines.take(pa.array(suspects)), _GLUE_RE2).to_numpy(zero_copy_only=False)
    if not glued.any():
        return lines, lineno
    pieces: list[pa.Array] = []
    numbers: list[np.ndarray] = []
    prev = 0
    for i in np.flatnonzero(glued):  # rare: only lines with a lost newline
        pieces.append(lines.slice(prev, i - prev))
        numbers.append(lineno[prev:i])
        parts = _GLUE_PY.split(lines[i].as_py())
        if not parts[0].strip():  # indentation, not a record: a blank part would count twice
            parts = parts[1:]
        pieces.append(pa.array(parts, LARGE))
        numbers.append(np.full(len(parts), lineno[i]))
        prev = i + 1
    pieces.append(lines.slice(prev))
    numbers.append(lineno[prev:])
    return pa.concat_arrays(pieces), np.concatenate(numbers)


def _segments_max(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    return np.maximum.reduceat(values, starts) if len(starts) else np.zeros(0, values.dtype)


def parse_chunk(buf: bytes, first_line: int, ctx: FileContext, fset: FormatSet,
                open_record: bool, encoded: bool = False) -> ChunkResult:
    """Parse whole lines of UTF-8 text; ``open_record`` tells whether a record of the same
    file is still open before this chunk (its continuation lines come back as ``head``).

    Glued lines (two records on one physical line) are rare, and looking for them costs a
    scan of every byte. With the built-in CANN header the chunk is parsed first as if there
    were none; only when a record's text shows a second header (``_glue_possible``) is it
    parsed again with glued lines split.

    The records are in EVENT_SCHEMA, or with ``encoded`` in STORED_SCHEMA (for the Parquet
    writer: the text columns with few values stay dictionary-encoded).
    """
    if cannheader.applies_to(fset.primary):
        result = _parse_lines(buf, first_line, ctx, fset, open_record, split_glued=False,
                              encoded=encoded)
        if result is not None:
            return result
    result = _parse_lines(buf, first_line, ctx, fset, open_record, split_glued=True,
                          encoded=encoded)
    assert result is not None
    return result


def _glue_possible(records: pa.Table, head: Head | None, lines: pa.Array,
                   spans: Spans) -> bool:
    """Whether any line of a chunk parsed without splitting glued lines may hold one.

    A second header inside a line lies in its record's message, except where the line's
    own header or prefix could hold it: the proc field of a CANN header (``[^)]*``), and the
    headers of the other formats and prefixes, whose lines are checked whole. (The other
    parts of the CANN header and of its bodies cannot hold a ``[TAG] Module(`` run.) A false
    alarm only costs the second parse.
    """
    messages = records.column("message")
    if pc.any(pc.match_substring_regex(messages, _GLUE_IN_TEXT)).as_py():
        return True
    if head is not None and _GLUE_IN_TEXT_PY.search(head.text):
        return True
    for proc in records.column("proc").chunks:
        if pa.types.is_dictionary(proc.type):  # a value not in any record only costs time
            proc = proc.dictionary
        if pc.any(pc.match_substring(proc, "[")).as_py():
            return True
    other = spans.other_lines
    return len(other) > 0 and bool(pc.any(pc.match_substring_regex(
        lines.take(pa.array(other)), _GLUE_RE2)).as_py())


def _parse_lines(buf: bytes, first_line: int, ctx: FileContext, fset: FormatSet,
                 open_record: bool, split_glued: bool, encoded: bool = False
                 ) -> ChunkResult | None:
    """``parse_chunk``'s work; None when glued lines were not split and may be there."""
    lines = split_lines(buf)
    n_physical = len(lines)
    lineno = first_line + np.arange(n_physical, dtype=np.int64)
    long_line = _long_lines(lines)
    truncated_lines = int(long_line.sum())
    if split_glued:
        lines, lineno = _split_glued(lines, lineno, _glue_suspects(buf))
    n = len(lines)
    if n != n_physical:
        long_line = long_line[lineno - first_line]
    blank = (byte_lengths(lines) == 0) | pc.fill_null(pc.utf8_is_space(lines), False).to_numpy(
        zero_copy_only=False)
    spans = match_lines(lines, blank, fset)
    fmt = spans.fmt
    is_text_kind = ctx.kind in _TEXT_KINDS
    start = fmt >= 0
    if is_text_kind:
        # Unmatched text lines start records unless indented (judged after any framework
        # prefix such as "[rank0]:   "): indented lines continue a traceback or a block.
        start |= (fmt < 0) & ~blank & ~_indented(lines, spans.msg_start)
    # Glued parts after the first always start a record of their own.
    start[1:] |= (lineno[1:] == lineno[:-1]) & (fmt[1:] >= 0)
    nonblank = ~blank
    first_start = int(np.argmax(start)) if start.any() else n
    head = None
    head_end = 0  # lines [0, head_end) belong to the previous record (or an orphan record)
    head_nonblank = np.flatnonzero(nonblank[:first_start])
    if len(head_nonblank):
        head_end = int(head_nonblank[-1]) + 1
    if head_end and not open_record:
        # No record to continue: the orphan lines become an unparsed record.
        first_start = int(head_nonblank[0])
        start[first_start] = True
        head_end = 0
    elif head_end:
        lead = int(head_nonblank[0])
        text = "\n".join(_line_messages(lines, spans.msg_start, blank, lead, head_end)
                         .to_pylist())
        head = Head(text, int(lineno[lead]), int(lineno[head_end - 1] - lineno[lead] + 1), lead,
                    bool(long_line[:head_end].any()))
    starts = np.flatnonzero(start)
    # Last non-blank line of each record; blank lines after it are outside every record.
    position = np.where(nonblank, np.arange(n), -1)
    last = _segments_max(position, starts) if len(starts) else np.zeros(0, np.int64)
    last = np.maximum(last, starts)
    record_lines = (lineno[last] - lineno[starts] + 1).astype(np.int32)
    shared = int((lineno[starts[1:]] == lineno[last[:-1]]).sum()) if len(starts) > 1 else 0
    if head is not None and len(starts) and lineno[head_end - 1] == lineno[starts[0]]:
        shared += 1  # the head's last line also holds the first record (glued)
    blank_total = int(blank.sum())
    head_blank = int(blank[head.lead_blank:head_end].sum()) if head else 0
    lead_blank = int(blank[head_end:first_start].sum())  # before the first record
    inner_blank = int(sum_blank_inside(blank, starts, last))
    trailing_blank = int(blank[last[-1] + 1:].sum()) if len(starts) else 0
    glued = n != n_physical
    messages = _record_messages(buf, lines, spans.msg_start, blank, starts, last, glued)
    records = _assemble(lines, spans, messages, ctx, fset, starts, last, lineno, record_lines,
                        long_line, encoded)
    if not split_glued and _glue_possible(records, head, lines, spans):
        return None
    unparsed = int(record_lines[spans.fmt[starts] < 0].sum())  # "unparsed" and "text" records
    ts_invalid = records.column("ts_invalid").to_numpy(zero_copy_only=False)
    epoch = records.column("clock_epoch").to_numpy(zero_copy_only=False)
    return ChunkResult(
        records=records, head=head, lines=n_physical,
        blank_lines=blank_total - head_blank - inner_blank,
        trailing_blank=trailing_blank if len(starts) else lead_blank,
        unparsed_lines=unparsed, shared_lines=shared, truncated_lines=truncated_lines,
        invalid_timestamps=int(ts_invalid.sum()), epoch_records=int(epoch.sum()),
    )


def _long_lines(lines: pa.Array) -> np.ndarray:
    """Lines of at least ``TRUNCATION_CHARS`` characters (counted only where the byte length
    allows it: a character is at least one byte)."""
    long_line = byte_lengths(lines) >= TRUNCATION_CHARS
    rows = np.flatnonzero(long_line)
    if len(rows):
        chars = pc.utf8_length(lines.take(pa.array(rows))).to_numpy(zero_copy_only=False)
        long_line[rows] = chars >= TRUNCATION_CHARS
    return long_line


def _indented(lines: pa.Array, msg_start: np.ndarray) -> np.ndarray:
    """True where the message part of a line starts with a space or a tab."""
    offsets, data = line_buffers(lines)
    first = offsets[:-1] + msg_start
    has_text = first < offsets[1:]
    head = data[np.where(has_text, first, 0)] if len(data) else np.zeros(len(first), np.uint8)
    return has_text & ((head == 32) | (head == 9))


def sum_blank_inside(blank: np.ndarray, starts: np.ndarray, last: np.ndarray) -> int:
    """Blank lines that lie between a record's first and last line."""
    if len(starts) == 0:
        return 0
    cum = np.concatenate([[0], np.cumsum(blank)])
    return int((cum[last + 1] - cum[starts]).sum())


def _line_messages(lines: pa.Array, msg_start: np.ndarray, blank: np.ndarray, lo: int,
                   hi: int) -> pa.Array:
    """The message part of lines ``lo..hi-1``; whitespace-only lines read as empty lines."""
    part = slice_from(lines.slice(lo, hi - lo), msg_start[lo:hi])
    if blank[lo:hi].any():
        part = pc.if_else(pa.array(blank[lo:hi]), pa.scalar("", LARGE), part)
    return part


def _record_messages(buf: bytes, lines: pa.Array, msg_start: np.ndarray, blank: np.ndarray,
                     starts: np.ndarray, last: np.ndarray, glued: bool) -> pa.Array:
    """Record messages: the first line's message joined with its continuation lines by
    newlines.

    That is a byte range of the chunk as written (from the first line's message to the end
    of the last line), so all records are cut out in one pass. Where the text as written
    differs from the joined messages (a split glued line, a continuation line that lost a
    prefix such as ``[rank0]:``, a whitespace-only line inside a record) the messages are
    joined line by line instead.
    """
    offsets, _ = line_buffers(lines)
    lengths = np.diff(offsets)
    multi = last > starts
    if glued or (multi.any() and _rewritten_inside(msg_start, blank, lengths, starts, last)):
        return _joined_messages(_line_messages(lines, msg_start, blank, 0, len(lines)),
                                starts, last)
    line_start = offsets[:-1] - offsets[0] + np.arange(len(lines))  # where lines begin in buf
    begin = line_start[starts] + np.minimum(msg_start[starts], lengths[starts])
    end = line_start[last] + lengths[last]
    return _byte_ranges(buf, begin, end)


def _rewritten_inside(msg_start: np.ndarray, blank: np.ndarray, lengths: np.ndarray,
                      starts: np.ndarray, last: np.ndarray) -> bool:
    """Whether a continuation line's message is not the line as written."""
    changed = (msg_start > 0) | (blank & (lengths > 0))
    if not changed.any():
        return False
    cum = np.concatenate([[0], np.cumsum(changed)])
    return bool(((cum[last + 1] - cum[starts + 1]) > 0).any())


def _byte_ranges(buf: bytes, begin: np.ndarray, end: np.ndarray) -> pa.LargeStringArray:
    """``buf[begin[i]:end[i]]`` for each range, as one string array."""
    return pc.cast(substrings(np.frombuffer(buf, dtype=np.uint8), begin, end - begin), LARGE)


def _joined_messages(message: pa.Array, starts: np.ndarray, last: np.ndarray) -> pa.Array:
    """Record messages from per-line messages: each record's lines joined with newlines."""
    n = len(message)
    multi = last > starts
    if len(starts) == n:
        return message
    first = message.take(pa.array(starts))
    if not multi.any():
        return first
    for_rows = np.flatnonzero(multi)
    # members of multi-line records: from start to last, inclusive (interior blanks kept)
    delta = np.zeros(n + 1, np.int64)
    np.add.at(delta, starts[for_rows], 1)
    np.add.at(delta, last[for_rows] + 1, -1)
    member = np.cumsum(delta[:-1]) > 0
    idx = np.flatnonzero(member)
    pieces = message.take(pa.array(idx))
    counts = (last[for_rows] - starts[for_rows] + 1).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    joined = pc.binary_join(pa.LargeListArray.from_arrays(pa.array(offsets), pieces),
                            pa.scalar("\n", LARGE))
    mask = np.zeros(len(starts), bool)
    mask[for_rows] = True
    return pc.replace_with_mask(first, pa.array(mask), joined)


def _fixed_values(fset: FormatSet, fmt_idx: np.ndarray, level: pa.Array,
                  module: pa.Array) -> tuple[pa.Array, pa.Array]:
    """Apply the fixed module/level and level maps that formats declare."""
    for index, fmt in enumerate(fset.formats):
        if not (fmt.module or fmt.level or fmt.levels):
            continue
        rows = fmt_idx == index
        if not rows.any():
            continue
        mask = pa.array(rows)
        level, module = plain_text(level), plain_text(module)
        if fmt.levels:
            keys = pa.array(list(fmt.levels), pa.string())
            mapped = pc.take(pa.array(list(fmt.levels.values()), pa.string()),
                             pc.index_in(level, value_set=keys))
            level = pc.if_else(pc.and_(mask, pc.is_valid(mapped)), mapped, level)
        if fmt.level:
            level = pc.if_else(pc.and_(mask, pc.is_null(level)), fmt.level, level)
        if fmt.module:
            module = pc.if_else(pc.and_(mask, pc.is_null(module)), fmt.module, module)
    return level, module


def _assemble(lines: pa.Array, spans: Spans, messages: pa.Array, ctx: FileContext,
              fset: FormatSet, starts: np.ndarray, last: np.ndarray, lineno: np.ndarray,
              record_lines: np.ndarray, long_line: np.ndarray, encoded: bool) -> pa.Table:
    count = len(starts)
    offsets, data = line_buffers(lines)

    def span(name: str) -> tuple[np.ndarray, np.ndarray]:
        return spans.start[name][starts], spans.length[name][starts]

    record_rows = None  # mask of the record-start lines, when they are not all lines

    def known(name: str, read: Callable[[np.ndarray], pa.Array]) -> pa.Array:
        """Values a fast path read already, and ``read(rows)`` for the other records that
        have the field."""
        nonlocal record_rows
        found = spans.values.get(name)
        if found is None:
            return read(starts)
        if count < len(found):
            if record_rows is None:
                mask = np.zeros(len(found), bool)
                mask[starts] = True
                record_rows = pa.array(mask)
            found = found.filter(record_rows)
        if name in spans.spans_added:  # the fast path may have left some out
            todo = (found.is_null().to_numpy(zero_copy_only=False)
                    & (spans.start[name][starts] >= 0))
            if todo.any():
                return pc.replace_with_mask(plain_text(found), pa.array(todo), read(starts[todo]))
        return found if encoded and name in ENCODED_COLUMNS else plain_text(found)

    def text(name: str) -> pa.Array:
        return known(name, lambda rows: fv.strings(data, offsets, rows, spans.start[name][rows],
                                                   spans.length[name][rows]))

    def number(name: str, hint: int | None) -> pa.Array:
        values = known(name, lambda rows: fv.integers(
            data, offsets, rows, spans.start[name][rows], spans.length[name][rows],
            _INT_FIELDS[name]))
        if hint is not None:
            values = pc.coalesce(values, pa.scalar(hint, _INT_FIELDS[name]))
        return values

    fmt_idx = spans.fmt[starts]
    no_format = "text" if ctx.kind in _TEXT_KINDS else "unparsed"
    names = pa.array([f.name for f in fset.formats] + [no_format], pa.string())
    fmt_names = pa.DictionaryArray.from_arrays(
        pa.array(np.where(fmt_idx >= 0, fmt_idx, len(names) - 1).astype(np.int32)), names)
    level, module = _fixed_values(fset, fmt_idx, text("level"), text("module"))
    ts, ts_invalid = fv.timestamps(data, offsets, starts, *span("ts"))
    truncated = np.zeros(count, bool)
    if long_line.any() and count:
        truncated = _segments_max(long_line.astype(np.int8), starts).astype(bool)
    columns = {
        "ts": ts,
        "level": level,
        "module": module,
        "pid": number("pid", None),
        "proc": text("proc"),
        "tid": number("tid", None),
        "src_file": text("src_file"),
        "src_line": number("src_line", None),
        "message": messages,
        "kind": constant_column(ctx.kind, count, encoded=True),
        "path": constant_column(ctx.path, count, encoded=True),
        "line": pa.array(lineno[starts], pa.int64()),
        "line_count": pa.array(record_lines, pa.int32()),
        "host": constant_column(ctx.host, count, encoded=True),
        "rank": number("rank", ctx.rank),
        "device": number("device", ctx.device),
        "codes": _with_prefix_codes(extract_codes(messages, level), text("code")),
        "fmt": fmt_names,
        "truncated": pa.array(truncated, pa.bool_()),
        "ts_invalid": pa.array(ts_invalid, pa.bool_()),
        "clock_epoch": pa.array(epoch_mask(ts), pa.bool_()),
    }
    for name in ENCODED_COLUMNS:
        columns[name] = encoded_text(columns[name]) if encoded else plain_text(columns[name])
    for name in _NUMPY_BACKED:
        columns[name] = in_arrow_memory(columns[name])
    return pa.Table.from_pydict(columns, schema=table_schema(encoded))


# Columns that may be built on numpy arrays without a copy (numbers, flags, dictionary
# indices, list offsets): see ``in_arrow_memory``.
_NUMPY_BACKED = ("ts", "pid", "tid", "src_line", "line", "line_count", "rank", "device",
                 "codes", "truncated", "ts_invalid", "clock_epoch", *ENCODED_COLUMNS)


def in_arrow_memory(column: pa.Array) -> pa.Array:
    """``column`` with its buffers copied into Arrow's memory pool.

    Arrow wraps numpy arrays without copying them, so a record column built from one keeps
    a block of the worker thread's C heap alive until the main thread has written it. Those
    long-lived blocks among the worker's short-lived temporaries fragment the heap, and a
    process that reads many gigabytes grows by tens of megabytes. Copied, the records live
    in Arrow's pool like the rest of the table. (The copy is a few bytes per record.)"""
    return pa.concat_arrays([column])


def constant_column(value: str | None, count: int, encoded: bool = False) -> pa.Array:
    """A text column holding one value (built in C++, not from Python objects); with
    ``encoded``, dictionary-encoded, so the value is stored once."""
    if not encoded:
        return pa.repeat(pa.scalar(value, pa.string()), count)
    if value is None:
        return pa.nulls(count, ENCODED_TEXT)
    return pa.DictionaryArray.from_arrays(pa.repeat(pa.scalar(0, pa.int32()), count),
                                          pa.repeat(pa.scalar(value, pa.string()), 1))


def _with_prefix_codes(codes: pa.Array, prefix: pa.Array) -> pa.Array:
    """Put a code the format took off the message (``EI0002: [PID: n] ...``) first."""
    rows = np.flatnonzero(prefix.is_valid().to_numpy(zero_copy_only=False))
    if len(rows) == 0:
        return codes
    lists = codes.to_pylist()
    codes_of = prefix.take(pa.array(rows)).to_pylist()
    for row, code in zip(rows, codes_of, strict=True):  # error records only
        lists[row] = [code] + [c for c in lists[row] if c != code]
    return pa.array(lists, pa.list_(pa.string()))


def parse_samples(lines: list[str], fset: FormatSet) -> list[dict[str, object]] | None:
    """``parse_sample`` of many lines in one chunk (one parse instead of one per line);
    None when the lines do not come out as one record each (then parse them one by one)."""
    ctx = FileContext(path="<sample>", kind=SourceKind.PLOG.value)
    text = "\n".join(lines).encode("utf-8")
    if any("\n" in line or "\r" in line or not line.strip() for line in lines):
        return None
    records = parse_chunk(text, 1, ctx, fset, open_record=False).records
    if records.column("line").to_pylist() != list(range(1, len(lines) + 1)):
        return None
    rows = records.to_pylist()
    for row in rows:
        row["line"] = 1
        if row.get("ts") is not None:
            row["ts"] = str(row["ts"])
    return rows


def parse_sample(line: str, fset: FormatSet) -> dict[str, object]:
    """Parse one sample line as a plog line; the first record's fields as plain values."""
    ctx = FileContext(path="<sample>", kind=SourceKind.PLOG.value)
    result = parse_chunk(line.encode("utf-8"), 1, ctx, fset, open_record=False)
    if result.records.num_rows == 0:
        return {}
    row = result.records.slice(0, 1).to_pylist()[0]
    if row.get("ts") is not None:
        row["ts"] = str(row["ts"])
    return row
