"""Records whose lines each look like a record of their own: joined into one.

Some writers print one message over several lines that each carry a header or match a format
of their own (formats.md §3.1, §3.2, §5). The parser first makes a record of each such line,
then joins them here, from the shapes of the lines (their grammar, not their wording):

* a **table** printed row by row: HCCL writes its ``LINK_ERROR_INFO`` table with one
  ``HCCL_ERROR`` per row (hccl ``PrintErrorConnection``): a titled ruler
  ``___…LINK_ERROR_INFO…___``, then rows that start with ``|`` (information rows, the column
  header, the ``|----|`` ruler, one data row per link) and a closing ruler ``_____``. A record
  that starts with a titled ruler opens a table; each record after it that starts with ``|``
  joins it, up to and including a closing ruler;
* a **traceback** (a format marked ``block: traceback``, ``Traceback (most recent call
  last):``) whose indented frames are its continuation lines already, and the exception line
  that ends it (a format marked ``block: exception``, ``RuntimeError: …``): that record joins
  the traceback right before it, while the traceback has no exception line yet;
* an **error-manager** message (formats marked ``block: error-manager``): a line ending with a
  title that names a code, ``EZ9999: Inner Error!`` (alone, or at the end of another line:
  ``… failed, detail:EZ9999: Inner Error!``), then the block of that code
  (``EZ9999[PID: n] <ts> (EZ9999): text`` and its indented lines). The block joins the record
  that holds the title. In job output (text kinds), a detail line of such a message that is a
  record of its own (``DETAIL``: the ``TraceBack (most recent call last):`` heading, a line
  ending with ``[FUNC:…][FILE:…][LINE:…]``; behind a launcher's prefix, or written at column
  0) joins the message before it, when that message holds an error-manager record; without
  one it stays a record of its own;
* a **device exception dump** (a format marked ``block: device-dump``, ``EXCEPTION TASK:``):
  it joins the record before it when that record's last line ends with the dump's head,
  ``DEVICE[0] PID[4120]:`` (alone, or after other text on that line).

Two records join only when they are next to each other (the second starts on the line after
the first ends: no blank line, no glued line, no record a skim left out in between) and one
writer wrote both: where the second names a process, thread or rank and the run it joins named
one, it is the same (a table's rows also the same module and level; a line that names none,
such as a traceback's heading, carries the run's writer on, so a run joined across a chunk
boundary is held to the same writer as one joined inside a chunk). In files a CANN component
wrote, only ERROR and WARNING records join (the records a skim never leaves out and a reducer
always keeps), so a skimmed or reduced parse joins what a whole parse joins.

The joined record spans its lines' physical range. Its fields are those of its first line,
each one it lacks taken from the first later line that has it (an error-manager title line
names no process: the block's ``[PID: n]`` line does); its codes are those of all its lines;
its format is the first line's, or the first format that parsed one of its lines when no
format parsed its first line. Everything runs on whole record tables with Arrow and numpy: no
Python loop per record.

A chunk's first records may join a record of the chunk before (``lead``): the parser leaves
them as they are, and ingest joins them once it holds both (``join`` over the record before the
chunk and those records).

The four kinds of block share one pass that links each record to the one before it
(``_links``: adjacency, same writer, the role each format plays) and one join over those
links; the records of each run become one in ``runs``.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.parse.arrays import column_of, distinct, isin_values, mask, numbers
from plogscan.parse.lineformats import BLOCK_ROLES, FormatSet
from plogscan.parse.runs import merged
from plogscan.schema import plain_text

# Table shapes (hccl PrintErrorConnection; formats.md §5).
TITLE = r"^[ \t]*_{3,}[A-Za-z0-9][A-Za-z0-9_ ]*[A-Za-z0-9]_{3,}[ \t]*$"
ROW = r"^[ \t]*\|"
CLOSING = r"^[ \t]*_{3,}[ \t]*$"
_TABLE_START = r"^[ \t]*(?:\||___)"  # a record that may be a row or the closing ruler
_DETAIL_MARKS = r"TraceBack \(|\]\[LINE:"  # a record that may be an error-manager detail
# An error-manager title at the end of a line: a code, a colon and a title that is not the
# block's own detail (a ``[PID: n]`` or a time stamp follows the code there).
_CODE = r"[EW][0-9A-Z][0-9]{4}"
TITLE_CODE = rf"^.*?(?:^|[^A-Za-z0-9])(?P<code>{_CODE}): ?(?P<title>[^\n]*)$"
_DETAIL = r"^(?:\[PID|[0-9]{4}-[0-9]{2}-[0-9]{2})"
# A detail line of an error-manager message: its traceback heading (CANN spells it "TraceBack")
# or a line that ends with the place that reported it.
DETAIL = (r"^[ \t]*TraceBack \(most recent call last\):"
          r"|\[FUNC:[^\]\n]*\]\[FILE:[^\]\n]*\]\[LINE:\d+\][ \t]*$")
# The head of the runtime's device exception dump, at the end of a line.
DUMP_HEAD = r"DEVICE\[\d+\] PID\[\d+\]:[ \t]*$"
NOTABLE = ("ERROR", "WARNING")
# Fields that name the writer of a record; a table's rows must also share module and level.
WRITER = ("pid", "proc", "tid", "rank")
TABLE_WRITER = (*WRITER, "module", "level")


def join(records: pa.Table, fset: FormatSet, text_kind: bool, lead_open: bool = False
         ) -> tuple[pa.Table, int]:
    """``records`` (one file's, in line order) with the records that continue the record before
    them joined to it; and, with ``lead_open`` (a record before these may still be open), how
    many of the first records may join that record: they are left as they are (``lead``)."""
    n = records.num_rows
    if n == 0:
        return records, 0
    joins, needs_title, needs_errmgr = _links(records, fset, text_kind)
    lead = _lead(records, joins, fset, text_kind) if lead_open else 0
    joined = joins & _headed(records, joins, needs_title)
    joined &= _in_errmgr_message(records, joined, needs_errmgr, fset)
    joined[:lead] = False
    return merged(records, joined), lead


def _links(records: pa.Table, fset: FormatSet, text_kind: bool
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per record: whether it may join the record before it (shape, writer, place), whether
    that join belongs to a table (it holds only when the table has its title), and whether it
    is an error-manager detail (it holds only inside an error-manager message).

    The shapes are tested only on the few records that may join (next to the one before,
    eligible, starting like a table row, parsed by a block format or, in job output, holding
    a detail's marks), and on the records before them."""
    n = records.num_rows
    joins = np.zeros(n, bool)
    needs_title = np.zeros(n, bool)
    needs_errmgr = np.zeros(n, bool)
    if n < 2:
        return joins, needs_title, needs_errmgr
    line = numbers(records, "line")
    count = numbers(records, "line_count")
    after = np.zeros(n, bool)
    after[1:] = line[1:] == line[:-1] + count[:-1]
    if not text_kind:
        eligible = _isin(records, "level", NOTABLE)
        after[1:] &= eligible[1:] & eligible[:-1]
    rows = np.flatnonzero(after)
    if len(rows) == 0:
        return joins, needs_title, needs_errmgr
    message = column_of(records, "message")
    fmt = plain_text(column_of(records, "fmt"))
    role = {r: isin_values(fmt, fset_names(fset, r)) for r in BLOCK_ROLES}
    blocked = role["exception"] | role["error-manager"] | role["device-dump"]
    # a table row, or in job output an error-manager detail that is a record of its own
    tabled = _matches(message.take(pa.array(rows)),
                      f"{_TABLE_START}|{_DETAIL_MARKS}" if text_kind else _TABLE_START)
    rows = rows[tabled | blocked[rows]]
    if len(rows) == 0:
        return joins, needs_title, needs_errmgr
    now, before = message.take(pa.array(rows)), message.take(pa.array(rows - 1))
    first, last = _first_lines(now), _last_lines(before)
    before_first = _first_lines(before)
    # tables: a row or the closing ruler after the title or a row (not after a closing ruler)
    table = ((_matches(first, ROW) | _matches(first, CLOSING))
             & (_matches(before_first, TITLE) | _matches(before_first, ROW))
             & ~_matches(last, CLOSING))
    # tracebacks: the exception line after a traceback that has none yet
    traceback = role["exception"][rows] & role["traceback"][rows - 1]
    if traceback.any():
        traceback[traceback] &= ~_matches(before.filter(pa.array(traceback)),
                                          _exception_lines(fset))
    # error-manager blocks: after the line that names their code as a title
    errmgr = role["error-manager"][rows]
    if errmgr.any():
        picked = pa.array(errmgr)
        errmgr[errmgr] = _titled(last.filter(picked),
                                 column_of(records, "codes").take(pa.array(rows[errmgr])))
    # device exception dumps: after the line that ends with the dump's head
    dump = role["device-dump"][rows]
    if dump.any():
        dump[dump] = _matches(last.filter(pa.array(dump)), DUMP_HEAD)
    # error-manager details of their own: inside an error-manager message (``_in_errmgr``)
    detail = np.zeros(len(rows), bool)
    if text_kind:
        detail = ~role["error-manager"][rows] & _matches(first, DETAIL)
    ok = table | traceback | errmgr | dump | detail
    other = traceback | errmgr | dump
    rows, table, detail, other = rows[ok], table[ok], detail[ok], other[ok]
    if len(rows):
        named = _named_so_far(n, rows)
        same = _same_writer(records, rows, named, WRITER)
        if table.any():
            same[table] &= _same_writer(records, rows[table], named, TABLE_WRITER)
        rows, table, detail, other = rows[same], table[same], detail[same], other[same]
    joins[rows] = True
    needs_title[rows[table & ~other & ~detail]] = True
    needs_errmgr[rows[detail & ~table & ~other]] = True
    return joins, needs_title, needs_errmgr


def _headed(records: pa.Table, joins: np.ndarray, needs_title: np.ndarray) -> np.ndarray:
    """Per record: the run of joins it ends starts at a record whose first line is a title
    (what a table join needs; true elsewhere)."""
    out = np.ones(len(joins), bool)
    rows = np.flatnonzero(needs_title)
    if len(rows) == 0:
        return out
    index = np.arange(len(joins))
    head = np.maximum.accumulate(np.where(joins, 0, index))  # the run's first record
    heads = distinct(head[rows])
    titled = _matches(_first_lines(column_of(records, "message").take(pa.array(heads))), TITLE)
    out[rows] = titled[np.searchsorted(heads, head[rows])]
    return out


def _in_errmgr_message(records: pa.Table, joins: np.ndarray, needs_errmgr: np.ndarray,
                       fset: FormatSet) -> np.ndarray:
    """Per record: an error-manager detail's join holds only where the message it joins (the
    run of joined records before it) holds an error-manager record; true elsewhere."""
    out = np.ones(len(joins), bool)
    rows = np.flatnonzero(needs_errmgr)
    if len(rows) == 0:
        return out
    errmgr = isin_values(plain_text(column_of(records, "fmt")),
                          fset_names(fset, "error-manager"))
    index = np.arange(len(joins))
    head = np.maximum.accumulate(np.where(joins, 0, index))  # the run's first record
    seen = np.maximum.accumulate(np.where(errmgr, index, -1))  # the last error-manager record
    out[rows] = seen[rows - 1] >= head[rows]
    return out


def _lead(records: pa.Table, joins: np.ndarray, fset: FormatSet, text_kind: bool) -> int:
    """How many of the first records may join a record before them: the first may (by its
    shape), and each next one joins the one before it."""
    first_line = _first_lines(column_of(records, "message").slice(0, 1))
    fmt = plain_text(column_of(records, "fmt")).slice(0, 1)
    joiner = bool(_matches(first_line, ROW)[0] or _matches(first_line, CLOSING)[0]
                  or (text_kind and _matches(first_line, DETAIL)[0])
                  or isin_values(fmt, fset_names(fset, "exception")
                                  + fset_names(fset, "error-manager")
                                  + fset_names(fset, "device-dump"))[0])
    if not joiner or not (text_kind or _isin(records.slice(0, 1), "level", NOTABLE)[0]):
        return 0
    rest = np.flatnonzero(~joins[1:])
    return 1 + (int(rest[0]) if len(rest) else len(joins) - 1)


def fset_names(fset: FormatSet, role: str) -> list[str]:
    """The names of the formats that play ``role`` in a block."""
    return [f.name for f in fset.formats if f.block == role]


def _exception_lines(fset: FormatSet) -> str:
    """A line of a message that an ``exception`` format matches (none: a pattern that never
    matches)."""
    patterns = [f.pattern for f in fset.formats if f.block == "exception"]
    return f"(?m)^(?:{'|'.join(patterns)})" if patterns else r"[^\s\S]"


def _titled(before: pa.Array, codes: pa.Array) -> np.ndarray:
    """Whether each line of ``before`` ends with a title naming the first code of the block
    record after it (``codes``)."""
    found = pc.extract_regex(before, TITLE_CODE)
    same = mask(pc.equal(found.field("code"), _first_codes(codes)))
    detail = mask(pc.match_substring_regex(found.field("title"), _DETAIL))
    return mask(found.is_valid()) & same & ~detail


def _first_codes(codes: pa.Array) -> pa.Array:
    """The first code of each list (null where there is none)."""
    first = pc.list_slice(codes, 0, 1)
    has = mask(pc.greater(pc.list_value_length(first), 0))
    out = pa.nulls(len(codes), pa.string())
    if has.any():
        out = pc.replace_with_mask(out, pa.array(has), pc.list_flatten(first).cast(pa.string()))
    return out


def _named_so_far(n: int, rows: np.ndarray) -> np.ndarray:
    """Per record: the first record of the run it would end if each of ``rows`` joined the
    record before it (each record not among them starts a run)."""
    links = np.zeros(n, bool)
    links[rows] = True
    index = np.arange(n)
    return np.maximum.accumulate(np.where(links, 0, index))


def _same_writer(records: pa.Table, rows: np.ndarray, head: np.ndarray,
                 names: tuple[str, ...]) -> np.ndarray:
    """For each of ``rows``: where it names one of ``names`` and the run of records it would
    join (from ``head``, the run's first record, to the record before it) has named it too,
    the last name the run gave is the same. A record that names no writer (a traceback's
    heading) carries the run's writer on: a record after it is held to the run, as it is
    when the run was joined in a chunk before (its record names the run's first writer)."""
    ok = np.ones(len(rows), bool)
    index = np.arange(records.num_rows)
    for name in names:
        column = plain_text(column_of(records, name))
        named = mask(column.is_valid())
        last = np.maximum.accumulate(np.where(named, index, -1))[rows - 1]
        held = last >= head[rows - 1]
        if not held.any():
            continue
        a = column.take(pa.array(rows[held]))
        b = column.take(pa.array(last[held]))
        differ = mask(pc.fill_null(pc.not_equal(a, b), False))
        ok[np.flatnonzero(held)[differ]] = False
    return ok


def _first_lines(messages: pa.Array) -> pa.Array:
    return pc.replace_substring_regex(messages, r"(?s)\n.*", "")


def _last_lines(messages: pa.Array) -> pa.Array:
    return pc.replace_substring_regex(messages, r"(?s)^.*\n", "")


def _matches(texts: pa.Array, pattern: str) -> np.ndarray:
    return mask(pc.match_substring_regex(texts, pattern))


def _isin(records: pa.Table, name: str, values: tuple[str, ...]) -> np.ndarray:
    return isin_values(plain_text(column_of(records, name)), list(values))
