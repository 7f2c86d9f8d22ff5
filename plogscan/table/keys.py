"""Which rows of a table carry a key from a known set, in one hash join instead of a Python
step per row.

Summaries that keep one entry per process or stream up to a cap (``analysis.overview``,
``crossrank.gather``) see millions of fact rows when a run has millions of processes; past
the cap only the rows of keys they already hold still count, and finding those row by row
cost seconds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_NULL_TEXT = "\x00null"  # stands for a missing text key (a join never matches nulls)
_NULL_INT = -(1 << 63)


def key_table(keys: Iterable[Sequence[object]], schema: pa.Schema) -> pa.Table:
    """The keys (tuples in ``schema``'s column order) as a table."""
    columns = list(zip(*keys, strict=True)) or [()] * len(schema)
    return pa.table([pa.array(list(c), f.type) for c, f in zip(columns, schema, strict=True)],
                    schema=schema)


def known_rows(table: pa.Table, known: pa.Table) -> np.ndarray:
    """Per row of ``table``: whether its values of ``known``'s columns (nulls equal to nulls)
    are a row of ``known``."""
    names = known.column_names
    mask = np.zeros(table.num_rows, bool)
    if table.num_rows == 0 or known.num_rows == 0:
        return mask
    left = pa.table({**{n: _filled(table.column(n)) for n in names},
                     "_row": pa.array(np.arange(table.num_rows, dtype=np.int64))})
    right = pa.table({n: _filled(known.column(n)) for n in names})
    hit = left.join(right, keys=names, join_type="left semi", use_threads=False)
    mask[hit.column("_row").to_numpy()] = True
    return mask


def _filled(column: pa.ChunkedArray) -> pa.ChunkedArray:
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    if not column.null_count:
        return column
    fill = _NULL_INT if pa.types.is_integer(column.type) else _NULL_TEXT
    return pc.fill_null(column, pa.scalar(fill, column.type))
