"""Turn field byte spans into typed Arrow columns, for record-start lines only.

Strings are cut as Arrow string views into the chunk and cast in one C++ pass; integers and
CANN timestamps are read from the bytes where they lie, by the C module (``parse.compiled``)
or else by an Arrow cast of views and numpy digit arithmetic, so no intermediate string
column is built.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from plogscan.parse import compiled
from plogscan.parse.arrowtext import substrings, validity_bitmap
from plogscan.parse.timestamps import parse_cann_at, parse_generic

CANN_TS_BYTES = 27


def _absolute(line_offsets: np.ndarray, rows: np.ndarray, start: np.ndarray) -> np.ndarray:
    return line_offsets[rows] + np.maximum(start, 0)


def strings(data: np.ndarray, line_offsets: np.ndarray, rows: np.ndarray, start: np.ndarray,
            length: np.ndarray) -> pa.StringArray:
    """The substring of each row's line (null where ``start`` is -1)."""
    return pa.compute.cast(_views(data, line_offsets, rows, start, length), pa.string())


def _views(data: np.ndarray, line_offsets: np.ndarray, rows: np.ndarray, start: np.ndarray,
           length: np.ndarray) -> pa.Array:
    """The substring of each row's line (null where ``start`` is -1), uncast."""
    valid = start >= 0
    if not valid.any():
        return pa.nulls(len(rows), pa.string_view())
    return substrings(data, _absolute(line_offsets, rows, start), np.where(valid, length, 0),
                      valid)


def _digit_limit(typ: pa.DataType) -> int:
    """The longest number text read into ``typ`` (a longer one would overflow: null)."""
    return 18 if typ == pa.int64() else 9


def digits(text: pa.Array, typ: pa.DataType) -> pa.Array:
    """Optionally signed decimal numbers, given as text (null stays null); null where the
    text is too long for ``typ``, as ``integers`` reads them."""
    too_long = pa.compute.greater(pa.compute.binary_length(text), _digit_limit(typ))
    if pa.compute.any(too_long).as_py():
        text = pa.compute.if_else(too_long, pa.scalar(None, text.type), text)
    return pa.compute.cast(text, typ)


def integers(data: np.ndarray, line_offsets: np.ndarray, rows: np.ndarray, start: np.ndarray,
             length: np.ndarray, typ: pa.DataType) -> pa.Array:
    """Optionally signed decimal numbers; null where absent or too long for ``typ``."""
    limit = _digit_limit(typ)
    usable = np.where(length <= limit, start, -1)
    if not (usable >= 0).any():
        return pa.nulls(len(rows), typ)
    native = compiled.native
    if native is not None:
        starts = np.where(usable >= 0, _absolute(line_offsets, rows, usable), -1)
        values = np.empty(len(rows), np.int64)
        valid = np.empty(len(rows), np.uint8)
        native.integers(data, starts, np.ascontiguousarray(length, np.int64), limit, values,
                        valid)
        validity, nulls = validity_bitmap(valid.view(bool))
        numbers = pa.Array.from_buffers(pa.int64(), len(rows),
                                        [validity, pa.py_buffer(values)], nulls)
        return numbers if typ == pa.int64() else numbers.cast(typ)
    text = pa.compute.cast(_views(data, line_offsets, rows, usable, length), pa.string())
    hex_like = pa.compute.any(pa.compute.match_substring(text, "x", ignore_case=True)).as_py()
    if not hex_like:  # Arrow's cast also reads 0x1f as 31: decimal only, as the C module
        try:
            return pa.compute.cast(text, typ)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
    # A span that is not a plain number (only a custom format could capture one).
    numeric = pa.compute.match_substring_regex(text, r"^-?\d+$")
    return pa.compute.cast(pa.compute.if_else(numeric, text, None), typ)


def timestamps(data: np.ndarray, line_offsets: np.ndarray, rows: np.ndarray, start: np.ndarray,
               length: np.ndarray) -> tuple[pa.Array, np.ndarray]:
    """Timestamps and the mask of values that are not real dates."""
    present = start >= 0
    fixed = present & (length == CANN_TS_BYTES)
    ts = pa.nulls(len(rows), pa.timestamp("us"))
    invalid = np.zeros(len(rows), bool)
    if fixed.any():
        base = np.where(fixed, _absolute(line_offsets, rows, start), 0)
        ts, invalid = parse_cann_at(data, base, fixed)
    other = present & ~fixed
    if other.any():
        idx = np.flatnonzero(other)
        text = strings(data, line_offsets, rows[idx], start[idx], length[idx])
        extra, bad = parse_generic(text)
        mask = np.zeros(len(rows), bool)
        mask[idx] = True
        ts = pa.compute.replace_with_mask(ts, pa.array(mask), extra)
        invalid[idx] = bad
    return ts, invalid
