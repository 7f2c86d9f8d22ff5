"""Which rows of a table carry a key from a known set, in one hash join instead of a Python
step per row.

Summaries that keep one entry per process or stream up to a cap (``analysis.overview``,
``crossrank.gather``) see millions of fact rows when a run has millions of processes; past
the cap only the rows of keys they already hold still count, and finding those row by row
cost seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.schema import plain_text

_NULL_INT = -(1 << 63)  # stands for a missing key (a join never matches nulls)


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
    left_keys, right_keys = zip(*(_joinable(table.column(n), known.column(n)) for n in names),
                                strict=True)
    left = pa.table({**dict(zip(names, left_keys, strict=True)),
                     "_row": pa.array(np.arange(table.num_rows, dtype=np.int64))})
    right = pa.table(dict(zip(names, right_keys, strict=True)))
    hit = left.join(right, keys=names, join_type="left semi", use_threads=False)
    mask[hit.column("_row").to_numpy()] = True
    return mask


def admitted(table: pa.Table, known: pa.Table, room: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``table`` (one per key) a capped summary takes, as a mask: those of the
    keys it holds (``known``) and the first ``room`` others, in order; and the rows past
    the cap."""
    keep = known_rows(table, known)
    others = np.flatnonzero(~keep)
    keep[others[:room]] = True
    return keep, others[room:]


class HeldKeys:
    """The keys a capped summary holds, as a table (``key_table``), built again only when
    their number changed: past the cap, never."""

    def __init__(self, schema: pa.Schema) -> None:
        self.schema = schema
        self._built: tuple[int, pa.Table] | None = None

    def table(self, count: int, keys: Callable[[], Iterable[Sequence[object]]]) -> pa.Table:
        if self._built is None or self._built[0] != count:
            self._built = (count, key_table(keys(), self.schema))
        return self._built[1]


def _joinable(left: pa.ChunkedArray, right: pa.ChunkedArray
              ) -> tuple[pa.ChunkedArray, pa.ChunkedArray]:
    """The two sides of one join key, nulls made equal to nulls; texts as codes into their
    shared distinct values, so that the join's hash table holds 8 bytes a row rather than a
    copy of each text (a path repeated on 100,000 rows, see ``schema.grouping``)."""
    left, right = plain_text(left), plain_text(right)
    if pa.types.is_integer(left.type):
        return _filled(left), _filled(right)
    values = pc.unique(pa.chunked_array([pc.unique(left), pc.unique(right)]))
    return (_filled(pc.index_in(left, value_set=values).cast(pa.int64())),
            _filled(pc.index_in(right, value_set=values).cast(pa.int64())))


def _filled(column: pa.ChunkedArray) -> pa.ChunkedArray:
    if not column.null_count:
        return column
    return pc.fill_null(column, pa.scalar(_NULL_INT, column.type))
