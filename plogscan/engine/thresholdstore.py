"""Candidate records of a threshold rule, reduced to each group's densest window.

A threshold finding (``correlate.threshold``) shows how many records its group's densest
window holds (the first window, in (ts, path, line) order, whose first and last records lie at
most ``within`` apart and that holds the most records) and that window's first
``MAX_PER_STEP`` records. An error storm can be millions of candidates, so they stay Arrow in
bounded memory (``candidatestore``) and the windows are found vectorized at the end, per group:
each record's window is the run of its group's records from the first one at most ``within``
before it, found by one binary search over the group's times laid end to end. Only the first
records of the densest windows of groups that reach ``count`` become ``Row`` values, so the
findings are those of ``correlate.threshold`` over every record. A ``by`` key that the match
captures (``(?P<comm>...)``) is extracted batch by batch and kept beside the candidates as a
column of its own.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.catalog.rule import Condition, Rule, Threshold
from plogscan.engine.arrowrows import group_numbers, machine_order, with_captures
from plogscan.engine.candidatestore import CandidateStore
from plogscan.engine.correlate import MAX_PER_STEP, Occurrence, Row, bundle, sort_key
from plogscan.schema import COLUMNS

# The groups' times laid end to end must stay clear of int64's end; past it, group by group.
_LAID_OUT_MAX = 1 << 62


def eligible(rule: Rule) -> bool:
    """A threshold rule: its group keys are columns of the event table or captures of its
    match (``correlate.group_key`` looks a name up in that order)."""
    body = rule.body
    return isinstance(body, Threshold) and all(
        name in COLUMNS or name in body.cond.captures for name in body.by)


def window_starts(times: np.ndarray, starts: np.ndarray, within: int) -> np.ndarray:
    """For each record (``times`` ascending within each group; groups begin at ``starts``),
    the position of the first record of its group at most ``within`` before it."""
    n = len(times)
    sizes = np.diff(np.append(starts, n))
    group = np.repeat(np.arange(len(starts)), sizes)
    first, last = times[starts], times[starts + sizes - 1]
    spans = last - first
    # A window never holds more than its group's span: ``reach`` is ``within`` where it is
    # smaller, and the groups are laid end to end with gaps no window can bridge.
    reach = min(within, int(spans.max()))
    room = spans + reach + 1
    if int(room.sum(dtype=object)) < _LAID_OUT_MAX:
        offsets = np.cumsum(room) - room
        laid = times - first[group] + offsets[group]
        return np.searchsorted(laid, laid - reach, side="left")
    out = np.empty(n, np.int64)
    for start, size in zip(starts.tolist(), sizes.tolist(), strict=True):
        part = times[start:start + size]
        out[start:start + size] = start + np.searchsorted(part, part - reach, side="left")
    return out


class ThresholdStore(CandidateStore):
    """Candidates of one threshold rule; ``occurrences`` gives its findings."""

    body: Threshold

    def __init__(self, rule: Rule, roles: list[tuple[str, Condition]]) -> None:
        assert isinstance(rule.body, Threshold)
        super().__init__(rule.body, roles)
        self._window_of: dict[int, int] = {}  # kept record (arrival) -> its window's first
        self._count_of: dict[int, int] = {}  # window (arrival of its first record) -> size
        self.captured = [name for name in self.by if name not in COLUMNS]

    def _keyed(self, sub: pa.RecordBatch) -> pa.RecordBatch:
        return with_captures(sub, self.body.cond, self.captured)

    def _as_rows(self, table: pa.Table, bits: np.ndarray) -> list[Row]:
        return super()._as_rows(table.drop_columns(self.captured), bits)

    def _kept(self, table: pa.Table, bits: np.ndarray, arrivals: np.ndarray) -> np.ndarray:
        rank, timed = machine_order(table)
        group, grouped = group_numbers(table, self.by)
        usable = grouped & timed if self.body.within is not None else grouped
        rows = np.flatnonzero(usable)
        if not len(rows):
            return rows
        order = rows[np.lexsort((rank[rows], group[rows]))]  # by group, in sort_key order
        g = group[order]
        starts = np.flatnonzero(np.append(True, g[1:] != g[:-1]))
        sizes = np.diff(np.append(starts, len(order)))
        if self.body.within is None:  # the whole group is the window
            begin, count = starts, sizes
        else:
            times = pc.fill_null(table.column("ts").cast(pa.int64()), 0).to_numpy(
                zero_copy_only=False)[order]
            lo = window_starts(times, starts, self.body.within)
            held = np.arange(len(order)) - lo + 1
            best = np.maximum.reduceat(held, starts)
            # the first record whose window is a densest one ends the first densest window
            ends = np.flatnonzero(held == np.repeat(best, sizes))
            segment = np.repeat(np.arange(len(starts)), sizes)[ends]
            ends = ends[np.append(True, segment[1:] != segment[:-1])]
            begin, count = lo[ends], best
        firing = count >= self.body.count
        begin, count = begin[firing], count[firing]
        shown = np.minimum(count, MAX_PER_STEP)
        window = np.repeat(np.arange(len(begin)), shown)
        offset = np.arange(int(shown.sum())) - np.repeat(np.cumsum(shown) - shown, shown)
        kept = order[begin[window] + offset]
        firsts = arrivals[order[begin]]
        self._count_of.update(zip(firsts.tolist(), count.tolist(), strict=True))
        self._window_of.update(zip(arrivals[kept].tolist(), firsts[window].tolist(),
                                   strict=True))
        return np.sort(kept)

    def occurrences(self) -> list[Occurrence]:
        """One occurrence per group whose densest window holds at least ``count`` records."""
        rows = self.rows()
        windows: dict[int, list] = {}
        for arrival, row in zip(sorted(self._window_of), rows, strict=True):
            windows.setdefault(self._window_of[arrival], []).append(row)
        return [bundle(sorted(members, key=sort_key), "match", self._count_of[first])
                for first, members in windows.items()]
