"""What ``diagnose`` keeps of the event stream besides the rules' candidates.

The reports need a picture of the whole input, not only findings: which processes wrote
which levels (``ProcessInfo``) and the ERROR/WARNING records for timelines and the HTML events
table (``EventRow``). ``Overview`` watches the same batches the engine consumes and keeps only
small aggregates, so memory stays bounded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.model import EventRow, ProcessInfo
from plogscan.schema.grouping import grouped
from plogscan.schema.keys import HeldKeys, admitted

KEEP_EVENTS = 2000  # rows kept for reports, earliest first
MAX_PROCESSES = 20000  # processes described one by one; past it they are only counted
_COLLECT_LIMIT = 20000  # rows gathered before the earliest KEEP_EVENTS are chosen
_NOTABLE = pa.array(["ERROR", "WARNING"], pa.string())
MESSAGE_CHARS = 2000
_EVENT_COLUMNS = ["ts", "level", "module", "pid", "rank", "host", "device", "kind", "path",
                  "line", "message", "codes"]


@dataclass
class _Proc:
    levels: set[str] = field(default_factory=set)
    rank: int | None = None
    device: int | None = None
    first: datetime | None = None
    last: datetime | None = None


def _min(a: datetime | None, b: datetime | None) -> datetime | None:
    return b if a is None else a if b is None else min(a, b)


def _max(a: datetime | None, b: datetime | None) -> datetime | None:
    return b if a is None else a if b is None else max(a, b)


def event_row(row: dict) -> EventRow:
    """An ``EventRow`` from one event-table row (message cut to a readable size)."""
    message = row["message"] or ""
    if len(message) > MESSAGE_CHARS:
        message = message[:MESSAGE_CHARS] + " …"
    return EventRow(ts=row["ts"], level=row["level"], module=row["module"], pid=row["pid"],
                    rank=row["rank"], host=row["host"], device=row["device"], kind=row["kind"],
                    path=row["path"], line=row["line"], message=message,
                    codes=tuple(row["codes"] or ()))


def order_key(row: EventRow) -> tuple:
    return (row.ts is None, row.ts or datetime.min, row.path, row.line)


_KEYS = pa.schema([pa.field("host", pa.string()), pa.field("pid", pa.int64())])


def _key_hashes(hosts: pa.ChunkedArray, pids: pa.ChunkedArray) -> np.ndarray:
    """A 64-bit hash of each (host, pid): the host's (one per distinct host) mixed with the
    pid."""
    encoded = pc.dictionary_encode(hosts.combine_chunks()
                                   if isinstance(hosts, pa.ChunkedArray) else hosts)
    per_host = np.array([hash(h) & 0xFFFFFFFFFFFFFFFF for h in encoded.dictionary.to_pylist()]
                        + [0x9E3779B97F4A7C15], np.uint64)  # the last one: no host
    index = pc.fill_null(encoded.indices, len(per_host) - 1).to_numpy(zero_copy_only=False)
    pid = pc.fill_null(pids, 0).to_numpy(zero_copy_only=False).astype(np.uint64)
    with np.errstate(over="ignore"):
        return per_host[index] * np.uint64(0x100000001B3) ^ pid


def _sorted_union(held: np.ndarray, new: np.ndarray) -> np.ndarray:
    """The distinct values of a sorted distinct array and any other, sorted (a stable sort
    of the sorted run and the new values, then one pass that drops repeats)."""
    both = np.concatenate([held, np.sort(new)])
    both.sort(kind="stable")
    if len(both) < 2:
        return both
    return both[np.concatenate(([True], both[1:] != both[:-1]))]


class Overview:
    """Aggregates over every batch: processes and notable records."""

    def __init__(self, max_processes: int = MAX_PROCESSES) -> None:
        self._procs: dict[tuple[str | None, int], _Proc] = {}
        # The ERROR and WARNING records seen (the first ``_COLLECT_LIMIT``), as Arrow: only
        # the earliest of them become ``EventRow`` objects (``events``).
        self._notable: list[pa.Table] = []
        self._collected = 0
        self.events_truncated = False
        self.max_processes = max_processes
        # Hashes of the processes past the cap (8 bytes each, sorted): counted, not described.
        self._omitted = np.zeros(0, np.uint64)
        self._held = HeldKeys(_KEYS)  # the (host, pid) of the processes described

    @property
    def processes_omitted(self) -> int:
        """Processes seen past ``max_processes``: counted, not described."""
        return len(self._omitted)

    def consume(self, batch: pa.RecordBatch, processes: bool = True) -> None:
        """Fold one batch in; ``processes=False`` when the per-process picture comes from
        facts (``consume_facts``) instead, as when the batches hold only selected records."""
        table = pa.Table.from_batches([batch])
        if processes:
            self._processes(table)
        notable = np.flatnonzero(pc.fill_null(pc.is_in(table.column("level"),
                                                       value_set=_NOTABLE), False))
        if notable.size == 0:
            return
        if self._collected >= _COLLECT_LIMIT:
            self.events_truncated = True
            return
        room = _COLLECT_LIMIT - self._collected
        if notable.size > room:
            self.events_truncated = True
            notable = notable[:room]
        rows = table.select(_EVENT_COLUMNS).take(pa.array(notable))
        # Enough of each message to tell whether it is longer than MESSAGE_CHARS.
        cut = pc.utf8_slice_codeunits(rows.column("message"), 0, MESSAGE_CHARS + 1)
        self._notable.append(rows.set_column(rows.schema.get_field_index("message"),
                                             "message", cut))
        self._collected += notable.size

    def _processes(self, table: pa.Table) -> None:
        with_pid = table.filter(pc.is_valid(table.column("pid")))
        if with_pid.num_rows == 0:
            return
        grouped = self._within_cap(_by_process(with_pid, [
            ("level", "distinct"), ("rank", "min"), ("device", "min"), ("ts", "min"),
            ("ts", "max")]))
        for g in grouped.to_pylist():  # one row per process in this batch
            proc = self._procs.setdefault((g["host"], g["pid"]), _Proc())
            proc.levels.update(level for level in g["level_distinct"] if level)
            proc.rank = proc.rank if proc.rank is not None else g["rank_min"]
            proc.device = proc.device if proc.device is not None else g["device_min"]
            proc.first = _min(proc.first, g["ts_min"])
            proc.last = _max(proc.last, g["ts_max"])

    def consume_facts(self, facts: pa.Table) -> None:
        """The per-process picture from a facts table (``ingest.facts.facts_of``)."""
        with_pid = facts.filter(pc.is_valid(facts.column("pid")))
        if with_pid.num_rows == 0:
            return
        grouped = self._within_cap(_by_process(with_pid, [
            ("level", "distinct"), ("rank", "min"), ("device", "min"), ("first_ts", "min"),
            ("last_ts", "max")]))
        for g in grouped.to_pylist():
            proc = self._procs.setdefault((g["host"], g["pid"]), _Proc())
            proc.levels.update(level for level in g["level_distinct"] if level)
            proc.rank = proc.rank if proc.rank is not None else g["rank_min"]
            proc.device = proc.device if proc.device is not None else g["device_min"]
            proc.first = _min(proc.first, g["first_ts_min"])
            proc.last = _max(proc.last, g["last_ts_max"])

    def _within_cap(self, grouped: pa.Table) -> pa.Table:
        """The rows of known processes and of new ones while there is room, in the order
        they come (``_by_process``); the others are only counted (by a hash of host and
        pid). One row per process."""
        room = max(self.max_processes - len(self._procs), 0)
        if grouped.num_rows <= room:
            return grouped
        keep, omitted = admitted(grouped, self._held.table(len(self._procs),
                                                           lambda: self._procs), room)
        if len(omitted):
            take = pa.array(omitted)
            self._omitted = _sorted_union(self._omitted, _key_hashes(
                grouped.column("host").take(take), grouped.column("pid").take(take)))
        return grouped.filter(pa.array(keep))

    def processes(self) -> tuple[ProcessInfo, ...]:
        out = [ProcessInfo(host=host, pid=pid, rank=p.rank, device=p.device,
                           levels=tuple(sorted(p.levels)), first_ts=p.first, last_ts=p.last)
               for (host, pid), p in self._procs.items()]
        out.sort(key=lambda p: (p.rank is None, p.rank or 0, p.host or "", p.pid))
        return tuple(out)

    def events(self, extra: list[EventRow]) -> tuple[tuple[EventRow, ...], bool]:
        """Notable records plus ``extra`` (finding evidence), de-duplicated, earliest first."""
        notable, dropped = self._earliest(KEEP_EVENTS + len(extra))
        seen: dict[tuple[str, int], EventRow] = {}
        for row in sorted([*notable, *extra], key=order_key):
            seen.setdefault((row.path, row.line), row)
        rows = sorted(seen.values(), key=order_key)
        truncated = self.events_truncated or dropped or len(rows) > KEEP_EVENTS
        return tuple(rows[:KEEP_EVENTS]), truncated

    def _earliest(self, count: int) -> tuple[list[EventRow], bool]:
        """The ``count`` earliest notable records (``order_key``), and whether there were more.

        Only those can be among the ``KEEP_EVENTS`` that ``events`` keeps: each of the
        ``extra`` rows takes the place of at most one notable record (the one at its path and
        line). Converting only them to Python spares thousands of rows that would be sorted
        out."""
        if not self._notable:
            return [], False
        table = pa.concat_tables(self._notable)
        dropped = table.num_rows > count
        if dropped:
            order = pc.sort_indices(table, sort_keys=[("ts", "ascending"), ("path", "ascending"),
                                                      ("line", "ascending")])  # nulls last
            table = table.take(order[:count])
        return [event_row(r) for r in table.to_pylist()], dropped


def _by_process(table: pa.Table, aggregations: list[tuple[str, str]]) -> pa.Table:
    """``aggregations`` per (host, pid) of ``table``, one row per process in the order the
    processes first come (which ones a capped overview holds must not depend on how their
    keys hash)."""
    return grouped(table, ["host", "pid"], aggregations, in_order=True)
