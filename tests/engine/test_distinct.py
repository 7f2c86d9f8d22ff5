"""Tests run over a column's distinct values give each row what testing the row gives."""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.catalog.rule import Condition
from plogscan.engine import distinct
from plogscan.engine.predicates import evaluate, matching_rows
from plogscan.engine.prefilter import Prefilter
from plogscan.parse.literals import spread_matches
from tests.engine.test_predicates import make_events, pred


def _contains_a(values: pa.Array) -> pa.Array:
    return pc.match_substring(values, "a", ignore_case=True)


def test_a_plain_column_is_tested_once_per_distinct_value() -> None:
    column = pa.array(["xa", None, "b", "xa", "A", "b"])
    assert distinct.Encoded(column).mask(_contains_a).tolist() == [
        True, False, False, True, True, False]


def test_a_list_column_holds_where_any_listed_value_holds() -> None:
    column = pa.array([["b", "a"], [], None, ["b"], [None, "A"]], pa.list_(pa.string()))
    assert distinct.Encoded(column).mask(_contains_a).tolist() == [
        True, False, False, False, True]


def test_a_dictionary_column_is_read_through_its_dictionary() -> None:
    column = pa.array(["b", "a", None, "a"]).dictionary_encode()
    assert distinct.Encoded(column).mask(_contains_a).tolist() == [False, True, False, True]


def test_some_rows_are_tested_on_their_distinct_values_only() -> None:
    seen: list[int] = []

    def counting(values: pa.Array) -> pa.Array:
        seen.append(len(values))
        return _contains_a(values)

    encoded = distinct.Encoded(pa.array(["a", "b", "a", None, "a", "c"]))
    rows = np.array([0, 2, 3, 4, 5])
    assert encoded.holding(rows, counting).tolist() == [True, True, False, True, False]
    assert seen == [2]  # "a" and "c": the null row is not tested


def test_only_repeating_text_is_encoded_for_row_tests() -> None:
    repeated = pa.RecordBatch.from_pydict({"message": ["x", "y", "x", "x"], "pid": [1, 2, 3, 4]})
    varied = pa.RecordBatch.from_pydict({"message": ["x", "y", "z", "x"]})
    assert distinct.repeating(repeated, "message", {}) is not None
    assert distinct.repeating(varied, "message", {}) is None
    assert distinct.repeating(repeated, "pid", {}) is None


_POOL = ["Already have context, skip create", "ALREADY HAVE CONTEXT", "aicore error 507015",
         "fault kernel_name=mc2_x", "ccu task print", "", "ä Ä ß", "(x) a.b"]
_FIELDS = {"message": _POOL, "module": ["HCCL", "GE", "RUNTIME"], "level": ["DEBUG", "ERROR"],
           "proc": _POOL}
_OPS = ["contains", "startswith", "endswith", "re", "eq"]


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(st.fixed_dictionaries({
    field: st.one_of(st.none(), st.sampled_from(values)) for field, values in _FIELDS.items()
} | {"codes": st.lists(st.sampled_from(["507015", "507916", "EI9999", "x"]), max_size=3)}),
    min_size=1, max_size=30),
    conditions=st.lists(st.lists(st.lists(st.tuples(
        st.sampled_from([*sorted(_FIELDS), "codes"]), st.sampled_from(_OPS),
        st.lists(st.sampled_from(["a", "context", "error", "HCCL", "ERROR", "507015", "ä",
                                  "a.b", "x"]), min_size=1, max_size=2)),
        min_size=1, max_size=3), min_size=1, max_size=3), min_size=1, max_size=4))
def test_batch_tests_equal_row_tests(rows: list[dict], conditions: list) -> None:
    """With a batch's cache (distinct values, shared masks, the literal index), every
    condition holds on exactly the rows it holds on when each row is tested."""
    batch = make_events(rows)
    built = []
    for alternatives in conditions:
        alts = []
        for tests in alternatives:
            alt = []
            for field, op, values in tests:
                # Rules test the header fields by value: a literal test of one (never in a
                # rule) is the literal index's to skip where the header is missing.
                op = "eq" if field in ("level", "module") else op
                alt.append(pred(field, op, *(re.escape(v) for v in values) if op == "re"
                                else values))
            alts.append(tuple(alt))
        built.append(Condition(tuple(alts)))
    prefilter = Prefilter(built)
    cache: dict = {}
    possible = prefilter.possible(batch, cache)
    for i, cond in enumerate(built):
        plain = evaluate(cond, batch)
        assert possible[i] or not plain.any()  # a condition ruled out holds on no record
        assert evaluate(cond, batch, cache, prefilter).tolist() == plain.tolist()
        assert matching_rows(cond, batch, {}, prefilter).tolist() == np.flatnonzero(
            plain).tolist()


def test_a_batch_without_a_conditions_literals_rules_it_out_in_one_test() -> None:
    """``Prefilter.possible`` marks out the conditions none of whose literals a batch holds;
    an alternative without a literal test keeps its condition in."""
    batch = make_events([{"message": "nothing here"},
                         {"message": "ccu task print", "level": "ERROR"}] * 3)
    built = [Condition(((pred("message", "contains", "Already have context"),),)),
             Condition(((pred("message", "contains", "CCU TASK"),),)),
             Condition(((pred("level", "eq", "ERROR"),),)),
             Condition(((pred("message", "contains", "absent"),),
                        (pred("codes", "eq", "507015"),))),
             Condition(((pred("level", "eq", "ERROR"), pred("message", "endswith", "absent")),
                        (pred("message", "startswith", "nothing", "x"),)))]
    assert Prefilter(built).possible(batch, {}).tolist() == [False, True, True, True, True]


@settings(max_examples=150, deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.sampled_from(_POOL)), max_size=40),
       picked=st.lists(st.integers(0, 8), max_size=6))
def test_matches_of_distinct_values_spread_to_the_rows_that_hold_them(values: list,
                                                                      picked: list) -> None:
    """``spread_matches`` over a column's encoding (nulls placed past its values, as
    ``Encoded`` places them): each row gets the matches of its value, and the non-ASCII
    values' rows, as if every row had been scanned."""
    encoded = distinct.Encoded(pa.array(values, pa.string()))
    chosen = np.array(sorted({p for p in picked if p < len(encoded.values)}), np.int64)
    ids = np.arange(len(chosen), dtype=np.int64) + 7  # the value chosen[i] holds literal 7 + i
    texts = encoded.values.to_pylist()
    got_ids, got_rows, loose = spread_matches(encoded.index, ids, chosen, chosen[:1])
    want = sorted((row, 7 + i) for i, p in enumerate(chosen)
                  for row, v in enumerate(values) if v == texts[p])
    assert sorted(zip(got_rows.tolist(), got_ids.tolist(), strict=True)) == want
    assert got_rows.tolist() == sorted(got_rows.tolist())  # in row order
    assert loose.tolist() == [row for row, v in enumerate(values)
                              if len(chosen) and v == texts[chosen[0]]]
