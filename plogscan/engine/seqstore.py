"""Candidate records of a sequence rule, kept as Arrow and thinned before the state machine.

A sequence rule's first step is often a line written on every step of a job (HCCL's
"Already have context, skip create"), so its candidates can be hundreds of thousands of
records. Turning each into a Python ``Row`` and feeding it to ``correlate._Group`` one by one
cost seconds. Here the candidates stay Arrow tables with a bit mask of the roles they fill;
at the end they are sorted per group in the state machine's order and runs of records that
cannot change its outcome are dropped, vectorized:

* in a run of records of one group that fill only the first step (nothing else between
  them), the state machine keeps only the latest start: only the run's last record can
  matter (every earlier one is replaced by it, and any window it closes the last closes
  too);
* in a run that fills only one context step, only the run's last ``limit`` records can be
  among the ``limit`` latest before a start.

The few records left become ``Row`` values and go through ``correlate.sequence`` as before,
so the findings are the same. Only rules whose ``by`` keys are all event-table columns are
kept this way (a key taken from a capture needs every record's captures).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.engine.correlate import Row
from plogscan.engine.predicates import extract
from plogscan.engine.rule import Condition, Rule, Sequence
from plogscan.schema import COLUMNS


def eligible(rule: Rule) -> bool:
    """A sequence rule whose group keys are all columns of the event table."""
    body = rule.body
    return isinstance(body, Sequence) and all(name in COLUMNS for name in body.by)


class SequenceStore:
    """Candidates of one sequence rule: Arrow rows and their role bits."""

    def __init__(self, rule: Rule, roles: list[tuple[str, Condition]]) -> None:
        body = rule.body
        assert isinstance(body, Sequence)
        self.body = body
        self.roles = roles
        self.bit = {role: 1 << i for i, (role, _) in enumerate(roles)}
        positive = body.positive
        # Roles whose runs can be thinned, and how many of a run's last records to keep.
        self.thin: dict[int, int] = {}
        if len(positive) >= 2:
            self.thin[self.bit[positive[0].id]] = 1
        for ctx in body.context:
            if ctx.id in self.bit and ctx.id != positive[0].id:
                self.thin[self.bit[ctx.id]] = max(1, ctx.limit)
        self.tables: list[pa.Table] = []
        self.bits: list[np.ndarray] = []

    def add(self, sub: pa.RecordBatch, masks: dict[str, np.ndarray], idx: np.ndarray) -> None:
        bits = np.zeros(len(idx), np.int64)
        for role, mask in masks.items():
            bits |= mask[idx].astype(np.int64) * self.bit[role]
        self.tables.append(pa.Table.from_batches([sub]))
        self.bits.append(bits)

    def rows(self) -> list[Row]:
        """The records that can matter, as ``Row`` values in arrival order."""
        if not self.tables:
            return []
        table = pa.concat_tables(self.tables)
        bits = np.concatenate(self.bits)
        self.tables, self.bits = [], []
        keep = self._kept(table, bits)
        table = table.take(pa.array(keep))
        bits = bits[keep]
        return self._as_rows(table, bits)

    def _kept(self, table: pa.Table, bits: np.ndarray) -> np.ndarray:
        n = table.num_rows
        if not self.thin or n < 2:
            return np.arange(n)
        # The state machine's order: (ts, path, line), records without a time last; ties in
        # arrival order (a stable sort over the arrival index).
        order_table = pa.table({"ts": table.column("ts"), "path": table.column("path"),
                                "line": table.column("line"),
                                "arrival": pa.array(np.arange(n))})
        order = pc.sort_indices(order_table, sort_keys=[
            ("ts", "ascending", "at_end"), ("path", "ascending", "at_end"),
            ("line", "ascending", "at_end"), ("arrival", "ascending", "at_end")]).to_numpy()
        rank = np.empty(n, np.int64)
        rank[order] = np.arange(n)
        group, grouped = self._groups(table)
        timed = table.column("ts").is_valid().to_numpy(zero_copy_only=False)
        usable = grouped & timed
        # Records without a group or a time take no part in matching: always kept.
        sorted_rows = np.lexsort((rank, group))
        g, b, ok = group[sorted_rows], bits[sorted_rows], usable[sorted_rows]
        same = np.zeros(n, bool)
        same[1:] = (g[1:] == g[:-1]) & (b[1:] == b[:-1]) & ok[1:] & ok[:-1]
        run = np.cumsum(~same)
        # Position from the end of each run (0 = last record of the run).
        ends = np.flatnonzero(np.append(run[1:] != run[:-1], True))
        run_end = ends[run - 1]
        from_end = run_end - np.arange(n)
        limit = np.zeros(n, np.int64)
        for role_bit, keep_last in self.thin.items():
            limit[b == role_bit] = keep_last
        drop = ok & (limit > 0) & (from_end >= limit)
        kept = sorted_rows[~drop]
        kept.sort()  # arrival order
        return kept

    def _groups(self, table: pa.Table) -> tuple[np.ndarray, np.ndarray]:
        """A group number per record and whether it has a group (no missing key but host)."""
        n = table.num_rows
        if not self.body.by:
            return np.zeros(n, np.int64), np.ones(n, bool)
        parts = []
        grouped = np.ones(n, bool)
        for name in self.body.by:
            column = table.column(name)
            if name != "host":
                valid = column.is_valid().to_numpy(zero_copy_only=False)
                if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
                    valid &= pc.fill_null(pc.not_equal(column, ""), False).to_numpy(
                        zero_copy_only=False)
                grouped &= valid
            codes = pc.dictionary_encode(column.combine_chunks() if isinstance(
                column, pa.ChunkedArray) else column)
            indices = pc.fill_null(codes.indices, -1).to_numpy(zero_copy_only=False)
            parts.append(indices.astype(np.int64) + 1)
        key = np.zeros(n, np.int64)
        for part in parts:
            key = key * (int(part.max(initial=0)) + 1) + part
        _, group = np.unique(key, return_inverse=True)
        return group.astype(np.int64), grouped

    def _as_rows(self, table: pa.Table, bits: np.ndarray) -> list[Row]:
        sub = table.combine_chunks()
        cols = sub.to_pylist()
        caps: list[dict[str, dict[str, str]]] = [{} for _ in cols]
        roles: list[set[str]] = [set() for _ in cols]
        batch = sub.to_batches()[0] if sub.num_rows else None
        for role, cond in self.roles:
            local = (bits & self.bit[role]) != 0
            where = np.flatnonzero(local)
            for i in where:
                roles[i].add(role)
            if not cond.captures or where.size == 0 or batch is None:
                continue
            found = extract(cond, batch.filter(pa.array(local)))
            for j, i in enumerate(where):
                caps[i][role] = {k: v[j] for k, v in found.items() if v[j]}
        return [Row(c, frozenset(r), k) for c, r, k in zip(cols, roles, caps, strict=True)]
