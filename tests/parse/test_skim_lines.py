"""The lines a skim picks come out of its C call split and matched (``native/pickedlines.c``):
the same lines, header spans and distinct prefixes and source files that the parser's own
split and header walk give on the picked text (the C kernels and their Arrow and RE2 twins),
and the same records when the parser takes them instead of reading the lines again."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings

from plogscan.ingest.chunks import clean
from plogscan.parse import cannheader, compiled
from plogscan.parse.arrowtext import line_buffers, split_lines
from plogscan.parse.chunk import parse_chunk
from plogscan.parse.skimtext import skim_text
from tests.helpers import dense_plogs
from tests.parse.test_native_equal import _hostile_lines
from tests.parse.test_skim import (
    CTX,
    FSET,
    PLAIN,
    SHAPES,
    SKIM,
    SPECIAL,
    _python_path,
    _sample_files,
    head,
)


def assert_lines_alike(data: bytes, encoded: bool = False) -> bool:
    """The skim's split and matched lines of ``data`` equal the parser's reading of its
    picked text, by the C kernels and by Arrow and RE2; the records parsed from them equal
    those parsed from the text alone (C and Python paths); whether the skim picked lines."""
    assert compiled.native is not None  # built in CI: else the C call is not tested at all
    found = SKIM.raw_hits(data)
    _starts, skimmed = skim_text(data, found.ends, found.narrowed, FSET)
    if skimmed is None:
        return False
    given_lines = skimmed.matched
    assert given_lines is not None and skimmed.picked is not None
    text = skimmed.picked
    lines = split_lines(text)
    assert given_lines.lines.equals(lines)
    assert np.array_equal(given_lines.spans, cannheader.one_pass_spans(lines, derived=True))
    offsets, values = line_buffers(lines)
    base = offsets[:-1]
    spans = given_lines.spans
    with _python_path():
        assert given_lines.lines.equals(split_lines(text))
        assert np.array_equal(spans[:, :8], cannheader.header_spans(lines, compiled=False))
        for (index, distinct), at in ((given_lines.prefix, 0), (given_lines.src_file, 2)):
            want_index, want = cannheader.distinct_texts(values, base + spans[:, at],
                                                         spans[:, at + 1], compiled=False)
            assert np.array_equal(index, want_index)
            assert distinct.equals(want)
    taken, read = cannheader.match(lines, given_lines), cannheader.match(lines)
    assert np.array_equal(taken.matched, read.matched)
    assert np.array_equal(taken.msg_start, read.msg_start)
    assert taken.start.keys() == read.start.keys() and taken.values.keys() == read.values.keys()
    for name in read.start:
        assert np.array_equal(taken.start[name], read.start[name]), name
        assert np.array_equal(taken.length[name], read.length[name]), name
    for name in read.values:
        assert taken.values[name].equals(read.values[name]), name
    numbers = 7 + np.flatnonzero(skimmed.parse)
    for open_record in (False, True):
        taken = parse_chunk(text, 7, CTX, FSET, open_record, encoded, numbers=numbers,
                            matched=given_lines)
        read = parse_chunk(text, 7, CTX, FSET, open_record, encoded, numbers=numbers)
        with _python_path():
            python = parse_chunk(text, 7, CTX, FSET, open_record, encoded, numbers=numbers)
        assert taken.records.equals(read.records)
        assert taken.records.equals(python.records)
        assert taken.head == read.head == python.head
        for name in ("lines", "blank_lines", "trailing_blank", "unparsed_lines",
                     "shared_lines", "truncated_lines", "lead"):
            assert getattr(taken, name) == getattr(read, name) == getattr(python, name), name
    return True


@settings(max_examples=60, deadline=None)
@given(shapes=SHAPES)
def test_any_mix_of_shapes(shapes: list[str]) -> None:
    text = "\n".join(PLAIN.replace("10:00:01", f"10:00:{i % 60:02d}") if s == "plain"
                     else SPECIAL[s] for i, s in enumerate(shapes))
    assert_lines_alike(text.encode())


@pytest.mark.parametrize("special", sorted(SPECIAL))
def test_each_shape_among_plain_lines_encoded(special: str) -> None:
    lines = [PLAIN.replace("10:00:01", f"10:00:{i:02d}") for i in range(12)]
    lines[6] = SPECIAL[special]
    assert assert_lines_alike("\n".join(lines).encode(), encoded=True)


def test_every_sample() -> None:
    picked = [assert_lines_alike(clean(path.read_bytes())[0]) for path in _sample_files()]
    assert sum(picked) >= 5  # files where the skim skipped records and picked the rest


def test_hostile_and_generated_dense_text(tmp_path: Path) -> None:
    for seed in range(4):
        assert_lines_alike(clean(_hostile_lines(random.Random(seed)))[0])
    assert all(assert_lines_alike(path.read_bytes())
               for path in dense_plogs(tmp_path / "tree", seed=9))


def test_thousands_of_distinct_prefixes_and_source_files() -> None:
    """The C tables of prefixes and source files grow several times and still number each
    text where it first comes."""
    pids = [*range(3000), *range(2999, -1, -7)]
    lines = [head("ERROR" if p % 5 == 0 else "DEBUG", pid=str(1000 + p)).replace(
        "graph.cc", f"f{p % 1500}.cc") + "step" for p in pids]
    assert assert_lines_alike("\n".join(lines).encode())


def _marks(text: bytes) -> tuple[np.ndarray, int]:
    starts = np.array([0, *[i + 1 for i, b in enumerate(text) if b == 10], len(text) + 1],
                      np.int64)
    return starts, len(starts) - 1


def _skipped(text: bytes, starts: np.ndarray, lines: int, allocate: object) -> tuple:
    native = compiled.native
    assert native is not None
    return native.skim_skipped(text, starts, np.zeros(lines, np.uint8), np.ones(1, np.uint8),
                               np.zeros(lines, np.int64), np.zeros(lines, np.int64), 0,
                               allocate)


def test_the_call_refuses_lines_outside_the_data_and_bad_buffers() -> None:
    text = (head() + "a\n\n" + head("ERROR") + "b").encode()
    starts, lines = _marks(text)
    split = _skipped(text, starts, lines, pa.allocate_buffer)[7]
    assert len(split) == 12
    assert split[4] == [b"[DEBUG] GE(4100,python3):", b"", b"[ERROR] GE(4100,python3):"]
    assert split[5][1:] == ([b"DEBUG", None, b"ERROR"], [b"GE", None, b"GE"],
                            [4100, None, 4100], [b"python3", None, b"python3"])
    assert _skipped(text, starts, lines, None)[7] is None
    for bad in ([0, 5, 3, len(text) + 1], [0, 5, 9, len(text) + 2], [-1, 5, 9, len(text) + 1]):
        with pytest.raises(ValueError, match="outside"):
            _skipped(text, np.array(bad, np.int64), lines, pa.allocate_buffer)
    with pytest.raises(ValueError, match="too small"):
        _skipped(text, starts, lines, lambda size: pa.allocate_buffer(max(size - 1, 0)))

    def refused(size: int) -> pa.Buffer:
        raise MemoryError(size)

    with pytest.raises(MemoryError):
        _skipped(text, starts, lines, refused)
