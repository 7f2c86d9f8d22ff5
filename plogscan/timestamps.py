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

_GENERIC = (
    r"^(?P<Y>\d{4})\D(?P<m>\d\d)\D(?P<d>\d\d)\D(?P<H>\d\d):(?P<M>\d\d):(?P<S>\d\d)"
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


def _combine(parts: dict[str, np.ndarray], present: np.ndarray) -> tuple[pa.Array, np.ndarray]:
    y, m, d = parts["Y"], parts["m"], parts["d"]
    hh, mm, ss, us = parts["H"], parts["M"], parts["S"], parts["us"]
    leap = ((y % 4 == 0) & (y % 100 != 0)) | (y % 400 == 0)
    mi = np.clip(m, 0, 12)
    dim = _DAYS_IN_MONTH[mi] - ((mi == 2) & ~leap)
    ok = present & (m >= 1) & (m <= 12) & (d >= 1) & (d <= dim) & (hh < 24) & (mm < 60) & (ss < 61)
    days = _days_from_civil(y, np.where(ok, m, 1), np.where(ok, d, 1))
    micros = ((days * 86400 + hh * 3600 + mm * 60 + ss) * 1_000_000) + us
    arr = pa.array(micros, pa.int64(), mask=~ok).cast(pa.timestamp("us"))
    return arr, present & ~ok


def _cann_weights() -> np.ndarray:
    """A (27, 7) matrix turning the digits of ``YYYY-MM-DD-hh:mm:ss.mmm.uuu`` into
    year, month, day, hour, minute, second and microsecond with one matrix product."""
    fields = [(0, 4), (5, 7), (8, 10), (11, 13), (14, 16), (17, 19)]
    weights = np.zeros((27, 7), np.int64)
    for col, (a, b) in enumerate(fields):
        for i in range(a, b):
            weights[i, col] = 10 ** (b - 1 - i)
    for i in range(20, 23):  # milliseconds
        weights[i, 6] = 10 ** (22 - i) * 1000
    for i in range(24, 27):  # microseconds
        weights[i, 6] = 10 ** (26 - i)
    return weights


_CANN_WEIGHTS = _cann_weights()


def parse_cann_bytes(raw: np.ndarray, present: np.ndarray) -> tuple[pa.Array, np.ndarray]:
    """Fast path from a ``(n, 27)`` byte matrix of ``YYYY-MM-DD-hh:mm:ss.mmm.uuu`` values.

    Rows where ``present`` is false come back null (and are not counted as invalid).
    """
    digits = raw.astype(np.int64) - 48
    digits[:, (4, 7, 10, 13, 16, 19, 23)] = 0  # separators
    values = digits @ _CANN_WEIGHTS
    parts = dict(zip(("Y", "m", "d", "H", "M", "S", "us"), values.T, strict=True))
    return _combine(parts, present)


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
