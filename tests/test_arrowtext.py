"""The zero-loop text kernels of ``arrowtext`` against plain Python slicing."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.arrowtext import LARGE, split_lines, string_views


@st.composite
def spans_of_text(draw: st.DrawFn) -> tuple[bytes, list[tuple[int, int]], list[bool]]:
    """UTF-8 text and spans that start and end on character boundaries, as parsers cut."""
    chars = draw(st.lists(st.characters(codec="utf-8", exclude_characters="\x00"),
                          max_size=60))
    bounds = np.cumsum([0] + [len(c.encode()) for c in chars]).tolist()
    count = draw(st.integers(0, 12))
    spans = []
    for _ in range(count):
        first = draw(st.integers(0, len(chars)))
        last = draw(st.integers(first, len(chars)))
        spans.append((bounds[first], bounds[last] - bounds[first]))
    valid = draw(st.lists(st.booleans(), min_size=count, max_size=count))
    return "".join(chars).encode(), spans, valid


@settings(max_examples=300, deadline=None)
@given(spans_of_text())
def test_string_views_are_the_byte_slices(case: tuple[bytes, list[tuple[int, int]], list[bool]]
                                          ) -> None:
    text, spans, valid = case
    data = np.frombuffer(text, np.uint8)
    starts = np.array([s for s, _ in spans], np.int64)
    lengths = np.array([n for _, n in spans], np.int64)
    views = string_views(data, pa.py_buffer(text), starts, lengths, np.array(valid, bool))
    views.validate(full=True)
    got = pc.cast(views, pa.binary()).to_pylist()
    assert got == [text[s:s + n] if ok else None for (s, n), ok in zip(spans, valid, strict=True)]


def test_string_views_inline_and_spilled_strings() -> None:
    text = b"a short one\nand one that is longer than twelve bytes\n"
    data = np.frombuffer(text, np.uint8)
    views = string_views(data, pa.py_buffer(text), np.array([0, 12, 2]), np.array([11, 40, 5]))
    assert pc.cast(views, LARGE).to_pylist() == [
        "a short one", "and one that is longer than twelve bytes", "short"]


def test_split_lines_keeps_every_line() -> None:
    assert split_lines(b"one\n\nthree").to_pylist() == ["one", "", "three"]
