"""``SingleGroups`` keeps a bounded sample per group, yet concludes exactly what keeping every
record would: the same groups, counts, evidence and trigger."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.engine import arrowrows
from plogscan.engine.correlate import MAX_PER_STEP, Row, SingleGroups, group_key, sort_key

BY = ("host", "rank", "pid")
T0 = datetime(2026, 3, 17, 14, 2, 11)


def _every_record(rows: list[Row]) -> list[tuple[int, list[int]]]:
    """The grouping of a ``Single`` rule written the plain way: all records kept, sorted,
    grouped, and null-key groups folded into the one group that agrees with them."""
    ordered = sorted(rows, key=sort_key)  # stable: arrival order breaks ties
    position = {id(row): i for i, row in enumerate(ordered)}
    groups: dict[Any, list[Row]] = {}
    for row in ordered:
        groups.setdefault(group_key(row, "match", BY, True), []).append(row)

    def nulls(key: tuple) -> int:
        return sum(v is None and name != "host" for name, v in zip(BY, key, strict=True))

    for key in sorted((k for k in groups if nulls(k)), key=nulls, reverse=True):
        fits = [k for k in groups if k != key and all(
            a == b or (a is None and name != "host") for name, a, b in zip(BY, key, k,
                                                                          strict=True))]
        if len(fits) == 1:
            merged = groups[fits[0]] + groups.pop(key)
            groups[fits[0]] = sorted(merged, key=lambda r: position[id(r)])
    return [(len(m), [id(r) for r in m[:MAX_PER_STEP]]) for m in groups.values()]


RECORD = st.fixed_dictionaries({
    "ts": st.one_of(st.none(), st.integers(0, 40).map(lambda s: T0 + timedelta(seconds=s))),
    "path": st.sampled_from(["a.log", "b.log"]),
    "line": st.integers(1, 30),
    "host": st.sampled_from([None, "node-1"]),
    "rank": st.sampled_from([None, 0, 1]),
    "pid": st.sampled_from([None, 100, 200]),
})


@settings(max_examples=300, deadline=None)
@given(records=st.lists(RECORD, max_size=120))
def test_bounded_groups_conclude_what_all_records_would(records: list[dict]) -> None:
    rows = [Row(dict(r), frozenset({"match"}), {}) for r in records]
    groups = SingleGroups(BY)
    for row in rows:
        groups.add(row)
    found = [(int(o.specials["count"]), [id(r) for _, r in o.items])
             for o in groups.occurrences()]
    assert found == _every_record(rows)
    for occurrence in groups.occurrences():
        assert occurrence.trigger is occurrence.items[0][1]


def test_a_storm_of_one_error_keeps_a_small_sample() -> None:
    groups = SingleGroups(BY)
    for i in range(10_000):
        groups.add(Row({"ts": T0 + timedelta(microseconds=10_000 - i), "path": "a.log",
                        "line": i, "host": None, "rank": 0, "pid": 7}, frozenset({"match"}), {}))
    (sample,) = groups._groups.values()
    assert sample.count == 10_000 and len(sample.entries) < 4 * MAX_PER_STEP
    (occurrence,) = groups.occurrences()
    assert occurrence.specials["count"] == "10000"
    assert [r.cols["line"] for _, r in occurrence.items] == list(range(9999, 9979, -1))


def _fold_pair_by_pair(groups: dict, by: tuple[str, ...]) -> None:
    """The fold as first written: every partial key compared with every group."""
    def nulls(key: tuple) -> int:
        return sum(v is None and name != "host" for name, v in zip(by, key, strict=True))

    def agrees(part: tuple, other: tuple) -> bool:
        return all(a == b or (a is None and name != "host")
                   for name, a, b in zip(by, part, other, strict=True))

    for key in sorted((k for k in groups if nulls(k)), key=nulls, reverse=True):
        fits = [k for k in groups if k != key and agrees(key, k)]
        if len(fits) == 1:
            groups[fits[0]] = groups[fits[0]] + groups.pop(key)


class _Tally(list):
    def merged(self, other: list) -> _Tally:
        return _Tally(self + other)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([None, "h1", "h2"]), st.sampled_from([None, 1, 2]),
                          st.sampled_from([None, 0, 3])), max_size=12, unique=True))
def test_the_indexed_fold_merges_as_the_pair_by_pair_one(keys: list[tuple]) -> None:
    from plogscan.engine.partialkeys import fold_partial_keys

    by = ("host", "pid", "device")
    indexed = {k: _Tally([k]) for k in keys}
    reference = {k: [k] for k in keys}
    fold_partial_keys(indexed, by)
    _fold_pair_by_pair(reference, by)
    assert {k: list(v) for k, v in indexed.items()} == reference


def _record_batch(records: list[dict]) -> pa.RecordBatch:
    return pa.RecordBatch.from_pydict({
        "ts": pa.array([r["ts"] for r in records], pa.timestamp("us")),
        "path": pa.array([r["path"] for r in records], pa.string()),
        "line": pa.array([r["line"] for r in records], pa.int64()),
        "host": pa.array([r["host"] for r in records], pa.string()),
        "rank": pa.array([r["rank"] for r in records], pa.int32()),
        "pid": pa.array([r["pid"] for r in records], pa.int64()),
    })


def _conclusions(groups: SingleGroups) -> list[tuple[str, list[dict]]]:
    return [(o.specials["count"], [r.cols for _, r in o.items]) for o in groups.occurrences()]


@settings(max_examples=200, deadline=None)
@given(records=st.lists(RECORD, max_size=200), cuts=st.lists(st.integers(0, 200), max_size=4),
       limit=st.sampled_from([1, 3, MAX_PER_STEP]))
def test_groups_sampled_in_arrow_conclude_what_every_row_would(
        records: list[dict], cuts: list[int], limit: int) -> None:
    """The engine samples each batch's candidates in Arrow (``arrowrows.first_of_groups``)
    and hands on only the first records of each group, standing for the rest: the groups,
    counts and evidence are those of feeding every record, whatever the batches and ``limit``
    (at least the first ``limit`` records of a group are kept per batch, so with ``limit`` below
    ``MAX_PER_STEP`` the evidence may differ only in which later records it shows)."""
    one_by_one = SingleGroups(BY)
    for r in records:
        one_by_one.add(Row(dict(r), frozenset({"match"}), {}))
    sampled = SingleGroups(BY)
    bounds = sorted({0, len(records), *(c for c in cuts if c < len(records))})
    for lo, hi in itertools.pairwise(bounds):
        batch = _record_batch(records[lo:hi])
        group, _ = arrowrows.group_numbers(batch, BY)
        position, _ = arrowrows.machine_order(batch)
        keep, weight = arrowrows.first_of_groups(group, position, limit)
        kept = batch.take(pa.array(keep)).to_pylist()
        sampled.add_sampled([Row(c, frozenset({"match"}), {}) for c in kept], keep, weight,
                            batch.num_rows)
    expected, found = _conclusions(one_by_one), _conclusions(sampled)
    assert [count for count, _ in found] == [count for count, _ in expected]
    for (_, want), (_, got) in zip(expected, found, strict=True):
        shown = min(limit, len(want)) if limit < MAX_PER_STEP else len(want)
        assert got[:shown] == want[:shown]


def _partition(numbers: np.ndarray) -> list[list[int]]:
    """Which rows share a number, independent of the numbering."""
    found: dict[int, list[int]] = {}
    for row, number in enumerate(numbers.tolist()):
        found.setdefault(number, []).append(row)
    return sorted(found.values())


@settings(max_examples=200, deadline=None)
@given(records=st.lists(RECORD, min_size=1, max_size=80), data=st.data())
def test_the_batchs_order_and_groups_are_those_of_any_subset(records: list[dict],
                                                            data: st.DataObject) -> None:
    """Every rule reads its candidates' order and groups from the whole batch's, computed
    once (``batch_position``, ``group_numbers_of``): they are those of the candidates taken
    out on their own, with keys that are no column (a capture) given beside them."""
    batch = _record_batch(records)
    rows = np.array(sorted(data.draw(st.sets(st.integers(0, len(records) - 1)))), np.int64)
    captured = pa.array(data.draw(st.lists(st.sampled_from([None, "a", "b"]),
                                           min_size=len(rows), max_size=len(rows))),
                        pa.string())
    sub = batch.take(pa.array(rows))
    cache: dict = {}
    by = data.draw(st.sampled_from([BY, ("host",), (), ("pid", "code", "rank")]))
    with_code = sub.append_column("code", captured)
    want = arrowrows.group_numbers(with_code, by)[0]
    got = arrowrows.group_numbers_of(batch, by, rows, cache, {"code": captured})
    assert _partition(got) == _partition(want)
    position = arrowrows.batch_position(batch, cache)[rows]
    assert np.argsort(position, kind="stable").tolist() == np.argsort(
        arrowrows.machine_order(sub)[0], kind="stable").tolist()


def test_many_keys_of_many_values_are_renumbered_before_they_overflow() -> None:
    """Keys whose values combine past what an int64 holds still give the records' distinct
    key tuples: four keys of 65,535 values each would multiply the first key's number by
    2**64, so the first and the last record (which differ in it alone) would share a group."""
    spread = np.append(np.arange(65535), 0)
    columns = {"k0": np.append(np.zeros(65535, np.int64), 1),
               **{f"k{i}": spread for i in range(1, 5)}}
    batch = pa.RecordBatch.from_pydict({name: pa.array(v, pa.int64())
                                        for name, v in columns.items()})
    group = arrowrows.group_numbers_of(batch, list(columns), np.arange(len(spread)), {})
    assert group[0] != group[-1]
    assert len(np.unique(group)) == len(spread)
