"""Attempts: the process lifetimes of one job directory, split into runs of the job.

A job restarted after a failure leaves a second set of processes (new pids) on the same
devices; a communicator re-initialised in the same process (``HcclCommResume``, a second
root-info set-up of the same communicator) starts a new run without a new pid. Each process
lifetime is cut at those points into pieces; pieces are taken in the order of their start on
aligned clocks, and a piece joins the latest attempt whose time span it meets unless that
attempt already holds a piece of the same device (two processes cannot drive one device at
once); otherwise it opens a new attempt. Device firmware and OS records (pid below 1) belong
to no process lifetime; their records fall into the attempt whose span holds them.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from plogscan.crossrank.clock import Clock
from plogscan.crossrank.identity import Identities, Identity, ProcessKey
from plogscan.crossrank.summary import Summary

_REINIT = frozenset({"setup-agent", "init-entry"})


@dataclass(frozen=True)
class Piece:
    key: ProcessKey
    start: int | None  # aligned
    end: int | None


@dataclass(frozen=True)
class Attempt:
    id: int  # 1, 2, ... in time order
    pieces: tuple[Piece, ...]
    first_ts: int | None
    last_ts: int | None
    keys: frozenset[ProcessKey] = frozenset()  # its processes


def _slot(ident: Identity) -> tuple | None:
    if ident.device is not None:
        return (ident.clock_host, "device", ident.device)
    if ident.rank is not None:
        return (ident.clock_host, "rank", ident.rank)
    return None


def _cuts(summary: Summary, ids: Identities, clock: Clock) -> dict[ProcessKey, list[int]]:
    """Aligned times at which a process starts a new run (resume, re-initialisation)."""
    cuts: dict[ProcessKey, list[int]] = {}
    seen: dict[tuple, int] = {}
    for m in summary.markers:
        key = ids.of_stream.get(m.stream)
        if m.kind == "resume" and key is not None and m.ts is not None:
            cuts.setdefault(key, []).append(clock.align(ids.processes[key], m.ts) or 0)
    for a in sorted(summary.announces, key=lambda a: (a.ts is None, a.ts or 0, a.line)):
        key = ids.of_stream.get(a.stream)
        if a.kind not in _REINIT or key is None or a.ts is None or not a.comm:
            continue
        n = seen.get((key, a.kind, a.comm), 0)
        seen[(key, a.kind, a.comm)] = n + 1
        if n:
            cuts.setdefault(key, []).append(clock.align(ids.processes[key], a.ts) or 0)
    return {k: sorted(set(v)) for k, v in cuts.items()}


class Attempts:
    """The attempts of the input, and which attempt a process's record belongs to."""

    def __init__(self, summary: Summary, ids: Identities, clock: Clock) -> None:
        self._ids = ids
        self._clock = clock
        cuts = _cuts(summary, ids, clock)
        pieces: list[Piece] = []
        untimed: list[ProcessKey] = []
        for key, ident in sorted(ids.processes.items(), key=lambda kv: _sort_key(kv[0])):
            if ident.pid is not None and ident.pid < 1:
                continue
            start, end = clock.align(ident, ident.first_ts), clock.align(ident, ident.last_ts)
            if start is None or end is None:
                untimed.append(key)
                continue
            inside = [c for c in cuts[key] if start < c <= end] if key in cuts else ()
            if not inside:  # one run: most processes
                pieces.append(Piece(key, start, end))
                continue
            bounds = [start, *inside, end]
            for i in range(len(bounds) - 1):
                pieces.append(Piece(key, bounds[i], bounds[i + 1] if i + 2 < len(bounds)
                                    else end))
        pieces.sort(key=lambda p: (p.start, *_sort_key(p.key)))
        groups: list[list[Piece]] = []
        end = 0
        taken: set = set()  # processes and device slots of the latest attempt
        processes = ids.processes
        for piece in pieces:
            slot = _slot(processes[piece.key])
            busy = piece.key in taken or (slot is not None and slot in taken)
            if groups and piece.start is not None and piece.start <= end and not busy:
                groups[-1].append(piece)
            else:
                groups.append([piece])
                end, taken = 0, set()
            end = max(end, piece.end or 0)
            taken.add(piece.key)
            if slot is not None:
                taken.add(slot)
        if untimed:
            if groups:
                groups[-1].extend(Piece(k, None, None) for k in untimed)
            else:
                groups.append([Piece(k, None, None) for k in untimed])
        self.list: tuple[Attempt, ...] = tuple(_attempt(n + 1, g) for n, g in enumerate(groups))
        self._index()

    def _index(self) -> None:
        """The lookups ``of`` uses, built from ``self.list``."""
        self._owned: dict[ProcessKey, list[Attempt]] = {}
        for attempt in self.list:
            for key in sorted(attempt.keys, key=_sort_key):
                self._owned.setdefault(key, []).append(attempt)
        # The timed attempts in order (their first times ascend, as groups open in start
        # order), with the running maximum of their last times: ``of`` finds a record's
        # attempt by bisection instead of trying every attempt.
        self._spans = [a for a in self.list if a.first_ts is not None]
        self._firsts = [a.first_ts for a in self._spans]
        reach, self._reach = -(1 << 62), []
        for a in self._spans:
            reach = max(reach, a.last_ts or 1 << 62)  # no last time: it holds what follows
            self._reach.append(reach)

    def holding(self, key: ProcessKey) -> list[int]:
        """The ids of the attempts process ``key`` took part in."""
        return [a.id for a in self._owned.get(key, ())]

    def of(self, key: ProcessKey | None, ts: int | None) -> int | None:
        """The attempt of a record of process ``key`` at aligned time ``ts``."""
        if not self.list:
            return None
        owned = self._owned.get(key, []) if key is not None else []
        if len(owned) == 1 or (owned and ts is None):
            return owned[0].id
        for attempt in owned:
            for piece in attempt.pieces:
                if piece.key == key and piece.start is not None and ts is not None and \
                        piece.start <= ts <= (piece.end or ts):
                    return attempt.id
        if ts is None:
            return self.list[-1].id
        if owned:
            spans = [a for a in owned if a.first_ts is not None]
            for attempt in spans:
                if attempt.first_ts <= ts <= (attempt.last_ts or ts):  # type: ignore[operator]
                    return attempt.id
            before = [a for a in spans if (a.first_ts or 0) <= ts]
            return (before[-1] if before else (spans or owned)[0]).id
        return self._by_time(ts)

    def of_rows(self, key: ProcessKey | None, ts: np.ndarray, timed: np.ndarray
                ) -> np.ndarray | None:
        """``of`` for many records of process ``key`` at once: ``ts`` their aligned times
        (µs), ``timed`` where a record has one. None when the input has no attempt."""
        if not self.list:
            return None
        owned = self._owned.get(key, []) if key is not None else []
        out = np.full(len(ts), (owned[0] if owned else self.list[-1]).id, np.int64)
        if len(owned) == 1 or not timed.any():
            return out
        if not owned:
            out[timed] = self._by_time_rows(ts[timed])
            return out
        todo = timed.copy()
        for attempt in owned:
            for piece in attempt.pieces:
                if piece.key == key and piece.start is not None:
                    hit = todo & (ts >= piece.start)
                    if piece.end:
                        hit &= ts <= piece.end
                    out[hit] = attempt.id
                    todo &= ~hit
        spans = [a for a in owned if a.first_ts is not None]
        for attempt in spans:
            hit = todo & (ts >= attempt.first_ts)  # type: ignore[operator]
            if attempt.last_ts:
                hit &= ts <= attempt.last_ts
            out[hit] = attempt.id
            todo &= ~hit
        if todo.any():
            fallback = np.full(len(ts), (spans or owned)[0].id, np.int64)
            for attempt in spans:  # the last one begun by then
                fallback[ts >= (attempt.first_ts or 0)] = attempt.id
            out[todo] = fallback[todo]
        return out

    def _by_time_rows(self, ts: np.ndarray) -> np.ndarray:
        """``_by_time`` of many times."""
        if not self._spans:
            return np.full(len(ts), self.list[0].id, np.int64)
        ids = np.array([a.id for a in self._spans], np.int64)
        begun = np.searchsorted(np.array(self._firsts, np.int64), ts, side="right")
        holding = np.minimum(np.searchsorted(np.array(self._reach, np.int64), ts, side="left"),
                             begun)
        return np.where(holding < begun, ids[np.minimum(holding, len(ids) - 1)],
                        ids[np.maximum(begun - 1, 0)])

    def _by_time(self, ts: int) -> int:
        """The first attempt whose span holds ``ts``, else the last one begun by then, else
        the first one (the attempts with a time span; the first attempt when none has one)."""
        if not self._spans:
            return self.list[0].id
        begun = bisect.bisect_right(self._firsts, ts)  # attempts begun by ts: [0, begun)
        holding = bisect.bisect_left(self._reach, ts, 0, begun)  # the first reaching ts
        if holding < begun:
            return self._spans[holding].id
        return self._spans[begun - 1 if begun else 0].id


def _sort_key(key: ProcessKey) -> tuple[str, int, str]:
    """``key``'s own order (its fields in turn), as a tuple built once for a sort instead of
    at every comparison."""
    return key.host, key.pid, key.file


def _attempt(number: int, pieces: list[Piece]) -> Attempt:
    if len(pieces) == 1:  # a process alone (a job of many short processes has many)
        piece = pieces[0]
        return Attempt(number, (piece,), piece.start, piece.end, frozenset((piece.key,)))
    return Attempt(number, tuple(pieces), _first(pieces), _last(pieces),
                   frozenset(p.key for p in pieces))


def _first(pieces: list[Piece]) -> int | None:
    times = [p.start for p in pieces if p.start is not None]
    return min(times) if times else None


def _last(pieces: list[Piece]) -> int | None:
    times = [p.end for p in pieces if p.end is not None]
    return max(times) if times else None
