"""Each predicate operator over each column type, as Arrow masks; captures; regex checks."""

from __future__ import annotations

from datetime import datetime

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.catalog.operators import FIELD_KINDS, OPERATORS, check_regex, regex_groups
from plogscan.catalog.rule import Condition, Predicate
from plogscan.engine.predicates import MASKS, evaluate, extract
from plogscan.engine.prefilter import Prefilter
from plogscan.schema import EVENT_SCHEMA


def make_events(rows: list[dict]) -> pa.RecordBatch:
    """A record batch of EVENT_SCHEMA; unspecified columns are null (codes: empty list)."""
    full = []
    for i, row in enumerate(rows):
        base = {f.name: None for f in EVENT_SCHEMA}
        base.update(path="t.log", line=i + 1, line_count=1, codes=[])
        base.update(row)
        full.append(base)
    return pa.RecordBatch.from_pylist(full, schema=EVENT_SCHEMA)


def pred(field: str, op: str, *values: object) -> Predicate:
    groups = tuple(regex_groups(str(v)) for v in values) if op == "re" else ()
    return Predicate(field, op, tuple(values), groups)


def mask(batch: pa.RecordBatch, *alternatives: tuple[Predicate, ...]) -> list[bool]:
    return evaluate(Condition(tuple(alternatives)), batch).tolist()


MESSAGES = [
    {"message": "Already have context, skip create, ctxSize is 4"},
    {"message": "ALREADY HAVE CONTEXT"},
    {"message": "error code is 507916"},
    {"message": "first line\nsecond line ccu task print"},
    {"message": None},
]

CASES = [
    # field, op, values, expected mask over MESSAGES
    ("message", "contains", ("already have context",), [True, True, False, False, False]),
    ("message", "contains", ("ctxsize", "507916"), [True, False, True, False, False]),
    ("message", "eq", ("ALREADY HAVE CONTEXT",), [False, True, False, False, False]),
    ("message", "in", ("error code is 507916", "nope"), [False, False, True, False, False]),
    ("message", "startswith", ("already",), [True, True, False, False, False]),
    ("message", "endswith", ("IS 4", "task print"), [True, False, False, True, False]),
    ("message", "re", (r"\b507916\b",), [False, False, True, False, False]),
    ("message", "re", (r"\b5079\b",), [False, False, False, False, False]),
    ("message", "re", ("line.second",), [False, False, False, False, False]),
    ("message", "re", ("(?s)line.second",), [False, False, False, True, False]),
    ("message", "re", ("^second",), [False, False, False, False, False]),
    ("message", "re", ("(?m)^second",), [False, False, False, True, False]),
    ("message", "re", ("(?i)already", "ccu"), [True, True, False, True, False]),
]


@pytest.mark.parametrize(("field", "op", "values", "expected"), CASES,
                         ids=[f"{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_text_operators(field: str, op: str, values: tuple, expected: list[bool]) -> None:
    assert mask(make_events(MESSAGES), (pred(field, op, *values),)) == expected


NUMBERS = [{"pid": 10, "rank": 0}, {"pid": 20, "rank": 1}, {"pid": -1}, {"pid": None}]


@pytest.mark.parametrize(("op", "values", "expected"), [
    ("eq", (20,), [False, True, False, False]),
    ("in", (10, -1), [True, False, True, False]),
    ("gte", (10,), [True, True, False, False]),
    ("lte", (10,), [True, False, True, False]),
])
def test_number_operators(op: str, values: tuple, expected: list[bool]) -> None:
    assert mask(make_events(NUMBERS), (pred("pid", op, *values),)) == expected


def test_boolean_and_level_columns() -> None:
    batch = make_events([{"truncated": True, "level": "DEBUG"}, {"truncated": False,
                         "level": "ERROR"}, {"truncated": None, "level": None}])
    assert mask(batch, (pred("truncated", "eq", True),)) == [True, False, False]
    assert mask(batch, (pred("level", "in", "DEBUG", "INFO"),)) == [True, False, False]


def test_a_header_field_the_record_lacks_passes_only_beside_a_text_test() -> None:
    """A line pasted without its CANN header has no level and no module: beside a test of
    its text they do not contradict the alternative; alone, a header test needs the field."""
    batch = make_events([{"module": "HCCL", "level": "DEBUG", "message": "skip create"},
                         {"module": None, "level": None, "message": "skip create"},
                         {"module": "GE", "level": "DEBUG", "message": "skip create"},
                         {"module": None, "level": None, "message": "other", "codes": ["507916"]},
                         {"module": None, "level": None, "message": None}])
    module = pred("module", "eq", "HCCL")
    level = pred("level", "in", "DEBUG", "INFO")
    text = pred("message", "contains", "skip create")
    assert mask(batch, (module, level, text)) == [True, True, False, False, False]
    assert mask(batch, (module,)) == [True, False, False, False, False]
    assert mask(batch, (module, pred("codes", "eq", "507916"))) == [False, False, False, True,
                                                                   False]
    prefilter = Prefilter([Condition(((module, text),))])
    assert evaluate(Condition(((module, text),)), batch, {}, prefilter).tolist() == [
        True, True, False, False, False]


def test_list_column_holds_when_any_element_holds() -> None:
    batch = make_events([{"codes": ["ERR00100", "507916"]}, {"codes": ["507035"]},
                         {"codes": []}, {"codes": None}])
    assert mask(batch, (pred("codes", "eq", "507916", "507915"),)) == [True, False, False, False]
    assert mask(batch, (pred("codes", "startswith", "5070"),)) == [False, True, False, False]
    assert mask(batch, (pred("codes", "re", "^ERR"),)) == [True, False, False, False]


def test_keys_are_anded_and_alternatives_ored() -> None:
    batch = make_events([
        {"module": "HCCL", "message": "Already have context"},
        {"module": "RUNTIME", "message": "Already have context"},
        {"module": "RUNTIME", "message": "ccu task print"},
    ])
    hccl_reuse = (pred("module", "eq", "HCCL"), pred("message", "contains", "already have"))
    ccu = (pred("message", "re", "ccu task"),)
    assert mask(batch, hccl_reuse) == [True, False, False]
    assert mask(batch, hccl_reuse, ccu) == [True, False, True]


def test_shared_cache_gives_the_same_masks() -> None:
    batch = make_events(MESSAGES)
    cond = Condition(((pred("message", "contains", "context"), pred("message", "re", "4$")),))
    cache: dict = {}
    first = evaluate(cond, batch, cache).tolist()
    assert cache and evaluate(cond, batch, cache).tolist() == first == [
        True, False, False, False, False]


def test_captures_first_alternative_wins_and_missing_groups_are_none() -> None:
    batch = make_events([
        {"message": "fusion kernel task execution, streamId=61, taskId=90"},
        {"message": "fusion kernel task execution, taskId=91"},
        {"message": "ccu task print, coreNum=1, streamId=7, taskId=8"},
    ])
    cond = Condition((
        (pred("message", "re",
              r"fusion kernel task execution(?:.*?streamId=(?P<stream>\d+))?"
              r"(?:.*?taskId=(?P<task>\d+))?"),),
        (pred("message", "re", r"streamId=(?P<stream>\d+), taskId=(?P<task>\d+)"),),
    ))
    got = extract(cond, batch)
    assert got == {"stream": ["61", None, "7"], "task": ["90", "91", "8"]}


def test_captures_only_from_rows_where_the_whole_alternative_holds() -> None:
    batch = make_events([{"module": "HCCL", "message": "ctxSize is 4"},
                         {"module": "RUNTIME", "message": "ctxSize is 9"}])
    cond = Condition(((pred("module", "eq", "HCCL"),
                       pred("message", "re", r"ctxSize is (?P<n>\d+)")),))
    assert extract(cond, batch) == {"n": ["4", None]}


@pytest.mark.parametrize(("pattern", "problem"), [
    (r"ok (?P<a>\d+)", None),
    (r"(?:a|b)(?P<x>c)", None),
    (r"(?<=a)b", "invalid perl operator"),
    (r"a(b", "missing )"),
    (r"(a)(?P<x>b)", "unnamed groups"),
    (r"(?P<x>a)(?P<x>b)", "appears twice"),
    (r"(a)\1", "invalid escape"),
])
def test_check_regex(pattern: str, problem: str | None) -> None:
    found = check_regex(pattern)
    assert (found is None) if problem is None else (problem in (found or ""))


def test_every_operator_names_the_field_kinds_it_takes() -> None:
    assert set(FIELD_KINDS) == set(EVENT_SCHEMA.names) - {"ts", "ts_aligned"}
    assert {"eq", "in", "contains", "startswith", "endswith", "re", "gte", "lte",
            "known"} == set(OPERATORS)
    assert FIELD_KINDS["message"] == "str" and FIELD_KINDS["codes"] == "list"
    assert FIELD_KINDS["pid"] == "int" and FIELD_KINDS["truncated"] == "bool"


def test_every_operator_of_the_catalogue_has_a_mask_and_no_mask_is_left_over() -> None:
    assert MASKS.keys() == OPERATORS.keys()


def test_timestamps_are_not_a_matchable_field() -> None:
    batch = make_events([{"ts": datetime(2026, 1, 1)}])
    assert "ts" in batch.schema.names and "ts" not in FIELD_KINDS


@pytest.mark.parametrize(("op", "values", "expected"), [
    ("contains", ("[aicore exception]", "a+b"), [True, True, False, False]),
    ("contains", ("(x)", "[AICORE"), [True, False, True, False]),
    ("startswith", ("A+B", "(x"), [False, True, True, False]),
    ("endswith", ("y.", "B c"), [False, True, False, True]),
])
def test_several_literals_are_matched_literally(op: str, values: tuple, expected: list) -> None:
    batch = make_events([{"message": "x [aicore exception] y"}, {"message": "a+b c"},
                         {"message": "(x) aicore"}, {"message": "axy."}])
    assert mask(batch, (pred("message", op, *values),)) == expected


# Text with the characters that matter to a case-insensitive alternation: RE2 metacharacters,
# letters whose case folds, and non-ASCII.
_TEXT = st.text(alphabet="aAbB .*+?()[]|\\^$ÄäßſKk01", max_size=12)


@settings(max_examples=200, deadline=None)
@given(messages=st.lists(st.one_of(st.none(), _TEXT), min_size=1, max_size=20),
       conditions=st.lists(st.lists(st.tuples(
           st.sampled_from(["contains", "startswith", "endswith", "re", "eq"]),
           st.lists(_TEXT, min_size=1, max_size=3)), min_size=1, max_size=3),
           min_size=1, max_size=4))
def test_the_prefilter_changes_no_mask(messages: list[str | None],
                                       conditions: list[list[tuple[str, list[str]]]]) -> None:
    """Masks with the one-pass prefilter equal masks without it, whatever the literals."""
    import re

    batch = make_events([{"message": m, "proc": m} for m in messages])
    built = []
    for alternatives in conditions:
        alts = []
        for op, values in alternatives:
            if op == "re":
                values = [re.escape(v) for v in values]
            alts.append((pred("message", op, *values), pred("proc", "contains", values[0]))
                        if op == "eq" else (pred("message", op, *values),))
        built.append(Condition(tuple(alts)))
    prefilter = Prefilter(built)
    cache: dict = {}
    for cond in built:
        plain = evaluate(cond, batch).tolist()
        assert evaluate(cond, batch, cache, prefilter).tolist() == plain
        assert evaluate(cond, batch, {}, prefilter).tolist() == plain


def test_the_prefilter_joins_the_first_literal_test_of_every_alternative() -> None:
    cond = Condition(((pred("message", "contains", "HCCL timeout"),),
                      (pred("level", "eq", "ERROR"), pred("message", "contains", "skipped")),
                      (pred("message", "startswith", "a.b", "c(d"),)))
    patterns = Prefilter([cond]).patterns
    assert set(patterns) == {"message"}  # "skipped" runs second, on the ERROR rows only
    assert patterns["message"] == r"(?i)(?:HCCL timeout|a\.b|c\(d)"


def test_known_codes_are_those_the_code_tables_class() -> None:
    """``codes|known: true`` holds for a code the tables give a failure class, never for a
    success value, an undefined code or a code known only by its component letter; it
    captures the most telling code of the record (a wrapper only when there is no other)."""
    batch = make_events([
        {"codes": ["EH9999", "207000"]},  # a wrapper and the code that says why
        {"codes": ["EZ9999"]},            # a wrapper alone
        {"codes": ["0x0", "000000"]},     # success values
        {"codes": ["999001", "EB0001"]},  # undefined; known only by component letter
        {"codes": []},
    ])
    known = Condition(((pred("codes", "known", True),),))
    assert evaluate(known, batch).tolist() == [True, True, False, False, False]
    found = extract(Condition(((Predicate("codes", "known", (True,),
                                          (OPERATORS["known"].captures,)),),)), batch)
    assert found["code"][:2] == ["207000", "EZ9999"]
    assert found["code_category"][:2] == ["env-config", "runtime-error"]
    assert found["code"][2:] == [None, None, None]
