"""Print event batches as a text table, CSV or JSON Lines (``plogscan events``).

Log text is hostile: the table and CSV show control and bidi characters as visible escapes
(``plogscan.textsafe.neutralize``); JSON Lines keep the exact text, with those characters
as ``\\uXXXX`` escapes, so every record stays on one line and nothing reaches a terminal raw.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from datetime import datetime

import pyarrow as pa

from plogscan.schema import TABLE_SCHEMA
from plogscan.textsafe import json_escape, neutralize


def _iso(value: datetime | None) -> str | None:
    return value.isoformat(timespec="microseconds") if value is not None else None


def jsonl(batch: pa.RecordBatch) -> str:
    """One JSON object per record, keys in schema order, ISO-8601 ``ts``."""
    out = io.StringIO()
    for row in batch.to_pylist():
        row["ts"] = _iso(row["ts"])
        row["ts_aligned"] = _iso(row.get("ts_aligned"))
        out.write(json_escape(json.dumps(row, ensure_ascii=False)))
        out.write("\n")
    return out.getvalue()


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_TEXT_COLUMNS = ("level", "module", "proc", "src_file", "message", "kind", "path", "host", "codes",
                 "fmt", "host_ip", "communicator", "identity_source")


def _no_formula(value: object) -> object:
    """Text that a spreadsheet would run as a formula gets a leading apostrophe (OWASP CSV
    injection advice); log text is attacker-controllable."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def csv_rows(batch: pa.RecordBatch, header: bool) -> str:
    """CSV with every column of the table (``TABLE_SCHEMA``); ``codes`` joined with ``;``;
    text cells are made safe to open in a spreadsheet (control characters escaped, formula
    starts neutralised)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if header:
        writer.writerow(TABLE_SCHEMA.names)
    for row in batch.to_pylist():
        row["ts"] = _iso(row["ts"])
        row["ts_aligned"] = _iso(row.get("ts_aligned"))
        row["codes"] = ";".join(row["codes"] or [])
        writer.writerow(["" if row[name] is None else
                         _no_formula(neutralize(row[name])) if name in _TEXT_COLUMNS
                         else row[name] for name in TABLE_SCHEMA.names])
    return out.getvalue()


def table_rows(batch: pa.RecordBatch, header: bool) -> str:
    """Readable columns: time, level, module, host, pid, rank, device, where, and the first
    line of the message (absent values as ``-``)."""
    out = io.StringIO()
    if header:
        out.write(f"{'ts':26}  {'level':7}  {'module':9}  {'host':12}  {'pid':>8}  "
                  f"{'rank':>4}  {'dev':>3}  where / message\n")
    for row in batch.to_pylist():
        ts = row["ts"].isoformat(sep=" ", timespec="microseconds") if row["ts"] else "-"
        first = neutralize((row["message"] or "").split("\n", 1)[0])
        more = f" (+{row['line_count'] - 1} lines)" if row["line_count"] > 1 else ""
        level, module, host, path = (neutralize(row[k] or "-", keep_newlines=False)
                                     for k in ("level", "module", "host", "path"))
        pid, rank, device = ("-" if row[k] is None else row[k] for k in ("pid", "rank", "device"))
        out.write(f"{ts:26}  {level:7}  {module:9}  {host:12}  {pid:>8}  {rank:>4}  "
                  f"{device:>3}  {path}:{row['line']}{more}\n    {first}\n")
    return out.getvalue()


WRITERS: dict[str, Callable[[pa.RecordBatch, bool], str]] = {
    "table": table_rows,
    "csv": csv_rows,
    "jsonl": lambda batch, header: jsonl(batch),
}
