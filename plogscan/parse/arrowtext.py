"""Zero-loop text kernels over Arrow string arrays: splitting, per-row substrings, windows.

pyarrow has no per-row substring kernel (``utf8_slice_codeunits`` takes one start for all
rows), and capturing a whole line body through RE2 is several times slower than matching its
prefix. These helpers cut strings by per-row byte offsets instead: as Arrow string views into
the chunk, which one C++ cast turns into plain strings, or, for buffers too large for views,
with a numpy gather.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.parse import compiled

LARGE = pa.large_string()


def line_buffers(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, data) of a string array as numpy views (offsets rebased to the slice)."""
    return _parts(arr)


def _parts(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, data) of a large_string array, offsets rebased to the array's slice."""
    if arr.type != LARGE:
        arr = arr.cast(LARGE)
    n = len(arr)
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int64)[arr.offset:arr.offset + n + 1]
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
    return offsets, data


def split_lines(buf: bytes) -> pa.LargeStringArray:
    """Split UTF-8 text on ``\\n`` into lines (without the newline).

    ``buf`` holds whole lines without the final newline, so ``k`` newlines mean ``k + 1``
    lines (an empty ``buf`` is one empty line). The C module (``parse.compiled``) writes
    Arrow's offsets and text in one pass without the GIL, into buffers of Arrow's pool;
    without it, Arrow's ``split_pattern`` and a flatten do the same in two.
    """
    native = compiled.native
    if native is None:
        return pc.split_pattern(as_one_value(buf, LARGE), "\n").flatten()
    n = native.line_count(buf)
    offsets = pa.allocate_buffer(8 * (n + 1))
    text = pa.allocate_buffer(len(buf) - (n - 1))
    native.split_lines(buf, offsets, text)
    return pa.Array.from_buffers(LARGE, n, [None, offsets, text])


def as_one_value(buf: bytes, typ: pa.DataType) -> pa.Array:
    """The whole buffer as the one value of a ``large_string`` or ``large_binary`` array,
    without copying it (no check that it is valid UTF-8)."""
    offsets = pa.py_buffer(np.array([0, len(buf)], np.int64))
    return pa.Array.from_buffers(typ, 1, [None, offsets, pa.py_buffer(buf)])


def holds(buf: bytes, needle: bytes, anchor: int) -> bool:
    """Whether ``needle`` occurs in ``buf``: the places of its byte at ``anchor`` (pick one
    that is rare in logs) are found by numpy and the rest compared there. ``needle in buf``
    holds the GIL through the whole buffer (6 ms for 8 MiB of logs and ``==> ``); the C
    module, where built, does the same with ``memchr`` and without the GIL."""
    native = compiled.native
    if native is not None:
        return native.holds(buf, needle, anchor)
    arr = np.frombuffer(buf, np.uint8)
    at = np.flatnonzero(arr == needle[anchor])
    at = at[(at >= anchor) & (at - anchor + len(needle) <= len(arr))]
    for k, byte in enumerate(needle):
        if k != anchor and len(at):
            at = at[arr[at - anchor + k] == byte]
    return bool(len(at))


def joined_bytes(buf: bytes, starts: np.ndarray, lengths: np.ndarray) -> bytes:
    """The spans ``buf[starts[i]:starts[i] + lengths[i]]`` one after another, copied in one
    C++ pass (Arrow string views into ``buf`` cast to plain strings)."""
    if len(starts) == 0:
        return b""
    arr = np.frombuffer(buf, np.uint8)
    if views_fit(len(arr)):
        spans = pc.cast(string_views(arr, pa.py_buffer(buf), starts, lengths), LARGE)
    else:
        spans = gathered(arr, starts, lengths)
    offsets, data = _parts(spans)
    return data[offsets[0]:offsets[-1]].tobytes()


def any_match(texts: pa.Array, patterns: Iterable[str]) -> np.ndarray:
    """Boolean mask: the texts that one of the RE2 ``patterns`` matches a piece of."""
    mask = np.zeros(len(texts), bool)
    for pattern in patterns:
        hit = pc.match_substring_regex(texts, pattern)
        mask |= hit.fill_null(False).to_numpy(zero_copy_only=False)
    return mask


def byte_at(data: np.ndarray, ends: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """The byte at ``pos`` of each line (absolute offsets into ``data``; ``ends``: where each
    line ends), 0 past the line's end."""
    inside = pos < ends
    out = np.zeros(len(pos), np.uint8)
    out[inside] = data[pos[inside]]
    return out


# First bytes a whitespace character can have: ASCII controls and the space, and the lead
# bytes of UTF-8 (every non-ASCII whitespace character is multi-byte).
_MAY_OPEN_SPACE = np.zeros(256, bool)
_MAY_OPEN_SPACE[:0x21] = _MAY_OPEN_SPACE[0x80:] = True


def blank_lines(lines: pa.Array) -> np.ndarray:
    """Whether each line is empty or whitespace only (Arrow's ``utf8_is_space``, which holds
    for no empty line). Only lines whose first byte can start a whitespace character are
    tested: a chunk of log lines has few, and testing all of them cost a pass over every
    byte."""
    offsets, data = _parts(lines)
    lengths = np.diff(offsets)
    blank = lengths == 0
    rows = np.flatnonzero(~blank)
    rows = rows[_MAY_OPEN_SPACE[data[offsets[rows]]]]
    if len(rows):
        space = pc.utf8_is_space(lines.take(pa.array(rows)))
        blank[rows[pc.fill_null(space, False).to_numpy(zero_copy_only=False)]] = True
    return blank


def byte_lengths(arr: pa.Array) -> np.ndarray:
    offsets, _ = _parts(arr)
    return np.diff(offsets)


def slice_from(arr: pa.Array, starts: np.ndarray) -> pa.LargeStringArray:
    """Each string from byte ``starts[i]`` to its end (starts clipped to the length)."""
    return tails(arr, np.arange(len(arr)), starts)


def tails(arr: pa.Array, rows: np.ndarray, starts: np.ndarray) -> pa.LargeStringArray:
    """String ``rows[i]`` of ``arr`` from byte ``starts[i]`` to its end (starts clipped to
    the length), without cutting out the other rows first."""
    offsets, data = _parts(arr)
    lengths = offsets[rows + 1] - offsets[rows]
    starts = np.clip(starts.astype(np.int64), 0, lengths)
    valid = arr.is_valid().to_numpy(zero_copy_only=False)[rows] if arr.null_count else None
    return pc.cast(substrings(data, offsets[rows] + starts, lengths - starts, valid), LARGE)


def substrings(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray,
               valid: np.ndarray | None = None) -> pa.Array:
    """``data[starts[i]:starts[i] + lengths[i]]`` for each row (null where ``valid`` is
    false), as string views into ``data`` when it is small enough for them, else gathered
    into a ``large_string`` array. Cast the result to the string type wanted."""
    if views_fit(len(data)):
        return string_views(data, pa.py_buffer(data), starts, lengths, valid)
    return gathered(data, starts, lengths, valid)


def gathered(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray,
             valid: np.ndarray | None = None) -> pa.LargeStringArray:
    """``substrings`` for data of any size: a numpy gather of every byte."""
    if valid is not None:
        lengths = np.where(valid, lengths, 0)
    offsets = np.zeros(len(starts) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    index = np.repeat(starts - offsets[:-1], lengths) + np.arange(offsets[-1], dtype=np.int64)
    validity, nulls = validity_bitmap(valid)
    return pa.LargeStringArray.from_buffers(len(starts), pa.py_buffer(offsets),
                                            pa.py_buffer(data[index]), validity, nulls)


def validity_bitmap(valid: np.ndarray | None) -> tuple[pa.Buffer | None, int]:
    """Arrow's validity bitmap for a boolean mask, and the null count (no bitmap when
    nothing is null)."""
    if valid is None:
        return None, 0
    nulls = len(valid) - int(np.count_nonzero(valid))
    if nulls == 0:
        return None, 0
    return pa.py_buffer(np.packbits(valid, bitorder="little")), nulls


def span_columns(spans: pa.StructArray, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(starts, lengths, valid) of one named group of an ``extract_regex_span`` result."""
    col = spans.field(name)
    valid = spans.is_valid().to_numpy(zero_copy_only=False) & col.is_valid().to_numpy(
        zero_copy_only=False)
    values = pc.fill_null(col.values, 0).to_numpy(zero_copy_only=False).astype(np.int64)
    values = values[2 * col.offset: 2 * (col.offset + len(col))]
    starts = np.where(valid, values[0::2], 0)
    lengths = np.where(valid, values[1::2], 0)
    return starts, lengths, valid


def windows(data: np.ndarray, starts: np.ndarray, width: int) -> np.ndarray:
    """A ``(len(starts), width)`` byte matrix: ``width`` bytes of ``data`` from each start.

    One fixed-size copy per row (the data is viewed as overlapping ``width``-byte records),
    much cheaper than gathering ``width`` separate indices per row. Bytes past the end of
    ``data`` read as 0; bytes past a line's end are the next line's, so callers mask them.
    """
    limit = len(data) - width  # the last start with ``width`` bytes after it
    if len(starts) == 0 or int(starts.max()) <= limit:
        return _records(data, width)[starts].view(np.uint8).reshape(len(starts), width)
    # Rows near the end read from a zero-padded copy of the last ``width`` bytes only.
    tail_from = max(limit, 0)
    tail = np.concatenate([data[tail_from:], np.zeros(width, np.uint8)])
    near_end = starts > limit
    out = np.empty((len(starts), width), np.uint8)
    if not near_end.all():
        out[~near_end] = _records(data, width)[starts[~near_end]].view(np.uint8).reshape(
            -1, width)
    out[near_end] = _records(tail, width)[starts[near_end] - tail_from].view(np.uint8).reshape(
        -1, width)
    return out


def _records(data: np.ndarray, width: int) -> np.ndarray:
    """``data`` as overlapping ``width``-byte records, one starting at every byte."""
    return np.ndarray((max(len(data) - width + 1, 0),), np.dtype((np.void, width)), data, 0,
                      (1,))


_VIEW_INLINE = 12  # Arrow keeps strings of up to 12 bytes inside the view itself
_VIEW_LIMIT = 2**31  # view offsets are 32-bit
_WORD = np.dtype("<u4")  # views are little-endian 32-bit words, as Arrow lays them out
# _HEAD_MASKS[n]: three words that keep the first n of 12 bytes.
_HEAD_MASKS = np.array([[0 if n <= 4 * w else 0xFFFFFFFF >> (8 * max(0, 4 * w + 4 - n))
                         for w in range(3)] for n in range(_VIEW_INLINE + 1)], _WORD)


def views_fit(data_size: int) -> bool:
    """Whether ``string_views`` can point into a buffer of ``data_size`` bytes."""
    return data_size < _VIEW_LIMIT


def string_views(data: np.ndarray, buffer: pa.Buffer, starts: np.ndarray,
                 lengths: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
    """A ``string_view`` array of ``data[starts[i]:starts[i] + lengths[i]]`` (``data`` is
    ``buffer`` as numpy bytes; spans may be anywhere, in any order).

    Only the 16-byte views are written here: long strings point into ``buffer`` and short
    ones are copied into their view, as the Arrow format lays them out. Casting the result to
    ``string`` or ``large_string`` then copies the bytes in one C++ pass, much faster than a
    numpy gather of every byte. ``data`` must be smaller than 2 GiB (``views_fit``).
    """
    count = len(starts)
    lengths = lengths.astype(np.int64, copy=False)
    view = np.empty((count, 4), _WORD)
    view[:, 0] = lengths
    # The first 12 bytes of every string, cut to its length: a short string's whole text, a
    # long one's 4-byte prefix (then overwritten by the buffer index and offset).
    head = windows(data, starts, _VIEW_INLINE).view(_WORD)
    np.bitwise_and(head, _HEAD_MASKS[np.minimum(lengths, _VIEW_INLINE)], out=view[:, 1:])
    spilled = np.flatnonzero(lengths > _VIEW_INLINE)
    if len(spilled):
        view[spilled, 2] = 0
        view[spilled, 3] = starts[spilled]
    validity, nulls = validity_bitmap(valid)
    return pa.Array.from_buffers(pa.string_view(), count,
                                 [validity, pa.py_buffer(view), buffer], nulls)
