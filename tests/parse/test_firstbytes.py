"""The first-byte filter never leaves out a line that a format or prefix would match."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.parse.firstbytes import first_bytes
from plogscan.parse.formatcheck import builtin_formats
from tests import plog_lines as L


@pytest.mark.parametrize(("pattern", "expected"), [
    (r"\[x", b"["),
    (r"(?:\[RAW\] )?\(", b"[("),
    (r"[EW][0-9]", b"EW"),
    (r"\d{4}", b"0123456789"),
    (r"a?b", b"ab"),
    (r"(?:a|b)c", b"ab"),
    (r"(?P<x>é)", "é".encode()[:1]),
])
def test_first_bytes_of_simple_patterns(pattern: str, expected: bytes) -> None:
    assert first_bytes(pattern) == frozenset(expected)


@pytest.mark.parametrize("pattern", [
    r"a*", r"(?:x)?", r"[^a]", r".", r"(?i)a", r"\W", r"a|", r"(", r"\S+",
])
def test_unsure_patterns_allow_any_byte(pattern: str) -> None:
    assert first_bytes(pattern) is None


def _patterns() -> list[str]:
    fset = builtin_formats()
    return [p.pattern for p in fset.prefixes] + [f.pattern for f in fset.formats]


def _assert_admitted(line: str) -> None:
    first = line.encode("utf-8")[:1]
    for pattern in _patterns():
        if first and re.match(pattern, line):
            allowed = first_bytes(pattern)
            assert allowed is None or first[0] in allowed, (pattern, line)


def test_every_sample_line_is_admitted_by_the_formats_that_match_it() -> None:
    lines = [s[0] for f in builtin_formats().formats for s in f.samples]
    lines += [*L.VALID_LINES, L.STDOUT_PTA, L.STDOUT_EXC]
    for line in lines:
        _assert_admitted(line)


_alphabet = st.sampled_from([*"[]()EWIT0129 :,-_.aZ\t", "[rank0]:", "pid=", "PID:"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_alphabet, max_size=12).map("".join))
def test_random_lines_never_match_a_pattern_that_excludes_their_first_byte(line: str) -> None:
    _assert_admitted(line)
