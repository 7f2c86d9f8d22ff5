"""Skim a chunk from its bytes: where its lines start, and what ``skim.skim`` finds in them.

Where the C module is built (``parse.compiled``), three calls of ``native/skim.c`` do the
skim: the first splits the chunk into lines and marks each (header, prefix, where its
timestamp starts, parse it or not), the second closes the records, the third reads the
skipped records' timestamps, sums their facts by header prefix and copies out the lines to
parse, joined by newlines, and also split into Arrow's layout with their CANN headers read
(``cannheader.MatchedLines``: the parser takes them instead of splitting and matching the
picked text again; ``native/pickedlines.c``). Python keeps what only it
can do: the few lines that only a pattern without known first bytes may start
(``skim.could_start``), the narrowed expressions (``skim._parse_matching``) and the fields of
the few distinct prefixes. Elsewhere the chunk is split by ``arrowtext.split_lines`` and
skimmed by ``skim.skim``, numpy's and Arrow's version of the same decision; the tests hold the
two to the same marks, rows, timestamps and facts (``tests/parse/test_skim.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from plogscan.parse import compiled
from plogscan.parse.arrowtext import (
    LARGE,
    line_buffers,
    split_lines,
    substrings,
    validity_bitmap,
)
from plogscan.parse.cannheader import DERIVED, GROUPS, MatchedLines
from plogscan.parse.codescan import QUIET_LEVELS
from plogscan.parse.lineformats import FormatSet
from plogscan.parse.messages import TRUNCATION_CHARS
from plogscan.parse.skim import Skimmed, _parse_matching, could_start, prefix_fields, skim
from plogscan.parse.timestamps import EPOCH_1971_US

_QUIET = tuple(level.encode() for level in QUIET_LEVELS)
_UNDECIDED = 2  # skim_lines' mark of a line only a pattern without known first bytes may start


def skim_text(buf: bytes, ends: np.ndarray, narrowed: Sequence[tuple[Sequence[str], np.ndarray]],
              fset: FormatSet) -> tuple[np.ndarray, Skimmed | None]:
    """Where each line of ``buf`` starts (and ``len(buf) + 1`` after the last), and the skim
    of its lines (None when no record can be skipped). ``ends`` are the end offsets of the
    matches whose records must be parsed; each of ``narrowed`` holds RE2 patterns and the end
    offsets of matches whose record must be parsed when a pattern matches its text."""
    native = compiled.native
    if native is None:
        lines = split_lines(buf)
        offsets, _ = line_buffers(lines)
        starts = offsets + np.arange(len(offsets))
        hits = np.zeros(len(lines), bool)
        hits[_line_of(starts, ends)] = True
        return starts, skim(buf, lines, hits, fset,
                            [(patterns, _line_of(starts, at)) for patterns, at in narrowed])
    mask, unknown = fset.start_bytes
    marks = native.skim_lines(buf, np.ascontiguousarray(ends, np.int64),
                              mask.astype(np.uint8).tobytes(), bool(unknown), _QUIET,
                              TRUNCATION_CHARS)
    starts, header, parse_line, prefix, ts_start = (
        np.frombuffer(part, kind) for part, kind in zip(
            marks[:5], (np.int64, np.uint8, np.uint8, np.int64, np.int64), strict=False))
    n = len(header)
    if n < 3 or not header.any():
        return starts, None
    if unknown:
        _decide(buf, starts, parse_line, fset)
    parse_segment = np.frombuffer(native.skim_segments(header, parse_line), bool)
    if narrowed:
        offsets = starts - np.arange(n + 1)
        _parse_matching(buf, offsets, np.diff(offsets), header.view(bool),
                        np.cumsum(header, dtype=np.int64), parse_segment,
                        [(patterns, _line_of(starts, at)) for patterns, at in narrowed])
    readable, prefixes = prefix_fields(pa.array(marks[5], pa.string()))
    parse, rows, ids, micros, valid, sums, picked, split = native.skim_skipped(
        buf, starts, header, parse_segment, prefix, ts_start, len(readable),
        pa.allocate_buffer)
    rows = np.frombuffer(rows, np.int64)
    if len(rows) == 0:
        return starts, None
    parse = np.frombuffer(parse, bool)
    valid = np.frombuffer(valid, bool)
    micros = np.frombuffer(micros, np.int64)
    return starts, Skimmed(
        parse, rows, np.frombuffer(ids, np.int64), prefixes,
        pa.array(micros, pa.timestamp("us"), mask=~valid), valid & (micros < EPOCH_1971_US),
        ~valid, skipped_lines=int(n - np.count_nonzero(parse)),
        sums=np.frombuffer(sums, np.int64).reshape(7, len(readable)), picked=picked,
        matched=_matched(*split))


def _matched(offsets: pa.Buffer, values: pa.Buffer, spans: pa.Buffer, prefix_index: pa.Buffer,
             prefixes: list[bytes], parts: tuple[bytes, list, list, list, list],
             file_index: pa.Buffer, files: list[bytes], src_line: pa.Buffer,
             src_line_valid: pa.Buffer, tid: pa.Buffer, tid_valid: pa.Buffer) -> MatchedLines:
    """The picked lines as ``skim_skipped`` split and matched them, in the parser's types."""
    count = len(offsets) // 8 - 1
    part_spans, *texts = parts
    header = np.frombuffer(spans, np.int64).reshape(count, 2 * len(GROUPS) + len(DERIVED))
    header.flags.writeable = False  # read, never written: ``cannheader.match`` copies
    return MatchedLines(
        pa.Array.from_buffers(LARGE, count, [None, offsets, values]),
        header,
        (np.frombuffer(prefix_index, np.int64), pa.array(prefixes, pa.string())),
        (np.frombuffer(file_index, np.int64), pa.array(files, pa.string())),
        np.frombuffer(part_spans, np.int64).reshape(len(prefixes), 8),
        {name: pa.array(part, pa.int64() if name == "pid" else pa.string())
         for name, part in zip(("level", "module", "pid", "proc"), texts, strict=True)},
        {"src_line": _numbers(count, src_line, src_line_valid).cast(pa.int32()),
         "tid": _numbers(count, tid, tid_valid)})


def _numbers(count: int, values: pa.Buffer, valid: pa.Buffer) -> pa.Array:
    """An int64 array of ``values``, null where ``valid`` (one byte a value) is 0."""
    validity, nulls = validity_bitmap(np.frombuffer(valid, bool))
    return pa.Array.from_buffers(pa.int64(), count, [validity, values], nulls)


def _decide(buf: bytes, starts: np.ndarray, parse_line: np.ndarray, fset: FormatSet) -> None:
    """Mark for parsing the lines ``skim_lines`` left undecided that a pattern without known
    first bytes starts (``could_start``); the others stay unparsed."""
    rows = np.flatnonzero(parse_line == _UNDECIDED)
    if len(rows) == 0:
        return
    lengths = starts[rows + 1] - starts[rows] - 1
    lines = substrings(np.frombuffer(buf, np.uint8), starts[rows], lengths).cast(pa.large_string())
    first = np.frombuffer(buf, np.uint8)[starts[rows]]  # not empty: blank lines are parsed
    parse_line[rows] = could_start(lines, np.arange(len(rows)), first, fset)


def _line_of(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The line that holds the byte before each of ``ends``."""
    return np.searchsorted(starts[:-1], np.asarray(ends) - 1, side="right") - 1
