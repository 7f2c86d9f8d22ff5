"""Each kernel of the C module against its Arrow or numpy twin, on hostile bytes."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from plogscan.parse import arrowtext, cannheader, fieldvalues, timestamps
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


def _both_ways(read, *args):
    """``read(*args)`` with the C module, then without it."""
    by_c = read(*args)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compiled_module, "native", None)
        fallback = read(*args)
    return by_c, fallback


_number_text = st.lists(st.sampled_from([*"0123456789", "-", "+", " ", "x", "\u0663", ""]),
                        max_size=21).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_number_text, st.booleans()), min_size=1, max_size=12),
       st.sampled_from([pa.int32(), pa.int64()]))
@example(cells=[("0x0", True)], typ=pa.int32())  # decimal only: Arrow's cast reads hex too
def test_integers_equal_arrow(cells, typ) -> None:
    texts = [text for text, _ in cells]
    data = np.frombuffer("|".join(texts).encode() + b"|", np.uint8)
    starts, lengths, at = [], [], 0
    for text, present in cells:
        size = len(text.encode())
        starts.append(at if present else -1)
        lengths.append(size)
        at += size + 1
    offsets = np.zeros(len(cells) + 1, np.int64)  # one line holds every cell
    rows = np.zeros(len(cells), np.int64)
    by_c, fallback = _both_ways(fieldvalues.integers, data, offsets, rows,
                                np.array(starts, np.int64), np.array(lengths, np.int64), typ)
    assert by_c.type == fallback.type == typ
    assert by_c.to_pylist() == fallback.to_pylist()


_stamp = st.builds(
    lambda y, mo, d, h, mi, s, frac, sep: f"{y:04d}-{mo:02d}-{d:02d}{sep}{h:02d}:{mi:02d}:"
                                           f"{s:02d}.{frac // 1000:03d}.{frac % 1000:03d}",
    st.integers(0, 9999), st.integers(0, 13), st.integers(0, 32), st.integers(0, 25),
    st.integers(0, 61), st.integers(0, 62), st.integers(0, 999_999), st.sampled_from("- "))
_odd_stamp = st.binary(min_size=0, max_size=40)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_stamp.map(str.encode), _odd_stamp), min_size=1, max_size=10),
       st.lists(st.booleans(), min_size=10, max_size=10))
def test_cann_timestamps_equal_numpy(stamps, present) -> None:
    """Real dates, impossible ones (month 13, 30 February, second 62, year 0) and any bytes,
    even a start too near the end of the data for a whole timestamp."""
    data = np.frombuffer(b"\n".join(stamps), np.uint8)
    starts = np.cumsum([0] + [len(s) + 1 for s in stamps[:-1]]).astype(np.int64)
    mask = np.array(present[:len(stamps)])
    (ts_c, bad_c), (ts_np, bad_np) = _both_ways(timestamps.parse_cann_at, data,
                                                starts, mask)
    assert ts_c.equals(ts_np)
    assert bad_c.tolist() == bad_np.tolist()


def test_the_year_ends_where_readers_end() -> None:
    data = np.frombuffer(b"9999-12-31-23:59:59.999.999 9999-12-31-23:59:60.000.000 "
                         b"0000-01-01-00:00:00.000.000 2024-02-29-12:00:00.000.001", np.uint8)
    starts = np.array([0, 28, 56, 84], np.int64)
    ts, invalid = timestamps.parse_cann_at(data, starts, np.ones(4, bool))
    assert invalid.tolist() == [False, True, True, False]
    assert str(ts[3]) == "2024-02-29 12:00:00.000001"


def test_kernels_refuse_spans_outside_the_data() -> None:
    native = compiled_module.native
    assert native is not None
    values, valid = np.zeros(1, np.int64), np.zeros(1, np.uint8)
    with pytest.raises(ValueError, match="outside"):
        native.integers(b"12", np.array([1], np.int64), np.array([5], np.int64), 9, values,
                        valid)
    with pytest.raises(ValueError, match="outside"):
        native.cann_times(b"12", np.array([3], np.int64), values, valid)
    with pytest.raises(ValueError, match="one value a row"):
        native.integers(b"12", np.array([0, 0], np.int64), np.array([1, 1], np.int64), 9,
                        values, valid)


_HEADERS = [
    "[ERROR] RUNTIME(7,python3):2025-03-14-08:01:26.400.006 [f.cc:3][Run][tid:99] w",
    "[INFO] HCCL(1,p):2025-03-14 08:01:26.400.006 [a.cc:1]  [12] x",
    "[DEBUG] GE(423977,python3):2025-03-14-08:01:26.400.108 [op.cc:1222]425693 Update",
    "[3]GE(-1,):2025-03-14-08:01:26.400.006 [x.c 5] (tid:8) y",
    "[EVENT] TSCH(-12,a b):2025-03-14-08:01:26.400.006 [x.c:5] [Fn][Tid:77]",
    "[INFO] HCCL(1,p): 2025-03-14-08:01:26.400.006[a.cc:1] 7 m",
]
_tails = st.text(alphabet=st.sampled_from([*"[]():,- \t_0123456789aTtid.", "é"]), max_size=25)


def _header_values(lines: list[str]) -> dict[str, list]:
    found = cannheader.match(pa.array(lines, pa.large_string()))
    out: dict[str, list] = {"matched": found.matched.tolist(), "msg": found.msg_start.tolist()}
    for name in found.start:
        out[f"{name}.start"] = found.start[name].tolist()
        out[f"{name}.length"] = found.length[name].tolist()
    for name, values in found.values.items():
        out[name] = values.to_pylist()
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_HEADERS), st.integers(0, 90), _tails),
                min_size=1, max_size=20))
def test_header_fields_equal_numpy(parts: list[tuple[str, int, str]]) -> None:
    """Where the C module reads src_file, src_line, the thread id and the message start in
    its walk, numpy derives them from the groups: the same on headers cut anywhere and
    followed by anything."""
    by_c, by_numpy = _both_ways(_header_values, [head[:cut] + tail for head, cut, tail in parts])
    assert by_c == by_numpy
