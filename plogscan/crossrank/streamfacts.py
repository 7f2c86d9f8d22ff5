"""Stream counters of the cross-rank summary from facts, for records a reducer dropped.

``diagnose`` hands the ``Gatherer`` only the records some stage can use; the per-stream
counters (records, errors, 1970 clocks, time and line ranges per (path, pid)) of all the others
come from the facts the parse workers computed over every record (``ingest.facts``). Facts
whose chunk was handed on whole (job stdout, system logs, pasted concatenations with
``==> path <==`` sections, or simply nothing dropped) are not counted here: their records are,
as without a reducer, so that sections are counted as the records say.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.crossrank.summary import MAX_STREAMS, StreamKey
from plogscan.schema import orderable_text, text_equals
from plogscan.schema.grouping import grouped
from plogscan.schema.keys import HeldKeys, admitted


def note_whole(gatherer: Any, facts: pa.Table) -> pa.Table:
    """Note the line ranges of the chunks a facts table says were handed on whole (their
    records are counted from the records, so this must come before them), and return the
    other rows, to be counted by ``count_from_facts``."""
    whole = facts.column("whole").to_numpy(zero_copy_only=False)
    if not whole.any():
        return facts
    for path, first, last in zip(*(facts.column(n).filter(pa.array(whole)).to_pylist()
                                   for n in ("path", "first_line", "last_line")),
                                 strict=True):
        gatherer._whole.setdefault(path or "", []).append((first, last))
    return facts.filter(pa.array(~whole))


def count_from_facts(gatherer: Any, facts: pa.Table) -> None:
    """Count the streams (path, pid) of the records a facts table summarizes
    (``ingest.facts.facts_of``), as ``consume`` counts them from the records; job stdout
    and system logs are counted from their records instead. The counts are minima, maxima
    and sums: facts tables may be counted in bulk, later, in their order."""
    rows = note_whole(gatherer, facts)
    if rows.num_rows == 0:
        return
    error = pc.if_else(pc.fill_null(pc.equal(rows.column("level"), "ERROR"), False),
                       rows.column("records"), 0)
    # The file's kind and host stay encoded (``orderable_text``), not spelled out per row.
    kind, kind_text = orderable_text(rows.column("kind").combine_chunks())
    host, host_text = orderable_text(rows.column("host").combine_chunks())
    table = pa.table({
        "path": rows.column("path"), "pid": rows.column("pid"),
        "first_ts": pc.cast(rows.column("first_ts"), pa.int64()),
        "last_ts": pc.cast(rows.column("last_ts"), pa.int64()),
        "first_line": rows.column("first_line"), "last_line": rows.column("last_line"),
        "records": rows.column("records"), "error": error,
        "epoch": rows.column("epoch_records"), "rank": rows.column("rank"),
        "device": rows.column("device"), "kind": kind, "host": host})
    groups = grouped(table, ["path", "pid"], [
        ("first_ts", "min"), ("last_ts", "max"), ("first_line", "min"),
        ("last_line", "max"), ("records", "sum"), ("error", "sum"), ("epoch", "sum"),
        ("rank", "min"), ("device", "min"), ("kind", "min"), ("host", "min")], in_order=True)
    for g in _within_cap(gatherer, groups).to_pylist():
        gatherer._add_stream(StreamKey(g["path"] or "", 0, g["pid"]), kind_text(g["kind_min"]),
                         host_text(g["host_min"]), g["first_line_min"], g["last_line_max"],
                         g["first_ts_min"], g["last_ts_max"], g["records_sum"],
                         g["error_sum"], g["epoch_sum"], g["rank_min"], g["device_min"])


def _within_cap(gatherer: Any, grouped: pa.Table) -> pa.Table:
    """The rows ``_add_stream`` would take (streams held, and new ones while there is room,
    in order); the records of the others are counted as dropped here, at once (one row per
    stream: past the cap a run of a million processes would otherwise cost a Python step
    each)."""
    room = max(MAX_STREAMS - len(gatherer._streams), 0)
    if grouped.num_rows <= room:
        return grouped
    streams = gatherer._streams
    held = gatherer._held.table(len(streams), lambda: ((k.path, k.pid) for k in streams
                                                       if k.segment == 0))
    keep, dropped = admitted(grouped, held, room)
    if len(dropped):
        records = grouped.column("records_sum").take(pa.array(dropped))
        gatherer._drop("streams", int(pc.sum(records).as_py() or 0))
    return grouped.filter(pa.array(keep))


def held_keys() -> HeldKeys:
    """The file keys (path, pid) of the streams a gatherer holds (segment 0)."""
    return HeldKeys(pa.schema([pa.field("path", pa.string()), pa.field("pid", pa.int64())]))


def rows_in_whole(whole: dict[str, list[tuple[int, int]]], cols: dict[str, pa.Array]
                  ) -> np.ndarray:
    """Rows whose (path, line) lies in a chunk whose facts said it was kept whole."""
    paths = cols["path"]
    lines = cols["line"].to_numpy(zero_copy_only=False)
    inside = np.zeros(len(lines), bool)
    for path in pc.unique(paths).to_pylist():
        ranges = whole.get(path or "")
        if not ranges:
            continue
        rows = np.flatnonzero(text_equals(paths, path))
        merged: list[list[int]] = []  # one chunk's ranges overlap (one per module and level)
        for first, last in sorted(ranges):
            if merged and first <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], last)
            else:
                merged.append([first, last])
        firsts = np.array([a for a, _ in merged])
        lasts = np.array([b for _, b in merged])
        at = np.searchsorted(firsts, lines[rows], side="right") - 1
        inside[rows] = (at >= 0) & (lines[rows] <= lasts[np.maximum(at, 0)])
    return np.flatnonzero(inside)
