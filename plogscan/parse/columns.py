"""Assemble the record table of a chunk: one column per event-schema field, read from the
spans the line matcher found, with per-file hints as fallbacks.

Every column is built by a vectorized kernel; fields a fast path already read (the CANN
header) are taken as they are, the others are cut from the lines' bytes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.parse import fieldvalues as fv
from plogscan.parse.arrowtext import line_buffers
from plogscan.parse.codescan import extract_codes
from plogscan.parse.lineformats import FormatSet
from plogscan.parse.linematch import Spans
from plogscan.parse.messages import segments_max
from plogscan.parse.results import TEXT_KINDS, FileContext
from plogscan.parse.textrecords import canonical_levels, infer_levels, unescaped
from plogscan.parse.timestamps import epoch_mask
from plogscan.schema import ENCODED_COLUMNS, ENCODED_TEXT, encoded_text, plain_text, table_schema

_INT_FIELDS = {"pid": pa.int64(), "tid": pa.int64(), "src_line": pa.int32(),
               "rank": pa.int32(), "device": pa.int32()}


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


def assemble(lines: pa.Array, spans: Spans, messages: pa.Array, ctx: FileContext,
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
        if name in _UNSET_WHEN_NEGATIVE:
            values = _unset_negative(values)
        if hint is not None:
            values = pc.coalesce(values, pa.scalar(hint, _INT_FIELDS[name]))
        return values

    fmt_idx = spans.fmt[starts]
    no_format = "text" if ctx.kind in TEXT_KINDS else "unparsed"
    names = pa.array([f.name for f in fset.formats] + [no_format], pa.string())
    fmt_names = pa.DictionaryArray.from_arrays(
        pa.array(np.where(fmt_idx >= 0, fmt_idx, len(names) - 1).astype(np.int32)), names)
    level, module = _fixed_values(fset, fmt_idx, text("level"), text("module"))
    if ctx.kind in TEXT_KINDS:  # lines of no known shape read as a reader reads them
        level = canonical_levels(plain_text(level))
        messages = unescaped(messages, fmt_idx < 0)
        level = infer_levels(messages, level, fmt_idx < 0)
    ts, ts_invalid = fv.timestamps(data, offsets, starts, *span("ts"))
    truncated = np.zeros(count, bool)
    if long_line.any() and count:
        truncated = segments_max(long_line.astype(np.int8), starts).astype(bool)
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
        "ts_aligned": ts,  # until the cross-rank stage knows the host clocks' offsets
    }
    for name in ENCODED_COLUMNS:
        columns[name] = encoded_text(columns[name]) if encoded else plain_text(columns[name])
    for name in _NUMPY_BACKED:
        columns[name] = in_arrow_memory(columns[name])
    return pa.Table.from_pydict(columns, schema=table_schema(encoded))


# Columns that may be built on numpy arrays without a copy (numbers, flags, dictionary
# indices, list offsets): see ``in_arrow_memory``.
# torch_npu writes ``RankID:-1`` (``Device:-1``) for a process that has no rank (device) yet:
# not a rank, so the field is unset (the path's rank fills it where the path names one).
_UNSET_WHEN_NEGATIVE = ("rank", "device")


def _unset_negative(values: pa.Array) -> pa.Array:
    negative = pc.less(values, 0)
    if not pc.any(negative).as_py():
        return values
    return pc.if_else(negative, pa.scalar(None, values.type), values)


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

