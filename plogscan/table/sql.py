"""``plogscan sql``: a DuckDB query over the event table, as the view ``events``.

The inputs (logs parsed on the fly, ``.parquet`` tables, ``--dataset`` directories) are
registered with DuckDB as Arrow data, then DuckDB's external access is turned off and the
configuration locked, so the query reads only ``events``: ``read_csv('/etc/passwd')``,
``COPY ... TO``, ``ATTACH`` and extensions all fail. Results stream out batch by batch as a
text table, CSV (formula starts neutralised) or JSON Lines; log text is escaped as in
``plogscan events``.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from datetime import date, datetime

import pyarrow as pa

from plogscan.errors import InputError
from plogscan.schema import TABLE_SCHEMA
from plogscan.textsafe import json_escape, neutralize

FORMATS = ("table", "csv", "jsonl")
RESULT_BATCH_ROWS = 8192
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def connect() -> object:
    try:
        import duckdb
    except ImportError:
        raise InputError("plogscan sql needs DuckDB, which is not installed",
                         help="pip install 'plogscan[sql]'") from None
    return duckdb.connect(":memory:")


def query(sql: str, events: Iterator[pa.RecordBatch]) -> tuple[list[str], Iterator[list]]:
    """Run ``sql`` with ``events`` as the table ``events``; (column names, row batches)."""
    import duckdb

    con = connect()
    reader = pa.RecordBatchReader.from_batches(TABLE_SCHEMA, events)
    con.register("events_source", reader)
    con.execute("CREATE VIEW events AS SELECT * FROM events_source")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    try:
        result = con.execute(sql)
    except duckdb.Error as err:
        raise InputError(f"query failed: {_first_line(err)}",
                         help="the table is named events (see plogscan.schema for its "
                         "columns); reading or writing other files is not allowed") from None
    names = [d[0] for d in result.description or ()]

    def rows() -> Iterator[list]:
        try:
            while batch := result.fetchmany(RESULT_BATCH_ROWS):
                yield batch
        except duckdb.Error as err:
            raise InputError(f"query failed: {_first_line(err)}") from None
        finally:
            con.close()
    return names, rows()


def _first_line(err: Exception) -> str:
    return neutralize(str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__)


def _plain(value: object) -> object:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, bytes | bytearray):
        return value.hex()
    return value


def _cell(value: object) -> str:
    value = _plain(value)
    if value is None:
        return ""
    if isinstance(value, list | dict):
        value = json.dumps(value, ensure_ascii=False)
    text = neutralize(str(value))
    return "'" + text if text.startswith(_FORMULA_START) else text


def render(names: list[str], batches: Iterator[list], fmt: str) -> Iterator[str]:
    """The result as text, one piece per batch."""
    if fmt == "jsonl":
        for batch in batches:
            yield "".join(json_escape(json.dumps(dict(zip(names, map(_plain, row),
                                                              strict=True)),
                                                 ensure_ascii=False)) + "\n"
                          for row in batch)
        return
    if fmt == "csv":
        first = True
        for batch in batches:
            out = io.StringIO()
            writer = csv.writer(out, lineterminator="\n")
            if first:
                writer.writerow([_cell(n) for n in names])
                first = False
            writer.writerows([_cell(v) for v in row] for row in batch)
            yield out.getvalue()
        if first:
            out = io.StringIO()
            csv.writer(out, lineterminator="\n").writerow([_cell(n) for n in names])
            yield out.getvalue()
        return
    yield from _table(names, batches)


def _table(names: list[str], batches: Iterator[list]) -> Iterator[str]:
    """Aligned columns; widths from the first batch, long cells cut."""
    first = next(batches, [])
    cells = [[_cell(v).replace("\n", "\\n") for v in row] for row in first]
    widths = [min(60, max([len(n)] + [len(r[i]) for r in cells])) for i, n in enumerate(names)]

    def line(values: list[str]) -> str:
        return "  ".join(v[:w].ljust(w) for v, w in zip(values, widths, strict=True)).rstrip()

    yield line([neutralize(n) for n in names]) + "\n"
    yield line(["-" * w for w in widths]) + "\n"
    count = 0
    for rows in (cells, *([[_cell(v).replace("\n", "\\n") for v in row] for row in b]
                          for b in batches)):
        count += len(rows)
        yield "".join(line(r) + "\n" for r in rows)
    yield f"({count} row{'s' if count != 1 else ''})\n"
