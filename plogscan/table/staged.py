"""The rows of an event table spooled before their identity is known, and read back with it
(``EventWriter(spool=True)``: ``events``, ``sql`` and ``ingest --dataset`` over logs).

A record's process may announce its rank after thousands of records, so the rows cannot be
final when they are parsed. They are staged as they come in an Arrow IPC stream beside the
target (lz4 frames: writing is little more than a copy, reading back needs no decoding, a
dictionary may change from batch to batch; about a quarter of the logs' size on disk). Once
every record is read, ``staged_groups`` reads them back row group by row group through the
annotation (``crossrank.rows``: identity and aligned time). Memory: one row group. (A table
written to a file is staged in two parts instead: ``split``.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import pyarrow as pa

from plogscan.schema import STORED_TABLE_SCHEMA

GROUP_ROWS = 262144  # rows of a table read back (about a row group of the final table)
# A table of the event table's columns with each row's identity and aligned time set
# (``plogscan.crossrank.rows``), as the staged rows are finished.
Annotate = Callable[[pa.Table], pa.Table]


class Stage:
    """An IPC stream of STORED_TABLE_SCHEMA batches at ``path`` (which exists)."""

    def __init__(self, path: str) -> None:
        self._sink = pa.OSFile(path, "wb")
        try:
            self._writer = pa.ipc.new_stream(
                self._sink, STORED_TABLE_SCHEMA,
                options=pa.ipc.IpcWriteOptions(compression="lz4"))
        except BaseException:
            self._sink.close()
            raise

    def write(self, batches: Sequence[pa.RecordBatch]) -> None:
        for batch in batches:
            self._writer.write_batch(batch)

    def close(self) -> None:
        try:
            self._writer.close()
        finally:
            self._sink.close()


def staged_groups(path: str, annotate: Annotate | None, rows: int = GROUP_ROWS
                  ) -> Iterator[pa.Table]:
    """The staged rows in tables of about ``rows`` rows, annotated, their dictionaries
    unified."""
    with pa.OSFile(path, "rb") as source:  # read, not mapped: the pages are not kept
        pending: list[pa.RecordBatch] = []
        count = 0
        for batch in pa.ipc.open_stream(source):
            pending.append(batch)
            count += batch.num_rows
            if count >= rows:
                yield _finished(pending, annotate)
                pending, count = [], 0
        if pending:
            yield _finished(pending, annotate)


def _finished(batches: list[pa.RecordBatch], annotate: Annotate | None) -> pa.Table:
    table = pa.Table.from_batches(batches, schema=STORED_TABLE_SCHEMA)
    table = table.unify_dictionaries()
    return annotate(table) if annotate is not None else table
