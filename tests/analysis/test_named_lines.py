"""The first lines and templates of a batch's ERROR messages, each distinct message worked on
once, are those of every message worked on alone (repeats, nulls, multi-line messages)."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.analysis.unexplained import first_lines, mask, named_lines

_PIECES = ["HcclAllReduce failed, ret[2], code EI0002", "rank 3 timeout after 120s",
           "/usr/local/Ascend/x.so", "0x7150227", "10.0.0.1:60000", "\n", "Traceback",
           "  File \"a.py\", line 9", "RuntimeError: boom 507011", " ", "|---|", "ab12"]
_MESSAGES = st.one_of(st.none(), st.lists(st.sampled_from(_PIECES), max_size=5).map("".join))


@settings(max_examples=100, deadline=None)
@given(st.lists(_MESSAGES, max_size=30), st.data())
def test_equal_to_every_message_alone(messages: list, data: st.DataObject) -> None:
    messages = messages + data.draw(st.lists(st.sampled_from(messages), max_size=20)
                                    if messages else st.just([]))
    column = pa.array(messages, pa.large_string())
    lines, templates = named_lines(pa.chunked_array([column]))
    assert lines.to_pylist() == first_lines(column).to_pylist()
    assert templates.to_pylist() == mask(first_lines(column)).to_pylist()
