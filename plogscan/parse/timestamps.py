"""Timestamps as written in the logs, to microseconds since 1970 (no timezone guessing).

CANN writes ``YYYY-MM-DD-hh:mm:ss.mmm.uuu`` (milliseconds, then microseconds). Other
shapes (``…ss``, ``…ss.uuuuuu``, ``YYYY-MM-DD hh:mm:ss.mmm``) go through the generic path.
Both are vectorized with numpy; a value that is not a real date (month 13, 30 February)
becomes null and is reported as invalid, never as an exception.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.parse import compiled
from plogscan.parse.arrowtext import validity_bitmap, windows

_GENERIC = (
    r"^(?P<Y>\d{4})\D?(?P<m>\d\d)\D?(?P<d>\d\d)\D(?P<H>\d\d):(?P<M>\d\d):(?P<S>\d\d)"
    r"(?:[.,](?P<f1>\d{1,9})(?:\.(?P<f2>\d{3}))?)?"
)
_DAYS_IN_MONTH = np.array([0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], dtype=np.int64)
EPOCH_1971_US = 31_536_000 * 1_000_000


def _days_from_civil(y: np.ndarray, m: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Days since 1970-01-01 for proleptic Gregorian dates (H. Hinnant's algorithm)."""
    y = y - (m <= 2)
    era = np.floor_divide(y, 400)
    yoe = y - era * 400
    mp = (m + 9) % 12
    doy = (153 * mp + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


_YEAR_10000_US = 253402300800 * 1_000_000  # 10000-01-01 00:00:00 in microseconds since 1970


def _combine_values(parts: dict[str, np.ndarray], present: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Microseconds since 1970 and the mask of real dates (only where ``present``)."""
    y, m, d = parts["Y"], parts["m"], parts["d"]
    hh, mm, ss, us = parts["H"], parts["M"], parts["S"], parts["us"]
    leap = ((y % 4 == 0) & (y % 100 != 0)) | (y % 400 == 0)
    mi = np.clip(m, 0, 12)
    dim = _DAYS_IN_MONTH[mi] - ((mi == 2) & ~leap)
    ok = present & (m >= 1) & (m <= 12) & (d >= 1) & (d <= dim) & (hh < 24) & (mm < 60) & (ss < 61)
    days = _days_from_civil(y, np.where(ok, m, 1), np.where(ok, d, 1))
    micros = ((days * 86400 + hh * 3600 + mm * 60 + ss) * 1_000_000) + us
    # Years 1 to 9999 only, as far as readers' datetimes go: year 0, or a leap second after the
    # last second of 9999, would be a timestamp that nothing downstream can show.
    ok &= (y >= 1) & (micros < _YEAR_10000_US)
    return micros, ok


def _timestamp_array(micros: np.ndarray, ok: np.ndarray) -> pa.Array:
    """Timestamps from microseconds, null where not ``ok`` (built from the buffers)."""
    validity, nulls = validity_bitmap(ok)
    return pa.Array.from_buffers(pa.timestamp("us"), len(micros),
                                 [validity, pa.py_buffer(micros.astype(np.int64))], nulls)


def _combine(parts: dict[str, np.ndarray], present: np.ndarray) -> tuple[pa.Array, np.ndarray]:
    micros, ok = _combine_values(parts, present)
    return _timestamp_array(micros, ok), present & ~ok


_SECOND_BYTES = 19  # "YYYY-MM-DD-hh:mm:ss"
WINDOW_BYTES = 32  # what parse_cann_bytes reads per row: four little-endian 64-bit words
_WORD64 = np.dtype("<u8")
_SECOND_TAIL = np.uint64(0xFFFFFF)
_FRACTION_COLS = [20, 21, 22, 24, 25, 26]  # "mmm" and "uuu"


def parse_cann_bytes(raw: np.ndarray, present: np.ndarray) -> tuple[pa.Array, np.ndarray]:
    """Fast path from a ``(n, 32)`` byte matrix whose rows start with
    ``YYYY-MM-DD-hh:mm:ss.mmm.uuu`` values (the bytes after the 27th are not read).

    Rows where ``present`` is false come back null (and are not counted as invalid).
    Consecutive records mostly fall in the same second, so the date and time of day are
    computed once per run of rows with equal first 19 bytes (compared as three 64-bit words);
    only the six fraction digits are read for every row.
    """
    n = len(raw)
    new = np.ones(n, bool)
    if n > 1:
        words = np.ascontiguousarray(raw).view(_WORD64)
        third = words[:, 2] & _SECOND_TAIL  # bytes 16..18 of the 19
        new[1:] = ((words[1:, 0] != words[:-1, 0]) | (words[1:, 1] != words[:-1, 1])
                   | (third[1:] != third[:-1]))
    firsts = np.flatnonzero(new)
    head = raw[firsts, :_SECOND_BYTES].astype(np.int64) - 48

    def number(a: int, b: int) -> np.ndarray:
        value = head[:, a]
        for col in range(a + 1, b):
            value = value * 10 + head[:, col]
        return value

    parts = {"Y": number(0, 4), "m": number(5, 7), "d": number(8, 10), "H": number(11, 13),
             "M": number(14, 16), "S": number(17, 19), "us": np.zeros(len(firsts), np.int64)}
    second, second_ok = _combine_values(parts, np.ones(len(firsts), bool))
    frac = raw[:, _FRACTION_COLS].astype(np.int32)
    us = frac[:, 0]
    for col in range(1, 6):
        us = us * 10 + frac[:, col]
    group = np.cumsum(new) - 1
    micros = second[group] + (us - 48 * 111111)
    ok = present & second_ok[group]
    return _timestamp_array(micros, ok), present & ~ok


def parse_cann_at(data: np.ndarray, starts: np.ndarray, present: np.ndarray
                  ) -> tuple[pa.Array, np.ndarray]:
    """``parse_cann_bytes`` of the timestamps at ``starts`` (offsets into ``data``): read in
    place by the C module (``parse.compiled``) where it is built, else from a byte matrix
    of their windows. Returns (timestamps, invalid mask)."""
    native = compiled.native
    if native is None:
        return parse_cann_bytes(windows(data, starts, WINDOW_BYTES), present)
    micros = np.empty(len(starts), np.int64)
    valid = np.empty(len(starts), np.uint8)
    native.cann_times(data, np.where(present, starts, -1).astype(np.int64, copy=False),
                      micros, valid)
    ok = valid.view(bool)
    return _timestamp_array(micros, ok), present & ~ok


def parse_generic(ts: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """Any ``Y-m-d?H:M:S[.frac[.uuu]]`` value; returns (timestamps, invalid mask)."""
    ex = pc.extract_regex(ts.cast(pa.large_string()), _GENERIC)
    present = ex.is_valid().to_numpy(zero_copy_only=False) & ts.is_valid().to_numpy(
        zero_copy_only=False)
    ok = pa.array(present)

    def text(key: str, default: str) -> pa.Array:
        return pc.fill_null(pc.if_else(ok, ex.field(key), default), default)

    parts = {key: pc.cast(text(key, "0"), pa.int64()).to_numpy(zero_copy_only=False)
             for key in ("Y", "m", "d", "H", "M", "S")}
    f1 = text("f1", "")
    f2 = text("f2", "")
    two = pc.greater(pc.utf8_length(f2), 0).to_numpy(zero_copy_only=False)
    # "mmm.uuu" → ms*1000+us; otherwise a plain fraction padded to 6 digits (cut at 6).
    frac = pc.utf8_slice_codeunits(pc.utf8_rpad(f1, 6, "0"), 0, 6)
    frac_us = pc.cast(frac, pa.int64()).to_numpy(zero_copy_only=False)
    ms = pc.cast(pc.utf8_rpad(pc.utf8_slice_codeunits(f1, 0, 3), 3, "0"), pa.int64()).to_numpy(
        zero_copy_only=False)
    us2 = pc.cast(pc.utf8_rpad(f2, 3, "0"), pa.int64()).to_numpy(zero_copy_only=False)
    parts["us"] = np.where(two, ms * 1000 + us2, frac_us)
    had_text = ts.is_valid().to_numpy(zero_copy_only=False)
    arr, invalid = _combine(parts, present)
    return arr, invalid | (had_text & ~present)


def epoch_mask(ts: pa.Array) -> np.ndarray:
    """True where the timestamp lies in 1970: an unsynchronised device clock."""
    ints = pc.cast(ts, pa.int64())
    return pc.fill_null(pc.less(ints, EPOCH_1971_US), False).to_numpy(zero_copy_only=False)
