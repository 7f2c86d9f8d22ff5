"""Row groups encoded apart and spliced into one Parquet file make the file one writer makes,
byte for byte (``table.splice``), and the event table's row groups make the same file on
any number of threads."""

from __future__ import annotations

import io
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from plogscan.schema import STORED_TABLE_SCHEMA
from plogscan.table.parquet import _parquet_writer
from plogscan.table.splice import Splicer
from plogscan.table.staged import GROUP_ROWS, Stage, write_final
from tests.helpers import SAMPLES_DIR, run_cli

SCHEMA = pa.schema([
    pa.field("n", pa.int64()), pa.field("text", pa.large_string()),
    pa.field("name", pa.dictionary(pa.int32(), pa.string())),
    pa.field("codes", pa.list_(pa.string())), pa.field("flag", pa.bool_()),
], metadata={b"made": b"here"})
FOOTER = {b"inputs": "{\"files\":[]}", b"clock": "{}"}


def _writer(sink: object) -> pq.ParquetWriter:
    return pq.ParquetWriter(sink, SCHEMA, compression="zstd", use_dictionary=["name"],
                            write_statistics=["n"], column_encoding={"n": "DELTA_BINARY_PACKED"})


def _table(start: int, rows: int) -> pa.Table:
    n = list(range(start, start + rows))
    return pa.table({
        "n": n, "text": [f"line {i} " * (i % 7) for i in n],
        "name": pa.array([f"host{i % 5}" for i in n]).dictionary_encode(),
        "codes": [[f"EE{i % 13}"] * (i % 3) if i % 4 else None for i in n],
        "flag": [i % 2 == 0 for i in n]}, schema=SCHEMA)


def _one_writer(tables: list[pa.Table], group_rows: int) -> bytes:
    sink = pa.BufferOutputStream()
    writer = _writer(sink)
    for table in tables:
        writer.write_table(table, row_group_size=group_rows)
    writer.add_key_value_metadata(FOOTER)
    writer.close()
    return sink.getvalue().to_pybytes()


def _spliced(tables: list[pa.Table], group_rows: int) -> bytes:
    out = io.BytesIO()
    splicer = Splicer(out)
    for table in tables:
        sink = pa.BufferOutputStream()
        writer = _writer(sink)
        writer.write_table(table, row_group_size=group_rows)
        writer.close()
        splicer.add(sink.getvalue())
    sink = pa.BufferOutputStream()
    writer = _writer(sink)
    writer.add_key_value_metadata(FOOTER)
    writer.close()
    splicer.close(sink.getvalue())
    return out.getvalue()


@pytest.mark.parametrize("sizes, group_rows", [
    ([1000, 1000, 1000], 1000),  # a row group a file
    ([2500, 700, 3000], 1000),  # files of several row groups, and short ones
    ([40] * 20, 1000),  # more row groups than a list header's short form holds
    ([], 1000),  # no rows at all
])
def test_spliced_file_is_one_writers_file(sizes: list[int], group_rows: int) -> None:
    starts = [sum(sizes[:i]) for i in range(len(sizes))]
    tables = [_table(s, n) for s, n in zip(starts, sizes, strict=True)]
    spliced = _spliced(tables, group_rows)
    assert spliced == _one_writer(tables, group_rows)
    read = pq.read_table(io.BytesIO(spliced))
    expected = pa.concat_tables(tables).combine_chunks() if tables else SCHEMA.empty_table()
    assert read.cast(SCHEMA).equals(expected.cast(SCHEMA))
    assert pq.ParquetFile(io.BytesIO(spliced)).metadata.metadata[b"inputs"] == b"{\"files\":[]}"


def test_a_file_that_is_not_parquet_is_refused() -> None:
    with pytest.raises(ValueError, match="not a Parquet file"):
        Splicer(io.BytesIO()).add(b"PAR1 but no footer")


def test_staged_rows_make_the_same_file_on_any_number_of_threads(tmp_path: Path) -> None:
    target = tmp_path / "events.parquet"
    result = run_cli("ingest", SAMPLES_DIR / "notify-wait-cascade", "-o", target, "--quiet")
    assert result.exit_code == 0, result.output
    rows = pq.read_table(target).cast(STORED_TABLE_SCHEMA)
    many = pa.concat_tables([rows] * (2 * GROUP_ROWS // rows.num_rows + 3)).unify_dictionaries(
    ).combine_chunks()  # 3 row groups
    staged = tmp_path / "staged.arrows"
    stage = Stage(str(staged))
    stage.write(many.to_batches(max_chunksize=50_000))
    stage.close()
    footer = {b"plogscan.inputs": "{}"}
    written = []
    for threads in (1, 2, 3):
        final = tmp_path / f"t{threads}.parquet"
        write_final(str(staged), str(final), None, footer, _parquet_writer, threads)
        written.append(final.read_bytes())
    assert written[0] == written[1] == written[2]
    handle = pq.ParquetFile(io.BytesIO(written[0]))
    assert handle.metadata.num_row_groups >= 3
    assert handle.read().cast(STORED_TABLE_SCHEMA).equals(many)
