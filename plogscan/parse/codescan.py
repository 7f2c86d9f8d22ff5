"""Find error codes in record messages: ``EI0002``, ``507916``, ``ERR00100``, ``0x7150227``.

A cheap RE2 mask over every message picks the few records that can carry a code; only those
go through Python's ``re.findall``. Codes are taken only where the text says they are codes
(``error code is``, ``ErrCode=``, ``InnerCode=``, ``retcode:``, ``errno:``, ``failed : ``...),
so pids and sizes are not mistaken for them. Runtime codes are ``[125]0xxxx`` (507015,
207001...), aclnn codes ``[1-5]6[01]xxx`` (161002, 561000...).
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_CANDIDATE_RE2 = (
    r"[EW][0-9A-Z]\d{4}|ERR\d{5}|[Cc]ode|result|Ret|ret\b|ret:|errNo|errno:|errcode|excep|"
    r"event_id|failed ?: "
)
QUIET_LEVELS = ("DEBUG", "INFO", "TRACE")  # levels whose records are not searched for codes
_CODE = re.compile(
    r"(?<![A-Za-z0-9_])(?P<em>[EW][0-9A-Z]\d{4})(?=[\s:(\[\]),.]|$)"
    r"|(?<![A-Za-z0-9_])(?P<pta>ERR\d{5})(?![0-9])"
    r"|(?:error code is|error code =|ErrCode=|runtime result =|result =|ret =|ret=|retCode=|"
    r"error_code=|errorCode ?:|retcode: ?|ret:|errno:|failed ?: )"
    r"\s*(?P<acl>[125]0\d{4}|[1-5]6[01]\d{3}|0x[0-9A-Fa-f]+)(?![0-9A-Fa-f])"
    r"|(?:InnerCode=|errNo\[|excep_code=|exception_code=|exception_info_code=|event_id=|"
    r"errcode:\()(?P<hex>0x[0-9A-Fa-f]+)"
)


_CANDIDATE = re.compile(_CANDIDATE_RE2)


def may_hold_codes(text: str) -> bool:
    """False when ``codes_in`` finds no code in ``text`` nor in any of its lines: every code
    needs a text the candidate mask matches, and the mask never spans a newline. One search
    of the joined lines costs less than ``_CODE`` on each (a line with no code is scanned to
    its end by every branch of ``_CODE``)."""
    return _CANDIDATE.search(text) is not None


def codes_in(text: str) -> list[str]:
    """Distinct codes in one message, in order of first appearance."""
    seen: dict[str, None] = {}
    for m in _CODE.finditer(text):
        code = m.group("em") or m.group("pta") or m.group("acl") or m.group("hex")
        if code:
            seen.setdefault(code, None)
    return list(seen)


def _quiet(levels: pa.Array) -> np.ndarray:
    """Rows at a level whose codes are not searched (a dictionary is judged per value)."""
    if pa.types.is_dictionary(levels.type):
        per_value = np.append(_quiet(levels.dictionary), False)  # a null index: not quiet
        index = pc.fill_null(levels.indices, len(per_value) - 1)
        return per_value[index.to_numpy(zero_copy_only=False)]
    quiet = pc.is_in(levels, value_set=pa.array(QUIET_LEVELS, levels.type))
    return pc.fill_null(quiet, False).to_numpy(zero_copy_only=False)


def extract_codes(messages: pa.Array, levels: pa.Array | None = None) -> pa.Array:
    """A ``list<string>`` column of the codes in each message (empty list when none).

    Records at DEBUG, INFO and TRACE level are not searched: codes there are echoes of
    configuration or progress, and skipping them keeps DEBUG-heavy logs fast.
    """
    n = len(messages)
    if n == 0:
        return pa.array([], pa.list_(pa.string()))
    look = np.ones(n, bool)
    if levels is not None:
        look = ~_quiet(levels)
    rows = np.flatnonzero(look)
    if len(rows) == 0:
        return pa.ListArray.from_arrays(pa.array(np.zeros(n + 1, np.int32)),
                                        pa.array([], pa.string()))
    subset = messages if len(rows) == n else messages.take(pa.array(rows))
    mask = pc.fill_null(pc.match_substring_regex(subset, _CANDIDATE_RE2), False)
    rows = rows[mask.to_numpy(zero_copy_only=False)]
    lengths = np.zeros(n, np.int32)
    values: list[str] = []
    if len(rows):
        texts = messages.take(pa.array(rows)).to_pylist()  # candidate rows only
        for row, text in zip(rows, texts, strict=True):
            found = codes_in(text or "")
            lengths[row] = len(found)
            values.extend(found)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(values, pa.string()))
