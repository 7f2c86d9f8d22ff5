"""Small Arrow-to-numpy helpers shared by the parse's record-table kernels."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def isin_values(column: pa.Array, values: list[str]) -> np.ndarray:
    """Where ``column`` is one of ``values``."""
    if not values:
        return np.zeros(len(column), bool)
    return mask(pc.is_in(column, value_set=pa.array(values, pa.string())))


def column_of(records: pa.Table, name: str) -> pa.Array:
    """One column of ``records`` as a single array."""
    column = records.column(name)
    if not isinstance(column, pa.ChunkedArray):
        return column
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


def numbers(records: pa.Table, name: str) -> np.ndarray:
    """A numeric column as int64."""
    return column_of(records, name).to_numpy(zero_copy_only=False).astype(np.int64)


def mask(values: pa.Array) -> np.ndarray:
    """A boolean array as a numpy mask, nulls false."""
    return pc.fill_null(values, False).to_numpy(zero_copy_only=False).astype(bool)


def distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values of an integer array, ascending: ``np.unique`` by a sort (numpy's
    hashing ``unique`` took fifteen times longer on the few thousand values of a chunk)."""
    values = np.sort(values)
    return values[np.concatenate(([True], values[1:] != values[:-1]))] if len(values) else values
