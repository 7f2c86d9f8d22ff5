"""Per-process facts of every record, and the reducer hand-off that lets workers drop rows.

``diagnose`` does not need every record in the main process: the rules look at few of them,
and what the rest tells (which levels, modules and kinds each process wrote, its rank,
device and time span) fits in a small table. A worker that parses a chunk computes that table
(``facts_of``, one row per distinct (host, pid, level, module, kind, path) with counts and
ranges)
over all its records, then keeps only the records a ``Reducer`` asks for. The facts are what
the engine's ``requires`` checks, the per-process overview and (later) the cross-rank summary
are computed from; the line accounting of the dropped records is added to the file's
``FileStats`` as if they had been handed on, so every line stays accounted for.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.schema import plain_text

FACT_KEYS = ("host", "pid", "level", "module", "kind", "path")
FACTS_SCHEMA = pa.schema([
    pa.field("host", pa.string()), pa.field("pid", pa.int64()), pa.field("level", pa.string()),
    pa.field("module", pa.string()), pa.field("kind", pa.string()), pa.field("path", pa.string()),
    pa.field("records", pa.int64()), pa.field("rank", pa.int64()),
    pa.field("device", pa.int64()), pa.field("first_ts", pa.timestamp("us")),
    pa.field("last_ts", pa.timestamp("us")), pa.field("first_line", pa.int64()),
    pa.field("last_line", pa.int64()), pa.field("epoch_records", pa.int64()),
    # True when every record these facts summarize was handed on too (a later stage may
    # count them from the records instead)
    pa.field("whole", pa.bool_()),
])


class Reducer(Protocol):
    """Which records of a parsed chunk to hand on (a boolean mask over its rows).

    It runs in the parse workers (threads, processes or a cluster's workers), so it must be
    picklable and must not keep state between chunks."""

    def keep(self, records: pa.Table) -> np.ndarray: ...


def facts_of(records: pa.Table, extra_keys: tuple[str, ...] = ()) -> pa.Table:
    """One row per distinct (host, pid, level, module, kind, path) of ``records``: how many
    records, the smallest rank and device, the first and last timestamp and line, the records
    with a 1970 clock (FACTS_SCHEMA, plus
    ``extra_keys`` columns of ``records`` grouped by too), in line order (``in_line_order``)."""
    if records.num_rows == 0:
        return FACTS_SCHEMA.empty_table()
    table = pa.table({**{name: plain_text(records.column(name))
                         for name in (*FACT_KEYS, *extra_keys, "rank", "device", "ts", "line")},
                      "epoch": pc.cast(pc.fill_null(records.column("clock_epoch"), False),
                                       pa.int64())})
    grouped = table.group_by([*FACT_KEYS, *extra_keys], use_threads=False).aggregate([
        ([], "count_all"), ("rank", "min"), ("device", "min"), ("ts", "min"), ("ts", "max"),
        ("line", "min"), ("line", "max"), ("epoch", "sum")])
    facts = pa.table({
        **{name: grouped.column(name).cast(FACTS_SCHEMA.field(name).type) for name in FACT_KEYS},
        "records": grouped.column("count_all").cast(pa.int64()),
        "rank": grouped.column("rank_min").cast(pa.int64()),
        "device": grouped.column("device_min").cast(pa.int64()),
        "first_ts": grouped.column("ts_min"), "last_ts": grouped.column("ts_max"),
        "first_line": grouped.column("line_min").cast(pa.int64()),
        "last_line": grouped.column("line_max").cast(pa.int64()),
        "epoch_records": grouped.column("epoch_sum").cast(pa.int64()),
        "whole": pa.repeat(pa.scalar(False), grouped.num_rows),
    }, schema=FACTS_SCHEMA)
    for name in extra_keys:
        facts = facts.append_column(name, grouped.column(name))
    return in_line_order(facts)


def in_line_order(facts: pa.Table) -> pa.Table:
    """``facts`` in the order their first records come: by first line, then (records glued
    on one line) by pid, level and module. Arrow's grouping hands its groups out in an order
    of its own (within a block of rows, not as they first come), so the order is set here,
    the same however the facts were counted (a chunk parsed whole, or skimmed)."""
    keys = [("first_line", "ascending"), ("pid", "ascending"), ("level", "ascending"),
            ("module", "ascending")]
    return facts.take(pc.sort_indices(facts, sort_keys=keys))


def merged_facts(parts: Iterable[pa.Table]) -> pa.Table:
    """Facts of several tables joined into the facts of their union, in the order Arrow's
    grouping gives (keys of earlier parts mostly first, but not always as they first come:
    ``in_line_order`` sets an order where one is needed)."""
    parts = [p for p in parts if p.num_rows]
    if not parts:
        return FACTS_SCHEMA.empty_table()
    if len(parts) == 1:
        return parts[0]
    table = pa.concat_tables(parts)
    grouped = table.group_by(list(FACT_KEYS), use_threads=False).aggregate([
        ("records", "sum"), ("rank", "min"), ("device", "min"), ("first_ts", "min"),
        ("last_ts", "max"), ("first_line", "min"), ("last_line", "max"),
        ("epoch_records", "sum")])
    return pa.table({
        **{name: grouped.column(name) for name in FACT_KEYS},
        "records": grouped.column("records_sum"), "rank": grouped.column("rank_min"),
        "device": grouped.column("device_min"), "first_ts": grouped.column("first_ts_min"),
        "last_ts": grouped.column("last_ts_max"),
        "first_line": grouped.column("first_line_min"),
        "last_line": grouped.column("last_line_max"),
        "epoch_records": grouped.column("epoch_records_sum"),
        "whole": pa.repeat(pa.scalar(False), grouped.num_rows),
    }, schema=FACTS_SCHEMA)


def as_whole(facts: pa.Table, whole: bool) -> pa.Table:
    """``facts`` with their ``whole`` flag set."""
    if not whole or facts.num_rows == 0:
        return facts
    index = facts.schema.get_field_index("whole")
    return facts.set_column(index, facts.schema.field(index),
                            pa.repeat(pa.scalar(True), facts.num_rows))


def reduced(records: pa.Table, reducer: Reducer) -> tuple[pa.Table, int, int]:
    """The records ``reducer`` keeps, always with the last one (it may continue in the next
    chunk), and how many records and record lines were dropped."""
    n = records.num_rows
    if n == 0:
        return records, 0, 0
    mask = np.asarray(reducer.keep(records), dtype=bool)
    mask[-1] = True
    if mask.all():
        return records, 0, 0
    dropped = ~mask
    counts = records.column("line_count").to_numpy()
    dropped_lines = int(counts[dropped].sum())
    return records.filter(pa.array(mask)), int(dropped.sum()), dropped_lines
