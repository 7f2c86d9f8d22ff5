"""CANN timestamps read from bytes agree with Python's own date arithmetic."""

from __future__ import annotations

from datetime import datetime

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.parse.timestamps import WINDOW_BYTES, parse_cann_bytes

_stamp = st.builds(
    lambda y, mo, d, h, mi, s, ms, us, sep: f"{y:04d}-{mo:02d}-{d:02d}{sep}{h:02d}:{mi:02d}:"
                                          f"{s:02d}.{ms:03d}.{us:03d}",
    st.integers(1970, 2100), st.integers(0, 13), st.integers(0, 32), st.integers(0, 24),
    st.integers(0, 60), st.integers(0, 61), st.integers(0, 999), st.integers(0, 999),
    st.sampled_from(["-", " "]))


def _expected(stamp: str) -> datetime | None:
    try:
        return datetime.strptime(stamp[:10] + "-" + stamp[11:19], "%Y-%m-%d-%H:%M:%S").replace(
            microsecond=int(stamp[20:23]) * 1000 + int(stamp[24:27]))
    except ValueError:
        return None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_stamp, st.integers(1, 4), st.binary(min_size=5, max_size=5)),
                min_size=1, max_size=30))
def test_runs_of_stamps_parse_like_datetime(runs: list[tuple[str, int, bytes]]) -> None:
    """Stamps repeat in runs (as records of one second do) and are followed by other bytes,
    as in a line; each row is read on its own terms."""
    stamps = [stamp for stamp, times, _ in runs for _ in range(times)]
    tails = [tail for _, times, tail in runs for _ in range(times)]
    raw = np.zeros((len(stamps), WINDOW_BYTES), np.uint8)
    for i, (stamp, tail) in enumerate(zip(stamps, tails, strict=True)):
        row = stamp.encode() + tail
        raw[i, :len(row)] = np.frombuffer(row, np.uint8)
    present = np.ones(len(stamps), bool)
    ts, invalid = parse_cann_bytes(raw, present)
    want = [_expected(s) for s in stamps]
    # Second 60 (a leap second) is accepted by plogscan and rolls over; datetime refuses it.
    for got, expected, stamp, bad in zip(ts.to_pylist(), want, stamps, invalid, strict=True):
        if stamp[17:19] == "60" and expected is None and got is not None:
            continue
        assert got == expected, stamp
        assert bad == (expected is None), stamp


@settings(max_examples=300, deadline=None)
@given(_stamp, st.lists(st.tuples(st.integers(0, 18), st.sampled_from("0123456789"),
                                  st.integers(1, 3)), max_size=20))
def test_stamps_one_byte_apart_are_told_apart(first: str, edits: list[tuple[int, str, int]]
                                              ) -> None:
    """Each stamp differs from the one before in a single byte of its date or time, so every
    byte position of the run check is exercised."""
    stamps = [first]
    for position, digit, times in edits:
        previous = stamps[-1]
        if not previous[position].isdigit():
            continue
        stamps += [previous[:position] + digit + previous[position + 1:]] * times
    raw = np.zeros((len(stamps), WINDOW_BYTES), np.uint8)
    for i, stamp in enumerate(stamps):
        raw[i, :len(stamp)] = np.frombuffer(stamp.encode(), np.uint8)
    ts, invalid = parse_cann_bytes(raw, np.ones(len(stamps), bool))
    for got, stamp, bad in zip(ts.to_pylist(), stamps, invalid, strict=True):
        expected = _expected(stamp)
        if stamp[17:19] == "60" and expected is None and got is not None:
            continue
        assert got == expected, stamp
        assert bad == (expected is None), stamp
