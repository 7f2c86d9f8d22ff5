"""A ``Single`` rule's records held as Arrow until the end (its first records, or the first
records of each ``by`` group, a key taken from a capture too) conclude the same findings
whatever the batches they come in and however often the held records are trimmed."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.catalog.rule import RuleSet
from plogscan.catalog.ruleset import rule_from_text
from plogscan.engine import engine, scan
from plogscan.schema import EVENT_SCHEMA

T0 = datetime(2026, 3, 14, 10, 0, 0)
HEAD = """\
id: TST{n}
name: test.held{n}
title: Test rule
category: ccu-exception
level: error
description: '{{count}} records.'
remediation: [Nothing to do.]
"""
RULES = RuleSet((
    rule_from_text(HEAD.format(n="001") + "match:\n  message|re: 'fail (?P<what>[a-c]?)'\n"
                   "by: [host, pid, what]\n"),
    rule_from_text(HEAD.format(n="002") + "match:\n  message|contains: 'fail'\n"
                   "by: [host, rank]\n"),
    rule_from_text(HEAD.format(n="003") + "match:\n  message|contains: 'fail'\n"),
))
RECORD = st.fixed_dictionaries({
    "ts": st.one_of(st.none(), st.integers(0, 40).map(lambda s: T0 + timedelta(seconds=s))),
    "path": st.sampled_from(["a.log", "b.log"]),
    "line": st.integers(1, 30),
    "host": st.sampled_from([None, "node-1", "node-2"]),
    "rank": st.sampled_from([None, 0, 1]),
    "pid": st.sampled_from([None, 100, 200]),
    "message": st.sampled_from(["fail a", "fail b", "fail c", "fail ", "ok"]),
})


def _table(records: list[dict]) -> pa.Table:
    base = {f.name: None for f in EVENT_SCHEMA}
    return pa.Table.from_pylist([{**base, **r} for r in records], schema=EVENT_SCHEMA)


def _found(batches: list[pa.RecordBatch]) -> list:
    return scan(batches, RULES, max_findings=3)


@settings(max_examples=80, deadline=None)
@given(records=st.lists(RECORD, min_size=1, max_size=150),
       cuts=st.lists(st.integers(0, 150), max_size=6))
def test_any_batches_and_trims_conclude_alike(records: list[dict], cuts: list[int]) -> None:
    whole = _table(records).to_batches()
    bounds = sorted({0, len(records), *(c for c in cuts if c < len(records))})
    pieces = [_table(records[lo:hi]).to_batches()[0] for lo, hi in itertools.pairwise(bounds)]
    expected = _found(whole)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "_MERGE_ROWS", 1)  # trim the held records after every batch
        assert _found(pieces) == expected


def test_a_storm_of_one_error_in_small_batches() -> None:
    records = [{"ts": T0 + timedelta(seconds=i % 7), "path": "a.log", "line": i + 1,
                "host": "node-1", "rank": 0, "pid": 100, "message": "fail a"} for i in range(90)]
    test_any_batches_and_trims_conclude_alike.hypothesis.inner_test(  # type: ignore[attr-defined]
        records, list(range(0, 90, 4)))
