"""Records of text as people paste it and tools print it: their level and message as a reader
takes them.

A line of job output or of a pasted excerpt that no format matches is still a record (``fmt``
``text``), so that every rule can match what it says. Two things make such a record as useful
as a parsed one:

* **its level, from the words a reader reads** (``infer_levels``): ``ERROR``, ``FATAL`` and
  ``CRITICAL`` as words or in brackets, a Python traceback or exception (``…Error:``,
  ``…Exception:``, a bare ``Exception:``), a CANN error-manager line (a code such as
  ``EZ9999:``, the ``[FUNC:…][FILE:…][LINE:…]`` tail its detail lines end with), a torch_npu
  ``ERRxxxxx`` code, a device exception dump (``EXCEPTION TASK:``), a call that ``failed :
  <code>``, a lower-case ``error`` level word right after a time; ``WARNING``/``WARN`` and
  ``…Warning:`` make a warning. Prose that merely mentions an error ("I get this error") keeps
  no level, so it never passes for one.
* **its message as written before it was escaped** (``unescaped``): a log pasted from JSON
  (``{"detail": "…\\n  Check param failed…"}``) has its string escapes undone, so its lines
  read as lines, and terminal colour codes escaped inside it are dropped.

Levels that prefixes and formats name as a letter or in lower case (``E`` of pytest's
failure gutter, glog's letters, ``warn``, ``fatal``) read as the level they stand for
(``canonical_levels``).

Every step is an Arrow kernel over whole columns (a regex pass picks the few rows that need
the next): no Python loop per line or record.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.parse.arrays import distinct
from plogscan.parse.arrowtext import line_buffers

# Words that make a line an error, for a reader (RE2). The first branch is a level word
# (upper case, whole word or in brackets); then tracebacks and exception lines; CANN
# error-manager codes and the tail of their detail lines; torch_npu codes; the device
# exception dump; "<call> failed : <code>"; a lower-case level word right after a time.
ERROR_WORDS = (
    r"(?:^|[^\w.-])(?:ERROR|FATAL|CRITICAL)(?:$|[^\w.-])"
    r"|\[(?:E|F|[Ee]rror|[Ff]atal)\]"
    r"|Trace[Bb]ack \(most recent call last\)"
    r"|(?:^|[^\w])(?:[A-Za-z_][\w.]*)?(?:Error|Exception)(?:\[[^\]\n]*\])?[:：]"
    r"|\[FUNC:[^\]\n]*\]\[FILE:[^\]\n]*\]\[LINE:\d+\]"
    r"|(?:^|[^\w])E[0-9A-Z]\d{4}[:(\[]"
    r"|(?:^|[^\w])ERR\d{5}(?:$|[^\w])"
    r"|EXCEPTION (?:TASK|STREAM):"
    r"|failed ?: ?-?(?:\d|0x)"
    r"|\d\d:\d\d:\d\d(?:[.,]\d+)?\]?[ \t]+\[?(?:error|fatal|Error|Fatal)\b"
)
WARNING_WORDS = (
    r"(?:^|[^\w.-])(?:WARNING|WARN)(?:$|[^\w.-])"
    r"|\[(?:W|[Ww]arn|[Ww]arning)\]"
    r"|(?:^|[^\w])[A-Z]\w*Warning[:：]"
    r"|(?:^|[^\w])W[0-9A-Z]\d{4}[:(\[]"
    r"|\d\d:\d\d:\d\d(?:[.,]\d+)?\]?[ \t]+\[?(?:warn|warning|Warn|Warning)\b"
)
# Level names as prefixes and formats may write them, and the level each stands for.
LEVEL_ALIASES = {
    "E": "ERROR", "F": "ERROR", "W": "WARNING", "I": "INFO", "D": "DEBUG",
    "error": "ERROR", "Error": "ERROR", "fatal": "ERROR", "Fatal": "ERROR", "FATAL": "ERROR",
    "warn": "WARNING", "Warn": "WARNING", "WARN": "WARNING", "warning": "WARNING",
    "Warning": "WARNING", "info": "INFO", "Info": "INFO", "debug": "DEBUG", "Debug": "DEBUG",
}
# JSON string escapes (two at least: one ``\n`` may be a Windows path's ``C:\new``).
_ESCAPED = r"\\[n\"]"
_ESCAPES = (("\\n", "\n"), ("\\t", "\t"), ('\\"', '"'), ("\\/", "/"), ("\\r", ""),
            ("\\u001b", "\x1b"), ("\\u001B", "\x1b"), ("\\u0027", "'"))
_BACKSLASH = "\\\\"
_HOLD = "\x00"  # stands for an escaped backslash while the other escapes are undone
_COLOUR = r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|[()][AB012]|[=>])"


def canonical_levels(level: pa.Array) -> pa.Array:
    """``level`` with each alias of ``LEVEL_ALIASES`` replaced by its level."""
    keys = pa.array(list(LEVEL_ALIASES), level.type)
    found = pc.index_in(level, value_set=keys)
    if found.null_count == len(found):
        return level
    mapped = pc.take(pa.array(list(LEVEL_ALIASES.values()), level.type), found)
    return pc.coalesce(mapped, level)


def infer_levels(messages: pa.Array, level: pa.Array, text: np.ndarray) -> pa.Array:
    """``level`` with the rows of ``text`` that have none given ERROR or WARNING where their
    message holds the words of one (ERROR first)."""
    rows = np.flatnonzero(text & ~_mask(level.is_valid()))
    if len(rows) == 0:
        return level
    # One pass over every row for either kind of word (a pass costs mostly per row), then
    # the error words on the few rows that hold one.
    sub = messages if len(rows) == len(messages) else messages.take(pa.array(rows))
    found = _mask(pc.match_substring_regex(sub, f"{ERROR_WORDS}|{WARNING_WORDS}"))
    if not found.any():
        return level
    rows = rows[found]
    error = _mask(pc.match_substring_regex(messages.take(pa.array(rows)), ERROR_WORDS))
    mask = np.zeros(len(level), bool)
    mask[rows] = True
    values = pa.array(np.where(error, "ERROR", "WARNING"), level.type)
    return pc.replace_with_mask(level, pa.array(mask), values)


def unescaped(messages: pa.Array, text: np.ndarray) -> pa.Array:
    """``messages`` with the JSON string escapes of the rows of ``text`` that hold at least two
    (``\\n``, ``\\"``) undone, and the colour codes they then show taken out."""
    rows = np.intersect1d(np.flatnonzero(text), _rows_with_backslash(messages),
                          assume_unique=True)
    if len(rows) == 0:
        return messages
    sub = messages.take(pa.array(rows))
    count = pc.count_substring_regex(sub, _ESCAPED).to_numpy(zero_copy_only=False)
    picked = rows[count >= 2]
    if len(picked) == 0:
        return messages
    part = messages.take(pa.array(picked))
    part = pc.replace_substring(part, _BACKSLASH, _HOLD)
    for escape, char in _ESCAPES:
        part = pc.replace_substring(part, escape, char)
    part = pc.replace_substring(part, _HOLD, "\\")
    part = pc.replace_substring_regex(part, _COLOUR, "")
    mask = np.zeros(len(messages), bool)
    mask[picked] = True
    return pc.replace_with_mask(messages, pa.array(mask), part.cast(messages.type))


def _rows_with_backslash(messages: pa.Array) -> np.ndarray:
    """The rows whose message holds a backslash (most text has none): found in the bytes of
    all messages at once, not row by row."""
    offsets, data = line_buffers(messages)
    places = np.flatnonzero(data[offsets[0]:offsets[-1]] == 92) + offsets[0]
    if len(places) == 0:
        return places
    return distinct(np.searchsorted(offsets, places, side="right") - 1)


def _mask(values: pa.Array) -> np.ndarray:
    return pc.fill_null(values, False).to_numpy(zero_copy_only=False).astype(bool)
