"""The ``known`` operator's captures (the most telling known code of a record and its class)
are ``codes.most_specific`` of each record's codes, whatever lists repeat, are empty or null,
or hold a code with the separator the lookup joins codes with."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.codes import most_specific
from plogscan.engine.predicates import _known_codes

_CODES = st.sampled_from(["EI0002", "507916", "ERR00100", "EZ9999", "0x7150227", "123456",
                          "E40021", "ERR02200", "507011", "x\x1fy", ""])
_LISTS = st.one_of(st.none(), st.lists(_CODES, max_size=4))


@settings(max_examples=200, deadline=None)
@given(st.lists(_LISTS, min_size=1, max_size=30), st.data())
def test_equal_to_most_specific_per_record(lists: list, data: st.DataObject) -> None:
    column = pa.array(lists, pa.list_(pa.string()))
    rows = np.array(data.draw(st.lists(st.integers(0, len(lists) - 1), max_size=40)), np.int64)
    found = _known_codes(column, rows)
    expected = [most_specific(lists[row] or ()) for row in rows]
    assert found.field("code").to_pylist() == [e[0] if e else None for e in expected]
    assert found.field("code_category").to_pylist() == [e[1] if e else None for e in expected]
