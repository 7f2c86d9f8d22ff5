"""Event batches from any input: Parquet tables written by ``ingest``, or raw logs.

``events`` and ``diagnose`` accept both, so a tree is parsed once and queried many times.
Parquet is read batch by batch, so memory stays bounded. ``pyarrow.parquet`` is imported
where a table is opened or written: a ``diagnose`` of log files needs neither, and the import
costs some 10 ms of every start.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from plogscan.errors import InputError
from plogscan.ingest.limits import Limits
from plogscan.ingest.pipeline import Ingest
from plogscan.ingest.walk import Lister
from plogscan.model import FileStats, IngestSummary, LimitHit, SkippedFile
from plogscan.outputs.atomic import Replacement
from plogscan.schema import (
    EVENT_SCHEMA,
    RECORD_COLUMNS,
    STORED_TABLE_SCHEMA,
    TABLE_SCHEMA,
    as_recorded,
    table_decoded,
    table_encoded,
)
from plogscan.table.dataset import is_dataset, read_dataset, stored_dataset_inputs
from plogscan.table.split import SplitStage
from plogscan.table.staged import Annotate, Stage, staged_groups

if TYPE_CHECKING:
    import pyarrow.parquet as pq

PARQUET_BATCH_ROWS = 65536
PARQUET_WRITE_ROWS = 262144
WRITE_BATCH_ROWS = 16384  # rows the Parquet writer encodes at a time (its default 1024 costs more)
# Columns with few distinct values per row group: dictionary pages make them small and cheap
# to write (thread, process and source-line numbers repeat as much as the names do).
LOW_CARDINALITY = ["level", "module", "proc", "src_file", "kind", "path", "host", "fmt",
                   "pid", "tid", "src_line", "rank", "device", "phy_device", "host_ip",
                   "attempt", "communicator", "identity_source"]
STATISTICS = ["ts", "pid", "rank", "device", "line", "attempt"]
DELTA_ENCODED = {"ts": "DELTA_BINARY_PACKED", "line": "DELTA_BINARY_PACKED"}


def is_parquet(path: str) -> bool:
    try:
        return path.endswith(".parquet") and Path(path).is_file()
    except OSError:  # not to be looked at: the walk reports why
        return False


def is_table(path: str) -> bool:
    """An event table at rest: a ``.parquet`` file or a dataset directory from ``ingest``."""
    return is_parquet(path) or is_dataset(path)


def open_event_table(path: str) -> pq.ParquetFile:
    """An event table file, opened; refuses files that are not plogscan event tables."""
    import pyarrow.parquet as pq

    try:
        handle = pq.ParquetFile(path)
    except (OSError, pa.ArrowInvalid) as err:
        raise InputError(f"cannot read Parquet file {path}: {err}") from err
    missing = [name for name in EVENT_SCHEMA.names if name not in handle.schema_arrow.names
               and name not in LATER_COLUMNS]
    if missing:
        raise InputError(f"{path} is not a plogscan event table (missing columns: "
                         f"{', '.join(missing)})",
                         help="write one with: plogscan ingest LOGS -o events.parquet")
    return handle


# Columns added after the first event tables were written, and how to fill them in older ones
# (the identity columns of ``TABLE_SCHEMA`` read as null from a table without them).
LATER_COLUMNS = {"ts_aligned": "ts"}


def read_parquet(handle: pq.ParquetFile, *, identity: bool = False
                 ) -> Iterator[pa.RecordBatch]:
    """Batches of an opened event table, in the event schema's types; with ``identity`` in
    the table's (``TABLE_SCHEMA``: the identity columns too, null in an older table)."""
    have = set(handle.schema_arrow.names)
    wanted = TABLE_SCHEMA.names if identity else [*EVENT_SCHEMA.names, *RECORD_COLUMNS.values()]
    names = [n for n in wanted if n in have]
    for batch in handle.iter_batches(batch_size=PARQUET_BATCH_ROWS, columns=names):
        for name, source in LATER_COLUMNS.items():
            if name not in have:
                batch = batch.append_column(name, batch.column(source))
        yield table_decoded(batch) if identity else as_recorded(batch)


INPUTS_KEY = b"plogscan.inputs"  # Parquet footer key: the per-file accounting, as JSON
CLOCK_KEY = b"plogscan.clock"  # footer key: host -> clock offset (µs) used for ts_aligned


def inputs_json(summary: IngestSummary) -> str:
    """The per-file accounting of an ingest run, for the Parquet footer (deterministic)."""
    return json.dumps({"files": [dataclasses.asdict(f) for f in summary.files],
                       "skipped": [dataclasses.asdict(s) for s in summary.skipped],
                       "limits": [dataclasses.asdict(h) for h in summary.limits],
                       "errors": [dataclasses.asdict(e) for e in summary.errors]},
                      sort_keys=True, separators=(",", ":"))


def stored_inputs(handle: pq.ParquetFile
                  ) -> tuple[list[FileStats], list[SkippedFile], list[LimitHit],
                             list[SkippedFile]]:
    """The accounting ``ingest`` stored in an event table (none for tables without it)."""
    try:
        metadata = handle.metadata.metadata or {}
        document = json.loads(metadata.get(INPUTS_KEY, b"{}"))
        files = [FileStats(**{**f, "problems": tuple(f.get("problems", ()))})
                 for f in document.get("files", [])]
        skipped = [SkippedFile(**s) for s in document.get("skipped", [])]
        limits = [LimitHit(**h) for h in document.get("limits", [])]
        errors = [SkippedFile(**e) for e in document.get("errors", [])]
    except (OSError, pa.ArrowInvalid, ValueError, TypeError, AttributeError):
        return [], [], [], []  # unreadable or foreign accounting: the table's rows still count
    return files, skipped, limits, errors


def event_batches(paths: Sequence[str], ingest: Ingest, listing: Lister | None = None
                  ) -> Iterator[pa.RecordBatch]:
    """Parquet inputs first (in the order given), then every other input through ``ingest``
    (the walk of ``listing``, when one was made already: ``named_inputs``).

    The accounting stored in each table joins ``ingest``'s own, so reports on a table show the
    files it was made from, as reports on the logs would. The rows of a table are reduced as
    the workers reduce parsed chunks (``Ingest.hand_on``)."""
    tables = [p for p in paths if is_table(p)]
    logs = [p for p in paths if not is_table(p)]
    for path in tables:
        if is_dataset(path):
            ingest.absorb(*stored_dataset_inputs(path))
            batches = read_dataset(path)
        else:
            handle = open_event_table(path)
            ingest.absorb(*stored_inputs(handle))
            batches = read_parquet(handle)
        for batch in batches:
            yield from ingest.hand_on(batch)
    if logs:
        yield from ingest.batches(listing if listing is not None else logs)
    ingest.record_inputs(paths)


def named_inputs(paths: Sequence[str], limits: Limits | None = None) -> Lister:
    """The walk of ``paths``, event tables named among them taken as tables."""
    return Lister(paths, limits, is_table)


class EventWriter:
    """Write batches to a Parquet file in row groups of a useful size.

    The file has STORED_TABLE_SCHEMA: the text columns with few values are dictionary-encoded,
    in Arrow as in Parquet. Batches from ``Ingest(encoded=True)`` arrive encoded; others are
    encoded here. Within a row group the dictionaries of its batches are unified first, so
    the Parquet writer writes indices as they are instead of hashing every value.
    ``read_parquet`` gives EVENT_SCHEMA (or TABLE_SCHEMA) back.

    ``staged``: the rows are staged and ``close`` writes the table, each row group with its
    identity (``table.split``: most columns encoded as they come, the identity's at the end,
    ``threads`` row groups at once). ``spool``: the rows are spooled (``table.staged``) and
    ``spooled`` hands them back. A target that is no regular file (``/dev/stdout``) cannot
    be staged beside: its rows are written as they come, without identity."""

    def __init__(self, path: str, *, staged: bool = False, spool: bool = False,
                 threads: int = 1) -> None:
        self.path = path
        self._threads = threads
        # The table is written under a temporary name and renamed into place by a successful
        # ``close``: an interrupted or failed run leaves no partial table behind.
        self._file = Replacement(path)
        self.staged = (staged or spool) and not self._file.direct
        try:
            self._writer: Any = (
                (Stage(self._file.temp) if spool else
                 SplitStage(self._file.temp, _parquet_writer)) if self.staged
                else _parquet_writer(self._file.temp))
        except BaseException:
            self._file.discard()
            raise
        self._pending: list[pa.RecordBatch] = []
        self._rows = 0
        self._failed = False  # a write failed: the file is unusable, nothing more goes in
        # Row groups are encoded and written by a thread of their own (Arrow's writer runs
        # without the GIL), while the caller goes on with the next batches. At most one row
        # group is in writing at a time, so at most two are in memory.
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="plogscan-write")
        self._writing: Future[None] | None = None

    def write(self, batch: pa.RecordBatch) -> None:
        self._pending.append(table_encoded(batch))
        self._rows += batch.num_rows
        if self._rows >= PARQUET_WRITE_ROWS:
            self._flush()

    def _flush(self) -> None:
        pending, self._pending, self._rows = self._pending, [], 0
        self._wait()
        if pending and not self._failed:
            self._writing = self._thread.submit(self._write_group, pending)

    def _write_group(self, pending: list[pa.RecordBatch]) -> None:
        if self.staged:
            self._writer.write(pending)
            return
        table = pa.Table.from_batches(pending, schema=STORED_TABLE_SCHEMA)
        self._writer.write_table(table.unify_dictionaries(), row_group_size=PARQUET_WRITE_ROWS)

    def _wait(self) -> None:
        """Wait for the row group in writing; its error, if any, is raised here."""
        writing, self._writing = self._writing, None
        if writing is not None:
            try:
                writing.result()
            except BaseException:
                self._failed = True
                raise

    def close(self, inputs: IngestSummary | None = None, *, annotate: Annotate | None = None,
              offsets: dict[str, int] | None = None) -> None:
        """Finish the table: ``inputs`` (the run's accounting) goes into the footer and the
        file takes its name. Without ``inputs`` the run did not complete: nothing is kept.

        A staged table is written through ``annotate`` (``crossrank.rows``:
        each row's identity and aligned time); ``offsets`` (host -> µs, the clock offsets
        applied) go into the footer. After a failed write only the file is closed and
        removed, quietly: the failure was raised already, and a second error about the same
        file would hide it."""
        try:
            self._finish_writing(inputs is not None)
        except BaseException:
            self._close_quietly()
            if inputs is None:  # the run failed already: its error is the one to see
                return
            raise
        if self._failed or inputs is None:
            self._close_quietly()
            return
        try:
            footer = {INPUTS_KEY: inputs_json(inputs)}
            if offsets:
                footer[CLOCK_KEY] = json.dumps(dict(sorted(offsets.items())),
                                               separators=(",", ":"))
            if not self.staged:
                self._writer.add_key_value_metadata(footer)
            self._writer.close()
            if self.staged:
                final = self._file.temp + ".final"
                self._writer.finish(final, annotate, footer, self._threads)
                os.replace(final, self._file.temp)
            self._file.commit()
        except BaseException:
            self._close_quietly()
            raise

    def spooled(self) -> str:
        """Close a spool (``spool``) whose rows were all written: its file's name, for
        ``spooled_batches``; ``discard`` removes it."""
        self._finish_writing(True)
        self._writer.close()
        return self._file.temp

    def discard(self) -> None:
        """Stop and remove what was written (a spool when it was read, a failed run)."""
        with contextlib.suppress(Exception):
            self._finish_writing(False)
        self._close_quietly()

    def _finish_writing(self, complete: bool) -> None:
        """Write what is pending (for a complete run) and wait for the writing thread."""
        try:
            if complete and not self._failed:
                self._flush()
            self._wait()
        finally:
            self._thread.shutdown(wait=True)

    def _close_quietly(self) -> None:
        with contextlib.suppress(pa.ArrowException, OSError):
            self._writer.close()
        if isinstance(self._writer, SplitStage):
            self._writer.discard()
        self._file.discard()


def _parquet_writer(path: Any, schema: pa.Schema = STORED_TABLE_SCHEMA) -> pq.ParquetWriter:
    """The event table's Parquet writer (of ``schema``: the table's columns or some of them).

    Statistics only where a reader can skip row groups by them (time, process, rank and line
    ranges): min/max of every message would cost more than the rest of the write.
    Timestamps and line numbers rise steadily, so delta encoding suits them."""
    import pyarrow.parquet as pq

    names = set(schema.names)
    return pq.ParquetWriter(path, schema, compression="zstd",
                            use_dictionary=[n for n in LOW_CARDINALITY if n in names],
                            write_statistics=[n for n in STATISTICS if n in names],
                            column_encoding={n: e for n, e in DELTA_ENCODED.items() if n in names},
                            write_batch_size=WRITE_BATCH_ROWS)


def spooled_batches(path: str, annotate: Annotate | None) -> Iterator[pa.RecordBatch]:
    """A spool's records in TABLE_SCHEMA, each row group annotated."""
    for table in staged_groups(path, annotate):
        for batch in table.to_batches(max_chunksize=PARQUET_BATCH_ROWS):
            yield table_decoded(batch)
