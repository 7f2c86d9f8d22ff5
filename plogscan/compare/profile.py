"""One run folded per process: which templates, codes, levels and modules each process logged,
how often, and where first.

``ProfileBuilder`` reads the run's event table batch by batch. Per batch, Arrow computes the
templates (``templates``), the process of every record (``processes.StreamMap``) and one
group-by per kind that keeps, per (process, value), the record count and the first record
(earliest aligned time, then path and line; records without a time come last). The per-batch
tables are folded again as they pile up, so what is held is one row per (process, value)
pair: no record is ever held as a Python object.

Memory is bounded as the unexplained-error list bounds it: at most ``MAX_VALUES`` values of a
kind (the earliest seen) and ``MAX_PAIRS`` (process, value) pairs are kept; the records of the
values pushed out are counted (``Profile.dropped_*``) and not compared.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.analysis.unexplained import MAX_TEMPLATES
from plogscan.compare.processes import StreamMap
from plogscan.compare.templates import template_column

KINDS = ("template", "code", "level", "module")
MAX_VALUES = MAX_TEMPLATES
MAX_PAIRS = 2_000_000
FOLD_ROWS = 262_144  # per-batch rows of a kind waiting before they are folded together
FIRST = [("ts", "ascending"), ("path", "ascending"), ("line", "ascending")]


@dataclass(frozen=True)
class Profile:
    """Per kind, one row per (process, value): ``process`` (int32), ``value``, ``count``,
    and the first record's ``ts`` (µs, aligned), ``path`` and ``line``."""

    tables: dict[str, pa.Table]
    records: int
    unattributed: int
    dropped_templates: int
    dropped_records: int


def fold(table: pa.Table) -> pa.Table:
    """One row per (process, value): counts summed, the first record kept."""
    order = pc.sort_indices(table, sort_keys=FIRST)
    grouped = table.take(order).group_by(["process", "value"], use_threads=False).aggregate([
        ("count", "sum"), ("ts", "first"), ("path", "first"), ("line", "first")])
    return pa.table({
        "process": grouped.column("process"), "value": grouped.column("value"),
        "count": grouped.column("count_sum"), "ts": grouped.column("ts_first"),
        "path": grouped.column("path_first"), "line": grouped.column("line_first")})


class ProfileBuilder:
    """Consumes a run's event batches; ``result()`` returns its ``Profile``."""

    def __init__(self, streams: StreamMap, hosts: str | None = None,
                 max_values: int = MAX_VALUES, max_pairs: int = MAX_PAIRS) -> None:
        self._streams = streams
        self._hosts = hosts
        self.max_values = max_values
        self.max_pairs = max_pairs
        self._parts: dict[str, list[pa.Table]] = {kind: [] for kind in KINDS}
        self._waiting: dict[str, int] = dict.fromkeys(KINDS, 0)
        self.records = 0
        self.unattributed = 0
        self.dropped_templates = 0
        self.dropped_records = 0

    def consume(self, batch: pa.RecordBatch) -> None:
        process = self._streams.column(batch)
        known = process >= 0
        self.unattributed += int(len(known) - known.sum())
        if not known.any():
            return
        if not known.all():
            batch = batch.filter(pa.array(known))
            process = process[known]
        rows = batch.num_rows
        self.records += rows
        column = batch.schema.names.index
        base = {
            "process": pa.array(process), "ts": pc.cast(batch.column(column("ts_aligned")),
                                                        pa.int64()),
            "path": _plain(batch.column(column("path"))), "line": batch.column(column("line")),
            "count": pa.array(np.ones(rows, np.int64)),
        }
        codes = batch.column(column("codes"))
        self._add("template", pa.table({**base, "value": _plain(template_column(
            batch.column(column("message")), codes, self._hosts))}))
        for kind in ("level", "module"):
            self._add(kind, pa.table({**base, "value": _plain(batch.column(column(kind)))}))
        parents = pc.list_parent_indices(codes)
        if len(parents):
            table = pa.table(base).take(parents)
            self._add("code", table.append_column("value", pc.list_flatten(codes)))

    def _add(self, kind: str, table: pa.Table) -> None:
        table = table.filter(pc.is_valid(table.column("value")))
        if table.num_rows == 0:
            return
        folded = fold(table)
        self._parts[kind].append(folded)
        self._waiting[kind] += folded.num_rows
        if self._waiting[kind] >= FOLD_ROWS:
            self._fold(kind)

    def _fold(self, kind: str) -> pa.Table:
        parts = self._parts[kind]
        table = (fold(pa.concat_tables(parts)) if len(parts) > 1 else parts[0]) if parts \
            else _empty()
        table = self._capped(kind, table)
        self._parts[kind] = [table]
        self._waiting[kind] = 0
        return table

    def _capped(self, kind: str, table: pa.Table) -> pa.Table:
        """At most ``max_values`` values and ``max_pairs`` rows: the values first seen
        earliest are kept."""
        values = pc.count_distinct(table.column("value")).as_py()
        if values <= self.max_values and table.num_rows <= self.max_pairs:
            return table
        first = table.take(pc.sort_indices(table, sort_keys=FIRST))
        by_value = first.group_by("value", use_threads=False).aggregate([
            ("process", "count"), ("ts", "first"), ("path", "first"), ("line", "first")])
        by_value = by_value.take(pc.sort_indices(by_value, sort_keys=[
            ("ts_first", "ascending"), ("path_first", "ascending"), ("line_first", "ascending"),
            ("value", "ascending")]))
        pairs = np.cumsum(by_value.column("process_count").to_numpy())
        keep = min(self.max_values, int(np.searchsorted(pairs, self.max_pairs, "right")))
        kept = by_value.column("value").slice(0, keep)
        inside = pc.is_in(table.column("value"), value_set=kept)
        if kind == "template":
            dropped = table.filter(pc.invert(inside))
            self.dropped_templates += by_value.num_rows - keep
            self.dropped_records += pc.sum(dropped.column("count")).as_py() or 0
        return table.filter(inside)

    def result(self) -> Profile:
        tables = {kind: self._fold(kind) for kind in KINDS}
        return Profile(tables, self.records, self.unattributed, self.dropped_templates,
                       self.dropped_records)


def _plain(column: pa.Array) -> pa.Array:
    """Text as plain strings (an event table's text columns may be dictionary-encoded)."""
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    return column.cast(pa.string()) if pa.types.is_large_string(column.type) else column


def _empty() -> pa.Table:
    return pa.table({"process": pa.array([], pa.int32()), "value": pa.array([], pa.string()),
                     "count": pa.array([], pa.int64()), "ts": pa.array([], pa.int64()),
                     "path": pa.array([], pa.string()), "line": pa.array([], pa.int64())})
