"""A fast path for the CANN record header that gives exactly the spans of its YAML pattern.

RE2 captures groups slowly unless a pattern is *one-pass* (at every byte the next step is
unambiguous) and has at most four groups; then its OnePass engine runs several times faster.
The CANN header pattern of ``formats/cann.yaml`` is neither: it has nine groups, and its
optional spaces and thread-id shapes are ambiguous. This module matches an equivalent
one-pass pattern with four groups (the prefix before the timestamp, src_file, src_line and
the thread-id part) and derives the other spans from where those groups lie. RE2 returns the
groups as text, so most values need no second cut: level, module, pid and proc are read once
per distinct prefix. The thread-id part also takes the two common shapes of the format's
tagged-tid body (``[Func][tid:N]`` and ``(tid:N)`` after ``[file:line]``); the body regexes
still run where the thread id is missing after that. ``tests/parse/test_cannheader.py`` checks that
spans and values equal those of the YAML header and bodies, on generated and real lines.

The four groups are read by a small C module where it is built (``native/cannheader.c``:
ONE_PASS walked by hand, about 20 times faster than RE2, which took half the parse of a
DEBUG-heavy chunk), by RE2 otherwise; ``tests/parse/test_cannheader.py`` holds the two to the same
groups.

Where the skim picked the lines to parse, its C call read their headers already, in the same
walk (``MatchedLines``, ``native/pickedlines.c``): ``match`` then only spreads what it read,
by distinct prefix, to the lines.

The fast path is used only while the YAML pattern and the tagged-tid body are the ones it was
written for (``applies_to``); an edited format goes through the generic regex path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.parse import compiled as compiled_module
from plogscan.parse import fieldvalues as fv
from plogscan.parse.arrowtext import (
    LARGE,
    byte_at,
    line_buffers,
    span_columns,
    substrings,
)
from plogscan.parse.lineformats import LineFormat

# ONE_PASS's groups are read in C (native/cannheader.c) where the build compiled it and
# PLOGSCAN_NATIVE does not turn it off (``parse.compiled``), else by RE2.

# The primary pattern of formats/cann.yaml, as loaded.
YAML_PATTERN = (
    r"\[(?P<level>[A-Z]+|\d+)\] ?(?P<module>\w+)\((?P<pid>-?\d+),(?P<proc>[^)]*)\): ?"
    r"(?P<ts>\d{4}-\d\d-\d\d[- ]\d\d:\d\d:\d\d\.\d{3}\.\d{3})"
    r" ?(?:\[(?P<src_file>[^\]\s:]+)[: ](?P<src_line>\d+)\]"
    r"(?: ?(?P<tid>\d+) | ?\[(?P<tid_2>\d+)\])?)? ?"
)
# The same header up to the end of its thread-id part: one-pass, four groups. A line matches
# it exactly when it matches YAML_PATTERN, because everything after the timestamp is optional.
# ``prefix`` is everything before the timestamp (level, module, pid and proc, which repeat
# from line to line); ``tid`` is the thread-id part as written: "123 " or "[123]" of the
# header, or else "[Func][tid:123]" or "(tid:123)", two shapes of the format's tagged-tid
# body, which takes the thread id from the message when the header has none. Its other
# shapes are left to the body's regex, which runs where the thread id is still missing.
ONE_PASS = (
    r"^(?P<prefix>\[(?:[A-Z]+|\d+)\] ?\w+\(-?\d+,[^)]*\): ?)"
    r"\d{4}-\d\d-\d\d[- ]\d\d:\d\d:\d\d\.\d{3}\.\d{3}"
    r" ?(?:\[(?P<src_file>[^\]\s:]+)[: ](?P<src_line>\d+)\]"
    r"(?: ?(?P<tid>\d+ |\[(?:\d+\]|[A-Za-z_]\w*\]\[[Tt]id:\d+\])|\(tid:\d+\)))?)?"
)
# The fields of a prefix, read once per distinct prefix.
PREFIX = r"^\[(?P<level>[A-Z]+|\d+)\] ?(?P<module>\w+)\((?P<pid>-?\d+),(?P<proc>[^)]*)\): ?"
GROUPS = ("prefix", "src_file", "src_line", "tid")
# The columns ``one_pass_spans(derived=True)`` adds after the groups' (a start of -1 and a
# message start of 0 where the line has no such field).
DERIVED = ("ts_start", "src_file_start", "src_file_length", "src_line_start",
           "src_line_length", "tid_start", "tid_length", "msg_start")
TS_BYTES = fv.CANN_TS_BYTES  # YYYY-MM-DD-hh:mm:ss.mmm.uuu
_SPACE, _OPEN, _PAREN = 32, 91, 40


@dataclass
class HeaderSpans:
    """Field spans (byte offsets in the line) and values of the lines that carry a CANN
    header; every array is aligned with the lines."""

    matched: np.ndarray  # lines that carry a header
    start: dict[str, np.ndarray]  # field -> start, -1 where absent or not matched
    length: dict[str, np.ndarray]
    msg_start: np.ndarray  # 0 where not matched
    # field -> typed values, null where absent or not matched (level, module, pid and proc
    # dictionary-encoded)
    values: dict[str, pa.Array]


@dataclass
class MatchedLines:
    """Lines already split and their headers already walked, by the skim's C call over the
    lines it picks (``skimtext``): what ``split_lines``, ``one_pass_spans(derived=True)`` and
    ``distinct_texts`` of the prefixes and source files give on the picked text, so the
    parser does not read those lines again."""

    lines: pa.Array  # large_string, one value a line
    spans: np.ndarray  # one_pass_spans(lines, derived=True)
    prefix: tuple[np.ndarray, pa.Array]  # distinct_texts of the prefix groups
    src_file: tuple[np.ndarray, pa.Array]  # distinct_texts of the src_file groups
    # of each distinct prefix: the start and length of level, module, pid and proc (-1 and 0
    # in the empty prefix), and their values (``_prefix_fields``' spans and values, by prefix)
    prefix_spans: np.ndarray
    prefix_values: dict[str, pa.Array]
    numbers: dict[str, pa.Array]  # src_line and tid of each line (null where absent)


# The first thread-id body of formats/cann.yaml, whose two common shapes ONE_PASS reads.
TAGGED_TID_BODY = (r"\[[A-Za-z_]\w*\]\[[Tt]id:(?P<tid>\d+)\] ?| ?\(tid:(?P<tid_2>\d+)\) ?"
                   r"|tid:(?P<tid_3>\d+),")


def applies_to(primary: LineFormat) -> bool:
    """True when ``primary`` is the header (and first thread-id body) this fast path
    reproduces."""
    tid_bodies = [b for b in primary.bodies if b.when_tid_missing]
    return (primary.pattern == YAML_PATTERN and bool(tid_bodies)
            and tid_bodies[0].pattern == TAGGED_TID_BODY
            and not tid_bodies[0].when_src_file_missing)


def _is_digit(byte: np.ndarray) -> np.ndarray:
    return (byte - np.uint8(48)) <= 9  # bytes below "0" wrap around to large values


def _prefix_fields(index: np.ndarray, distinct: pa.Array
                   ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], dict[str, pa.Array]]:
    """Spans and values of level, module, pid and proc, read once per distinct prefix
    (``distinct``; ``index``: each line's prefix among them)."""
    names = ("level", "module", "pid", "proc")
    spans = pc.extract_regex_span(distinct, PREFIX)
    # Null where the prefix is empty (a line with no header).
    texts = dict(zip(names, pc.extract_regex(distinct, PREFIX).flatten(), strict=True))
    # One row of spans per distinct prefix, spread to the lines in a single gather.
    table = np.empty((len(distinct), 2 * len(names)), np.int64)
    for column, name in enumerate(names):
        table[:, 2 * column], table[:, 2 * column + 1], _ = span_columns(spans, name)
    per_line = table[index]
    start: dict[str, np.ndarray] = {}
    length: dict[str, np.ndarray] = {}
    values: dict[str, pa.Array] = {}
    for column, name in enumerate(names):
        start[name], length[name] = per_line[:, 2 * column], per_line[:, 2 * column + 1]
        text = texts[name].cast(pa.string())
        if name == "pid":
            text = fv.digits(text, pa.int64())
        values[name] = _picked(index, text)
    return start, length, values


def _picked(index: np.ndarray, values: pa.Array) -> pa.DictionaryArray:
    """``values[index]`` dictionary-encoded: rows are picked from the indices, the values
    decoded once, later. A row whose value is null gets a null index: Arrow releases
    disagree on whether a null among a dictionary's values makes its rows null (``is_null``
    says no before Arrow 26, yes from it), a null index is null in all of them."""
    absent = None
    if values.null_count:
        absent = ~values.is_valid().to_numpy(zero_copy_only=False)[index]
    return pa.DictionaryArray.from_arrays(index.astype(np.int32, copy=False), values,
                                          mask=absent)


def one_pass_spans(lines: pa.Array, derived: bool = False) -> np.ndarray | None:
    """Start and length (in the line) of each of ONE_PASS's ``GROUPS`` on every line, as
    columns 2k and 2k + 1 (0 and 0 where a group took no part; a line matches when its
    prefix is not empty), read by the C module; None when it is not built.

    With ``derived``, eight more columns follow (``DERIVED``): where ``match`` finds the
    timestamp, src_file, src_line, the thread id's digits and the message, read in the same
    walk over the line instead of derived with numpy from the groups afterwards."""
    native = compiled_module.native
    if native is None:
        return None
    offsets, data = line_buffers(lines)
    # From Arrow's memory pool (jemalloc in the command line), like the chunk's other
    # buffers, not from the C allocator: 64 bytes a line, a few MB a chunk in every worker.
    width = 2 * len(GROUPS) + (len(DERIVED) if derived else 0)
    count = len(lines) * width
    spans = np.frombuffer(pa.allocate_buffer(8 * count), np.int64, count)
    native.spans(data, offsets, spans, derived)
    return spans.reshape(len(lines), width)


def distinct_texts(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray,
                   compiled: bool = True) -> tuple[np.ndarray, pa.Array]:
    """The texts ``data[starts[i]:starts[i] + lengths[i]]`` dictionary-encoded: the index of
    each row's text among the distinct texts, and those texts in the order they first come
    (Arrow's ``dictionary_encode``). The C module numbers them without cutting every text
    out first, where it is built and ``compiled``."""
    native = compiled_module.native
    if native is None or not compiled:
        encoded = pc.dictionary_encode(pc.cast(substrings(data, starts, lengths), pa.string()))
        return encoded.indices.to_numpy(zero_copy_only=False), encoded.dictionary
    index = np.empty(len(starts), np.int64)
    distinct = native.span_ids(data, np.ascontiguousarray(starts, np.int64),
                               np.ascontiguousarray(lengths, np.int64), index)
    return index, pa.array(distinct, pa.string())


def header_spans(lines: pa.Array, compiled: bool = True) -> np.ndarray:
    """``one_pass_spans`` of every line, read by the C module when it is built and
    ``compiled``, else by RE2 (the same layout: 0 and 0 where a group took no part or the line
    does not match)."""
    spans = one_pass_spans(lines) if compiled else None
    if spans is not None:
        return spans
    found = pc.extract_regex_span(lines, ONE_PASS)
    spans = np.zeros((len(lines), 2 * len(GROUPS)), np.int64)
    for k, name in enumerate(GROUPS):
        spans[:, 2 * k], spans[:, 2 * k + 1], _valid = span_columns(found, name)
    return spans


@dataclass
class _Groups:
    """ONE_PASS's groups on every line, as ``match`` needs them: each group's byte length,
    the prefix and src_file numbered among their distinct texts, and the thread-id part of a
    few rows on demand.
    The numbers (src_line, thread ids) are read from the lines at the spans ``match``
    derives, not from the groups' text: cutting out every line's groups as strings took a
    fifth of a DEBUG chunk's parse."""

    matched: np.ndarray
    lengths: list[np.ndarray]  # of each of GROUPS, 0 where it took no part
    prefix: tuple[np.ndarray, pa.Array]  # each line's prefix among the distinct prefixes
    src_file: tuple[np.ndarray, pa.Array]  # each line's src_file among the distinct ones
    tid_of: Callable[[np.ndarray], pa.Array]  # the thread-id part's text of some rows


def _groups(lines: pa.Array, offsets: np.ndarray, data: np.ndarray,
            spans: np.ndarray | None = None) -> _Groups:
    if spans is None:
        spans = header_spans(lines)
    base = offsets[:-1]

    def text(k: int, rows: np.ndarray | slice = slice(None)) -> pa.Array:
        return substrings(data, base[rows] + spans[rows, 2 * k], spans[rows, 2 * k + 1])

    # The prefixes and source files (a few dozen in a chunk) are numbered where they lie in
    # the chunk (``distinct_texts``), not cut out line by line first; they stay
    # dictionary-encoded, as the event table stores them.
    return _Groups(spans[:, 1] > 0, [spans[:, 2 * k + 1] for k in range(len(GROUPS))],
                   distinct_texts(data, base + spans[:, 0], spans[:, 1]),
                   distinct_texts(data, base + spans[:, 2], spans[:, 3]),
                   lambda rows: pc.cast(text(3, rows), LARGE))


def match(lines: pa.Array, given: MatchedLines | None = None) -> HeaderSpans:
    """Spans and values of every line that carries a CANN header (the YAML pattern's,
    exactly); ``given``: what the skim's C call read of these lines already."""
    if given is not None:
        return _given_match(given)
    offsets, data = line_buffers(lines)
    fields = one_pass_spans(lines, derived=True)
    width = 2 * len(GROUPS)
    groups = _groups(lines, offsets, data, None if fields is None else fields[:, :width])
    matched = groups.matched
    rows = np.arange(len(lines))
    # Lines that do not match have empty groups, so their spans come out as garbage here;
    # they are set to "absent" at the end.
    start, length, values = _prefix_fields(*groups.prefix)
    ts0, file_len, _line_len, _tid_len = groups.lengths
    start["ts"], length["ts"] = ts0, np.full(len(ts0), TS_BYTES, np.int64)
    if fields is not None:  # read by the C module in its walk over the header
        for k, name in enumerate(("src_file", "src_line", "tid")):
            start[name] = fields[:, width + 1 + 2 * k]
            length[name] = fields[:, width + 2 + 2 * k]
        msg = fields[:, width + len(DERIVED) - 1]
    else:
        msg = _derived(groups, data, offsets, start, length)
    index, distinct = groups.src_file
    values["src_file"] = pa.DictionaryArray.from_arrays(
        index.astype(np.int32, copy=False), distinct, mask=file_len == 0)
    if not matched.all():
        for name in start:
            start[name] = np.where(matched, start[name], -1)
            length[name] = np.where(matched, length[name], 0)
        msg = np.where(matched, msg, 0)
    # The digits of "[file:123]", and of "123 ", "[123]" or a tagged shape.
    values["src_line"] = fv.integers(data, offsets, rows, start["src_line"],
                                     length["src_line"], pa.int32())
    values["tid"] = fv.integers(data, offsets, rows, start["tid"], length["tid"], pa.int64())
    return HeaderSpans(matched, start, length, msg, values)


def _given_match(given: MatchedLines) -> HeaderSpans:
    """``match`` of lines the skim's C call read: their spans (absent already where a line
    has no header), the prefixes' fields by distinct prefix and the numbers."""
    width = 2 * len(GROUPS)
    matched = given.spans[:, 1] > 0
    # the parser writes other formats' fields into these columns: a copy, not the given ones
    derived = given.spans[:, width:].T.copy()
    index = given.prefix[0]
    per_line = given.prefix_spans[index]
    start: dict[str, np.ndarray] = {}
    length: dict[str, np.ndarray] = {}
    values: dict[str, pa.Array] = {}
    for column, name in enumerate(("level", "module", "pid", "proc")):
        start[name], length[name] = per_line[:, 2 * column], per_line[:, 2 * column + 1]
        values[name] = _picked(index, given.prefix_values[name])
    start["ts"], length["ts"] = derived[0], np.where(matched, TS_BYTES, 0)
    for k, name in enumerate(("src_file", "src_line", "tid")):
        start[name], length[name] = derived[1 + 2 * k], derived[2 + 2 * k]
    index, distinct = given.src_file
    values["src_file"] = pa.DictionaryArray.from_arrays(
        index.astype(np.int32, copy=False), distinct, mask=given.spans[:, 3] == 0)
    values.update(given.numbers)
    return HeaderSpans(matched, start, length, derived[len(DERIVED) - 1], values)


def _derived(groups: _Groups, data: np.ndarray, offsets: np.ndarray,
             start: dict[str, np.ndarray], length: dict[str, np.ndarray]) -> np.ndarray:
    """Where src_file, src_line and the thread id's digits lie (into ``start`` and
    ``length``) and where the message starts (returned), from the groups' lengths and the
    bytes after them: what the C module reads in its walk (``one_pass_spans``), in numpy."""
    base = offsets[:-1]
    ends = offsets[1:]
    ts0, file_len, line_len, tid_len = groups.lengths
    has_block, has_tid = file_len > 0, tid_len > 0  # these groups are never empty
    # " ?" after the timestamp, then "[" of [file:line] or the final " ?" of the pattern.
    ts_end = ts0 + TS_BYTES
    after = ts_end + (byte_at(data, ends, base + ts_end) == _SPACE)
    start["src_file"] = np.where(has_block, after + 1, -1)
    length["src_file"] = file_len
    line0 = after + 1 + file_len + 1
    start["src_line"] = np.where(has_block, line0, -1)
    length["src_line"] = line_len
    # The thread-id part, after " ?": "123 " (digits, then the space they need), "[123]",
    # or a tagged shape whose digits follow its first ":" and end before its last byte.
    close_end = line0 + line_len + 1
    t0 = close_end + (byte_at(data, ends, base + close_end) == _SPACE)
    first = byte_at(data, ends, base + t0)
    plain = has_tid & (first != _OPEN) & (first != _PAREN)
    bracketed = has_tid & (first == _OPEN) & _is_digit(byte_at(data, ends, base + t0 + 1))
    tagged = has_tid & ~plain & ~bracketed
    colon = np.zeros(len(t0), np.int64)
    if tagged.any():
        picked = np.flatnonzero(tagged)
        colon[picked] = pc.find_substring(groups.tid_of(picked), ":").to_numpy(
            zero_copy_only=False)
    start["tid"] = np.select([plain, bracketed, tagged], [t0, t0 + 1, t0 + colon + 1], -1)
    length["tid"] = np.select([plain, bracketed, tagged],
                              [tid_len - 1, tid_len - 2, tid_len - colon - 2], 0)
    part_end = np.where(has_tid, t0 + tid_len, np.where(has_block, close_end, after))
    return part_end + (byte_at(data, ends, base + part_end) == _SPACE)
