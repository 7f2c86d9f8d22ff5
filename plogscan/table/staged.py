"""The rows of an event table staged before their identity is known, and the table made from
them (``EventWriter(staged=True)``).

A record's process may announce its rank after thousands of records, so the rows cannot be
final when they are parsed. They are staged as they come in an Arrow IPC stream beside the
target (lz4 frames: writing is little more than a copy, reading back needs no decoding, a
dictionary may change from batch to batch; about a quarter of the logs' size on disk). Once
every record is read, ``staged_groups`` reads them back row group by row group through the
annotation (``crossrank.rows``: identity and aligned time) and ``write_final`` writes the
Parquet table from them, encoding row groups on as many threads as the run has workers while
the next is read and annotated (``splice``). Memory: a row group per thread, and one more.
"""

from __future__ import annotations

import contextlib
import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pyarrow as pa

from plogscan.schema import STORED_TABLE_SCHEMA
from plogscan.table.splice import Splicer

GROUP_ROWS = 262144  # rows of a row group of the final table
# Row groups encoded at once at most, whatever the workers: each holds one in memory (about
# 25 MiB of Arrow columns), and the reading and annotating feeds about two encoders.
MAX_ENCODERS = 4
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


def write_final(staged: str, final: str, annotate: Annotate | None,
                footer: dict[bytes, str], open_writer: Callable[[Any], Any],
                threads: int = 1) -> None:
    """The Parquet table at ``final`` (``open_writer``'s), from the rows staged at
    ``staged``, annotated, with ``footer`` in its key-value metadata. Row groups are encoded
    on ``threads`` threads while the next is read and annotated, each into a file of its own
    in memory, and spliced into ``final`` in order (``splice``): the same bytes as one
    writer's, on more than one core."""
    threads = min(max(threads, 1), MAX_ENCODERS)
    try:
        with open(final, "wb") as sink, ThreadPoolExecutor(
                threads, thread_name_prefix="plogscan-write") as pool:
            splicer = Splicer(sink)
            encoding: deque[Future[pa.Buffer]] = deque()
            for table in staged_groups(staged, annotate):
                while len(encoding) >= threads:
                    splicer.add(encoding.popleft().result())
                encoding.append(pool.submit(_encoded, open_writer, table))
            while encoding:
                splicer.add(encoding.popleft().result())
            splicer.close(_encoded(open_writer, None, footer))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(final)
        raise


def _encoded(open_writer: Callable[[Any], Any], table: pa.Table | None,
             footer: dict[bytes, str] | None = None) -> pa.Buffer:
    """``table`` as a Parquet file in memory (without rows, with ``footer``: the footer
    the spliced file takes)."""
    sink = pa.BufferOutputStream()
    writer = open_writer(sink)
    try:
        if table is not None:
            writer.write_table(table, row_group_size=GROUP_ROWS)
        if footer is not None:
            writer.add_key_value_metadata(footer)
    finally:
        writer.close()
    return sink.getvalue()
