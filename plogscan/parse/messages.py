"""Record messages: a record's first line's message joined with its continuation lines.

The common case is one cut per record out of the chunk's bytes (``record_messages``); where
the text as written differs from the joined line messages, they are joined line by line.
Also the per-line facts the record boundaries need: over-long lines (``long_lines``),
indented lines (``indented``) and blank lines inside records (``sum_blank_inside``).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.parse.arrowtext import LARGE, byte_lengths, line_buffers, slice_from, substrings

TRUNCATION_CHARS = 1022  # the CANN log library cuts records here without a marker


def segments_max(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    return np.maximum.reduceat(values, starts) if len(starts) else np.zeros(0, values.dtype)


def long_lines(lines: pa.Array) -> np.ndarray:
    """Lines of at least ``TRUNCATION_CHARS`` characters (counted only where the byte length
    allows it: a character is at least one byte)."""
    long_line = byte_lengths(lines) >= TRUNCATION_CHARS
    rows = np.flatnonzero(long_line)
    if len(rows):
        chars = pc.utf8_length(lines.take(pa.array(rows))).to_numpy(zero_copy_only=False)
        long_line[rows] = chars >= TRUNCATION_CHARS
    return long_line


def indented(lines: pa.Array, msg_start: np.ndarray) -> np.ndarray:
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


def line_messages(lines: pa.Array, msg_start: np.ndarray, blank: np.ndarray, lo: int,
                   hi: int) -> pa.Array:
    """The message part of lines ``lo..hi-1``; whitespace-only lines read as empty lines."""
    part = slice_from(lines.slice(lo, hi - lo), msg_start[lo:hi])
    if blank[lo:hi].any():
        part = pc.if_else(pa.array(blank[lo:hi]), pa.scalar("", LARGE), part)
    return part


def record_messages(buf: bytes, lines: pa.Array, msg_start: np.ndarray, blank: np.ndarray,
                    starts: np.ndarray, last: np.ndarray, glued: bool,
                    wrapped: np.ndarray | None = None) -> pa.Array:
    """Record messages: the first line's message joined with its continuation lines by
    newlines (a line a terminal re-wrapped, ``wrapped``, without one).

    That is a byte range of the chunk as written (from the first line's message to the end
    of the last line), so all records are cut out in one pass. Where the text as written
    differs from the joined messages (a split glued line, a continuation line that lost a
    prefix such as ``[rank0]:``, a whitespace-only line inside a record, a re-wrapped line)
    the messages are joined line by line instead.
    """
    if wrapped is not None and wrapped.any():
        per_line = line_messages(lines, msg_start, blank, 0, len(lines))
        return joined_messages(*unwrap(per_line, wrapped, starts, last))
    offsets, _ = line_buffers(lines)
    lengths = np.diff(offsets)
    multi = last > starts
    if glued or (multi.any() and _rewritten_inside(msg_start, blank, lengths, starts, last)):
        return joined_messages(line_messages(lines, msg_start, blank, 0, len(lines)),
                                starts, last)
    line_start = offsets[:-1] - offsets[0] + np.arange(len(lines))  # where lines begin in buf
    begin = line_start[starts] + np.minimum(msg_start[starts], lengths[starts])
    end = line_start[last] + lengths[last]
    return byte_ranges(buf, begin, end)


def _rewritten_inside(msg_start: np.ndarray, blank: np.ndarray, lengths: np.ndarray,
                      starts: np.ndarray, last: np.ndarray) -> bool:
    """Whether a continuation line's message is not the line as written."""
    changed = (msg_start > 0) | (blank & (lengths > 0))
    if not changed.any():
        return False
    cum = np.concatenate([[0], np.cumsum(changed)])
    return bool(((cum[last + 1] - cum[starts + 1]) > 0).any())


def byte_ranges(buf: bytes, begin: np.ndarray, end: np.ndarray) -> pa.LargeStringArray:
    """``buf[begin[i]:end[i]]`` for each range, as one string array."""
    return pc.cast(substrings(np.frombuffer(buf, dtype=np.uint8), begin, end - begin), LARGE)


def joined_messages(message: pa.Array, starts: np.ndarray, last: np.ndarray) -> pa.Array:
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


def unwrap(message: pa.Array, wrapped: np.ndarray, starts: np.ndarray, last: np.ndarray
           ) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """Per-line messages with each re-wrapped fragment joined to the line before it (no
    newline): the joined lines, and ``starts``/``last`` as indices into them. The first line
    is never a fragment."""
    logical = np.cumsum(~wrapped) - 1
    heads = np.flatnonzero(~wrapped)
    offsets = np.concatenate([heads, [len(message)]]).astype(np.int64)
    lists = pa.LargeListArray.from_arrays(pa.array(offsets), message)
    joined = pc.binary_join(lists, pa.scalar("", LARGE))
    return joined, logical[starts], logical[last]
