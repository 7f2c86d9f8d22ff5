"""Parse a chunk for a reducer by skimming it first: only the lines of records it may keep
are parsed; the others give their facts from a cheaper read (``parse.skim``).

The reducer (``engine.selector.Selector``) says where its raw expressions match the chunk's
bytes (``raw_hits``); the skim turns that into the lines to parse; those lines, joined, are
parsed as one chunk that keeps their line numbers. The records kept, the facts of all
records and the line accounting equal those of parsing the whole chunk and reducing it
(``tests/parse/test_skim.py``).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.ingest.facts import Reducer, as_whole, facts_of, in_line_order, reduced
from plogscan.parse import cannheader
from plogscan.parse.arrowtext import holds, joined_bytes
from plogscan.parse.chunk import parse_chunk
from plogscan.parse.columns import constant_column
from plogscan.parse.lineformats import FormatSet
from plogscan.parse.results import TEXT_KINDS, ChunkResult, FileContext
from plogscan.parse.skim import Skimmed
from plogscan.parse.skimtext import skim_text
from plogscan.schema import plain_text
from plogscan.schema.facts import FACTS_SCHEMA
from plogscan.schema.grouping import grouped

# A chunk that holds the header ``tail`` writes between files is kept whole by the selector.
_SECTION = b"==> "
# A facts row before grouping: of one parsed record, or of the skim's summary of skipped ones.
_ROW_FACTS = pa.schema([FACTS_SCHEMA.field(name) for name in (
    "pid", "level", "module", "records", "rank", "device", "first_ts", "last_ts", "first_line",
    "last_line", "epoch_records")])


def reduced_parse(data: bytes, first_line: int, ctx: FileContext, fset: FormatSet,
                  open_record: bool, encoded: bool, reducer: Reducer
                  ) -> tuple[ChunkResult, pa.Table, int, int]:
    """(result with the records ``reducer`` keeps, facts of all records, records and record
    lines dropped): skimmed first where it can be, else parsed whole and reduced."""
    skimmed = skimmed_parse(data, first_line, ctx, fset, open_record, encoded, reducer)
    if skimmed is not None:
        return skimmed
    result = parse_chunk(data, first_line, ctx, fset, open_record, encoded)
    facts = facts_of(result.records.slice(result.lead))  # the lead's: see ChunkResult.lead
    result.records, dropped, dropped_lines = reduced(result.records, reducer, result.lead)
    return result, as_whole(facts, dropped == 0), dropped, dropped_lines


def skimmed_parse(data: bytes, first_line: int, ctx: FileContext, fset: FormatSet,
                  open_record: bool, encoded: bool, reducer: Reducer
                  ) -> tuple[ChunkResult, pa.Table, int, int] | None:
    """(result with the kept records, facts of all records, records and record lines
    dropped), or None when the chunk must be parsed whole (not CANN text, no raw expressions,
    nothing to skip)."""
    parsed = skim_and_parse(data, first_line, ctx, fset, open_record, encoded, reducer)
    if parsed is None:
        return None
    result, skimmed = parsed
    summary = skimmed.counted(first_line)
    facts = _all_facts(result.records.slice(result.lead), summary, ctx)
    result.records, dropped, dropped_lines = reduced(result.records, reducer, result.lead)
    return (result, facts, dropped + len(skimmed.skipped_rows),
            dropped_lines + skimmed.skipped_lines)


def skim_and_parse(data: bytes, first_line: int, ctx: FileContext, fset: FormatSet,
                   open_record: bool, encoded: bool, reducer: Reducer
                   ) -> tuple[ChunkResult, Skimmed] | None:
    """The records of the lines the skim picks, all of them (not reduced yet), and the skim
    (which lines it skipped, and their records' facts fields); None when the chunk must be
    parsed whole. The result counts every line of ``data`` and every invalid or 1970
    timestamp; its other counts (records, unparsed, blank, truncated lines) are those of the
    picked lines, which hold every blank, unparsed and over-long line of ``data``."""
    if ctx.kind in TEXT_KINDS or not cannheader.applies_to(fset.primary):
        return None
    if holds(data, _SECTION, 2):
        return None
    raw_hits = getattr(reducer, "raw_hits", None)
    found = raw_hits(data) if raw_hits is not None else None
    if found is None:
        return None
    starts, skimmed = skim_text(data, found.ends, found.narrowed, fset)
    if skimmed is None:
        return None
    text = skimmed.picked if skimmed.picked is not None else picked_text(data, starts,
                                                                          skimmed.parse)
    result = parse_chunk(text, first_line, ctx, fset, open_record, encoded,
                         numbers=first_line + np.flatnonzero(skimmed.parse),
                         matched=skimmed.matched)
    skimmed.matched = None  # its buffers (megabytes) are the parser's alone: freed now
    result.lines = len(starts) - 1
    result.line_starts = starts[:-1]
    result.invalid_timestamps += skimmed.invalid_timestamps
    result.epoch_records += skimmed.epoch_records
    return result, skimmed


def picked_text(data: bytes, starts: np.ndarray, picked: np.ndarray) -> bytes:
    """The picked lines of ``data`` (whose lines start at ``starts``, then ``len(data) + 1``),
    joined by newlines: each run of picked lines with the newline after it (the last run
    without), copied by one Arrow cast of views into ``data`` (a slice per run in Python held
    the GIL for thousands of runs a chunk)."""
    edges = np.flatnonzero(np.diff(np.concatenate(([0], picked.view(np.int8), [0]))))
    first, after = edges[0::2], edges[1::2]
    lengths = starts[after] - starts[first]  # each run with its newline
    lengths[-1] -= 1
    return joined_bytes(data, starts[first], lengths)


def _all_facts(records: pa.Table, summary: pa.Table, ctx: FileContext) -> pa.Table:
    """``facts_of`` the parsed records and the skipped ones together, in line order, in one
    grouping: each parsed record is a facts row of its own (one record, its line and time
    as first and last), beside the skim's summary of the skipped ones. Every record comes
    from the file of ``ctx``, so only (pid, level, module) are grouped by; the file's texts
    are added once to the result."""
    n = records.num_rows
    parsed = pa.table({
        "pid": records.column("pid"), "level": plain_text(records.column("level")),
        "module": plain_text(records.column("module")),
        "records": pa.array(np.ones(n, np.int64)),
        "rank": pc.cast(records.column("rank"), pa.int64()),
        "device": pc.cast(records.column("device"), pa.int64()),
        "first_ts": records.column("ts"), "last_ts": records.column("ts"),
        "first_line": records.column("line"), "last_line": records.column("line"),
        "epoch_records": pc.cast(pc.fill_null(records.column("clock_epoch"), False),
                                 pa.int64())}, schema=_ROW_FACTS)
    skipped = pa.table({
        **{name: summary.column(name) for name in ("pid", "level", "module", "records")},
        "rank": pa.repeat(pa.scalar(ctx.rank, pa.int64()), summary.num_rows),
        "device": pa.repeat(pa.scalar(ctx.device, pa.int64()), summary.num_rows),
        **{name: summary.column(name) for name in ("first_ts", "last_ts", "first_line",
                                                     "last_line", "epoch_records")}},
        schema=_ROW_FACTS)
    both = pa.concat_tables([parsed, skipped])
    if both.num_rows == 0:
        return FACTS_SCHEMA.empty_table()
    groups = grouped(both, ["pid", "level", "module"], [
        ("records", "sum"), ("rank", "min"), ("device", "min"), ("first_ts", "min"),
        ("last_ts", "max"), ("first_line", "min"), ("last_line", "max"),
        ("epoch_records", "sum")])
    count = groups.num_rows
    return in_line_order(pa.table({
        "host": constant_column(ctx.host, count, encoded=True), "pid": groups.column("pid"),
        "level": groups.column("level"), "module": groups.column("module"),
        "kind": constant_column(ctx.kind, count, encoded=True),
        "path": constant_column(ctx.path, count, encoded=True),
        **{name: groups.column(f"{name}_{how}") for name, how in (
            ("records", "sum"), ("rank", "min"), ("device", "min"), ("first_ts", "min"),
            ("last_ts", "max"), ("first_line", "min"), ("last_line", "max"),
            ("epoch_records", "sum"))},
        "whole": pa.repeat(pa.scalar(False), count)}, schema=FACTS_SCHEMA))


def skipped_facts(summary: pa.Table, host: pa.Array, kind: pa.Array, path: pa.Array,
                  rank: pa.Array, device: pa.Array) -> pa.Table:
    """Facts rows (FACTS_SCHEMA) of ``Skimmed.summary``, with the file's fields of each row
    (dictionary-encoded host, kind and path)."""
    return pa.table({
        "host": host, "pid": summary.column("pid"), "level": summary.column("level"),
        "module": summary.column("module"), "kind": kind, "path": path,
        "records": summary.column("records"), "rank": rank, "device": device,
        **{name: summary.column(name) for name in ("first_ts", "last_ts", "first_line",
                                                     "last_line", "epoch_records")},
        "whole": pa.repeat(pa.scalar(False), summary.num_rows)}, schema=FACTS_SCHEMA)
