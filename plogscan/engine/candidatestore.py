"""Candidate records of one rule, kept as Arrow in bounded memory until the few that matter
are known.

A sequence or threshold rule can match hundreds of thousands of records (a line written on
every step of a job, an error storm), and what it concludes depends on all of them, in time
order, whatever order the files come in. So the candidates stay Arrow tables with a bit mask
of the roles they fill, and at the end a subclass's ``_kept`` decides, vectorized, which of
them can matter (``seqstore``: the records that can change a sequence's state machine;
``thresholdstore``: the first records of each group's densest window). Only those become
``Row`` values.

Memory stays small however many candidates there are: past ``SPILL_ROWS`` records (or
``SPILL_BYTES`` of them: records carry their context lines) the records go to
a private temporary Arrow file, and memory keeps only what ``_kept`` needs (time, path, line,
group key and role bits: some 40 bytes a record); past ``THIN_ROWS`` those go to disk too,
split by group (``groupbuckets``), and ``_kept`` reads back one part at a time. The records
kept are read back from the file at the end.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pyarrow as pa

from plogscan.catalog.rule import Condition, Sequence, Threshold
from plogscan.engine.arrowrows import as_rows
from plogscan.engine.correlate import Row
from plogscan.engine.groupbuckets import GroupBuckets

SPILL_ROWS = 100_000  # candidates kept in memory before they go to a temporary file
SPILL_BYTES = 32 << 20  # or this many bytes of them, whichever comes first
# The spilled records are mostly context lines, which compress five-fold or more at about
# the speed they are written: a dense input's candidates would otherwise take more disk
# than the input.
SPILL_OPTIONS = pa.ipc.IpcWriteOptions(compression="lz4")
THIN_ROWS = 500_000  # candidates whose thin columns stay in memory (some 20 MB)


def _compact(column: pa.ChunkedArray) -> pa.Array:
    """Text as dictionary codes (few distinct paths and hosts), other columns as they are."""
    column = column.combine_chunks()
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        return column.dictionary_encode()
    return column


def read_kept(path: str, keep: np.ndarray, sizes: list[int]) -> list[pa.RecordBatch]:
    """The rows ``keep`` (ascending) of the spilled candidates, read one stored batch at a
    time: a memory map taking rows spread over the file left every page it touched resident
    (770 MB of a 10 GiB input's candidates). ``sizes`` are the stored batches' row counts."""
    parts = []
    with pa.OSFile(path) as source:
        reader = pa.ipc.open_file(source)
        start = 0
        for index, rows in enumerate(sizes):
            end = start + rows
            lo, hi = np.searchsorted(keep, (start, end))
            if hi > lo:  # a stored batch none of whose rows are kept is not read
                parts.append(reader.get_batch(index).take(pa.array(keep[lo:hi] - start)))
            start = end
    return parts


class CandidateStore:
    """Candidates of one rule (its ``body``): Arrow rows and their role bits, grouped by the
    body's ``by`` keys when they go to disk. Subclasses say which records to keep (``_kept``)."""

    def __init__(self, body: Sequence | Threshold, roles: list[tuple[str, Condition]]
                 ) -> None:
        self.body = body
        self.by = tuple(body.by)
        self.roles = roles
        self.bit = {role: 1 << i for i, (role, _) in enumerate(roles)}
        self.tables: list[pa.Table] = []
        self.bits: list[np.ndarray] = []
        self.rows_in_memory = 0
        self.bytes_in_memory = 0
        # Past SPILL_ROWS: the records in a temporary file, their thin columns here.
        self._spill: tuple[str, pa.ipc.RecordBatchFileWriter] | None = None
        self._stored: list[int] = []  # the row count of each batch in that file
        self._thin: list[pa.Table] = []
        self._thin_rows = 0
        self._schema: pa.Schema | None = None
        # Past THIN_ROWS: the thin columns on disk as well, by group.
        self._buckets: GroupBuckets | None = None
        self._arrived = 0  # candidates so far: the next one's arrival number

    def _kept(self, table: pa.Table, bits: np.ndarray, arrivals: np.ndarray) -> np.ndarray:
        """Which rows of ``table`` (thin columns at least; ``arrivals`` their arrival numbers)
        to keep, ascending. Every group's records are in one call."""
        raise NotImplementedError

    def _keyed(self, sub: pa.RecordBatch) -> pa.RecordBatch:
        """The candidates with any ``by`` key that is not a column added as one."""
        return sub

    def add(self, sub: pa.RecordBatch, masks: dict[str, np.ndarray], idx: np.ndarray) -> None:
        sub = self._keyed(sub)
        bits = np.zeros(len(idx), np.int64)
        for role, mask in masks.items():
            bits |= mask[idx].astype(np.int64) * self.bit[role]
        size = sub.nbytes
        if self._spill is None and (self.rows_in_memory + sub.num_rows > SPILL_ROWS
                                    or self.bytes_in_memory + size > SPILL_BYTES):
            self._start_spill(sub.schema)
        first = self._arrived
        self._arrived += sub.num_rows
        if self._spill is None:
            self.tables.append(pa.Table.from_batches([sub]))
            self.rows_in_memory += sub.num_rows
            self.bytes_in_memory += size
            self.bits.append(bits)
            return
        self._write(sub)
        thin = self._thin_of(pa.Table.from_batches([sub]))
        if self._buckets is None and self._thin_rows + thin.num_rows > THIN_ROWS:
            self._buckets = GroupBuckets(self.by)
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
        writer = pa.ipc.new_file(path, schema, options=SPILL_OPTIONS)
        self._schema = schema
        self._spill = (path, writer)
        for table in self.tables:
            for batch in table.to_batches():
                self._write(batch)
            self._thin.append(self._thin_of(table))
            self._thin_rows += table.num_rows
        self.tables = []
        self.rows_in_memory = 0
        self.bytes_in_memory = 0

    def _write(self, batch: pa.RecordBatch) -> None:
        assert self._spill is not None
        self._spill[1].write_batch(batch)
        self._stored.append(batch.num_rows)

    def _thin_of(self, table: pa.Table) -> pa.Table:
        names = list(dict.fromkeys(("ts", "path", "line", *self.by)))
        return pa.table({name: _compact(table.column(name)) for name in names})

    def rows(self) -> list[Row]:
        """The records kept, as ``Row`` values in arrival order."""
        if not self.tables and self._spill is None:
            return []
        if self._spill is None:
            bits = np.concatenate(self.bits)
            self.bits = []
            table = pa.concat_tables(self.tables)
            self.tables = []
            keep = self._kept(table, bits, np.arange(table.num_rows))
            return self._as_rows(table.take(pa.array(keep)), bits[keep])
        path, writer = self._spill
        self._spill = None
        try:
            writer.close()
            keep, bits = self._kept_spilled()
            table = pa.Table.from_batches(read_kept(path, keep, self._stored), schema=self._schema)
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
            keep = self._kept(thin, bits, np.arange(thin.num_rows))
            return keep, bits[keep]
        buckets, self._buckets = self._buckets, None
        rows, bits = [], []
        for part in buckets.parts():  # each group lies in one part
            part_bits = part.column("bits").to_numpy()
            arrivals = part.column("row").to_numpy()
            keep = self._kept(part, part_bits, arrivals)
            rows.append(arrivals[keep])
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

    def _as_rows(self, table: pa.Table, bits: np.ndarray) -> list[Row]:
        return as_rows(table, self.roles,
                       {role: (bits & self.bit[role]) != 0 for role, _ in self.roles})
