"""Summaries that describe at most so many processes or streams keep the first ones, in
order, go on counting those, and count the rest: the same past their cap whether rows come
few at a time or a million at once (``schema.keys`` finds the held ones)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pyarrow as pa
import pytest

from plogscan.analysis.overview import Overview
from plogscan.crossrank import gather, streamfacts
from plogscan.crossrank.gather import Gatherer
from plogscan.schema.facts import FACTS_SCHEMA
from plogscan.schema.keys import key_table, known_rows

T0 = datetime(2026, 3, 2, 10, 0, 0)


def facts(rows: list[tuple[str | None, int, str, int]]) -> pa.Table:
    """Facts rows of (host, pid, level, records), one file per pid."""
    n = len(rows)
    ts = [T0 + timedelta(seconds=i) for i in range(n)]
    return pa.table({
        "host": [r[0] for r in rows], "pid": [r[1] for r in rows],
        "level": [r[2] for r in rows], "module": ["HCCL"] * n, "kind": ["plog"] * n,
        "path": [f"/logs/plog-{r[1]}.log" for r in rows], "records": [r[3] for r in rows],
        "rank": [None] * n, "device": [None] * n, "first_ts": ts, "last_ts": ts,
        "first_line": list(range(1, n + 1)), "last_line": list(range(1, n + 1)),
        "epoch_records": [0] * n, "whole": [False] * n}, schema=FACTS_SCHEMA)


def test_known_rows_match_nulls_and_dictionaries() -> None:
    table = pa.table({"host": pa.array(["a", None, "b", None]).dictionary_encode(),
                      "pid": [1, 2, 3, None]})
    schema = pa.schema([("host", pa.string()), ("pid", pa.int64())])
    known = key_table([(None, 2), ("b", 3), ("a", 9), (None, None)], schema)
    assert list(known_rows(table, known)) == [False, True, True, True]
    assert not known_rows(table, key_table([], schema)).any()


@pytest.mark.parametrize("batch", [1, 2, 7])
def test_the_overview_keeps_the_first_processes(batch: int) -> None:
    rows = [("w0", pid, "INFO", 1) for pid in range(7)] + [("w0", 1, "ERROR", 1),
                                                           (None, 5, "INFO", 1)]
    overview = Overview(max_processes=3)
    for start in range(0, len(rows), batch):
        overview.consume_facts(facts(rows[start:start + batch]))
    kept = {(p.host, p.pid): p.levels for p in overview.processes()}
    assert kept == {("w0", 0): ("INFO",), ("w0", 1): ("ERROR", "INFO"), ("w0", 2): ("INFO",)}
    assert overview.processes_omitted == 5  # w0 3..6 and the one without a host


@pytest.mark.parametrize("batch", [1, 3, 9])
def test_the_gatherer_keeps_the_first_streams(batch: int, monkeypatch) -> None:
    monkeypatch.setattr(gather, "MAX_STREAMS", 4)
    monkeypatch.setattr(streamfacts, "MAX_STREAMS", 4)
    rows = [("w0", pid, "INFO", 10) for pid in range(6)] + [("w0", 2, "ERROR", 5),
                                                           ("w0", 5, "ERROR", 7)]
    gatherer = Gatherer()
    for start in range(0, len(rows), batch):
        gatherer.consume_facts(facts(rows[start:start + batch]))
        gatherer._count_facts()  # counted batch by batch, not all at once at the end
    summary = gatherer.summary()
    counted = {s.key.pid: (s.records, s.errors) for s in summary.streams}
    assert counted == {0: (10, 0), 1: (10, 0), 2: (15, 5), 3: (10, 0)}
    assert gatherer._dropped["streams"] == 10 + 10 + 7


def test_many_processes_past_the_cap_are_counted_in_one_table() -> None:
    overview = Overview(max_processes=1000)
    overview.consume_facts(facts([("w0", pid, "INFO", 1) for pid in range(20_000)]))
    overview.consume_facts(facts([("w0", pid, "WARNING", 1) for pid in range(500, 30_000)]))
    assert len(overview.processes()) == 1000
    assert overview.processes_omitted == 29_000
    assert {p.levels for p in overview.processes()[500:]} == {("INFO", "WARNING")}


def test_the_summary_lists_its_streams_in_their_order() -> None:
    """Identities take each file's clock host from its first stream in this order."""
    from plogscan.crossrank.summary import StreamKey

    gatherer = Gatherer()
    gatherer.consume_facts(facts([("w0", pid, "INFO", 1) for pid in (7, 3, 12, 5, 1)]))
    keys = [s.key for s in gatherer.summary().streams]
    assert len(keys) == 5 and keys == sorted(keys, key=StreamKey.order)
