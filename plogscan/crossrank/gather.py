"""``Gatherer``: the per-process summary of the event stream, built in the same pass.

It watches the record batches the engine reads (like ``Overview``) and keeps only what the
cross-rank stage needs (``plogscan.crossrank.summary``). Per batch it runs a handful of Arrow
kernels over all rows: one group-by for the per-stream counters and one RE2 alternation
(``patterns.PREFILTER``) that finds the few rows worth reading. Only those rows reach Python.
Collective entry logs can be frequent (one per collective): ``entries`` numbers and samples
them.

Every list has a cap; records past it are counted in ``Summary.dropped``. The summary can
equally be computed from prefiltered records: it only needs the rows the prefilter selects
plus the per-stream counters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.crossrank import patterns as p
from plogscan.crossrank.anchors import read_anchor
from plogscan.crossrank.entries import Entries
from plogscan.crossrank.prefilter import prefiltered_rows
from plogscan.crossrank.streamfacts import count_from_facts, held_keys, note_whole, rows_in_whole
from plogscan.crossrank.summary import MAX_STREAMS, Segment, StreamKey, StreamStats, Summary
from plogscan.schema import batch_bytes, orderable_text, text_equals

MAX_SEGMENTS = 10_000
MAX_RECORDS = 100_000  # per list of anchor records (announces, waits, settings...)
MAX_SETTINGS_PER_STREAM = 256
MAX_ANCHORS_PER_STREAM = 1024  # anchor records read per stream (a flood of one shape is capped)
# Small batches (one per small file) are joined up to this size before they are read: the
# per-batch kernels then run once per 64 Ki rows, not once per file.
JOIN_ROWS = 65536
JOIN_BYTES = 16 << 20
_COLUMNS = ("path", "pid", "line", "ts", "message", "level", "kind", "host", "rank", "device",
            "clock_epoch")


@dataclass
class _Stream:
    kind: str
    host: str | None
    rank: int | None = None
    device: int | None = None
    first_ts: int | None = None
    last_ts: int | None = None
    first_line: int = 0
    last_line: int = 0
    records: int = 0
    errors: int = 0
    epoch: int = 0
    settings: int = 0
    anchors: int = 0


def _min(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def _max(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else max(a, b)


class Gatherer:
    """Consumes event batches; ``summary()`` returns what it kept."""

    def __init__(self) -> None:
        self._streams: dict[StreamKey, _Stream] = {}
        self._held = held_keys()  # their file keys, for facts past the cap
        self._headers: dict[str, list[int]] = {}  # path -> header lines, ascending
        self._segments: list[Segment] = []
        self._lists: dict[str, list[Any]] = {name: [] for name in (
            "announces", "waits", "tasks", "heartbeats", "settings", "markers", "faults",
            "rosters")}
        self._entries = Entries(self._drop)
        self._dropped: dict[str, int] = {}
        self._pending: list[pa.RecordBatch] = []
        self._pending_rows = self._pending_bytes = 0
        self._count_all = True
        self._whole: dict[str, list[tuple[int, int]]] = {}  # path -> line ranges kept whole
        self._pending_facts: list[pa.Table] = []  # facts rows not yet counted, in order
        self._pending_facts_rows = 0

    # ------------------------------------------------------------------ per batch

    def consume(self, batch: pa.RecordBatch, count: bool = True) -> None:
        """Take one record batch (held until enough rows are pending to read them at once).

        ``count=False``: the batch holds only the records a reducer kept, and the streams of
        every record are counted from facts (``consume_facts``) instead, except where the
        facts say every record was kept (job stdout, system logs, pasted concatenations: their
        sections are read from the records): those are counted here."""
        if batch.num_rows == 0:
            return
        self._count_all = count
        self._pending.append(batch)
        self._pending_rows += batch.num_rows
        self._pending_bytes += batch_bytes(batch)
        if self._pending_rows >= JOIN_ROWS or self._pending_bytes >= JOIN_BYTES:
            self._flush()

    def _flush(self) -> None:
        self._count_facts()  # streams are counted in arrival order (the cap keeps the first)
        pending, self._pending = self._pending, []
        self._pending_rows = self._pending_bytes = 0
        if pending:
            self._read(pending[0] if len(pending) == 1 else pa.concat_batches(pending))

    def _read(self, batch: pa.RecordBatch) -> None:
        names = batch.schema.names
        cols = {n: batch.column(names.index(n)) for n in _COLUMNS if n in names}
        message = cols["message"]
        idx = prefiltered_rows(message)
        found = message.take(pa.array(idx))  # the few rows any later test looks at
        self._find_segments(cols, found, idx)
        segment = self._segment_column(cols)
        if self._count_all:
            self._count_streams(cols, segment)
        elif self._whole:  # the records of whole chunks: the others were counted from facts
            rows = self._in_whole(cols)
            if len(rows):
                take = pa.array(rows)
                self._count_streams({n: c.take(take) for n, c in cols.items()},
                                    segment[rows] if segment is not None else None)
        if len(idx) == 0:
            return
        entry = pc.fill_null(pc.match_substring(found, "Entry-Hccl"), False).to_numpy(
            zero_copy_only=False)
        if entry.any():  # the entry of a communicator's set-up announces a rank: an anchor
            entry &= ~pc.fill_null(pc.match_substring(found, "RootInfo"), False).to_numpy(
                zero_copy_only=False)
        if (~entry).any():
            self._anchors(cols, segment, idx[~entry])
        if entry.any():
            self._entries.read(cols, segment, idx[entry], pidless_rank(cols))

    def _find_segments(self, cols: dict[str, pa.Array], found: pa.Array, idx: np.ndarray
                       ) -> None:
        header = pc.fill_null(pc.match_substring(found, "==> "), False)
        message = cols["message"]
        rows = idx[header.to_numpy(zero_copy_only=False)]
        for i in rows:
            text = message[int(i)].as_py() or ""
            path = cols["path"][int(i)].as_py() or ""
            line = cols["line"][int(i)].as_py() or 0
            for m in p.SEGMENT.finditer(text):
                at = line + text.count("\n", 0, m.start())
                lines = self._headers.setdefault(path, [])
                if lines and at <= lines[-1]:
                    continue
                if len(self._segments) >= MAX_SEGMENTS:
                    self._drop("segments")
                    continue
                lines.append(at)
                self._segments.append(Segment(path, len(lines), at, m.group("name").strip()))

    def _segment_column(self, cols: dict[str, pa.Array]) -> np.ndarray | None:
        """The section index of every row (None when no file of the batch has sections)."""
        if not self._headers:
            return None
        paths = cols["path"]
        present = [v for v in pc.unique(paths).to_pylist() if v in self._headers]
        if not present:
            return None
        out = np.zeros(len(paths), np.int64)
        lines = cols["line"].to_numpy(zero_copy_only=False)
        for path in present:
            rows = np.flatnonzero(text_equals(paths, path))
            out[rows] = np.searchsorted(np.asarray(self._headers[path]), lines[rows],
                                        side="right")
        return out

    def consume_facts(self, facts: pa.Table) -> None:
        """Count the streams the facts summarize (``streamfacts``): chunks kept whole noted
        at once, the other rows in bulk (a cached rerun hands on a table per file)."""
        rows = note_whole(self, facts)
        if rows.num_rows:
            self._pending_facts.append(rows)
            self._pending_facts_rows += rows.num_rows
            if self._pending_facts_rows >= JOIN_ROWS:
                self._count_facts()

    def _count_facts(self) -> None:
        pending, self._pending_facts, self._pending_facts_rows = self._pending_facts, [], 0
        if pending:
            count_from_facts(self, pa.concat_tables(pending).combine_chunks())

    def _in_whole(self, cols: dict[str, pa.Array]) -> np.ndarray:
        return rows_in_whole(self._whole, cols)

    def _add_stream(self, key: StreamKey, kind: str | None, host: str | None,
                    first_line: int, last_line: int, first_ts: int | None,
                    last_ts: int | None, records: int, errors: int | None,
                    epoch: int | None, rank: int | None, device: int | None) -> None:
        stream = self._streams.get(key)
        if stream is None:
            if len(self._streams) >= MAX_STREAMS:
                self._drop("streams", records)
                return
            stream = self._streams[key] = _Stream(kind=kind or "", host=host,
                                                  first_line=first_line)
        stream.rank = _min(stream.rank, rank)
        stream.device = _min(stream.device, device)
        stream.first_ts = _min(stream.first_ts, first_ts)
        stream.last_ts = _max(stream.last_ts, last_ts)
        stream.first_line = min(stream.first_line, first_line)
        stream.last_line = max(stream.last_line, last_line)
        stream.records += records
        stream.errors += errors or 0
        stream.epoch += epoch or 0

    def _count_streams(self, cols: dict[str, pa.Array], segment: np.ndarray | None) -> None:
        seg = pa.array(segment if segment is not None else np.zeros(len(cols["path"]), np.int64))
        ts = pc.cast(cols["ts"], pa.int64())
        kind, kind_text = orderable_text(cols["kind"])  # ingest's encoded text stays encoded
        host, host_text = orderable_text(cols["host"])
        table = pa.table({
            "path": cols["path"], "segment": seg, "pid": cols["pid"],
            "prank": pidless_rank(cols), "ts": ts,
            "line": cols["line"], "kind": kind, "host": host,
            "rank": cols["rank"], "device": cols["device"],
            "error": pa.array(text_equals(cols["level"], "ERROR").astype(np.int64)),
            "epoch": pc.cast(pc.fill_null(cols["clock_epoch"], False), pa.int64()),
        })
        grouped = table.group_by(["path", "segment", "pid", "prank"], use_threads=False
                                 ).aggregate([
            ("ts", "min"), ("ts", "max"), ("line", "min"), ("line", "max"), ("line", "count"),
            ("error", "sum"), ("epoch", "sum"), ("rank", "min"), ("device", "min"),
            ("kind", "min"), ("host", "min")])
        for g in grouped.to_pylist():
            self._add_stream(StreamKey(g["path"] or "", g["segment"], g["pid"], g["prank"]),
                             kind_text(g["kind_min"]), host_text(g["host_min"]), g["line_min"],
                             g["line_max"], g["ts_min"], g["ts_max"], g["line_count"],
                             g["error_sum"], g["epoch_sum"], g["rank_min"], g["device_min"])

    # ------------------------------------------------------------------ anchor rows

    def _rows(self, cols: dict[str, pa.Array], segment: np.ndarray | None, idx: np.ndarray,
              names: tuple[str, ...]) -> list[dict[str, Any]]:
        take = pa.array(idx)
        data = {n: (pc.cast(cols[n], pa.int64()) if n == "ts" else cols[n]).take(take)
                for n in names}
        data["segment"] = pa.array(segment[idx] if segment is not None
                                   else np.zeros(len(idx), np.int64))
        return pa.table(data).to_pylist()

    def _anchors(self, cols: dict[str, pa.Array], segment: np.ndarray | None,
                 idx: np.ndarray) -> None:
        """Read the anchor rows ``idx``: of each distinct message of a stream in this batch only
        its first and last occurrence (a line repeated in a retry loop says nothing new), and
        at most ``MAX_ANCHORS_PER_STREAM`` rows per stream in all."""
        take = pa.array(idx)
        seg = segment[idx] if segment is not None else np.zeros(len(idx), np.int64)
        prank = pidless_rank(cols).take(take)
        found = pa.table({"path": cols["path"].take(take), "segment": pa.array(seg),
                          "pid": cols["pid"].take(take), "prank": prank,
                          "message": cols["message"].take(take),
                          "i": pa.array(np.arange(len(idx)))})
        grouped = found.group_by(["path", "segment", "pid", "prank", "message"],
                                 use_threads=False).aggregate([("i", "min"), ("i", "max")])
        firsts = grouped.column("i_min").to_numpy()
        lasts = grouped.column("i_max").to_numpy()
        self._drop("repeated anchor rows", len(idx) - len(np.union1d(firsts, lasts)))
        keep = idx[np.union1d(firsts, lasts)]
        pranks = pidless_rank(cols).take(pa.array(keep)).to_pylist()
        for row, prank in zip(self._rows(cols, segment, keep, ("path", "pid", "line", "ts",
                                                               "message")), pranks, strict=True):
            key = StreamKey(row["path"] or "", row["segment"], row["pid"], prank)
            stream = self._streams.get(key)
            if stream is not None:
                if stream.anchors >= MAX_ANCHORS_PER_STREAM:
                    self._drop("anchors")
                    continue
                stream.anchors += 1
            read_anchor(self, key, row["line"] or 0, row["ts"], row["message"] or "")

    def add(self, name: str, item: Any) -> None:
        """Keep one anchor record (``name`` is one of the summary's lists), within its cap."""
        if name == "settings":
            stream = self._streams.get(item.stream)
            if stream is not None:
                if stream.settings >= MAX_SETTINGS_PER_STREAM:
                    self._drop(name)
                    return
                stream.settings += 1
        target = self._lists[name]
        if len(target) >= MAX_RECORDS:
            self._drop(name)
            return
        target.append(item)

    def _drop(self, name: str, count: int = 1) -> None:
        self._dropped[name] = self._dropped.get(name, 0) + count

    # ------------------------------------------------------------------ result

    def summary(self) -> Summary:
        self._count_facts()
        self._flush()
        streams = tuple(StreamStats(
            key=k, kind=s.kind, host=s.host, rank=s.rank, device=s.device, first_ts=s.first_ts,
            last_ts=s.last_ts, first_line=s.first_line, last_line=s.last_line,
            records=s.records, errors=s.errors, epoch_records=s.epoch)
            for k, s in sorted(self._streams.items(), key=lambda kv: kv[0].order()))
        entries, counts = self._entries.kept()
        lists = self._lists
        return Summary(
            streams=streams, segments=tuple(self._segments),
            announces=tuple(lists["announces"]), waits=tuple(lists["waits"]),
            tasks=tuple(lists["tasks"]), heartbeats=tuple(lists["heartbeats"]),
            entries=entries, entry_counts=counts,
            settings=tuple(lists["settings"]), markers=tuple(lists["markers"]),
            faults=tuple(lists["faults"]), rosters=tuple(lists["rosters"]),
            dropped=tuple(sorted(self._dropped.items())))


def pidless_rank(cols: dict[str, pa.Array]) -> pa.Array:
    """The rank of each record that carries no pid (``[rank3]:`` in a paste of several ranks'
    lines), null where the record has a pid: records without a pid are told apart by it."""
    rank = cols.get("rank")
    if rank is None:
        return pa.nulls(len(cols["pid"]), pa.int64())
    return pc.if_else(pc.is_null(cols["pid"]), rank, pa.scalar(None, rank.type))
