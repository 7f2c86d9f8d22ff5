"""Group a table by text keys on their dictionary codes, optionally in the order the keys
first come.

Arrow's grouper and hash join keep a copy of every key they meet, text included. The facts of
a chunk written by many processes have one row per process, each with its file's path, so a
group-by on (path, pid) copied the path once per process, in the workers and again in the
main process; over one file of a million processes the run's memory then grew with the
length of the file's path. Grouped on the path's dictionary code (4 bytes a row), only the
distinct texts are kept, once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

Aggregation = tuple[str | list[str], str]  # as Table.group_by(...).aggregate takes them
_ROW = "\x00row"  # the row number ``in_order`` groups by its minimum of


def grouped(table: pa.Table, keys: Sequence[str], aggregations: Sequence[Aggregation],
            encoded: Sequence[str] = (), in_order: bool = False) -> pa.Table:
    """``table.group_by(keys).aggregate(aggregations)`` (one thread), with each text key
    (plain or dictionary-encoded) grouped by a code and spelled out in the result, or
    dictionary-encoded there when it is one of ``encoded`` (one dictionary for the column).

    Arrow hands the groups out in an order of its own (the same for the same input, but
    within a block of rows not the order they first come in, and depending on how the keys
    hash); with ``in_order`` they come in the order of their first rows, as a capped summary
    that keeps the first keys to come needs them."""
    dictionaries: dict[str, pa.Array] = {}
    columns = {}
    for name in table.column_names:
        column = table.column(name)
        if name in keys and _is_text(column.type):
            codes, dictionaries[name] = _codes(column)
            columns[name] = codes
        else:
            columns[name] = column
    aggregations = list(aggregations)
    if in_order:
        columns[_ROW] = pa.array(np.arange(table.num_rows, dtype=np.int64))
        aggregations.append((_ROW, "min"))
    result = pa.table(columns).group_by(list(keys), use_threads=False).aggregate(aggregations)
    if in_order:
        result = result.sort_by(f"{_ROW}_min").drop_columns([f"{_ROW}_min"])
    for name, dictionary in dictionaries.items():
        codes = result.column(name)
        column = (pa.chunked_array([pa.DictionaryArray.from_arrays(chunk, dictionary)
                                    for chunk in codes.chunks],
                                   pa.dictionary(pa.int32(), dictionary.type))
                  if name in encoded else dictionary.take(codes))
        result = result.set_column(result.schema.get_field_index(name), name, column)
    return result


def _is_text(typ: pa.DataType) -> bool:
    if pa.types.is_dictionary(typ):
        typ = typ.value_type
    return pa.types.is_string(typ) or pa.types.is_large_string(typ)


def _codes(column: pa.ChunkedArray) -> tuple[pa.ChunkedArray, pa.Array]:
    """Per row, an index into the returned dictionary of ``column``'s distinct texts (null
    for a null); chunks with dictionaries of their own are unified first."""
    if not pa.types.is_dictionary(column.type):
        column = pc.dictionary_encode(column)  # one dictionary for every chunk
    elif column.num_chunks > 1:
        column = pa.table({"c": column}).unify_dictionaries().column("c")
    if column.num_chunks == 0:
        return pa.chunked_array([], pa.int32()), pa.array([], column.type.value_type)
    dictionary = column.chunk(0).dictionary
    return pa.chunked_array([chunk.indices for chunk in column.chunks]), dictionary
