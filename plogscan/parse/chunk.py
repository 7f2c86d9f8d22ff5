"""Parse one chunk of log text into event-table records, with vectorized Arrow kernels.

The hot path runs one RE2 pass (the one-pass CANN header pattern of ``cannheader``) over every
line of the chunk; everything else works on the lines it did not match, or on small subsets.
There is no Python loop per line. A chunk always holds whole lines; a record that continues
into the next chunk is stitched by ``ingest``: the lines at the top of a chunk that continue
the previous record come back as ``ChunkResult.head``.
"""

from __future__ import annotations

import numpy as np

from plogscan.parse import blocks, cannheader, glue, runs
from plogscan.parse.arrowtext import blank_lines, split_lines
from plogscan.parse.columns import assemble
from plogscan.parse.lineformats import FormatSet
from plogscan.parse.linematch import match_indented, match_lines
from plogscan.parse.messages import (
    indented,
    line_messages,
    long_lines,
    record_messages,
    segments_max,
    sum_blank_inside,
)
from plogscan.parse.pasted import (
    after_alone,
    prefix_only,
    prefixed_details,
    strip_text,
    text_only,
    wrapped_lines,
)
from plogscan.parse.results import TEXT_KINDS, ChunkResult, FileContext, Head
from plogscan.schema import SourceKind


def parse_chunk(buf: bytes, first_line: int, ctx: FileContext, fset: FormatSet,
                open_record: bool, encoded: bool = False,
                numbers: np.ndarray | None = None, join_blocks: bool = True,
                matched: cannheader.MatchedLines | None = None) -> ChunkResult:
    """Parse whole lines of UTF-8 text; ``open_record`` tells whether a record of the same
    file is still open before this chunk (its continuation lines come back as ``head``).

    Glued lines (two records on one physical line) are rare, and looking for them costs a
    scan of every byte. With the built-in CANN header the chunk is parsed first as if there
    were none; only when a record's text shows a second header (``glue.possible``) is it
    parsed again with glued lines split.

    The records are in EVENT_SCHEMA, or with ``encoded`` in STORED_SCHEMA (for the Parquet
    writer: the text columns with few values stay dictionary-encoded).

    ``numbers``, when given, is the line number of each physical line of ``buf`` (lines
    picked out of a chunk by ``skim``; a record never spans two picked runs); otherwise the
    lines are numbered from ``first_line`` on.

    ``join_blocks``: records whose lines each look like a record of their own are joined
    (``parse.blocks``); format samples are parsed without it, each line on its own.

    ``matched``: the lines of ``buf`` split and their CANN headers read already (by the
    skim's C call, ``skimtext``), so they are not split and matched again.
    """
    if ctx.kind in TEXT_KINDS:  # colour codes of terminals; a plog's text is kept as written
        buf = strip_text(buf, fset)
    if cannheader.applies_to(fset.primary):
        result = _parse_lines(buf, first_line, ctx, fset, open_record, split_glued=False,
                              encoded=encoded, numbers=numbers, join_blocks=join_blocks,
                              matched=matched)
        if result is not None:
            return result
    result = _parse_lines(buf, first_line, ctx, fset, open_record, split_glued=True,
                          encoded=encoded, numbers=numbers, join_blocks=join_blocks)
    assert result is not None
    return result


def _parse_lines(buf: bytes, first_line: int, ctx: FileContext, fset: FormatSet,
                 open_record: bool, split_glued: bool, encoded: bool = False,
                 numbers: np.ndarray | None = None, join_blocks: bool = True,
                 matched: cannheader.MatchedLines | None = None) -> ChunkResult | None:
    """``parse_chunk``'s work; None when glued lines were not split and may be there."""
    lines = matched.lines if matched is not None else split_lines(buf)
    n_physical = len(lines)
    position = np.arange(n_physical, dtype=np.int64)  # of each line among the physical ones
    long_line = long_lines(lines)
    truncated_lines = int(long_line.sum())
    physical = lines
    is_text_kind = ctx.kind in TEXT_KINDS
    if split_glued:
        patterns = tuple(p.pattern for p in fset.prefixes)
        lines, position = glue.split(lines, position, glue.suspects(buf),
                                     glue.prefix_only(patterns),
                                     glue.prefix_re2(patterns) if is_text_kind else None)
    n = len(lines)
    if n != n_physical:
        long_line = long_line[position]
    lineno = first_line + position if numbers is None else numbers[position]
    blank = blank_lines(lines)
    spans = match_lines(lines, blank, fset, matched if lines is physical else None)
    if not is_text_kind:
        text_only(spans, fset)
    fmt = spans.fmt
    start = fmt >= 0
    wrapped = np.zeros(n, bool)
    if is_text_kind:
        behind = np.flatnonzero((fmt < 0) & ~blank & indented(lines, spans.msg_start))
        if len(behind):  # a record's line pasted indented is still the record's first line
            match_indented(lines, behind, fset, spans)
            start = fmt >= 0
        # Unmatched text lines start records unless indented (judged after any framework
        # prefix such as "[rank0]:   ") or empty after their prefix: such lines continue a
        # traceback or a block, except right after a record that takes no continuation (a
        # markdown fence), and except the detail lines of an error-manager message behind a
        # prefix (each a record; ``blocks`` joins them to their message, if it is there). A
        # line that a terminal re-wrapped continues the line before.
        start |= (fmt < 0) & ~blank & ~indented(lines, spans.msg_start) & ~prefix_only(
            lines, spans)
        start |= after_alone(fmt, blank, fset) & ~blank
        start |= prefixed_details(lines, spans, blank)
        wrapped = wrapped_lines(lines, spans, blank, fset)
        start &= ~wrapped
    # Glued parts after the first always start a record of their own.
    start[1:] |= (lineno[1:] == lineno[:-1]) & (fmt[1:] >= 0)
    nonblank = ~blank
    first_start = int(np.argmax(start)) if start.any() else n
    head = None
    head_end = 0  # lines [0, head_end) belong to the previous record (or an orphan record)
    head_nonblank = np.flatnonzero(nonblank[:first_start])
    if len(head_nonblank):
        head_end = int(head_nonblank[-1]) + 1
    if head_end and not open_record:
        # No record to continue: the orphan lines become an unparsed record.
        first_start = int(head_nonblank[0])
        start[first_start] = True
        head_end = 0
    elif head_end:
        lead = int(head_nonblank[0])
        text = "\n".join(line_messages(lines, spans.msg_start, blank, lead, head_end)
                         .to_pylist())
        head = Head(text, int(lineno[lead]), int(lineno[head_end - 1] - lineno[lead] + 1), lead,
                    bool(long_line[:head_end].any()))
    starts = np.flatnonzero(start)
    # Last non-blank line of each record; blank lines after it are outside every record.
    position = np.where(nonblank, np.arange(n), -1)
    last = segments_max(position, starts) if len(starts) else np.zeros(0, np.int64)
    last = np.maximum(last, starts)
    record_lines = (lineno[last] - lineno[starts] + 1).astype(np.int32)
    shared = int((lineno[starts[1:]] == lineno[last[:-1]]).sum()) if len(starts) > 1 else 0
    if head is not None and len(starts) and lineno[head_end - 1] == lineno[starts[0]]:
        shared += 1  # the head's last line also holds the first record (glued)
    blank_total = int(blank.sum())
    head_blank = int(blank[head.lead_blank:head_end].sum()) if head else 0
    lead_blank = int(blank[head_end:first_start].sum())  # before the first record
    inner_blank = int(sum_blank_inside(blank, starts, last))
    trailing_blank = int(blank[last[-1] + 1:].sum()) if len(starts) else 0
    # Lines rewritten by the split (parts of glued lines, an indented header without its
    # indentation) are not the text as written: messages are then joined line by line.
    glued = lines is not physical
    messages = record_messages(buf, lines, spans.msg_start, blank, starts, last, glued,
                               wrapped)
    records = assemble(lines, spans, messages, ctx, fset, starts, last, lineno, record_lines,
                        long_line, encoded)
    if not split_glued and glue.possible(records, head, lines, spans, is_text_kind):
        return None
    # Messages that span records (tables, tracebacks, error-manager blocks) become one record;
    # the first records may continue one before the chunk (``lead``: ingest joins them).
    follows = head.first_line + head.lines if head is not None else first_line
    touches = bool(len(starts)) and int(lineno[starts[0]]) == follows  # nothing in between
    joiners = 0  # the first records, that may continue a record before the chunk
    if join_blocks:
        records, joiners = blocks.join(records, fset, is_text_kind,
                                       lead_open=open_record and touches)
    counts = runs.record_counts(records)
    return ChunkResult(
        records=records, head=head, lines=n_physical,
        blank_lines=blank_total - head_blank - inner_blank,
        trailing_blank=trailing_blank if len(starts) else lead_blank,
        unparsed_lines=counts.unparsed_lines, shared_lines=shared,
        truncated_lines=truncated_lines, invalid_timestamps=counts.invalid_timestamps,
        epoch_records=counts.epoch_records, lead=joiners,
    )


def parse_samples(lines: list[str], fset: FormatSet, kind: SourceKind = SourceKind.PLOG
                  ) -> list[dict[str, object]]:
    """``parse_sample`` of every line, in as few parses as it takes: one chunk of them all,
    then alone each line that did not come out there as a record of its own (a line that
    continues the one before, and that one). Each parse of a chunk costs milliseconds, so the
    samples checked at every start are parsed together."""
    ctx = FileContext(path="<sample>", kind=kind.value)
    joinable = not any("\n" in line or "\r" in line or not line.strip() for line in lines)
    rows: dict[int, dict[str, object]] = {}
    if joinable and lines:
        records = parse_chunk("\n".join(lines).encode("utf-8"), 1, ctx, fset,
                              open_record=False, join_blocks=False).records
        starts = records.column("line").to_pylist()
        for i, row in enumerate(records.to_pylist()):
            line = starts[i]
            following = starts[i + 1] if i + 1 < len(starts) else len(lines) + 1
            if following == line + 1 and 1 <= line <= len(lines):  # it stands alone
                rows[line] = _sample_row(row)
    return [rows[n] if n in rows else parse_sample(line, fset, kind)
            for n, line in enumerate(lines, 1)]


def parse_sample(line: str, fset: FormatSet, kind: SourceKind = SourceKind.PLOG
                 ) -> dict[str, object]:
    """Parse one sample line as a line of a ``kind`` file (a plog by default); the first
    record's fields as plain values."""
    ctx = FileContext(path="<sample>", kind=kind.value)
    result = parse_chunk(line.encode("utf-8"), 1, ctx, fset, open_record=False,
                         join_blocks=False)
    if result.records.num_rows == 0:
        return {}
    return _sample_row(result.records.slice(0, 1).to_pylist()[0])


def _sample_row(row: dict[str, object]) -> dict[str, object]:
    """A parsed sample's record as a format file states its fields: on line 1, its time as
    text."""
    row["line"] = 1
    if row.get("ts") is not None:
        row["ts"] = str(row["ts"])
    return row
