"""Parse one chunk of log text into event-table records, with vectorized Arrow kernels.

The hot path runs one RE2 pass (``extract_regex_span`` of the primary CANN header) over every
line of the chunk; everything else works on the lines it did not match, or on small subsets.
There is no Python loop per line. A chunk always holds whole lines; a record that continues
into the next chunk is stitched by ``ingest``: the lines at the top of a chunk that continue
the previous record come back as ``ChunkResult.head``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.arrowtext import LARGE, byte_lengths, gather, slice_from, span_columns, split_lines
from plogscan.codes_extract import extract_codes
from plogscan.formats import FIELDS, FormatSet, LineFormat, field_of
from plogscan.schema import EVENT_SCHEMA, SourceKind
from plogscan.timestamps import epoch_mask, parse_timestamps

TRUNCATION_CHARS = 1022  # the CANN log library cuts records here without a marker
_TEXT_KINDS = {SourceKind.STDOUT.value, SourceKind.SYSLOG.value}
_INT_FIELDS = {"pid": pa.int64(), "tid": pa.int64(), "src_line": pa.int32(),
               "rank": pa.int32(), "device": pa.int32()}
# Two records glued on one physical line (a lost newline): split before the second header.
_GLUE_RE2 = r".\[(?:ERROR|WARNING|INFO|DEBUG|EVENT|TRACE)\] ?[A-Z][A-Z0-9_]*\(-?\d+,[^)]*\):"
_GLUE_TAGS = ("[ERROR]", "[WARNING]", "[INFO]", "[DEBUG]", "[EVENT]", "[TRACE]")
_TAG_INITIALS = np.frombuffer(b"EWIDT", dtype=np.uint8)
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


# --------------------------------------------------------------------------- matching


@dataclass
class _Matched:
    """Per-line results of format matching (length n)."""

    fmt: np.ndarray  # int16 index into FormatSet.formats, -1 = none
    fields: dict[str, pa.Array]  # field -> large_string column (null where absent)
    message: pa.LargeStringArray  # the line after the matched prefix / framework prefix


def _extract(lines: pa.Array, fmt: LineFormat) -> tuple[np.ndarray, dict[str, pa.Array], np.ndarray]:
    """Match one format on every row: (matched mask, field strings, prefix byte length)."""
    spans = pc.extract_regex_span(lines, fmt.anchored)
    _, hlen, ok = span_columns(spans, "_all")
    fields: dict[str, pa.Array] = {}
    for group in fmt.groups:
        starts, lengths, valid = span_columns(spans, group)
        name = field_of(group)
        values = gather(lines, starts, lengths, valid)
        fields[name] = values if name not in fields else pc.coalesce(fields[name], values)
    return ok, fields, hlen


def _empty_fields(n: int) -> dict[str, pa.Array]:
    return {name: pa.nulls(n, LARGE) for name in FIELDS}


def _apply_fixed(fmt: LineFormat, fields: dict[str, pa.Array], n: int) -> None:
    """Fixed module/level and level maps declared by a format."""
    if fmt.module:
        fields["module"] = pc.coalesce(fields.get("module", pa.nulls(n, LARGE)),
                                       pa.scalar(fmt.module, LARGE))
    if fmt.levels and "level" in fields:
        keys = pa.array(list(fmt.levels), LARGE)
        vals = pa.array(list(fmt.levels.values()), LARGE)
        idx = pc.index_in(fields["level"], value_set=keys)
        mapped = pc.take(vals, idx)
        fields["level"] = pc.coalesce(mapped, fields["level"])
    if fmt.level:
        fields["level"] = pc.coalesce(fields.get("level", pa.nulls(n, LARGE)),
                                      pa.scalar(fmt.level, LARGE))
    if "level" in fields:
        fields["level"] = pc.replace_substring_regex(fields["level"], "^WARN$", "WARNING")


def _scatter(base: pa.Array, rows: np.ndarray, values: pa.Array) -> pa.Array:
    """``base`` with ``base[rows] = values`` (rows ascending)."""
    if len(rows) == 0:
        return base
    mask = np.zeros(len(base), bool)
    mask[rows] = True
    return pc.replace_with_mask(base, pa.array(mask), values.cast(base.type))


def _match_rest(sub: pa.Array, fset: FormatSet) -> tuple[np.ndarray, dict[str, pa.Array],
                                                         pa.Array]:
    """Framework prefixes, then every format in order, on lines the primary did not match."""
    m = len(sub)
    fields = _empty_fields(m)
    for prefix in fset.prefixes:
        spans = pc.extract_regex_span(sub, f"^(?P<_all>{prefix.pattern})")
        _, plen, ok = span_columns(spans, "_all")
        if not ok.any():
            continue
        for group in prefix.groups:
            starts, lengths, valid = span_columns(spans, group)
            fields[field_of(group)] = pc.coalesce(fields[field_of(group)],
                                                  gather(sub, starts, lengths, valid))
        sub = slice_from(sub, np.where(ok, plen, 0))
    fmt_idx = np.full(m, -1, np.int16)
    msg_start = np.zeros(m, np.int64)
    for i, fmt in enumerate(fset.formats):
        todo = np.flatnonzero(fmt_idx < 0)
        if len(todo) == 0:
            break
        part = sub.take(pa.array(todo)) if len(todo) < m else sub
        ok, got, hlen = _extract(part, fmt)
        if not ok.any():
            continue
        _apply_fixed(fmt, got, len(part))
        hit = todo[ok]
        fmt_idx[hit] = i
        if not fmt.keep_prefix:
            msg_start[hit] = hlen[ok]
        okarr = pa.array(ok)
        for name, values in got.items():
            picked = pc.filter(values, okarr)
            fields[name] = _scatter(pc.coalesce(fields[name]), hit, pc.coalesce(
                picked, pc.take(fields[name], pa.array(hit))))
    return fmt_idx, fields, slice_from(sub, msg_start)


def _refine_bodies(fmt: LineFormat, rows: np.ndarray, fields: dict[str, pa.Array],
                   message: pa.Array) -> pa.Array:
    """Module-specific body prefixes (``[tid:N]``, ``(dieid:0)``...) on rows of ``fmt``."""
    for body in fmt.bodies:
        need = np.zeros(len(message), bool)
        need[rows] = True
        if body.when_src_file_missing:
            need &= fields["src_file"].is_null().to_numpy(zero_copy_only=False)
        if body.when_tid_missing:
            need &= fields["tid"].is_null().to_numpy(zero_copy_only=False)
        idx = np.flatnonzero(need)
        if len(idx) == 0:
            continue
        part = message.take(pa.array(idx))
        spans = pc.extract_regex_span(part, f"^(?P<_all>{body.pattern})")
        _, blen, ok = span_columns(spans, "_all")
        if not ok.any():
            continue
        for group in body.groups:
            starts, lengths, valid = span_columns(spans, group)
            name = field_of(group)
            current = pc.take(fields[name], pa.array(idx))
            fields[name] = _scatter(fields[name], idx,
                                    pc.coalesce(current, gather(part, starts, lengths, valid)))
        message = _scatter(message, idx, slice_from(part, np.where(ok, blen, 0)))
    return message


def match_lines(lines: pa.Array, blank: np.ndarray, fset: FormatSet) -> _Matched:
    """Assign a format, fields and a message to every line."""
    n = len(lines)
    primary = fset.primary
    ok, fields, hlen = _extract(lines, primary)
    fields = {**_empty_fields(n), **fields}
    fmt = np.where(ok, 0, -1).astype(np.int16)
    message = slice_from(lines, np.where(ok, hlen, 0))
    rest = np.flatnonzero(~ok & ~blank)
    if len(rest):
        sub_fmt, sub_fields, sub_msg = _match_rest(lines.take(pa.array(rest)), fset)
        fmt[rest] = sub_fmt
        message = _scatter(message, rest, sub_msg)
        for name, values in sub_fields.items():
            fields[name] = _scatter(fields[name], rest, values)
    if primary.bodies:
        message = _refine_bodies(primary, np.flatnonzero(fmt == 0), fields, message)
    return _Matched(fmt, fields, message)


# --------------------------------------------------------------------------- records


def _glue_suspects(buf: bytes) -> np.ndarray:
    """Indices of lines with a level tag (``[ERROR]``...) after their first byte.

    A numpy scan of the raw bytes: ``[`` positions not at a line start, followed by a tag.
    """
    raw = np.frombuffer(buf, dtype=np.uint8)
    brackets = np.flatnonzero(raw == 91)
    brackets = brackets[(brackets > 0) & (brackets + 1 < len(raw))]
    # Only a "[" not at a line start and followed by a tag's first letter can glue.
    brackets = brackets[(raw[brackets - 1] != 10) & np.isin(raw[brackets + 1], _TAG_INITIALS)]
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
        pieces.append(pa.array(parts, LARGE))
        numbers.append(np.full(len(parts), lineno[i]))
        prev = i + 1
    pieces.append(lines.slice(prev))
    numbers.append(lineno[prev:])
    return pa.concat_arrays(pieces), np.concatenate(numbers)


def _to_int(values: pa.Array, typ: pa.DataType) -> pa.Array:
    """Digits to integers; values too long for the type become null instead of failing."""
    limit = 18 if typ == pa.int64() else 9
    short = pc.less_equal(pc.utf8_length(values), limit)
    return pc.cast(pc.if_else(short, values, pa.scalar(None, values.type)), typ)


def _segments_max(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    return np.maximum.reduceat(values, starts) if len(starts) else np.zeros(0, values.dtype)


def parse_chunk(buf: bytes, first_line: int, ctx: FileContext, fset: FormatSet,
                open_record: bool) -> ChunkResult:
    """Parse whole lines of UTF-8 text; ``open_record`` tells whether a record of the same
    file is still open before this chunk (its continuation lines come back as ``head``)."""
    lines = split_lines(buf)
    n_physical = len(lines)
    lineno = first_line + np.arange(n_physical, dtype=np.int64)
    lengths_chars = pc.utf8_length(lines).to_numpy(zero_copy_only=False)
    long_line = lengths_chars >= TRUNCATION_CHARS
    truncated_lines = int(long_line.sum())
    lines, lineno = _split_glued(lines, lineno, _glue_suspects(buf))
    n = len(lines)
    if n != n_physical:
        long_line = long_line[lineno - first_line]
    blank = (byte_lengths(lines) == 0) | pc.fill_null(pc.utf8_is_space(lines), False).to_numpy(
        zero_copy_only=False)
    matched = match_lines(lines, blank, fset)
    if blank.any():  # whitespace-only lines inside a record read as empty lines
        matched.message = pc.if_else(pa.array(blank), pa.scalar("", LARGE), matched.message)
    fmt = matched.fmt
    is_text_kind = ctx.kind in _TEXT_KINDS
    # Unmatched lines: indentation is judged after any framework prefix ("[rank0]:   ...").
    indented = pc.fill_null(pc.match_substring_regex(matched.message, r"^[ \t]"),
                            False).to_numpy(zero_copy_only=False)
    start = fmt >= 0
    if is_text_kind:
        start |= (fmt < 0) & ~blank & ~indented
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
        text = "\n".join(matched.message.slice(lead, head_end - lead).to_pylist())
        head = Head(text, int(lineno[lead]), int(lineno[head_end - 1] - lineno[lead] + 1), lead,
                    bool(long_line[:head_end].any()))
    starts = np.flatnonzero(start)
    # Last non-blank line of each record; blank lines after it are outside every record.
    position = np.where(nonblank, np.arange(n), -1)
    last = _segments_max(position, starts) if len(starts) else np.zeros(0, np.int64)
    last = np.maximum(last, starts)
    seg_end = np.append(starts[1:], n)
    record_lines = (lineno[last] - lineno[starts] + 1).astype(np.int32)
    shared = int((lineno[starts[1:]] == lineno[last[:-1]]).sum()) if len(starts) > 1 else 0
    blank_total = int(blank.sum())
    head_blank = int(blank[head.lead_blank:head_end].sum()) if head else 0
    lead_blank = int(blank[head_end:first_start].sum()) if len(starts) else blank_total - head_blank
    inner_blank = int(sum_blank_inside(blank, starts, last))
    trailing_blank = int(blank[last[-1] + 1:].sum()) if len(starts) else 0
    records = _assemble(lines, matched, ctx, fset, starts, last, seg_end, lineno, record_lines,
                        long_line, blank)
    fmt_names = records.column("fmt").to_numpy(zero_copy_only=False)
    unparsed = int(record_lines[np.isin(fmt_names, ["unparsed", "text"])].sum())
    ts_invalid = records.column("ts_invalid").to_numpy(zero_copy_only=False)
    epoch = records.column("clock_epoch").to_numpy(zero_copy_only=False)
    return ChunkResult(
        records=records, head=head, lines=n_physical,
        blank_lines=blank_total - head_blank - inner_blank,
        trailing_blank=trailing_blank if len(starts) else lead_blank,
        unparsed_lines=unparsed, shared_lines=shared, truncated_lines=truncated_lines,
        invalid_timestamps=int(ts_invalid.sum()), epoch_records=int(epoch.sum()),
    )


def sum_blank_inside(blank: np.ndarray, starts: np.ndarray, last: np.ndarray) -> int:
    """Blank lines that lie between a record's first and last line."""
    if len(starts) == 0:
        return 0
    cum = np.concatenate([[0], np.cumsum(blank)])
    return int((cum[last + 1] - cum[starts]).sum())


def _messages(lines: pa.Array, matched: _Matched, starts: np.ndarray, last: np.ndarray,
              n: int) -> pa.Array:
    """Record messages: the first line's message joined with its continuation lines."""
    multi = last > starts
    first = matched.message.take(pa.array(starts))
    if not multi.any():
        return first
    member = np.zeros(n, bool)
    for_rows = np.flatnonzero(multi)
    # members of multi-line records: from start to last, inclusive (interior blanks kept)
    delta = np.zeros(n + 1, np.int64)
    np.add.at(delta, starts[for_rows], 1)
    np.add.at(delta, last[for_rows] + 1, -1)
    member = np.cumsum(delta[:-1]) > 0
    idx = np.flatnonzero(member)
    pieces = matched.message.take(pa.array(idx))
    counts = (last[for_rows] - starts[for_rows] + 1).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    joined = pc.binary_join(pa.LargeListArray.from_arrays(pa.array(offsets), pieces), pa.scalar("\n", LARGE))
    return _scatter(first, for_rows, joined)


def _assemble(lines: pa.Array, matched: _Matched, ctx: FileContext, fset: FormatSet,
              starts: np.ndarray, last: np.ndarray, seg_end: np.ndarray, lineno: np.ndarray,
              record_lines: np.ndarray, long_line: np.ndarray, blank: np.ndarray) -> pa.Table:
    n = len(lines)
    count = len(starts)
    take = pa.array(starts)
    fields = {name: pc.take(col, take) for name, col in matched.fields.items()}
    fmt_idx = matched.fmt[starts]
    names = np.array([f.name for f in fset.formats] + ["unparsed"], dtype=object)
    fmt_names = names[np.where(fmt_idx >= 0, fmt_idx, len(names) - 1)]
    if ctx.kind in _TEXT_KINDS:
        fmt_names = np.where(fmt_idx >= 0, fmt_names, "text")
    ts, ts_invalid = parse_timestamps(fields["ts"])
    message = _messages(lines, matched, starts, last, n)
    truncated = np.zeros(count, bool)
    if long_line.any() and count:
        truncated = _segments_max(long_line.astype(np.int8), starts).astype(bool)

    def int_col(name: str, hint: int | None) -> pa.Array:
        values = _to_int(fields[name], _INT_FIELDS[name])
        if hint is not None:
            values = pc.coalesce(values, pa.scalar(hint, _INT_FIELDS[name]))
        return values

    columns = {
        "ts": ts,
        "level": fields["level"].cast(pa.string()),
        "module": fields["module"].cast(pa.string()),
        "pid": int_col("pid", None),
        "proc": fields["proc"].cast(pa.string()),
        "tid": int_col("tid", None),
        "src_file": fields["src_file"].cast(pa.string()),
        "src_line": int_col("src_line", None),
        "message": message,
        "kind": pa.array(np.full(count, ctx.kind, dtype=object), pa.string()),
        "path": pa.array(np.full(count, ctx.path, dtype=object), pa.string()),
        "line": pa.array(lineno[starts], pa.int64()),
        "line_count": pa.array(record_lines, pa.int32()),
        "host": pa.array(np.full(count, ctx.host, dtype=object), pa.string()),
        "rank": int_col("rank", ctx.rank),
        "device": int_col("device", ctx.device),
        "codes": _with_prefix_codes(extract_codes(message, fields["level"]), fields["code"]),
        "fmt": pa.array(fmt_names, pa.string()),
        "truncated": pa.array(truncated, pa.bool_()),
        "ts_invalid": pa.array(ts_invalid, pa.bool_()),
        "clock_epoch": pa.array(epoch_mask(ts), pa.bool_()),
    }
    return pa.Table.from_pydict(columns, schema=EVENT_SCHEMA)


def _with_prefix_codes(codes: pa.Array, prefix: pa.Array) -> pa.Array:
    """Put a code the format took off the message (``EI0002: [PID: n] ...``) first."""
    rows = np.flatnonzero(prefix.is_valid().to_numpy(zero_copy_only=False))
    if len(rows) == 0:
        return codes
    lists = codes.to_pylist()
    for row, code in zip(rows, prefix.take(pa.array(rows)).to_pylist()):  # error records only
        lists[row] = [code] + [c for c in lists[row] if c != code]
    return pa.array(lists, pa.list_(pa.string()))


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
