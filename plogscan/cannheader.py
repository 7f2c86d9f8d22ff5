"""A fast path for the CANN record header that gives exactly the spans of its YAML pattern.

RE2 captures groups slowly unless a pattern is *one-pass* (at every byte the next step is
unambiguous) and has at most four groups; then its OnePass engine runs several times faster.
The CANN header pattern of ``formats/cann.yaml`` is neither: it has nine groups, and its
optional spaces and thread-id shapes are ambiguous. This module matches an equivalent
one-pass pattern with four groups (module, proc, src_line and the thread-id part) and derives
level, pid, ts and src_file from where those groups lie. Where the thread id is missing after
``[file:line]``, the common shapes of the format's tagged-tid bodies (``[Func][tid:N]``,
``(tid:N)``, ``[tid:N]``) are read from a small byte window with numpy, so that those regexes
only run on the few rows left. ``tests/test_cannheader.py`` checks that the spans equal those
of the YAML patterns on generated and real lines.

The fast path is used only while the YAML pattern is the one it was written for
(``YAML_PATTERN``), and the body shortcut only while the bodies are (``TAGGED_TID_BODIES``);
edited patterns go through the generic regex path.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.arrowtext import line_buffers, span_columns, windows

# The primary pattern of formats/cann.yaml, as loaded.
YAML_PATTERN = (
    r"\[(?P<level>[A-Z]+|\d+)\] ?(?P<module>\w+)\((?P<pid>-?\d+),(?P<proc>[^)]*)\): ?"
    r"(?P<ts>\d{4}-\d\d-\d\d[- ]\d\d:\d\d:\d\d\.\d{3}\.\d{3})"
    r" ?(?:\[(?P<src_file>[^\]\s:]+)[: ](?P<src_line>\d+)\]"
    r"(?: ?(?P<tid>\d+) | ?\[(?P<tid_2>\d+)\])?)? ?"
)
# The same header up to the end of its thread-id part: one-pass, four groups. A line matches
# it exactly when it matches YAML_PATTERN, because everything after the timestamp is optional.
# ``src_file`` is not captured (it lies between "[" and ``src_line``); ``tid`` holds the
# thread-id part as written ("123 " or "[123]"), so that one group serves both shapes.
ONE_PASS = (
    r"^\[(?:[A-Z]+|\d+)\] ?(?P<module>\w+)\(-?\d+,(?P<proc>[^)]*)\): ?"
    r"\d{4}-\d\d-\d\d[- ]\d\d:\d\d:\d\d\.\d{3}\.\d{3}"
    r" ?(?:\[[^\]\s:]+[: ](?P<src_line>\d+)\](?: ?(?P<tid>\d+ |\[\d+\]))?)?"
)
TS_BYTES = 27
_SPACE, _OPEN, _CLOSE = 32, 91, 93


@dataclass
class HeaderSpans:
    """Field spans (byte offsets in the line) of the rows that carry a CANN header."""

    rows: np.ndarray  # line indices that matched
    start: dict[str, np.ndarray]  # field -> start, -1 where absent (aligned with rows)
    length: dict[str, np.ndarray]
    msg_start: np.ndarray


def applies_to(pattern: str) -> bool:
    """True when ``pattern`` is the header this fast path reproduces."""
    return pattern == YAML_PATTERN


# The bodies of formats/cann.yaml that ``tagged_thread_ids`` reproduces (a subset of their
# shapes: what it does not recognise is left to the regexes).
TAGGED_TID_BODIES = (
    (r"\[[A-Za-z_]\w*\]\[[Tt]id:(?P<tid>\d+)\] ?| ?\(tid:(?P<tid_2>\d+)\) ?"
     r"|tid:(?P<tid_3>\d+),"),
    r"\[[Tt]id:(?P<tid>\d+)\] ?",
)
_BODY_WINDOW = 48
_WORD = np.zeros(256, bool)
_WORD[list(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")] = True
_WORD_START = _WORD.copy()
_WORD_START[list(b"0123456789")] = False


def bodies_apply(bodies: list[tuple[str, bool, bool]]) -> bool:
    """True when the format's bodies are the ones ``tagged_thread_ids`` was written for:
    (pattern, when_src_file_missing, when_tid_missing) in order."""
    tid_bodies = [b[0] for b in bodies if b[2]]
    return tuple(tid_bodies) == TAGGED_TID_BODIES and all(not b[1] for b in bodies if b[2])


def _byte_at(data: np.ndarray, ends: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """The byte at ``pos`` of each line (absolute offsets), 0 past the line's end."""
    inside = pos < ends
    out = np.zeros(len(pos), np.uint8)
    out[inside] = data[pos[inside]]
    return out


def _window(data: np.ndarray, start: np.ndarray, end: np.ndarray, width: int) -> np.ndarray:
    """``width`` bytes from each ``start``; zero from ``end`` (the line's end) on."""
    matrix = windows(data, start, width)
    matrix[np.arange(width)[None, :] >= (end - start)[:, None]] = 0
    return matrix


def _digits_end(nondigit: np.ndarray, begin: np.ndarray) -> np.ndarray:
    """Per row, the column of the first non-digit at or after ``begin``; the window's width
    when there is none (the digits may go on past the window)."""
    width = nondigit.shape[1]
    stop = nondigit & (np.arange(width)[None, :] >= begin[:, None])
    col = stop.argmax(axis=1)
    return np.where(stop[np.arange(len(nondigit)), col], col, width)


def _non_digits(window: np.ndarray) -> np.ndarray:
    return (window - np.uint8(48)) > 9  # bytes below "0" wrap around to large values


def tagged_thread_ids(window: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                   np.ndarray]:
    """``[Func][tid:N] ?``, `` ?(tid:N) ?`` and ``[tid:N] ?`` at the start of each window row:
    the tagged-tid and bare-tid bodies of formats/cann.yaml. Their first bytes differ and at
    most one can match, so the one found is the one the regexes would take.

    Returns (tid start, tid length, end, found), as window columns. Rows not found are left
    to the regexes (other shapes, or a part that runs past the window).
    """
    n, width = window.shape
    at = np.arange(n)
    nondigit = _non_digits(window)

    def byte(col: np.ndarray) -> np.ndarray:
        return np.where(col < width, window[at, np.minimum(col, width - 1)], 0)

    def is_tid(col: np.ndarray) -> np.ndarray:  # "[Tt]id:"
        return (((byte(col) == 84) | (byte(col) == 116)) & (byte(col + 1) == 105)
                & (byte(col + 2) == 100) & (byte(col + 3) == 58))

    def closed(begin: np.ndarray, closer: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Digits from ``begin`` then ``closer`` then an optional space."""
        end = _digits_end(nondigit, begin)
        ok = (end > begin) & (end < width - 1) & (byte(end) == closer)
        return ok, end, end + 1 + (byte(end + 1) == _SPACE)

    # "[Func][tid:N]": the word run after "[" must end at "]".
    nonword = ~_WORD[window]
    word_end = nonword[:, 2:].argmax(axis=1) + 2
    func = ((window[:, 0] == _OPEN) & _WORD_START[window[:, 1]] & nonword[at, word_end]
            & (byte(word_end) == _CLOSE) & (byte(word_end + 1) == _OPEN)
            & is_tid(word_end + 2))
    func_ok, func_stop, func_end = closed(word_end + 6, _CLOSE)
    func &= func_ok
    # " (tid:N)" or "(tid:N)"
    lead = (window[:, 0] == _SPACE).astype(np.int64)
    paren = (byte(lead) == 40) & (byte(lead + 1) == 116) & is_tid(lead + 1)
    paren_ok, paren_stop, paren_end = closed(lead + 5, 41)
    paren &= paren_ok & ~func
    # "[tid:N]"
    bare = (window[:, 0] == _OPEN) & is_tid(np.ones(n, np.int64)) & ~func
    bare_ok, bare_stop, bare_end = closed(np.full(n, 5), _CLOSE)
    bare &= bare_ok
    found = func | paren | bare
    tid_start = np.select([func, paren, bare], [word_end + 6, lead + 5, np.full(n, 5)], -1)
    tid_stop = np.select([func, paren, bare], [func_stop, paren_stop, bare_stop], -1)
    end = np.select([func, paren, bare], [func_end, paren_end, bare_end], 0)
    found &= end < width  # the optional space after the part was seen
    return tid_start, np.where(found, tid_stop - tid_start, 0), end, found


def _apply_tagged(data: np.ndarray, base: np.ndarray, ends: np.ndarray, rows: np.ndarray,
                  msg: np.ndarray, tid_start: np.ndarray, tid_len: np.ndarray) -> None:
    """Thread ids that the tagged-tid bodies would take off the messages of ``rows``."""
    if len(rows) == 0:
        return
    window = _window(data, base[rows] + msg[rows], ends[rows], _BODY_WINDOW)
    t_start, t_len, t_end, found = tagged_thread_ids(window)
    hit = rows[found]
    tid_start[hit] = msg[hit] + t_start[found]
    tid_len[hit] = t_len[found]
    msg[hit] = msg[hit] + t_end[found]


def match(lines: pa.Array, tagged_bodies: bool = False) -> HeaderSpans:
    """Spans of every line that carries a CANN header (the YAML pattern's, exactly)."""
    spans = pc.extract_regex_span(lines, ONE_PASS)
    valid = spans.is_valid().to_numpy(zero_copy_only=False)
    rows = np.flatnonzero(valid)
    offsets, data = line_buffers(lines)
    base = offsets[rows]
    ends = offsets[rows + 1]
    # Group spans of every line, then of the matched rows (cheaper than filtering the struct).
    m0, m_len = (column[rows] for column in span_columns(spans, "module")[:2])
    p0, p_len = (column[rows] for column in span_columns(spans, "proc")[:2])
    l0, l_len, has_block = (column[rows] for column in span_columns(spans, "src_line"))
    t0, t_len, has_tid = (column[rows] for column in span_columns(spans, "tid"))

    start: dict[str, np.ndarray] = {}
    length: dict[str, np.ndarray] = {}
    gap = (_byte_at(data, ends, base + m0 - 1) == _SPACE).astype(np.int64)
    start["level"], length["level"] = np.ones(len(rows), np.int64), m0 - 1 - gap - 1
    start["module"], length["module"] = m0, m_len
    start["pid"], length["pid"] = m0 + m_len + 1, p0 - 1 - (m0 + m_len + 1)
    start["proc"], length["proc"] = p0, p_len
    ts0 = p0 + p_len + 2
    ts0 = ts0 + (_byte_at(data, ends, base + ts0) == _SPACE)
    start["ts"], length["ts"] = ts0, np.full(len(rows), TS_BYTES, np.int64)
    # " ?" after the timestamp, then "[" of [file:line] or the final " ?" of the pattern.
    ts_end = ts0 + TS_BYTES
    after = ts_end + (_byte_at(data, ends, base + ts_end) == _SPACE)
    start["src_file"] = np.where(has_block, after + 1, -1)
    length["src_file"] = np.where(has_block, l0 - 2 - after, 0)
    start["src_line"] = np.where(has_block, l0, -1)
    length["src_line"] = np.where(has_block, l_len, 0)
    # The thread-id part: "123 " (digits, then the space it needs) or "[123]".
    bracketed = has_tid & (_byte_at(data, ends, base + t0) == _OPEN)
    start["tid"] = np.where(has_tid, t0 + bracketed, -1)
    length["tid"] = np.where(has_tid, t_len - 1 - bracketed, 0)
    part_end = np.where(has_tid, t0 + t_len, np.where(has_block, l0 + l_len + 1, after))
    msg = part_end + (_byte_at(data, ends, base + part_end) == _SPACE)
    if tagged_bodies:
        _apply_tagged(data, base, ends, np.flatnonzero(has_block & ~has_tid), msg,
                      start["tid"], length["tid"])
    return HeaderSpans(rows, start, length, msg)
