"""The processes of one run, the slot each stands in, and the process of every record.

Who a process is comes from the cross-rank identities (``crossrank.identity``): the rank its
logs announce or its path names, its host and pid. Processes are matched between two runs by
slot (``model.Slot``): by rank where it is known (the first, second... process of that rank,
in the order they started), else by their place among the processes that name no rank, in
the order they started on the run's aligned clock. Neither host names, pids nor clocks enter a
slot, so runs on other machines at other times still match.

``StreamMap`` gives the process of every record of a batch with one Arrow join on the
record's stream (its path, pasted section and pid), never a Python step per record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.compare.model import Process, Slot
from plogscan.crossrank.analyze import Context
from plogscan.crossrank.identity import Identities, Identity, ProcessKey
from plogscan.model import Finding, Level, Verdict

_NO_PID = -(1 << 62)  # a pid no record carries: stands for a missing one in the join keys
_FAILED = (Level.ERROR, Level.CRITICAL)


def processes_of(ctx: Context, findings: Sequence[Finding]
                 ) -> tuple[tuple[Process, ...], dict[ProcessKey, int]]:
    """The run's processes in slot order, and the index of each identity's process.

    A file whose records name no pid (a job's stdout before any error, an excerpt) is a
    process of its own in the cross-rank identities; when its path or content names a rank
    that a process with a pid also has, it is that process's file here (the one that was
    running when it started), so that two runs of one job match rank by rank whether or not
    their stdout happened to print a pid."""
    failed = _failed_processes(ctx, findings)
    idents = sorted(ctx.ids.processes.values(), key=lambda i: _start(ctx, i))
    real: dict[int, list[Identity]] = {}
    for ident in idents:
        if not ident.key.assumed and ident.rank is not None:
            real.setdefault(ident.rank, []).append(ident)
    owner: dict[ProcessKey, ProcessKey] = {}
    seen: dict[int | None, int] = {}
    slotted: list[tuple[Slot, Identity]] = []
    for ident in idents:
        if ident.key.assumed and ident.rank in real:
            owner[ident.key] = _running(ctx, real[ident.rank], ident).key
            continue
        nth = seen.get(ident.rank, 0)
        seen[ident.rank] = nth + 1
        slotted.append((Slot(ident.rank, nth), ident))
    slotted.sort(key=lambda pair: pair[0].order())
    index = {ident.key: i for i, (_, ident) in enumerate(slotted)}
    index.update({key: index[host] for key, host in owner.items()})
    records = [ident.records for _, ident in slotted]
    failing = [ident.errors > 0 or ident.key in failed for _, ident in slotted]
    for key, host in owner.items():
        ident = ctx.ids.processes[key]
        records[index[host]] += ident.records
        failing[index[host]] |= ident.errors > 0 or key in failed
    processes = tuple(
        Process(slot=slot, host=ident.host, pid=ident.pid, device=ident.device,
                failing=failing[i], records=records[i])
        for i, (slot, ident) in enumerate(slotted))
    return processes, index


def _running(ctx: Context, candidates: list[Identity], ident: Identity) -> Identity:
    """The process among ``candidates`` (in start order) that was running when ``ident``'s
    records start: the last one started by then, else the first."""
    start = _start(ctx, ident)
    found = candidates[0]
    for candidate in candidates[1:]:
        if _start(ctx, candidate) <= start:
            found = candidate
    return found


def _start(ctx: Context, ident: Identity) -> tuple:
    start = ctx.clock.align(ident, ident.first_ts)
    return (start is None, start or 0, ident.key)


def _failed_processes(ctx: Context, findings: Sequence[Finding]) -> set[ProcessKey]:
    """Processes with evidence of a matched finding at error or above."""
    out: set[ProcessKey] = set()
    for finding in findings:
        if finding.level not in _FAILED or finding.verdict is not Verdict.MATCH:
            continue
        for ev in finding.evidence:
            ident = ctx.identity(ev.path, ev.line, ev.pid)
            if ident is not None:
                out.add(ident.key)
    return out


class StreamMap:
    """The process index of every record of a batch (-1: no known process)."""

    def __init__(self, ids: Identities, index: Mapping[ProcessKey, int]) -> None:
        streams = [(stream, index[key]) for stream, key in ids.of_stream.items()
                   if key in index]
        self._table = pa.table({
            "path": pa.array([s.path for s, _ in streams], pa.string()),
            "segment": pa.array([s.segment for s, _ in streams], pa.int64()),
            "pid": pa.array([_NO_PID if s.pid is None else s.pid for s, _ in streams],
                            pa.int64()),
            "process": pa.array([i for _, i in streams], pa.int32()),
        })
        self._headers = {path: np.asarray(lines, np.int64)
                         for path, lines in ids.segmented.items()}

    def column(self, batch: pa.RecordBatch) -> np.ndarray:
        rows = batch.num_rows
        path = batch.column("path")
        if pa.types.is_dictionary(path.type):
            path = path.cast(pa.string())
        keys = pa.table({
            "path": path, "segment": pa.array(self._segments(path, batch.column("line"))),
            "pid": pc.fill_null(pc.cast(batch.column("pid"), pa.int64()), _NO_PID),
            "row": pa.array(np.arange(rows, dtype=np.int64)),
        })
        joined = keys.join(self._table, ["path", "segment", "pid"], join_type="inner",
                           use_threads=False)
        out = np.full(rows, -1, np.int32)
        out[joined.column("row").to_numpy()] = joined.column("process").to_numpy()
        return out

    def _segments(self, paths: pa.Array, lines: pa.Array) -> np.ndarray:
        """The pasted section of every row (0 outside pasted concatenations)."""
        out = np.zeros(len(paths), np.int64)
        if not self._headers:
            return out
        present = [p for p in pc.unique(paths).to_pylist() if p in self._headers]
        numbers = lines.to_numpy(zero_copy_only=False)
        for path in present:
            rows = np.flatnonzero(pc.fill_null(pc.equal(paths, path), False)
                                  .to_numpy(zero_copy_only=False))
            out[rows] = np.searchsorted(self._headers[path], numbers[rows], side="right")
        return out
