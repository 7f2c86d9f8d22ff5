"""The evidence records of a comparison, read back from a run's event table.

The comparison keeps where each value was first logged (path and line), never the text of
every record; the few records it shows are read once more at the end, with one vectorized
filter per batch on the wanted paths and lines.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

import pyarrow as pa
import pyarrow.compute as pc

MAX_MESSAGE = 4000  # characters of one evidence record kept


@dataclass(frozen=True)
class Record:
    ts: datetime | None
    level: str | None
    module: str | None
    message: str


def records(batches: Iterable[pa.RecordBatch], wanted: Collection[tuple[str, int]]
            ) -> dict[tuple[str, int], Record]:
    """(path, line) -> its record, for every wanted one found."""
    if not wanted:
        return {}
    paths = pa.array(sorted({p for p, _ in wanted}), pa.string())
    lines = pa.array(sorted({n for _, n in wanted}), pa.int64())
    out: dict[tuple[str, int], Record] = {}
    for batch in batches:
        names = batch.schema.names
        path = batch.column(names.index("path"))
        if pa.types.is_dictionary(path.type):
            path = path.cast(pa.string())
        keep = pc.and_(pc.is_in(batch.column(names.index("line")), value_set=lines),
                       pc.is_in(path, value_set=paths))
        if not pc.any(keep).as_py():
            continue
        rows = batch.filter(keep)
        for r in _rows(rows, path.filter(keep)):
            key = (r["path"], r["line"])
            if key in wanted and key not in out:
                out[key] = Record(r["ts"], r["level"], r["module"],
                                  (r["message"] or "")[:MAX_MESSAGE])
    return out


def _rows(rows: pa.RecordBatch, path: pa.Array) -> Iterator[dict]:
    names = rows.schema.names
    table = pa.table({"path": path, **{n: rows.column(names.index(n))
                                       for n in ("line", "ts", "level", "module", "message")}})
    yield from table.to_pylist()
