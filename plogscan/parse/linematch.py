"""Match line formats and keep every field as a byte span of its line.

Fields are not cut out as strings while formats are tried: each is a (start, length) pair of
byte offsets into its line, in numpy arrays, so trying secondary formats, framework prefixes
and module-specific bodies only writes numbers into arrays. Strings and numbers are made once,
for record-start lines only, by ``fieldvalues``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.parse import cannheader
from plogscan.parse.arrowtext import line_buffers, slice_from, span_columns, tails
from plogscan.parse.lineformats import (
    FIELDS,
    MAX_PREFIXES,
    Body,
    FormatSet,
    LineFormat,
    field_of,
)


@dataclass
class Spans:
    """Per-line match results; offsets are bytes from the start of the line."""

    fmt: np.ndarray  # int16 index into FormatSet.formats, -1 = no format matched
    start: dict[str, np.ndarray]  # field -> int64 start, -1 where absent
    length: dict[str, np.ndarray]  # field -> int64 length
    msg_start: np.ndarray  # where the message begins (after prefix / header)
    # field -> typed values of all lines, where a fast path read them already (null where it
    # did not: there the span is the one to read)
    values: dict[str, pa.Array] = field(default_factory=dict)
    # fields whose spans were set after the fast path (by other formats, prefixes or bodies)
    spans_added: set[str] = field(default_factory=set)
    # lines a framework prefix or a format other than the fast path's matched
    other_lines: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    # where the prefixes of each line end (0: no prefix)
    prefix_end: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    @classmethod
    def empty(cls, n: int, given: dict[str, np.ndarray] | None = None,
              given_length: dict[str, np.ndarray] | None = None) -> Spans:
        """No field anywhere, except the ``given`` spans (field -> starts, lengths)."""
        start = {f: np.full(n, -1, np.int64) for f in FIELDS if not given or f not in given}
        length = {f: np.zeros(n, np.int64) for f in FIELDS if not given or f not in given}
        start.update(given or {})
        length.update(given_length or {})
        return cls(np.full(n, -1, np.int16), start, length, np.zeros(n, np.int64),
                   prefix_end=np.zeros(n, np.int64))

    def put(self, rows: np.ndarray, spans: pa.StructArray, groups: tuple[str, ...],
            base: np.ndarray, only_missing: bool = False) -> None:
        """Record the groups of ``spans`` (rows aligned with ``rows``), offset by ``base``."""
        for group in groups:
            starts, lengths, valid = span_columns(spans, group)
            name = field_of(group)
            if only_missing or name != group:
                valid = valid & (self.start[name][rows] < 0)
            target = rows[valid]
            if len(target):
                self.start[name][target] = base[valid] + starts[valid]
                self.length[name][target] = lengths[valid]
                self.spans_added.add(name)


def _try(lines: pa.Array, pattern: str) -> tuple[pa.StructArray, np.ndarray, np.ndarray]:
    spans = pc.extract_regex_span(lines, f"^(?P<_all>{pattern})")
    _, length, ok = span_columns(spans, "_all")
    return spans, length, ok


def _match_rest(lines: pa.Array, rows: np.ndarray, fset: FormatSet, out: Spans) -> None:
    """Framework prefixes, then the formats in order, on lines the primary did not match
    (except lines whose first byte no prefix or format can start with)."""
    starters = fset.secondary_start_bytes
    if starters is not None:
        offsets, data = line_buffers(lines)
        rows = rows[offsets[rows + 1] > offsets[rows]]  # an empty line starts with no byte
        rows = rows[starters[data[offsets[rows]]]]
        if len(rows) == 0:
            return
    sub = lines.take(pa.array(rows))
    pretest = fset.secondary_pretest
    if pretest is not None:  # one pass for all patterns, then each only where one may match
        hit = pc.fill_null(pc.match_substring_regex(sub, pretest), False).to_numpy(
            zero_copy_only=False)
        if not hit.all():
            rows = rows[hit]
            if len(rows) == 0:
                return
            sub = sub.filter(pa.array(hit))
    offset = _peel_prefixes(sub, rows, fset, out)
    if offset.any():
        sub = slice_from(sub, offset)
    out.msg_start[rows] = offset
    out.prefix_end[rows] = offset
    todo = np.arange(len(rows))
    first = first_bytes_of(sub)
    for index, fmt in enumerate(fset.formats):
        if len(todo) == 0:
            break
        mask = fset.format_starts[index]
        tried = todo if mask is None else todo[mask[first[todo]]]
        if len(tried) == 0:
            continue
        part = sub if len(tried) == len(rows) else sub.take(pa.array(tried))
        spans, hlen, ok = _try(part, fmt.pattern)
        if not ok.any():
            continue
        hit = tried[ok]
        out.fmt[rows[hit]] = index
        out.put(rows[hit], spans.filter(pa.array(ok)), fmt.groups, offset[hit])
        if not fmt.keep_prefix:
            out.msg_start[rows[hit]] = offset[hit] + hlen[ok]
        todo = np.setdiff1d(todo, hit, assume_unique=True)
    out.other_lines = rows[(out.fmt[rows] >= 0) | (out.msg_start[rows] > 0)]


def _peel_prefixes(sub: pa.Array, rows: np.ndarray, fset: FormatSet, out: Spans) -> np.ndarray:
    """Take prefixes off the lines ``sub`` (of rows ``rows``) in up to ``MAX_PREFIXES``
    rounds; record their fields; return where each line's prefixes end.

    Each round tries every prefix, in file order, on the lines the round before changed; a
    field a later (inner) prefix names replaces an outer one's."""
    offset = np.zeros(len(rows), np.int64)
    active = np.arange(len(rows))
    part = sub
    for _ in range(MAX_PREFIXES):
        peeled = np.zeros(len(active), bool)
        for prefix, mask in zip(fset.prefixes, fset.prefix_starts, strict=True):
            # only the lines whose first byte the prefix can start with (one numpy look)
            tried = (np.arange(len(active)) if mask is None
                     else np.flatnonzero(mask[first_bytes_of(part)]))
            if len(tried) == 0:
                continue
            some = part if len(tried) == len(active) else part.take(pa.array(tried))
            spans, plen, ok = _try(some, prefix.pattern)
            if not ok.any():
                continue
            if len(tried) < len(active):
                spans = spans.filter(pa.array(ok))
                tried, plen, ok = tried[ok], plen[ok], ok[ok]
            out.put(rows[active[tried]], spans, prefix.groups, offset[active[tried]])
            taken = np.zeros(len(active), np.int64)
            taken[tried] = np.where(ok, plen, 0)
            offset[active] += taken
            part = slice_from(part, taken)
            peeled[tried] |= ok
        if not peeled.any():
            break
        active = active[peeled]
        part = part.filter(pa.array(peeled))
    return offset


def match_indented(lines: pa.Array, rows: np.ndarray, fset: FormatSet, out: Spans) -> None:
    """Prefixes and formats behind the indentation of ``rows`` (lines no format matched, whose
    message starts with spaces or tabs), kept only where a prefix or a format then matches:
    text pasted indented (a quoted block, an issue template's list) reads as it reads
    unindented, while an indented line that matches nothing (a traceback frame, a detail
    line) stays a continuation.

    Fields are recorded as offsets into the whole line, past the indentation."""
    base = out.msg_start[rows]
    part = tails(lines, rows, base)
    width = (pc.binary_length(part).to_numpy(zero_copy_only=False)
             - pc.binary_length(pc.utf8_ltrim(part, characters=" \t")).to_numpy(
                 zero_copy_only=False))
    inner = Spans.empty(len(rows))
    _match_rest(slice_from(part, width), np.arange(len(rows)), fset, inner)
    ok = (inner.fmt >= 0) | (inner.prefix_end > 0)
    if not ok.any():
        return
    hit, shift = rows[ok], (base + width)[ok]
    out.fmt[hit] = inner.fmt[ok]
    for name, starts in inner.start.items():
        has = starts[ok] >= 0
        if has.any():
            out.start[name][hit[has]] = starts[ok][has] + shift[has]
            out.length[name][hit[has]] = inner.length[name][ok][has]
    out.spans_added |= inner.spans_added
    out.msg_start[hit] = inner.msg_start[ok] + shift
    peeled = inner.prefix_end[ok] > 0
    out.prefix_end[hit[peeled]] = inner.prefix_end[ok][peeled] + shift[peeled]
    out.other_lines = np.union1d(out.other_lines, hit)


def first_bytes_of(lines: pa.Array) -> np.ndarray:
    """The first byte of each line (0 for an empty one)."""
    offsets, data = line_buffers(lines)
    first = np.zeros(len(lines), np.uint8)
    nonempty = np.flatnonzero(offsets[1:] > offsets[:-1])
    first[nonempty] = data[offsets[nonempty]]
    return first


def _refine(lines: pa.Array, fmt: LineFormat, body: Body, rows: np.ndarray, out: Spans) -> None:
    """Apply one module-specific body prefix to the messages of ``rows`` that need it."""
    need = np.ones(len(rows), bool)
    if body.when_src_file_missing:
        need &= out.start["src_file"][rows] < 0
    if body.when_tid_missing:
        need &= out.start["tid"][rows] < 0
    rows = rows[need]
    if len(rows) == 0:
        return
    base = out.msg_start[rows]
    part = tails(lines, rows, base)
    spans, blen, ok = _try(part, body.pattern)
    if not ok.any():
        return
    out.put(rows, spans, body.groups, base, only_missing=True)
    out.msg_start[rows[ok]] = base[ok] + blen[ok]


def _match_primary(lines: pa.Array, primary: LineFormat, rows: np.ndarray, out: Spans
                   ) -> np.ndarray:
    """The primary format's regex on ``rows``; returns the mask of all lines it matched."""
    sub = lines if len(rows) == len(lines) else lines.take(pa.array(rows))
    spans, hlen, ok = _try(sub, primary.pattern)
    out.put(rows, spans, primary.groups, np.zeros(len(rows), np.int64))
    out.fmt[rows[ok]] = 0
    out.msg_start[rows[ok]] = hlen[ok]
    matched = np.zeros(len(lines), bool)
    matched[rows[ok]] = True
    return matched


def _match_cann(lines: pa.Array, given: cannheader.MatchedLines | None = None
                ) -> tuple[Spans, np.ndarray]:
    """The CANN header through its fast path (same spans as the regex, and the values);
    returns the spans and the mask of lines it matched."""
    found = cannheader.match(lines, given)
    out = Spans.empty(len(lines), found.start, found.length)
    out.fmt[found.matched] = 0
    out.msg_start = found.msg_start
    out.values = found.values
    return out, found.matched


def match_lines(lines: pa.Array, blank: np.ndarray, fset: FormatSet,
                given: cannheader.MatchedLines | None = None) -> Spans:
    """Which format matched each line, where its fields are, and where its message starts;
    ``given``: the CANN headers of ``lines`` as the skim's C call read them."""
    n = len(lines)
    primary = fset.primary
    if cannheader.applies_to(primary):
        out, ok = _match_cann(lines, given)
    else:
        out = Spans.empty(n)
        ok = _match_primary(lines, primary, np.arange(n), out)
    rest = np.flatnonzero(~ok & ~blank)
    if len(rest):
        _match_rest(lines, rest, fset, out)
    primary_rows = np.flatnonzero(out.fmt == 0)
    for body in primary.bodies:
        _refine(lines, primary, body, primary_rows, out)
    return out
