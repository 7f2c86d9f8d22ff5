"""Findings and event rows as pandas DataFrames with Arrow-backed columns (for notebooks).

``Diagnosis.findings_frame`` and ``Diagnosis.events_frame`` build them. The columns are typed
by an Arrow schema (so an empty frame has them too, and a missing value is ``<NA>``, not
``NaN`` or ``None`` of an ``object`` column). pandas is imported here, when a frame is asked
for, never when ``plogscan`` is: ``pandas_module`` says how to install it when it is missing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from plogscan.model.findings import EventRow, Finding

if TYPE_CHECKING:
    import pandas as pd

FINDING_SCHEMA = pa.schema([
    ("id", pa.string()), ("fingerprint", pa.string()), ("rule", pa.string()),
    ("name", pa.string()), ("title", pa.string()), ("category", pa.string()),
    ("level", pa.string()), ("verdict", pa.string()), ("role", pa.string()),
    ("rank_role", pa.string()), ("attempt", pa.int32()),
    ("hosts", pa.list_(pa.string())), ("ranks", pa.list_(pa.int32())),
    ("devices", pa.list_(pa.int32())), ("pids", pa.list_(pa.int64())),
    ("identity_source", pa.string()),
    ("first_ts", pa.timestamp("us")), ("last_ts", pa.timestamp("us")),
    ("description", pa.large_string()), ("evidence", pa.int32()),
    ("path", pa.string()), ("line", pa.int64()),
])
EVENT_ROW_SCHEMA = pa.schema([
    ("ts", pa.timestamp("us")), ("ts_aligned", pa.timestamp("us")), ("level", pa.string()),
    ("module", pa.string()), ("pid", pa.int64()), ("rank", pa.int32()), ("host", pa.string()),
    ("device", pa.int32()), ("kind", pa.string()), ("path", pa.string()), ("line", pa.int64()),
    ("message", pa.large_string()), ("codes", pa.list_(pa.string())),
])


def pandas_module() -> Any:
    """pandas, or an ImportError that says how to install it."""
    try:
        import pandas
    except ImportError as err:
        raise ImportError("plogscan's DataFrames need pandas (a dependency of plogscan), "
                          f"which cannot be imported ({err}): pip install 'pandas>=2.0'"
                          ) from err
    return pandas


def frame(table: pa.Table) -> pd.DataFrame:
    """``table`` as a DataFrame whose columns keep their Arrow types (``pd.ArrowDtype``)."""
    pd = pandas_module()
    return table.to_pandas(types_mapper=pd.ArrowDtype)


def findings_table(findings: Iterable[Finding]) -> pa.Table:
    """One row per finding, in the diagnosis's order: what it is, where, when, and its first
    evidence record (``evidence`` counts them all)."""
    rows = []
    for f in findings:
        first = f.evidence[0] if f.evidence else None
        rows.append({
            "id": f.id or None, "fingerprint": f.fingerprint, "rule": f.rule, "name": f.name,
            "title": f.title, "category": f.category, "level": f.level.value,
            "verdict": f.verdict.value, "role": f.role, "rank_role": f.rank_role,
            "attempt": f.attempt, "hosts": list(f.scope.hosts), "ranks": list(f.scope.ranks),
            "devices": list(f.scope.devices), "pids": list(f.scope.pids),
            "identity_source": f.scope.identity, "first_ts": _naive(f.first_ts),
            "last_ts": _naive(f.last_ts), "description": f.description,
            "evidence": len(f.evidence), "path": first.path if first else None,
            "line": first.line if first else None,
        })
    return pa.Table.from_pylist(rows, schema=FINDING_SCHEMA)


def events_table(events: Iterable[EventRow]) -> pa.Table:
    """One row per event row the diagnosis kept (ERROR and WARNING records, and every
    finding's evidence records)."""
    rows = [{"ts": _naive(e.ts), "ts_aligned": _naive(e.ts_aligned), "level": e.level,
             "module": e.module, "pid": e.pid, "rank": e.rank, "host": e.host,
             "device": e.device, "kind": e.kind, "path": e.path, "line": e.line,
             "message": e.message, "codes": list(e.codes)} for e in events]
    return pa.Table.from_pylist(rows, schema=EVENT_ROW_SCHEMA)


def _naive(ts: Any) -> Any:
    """Times as the logs wrote them (no time zone), as the event table has them."""
    if ts is not None and getattr(ts, "tzinfo", None) is not None:
        return ts.replace(tzinfo=None)
    return ts
