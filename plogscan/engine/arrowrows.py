"""Candidate records kept as Arrow until the few that can matter are known.

A rule's candidates can be thousands of records a batch (an error storm, a line written on
every step of a job), and the matchers need only some of them: a sequence rule the records
that can change its state machine (``seqstore``), a single rule with ``by`` keys the first
``MAX_PER_STEP`` records of each group and every group's count. This module holds what both
decide with, vectorized over a table of candidates: their order (the matchers' (ts, path,
line) order, records without a time last, ties in arrival order), their group numbers, the
first records of each group, and at last the ``Row`` values of the records kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.catalog.rule import Condition
from plogscan.engine.correlate import Row
from plogscan.engine.predicates import extract


def codes(column: pa.ChunkedArray | pa.Array) -> tuple[pa.Array, np.ndarray]:
    """The distinct values of a column and each record's index into them (-1 for null)."""
    chunked = column if isinstance(column, pa.ChunkedArray) else pa.chunked_array([column])
    if not pa.types.is_dictionary(chunked.type):
        chunked = pc.dictionary_encode(chunked)
    chunked = pa.table({"c": chunked}).unify_dictionaries().column("c")
    if chunked.num_chunks == 0:
        return pa.array([], chunked.type.value_type), np.zeros(0, np.int64)
    values = chunked.chunk(0).dictionary
    found = [pc.fill_null(chunk.indices, -1).to_numpy(zero_copy_only=False)
             for chunk in chunked.chunks]
    return values, np.concatenate(found).astype(np.int64)


def ranks(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Integers that sort like the column's values (nulls last)."""
    values, index = codes(column)
    order = pc.sort_indices(values).to_numpy(zero_copy_only=False)
    rank_of = np.empty(len(values), np.int64)
    rank_of[order] = np.arange(len(values))
    return np.where(index >= 0, rank_of[np.maximum(index, 0)] if len(values) else 0,
                    len(values))


def machine_order(table: pa.Table | pa.RecordBatch) -> tuple[np.ndarray, np.ndarray]:
    """Each record's position in the matchers' order, and whether it has a time.

    The order is ``correlate.sort_key``: (ts, path, line), records without a time last, ties
    in arrival (row) order."""
    n = table.num_rows
    ts = table.column("ts").cast(pa.int64())
    timed = ts.is_valid().to_numpy(zero_copy_only=False)
    when = pc.fill_null(ts, 0).to_numpy(zero_copy_only=False)
    line = pc.fill_null(table.column("line"), 0).to_numpy(zero_copy_only=False)
    position = np.empty(n, np.int64)
    position[np.lexsort((np.arange(n), line, ranks(table.column("path")), when, ~timed))] = (
        np.arange(n))
    return position, timed


def sorting_before(table: pa.Table | pa.RecordBatch, key: tuple) -> np.ndarray:
    """Which records sort before ``key`` (a ``correlate.sort_key``) in the matchers' order:
    a record equal to it arrives after it, so it sorts after."""
    untimed_key, when, path, line = key
    ts = table.column("ts")
    timed = ts.is_valid().to_numpy(zero_copy_only=False)
    paths = pc.fill_null(table.column("path"), "")
    lines = pc.fill_null(table.column("line"), 0)
    earlier_place = pc.or_(pc.less(paths, path),
                           pc.and_(pc.equal(paths, path), pc.less(lines, line)))
    if untimed_key:  # every timed record comes first; untimed ones by path and line
        return timed | (~timed & earlier_place.to_numpy(zero_copy_only=False))
    at = pa.scalar(when, pa.timestamp("us"))
    earlier = pc.or_(pc.less(ts, at), pc.and_(pc.equal(ts, at), earlier_place))
    return timed & pc.fill_null(earlier, False).to_numpy(zero_copy_only=False)


def group_numbers(table: pa.Table | pa.RecordBatch, by: Sequence[str]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """A group number per record (equal numbers, equal ``by`` values; a null is a value of
    its own) and whether the record has a group in ``correlate.group_key``'s strict sense (no
    null or empty key but ``host``)."""
    n = table.num_rows
    if not by:
        return np.zeros(n, np.int64), np.ones(n, bool)
    key = np.zeros(n, np.int64)
    grouped = np.ones(n, bool)
    for name in by:
        values, index = codes(table.column(name))
        if name != "host":
            grouped &= index >= 0
            if len(values) and (pa.types.is_string(values.type)
                                or pa.types.is_large_string(values.type)):
                empty = pc.fill_null(pc.equal(values, ""), False).to_numpy(
                    zero_copy_only=False)
                grouped &= ~(empty[np.maximum(index, 0)] & (index >= 0))
        key = key * (len(values) + 1) + (index + 1)
    _, group = np.unique(key, return_inverse=True)
    return group.astype(np.int64).reshape(n), grouped


def batch_position(batch: pa.RecordBatch, cache: dict) -> np.ndarray:
    """``machine_order``'s position of every record of ``batch``, once per batch (``cache``,
    one dict per batch): the positions of any subset of its rows order that subset as its own
    ``machine_order`` would (ties in row order either way), so every rule reads its candidates'
    order from this one sort."""
    found = cache.get(("machine-position",))
    if found is None:
        found = cache[("machine-position",)] = machine_order(batch)[0]
    return found


def batch_codes(batch: pa.RecordBatch, name: str, cache: dict) -> tuple[int, np.ndarray]:
    """The distinct values' count of column ``name`` of ``batch`` and each record's index
    into them (-1 for null), once per batch (``cache``)."""
    key = ("codes", name)
    found = cache.get(key)
    if found is None:
        values, index = codes(batch.column(name))
        found = cache[key] = (len(values), index)
    return found


def group_numbers_of(batch: pa.RecordBatch, by: Sequence[str], rows: np.ndarray, cache: dict,
                     captured: Mapping[str, pa.Array] | None = None) -> np.ndarray:
    """``group_numbers`` of the records ``rows`` of ``batch`` (the same partition, numbered
    otherwise), from each key column's codes over the whole batch (``batch_codes``, shared by
    every rule); ``captured`` holds the keys that are no column, one value per row of ``rows``."""
    key = np.zeros(len(rows), np.int64)
    bound = 1
    for name in by:
        if captured is not None and name in captured:
            values, index = codes(captured[name])
            count = len(values)
        else:
            count, index = batch_codes(batch, name, cache)
            index = index[rows]
        if bound * (count + 1) >= 1 << 62:  # renumber before the product could overflow
            _, key = np.unique(key, return_inverse=True)
            bound = int(key.max(initial=0)) + 1
            key = key.astype(np.int64).reshape(len(rows))
        key = key * (count + 1) + (index + 1)
        bound *= count + 1
    if not by:
        return key
    _, group = np.unique(key, return_inverse=True)
    return group.astype(np.int64).reshape(len(rows))


def with_captures(sub: pa.RecordBatch, cond: Condition, names: Sequence[str]
                  ) -> pa.RecordBatch:
    """``sub`` with a string column for each capture of ``cond`` in ``names`` (``by`` keys
    that are no column): an empty capture is no key, as in ``correlate.group_key``."""
    if not names:
        return sub
    found = extract(cond, sub)
    for name in names:
        sub = sub.append_column(name, pa.array([v or None for v in found[name]], pa.string()))
    return sub


def first_of_groups(group: np.ndarray, position: np.ndarray, limit: int
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The records that are among the first ``limit`` of their group in ``position`` order
    (ascending row numbers), and how many records each stands for: one, and the group's
    first kept record also every record of its group that was left out."""
    n = len(group)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    rows = np.lexsort((position, group))
    ordered = group[rows]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    start_of = starts[np.searchsorted(starts, np.arange(n), side="right") - 1]
    chosen = np.sort(rows[np.arange(n) - start_of < limit])
    kept_groups = group[chosen]
    sizes = np.bincount(group)
    kept = np.bincount(kept_groups, minlength=len(sizes))
    _, first = np.unique(kept_groups, return_index=True)
    weight = np.ones(len(chosen), np.int64)
    weight[first] += sizes[kept_groups[first]] - kept[kept_groups[first]]
    return chosen, weight


def as_rows(sub: pa.RecordBatch | pa.Table, roles: Sequence[tuple[str, Condition]],
            filled: Mapping[str, np.ndarray]) -> list[Row]:
    """The records of ``sub`` as ``Row`` values: the roles each fills (``filled``: role ->
    mask over ``sub``) and the captures of those roles."""
    if isinstance(sub, pa.Table):
        sub = sub.combine_chunks()
        batch = sub.to_batches()[0] if sub.num_rows else None
    else:
        batch = sub
    cols = sub.to_pylist()
    found_roles: list[set[str]] = [set() for _ in cols]
    caps: list[dict[str, dict[str, str]]] = [{} for _ in cols]
    for role, cond in roles:
        local = filled[role]
        where = np.flatnonzero(local)
        for i in where:
            found_roles[i].add(role)
        if not cond.captures or where.size == 0 or batch is None:
            continue
        found = extract(cond, batch.filter(pa.array(local)))
        for j, i in enumerate(where):
            caps[i][role] = {k: v[j] for k, v in found.items() if v[j]}
    return [Row(c, frozenset(r), k) for c, r, k in zip(cols, found_roles, caps, strict=True)]
