"""Sets of RE2 patterns tested with one Hyperscan scan first (``parse.patternsets``) give
RE2's answer row for row: on ASCII and non-ASCII text, on repeated rows, on rows a match
scanned end to end would span, and for several sets each asked about its own rows."""

from __future__ import annotations

import pickle

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.parse.arrowtext import any_match
from plogscan.parse.patternsets import PatternSet, PatternSets, distinct, matching

SETS = ((r"(?i)\bstep \d+ done$", r"ctx.x"), (r"^==> .+ <==[ \t]*$",), (r"(?s)begin.*end",))
TEXTS = [" Step 12 done", "STEP 3 DONE later", "==> a/b.log <==", "x ==> a <==", "ctx€x",
         "ctxax", "stэp 1 done", "\u212aeep step 7 done", "==> ", " <==", None, "",
         "mid\nstep 1 done", "begin", "end", "begin\n end"]


def _rows(draw_mask: list[bool]) -> np.ndarray:
    return np.flatnonzero(np.array(draw_mask, bool))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(TEXTS), min_size=0, max_size=200), st.data())
def test_each_set_gets_re2s_answer_on_its_rows(texts: list[str | None], data: st.DataObject
                                               ) -> None:
    column = pa.array(texts, pa.large_string())
    sets = PatternSets(SETS)
    asked = [(k, _rows(data.draw(st.lists(st.booleans(), min_size=len(texts),
                                          max_size=len(texts)))))
             for k in range(len(SETS))]
    for (k, rows), hit in zip(asked, sets.matching(column, asked), strict=True):
        expected = any_match(column.take(pa.array(rows)), SETS[k]) if len(rows) else []
        assert hit.tolist() == list(expected)
    assert sets.scanner is not None  # the loosened patterns went to Hyperscan
    everywhere = sets.mask(column).tolist()
    assert everywhere == any_match(column, [p for ps in SETS for p in ps]).tolist()


def test_members_are_their_patterns_and_are_tested_in_one_scan() -> None:
    sets = PatternSets(SETS)
    member = sets.members[1]
    assert isinstance(member, PatternSet) and member == SETS[1] and member.number == 1
    column = pa.array(["==> a <==", "step 1 done", "x"])
    asked = [(sets.members[0], np.array([0, 1, 2])), (member, np.array([0, 2]))]
    assert [m.tolist() for m in matching(column, asked)] == [[False, True, False],
                                                             [True, False]]
    # plain tuples of patterns: RE2 on every row asked about, the same answer
    plain = [(tuple(p), rows) for p, rows in asked]
    assert [m.tolist() for m in matching(column, plain)] == [[False, True, False],
                                                             [True, False]]


def test_a_pattern_without_a_loosened_form_leaves_re2_alone() -> None:
    sets = PatternSets([(r"\Qa.b\E",)])  # superset_regex does not take \Q...\E apart
    column = pa.array(["a.b", "axb", None])
    assert sets.loosened is None
    assert sets.mask(column).tolist() == [True, False, False]


def test_a_copy_in_another_process_compiles_its_own_database() -> None:
    sets = PatternSets(SETS)
    sets.mask(pa.array(["x"]))
    copy = pickle.loads(pickle.dumps(sets))
    assert sets.scanner is not None and copy.scanner is None
    assert copy.members[2].sets is copy
    assert copy.mask(pa.array(["begin x end"])).tolist() == [True]


@given(st.lists(st.integers(-5, 10**12), max_size=300))
def test_distinct_is_numpys_unique(values: list[int]) -> None:
    array = np.array(values, np.int64)
    assert distinct(array).tolist() == np.unique(array).tolist()
