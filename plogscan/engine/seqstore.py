"""Candidate records of a sequence rule, thinned before the state machine.

A sequence rule's first step is often a line written on every step of a job (HCCL's
"Already have context, skip create"), so its candidates can be hundreds of thousands of
records. Turning each into a Python ``Row`` and feeding it to ``correlate._Group`` one by one
cost seconds. Here the candidates stay Arrow (``candidatestore``, in bounded memory), and at
the end they are sorted per group in the state machine's order and runs of records that
cannot change its outcome are dropped, vectorized:

* a region is a run of records of one group each of which fills only the first step or
  only one context step (nothing else between them): the state machine does nothing there
  but replace its partial match by the latest start, and close windows (which the region's
  last record closes at least as far as any before it);
* so of a region only its last first-step record can start a match, and only the last
  ``limit`` records of each context step before that record, or before the region's end,
  can be among the ``limit`` latest before a start.

The few records left become ``Row`` values and go through ``correlate.sequence`` as before,
so the findings are the same. Only rules whose ``by`` keys are all event-table columns are
kept this way (a key taken from a capture needs every record's captures).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from plogscan.catalog.rule import Condition, Rule, Sequence
from plogscan.engine.arrowrows import group_numbers, machine_order
from plogscan.engine.candidatestore import CandidateStore
from plogscan.schema import COLUMNS


def _thinned(group: np.ndarray, bits: np.ndarray, ok: np.ndarray, first_bit: int,
             context_limits: dict[int, int]) -> np.ndarray:
    """Which records (in group and state-machine order) to keep; see the module text."""
    n = len(group)
    inert = ok & ((bits == first_bit) if first_bit else np.zeros(n, bool))
    for role_bit in context_limits:
        inert |= ok & (bits == role_bit)
    starts = np.ones(n, bool)
    starts[1:] = (group[1:] != group[:-1]) | ~inert[1:] | ~inert[:-1]
    region = np.cumsum(starts) - 1
    keep = ~inert
    last_first = np.full(region[-1] + 1 if n else 0, -1, np.int64)
    if first_bit:
        firsts = np.flatnonzero(inert & (bits == first_bit))
        np.maximum.at(last_first, region[firsts], firsts)
        keep[last_first[last_first >= 0]] = True
    for role_bit, limit in context_limits.items():
        rows = np.flatnonzero(inert & (bits == role_bit))
        if not len(rows):
            continue
        keep[rows[_last_per_region(region[rows], limit)]] = True
        before = rows[rows < last_first[region[rows]]]
        if len(before):
            keep[before[_last_per_region(region[before], limit)]] = True
    return keep


def _last_per_region(region: np.ndarray, limit: int) -> np.ndarray:
    """Of sorted items labelled by region, a mask of the last ``limit`` of each region."""
    n = len(region)
    ends = np.flatnonzero(np.append(region[1:] != region[:-1], True))
    end_of = ends[np.searchsorted(ends, np.arange(n))]
    return end_of - np.arange(n) < limit


def eligible(rule: Rule) -> bool:
    """A sequence rule whose group keys are all columns of the event table."""
    body = rule.body
    return isinstance(body, Sequence) and all(name in COLUMNS for name in body.by)


class SequenceStore(CandidateStore):
    """Candidates of one sequence rule, thinned (see the module text)."""

    body: Sequence

    def __init__(self, rule: Rule, roles: list[tuple[str, Condition]]) -> None:
        body = rule.body
        assert isinstance(body, Sequence)
        super().__init__(body, roles)
        positive = body.positive
        # What can be thinned: records that fill only the first step (when it is not also the
        # last), and records that fill only one context step (with its limit).
        self.first_bit = self.bit[positive[0].id] if len(positive) >= 2 else 0
        self.context_limits: dict[int, int] = {
            self.bit[ctx.id]: max(1, ctx.limit) for ctx in body.context
            if ctx.id in self.bit and ctx.id != positive[0].id}
        self.thin = bool(self.first_bit or self.context_limits)

    def _kept(self, table: pa.Table, bits: np.ndarray, arrivals: np.ndarray) -> np.ndarray:
        n = table.num_rows
        if not self.thin or n < 2:
            return np.arange(n)
        # The state machine's order: (ts, path, line), records without a time last; ties in
        # arrival order.
        rank, timed = machine_order(table)
        group, grouped = group_numbers(table, self.by)
        usable = grouped & timed
        # Records without a group or a time take no part in matching: always kept.
        sorted_rows = np.lexsort((rank, group))
        g, b, ok = group[sorted_rows], bits[sorted_rows], usable[sorted_rows]
        keep = _thinned(g, b, ok, self.first_bit, self.context_limits)
        kept = sorted_rows[keep]
        kept.sort()  # arrival order
        return kept
