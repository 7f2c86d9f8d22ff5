"""Candidate records of a sequence rule, kept as Arrow and thinned before the state machine.

A sequence rule's first step is often a line written on every step of a job (HCCL's
"Already have context, skip create"), so its candidates can be hundreds of thousands of
records. Turning each into a Python ``Row`` and feeding it to ``correlate._Group`` one by one
cost seconds. Here the candidates stay Arrow tables with a bit mask of the roles they fill;
at the end they are sorted per group in the state machine's order and runs of records that
cannot change its outcome are dropped, vectorized:

* a region is a run of records of one group each of which fills only the first step or
  only one context step (nothing else between them): the state machine does nothing there
  but replace its partial match by the latest start, and close windows (which the region's
  last record closes at least as far as any before it);
* so of a region only its last first-step record can start a match, and only the last
  ``limit`` records of each context step before that record, or before the region's end,
  can be among the ``limit`` latest before a start.

The few records left become ``Row`` values and go through ``correlate.sequence`` as before,
so the findings are the same. Only rules whose ``by`` keys are all event-table columns are
kept this way (a key taken from a capture needs every record's captures).

Memory stays small however many candidates there are: past ``SPILL_ROWS`` the records go to
a private temporary Arrow file, and memory keeps only what the thinning needs (time, path,
line, group key and role bits: some 40 bytes a record); past ``THIN_ROWS`` those go to disk
too, split by group (``groupbuckets``), and the thinning reads back one part at a time. The
records left are read back from the file at the end.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pyarrow as pa

from plogscan.engine.arrowrows import as_rows, group_numbers, machine_order
from plogscan.engine.correlate import Row
from plogscan.engine.groupbuckets import GroupBuckets
from plogscan.engine.rule import Condition, Rule, Sequence
from plogscan.schema import COLUMNS

SPILL_ROWS = 100_000  # candidates kept in memory before they go to a temporary file
THIN_ROWS = 500_000  # candidates whose thin columns stay in memory (some 20 MB)


def _compact(column: pa.ChunkedArray) -> pa.Array:
    """Text as dictionary codes (few distinct paths and hosts), other columns as they are."""
    column = column.combine_chunks()
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        return column.dictionary_encode()
    return column


def _read_kept(path: str, keep: np.ndarray) -> list[pa.RecordBatch]:
    """The rows ``keep`` (ascending) of the spilled candidates, read one stored batch at a
    time: a memory map taking rows spread over the file left every page it touched resident
    (770 MB of a 10 GiB input's candidates)."""
    parts = []
    with pa.OSFile(path) as source:
        reader = pa.ipc.open_file(source)
        start = 0
        for index in range(reader.num_record_batches):
            batch = reader.get_batch(index)
            end = start + batch.num_rows
            lo, hi = np.searchsorted(keep, (start, end))
            if hi > lo:
                parts.append(batch.take(pa.array(keep[lo:hi] - start)))
            start = end
    return parts


def _thinned(group: np.ndarray, bits: np.ndarray, ok: np.ndarray, first_bit: int,
             context_limits: dict[int, int]) -> np.ndarray:
    """Which records (in group and state-machine order) to keep; see the module text."""
    n = len(group)
    inert = ok & ((bits == first_bit) if first_bit else np.zeros(n, bool))
    for role_bit in context_limits:
        inert |= ok & (bits == role_bit)
    starts = np.ones(n, bool)
    starts[1:] = (group[1:] != group[:-1]) | ~inert[1:] | ~inert[:-1]
    region = np.cumsum(starts) - 1
    keep = ~inert
    last_first = np.full(region[-1] + 1 if n else 0, -1, np.int64)
    if first_bit:
        firsts = np.flatnonzero(inert & (bits == first_bit))
        np.maximum.at(last_first, region[firsts], firsts)
        keep[last_first[last_first >= 0]] = True
    for role_bit, limit in context_limits.items():
        rows = np.flatnonzero(inert & (bits == role_bit))
        if not len(rows):
            continue
        keep[rows[_last_per_region(region[rows], limit)]] = True
        before = rows[rows < last_first[region[rows]]]
        if len(before):
            keep[before[_last_per_region(region[before], limit)]] = True
    return keep


def _last_per_region(region: np.ndarray, limit: int) -> np.ndarray:
    """Of sorted items labelled by region, a mask of the last ``limit`` of each region."""
    n = len(region)
    ends = np.flatnonzero(np.append(region[1:] != region[:-1], True))
    end_of = ends[np.searchsorted(ends, np.arange(n))]
    return end_of - np.arange(n) < limit


def eligible(rule: Rule) -> bool:
    """A sequence rule whose group keys are all columns of the event table."""
    body = rule.body
    return isinstance(body, Sequence) and all(name in COLUMNS for name in body.by)


class SequenceStore:
    """Candidates of one sequence rule: Arrow rows and their role bits."""

    def __init__(self, rule: Rule, roles: list[tuple[str, Condition]]) -> None:
        body = rule.body
        assert isinstance(body, Sequence)
        self.body = body
        self.roles = roles
        self.bit = {role: 1 << i for i, (role, _) in enumerate(roles)}
        positive = body.positive
        # What can be thinned: records that fill only the first step (when it is not also the
        # last), and records that fill only one context step (with its limit).
        self.first_bit = self.bit[positive[0].id] if len(positive) >= 2 else 0
        self.context_limits: dict[int, int] = {
            self.bit[ctx.id]: max(1, ctx.limit) for ctx in body.context
            if ctx.id in self.bit and ctx.id != positive[0].id}
        self.thin = bool(self.first_bit or self.context_limits)
        self.tables: list[pa.Table] = []
        self.bits: list[np.ndarray] = []
        self.rows_in_memory = 0
        # Past SPILL_ROWS: the records in a temporary file, their thin columns here.
        self._spill: tuple[str, pa.ipc.RecordBatchFileWriter] | None = None
        self._thin: list[pa.Table] = []
        self._thin_rows = 0
        self._schema: pa.Schema | None = None
        # Past THIN_ROWS: the thin columns on disk as well, by group.
        self._buckets: GroupBuckets | None = None
        self._arrived = 0  # candidates so far: the next one's arrival number

    def add(self, sub: pa.RecordBatch, masks: dict[str, np.ndarray], idx: np.ndarray) -> None:
        bits = np.zeros(len(idx), np.int64)
        for role, mask in masks.items():
            bits |= mask[idx].astype(np.int64) * self.bit[role]
        if self._spill is None and self.rows_in_memory + sub.num_rows > SPILL_ROWS:
            self._start_spill(sub.schema)
        first = self._arrived
        self._arrived += sub.num_rows
        if self._spill is None:
            self.tables.append(pa.Table.from_batches([sub]))
            self.rows_in_memory += sub.num_rows
            self.bits.append(bits)
            return
        self._spill[1].write_batch(sub)
        thin = self._thin_of(pa.Table.from_batches([sub]))
        if self._buckets is None and self._thin_rows + thin.num_rows > THIN_ROWS:
            self._buckets = GroupBuckets(self.body.by)
            if self._thin:
                held = pa.concat_tables(self._thin)
                self._buckets.add(held, np.arange(held.num_rows), np.concatenate(self.bits))
            self._thin, self.bits, self._thin_rows = [], [], 0
        if self._buckets is not None:
            self._buckets.add(thin, np.arange(first, first + thin.num_rows), bits)
        else:
            self._thin.append(thin)
            self._thin_rows += thin.num_rows
            self.bits.append(bits)

    def _start_spill(self, schema: pa.Schema) -> None:
        handle, path = tempfile.mkstemp(prefix="plogscan-candidates-", suffix=".arrow")
        os.close(handle)  # mkstemp made it 0600: it holds log text
        writer = pa.ipc.new_file(path, schema)
        self._schema = schema
        self._spill = (path, writer)
        for table in self.tables:
            for batch in table.to_batches():
                writer.write_batch(batch)
            self._thin.append(self._thin_of(table))
            self._thin_rows += table.num_rows
        self.tables = []
        self.rows_in_memory = 0

    def _thin_of(self, table: pa.Table) -> pa.Table:
        names = list(dict.fromkeys(("ts", "path", "line", *self.body.by)))
        return pa.table({name: _compact(table.column(name)) for name in names})

    def rows(self) -> list[Row]:
        """The records that can matter, as ``Row`` values in arrival order."""
        if not self.tables and self._spill is None:
            return []
        if self._spill is None:
            bits = np.concatenate(self.bits)
            self.bits = []
            table = pa.concat_tables(self.tables)
            self.tables = []
            keep = self._kept(table, bits)
            return self._as_rows(table.take(pa.array(keep)), bits[keep])
        path, writer = self._spill
        self._spill = None
        try:
            writer.close()
            keep, bits = self._kept_spilled()
            table = pa.Table.from_batches(_read_kept(path, keep), schema=self._schema)
            table = pa.Table.from_batches(table.combine_chunks().to_batches(),
                                          schema=self._schema)
        finally:
            os.unlink(path)
        return self._as_rows(table, bits)

    def _kept_spilled(self) -> tuple[np.ndarray, np.ndarray]:
        """Arrival numbers (ascending) and role bits of the spilled records to keep."""
        if self._buckets is None:
            bits = np.concatenate(self.bits)
            thin = pa.concat_tables(self._thin)
            self._thin, self.bits = [], []
            keep = self._kept(thin, bits)
            return keep, bits[keep]
        buckets, self._buckets = self._buckets, None
        rows, bits = [], []
        for part in buckets.parts():  # each group lies in one part
            part_bits = part.column("bits").to_numpy()
            keep = self._kept(part, part_bits)
            rows.append(part.column("row").to_numpy()[keep])
            bits.append(part_bits[keep])
        kept, kept_bits = np.concatenate(rows), np.concatenate(bits)
        order = np.argsort(kept, kind="stable")
        return kept[order], kept_bits[order]

    def __del__(self) -> None:
        if self._buckets is not None:  # a scan that stopped early
            self._buckets.discard()
        if self._spill is not None:
            try:
                self._spill[1].close()
            finally:
                os.unlink(self._spill[0])

    def _kept(self, table: pa.Table, bits: np.ndarray) -> np.ndarray:
        n = table.num_rows
        if not self.thin or n < 2:
            return np.arange(n)
        # The state machine's order: (ts, path, line), records without a time last; ties in
        # arrival order.
        rank, timed = machine_order(table)
        group, grouped = group_numbers(table, self.body.by)
        usable = grouped & timed
        # Records without a group or a time take no part in matching: always kept.
        sorted_rows = np.lexsort((rank, group))
        g, b, ok = group[sorted_rows], bits[sorted_rows], usable[sorted_rows]
        keep = _thinned(g, b, ok, self.first_bit, self.context_limits)
        kept = sorted_rows[keep]
        kept.sort()  # arrival order
        return kept

    def _as_rows(self, table: pa.Table, bits: np.ndarray) -> list[Row]:
        return as_rows(table, self.roles,
                       {role: (bits & self.bit[role]) != 0 for role, _ in self.roles})
