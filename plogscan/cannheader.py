"""A fast path for the CANN record header that gives exactly the spans of its YAML pattern.

RE2 captures groups slowly unless a pattern is *one-pass* (at every byte the next step is
unambiguous) and has at most four groups; then its OnePass engine runs several times faster.
The CANN header pattern of ``formats/cann.yaml`` is neither: it has nine groups, and its
optional spaces and thread-id shapes are ambiguous. This module matches an equivalent
one-pass pattern with four groups (module, proc, src_line and the thread-id part) and derives
level, pid, ts and src_file from where those groups lie. The format's bodies (such as the
tagged thread ids of device logs) then run as regexes on the messages, as for any format.
``tests/test_cannheader.py`` checks that the spans equal those of the YAML pattern on
generated and real lines.

The fast path is used only while the YAML pattern is the one it was written for
(``YAML_PATTERN``); an edited pattern goes through the generic regex path.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.arrowtext import line_buffers, span_columns

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
_SPACE, _OPEN = 32, 91


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


def _byte_at(data: np.ndarray, ends: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """The byte at ``pos`` of each line (absolute offsets), 0 past the line's end."""
    inside = pos < ends
    out = np.zeros(len(pos), np.uint8)
    out[inside] = data[pos[inside]]
    return out


def match(lines: pa.Array) -> HeaderSpans:
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
    return HeaderSpans(rows, start, length, msg)
