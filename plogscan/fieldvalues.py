"""Turn field byte spans into typed Arrow columns, for record-start lines only.

Strings are gathered straight into ``pa.string()`` arrays; integers and CANN timestamps are
read from the bytes with numpy digit arithmetic, so no intermediate string column is built.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from plogscan.arrowtext import windows
from plogscan.timestamps import parse_cann_bytes, parse_generic

CANN_TS_BYTES = 27


def _absolute(line_offsets: np.ndarray, rows: np.ndarray, start: np.ndarray) -> np.ndarray:
    return line_offsets[rows] + np.maximum(start, 0)


def strings(data: np.ndarray, line_offsets: np.ndarray, rows: np.ndarray, start: np.ndarray,
            length: np.ndarray) -> pa.StringArray:
    """The substring of each row's line (null where ``start`` is -1)."""
    valid = start >= 0
    if not valid.any():
        return pa.nulls(len(rows), pa.string())
    lengths = np.where(valid, length, 0)
    offsets = np.zeros(len(rows) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    absolute = _absolute(line_offsets, rows, start)
    index = np.repeat(absolute - offsets[:-1], lengths) + np.arange(offsets[-1], dtype=np.int64)
    values = data[index]
    nulls = len(rows) - int(np.count_nonzero(valid))
    validity = pa.py_buffer(np.packbits(valid, bitorder="little")) if nulls else None
    return pa.StringArray.from_buffers(len(rows), pa.py_buffer(offsets.astype(np.int32)),
                                       pa.py_buffer(values), validity, nulls)


def integers(data: np.ndarray, line_offsets: np.ndarray, rows: np.ndarray, start: np.ndarray,
             length: np.ndarray, typ: pa.DataType) -> pa.Array:
    """Optionally signed decimal numbers; null where absent or too long for ``typ``."""
    limit = 18 if typ == pa.int64() else 9
    usable = np.where(length <= limit, start, -1)
    if not (usable >= 0).any():
        return pa.nulls(len(rows), typ)
    text = strings(data, line_offsets, rows, usable, length)
    try:
        return pa.compute.cast(text, typ)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
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
        raw = windows(data, base, CANN_TS_BYTES)
        ts, invalid = parse_cann_bytes(raw, fixed)
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
