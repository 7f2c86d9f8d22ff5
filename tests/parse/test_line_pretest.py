"""The line matcher's pretest (one RE2 pass for every prefix and secondary format) changes
nothing: it matches every line some prefix or format matches, and the spans of every line
are those of trying the formats one by one."""

from __future__ import annotations

import dataclasses

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.parse.formatcheck import builtin_formats
from plogscan.parse.lineformats import FormatSet
from plogscan.parse.linematch import Spans, match_lines

FSET = builtin_formats()
SECONDARY = [*FSET.prefixes, *FSET.formats[1:]]
SAMPLE_LINES = sorted({line for item in SECONDARY for line, _fields, _where in item.samples})
# Lines no format should take, in the shapes that dominate DEBUG trees.
OTHER_LINES = ["    node[0] name=Add_623 type=Add", "\tat torch.ops", "  File \"x.py\", line 3",
               "", "-" * 40, "| a | b |", "x" * 300]


def _one_by_one() -> FormatSet:
    fset = dataclasses.replace(FSET)
    fset.__dict__["secondary_pretest"] = None  # the cached property, turned off
    return fset


def _same(a: Spans, b: Spans) -> None:
    assert np.array_equal(a.fmt, b.fmt)
    assert np.array_equal(a.msg_start, b.msg_start)
    assert np.array_equal(a.prefix_end, b.prefix_end)
    assert np.array_equal(a.other_lines, b.other_lines)
    assert a.start.keys() == b.start.keys()
    for name in a.start:
        assert np.array_equal(a.start[name], b.start[name]), name
        assert np.array_equal(a.length[name], b.length[name]), name
    assert a.values.keys() == b.values.keys()
    for name in a.values:
        assert a.values[name].equals(b.values[name]), name


def _compare(lines: list[str]) -> None:
    array = pa.array(lines, pa.large_string())
    blank = np.array([not line.strip() for line in lines], bool)
    _same(match_lines(array, blank, FSET), match_lines(array, blank, _one_by_one()))


def test_the_built_in_formats_have_a_pretest():
    assert FSET.secondary_pretest is not None


def test_the_pretest_matches_every_sample_of_every_prefix_and_secondary_format():
    assert len(SAMPLE_LINES) > 20
    found = pc.match_substring_regex(pa.array(SAMPLE_LINES), FSET.secondary_pretest)
    missed = [line for line, hit in zip(SAMPLE_LINES, found.to_pylist(), strict=True)
              if not hit]
    assert missed == []


def test_the_pretest_turns_away_indented_continuation_lines():
    found = pc.match_substring_regex(pa.array(OTHER_LINES[:2]), FSET.secondary_pretest)
    assert found.to_pylist() == [False, False]


def test_spans_of_samples_and_other_lines_are_those_of_the_formats_one_by_one():
    _compare(SAMPLE_LINES + OTHER_LINES)


FRAGMENTS = st.sampled_from(SAMPLE_LINES + OTHER_LINES)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(FRAGMENTS, FRAGMENTS, st.integers(0, 40)), min_size=1, max_size=30))
def test_spans_of_spliced_lines_are_those_of_the_formats_one_by_one(parts):
    """Lines cut from one sample and glued to the tail of another: prefixes over formats,
    formats over text no format takes."""
    lines = [a[:cut] + b[cut:] if cut % 2 else a[:cut] + b for a, b, cut in parts]
    _compare(lines)
