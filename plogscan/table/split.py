"""The event table a run writes (``ingest -o``, ``diagnose --events-out``) in two parts: most
of it as the logs are read, the identity at the end.

Only a few columns wait for the end of the input: those the identity sets
(``crossrank.rows``: ``host``, ``rank``, ``device``, the ``record_`` ones, ``phy_device``,
``host_ip``, ``attempt``, ``communicator``, ``identity_source`` and ``ts_aligned``). The
others (the messages above all) are final when they are parsed. So each row group's other
columns are encoded into Parquet at once, on the writer's thread while the workers parse,
and kept in a staging file beside the target; the columns the annotation reads and sets go
to a small spool beside it (an Arrow IPC stream, lz4). Once every record is read, each row
group's identity is set from the spool and encoded, on as many threads as the run has
workers, and both parts are spliced into one row group of the table (``splice``): the
records are neither spooled in full nor read back. The table holds the rows, values and
types of the records read back through the full spool (``staged``, which ``events`` and
``sql`` over logs take; ``tests/table/test_split.py``): the annotation sets no other column.
"""

from __future__ import annotations

import contextlib
import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, BinaryIO

import pyarrow as pa

from plogscan.schema import IDENTITY_FIELDS, RECORD_COLUMNS, STORED_TABLE_SCHEMA
from plogscan.table.splice import Splicer
from plogscan.table.staged import Annotate

# The columns the annotation sets, and the other ones it reads
IDENTITY_COLUMNS = frozenset([*RECORD_COLUMNS, *(f.name for f in IDENTITY_FIELDS), "ts_aligned"])
READ_COLUMNS = frozenset(["path", "line", "pid", "ts"])


def _schema(names: Callable[[str], bool]) -> pa.Schema:
    return pa.schema([f for f in STORED_TABLE_SCHEMA if names(f.name)])


BULK_SCHEMA = _schema(lambda name: name not in IDENTITY_COLUMNS)
KEY_SCHEMA = _schema(lambda name: name in IDENTITY_COLUMNS or name in READ_COLUMNS)
IDENTITY_SCHEMA = _schema(lambda name: name in IDENTITY_COLUMNS)
# Row groups whose identity is encoded at once at most, whatever the workers: each holds its
# identity columns in memory, and one thread annotates for them all.
MAX_ENCODERS = 4
OpenWriter = Callable[[Any, pa.Schema], Any]


class SplitStage:
    """The two parts of the table's row groups, staged at ``path`` (the encoded columns,
    back to back) and ``path + '.keys'`` (the spool); ``finish`` writes the table."""

    def __init__(self, path: str, open_writer: OpenWriter) -> None:
        self._open_writer = open_writer
        self._keys_path = path + ".keys"
        # (bytes, rows) of each row group: as much as the table's footer holds of it
        self._parts: list[tuple[int, int]] = []
        self._bulk: BinaryIO = open(path, "wb")  # noqa: SIM115 (closed by ``close``)
        self.path = path
        try:
            self._keys_sink = pa.OSFile(self._keys_path, "wb")
            self._keys = pa.ipc.new_stream(self._keys_sink, KEY_SCHEMA,
                                           options=pa.ipc.IpcWriteOptions(compression="lz4"))
        except BaseException:
            self.discard()
            raise

    def write(self, batches: Sequence[pa.RecordBatch]) -> None:
        """One row group: its final columns encoded, the annotation's ones spooled."""
        table = pa.Table.from_batches(batches, schema=STORED_TABLE_SCHEMA).unify_dictionaries()
        data = encoded(self._open_writer, table.select(BULK_SCHEMA.names), BULK_SCHEMA)
        self._bulk.write(data)
        self._parts.append((data.size, table.num_rows))
        self._keys.write_table(table.select(KEY_SCHEMA.names))

    def close(self) -> None:
        """Every row group written: the staging files closed (kept for ``finish``)."""
        try:
            self._keys.close()
        finally:
            self._keys_sink.close()
            self._bulk.close()

    def discard(self) -> None:
        """Close and remove the spool (the staging file is the caller's)."""
        with contextlib.suppress(pa.ArrowException, OSError):
            self.close()
        with contextlib.suppress(OSError):
            os.unlink(self._keys_path)

    def finish(self, final: str, annotate: Annotate | None, footer: dict[bytes, str],
               threads: int = 1) -> None:
        """The Parquet table at ``final``: each row group's identity set by ``annotate`` (on
        this thread, in order), encoded on ``threads`` threads and spliced with the rest of
        its columns; ``footer`` in its key-value metadata."""
        threads = min(max(threads, 1), MAX_ENCODERS)
        try:
            with open(final, "wb") as sink, open(self.path, "rb") as bulk, ThreadPoolExecutor(
                    threads, thread_name_prefix="plogscan-write") as pool:
                splicer = Splicer(sink)
                encoding: deque[tuple[int, Future[pa.Buffer]]] = deque()
                for size, keys in self._keys_by_part():
                    while len(encoding) >= threads:
                        _spliced(splicer, bulk, *encoding.popleft())
                    identity = annotate(keys) if annotate is not None else keys
                    encoding.append((size, pool.submit(
                        encoded, self._open_writer,
                        identity.select(IDENTITY_SCHEMA.names), IDENTITY_SCHEMA)))
                while encoding:
                    _spliced(splicer, bulk, *encoding.popleft())
                splicer.close(encoded(self._open_writer, None, STORED_TABLE_SCHEMA, footer))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(final)
            raise
        finally:
            self.discard()

    def _keys_by_part(self) -> Iterator[tuple[int, pa.Table]]:
        """(encoded bytes, spooled keys) of each row group, in order."""
        with pa.OSFile(self._keys_path, "rb") as source:
            batches = iter(pa.ipc.open_stream(source))
            for size, rows in self._parts:
                taken: list[pa.RecordBatch] = []
                count = 0
                while count < rows:
                    batch = next(batches)
                    taken.append(batch)
                    count += batch.num_rows
                yield size, pa.Table.from_batches(taken, schema=KEY_SCHEMA)


def _spliced(splicer: Splicer, bulk: BinaryIO, size: int, identity: Future[pa.Buffer]
             ) -> None:
    splicer.add_columns([bulk.read(size), identity.result()], STORED_TABLE_SCHEMA.names)


def encoded(open_writer: OpenWriter, table: pa.Table | None, schema: pa.Schema,
            footer: dict[bytes, str] | None = None) -> pa.Buffer:
    """``table`` as a Parquet file of one row group in memory (without rows, with
    ``footer``: the footer a spliced file takes)."""
    sink = pa.BufferOutputStream()
    writer = open_writer(sink, schema)
    try:
        if table is not None:
            writer.write_table(table, row_group_size=max(table.num_rows, 1))
        if footer is not None:
            writer.add_key_value_metadata(footer)
    finally:
        writer.close()
    return sink.getvalue()
