"""Stitching the results of chunks back into a file's records: the per-file columns a worker
left out put back, a chunk's line numbers shifted to where it starts in the file, and the
continuation lines that start a chunk appended to the record pending from the chunk before
(or, when no record precedes them, made a record of their own). ``Stitcher`` does it for the
chunks of one file, in order, with the file's accounting and the context lines the workers
took (``contextlines``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pyarrow as pa
import pyarrow.compute

from plogscan.ingest import handoff
from plogscan.ingest.chunks import CONSTANT_COLUMNS, Cleaned, FileState
from plogscan.ingest.contextlines import ChunkContext, Stitched
from plogscan.ingest.facts import Reducer, as_whole, facts_of
from plogscan.parse import blocks, runs
from plogscan.parse.codescan import extract_codes
from plogscan.parse.columns import constant_column
from plogscan.parse.lineformats import FormatSet
from plogscan.parse.results import TEXT_KINDS, ChunkResult, FileContext, Head
from plogscan.schema import EVENT_SCHEMA, STORED_SCHEMA, SourceKind


def restore_constants(result: ChunkResult, ctx: FileContext, schema: pa.Schema) -> None:
    """Put back the per-file columns a worker left out (see ``CONSTANT_COLUMNS``)."""
    table = result.records
    if table.num_columns == len(schema):
        return
    values = {"kind": ctx.kind, "path": ctx.path, "host": ctx.host}
    for name in CONSTANT_COLUMNS:
        table = table.append_column(schema.field(name), constant_column(
            values[name], table.num_rows, encoded=schema is STORED_SCHEMA))
    result.records = table.select(schema.names)


def shift_lines(result: ChunkResult, offset: int) -> None:
    """Renumber a chunk parsed from line 1 that starts after ``offset`` lines."""
    result.records = plus(result.records, ("line",), offset)
    if result.head is not None:
        result.head.first_line += offset


def plus(table: pa.Table, names: tuple[str, ...], offset: int) -> pa.Table:
    """``table`` with ``offset`` added to the line-number columns ``names``."""
    for name in names:
        index = table.schema.get_field_index(name)
        shifted = pa.compute.add(table.column(index), pa.scalar(offset, pa.int64()))
        table = table.set_column(index, table.schema.field(index), shifted)
    return table


def orphan(ctx: FileContext, head: Head, schema: pa.Schema) -> pa.Table:
    """An unparsed record made of continuation lines that follow no record."""
    kind_text = ctx.kind in (SourceKind.STDOUT.value, SourceKind.SYSLOG.value)
    row = {name: None for name in EVENT_SCHEMA.names}
    row.update(message=head.text, kind=ctx.kind, path=ctx.path, line=head.first_line,
               line_count=head.lines, host=ctx.host, rank=ctx.rank, device=ctx.device,
               codes=[], fmt="text" if kind_text else "unparsed", truncated=head.truncated,
               ts_invalid=False, clock_epoch=False)
    return pa.Table.from_pylist([row], schema=schema)


def extend(pending: pa.Table, head: Head, between: int, schema: pa.Schema) -> pa.Table:
    """The pending record with continuation lines from the next chunk appended."""
    row = pending.to_pylist()[0]
    row["message"] = (row["message"] or "") + "\n" * (1 + between) + head.text
    row["line_count"] = row["line_count"] + between + head.lines
    row["truncated"] = bool(row["truncated"] or head.truncated)
    row["codes"] = extract_codes(pa.array([row["message"]], pa.large_string()),
                                 pa.array([row["level"]], pa.string()))[0].as_py()
    return pa.Table.from_pylist([row], schema=schema)


def join_lead(pending: pa.Table | None, lead: pa.Table, formats: FormatSet, text_kind: bool
              ) -> tuple[pa.Table, pa.Table | None, list[tuple[str, int]]]:
    """The ``lead`` records of a chunk joined to the ``pending`` record before the chunk
    where they continue it (a block cut by the chunk boundary, ``parse.blocks``), and to each
    other: the records left after the pending one, the pending one as joined, and what the
    join changes in the file's accounting."""
    table = pa.concat_tables([pending, lead]) if pending is not None else lead
    joined, _ = blocks.join(table, formats, text_kind)
    old, new = runs.record_counts(table), runs.record_counts(joined)
    changes = [("unparsed_lines", new.unparsed_lines - old.unparsed_lines),
               ("invalid_timestamps", new.invalid_timestamps - old.invalid_timestamps),
               ("epoch_clock_records", new.epoch_records - old.epoch_records)]
    if pending is not None:
        return joined.slice(1), joined.slice(0, 1), changes
    return joined, None, changes


class Stitcher:
    """Merges the results of a file's chunks, in order, into its records: each result's
    records are handed on but the last, which is held (``FileState.pending``) because the next
    chunk may continue it; the facts of the records go to ``on_facts`` (and to the file's
    entry when it is stored), the accounting to the ``FileState``."""

    def __init__(self, schema: pa.Schema, formats: Callable[[], FormatSet],
                 on_facts: Callable[[pa.Table], None] | None, reduced: bool) -> None:
        self._schema = schema
        self._formats = formats  # asked for only when a chunk's lead records are joined
        self._on_facts = on_facts
        self._reduced = reduced  # the workers hand on facts: those made here are added

    def merge(self, state: FileState, cleaned: Cleaned) -> Iterator[pa.RecordBatch]:
        """The records of one more chunk of the file that are complete now."""
        result = cleaned.result
        if cleaned.records_file is not None:
            result.records = handoff.take(cleaned.records_file)
        shift = state.lines_before if cleaned.relative_lines else 0
        self._account(state, cleaned, shift)
        restore_constants(result, state.ctx, self._schema)
        if shift:
            shift_lines(result, shift)
        found = cleaned.context
        if found is not None:
            state.context = state.context or Stitched()
            state.context.add(found, shift)
        start = state.lines_before + 1  # the chunk's first line in the file
        state.lines_before += result.lines
        self._continued(state, result, found, start)
        records = result.records
        if result.lead:
            joins = state.pending is not None
            records = self._join_lead(state, records, result.lead)
            if joins and found is not None:
                _grown(state, found, start)
        if records.num_rows == 0:
            state.pending_trailing_blank += result.trailing_blank
            return
        out = [records.slice(0, records.num_rows - 1)]
        if state.pending is not None:
            out.insert(0, state.pending)
        state.pending = records.slice(records.num_rows - 1)
        state.pending_trailing_blank = result.trailing_blank
        table = pa.concat_tables(out)
        self.count(state, table)
        yield from self.emit(state, table)
        if state.context is not None:
            state.context.keep(_first_line(state.pending))

    def flush(self, state: FileState) -> Iterator[pa.RecordBatch]:
        """The record held at the file's end."""
        if state.pending is not None:
            self.count(state, state.pending)
            yield from self.emit(state, state.pending)
            state.pending = None

    def emit(self, state: FileState, table: pa.Table) -> Iterator[pa.RecordBatch]:
        """Hand on finished records (kept for the file's entry when it is stored)."""
        if state.context is not None:
            table = state.context.attach(table)
        if state.saving is not None:
            state.kept.append(table)
        yield from nonempty_batches(table)

    def facts(self, state: FileState, facts: pa.Table) -> None:
        if self._on_facts is not None:
            self._on_facts(facts)
        if state.saving is not None:
            state.facts.append(facts)

    @staticmethod
    def count(state: FileState, table: pa.Table) -> None:
        state.add("records", table.num_rows)
        state.add("record_lines", int(pa.compute.sum(table.column("line_count")).as_py() or 0))

    def _account(self, state: FileState, cleaned: Cleaned, shift: int) -> None:
        """A chunk's problems, cut lines, facts and dropped records into the file's books."""
        result = cleaned.result
        if cleaned.problem:
            state.problems.append(cleaned.problem)
        if cleaned.cut_lines:
            state.cut(cleaned.first_cut + shift, cleaned.cut_bytes)
            state.add("cut_lines", cleaned.cut_lines - 1)
        if cleaned.facts is not None:
            facts = cleaned.facts
            if shift:  # numbered like its records
                facts = plus(facts, ("first_line", "last_line"), shift)
            self.facts(state, facts)
        if cleaned.dropped_records:
            state.add("records", cleaned.dropped_records)
            state.add("record_lines", cleaned.dropped_lines)
        for key, value in (("lines", result.lines), ("blank_lines", result.blank_lines),
                           ("unparsed_lines", result.unparsed_lines),
                           ("record_lines", -result.shared_lines),
                           ("truncated_lines", result.truncated_lines),
                           ("invalid_timestamps", result.invalid_timestamps),
                           ("epoch_clock_records", result.epoch_records),
                           ("nul_bytes", cleaned.nul_bytes),
                           ("control_bytes", cleaned.control_bytes),
                           ("decode_errors", cleaned.decode_errors)):
            state.add(key, value)

    def _continued(self, state: FileState, result: ChunkResult, found: ChunkContext | None,
                   start: int) -> None:
        """The continuation lines that start the chunk (``result.head``) appended to the
        record held from the chunk before, or made a record of their own."""
        head = result.head
        if head is not None and state.pending is not None:
            between = state.pending_trailing_blank + head.lead_blank
            state.pending = extend(state.pending, head, between, self._schema)
            if found is not None:
                _grown(state, found, start)
            state.add("blank_lines", -between)
            if state.pending.column("fmt")[0].as_py() in ("unparsed", "text"):
                state.add("unparsed_lines", head.lines + between)
            state.pending_trailing_blank = 0
        elif head is not None:  # continuation lines with nothing before them in the file
            state.pending = orphan(state.ctx, head, self._schema)
            if found is not None:
                state.context.put(head.first_line, found.head_before,
                                  found.after(_end_line(state.pending) - start))
            if self._reduced:
                self.facts(state, as_whole(facts_of(state.pending), True))
            state.add("unparsed_lines", head.lines)
            state.pending_trailing_blank = 0

    def _join_lead(self, state: FileState, records: pa.Table, lead: int) -> pa.Table:
        """The records of a chunk with its first ``lead`` joined to the record before the
        chunk where they continue it (a block cut by the chunk boundary, ``parse.blocks``),
        and to each other. The worker left their facts out: those of the records they make
        are added here; the file's accounting follows the join."""
        joined, pending, changes = join_lead(state.pending, records.slice(0, lead),
                                             self._formats(), state.ctx.kind in TEXT_KINDS)
        for key, value in changes:
            state.add(key, value)
        state.pending = pending
        if self._reduced and joined.num_rows:
            self.facts(state, as_whole(facts_of(joined), True))
        return pa.concat_tables([joined, records.slice(lead)])


def _grown(state: FileState, found: ChunkContext, start: int) -> None:
    """The pending record went on into the chunk that starts at line ``start`` of the file
    (``found`` its context): the lines after it are those after its new end."""
    assert state.context is not None and state.pending is not None
    state.context.grown(_first_line(state.pending), found.after(_end_line(state.pending) - start))


def _end_line(table: pa.Table) -> int:
    """The line after the last line of a one-record table (the pending record)."""
    return table.column("line")[0].as_py() + (table.column("line_count")[0].as_py() or 1)


def _first_line(table: pa.Table | None) -> int | None:
    """The first line of a one-record table (the pending record), if there is one."""
    return table.column("line")[0].as_py() if table is not None else None


def nonempty_batches(table: pa.Table) -> Iterator[pa.RecordBatch]:
    """The non-empty record batches of ``table``."""
    for batch in table.to_batches():
        if batch.num_rows:
            yield batch


def reduced_batches(batch: pa.RecordBatch, reducer: Reducer | None,
                    on_facts: Callable[[pa.Table], None] | None) -> Iterator[pa.RecordBatch]:
    """A ready-made batch (an event table's) reduced as the workers reduce a parsed chunk:
    with a reducer, the facts of all its rows to ``on_facts`` and only the kept rows handed
    on; else the batch as it is."""
    if reducer is None:
        yield batch
        return
    table = pa.Table.from_batches([batch])
    mask = reducer.keep(table)
    if on_facts is not None:
        on_facts(as_whole(facts_of(table), bool(mask.all())))
    yield from nonempty_batches(table.filter(pa.array(mask)))
