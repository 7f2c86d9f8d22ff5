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


def _filled(column: pa.ChunkedArray) -> pa.ChunkedArray:
    column = plain_text(column)
    if not column.null_count:
        return column
    fill = _NULL_INT if pa.types.is_integer(column.type) else _NULL_TEXT
    return pc.fill_null(column, pa.scalar(fill, column.type))
