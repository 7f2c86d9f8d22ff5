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
from plogscan.schema.facts import FACT_KEYS, FACTS_SCHEMA, FILE_KEYS
from plogscan.schema.grouping import grouped


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
    keys = [*FACT_KEYS, *extra_keys]
    table = pa.table({**{name: records.column(name) for name in keys},
                      **{name: plain_text(records.column(name))
                         for name in ("rank", "device", "ts", "line")},
                      "epoch": pc.cast(pc.fill_null(records.column("clock_epoch"), False),
                                       pa.int64())})
    groups = grouped(table, keys, [
        ([], "count_all"), ("rank", "min"), ("device", "min"), ("ts", "min"), ("ts", "max"),
        ("line", "min"), ("line", "max"), ("epoch", "sum")], encoded=FILE_KEYS)
    facts = pa.table({
        **{name: groups.column(name).cast(FACTS_SCHEMA.field(name).type) for name in FACT_KEYS},
        "records": groups.column("count_all").cast(pa.int64()),
        "rank": groups.column("rank_min").cast(pa.int64()),
        "device": groups.column("device_min").cast(pa.int64()),
        "first_ts": groups.column("ts_min"), "last_ts": groups.column("ts_max"),
        "first_line": groups.column("line_min").cast(pa.int64()),
        "last_line": groups.column("line_max").cast(pa.int64()),
        "epoch_records": groups.column("epoch_sum").cast(pa.int64()),
        "whole": pa.repeat(pa.scalar(False), groups.num_rows),
    }, schema=FACTS_SCHEMA)
    for name in extra_keys:
        facts = facts.append_column(name, groups.column(name))
    return in_line_order(facts)


def in_line_order(facts: pa.Table) -> pa.Table:
    """``facts`` in the order their first records come: by first line, then (records glued
    on one line) by pid, level and module. Arrow's grouping hands its groups out in an order
    of its own (within a block of rows, not as they first come), so the order is set here,
    the same however the facts were counted (a chunk parsed whole, or skimmed)."""
    keys = [("first_line", "ascending"), ("pid", "ascending"), ("level", "ascending"),
            ("module", "ascending")]
    return facts.take(pc.sort_indices(facts, sort_keys=keys))


def merged_facts(parts: Iterable[pa.Table], extra_keys: tuple[str, ...] = ()) -> pa.Table:
    """Facts of several tables joined into the facts of their union, each key where it first
    comes in ``parts`` (the summaries that keep the first processes to come read them in
    that order); ``extra_keys`` are columns of every part grouped by too, and kept."""
    parts = [p for p in parts if p.num_rows]
    if not parts:
        return FACTS_SCHEMA.empty_table()
    if len(parts) == 1:
        return parts[0]
    groups = grouped(pa.concat_tables(parts), [*FACT_KEYS, *extra_keys], [
        ("records", "sum"), ("rank", "min"), ("device", "min"), ("first_ts", "min"),
        ("last_ts", "max"), ("first_line", "min"), ("last_line", "max"),
        ("epoch_records", "sum")], encoded=FILE_KEYS, in_order=True)
    facts = pa.table({
        **{name: groups.column(name) for name in FACT_KEYS},
        "records": groups.column("records_sum"), "rank": groups.column("rank_min"),
        "device": groups.column("device_min"), "first_ts": groups.column("first_ts_min"),
        "last_ts": groups.column("last_ts_max"),
        "first_line": groups.column("first_line_min"),
        "last_line": groups.column("last_line_max"),
        "epoch_records": groups.column("epoch_records_sum"),
        "whole": pa.repeat(pa.scalar(False), groups.num_rows),
    }, schema=FACTS_SCHEMA)
    for name in extra_keys:
        facts = facts.append_column(name, groups.column(name))
    return facts


def as_whole(facts: pa.Table, whole: bool) -> pa.Table:
    """``facts`` with their ``whole`` flag set."""
    if not whole or facts.num_rows == 0:
        return facts
    index = facts.schema.get_field_index("whole")
    return facts.set_column(index, facts.schema.field(index),
                            pa.repeat(pa.scalar(True), facts.num_rows))


def reduced(records: pa.Table, reducer: Reducer, lead: int = 0) -> tuple[pa.Table, int, int]:
    """The records ``reducer`` keeps, always with the last one (it may continue in the next
    chunk) and the first ``lead`` (they may continue the one before the chunk), and how many
    records and record lines were dropped."""
    n = records.num_rows
    if n == 0:
        return records, 0, 0
    mask = np.asarray(reducer.keep(records), dtype=bool)
    mask[-1] = True
    mask[:lead] = True
    if mask.all():
        return records, 0, 0
    dropped = ~mask
    counts = records.column("line_count").to_numpy()
    dropped_lines = int(counts[dropped].sum())
    return records.filter(pa.array(mask)), int(dropped.sum()), dropped_lines
