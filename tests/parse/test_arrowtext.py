"""The zero-loop text kernels of ``arrowtext`` against plain Python slicing."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.parse.arrowtext import (
    LARGE,
    gathered,
    holds,
    joined_bytes,
    line_buffers,
    split_lines,
    string_views,
    tails,
)

_ASCII = st.characters(min_codepoint=32, max_codepoint=126)  # byte offsets are characters


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


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text(_ASCII, max_size=30)), max_size=10), st.data())
def test_tails_are_string_ends(strings: list[str | None], data: st.DataObject) -> None:
    """``tails`` (string views) and its gather fallback cut what Python slicing cuts."""
    arr = pa.array(strings, LARGE)
    rows = np.array(data.draw(st.lists(st.integers(0, max(len(strings) - 1, 0)),
                                       max_size=len(strings) and 8)), np.int64)
    starts = np.array([data.draw(st.integers(0, 40)) for _ in rows], np.int64)
    want = [None if strings[r] is None else strings[r].encode()[s:].decode()
            for r, s in zip(rows, starts, strict=True)]
    assert tails(arr, rows, starts).to_pylist() == want
    offsets, raw = line_buffers(arr)
    clipped = np.clip(starts, 0, offsets[rows + 1] - offsets[rows])
    valid = arr.is_valid().to_numpy(zero_copy_only=False)[rows] if arr.null_count else None
    begin = offsets[rows] + clipped
    assert gathered(raw, begin, offsets[rows + 1] - begin, valid).to_pylist() == want


@settings(max_examples=200, deadline=None)
@given(spans_of_text())
def test_gather_fallbacks_cut_what_string_views_cut(
        case: tuple[bytes, list[tuple[int, int]], list[bool]]) -> None:
    """The numpy gathers used for buffers of 2 GiB and more (too large for string views)
    give the same strings as the views."""
    from plogscan.parse.messages import byte_ranges

    text, spans, valid = case
    data = np.frombuffer(text, np.uint8)
    starts = np.array([s for s, _ in spans], np.int64)
    lengths = np.array([n for _, n in spans], np.int64)
    mask = np.array(valid, bool)
    views = string_views(data, pa.py_buffer(text), starts, lengths, mask)
    assert gathered(data, starts, lengths, mask).to_pylist() == pc.cast(views, LARGE).to_pylist()
    # Record messages: sorted ranges that do not overlap.
    ends = sorted({0, len(text), *(s for s, _ in spans)})
    begin, end = np.array(ends[:-1], np.int64), np.array(ends[1:], np.int64)
    assert (gathered(data, begin, end - begin).to_pylist()
            == byte_ranges(text, begin, end).to_pylist()
            == [text[b:e].decode() for b, e in pairwise(ends)])


@settings(max_examples=200, deadline=None)
@given(spans_of_text())
def test_joined_bytes_are_the_slices_one_after_another(
        case: tuple[bytes, list[tuple[int, int]], list[bool]]) -> None:
    text, spans, _valid = case
    starts = np.array([s for s, _ in spans], np.int64)
    lengths = np.array([n for _, n in spans], np.int64)
    assert joined_bytes(text, starts, lengths) == b"".join(text[s:s + n] for s, n in spans)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40).map(lambda b: b.replace(b"\x00", b"=")),
       st.sampled_from([b"==> ", b"=>", b"<== x"]), st.data())
def test_holds_is_in(buf: bytes, needle: bytes, data: st.DataObject) -> None:
    if data.draw(st.booleans()):  # often put the needle, or a piece of it, somewhere
        cut = data.draw(st.integers(1, len(needle)))
        at = data.draw(st.integers(0, len(buf)))
        buf = buf[:at] + needle[:cut] + buf[at:]
    anchor = data.draw(st.integers(0, len(needle) - 1))
    assert holds(buf, needle, anchor) == (needle in buf)
