"""Each kernel of the C module against its Arrow or numpy twin, on hostile bytes."""

from __future__ import annotations

import numpy as np
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.parse import arrowtext
from plogscan.parse import compiled as compiled_module

_bytes = st.lists(st.sampled_from([b"\n", b"\r", b"\x00", b"\xff", b"\xe4\xb8\xad", b"[", b" ",
                                   b"x", b"[ERROR] HCCL(1,p):", b"\r\n"]),
                  max_size=80).map(b"".join) | st.binary(max_size=300)


def _arrow_split(buf: bytes):
    return pc.split_pattern(arrowtext.as_one_value(buf, arrowtext.LARGE), "\n").flatten()


@settings(max_examples=400, deadline=None)
@given(_bytes)
def test_split_lines_equals_arrow(buf: bytes) -> None:
    lines = arrowtext.split_lines(buf)
    lines.validate()
    assert lines.equals(_arrow_split(buf))


def test_split_lines_of_long_lines_and_edges() -> None:
    for buf in (b"", b"\n", b"\n\n", b"a", b"a\n", b"x" * 3_000_000 + b"\n" + b"y" * 70_000):
        assert arrowtext.split_lines(buf).equals(_arrow_split(buf))


def test_split_lines_refuses_buffers_too_small() -> None:
    native = compiled_module.native
    assert native is not None
    data = b"ab\ncd\nef"
    assert native.line_count(data) == 3
    with pytest.raises(ValueError, match="too small"):
        native.split_lines(data, np.zeros(3, np.int64), np.zeros(6, np.uint8))
    with pytest.raises(ValueError, match="too small"):
        native.split_lines(data, np.zeros(4, np.int64), np.zeros(5, np.uint8))
    offsets, text = np.zeros(4, np.int64), np.zeros(6, np.uint8)
    assert native.split_lines(data, offsets, text) == 3
    assert offsets.tolist() == [0, 2, 4, 6] and text.tobytes() == b"abcdef"
