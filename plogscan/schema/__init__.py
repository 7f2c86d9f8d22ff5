"""The event table: one Arrow schema shared by the parser, the Parquet files and the engine.

Every record that plogscan reads from any log file becomes one row of this table. It is the
contract between ``parse`` (which produces it) and ``engine`` (which reads it); nothing else
about the parser leaks downstream.

Columns
-------
ts          Timestamp as written in the log, microsecond precision, no timezone. Null when the
            record has none (continuation-only text, glog-style stdout lines without a year) or when
            the written value is not a real date (``ts_invalid`` is then true).
level       ``DEBUG``, ``INFO``, ``WARNING``, ``ERROR``, ``EVENT``, ``TRACE``, ``OPLOG``,
            ``NULL`` or a numeric level as written. Null for unparsed text.
module      CANN module (``HCCL``, ``RUNTIME``, ``TSCH``...) or a pseudo-module for non-plog shapes
            (``PTA`` for torch_npu lines, ``ERRMGR`` for error-manager blocks, ``PYTHON`` for
            tracebacks).
pid         Process id from the header (may be -1/-2 for firmware records).
proc        Process name from the header (may be empty).
tid         Thread id, when the body carries one in any of the known shapes.
src_file    Source file named in ``[file:line]`` (basename or relative path as written).
src_line    Source line named in ``[file:line]``.
message     The record body after the header and ``[file:line]``/tid prefix; continuation lines
            are joined with ``\\n``, as are the bodies of the records a joined record is made of
            (a table's rows, a traceback's exception line, an error-manager block).
kind        Source kind of the file (see ``SourceKind``).
path        The file as the user named it; archive members are ``archive.tgz!member``.
line        1-based physical line number of the record's first line.
line_count  Number of physical lines the record spans (first to last, interior blanks included).
host        Host or worker name, from the path (``worker-1``, ``node-…``) or content.
rank        Rank id, from content (``[rank3]:``, ``RankID:3``) or the path (``rank_3``).
device      Device id, from content or the path (``device-2``).
codes       Error codes found in the record (``EI0002``, ``507916``, ``ERR00100``, ``0x7150227``…).
fmt         Name of the line format that parsed the first line (``unparsed`` when none did; for
            a record joined from lines that each look like a record, ``parse.blocks``, the
            first format that parsed one of them).
truncated   The record has a physical line of 1022 characters or more: the CANN log library cuts
            records at that length without a marker, so its tail may be missing.
ts_invalid  The line carried a timestamp that is not a real date (month 13, day 32...).
clock_epoch The timestamp is in 1970: a device clock that was not yet synchronised.
ts_aligned  ``ts`` on the reference host's clock: ``ts`` minus the offset the cross-rank stage
            estimated for the record's host (``plogscan.crossrank.clock``), so that records of
            different hosts can be ordered. The parser writes ``ts``; the event table that
            ``ingest`` and ``diagnose --events-out`` write holds the aligned value (the file is
            rewritten at the end of the run when some offset is not zero). Null with ``ts``.

The event table at rest (``TABLE_SCHEMA``: the Parquet file and dataset that ``ingest`` writes,
and what ``events``, ``sql`` and ``plogscan.read_events`` give) has the identity the cross-rank
stage resolves for each record's process (``plogscan.crossrank.rows``): ``host``, ``rank`` and
``device`` hold the process's (the parser's value where the process has none), and these
columns follow:

phy_device       Physical device id the process announced (``phydevId[…]``, ``devPhyId[…]``).
host_ip          Host IP the process announced (``hostIp[…]``, ``server[…]``, ``local address``).
attempt          Which run of the job the record belongs to (1, 2, … in time order): a restarted
                 job or a resumed communicator starts a new attempt (``crossrank.attempts``).
communicator     The communicator the process's ``rank`` is counted in (``hccl_world_group``
                 when it set one up), where known.
identity_source  Where the process's identity comes from: ``content`` (what it logged),
                 ``path`` (the directory and file names only) or ``assumed`` (records that name
                 no process, taken as one). Null for records no process was resolved for.
record_host,     What the record itself named, by its line or its path, before its process's
record_rank,     identity was known (the parser's ``host``, ``rank`` and ``device``): a
record_device    diagnosis of the table reads these, so that it is the diagnosis of the logs.

Tables written before these columns existed (``plogscan.schema_version`` 2) read with the
identity columns null and the ``record_`` columns equal to ``host``, ``rank`` and ``device``.

``report.schema.json`` beside this module is the published schema of the JSON report.

Part of the shared vocabulary. Must not import: any pipeline stage.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


class SourceKind(str, Enum):
    """What a file is, decided from its name, its path and a sniff of its content."""

    PLOG_DEBUG = "plog-debug"
    PLOG_RUN = "plog-run"
    PLOG_SECURITY = "plog-security"
    PLOG = "plog"  # a host plog whose debug/run/security directory is unknown
    DEVICE_APP = "device-app"
    DEVICE_FW = "device-fw"
    DEVICE_OS = "device-os"
    EVENT = "event"
    STDOUT = "stdout"  # job stdout/stderr: torch_npu, error-manager blocks, tracebacks
    SYSLOG = "syslog"  # host kernel log, /var/log/messages, bbox history, slogd self-log


EVENT_SCHEMA = pa.schema(
    [
        pa.field("ts", pa.timestamp("us")),
        pa.field("level", pa.string()),
        pa.field("module", pa.string()),
        pa.field("pid", pa.int64()),
        pa.field("proc", pa.string()),
        pa.field("tid", pa.int64()),
        pa.field("src_file", pa.string()),
        pa.field("src_line", pa.int32()),
        pa.field("message", pa.large_string()),
        pa.field("kind", pa.string()),
        pa.field("path", pa.string()),
        pa.field("line", pa.int64()),
        pa.field("line_count", pa.int32()),
        pa.field("host", pa.string()),
        pa.field("rank", pa.int32()),
        pa.field("device", pa.int32()),
        pa.field("codes", pa.list_(pa.string())),
        pa.field("fmt", pa.string()),
        pa.field("truncated", pa.bool_()),
        pa.field("ts_invalid", pa.bool_()),
        pa.field("clock_epoch", pa.bool_()),
        pa.field("ts_aligned", pa.timestamp("us")),
    ],
    metadata={"plogscan.schema_version": "3"},
)

COLUMNS: tuple[str, ...] = tuple(EVENT_SCHEMA.names)

# The identity columns the table at rest adds to the parser's (see the module docstring).
IDENTITY_FIELDS: tuple[pa.Field, ...] = (
    pa.field("phy_device", pa.int32()),
    pa.field("host_ip", pa.string()),
    pa.field("attempt", pa.int32()),
    pa.field("communicator", pa.string()),
    pa.field("identity_source", pa.string()),
    pa.field("record_host", pa.string()),
    pa.field("record_rank", pa.int32()),
    pa.field("record_device", pa.int32()),
)
# The parser's columns the identity overwrites, and where the table keeps their own values.
RECORD_COLUMNS: dict[str, str] = {"host": "record_host", "rank": "record_rank",
                                  "device": "record_device"}
TABLE_SCHEMA = pa.schema([*EVENT_SCHEMA, *IDENTITY_FIELDS],
                         metadata={"plogscan.schema_version": "3"})
IDENTITY_SOURCES: tuple[str, ...] = ("content", "path", "assumed")

LEVELS: tuple[str, ...] = ("DEBUG", "INFO", "WARNING", "ERROR", "EVENT", "TRACE", "OPLOG", "NULL")

# Text columns with few distinct values per file (one for kind, path, host; a handful for
# level, module, proc, src_file and fmt). ``ingest`` can keep them dictionary-encoded from the
# parser to the Parquet file: a repeated value is then never copied row by row, and the
# Parquet writer stores the dictionary as it is instead of hashing every value again.
ENCODED_COLUMNS: tuple[str, ...] = ("level", "module", "proc", "src_file", "kind", "path",
                                    "host", "fmt")
ENCODED_TEXT = pa.dictionary(pa.int32(), pa.string())
# The event table as the parser hands it to the Parquet writer. Readers get EVENT_SCHEMA back
# (``decoded``); only the storage differs.
STORED_SCHEMA = pa.schema(
    [f.with_type(ENCODED_TEXT) if f.name in ENCODED_COLUMNS else f for f in EVENT_SCHEMA],
    metadata=EVENT_SCHEMA.metadata,
)
# The table at rest as the Parquet writer stores it: STORED_SCHEMA and the identity columns,
# the text ones (one value per process) encoded too.
STORED_TABLE_COLUMNS: tuple[str, ...] = (*ENCODED_COLUMNS, "host_ip", "communicator",
                                         "identity_source", "record_host")
STORED_TABLE_SCHEMA = pa.schema(
    [f.with_type(ENCODED_TEXT) if f.name in STORED_TABLE_COLUMNS else f for f in TABLE_SCHEMA],
    metadata=TABLE_SCHEMA.metadata,
)


def table_schema(encoded: bool) -> pa.Schema:
    """STORED_SCHEMA for the Parquet writer's batches, EVENT_SCHEMA otherwise."""
    return STORED_SCHEMA if encoded else EVENT_SCHEMA


def decoded(batch: pa.RecordBatch) -> pa.RecordBatch:
    """``batch`` in EVENT_SCHEMA's types (dictionary-encoded columns spelled out)."""
    if batch.schema.equals(EVENT_SCHEMA):
        return batch
    return pa.RecordBatch.from_arrays(
        [batch.column(i).cast(field.type) for i, field in enumerate(EVENT_SCHEMA)],
        schema=EVENT_SCHEMA)


def table_decoded(batch: pa.RecordBatch) -> pa.RecordBatch:
    """A batch of the table at rest in TABLE_SCHEMA's types; a batch of the parser's schema
    (or of an older table) gets the identity columns it lacks, null, and its ``record_``
    columns from ``host``, ``rank`` and ``device``."""
    if batch.schema.equals(TABLE_SCHEMA):
        return batch
    names = batch.schema.names
    own = {record: base for base, record in RECORD_COLUMNS.items()}
    return pa.RecordBatch.from_arrays(
        [batch.column(name).cast(field.type) if name in names
         else batch.column(own[name]).cast(field.type) if name in own
         else pa.nulls(batch.num_rows, field.type)
         for name, field in zip(TABLE_SCHEMA.names, TABLE_SCHEMA, strict=True)],
        schema=TABLE_SCHEMA)


def as_recorded(batch: pa.RecordBatch) -> pa.RecordBatch:
    """A batch of the table at rest (any schema version) in EVENT_SCHEMA's types, with the
    parser's own ``host``, ``rank`` and ``device`` (its ``record_`` columns, where it has
    them): what a diagnosis reads."""
    names = batch.schema.names
    columns = []
    for name, field in zip(EVENT_SCHEMA.names, EVENT_SCHEMA, strict=True):
        source = RECORD_COLUMNS.get(name, name)
        columns.append(batch.column(source if source in names else name).cast(field.type))
    return pa.RecordBatch.from_arrays(columns, schema=EVENT_SCHEMA)


def table_encoded(batch: pa.RecordBatch) -> pa.RecordBatch:
    """A batch of the parser's schema or of the table (plain or encoded) in
    STORED_TABLE_SCHEMA's types, the identity columns it lacks null."""
    if batch.schema.equals(STORED_TABLE_SCHEMA):
        return batch
    names = batch.schema.names
    columns = []
    for field in STORED_TABLE_SCHEMA:
        if field.name in names:
            column = batch.column(field.name)
            columns.append(encoded_text(column) if field.type == ENCODED_TEXT else column)
        else:
            columns.append(pa.nulls(batch.num_rows, field.type))
    return pa.RecordBatch.from_arrays(columns, schema=STORED_TABLE_SCHEMA)


def encoded(batch: pa.RecordBatch) -> pa.RecordBatch:
    """``batch`` in STORED_SCHEMA's types (the low-cardinality text columns as dictionaries)."""
    if batch.schema.equals(STORED_SCHEMA):
        return batch
    return pa.RecordBatch.from_arrays(
        [encoded_text(batch.column(i)) if field.type == ENCODED_TEXT else batch.column(i)
         for i, field in enumerate(STORED_SCHEMA)],
        schema=STORED_SCHEMA)


def encoded_text(column: pa.Array) -> pa.Array:
    """A text column as ENCODED_TEXT (hashed only when it is not encoded already).

    A null among the dictionary's values (the parser's empty prefix of lines without a
    header) becomes a null index instead, as Arrow needs to unify dictionaries."""
    if not pa.types.is_dictionary(column.type):
        return column.dictionary_encode()
    values = column.dictionary
    if values.null_count:
        index = column.indices
        keep = pc.fill_null(pc.take(values.is_valid(), index), False)
        column = pa.DictionaryArray.from_arrays(
            pc.if_else(keep, index, pa.scalar(None, index.type)), pc.fill_null(values, ""))
    return column if column.type == ENCODED_TEXT else column.cast(ENCODED_TEXT)


def plain_text(column: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """A dictionary-encoded column spelled out (other columns as they are), whole or in
    chunks."""
    if not pa.types.is_dictionary(column.type):
        return column
    if isinstance(column, pa.ChunkedArray):
        return pc.cast(column, column.type.value_type)
    return column.dictionary_decode()


def text_equals(column: pa.Array, value: str) -> np.ndarray:
    """Rows of a text column (plain or dictionary-encoded) equal to ``value`` (a null is not):
    an encoded column is compared through its dictionary, never spelled out."""
    if pa.types.is_dictionary(column.type):
        hit = pc.take(pc.equal(column.dictionary, value), column.indices)
    else:
        hit = pc.equal(column, value)
    return pc.fill_null(hit, False).to_numpy(zero_copy_only=False)


def orderable_text(column: pa.Array) -> tuple[pa.Array, Callable[[int | None], object]]:
    """A column whose ``min`` an Arrow aggregation can take, and how to read a min of it
    back as the text: a dictionary-encoded column becomes the rank of each value among the
    sorted dictionary (the min rank is the min text), a plain one stays as it is."""
    if not pa.types.is_dictionary(column.type):
        return column, lambda value: value
    order = pc.sort_indices(column.dictionary)
    rank = np.empty(len(order), np.int64)
    rank[order.to_numpy(zero_copy_only=False)] = np.arange(len(order))
    ordered = column.dictionary.take(order).to_pylist()
    return pc.take(pa.array(rank), column.indices), lambda value: (
        None if value is None else ordered[value])


def held_bytes(data: pa.RecordBatch | pa.Table) -> int:
    """The bytes of the buffers ``data`` keeps alive, cheaply (microseconds, where ``nbytes``
    costs 50 us for a record batch and 200 us for a small two-table cache entry: seconds for
    20,000 small files). For a slice this counts the whole buffers it is cut from: use it for
    tables that own their buffers (a cache entry read back), ``batch_bytes`` for batches."""
    return data.get_total_buffer_size()


ROW_BYTES = 200  # a record's columns but its message, as plain text (its path most of it)
CONTEXT_COLUMNS = ("context_before", "context_after")  # see ``ingest.contextlines``


def batch_bytes(batch: pa.RecordBatch) -> int:
    """About the bytes of a batch's records, counting only what a slice holds, cheaply: its
    message text, which is most of a record, and ``ROW_BYTES`` a row for the other columns
    (``nbytes``, exact and slow, for a batch without a message). The records of many small
    files arrive as slices of their group's one table. The context lines some records carry
    (``ingest.contextlines``) are counted as they are: they may be as large as the text."""
    index = batch.schema.get_field_index("message")
    if index < 0:
        return batch.nbytes
    size = batch.column(index).nbytes + ROW_BYTES * batch.num_rows
    for name in CONTEXT_COLUMNS:
        where = batch.schema.get_field_index(name)
        if where >= 0:
            size += batch.column(where).nbytes
    return size
