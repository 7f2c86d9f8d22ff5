"""``ingest -o`` stages most columns encoded and the identity's apart (``table.split``): the
table it writes holds the rows, values and types that the records read back through the spool
hold (the path ``events`` and ``sql`` take), however many row groups, workers or redactions,
and it leaves no staging file behind."""

from __future__ import annotations

import itertools
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from plogscan.ingest.pipeline import Ingest
from plogscan.pipeline.tables import table_batches
from plogscan.schema import TABLE_SCHEMA, table_decoded
from plogscan.table import parquet
from plogscan.table.split import BULK_SCHEMA, IDENTITY_SCHEMA, KEY_SCHEMA, SplitStage
from tests.helpers import SAMPLES_DIR, run_cli

SAMPLE = SAMPLES_DIR / "notify-wait-cascade"  # several ranks: identities from content


def _read_back(target: Path) -> pa.Table:
    handle = pq.ParquetFile(target)
    return pa.Table.from_batches(
        [table_decoded(b) for b in handle.iter_batches(batch_size=1 << 20)], schema=TABLE_SCHEMA)


def _spooled(sample: Path) -> pa.Table:
    batches = list(table_batches([str(sample)], Ingest(encoded=True)))
    return pa.Table.from_batches(batches, schema=TABLE_SCHEMA)


def test_the_parts_cover_the_table_once() -> None:
    assert not set(BULK_SCHEMA.names) & set(IDENTITY_SCHEMA.names)
    assert len(BULK_SCHEMA) + len(IDENTITY_SCHEMA) == len(TABLE_SCHEMA)
    assert set(IDENTITY_SCHEMA.names) < set(KEY_SCHEMA.names)


@pytest.mark.parametrize("workers", [1, 3])
def test_ingest_writes_the_rows_the_spool_reads(tmp_path: Path, workers: int) -> None:
    target = tmp_path / "events.parquet"
    result = run_cli("ingest", SAMPLE, "-o", target, "--workers", workers, "--quiet")
    assert result.exit_code == 0, result.output
    written = _read_back(target)
    assert written.num_rows > 100
    assert written.equals(_spooled(SAMPLE))
    assert written.column("rank").null_count < written.num_rows  # identities were set
    assert sorted(p.name for p in tmp_path.iterdir()) == ["events.parquet"]


def test_a_redacted_table_is_written_whole(tmp_path: Path) -> None:
    target = tmp_path / "shared.parquet"
    result = run_cli("ingest", SAMPLE, "-o", target, "--redact", "--quiet")
    assert result.exit_code == 0, result.output
    written = _read_back(target)
    assert written.num_rows == _spooled(SAMPLE).num_rows
    assert written.column("rank").null_count < written.num_rows
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shared.parquet"]


CUTS = [0, 1, 30, 31, 80]  # row groups of 1, 29, 1, 49 rows and the rest


def _staged_apart(tmp_path: Path, threads: int) -> tuple[Path, pa.Table]:
    """The ingested sample written again in row groups staged apart and spliced; its rows."""
    rows = pq.read_table(_ingested(tmp_path)).cast(parquet.STORED_TABLE_SCHEMA)
    staged = tmp_path / "staged"
    stage = SplitStage(str(staged), parquet._parquet_writer)
    for start, end in itertools.pairwise([*CUTS, rows.num_rows]):
        stage.write(rows.slice(start, end - start).to_batches())
    stage.close()
    final = tmp_path / "final.parquet"
    stage.finish(str(final), None, {b"plogscan.inputs": "{}"}, threads)
    assert not Path(str(staged) + ".keys").exists()
    return final, rows


@pytest.mark.parametrize("threads", [1, 2, 5])
def test_row_groups_staged_apart_make_the_table(tmp_path: Path, threads: int) -> None:
    final, rows = _staged_apart(tmp_path, threads)
    handle = pq.ParquetFile(final)
    assert handle.metadata.num_row_groups == len(CUTS)
    assert handle.metadata.metadata[b"plogscan.inputs"] == b"{}"
    read = handle.read()
    assert read.schema.equals(parquet.STORED_TABLE_SCHEMA, check_metadata=False)
    assert _plain(read).equals(_plain(rows))


def test_another_reader_reads_the_spliced_table(tmp_path: Path) -> None:
    """DuckDB, a Parquet reader of its own (it follows the footer's offsets to every page,
    not pyarrow's), reads the spliced file's row groups to the same rows."""
    duckdb = pytest.importorskip("duckdb")
    final, _rows = _staged_apart(tmp_path, 2)
    read = pq.read_table(final)
    names = ["line", "path", "message", "pid", "rank", "host"]
    query = f"SELECT {', '.join(names)} FROM read_parquet(?) ORDER BY path, line"
    theirs = duckdb.connect().execute(query, [str(final)]).fetchall()
    ours = _plain(read).select(names).sort_by([("path", "ascending"), ("line", "ascending")])
    assert len(theirs) == ours.num_rows > 0
    assert theirs == [tuple(row.values()) for row in ours.to_pylist()]


def _plain(table: pa.Table) -> pa.Table:
    return pa.Table.from_batches([table_decoded(b) for b in table.to_batches()],
                                 schema=TABLE_SCHEMA).combine_chunks()


def test_a_failed_finish_leaves_nothing(tmp_path: Path) -> None:
    rows = pq.read_table(_ingested(tmp_path)).cast(parquet.STORED_TABLE_SCHEMA)
    staged = tmp_path / "staged"
    stage = SplitStage(str(staged), parquet._parquet_writer)
    stage.write(rows.to_batches())
    stage.close()

    def broken(table: pa.Table) -> pa.Table:
        raise RuntimeError("annotation failed")

    with pytest.raises(RuntimeError, match="annotation failed"):
        stage.finish(str(tmp_path / "final"), broken, {b"k": "v"})
    assert not (tmp_path / "final").exists()
    assert not Path(str(staged) + ".keys").exists()


def _ingested(tmp_path: Path) -> Path:
    target = tmp_path / "first.parquet"
    result = run_cli("ingest", SAMPLE, "-o", target, "--quiet")
    assert result.exit_code == 0, result.output
    return target
