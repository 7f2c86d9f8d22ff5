"""``schema.grouping.grouped`` gives the groups a plain Arrow group-by gives, for plain and
dictionary-encoded text keys, nulls and chunks with dictionaries of their own;
``schema.keys.known_rows`` matches text keys through shared codes, nulls equal to nulls."""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa

from plogscan.schema.grouping import grouped
from plogscan.schema.keys import known_rows

_AGGREGATIONS = [([], "count_all"), ("n", "sum"), ("n", "min")]


def _plain(table: pa.Table, keys: list[str]) -> pa.Table:
    spelled = pa.table({name: (table.column(name).cast(pa.string())
                               if pa.types.is_dictionary(table.column(name).type)
                               else table.column(name)) for name in table.column_names})
    return spelled.group_by(keys, use_threads=False).aggregate(_AGGREGATIONS)


def _sorted(table: pa.Table) -> list[tuple]:
    return sorted((tuple(row.values()) for row in table.to_pylist()), key=repr)


def _table(seed: int, encoded: bool) -> pa.Table:
    rng = random.Random(seed)
    paths = [f"/a/very/long/directory/{'x' * rng.randrange(1, 150)}/plog-{i}.log"
             for i in range(5)] + [None]
    chunks = []
    for _ in range(3):
        n = rng.randrange(0, 40)
        path = pa.array([rng.choice(paths) for _ in range(n)], pa.string())
        chunks.append(pa.table({
            "path": path.dictionary_encode() if encoded else path,
            "pid": pa.array([rng.choice([1, 2, None]) for _ in range(n)], pa.int64()),
            "level": pa.array([rng.choice(["DEBUG", "ERROR", None]) for _ in range(n)],
                              pa.string()),
            "n": pa.array(np.arange(n, dtype=np.int64))}))
    return pa.concat_tables(chunks)


def test_the_same_groups_as_a_plain_group_by() -> None:
    for seed in range(30):
        for encoded in (False, True):
            table = _table(seed, encoded)
            keys = ["path", "pid", "level"]
            got = grouped(table, keys, _AGGREGATIONS)
            assert _sorted(got) == _sorted(_plain(table, keys)), (seed, encoded)
            assert got.schema.field("path").type == pa.string()


def test_an_empty_table_groups_to_nothing() -> None:
    table = _table(0, True).slice(0, 0)
    assert grouped(table, ["path", "pid"], _AGGREGATIONS).num_rows == 0


def test_known_rows_matches_texts_and_nulls_through_codes() -> None:
    table = pa.table({"path": pa.array(["/a", "/b", None, "/a", "/c"]),
                      "pid": pa.array([1, 1, 2, None, 3], pa.int64())})
    known = pa.table({"path": pa.array(["/a", None, "/a", "/d"]),
                      "pid": pa.array([1, 2, None, 3], pa.int64())})
    assert known_rows(table, known).tolist() == [True, False, True, True, False]
    encoded = table.set_column(0, "path", table.column("path").dictionary_encode())
    assert known_rows(encoded, known).tolist() == [True, False, True, True, False]


def test_in_order_groups_come_as_their_first_rows_do() -> None:
    rng = random.Random(7)
    pids = [rng.randrange(10**6) for _ in range(5000)]  # blocks of rows past Arrow's own
    table = pa.table({"path": pa.array(["/p"] * len(pids)), "pid": pa.array(pids, pa.int64()),
                      "n": pa.array(np.ones(len(pids), np.int64))})
    got = grouped(table, ["path", "pid"], [("n", "sum")], in_order=True)
    assert got.column("pid").to_pylist() == list(dict.fromkeys(pids))
    assert got.column_names == ["path", "pid", "n_sum"]
