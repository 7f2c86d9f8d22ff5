"""Stitching the results of chunks back into a file's records: the per-file columns a worker
left out put back, a chunk's line numbers shifted to where it starts in the file, and the
continuation lines that start a chunk appended to the record pending from the chunk before
(or, when no record precedes them, made a record of their own).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute

from plogscan.ingest.chunks import CONSTANT_COLUMNS
from plogscan.parse import blocks
from plogscan.parse.codescan import extract_codes
from plogscan.parse.columns import constant_column
from plogscan.parse.lineformats import FormatSet
from plogscan.parse.results import ChunkResult, FileContext, Head
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
    old, new = blocks.record_counts(table), blocks.record_counts(joined)
    changes = [("unparsed_lines", new.unparsed_lines - old.unparsed_lines),
               ("invalid_timestamps", new.invalid_timestamps - old.invalid_timestamps),
               ("epoch_clock_records", new.epoch_records - old.epoch_records)]
    if pending is not None:
        return joined.slice(1), joined.slice(0, 1), changes
    return joined, None, changes
