"""Two records glued on one physical line (a lost newline): find them and split them.

A record glued to the text before it starts with a CANN header (``[ERROR] HCCL(12,python):``)
or, in job output, with a launcher's process prefix and a logger's level and time
(``(Worker_TP1 pid=51) ERROR 02-03 04:05:06``: a paste of such output that lost its newlines
holds many of them on one line). Glued lines are rare and looking for them costs a scan of
every byte, so the parser first parses a chunk as if there were none, and only when
``possible`` sees a second header in a record's text parses it again with ``split``.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.parse import compiled
from plogscan.parse.arrays import distinct
from plogscan.parse.arrowtext import LARGE, holds, line_buffers
from plogscan.parse.lineformats import MAX_PREFIXES
from plogscan.parse.linematch import Spans
from plogscan.parse.results import Head

# Two records glued on one physical line (a lost newline): split before the second header.
_GLUE_RE2 = r".\[(?:ERROR|WARNING|INFO|DEBUG|EVENT|TRACE)\] ?[A-Z][A-Z0-9_]*\(-?\d+,[^)]*\):"
# The same second header anywhere in a text (a record's message, which starts after its own
# header): where the lines' regex matches, this one does too.
_GLUE_IN_TEXT = _GLUE_RE2[1:]
_GLUE_TAGS = ("[ERROR]", "[WARNING]", "[INFO]", "[DEBUG]", "[EVENT]", "[TRACE]")
_TAG_INITIAL = np.zeros(256, bool)  # first letters of the level tags
_TAG_INITIAL[list(b"EWIDT")] = True
# A process prefix and a logger's level and time (job output): where it is not the line's own
# prefix, a record glued to the text before it.
_PROCESS = (r"(?:\[RAW SERVER\] )?\((?:[\w.-]+ )?(?:rank=\d+ )?pid=\d+\)(?:, ip=[\d.]+)? ?"
            r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d")
_GLUE_PY = re.compile(r"(?<=.)(?<!\[RAW SERVER\] )"
                      r"(?=\[(?:ERROR|WARNING|INFO|DEBUG|EVENT|TRACE)\] ?[A-Z][A-Z0-9_]*"
                      r"\(-?\d+,[^)]*\):|" + _PROCESS + ")")
_PROCESS_MARK = " pid="  # in every line that holds a process prefix


def suspects(buf: bytes) -> np.ndarray:
    """Indices of lines with a level tag (``[ERROR]``...) after their first byte.

    The tags' places are found by the C module where it is built (one ``memchr`` walk over
    the ``[`` bytes: on 8 MiB chunks of a DEBUG plog, a quarter of the time of numpy's passes
    over every byte), else by ``tag_places``."""
    native = compiled.native
    places = (np.asarray(native.glued_tags(buf), np.int64) if native is not None
              else tag_places(buf))
    if len(places) == 0:
        return np.zeros(0, np.int64)
    newlines = np.flatnonzero(np.frombuffer(buf, dtype=np.uint8) == 10)
    return distinct(np.searchsorted(newlines, places))


def tag_places(buf: bytes) -> np.ndarray:
    """Offsets of each ``[`` of ``buf``, not at its start nor after a newline, that opens a
    level tag: ``glued_tags`` of the C module, as a numpy scan of the raw bytes."""
    raw = np.frombuffer(buf, dtype=np.uint8)
    brackets = np.flatnonzero(raw == 91)
    brackets = brackets[(brackets > 0) & (brackets + 1 < len(raw))]
    # Only a "[" not at a line start and followed by a tag's first letter can glue.
    brackets = brackets[(raw[brackets - 1] != 10) & _TAG_INITIAL[raw[brackets + 1]]]
    found = np.zeros(len(brackets), bool)
    for tag in _GLUE_TAGS:
        inside = brackets + len(tag) <= len(raw)
        hit = inside.copy()
        for k, byte in enumerate(tag.encode()[1:], start=1):
            hit[inside] &= raw[brackets[inside] + k] == byte
        found |= hit
    return brackets[found]


def split(lines: pa.Array, lineno: np.ndarray, suspects: np.ndarray,
          prefixed: re.Pattern[str] | None = None, prefix_re2: str | None = None
          ) -> tuple[pa.Array, np.ndarray]:
    """Split lines that hold two records; the parts keep the physical line number.

    A header right after what ``prefixed`` matches whole (the prefixes a launcher puts in
    front of every line, ``[rank3]: ``) is the line's own record, not a second one. With
    ``prefix_re2`` (the same prefixes as one RE2 alternative, in job output), a process
    prefix with a logger's level and time also starts a glued record, unless it is the
    line's own (after nothing but prefixes)."""
    suspects = suspects[suspects < len(lines)]
    glued = np.zeros(len(lines), bool)
    if len(suspects):
        glued[suspects] = pc.match_substring_regex(
            lines.take(pa.array(suspects)), _GLUE_RE2).to_numpy(zero_copy_only=False)
    if prefix_re2 is not None:
        glued |= process_glued(lines, prefix_re2)
    if not glued.any():
        return lines, lineno
    pieces: list[pa.Array] = []
    numbers: list[np.ndarray] = []
    prev = 0
    for i in np.flatnonzero(glued):  # rare: only lines with a lost newline
        pieces.append(lines.slice(prev, i - prev))
        numbers.append(lineno[prev:i])
        parts = _GLUE_PY.split(lines[i].as_py())
        if not parts[0].strip():  # indentation, not a record: a blank part would count twice
            parts = parts[1:]
        elif prefixed is not None and prefixed.fullmatch(parts[0]):  # the line's prefix
            parts = [parts[0] + parts[1], *parts[2:]]
        pieces.append(pa.array(parts, LARGE))
        numbers.append(np.full(len(parts), lineno[i]))
        prev = i + 1
    pieces.append(lines.slice(prev))
    numbers.append(lineno[prev:])
    return pa.concat_arrays(pieces), np.concatenate(numbers)


def process_glued(lines: pa.Array, prefix_re2: str) -> np.ndarray:
    """Lines holding a process prefix with a logger's level and time (``_PROCESS``) that is
    not the line's own: two of them, or one after text that is not prefixes alone."""
    found = np.zeros(len(lines), bool)
    rows = np.flatnonzero(_mask(pc.match_substring(lines, _PROCESS_MARK)))
    if len(rows) == 0:
        return found
    sub = lines.take(pa.array(rows))
    count = pc.count_substring_regex(sub, _PROCESS).to_numpy(zero_copy_only=False)
    own = _mask(pc.match_substring_regex(sub, f"^(?:{prefix_re2})*{_PROCESS}"))
    found[rows] = (count >= 2) | ((count == 1) & ~own)
    return found


def _mask(values: pa.Array) -> np.ndarray:
    return pc.fill_null(values, False).to_numpy(zero_copy_only=False)


@lru_cache(maxsize=8)
def prefix_re2(patterns: tuple[str, ...]) -> str:
    """``patterns`` (RE2 prefixes) as one RE2 alternative, their groups unnamed."""
    return "|".join(f"(?:{re.sub(r'[(][?]P<[^>]+>', '(?:', p)})" for p in patterns)


@lru_cache(maxsize=8)
def prefix_only(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    """A Python pattern for text made of line prefixes only (``patterns``, RE2 prefixes
    without anything RE2-only; up to ``MAX_PREFIXES`` of them, in any order), indented or
    not (a quoted block pasted indented)."""
    if not patterns:
        return None
    plain = (re.sub(r"\(\?P<\w+>", "(?:", p) for p in patterns)  # names repeat among them
    return re.compile(f"[ \\t]*(?:{'|'.join(f'(?:{p})' for p in plain)}){{1,{MAX_PREFIXES}}}")


def possible(records: pa.Table, head: Head | None, lines: pa.Array,
             spans: Spans, text_kind: bool = False) -> bool:
    """Whether any line of a chunk parsed without splitting glued lines may hold one (in job
    output, ``text_kind``, a glued process prefix too: a record's message holds one only
    where it is not the line's own, which the prefixes took off).

    A second header inside a line lies in its record's message, except where the line's
    own header or prefix could hold it: the proc field of a CANN header (``[^)]*``), and the
    headers of the other formats and prefixes, whose lines are checked whole. (The other
    parts of the CANN header and of its bodies cannot hold a ``[TAG] Module(`` run.) A false
    alarm only costs the second parse.
    """
    messages = records.column("message")
    # a glued process prefix leaves " pid=" in a message (the line's own was taken off)
    process = text_kind and (
        any(holds(line_buffers(c)[1], _PROCESS_MARK.encode(), 4) for c in messages.chunks)
        or (head is not None and _PROCESS_MARK in head.text))
    in_text = _GLUE_IN_TEXT + ("|" + _PROCESS if process else "")
    if pc.any(pc.match_substring_regex(messages, in_text)).as_py():
        return True
    if head is not None and re.search(in_text, head.text):
        return True
    for proc in records.column("proc").chunks:
        if pa.types.is_dictionary(proc.type):  # a value not in any record only costs time
            proc = proc.dictionary
        if pc.any(pc.match_substring(proc, "[")).as_py():
            return True
    other = spans.other_lines
    return len(other) > 0 and bool(pc.any(pc.match_substring_regex(
        lines.take(pa.array(other)), _GLUE_RE2)).as_py())

