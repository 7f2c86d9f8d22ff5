"""The event table as a hive-partitioned Parquet dataset: ``host=…/rank=…/part-*.parquet``.

``ingest --dataset DIR`` writes one (zstd, the dictionary pages of ``parquet.EventWriter``),
with the per-file accounting beside it in ``_plogscan_inputs.json``. The host and rank are
those the cross-rank stage resolved for each record's process (``pipeline.tables``); a
record whose process has neither goes to pyarrow's default partition
(``__HIVE_DEFAULT_PARTITION__``). Query engines read it as it is (DuckDB
``read_parquet('DIR/**/*.parquet', hive_partitioning=true)``, pandas ``read_parquet(DIR)``,
Spark ``spark.read.parquet(DIR)``), and ``diagnose``, ``events`` and ``sql`` read it back
batch by batch, in the event (or table) schema. ``pyarrow.dataset`` and ``pyarrow.parquet``
are imported where used: most runs read no dataset.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from plogscan.errors import InputError
from plogscan.model import FileStats, IngestSummary, SkippedFile
from plogscan.schema import EVENT_SCHEMA, TABLE_SCHEMA, as_recorded, table_decoded

if TYPE_CHECKING:
    import pyarrow.dataset as ds


INPUTS_FILE = "_plogscan_inputs.json"  # the per-file accounting of the run that wrote it
PARTITIONS = pa.schema([pa.field("host", pa.string()), pa.field("rank", pa.int64())])
ROW_GROUP_ROWS = 262144
READ_BATCH_ROWS = 65536


def is_dataset(path: str) -> bool:
    """A directory written by ``ingest --dataset`` (not one that cannot be looked into: the
    walk reports that)."""
    try:
        return (Path(path) / INPUTS_FILE).is_file()
    except OSError:
        return False


def check_target(directory: Path, overwrite: bool) -> None:
    """Refuse a non-empty directory unless ``overwrite``; a file is never a target."""
    if directory.exists() and not directory.is_dir():
        raise InputError(f"{directory} exists and is not a directory",
                         help="--dataset takes a directory (created when missing)")
    if directory.is_dir() and any(directory.iterdir()) and not overwrite:
        raise InputError(f"dataset directory {directory} is not empty",
                         help="give an empty or new directory, or --overwrite to replace "
                         "what is there")


def write_dataset(directory: Path, batches: Iterable[pa.RecordBatch], overwrite: bool) -> None:
    """Write ``batches`` (table schema, plain or encoded) as a hive-partitioned dataset in
    ``directory`` (checked by the caller: ``check_target``)."""
    import pyarrow.dataset as ds

    directory.mkdir(parents=True, exist_ok=True)
    if overwrite:
        for old in [*directory.rglob("*.parquet"), directory / INPUTS_FILE]:
            old.unlink(missing_ok=True)
    options = ds.ParquetFileFormat().make_write_options(compression="zstd",
                                                         use_dictionary=True)

    def plain() -> Iterator[pa.RecordBatch]:  # Parquet dictionary-encodes the text again
        for batch in batches:
            yield table_decoded(batch)

    reader = pa.RecordBatchReader.from_batches(TABLE_SCHEMA, plain())
    ds.write_dataset(reader, directory, format="parquet", file_options=options,
                     partitioning=ds.partitioning(PARTITIONS, flavor="hive"),
                     basename_template="part-{i}.parquet",
                     existing_data_behavior="overwrite_or_ignore",
                     max_rows_per_group=ROW_GROUP_ROWS, min_rows_per_group=ROW_GROUP_ROWS // 4,
                     max_partitions=1 << 20, use_threads=True)


def write_inputs(directory: Path, inputs_json: str) -> None:
    (directory / INPUTS_FILE).write_text(inputs_json, encoding="utf-8")


def open_dataset(path: str) -> ds.Dataset:
    import pyarrow.dataset as ds

    try:
        return ds.dataset(path, format="parquet",
                          partitioning=ds.partitioning(PARTITIONS, flavor="hive"),
                          exclude_invalid_files=False)
    except (OSError, pa.ArrowInvalid) as err:
        raise InputError(f"cannot read dataset {path}: {err}") from None


def read_dataset(path: str, *, identity: bool = False) -> Iterator[pa.RecordBatch]:
    """Batches of a dataset in the event schema (files in path order, rows as written); with
    ``identity`` in the table's (the identity columns null in an older dataset)."""
    import pyarrow.dataset as ds


    dataset = open_dataset(path)
    missing = [n for n in EVENT_SCHEMA.names if n not in dataset.schema.names]
    if missing:
        raise InputError(f"{path} is not a plogscan dataset (missing columns: "
                         f"{', '.join(missing)})",
                         help="write one with: plogscan ingest LOGS --dataset DIR")
    for fragment in sorted(dataset.get_fragments(), key=lambda f: f.path):
        expression = fragment.partition_expression
        for batch in ds.dataset([fragment.path], format="parquet").to_batches(
                batch_size=READ_BATCH_ROWS):
            values = ds.get_partition_keys(expression)
            columns = {name: batch.column(name) for name in batch.schema.names}
            for name in ("host", "rank"):
                if name not in columns:
                    value = values.get(name)
                    columns[name] = pa.array([value] * batch.num_rows,
                                             EVENT_SCHEMA.field(name).type)
            typed = pa.RecordBatch.from_arrays(
                [_typed(columns[name], field.type) for name, field
                 in zip(TABLE_SCHEMA.names, TABLE_SCHEMA, strict=True) if name in columns],
                names=[name for name in TABLE_SCHEMA.names if name in columns])
            yield table_decoded(typed) if identity else as_recorded(typed)


def _typed(column: pa.Array, kind: pa.DataType) -> pa.Array:
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    return column if column.type == kind else column.cast(kind)


def stored_dataset_inputs(path: str) -> tuple[list[FileStats], list[SkippedFile], list,
                                               list[SkippedFile]]:
    """The accounting ``ingest --dataset`` wrote beside the dataset (files, skipped files,
    no limit hits, input errors)."""
    try:
        document = json.loads((Path(path) / INPUTS_FILE).read_text("utf-8"))
        files = [FileStats(**{**f, "problems": tuple(f.get("problems", ()))})
                 for f in document.get("files", [])]
        skipped = [SkippedFile(**s) for s in document.get("skipped", [])]
        errors = [SkippedFile(**e) for e in document.get("errors", [])]
    except (OSError, ValueError, TypeError):
        return [], [], [], []
    return files, skipped, [], errors


def parquet_rows(path: str) -> int:
    import pyarrow.parquet as pq

    return sum(pq.read_metadata(p).num_rows for p in Path(path).rglob("*.parquet"))


__all__ = ["INPUTS_FILE", "IngestSummary", "check_target", "is_dataset", "open_dataset",
           "parquet_rows", "read_dataset", "stored_dataset_inputs", "write_dataset",
           "write_inputs"]
