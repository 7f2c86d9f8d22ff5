"""Runs of records joined into one record each, and the accounting a record table stands for.

``blocks`` decides which records continue the one before them; ``merged`` builds the joined
table: messages joined by newlines, line counts summed, each field that of the run's first
record that has it, the codes of all, the first format that parsed a line. Everything runs on
whole record tables with Arrow and numpy: no Python loop per record.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.parse.arrays import column_of, isin_values, mask, numbers
from plogscan.schema import plain_text

NO_FORMAT = ("text", "unparsed")  # the fmt of a record no format parsed
SPLICE_RUNS = 256  # up to this many runs, the table is spliced; past it, taken anew


def merged(records: pa.Table, joined: np.ndarray) -> pa.Table:
    """``records`` with each record where ``joined`` is true appended to the record before it
    (which must end on the line before it starts): one record per run. Only the runs of
    several records are built anew (``_joined_runs``); the records between them are spliced
    in as they are (a copy of the table in one pass), or taken anew when runs are many."""
    if not joined.any():
        return records
    n = records.num_rows
    firsts = np.flatnonzero(~joined)
    group = np.cumsum(~joined) - 1
    sizes = np.bincount(group)
    several = sizes > 1
    members = np.flatnonzero(several[group])
    parts = _joined_runs(records.take(pa.array(members)), joined[members])
    starts, ends = firsts[several], firsts[several] + sizes[several]
    if len(starts) <= SPLICE_RUNS:
        pieces, at = [], 0
        for k, (first, end) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True)):
            pieces += [records.slice(at, first - at), parts.slice(k, 1)]
            at = end
        pieces.append(records.slice(at, n - at))
        return pa.concat_tables(pieces).combine_chunks()
    source = firsts.copy()
    source[several] = n + np.arange(len(starts))
    index = pa.array(source)
    return pa.table([pa.concat_arrays([column_of(records, name), column_of(parts, name)])
                     .take(index) for name in records.column_names], schema=records.schema)


def _joined_runs(records: pa.Table, joined: np.ndarray) -> pa.Table:
    """One record per run of ``records`` (each record where ``joined`` is true continues the
    one before it): messages joined by newlines, line counts summed, each field that of the
    run's first record that has it, the codes of all, the first format that parsed a line."""
    n = records.num_rows
    firsts = np.flatnonzero(~joined)
    group = np.cumsum(~joined) - 1
    index = np.arange(n)
    ts_row = _first_valid(column_of(records, "ts"), firsts, index)
    columns = []
    for name in records.column_names:
        column = column_of(records, name)
        if name == "message":
            offsets = pa.array(np.append(firsts, n).astype(np.int64))
            column = pc.binary_join(pa.LargeListArray.from_arrays(offsets, column),
                                    pa.scalar("\n", column.type))
        elif name == "codes":
            column = _joined_codes(column, group, len(firsts))
        elif name == "line_count":
            column = pa.array(np.add.reduceat(numbers(records, name), firsts), column.type)
        elif name in ("truncated", "ts_invalid"):
            flags = np.maximum.reduceat(mask(column).astype(np.int8), firsts) > 0
            if name == "ts_invalid":  # a time of the record's own was read: it is valid
                flags &= ~mask(column_of(records, "ts").is_valid())[ts_row]
            column = pa.array(flags, column.type)
        elif name in ("ts", "clock_epoch", "ts_aligned"):
            column = column.take(pa.array(ts_row))
        elif name == "fmt":
            parsed = ~isin_values(plain_text(column), list(NO_FORMAT))
            column = column.take(pa.array(_first_true(parsed, firsts, index)))
        elif name in ("line", "kind", "path", "host"):
            column = column.take(pa.array(firsts))
        else:
            column = column.take(pa.array(_first_valid(column, firsts, index)))
        columns.append(column)
    return pa.table(columns, schema=records.schema)


@dataclass(frozen=True)
class RecordCounts:
    """What a chunk's accounting counts from its records."""

    unparsed_lines: int  # lines of records no format parsed
    invalid_timestamps: int
    epoch_records: int


def record_counts(records: pa.Table) -> RecordCounts:
    """The accounting ``records`` stand for (after any join)."""
    if records.num_rows == 0:
        return RecordCounts(0, 0, 0)
    unparsed = isin_values(plain_text(column_of(records, "fmt")), list(NO_FORMAT))
    return RecordCounts(int(numbers(records, "line_count")[unparsed].sum()),
                        int(mask(column_of(records, "ts_invalid")).sum()),
                        int(mask(column_of(records, "clock_epoch")).sum()))


def _first_valid(column: pa.Array, firsts: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Per run (starting at ``firsts``): its first row where ``column`` is not null, else its
    first row."""
    return _first_true(mask(column.is_valid()), firsts, index)


def _first_true(flags: np.ndarray, firsts: np.ndarray, index: np.ndarray) -> np.ndarray:
    n = len(flags)
    at = np.minimum.reduceat(np.where(flags, index, n), firsts)
    return np.where(at < n, at, firsts)


def _joined_codes(codes: pa.Array, group: np.ndarray, groups: int) -> pa.Array:
    """Each run's codes: those of its records, in order, each once."""
    flat = pc.list_flatten(codes)
    if len(flat) == 0:
        return pa.ListArray.from_arrays(pa.array(np.zeros(groups + 1, np.int32)),
                                        pa.array([], codes.type.value_type)).cast(codes.type)
    owner = group[pc.list_parent_indices(codes).to_numpy(zero_copy_only=False)]
    table = pa.table({"g": owner, "code": flat, "at": np.arange(len(flat))})
    first = table.group_by(["g", "code"], use_threads=False).aggregate([("at", "min")])
    keep = np.sort(first.column("at_min").to_numpy())
    counts = np.bincount(owner[keep], minlength=groups)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), flat.take(pa.array(keep))).cast(
        codes.type)
