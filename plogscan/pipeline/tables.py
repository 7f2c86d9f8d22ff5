"""The event table as a user reads it: every record with its process's identity.

Who a record's process is (rank, device, host, attempt…) is known only once every record of
the input has been seen: a process may announce its rank after thousands of records. So the
records are staged as they are parsed (``table.staged``: beside the target, or in a spool in
the temporary directory) while the cross-rank summary is gathered; then the identities are
resolved (``crossrank.analyze.Context``) and the staged rows are read back row group by row
group with their identity columns joined on (``crossrank.rows``):

* ``write_table``: ``ingest -o`` (the final Parquet file, zstd, takes its name at the end);
* ``write_dataset``: ``ingest --dataset`` (partitioned by the real host and rank);
* ``table_batches``: ``events``, ``sql`` and ``plogscan.read_events`` over logs; tables
  written by ``ingest`` are read as they are (they hold the identity already).

Memory stays bounded: one row group at a time, and the per-process summary.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from plogscan.crossrank.analyze import Context, Options
from plogscan.crossrank.gather import Gatherer
from plogscan.ingest.pipeline import Ingest
from plogscan.ingest.walk import Lister
from plogscan.model import IngestSummary
from plogscan.redact.redactor import Redactor
from plogscan.table.dataset import is_dataset, read_dataset, stored_dataset_inputs
from plogscan.table.parquet import (
    EventWriter,
    is_table,
    open_event_table,
    read_parquet,
    spooled_batches,
    stored_inputs,
)

SPOOL_NAME = "records.arrows"  # staged rows (an Arrow IPC stream), under a hidden name
DEFAULT_OPTIONS = Options()


def _written(writer: EventWriter, ingest: Ingest, inputs: Lister | Sequence[str],
             redactor: Redactor | None) -> Gatherer:
    """Every record of ``inputs`` into ``writer`` (redacted when asked), and the cross-rank
    summary of the original records."""
    gatherer = Gatherer()
    for batch in ingest.batches(inputs):
        writer.write(redactor.batch(batch) if redactor is not None else batch)
        gatherer.consume(batch)
    return gatherer


def _finishing(redactor: Redactor | None, ctx: Context) -> tuple[Any, dict[str, int]]:
    """How the staged rows are finished (``Context.annotate``) and the clock offsets
    applied, as a redacted table needs them when it is redacted."""
    annotate, offsets = ctx.annotate, ctx.offset_by_host()
    if redactor is not None:
        from plogscan.redact.values import redacted_annotation

        return redacted_annotation(redactor, annotate, offsets)  # type: ignore[return-value]
    return annotate, offsets


def write_table(inputs: Lister, output: str, ingest: Ingest, options: Options = DEFAULT_OPTIONS,
                redactor: Redactor | None = None, threads: int = 1) -> IngestSummary:
    """``ingest -o``: the records of ``inputs`` as one Parquet event table at ``output``,
    with identities; the run's accounting (redacted with the records) is returned. The
    identities of ``threads`` row groups are encoded at once (``table.split``)."""
    writer = EventWriter(output, staged=True, threads=threads)
    ctx = None
    try:
        gatherer = _written(writer, ingest, inputs, redactor)
        ctx = Context(gatherer.summary(), options)
    finally:
        summary = _accounting(ingest, redactor)
        annotate = offsets = None
        if ctx is not None:
            annotate, offsets = _finishing(redactor, ctx)
        writer.close(summary if ctx is not None else None, annotate=annotate, offsets=offsets)
    return summary


def _accounting(ingest: Ingest, redactor: Redactor | None) -> IngestSummary:
    """The run's accounting, redacted with the records when they are."""
    if redactor is None:
        return ingest.summary
    from plogscan.redact.values import redact_value

    return redact_value(ingest.summary, redactor)


def _staged(path: str, ingest: Ingest, inputs: Lister | Sequence[str],
            redactor: Redactor | None) -> tuple[EventWriter, Gatherer, str]:
    """Every record of ``inputs`` staged at ``path`` (``EventWriter``'s spool): the writer,
    what gathered the per-process facts, and the spool's path; nothing left on failure."""
    writer = EventWriter(path, spool=True)
    try:
        gatherer = _written(writer, ingest, inputs, redactor)
        return writer, gatherer, writer.spooled()
    except BaseException:
        writer.discard()
        raise


def write_dataset(inputs: Lister, directory: Path, overwrite: bool, ingest: Ingest,
                  options: Options = DEFAULT_OPTIONS, redactor: Redactor | None = None
                  ) -> IngestSummary:
    """``ingest --dataset``: the records of ``inputs`` as a hive-partitioned dataset in
    ``directory`` (by host and rank, as resolved), with the accounting beside it."""
    from plogscan.table.dataset import write_dataset as write_parts
    from plogscan.table.dataset import write_inputs
    from plogscan.table.parquet import inputs_json

    directory.mkdir(parents=True, exist_ok=True)
    # Staged inside the target (a hidden name, which no dataset reader lists): same disk.
    writer, gatherer, path = _staged(str(directory / SPOOL_NAME), ingest, inputs, redactor)
    try:
        ctx = Context(gatherer.summary(), options)
        annotate, _ = _finishing(redactor, ctx)
        summary = _accounting(ingest, redactor)
        if summary.files or summary.records:
            write_parts(directory, spooled_batches(path, annotate), overwrite)
            write_inputs(directory, inputs_json(summary))
    finally:
        writer.discard()
    return summary


def table_batches(paths: Sequence[str], ingest: Ingest, listing: Lister | None = None,
                  options: Options = DEFAULT_OPTIONS) -> Iterator[pa.RecordBatch]:
    """Every record of ``paths`` in the table's schema (``TABLE_SCHEMA``), identities
    joined: event tables first, read as they are (in the order given), then the logs
    (the walk of ``listing`` when one was made already), staged in a spool and read back.
    The accounting stored in each table joins ``ingest``'s own."""
    tables = [p for p in paths if is_table(p)]
    logs = [p for p in paths if not is_table(p)]
    for path in tables:
        if is_dataset(path):
            ingest.absorb(*stored_dataset_inputs(path))
            yield from read_dataset(path, identity=True)
        else:
            handle = open_event_table(path)
            ingest.absorb(*stored_inputs(handle))
            yield from read_parquet(handle, identity=True)
    if logs:
        yield from _spooled(ingest, listing if listing is not None else logs, options)
    ingest.record_inputs(paths)


def _spooled(ingest: Ingest, inputs: Lister | Sequence[str], options: Options
             ) -> Iterator[pa.RecordBatch]:
    with tempfile.TemporaryDirectory(prefix="plogscan-spool-") as spool:
        writer, gatherer, path = _staged(str(Path(spool) / SPOOL_NAME), ingest, inputs, None)
        try:
            ctx = Context(gatherer.summary(), options)
            yield from spooled_batches(path, ctx.annotate)
        finally:
            with contextlib.suppress(OSError):
                writer.discard()
