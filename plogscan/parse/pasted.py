"""Record boundaries in text as people paste and tools print it (job stdout, issue threads).

The format YAML declares three things besides line formats and prefixes (``lineformats``):

* ``strip``: text taken out of every line of job stdout and system logs first (terminal
  colour codes; a CANN plog's text is kept as written);
* formats marked ``alone``: records that take no continuation lines (markdown fences,
  ``<details>``), so an indented block pasted right after a fence starts a record of its own
  instead of hiding inside the fence's record; only in pasted text (job stdout, system logs),
  never in a file a CANN component wrote;
* ``continuations``: lines that a terminal re-wrapped; they continue the record before them
  and their text joins the line before without a newline (``messages.unwrap``).

Everything here works on whole chunks with numpy and Arrow kernels: no Python loop per line.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.parse.arrowtext import byte_lengths, tails
from plogscan.parse.blocks import DETAIL
from plogscan.parse.lineformats import FormatSet
from plogscan.parse.linematch import Spans

REWRAP_DEPTH = 3  # a line re-wrapped into this many fragments at most is joined back


def strip_text(buf: bytes, fset: FormatSet) -> bytes:
    """``buf`` with the text of every ``strip`` entry taken out (newlines are never touched,
    so line numbers stay as written)."""
    for strip in fset.strips:
        buf = strip.apply(buf)
    return buf


def text_only(spans: Spans, fset: FormatSet) -> None:
    """Forget the matches of text-only formats (``alone``, ``pasted``): in a file a CANN
    component wrote, a line that looks like a markdown fence or a bare ``[DEBUG]`` is text of
    the record before it (a header it cut), not the structure of a paste."""
    alone = [i for i, f in enumerate(fset.formats) if f.text_only]
    if alone:
        spans.fmt[np.isin(spans.fmt, alone)] = -1


def after_alone(fmt: np.ndarray, blank: np.ndarray, fset: FormatSet) -> np.ndarray:
    """Lines whose previous non-blank line is a record of an ``alone`` format."""
    alone = [i for i, f in enumerate(fset.formats) if f.alone]
    out = np.zeros(len(fmt), bool)
    if not alone:
        return out
    is_alone = np.isin(fmt, alone)
    if not is_alone.any():
        return out
    nonblank = np.flatnonzero(~blank)
    out[nonblank[1:]] = is_alone[nonblank[:-1]]
    return out


def prefix_only(lines: pa.Array, spans: Spans) -> np.ndarray:
    """Lines that hold nothing but their prefixes (``[rank0]:`` alone, pytest's bare ``E``):
    an empty line of that writer's output, which continues its record."""
    return (spans.prefix_end > 0) & (spans.msg_start >= byte_lengths(lines))


def prefixed_details(lines: pa.Array, spans: Spans, blank: np.ndarray) -> np.ndarray:
    """Lines behind a prefix that no format matched and whose text is a detail line of a CANN
    error-manager message (``blocks.DETAIL``): a launcher prints each line of such a message
    as a line of its own, so the detail is a record of its own, not a continuation of what
    was printed before it (prose, another process's record)."""
    found = np.zeros(len(lines), bool)
    rows = np.flatnonzero((spans.prefix_end > 0) & (spans.fmt < 0) & ~blank)
    if len(rows) == 0:
        return found
    part = tails(lines, rows, spans.msg_start[rows])
    # "[LINE:" or "TraceBack (": a literal pass first, the pattern only where one is
    marks = pc.fill_null(pc.match_substring_regex(part, r"\]\[LINE:|TraceBack \("), False)
    marked = marks.to_numpy(zero_copy_only=False)
    if not marked.any():
        return found
    rows, part = rows[marked], part.filter(marks)
    found[rows] = pc.fill_null(pc.match_substring_regex(part, DETAIL), False).to_numpy(
        zero_copy_only=False)
    return found


def wrapped_lines(lines: pa.Array, spans: Spans, blank: np.ndarray,
                  fset: FormatSet) -> np.ndarray:
    """Lines that a terminal re-wrapped (see ``lineformats.Continuation``).

    A terminal cuts every line longer than its width at that width, so the lines it cut are
    the widest of the text, and there are at least two of them. A fragment has no prefix and
    no format, follows such a line that a prefix started (or another fragment), and starts as
    the continuation's pattern says; the cut line is at least ``min_width`` bytes wide."""
    n = len(lines)
    wrapped = np.zeros(n, bool)
    if not fset.continuations or n < 3 or not (spans.prefix_end > 0).any():
        return wrapped
    width = byte_lengths(lines)
    widest = int(width.max())
    cut = width == widest
    if int(cut.sum()) < 2:
        return wrapped
    candidate = (spans.fmt < 0) & (spans.prefix_end == 0) & ~blank
    candidate[0] = False
    for cont in fset.continuations:
        if widest < cont.min_width:
            continue
        for _ in range(REWRAP_DEPTH):
            before = ((spans.prefix_end > 0) | wrapped) & cut
            rows = np.flatnonzero(candidate[1:] & ~wrapped[1:] & before[:-1]) + 1
            if len(rows) == 0:
                break
            ok = pc.match_substring_regex(lines.take(pa.array(rows)), f"^(?:{cont.pattern})")
            found = rows[pc.fill_null(ok, False).to_numpy(zero_copy_only=False)]
            if len(found) == 0:
                break
            wrapped[found] = True
    return wrapped
