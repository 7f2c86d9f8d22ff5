"""Find error codes in record messages: ``EI0002``, ``507916``, ``ERR00100``, ``0x7150227``.

An RE2 mask over every message picks the few records that carry a code; only their distinct
texts go through Python's ``re.finditer``. Codes are taken only where the text says they are
codes, so line numbers, pids, times and sizes are never mistaken for them:

* error-manager codes ``E``/``W`` + component + four digits (``EZ9999``, ``EH9999``,
  ``E40021``) and torch_npu's ``ERRxxxxx``, as words;
* the six-digit codes of the numeric code tables (``plogscan/codes``: aclError ``1000xx``,
  ``1480xx``, ``2000xx``, ``300000``, ``5000xx``; the runtime's ``1070xx``, ``2070xx``,
  ``5070xx``-``5079xx``; GE ``145xxx``, ``245xxx``, ``345xxx``, ``545xxx``; aclnn ``161xxx``,
  ``361xxx``, ``561xxx``) and hex codes, after the words CANN, torch_npu and the frameworks
  print them with: ``error code is``, ``ErrCode=``, ``runtime result =``, ``ret=``, ``ret:``,
  ``retCode=``, ``ErrorNo:``, ``errno:``, ``… failed : <code>``...;
* hex codes after ``InnerCode=``, ``errNo[``, ``excep_code=``, ``event_id=`` (or
  ``event_id: [0x…]``), ``errcode:(``;
* a runtime inner code printed in decimal (``error=117571619``) as the hex code the tables
  know it by (``0x7020023``): inner codes are ``0x7000000``-``0x7ffffff``.
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

QUIET_LEVELS = ("DEBUG", "INFO", "TRACE")  # levels whose records are not searched for codes
# The six-digit codes of the numeric tables (codes/tables.py NUMERIC_TABLES), by prefix.
NUMERIC = r"(?:10[07]|148|20[07]|300|50[07]|[1235]45|[135]61)\d{3}"
# The words a code follows (any case); a number or a hex code after them is a code.
_SAID = (
    r"error ?code(?: is|:| ?=)|err_?code ?[=:]|error_code ?[=:]|errorcode ?[=:]"
    r"|runtime result ?=|result ?=|ret ?=|ret ?:|ret is|retcode ?[=:]|return code ?[=:]?"
    r"|errorno ?:|errno ?:|failed ?:"
)
# The words a hex code follows.
_SAID_HEX = (r"innercode=|errno\[|excep_code=|exception_code=|exception_info_code="
             r"|event_id ?[=:] ?\[?|errcode:\(")
_INNER_DECIMAL = r"1[1-3]\d{7}"  # 0x7000000-0x7ffffff in decimal lies in 117440512-134217727
_INNER_LOW, _INNER_HIGH = 0x7000000, 0x7FFFFFF
_CODE = re.compile(
    r"(?<![A-Za-z0-9_])(?P<em>[EW][0-9A-Z]\d{4})(?=[\s:(\[\]),.]|$)"
    r"|(?<![A-Za-z0-9_])(?P<pta>ERR\d{5})(?![0-9])"
    rf"|(?<![A-Za-z_])(?i:{_SAID})\s*(?:(?P<acl>{NUMERIC}|0x[0-9A-Fa-f]+)(?![0-9A-Fa-f])"
    rf"|(?P<inner>{_INNER_DECIMAL})(?![0-9]))"
    rf"|(?<![A-Za-z_])(?:error|innerCode|inner code) ?[=:] ?(?P<inner2>{_INNER_DECIMAL})(?![0-9])"
    rf"|(?i:{_SAID_HEX})(?P<hex>0x[0-9A-Fa-f]+)"
)
# What every text with a code holds (a superset of ``_CODE`` without its look-arounds): one
# RE2 pass picks the messages that go through ``_CODE``.
_CANDIDATE_RE2 = (
    r"[EW][0-9A-Z]\d{4}|ERR\d{5}"
    rf"|(?i:{_SAID})\s*(?:{NUMERIC}|0x[0-9A-Fa-f]|{_INNER_DECIMAL})"
    rf"|(?i:error|innerCode|inner code) ?[=:] ?{_INNER_DECIMAL}"
    rf"|(?i:{_SAID_HEX})0x"
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
        inner = m.group("inner") or m.group("inner2")
        if inner and _INNER_LOW <= int(inner) <= _INNER_HIGH:
            code = hex(int(inner))
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
        return _no_codes(n)
    subset = messages if len(rows) == n else messages.take(pa.array(rows))
    mask = pc.fill_null(pc.match_substring_regex(subset, _CANDIDATE_RE2), False)
    rows = rows[mask.to_numpy(zero_copy_only=False)]
    if not len(rows):
        return _no_codes(n)
    lengths = np.zeros(n, np.int32)
    found = distinct_codes(messages.take(pa.array(rows)))  # records that carry a code only
    lengths[rows] = pc.list_value_length(found).to_numpy(zero_copy_only=False)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), pc.list_flatten(found))


def _no_codes(n: int) -> pa.ListArray:
    return pa.ListArray.from_arrays(pa.array(np.zeros(n + 1, np.int32)), pa.array([], pa.string()))


def distinct_codes(texts: pa.Array) -> pa.ListArray:
    """``codes_in`` of every text, each distinct text searched once: an error repeated on
    every step, rank and retry is one search (the dictionary encoding is one hash pass)."""
    encoded = pc.dictionary_encode(texts)
    per_text = [codes_in(text) for text in encoded.dictionary.to_pylist()]
    per_text.append([])  # a null message holds no code
    index = pc.fill_null(encoded.indices, len(per_text) - 1)
    return pa.array(per_text, pa.list_(pa.string())).take(index)
