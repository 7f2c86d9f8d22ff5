"""A test of a field whose values repeat, run once per batch over its distinct values.

Levels, modules, codes, paths and hosts repeat on nearly every record: a batch of 30,000
records holds a few dozen distinct values of each. A predicate on such a field is run on those
values and spread to the rows by their dictionary indices (a numpy gather), so its cost no
longer grows with the rows (or with the codes of a ``codes`` list), and a column is encoded once
per batch whichever rules test it. Every operator is a function of one value, so the rows get
exactly what testing each row would give.

The message is tested on the rows that need it (those that hold a rule's literal): when a
batch's messages repeat (at most one distinct in two, as DEBUG lines written on every step
do), on the distinct messages of those rows; otherwise row by row (``engine.predicates``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

# Fields tested on the rows that need them, not on the whole batch.
ROW_FIELDS = frozenset({"message"})

ValueMask = Callable[[pa.Array], pa.Array]


class Encoded:
    """One column of a batch as its distinct values, each row's index into them (the values'
    count for a null), and for a list column the row each listed value belongs to."""

    def __init__(self, column: pa.Array) -> None:
        self.rows = len(column)
        self.parents: np.ndarray | None = None
        if pa.types.is_list(column.type) or pa.types.is_large_list(column.type):
            self.parents = pc.list_parent_indices(column).to_numpy(zero_copy_only=False)
            column = pc.list_flatten(column)
        encoded = column if pa.types.is_dictionary(column.type) else pc.dictionary_encode(column)
        self.values: pa.Array = encoded.dictionary
        self.index = pc.fill_null(encoded.indices, len(self.values)).to_numpy(
            zero_copy_only=False)

    def mask(self, test: ValueMask) -> np.ndarray:
        """Rows where ``test`` (a boolean Arrow mask of values; null is false) holds; for a
        list column, rows where it holds for any listed value."""
        held = test(self.values).fill_null(False).to_numpy(zero_copy_only=False)
        if not held.any():  # most tests of a code or a module, in most batches
            return np.zeros(self.rows, dtype=bool)
        hit = np.append(held, False)[self.index]
        if self.parents is None:
            return hit
        out = np.zeros(self.rows, dtype=bool)
        out[self.parents[hit]] = True
        return out

    def holding(self, rows: np.ndarray, test: ValueMask) -> np.ndarray:
        """Which of ``rows`` (of a column that is not a list) hold ``test``: it runs on
        their distinct values only."""
        picked, inverse = np.unique(self.index[rows], return_inverse=True)
        real = picked < len(self.values)  # a null index is the values' count: never holds
        hit = np.zeros(len(picked), dtype=bool)
        if real.any():
            hit[real] = test(self.values.take(pa.array(picked[real]))).fill_null(
                False).to_numpy(zero_copy_only=False)
        return hit[inverse.reshape(-1)]


def repeats(column: pa.Array) -> bool:
    """Whether ``column`` is text, or lists of text, that ``Encoded`` can stand for."""
    kind = column.type
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        kind = kind.value_type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def repeating(batch: pa.RecordBatch, field: str, cache: dict) -> Encoded | None:
    """``field`` of ``batch`` encoded when at most half its values are distinct (once per
    batch, ``cache``); None when they are mostly distinct, or not text."""
    key = ("repeating", field)
    if key not in cache:
        column = batch.column(field)
        found = None
        if repeats(column) and not pa.types.is_list(column.type):
            found = encoded(batch, field, cache)
            if 2 * len(found.values) > len(column):
                found = None
        cache[key] = found
    return cache[key]


def encoded(batch: pa.RecordBatch, field: str, cache: dict) -> Encoded:
    """``field`` of ``batch`` encoded once per batch (``cache``, one dict per batch)."""
    key = ("encoded", field)
    found = cache.get(key)
    if found is None:
        found = cache[key] = Encoded(batch.column(field))
    return found
