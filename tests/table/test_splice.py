"""Row groups whose columns were encoded apart, spliced into one Parquet file (``table.splice``):
a row group of one part comes out as one writer writes it, byte for byte; of several parts,
a file any Parquet reader reads back whole."""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from plogscan.table.splice import Splicer

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


def _empty() -> pa.Buffer:
    sink = pa.BufferOutputStream()
    writer = _writer(sink)
    writer.add_key_value_metadata(FOOTER)
    writer.close()
    return sink.getvalue()


def _encoded(table: pa.Table, names: list[str]) -> pa.Buffer:
    sink = pa.BufferOutputStream()
    delta = {"n": "DELTA_BINARY_PACKED"} if "n" in names else None
    writer = pq.ParquetWriter(sink, pa.schema([SCHEMA.field(n) for n in names]),
                              compression="zstd", use_dictionary=["name"],
                              write_statistics=["n"], column_encoding=delta)
    writer.write_table(table.select(names), row_group_size=max(table.num_rows, 1))
    writer.close()
    return sink.getvalue()


def _spliced(tables: list[pa.Table], parts: list[list[str]]) -> bytes:
    out = io.BytesIO()
    splicer = Splicer(out)
    for table in tables:
        splicer.add_columns([_encoded(table, names) for names in parts], SCHEMA.names)
    splicer.close(_empty())
    return out.getvalue()


SIZES = [[1000, 1000, 1000], [2500, 700, 1], [40] * 20, []]  # 20: past a short list header


@pytest.mark.parametrize("sizes", SIZES)
def test_row_groups_of_one_part_make_one_writers_file(sizes: list[int]) -> None:
    tables = _tables(sizes)
    spliced = _spliced(tables, [SCHEMA.names])
    assert spliced == _one_writer(tables, max(sizes, default=1))


@pytest.mark.parametrize("sizes", SIZES)
@pytest.mark.parametrize("parts", [[["text", "codes"], ["n", "name", "flag"]],
                                   [["flag"], ["name"], ["codes", "n", "text"]]])
def test_row_groups_of_several_parts_read_back_whole(sizes: list[int], parts: list[list[str]]
                                                    ) -> None:
    tables = _tables(sizes)
    handle = pq.ParquetFile(io.BytesIO(_spliced(tables, parts)))
    assert handle.metadata.num_row_groups == len(sizes)
    assert handle.metadata.metadata[b"inputs"] == b"{\"files\":[]}"
    expected = pa.concat_tables(tables) if tables else SCHEMA.empty_table()
    assert handle.read().cast(SCHEMA).equals(expected.cast(SCHEMA))
    for i, rows in enumerate(sizes):  # each row group alone, as a reader that skips some
        assert handle.read_row_group(i).cast(SCHEMA).equals(tables[i].cast(SCHEMA))
        assert handle.metadata.row_group(i).num_rows == rows


def _tables(sizes: list[int]) -> list[pa.Table]:
    starts = [sum(sizes[:i]) for i in range(len(sizes))]
    return [_table(s, n) for s, n in zip(starts, sizes, strict=True)]


def test_parts_that_are_not_the_tables_columns_are_refused() -> None:
    with pytest.raises(ValueError, match="not the target's"):
        Splicer(io.BytesIO()).add_columns([_encoded(_table(0, 5), ["n", "text"])],
                                          SCHEMA.names)


def test_a_file_that_is_not_parquet_is_refused() -> None:
    with pytest.raises(ValueError, match="not a Parquet file"):
        Splicer(io.BytesIO()).add_columns([b"PAR1 but no footer"], SCHEMA.names)
