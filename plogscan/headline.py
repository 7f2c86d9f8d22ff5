"""The line that names a record, for every view that shows a record in one line.

A record's first line names it, except where a record spans lines that each looked like a
record of their own (``parse.blocks``): a table's first line is a ruler with its title, a
traceback's is ``Traceback (most recent call last):``, an error-manager block's is a bare
title (``EZ9999: Inner Error!``). A one-line view of those (the timeline, unexplained-error
templates, an evidence line) shows instead:

* a table: its title and its first data row (the first row after the ``|----|`` ruler, else
  its first row), ``LINK_ERROR_INFO |  10.1.0.7(5)  |  10.1.0.3(1)  |  client  | time out |``;
* a traceback: its exception line, ``RuntimeError: …``;
* a line that ends with an error-manager title: that line and the block's first line after it,
  ``EZ9999: Inner Error! The error from device(chipId:1, …)``.

``structure`` tells lines that are only a table's decoration (a ruler, a column header) from
lines that say something. Everything runs on whole arrays with Arrow's RE2 kernels.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

# A ruler with a title, ``_____LINK_ERROR_INFO_____``, and what follows it in the record.
_TABLE = (r"^[ \t]*[_=-]{3,}[ \t]*(?P<title>[A-Za-z0-9](?:[A-Za-z0-9_ ]*[A-Za-z0-9])?)[ \t]*"
          r"[_=-]{3,}[ \t]*(?:\n|$)")
_ROW_AFTER_RULER = r"(?s)\n[ \t]*\|[ \t]*-[^\n]*\n[ \t]*(?P<row>\|[^\n]*?)[ \t]*(?:\n|$)"
_FIRST_ROW = r"(?s)\n[ \t]*(?P<row>\|[^\n]*?)[ \t]*(?:\n|$)"
# Python's exception line, ``RuntimeError: …``, ``torch.OutOfMemoryError: …``.
_EXCEPTION = r"(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Interrupt|Exit|Warning): "
_TRACEBACK = (r"(?s)^Traceback \(most recent call last\):[^\n]*\n(?:.*?\n)??"
              rf"(?P<line>{_EXCEPTION}[^\n]*)(?P<rest>(?:\n.*)?)$")
# A line that ends with an error-manager title: a code, a colon and a short title without
# numbers (``Inner Error!``), not the block's own detail (a ``[PID: n]`` or a time stamp
# follows the code there) nor a sentence of its own.
_TITLED = r"(?:^|[^A-Za-z0-9])[EW][0-9A-Z][0-9]{4}: ?[^\[0-9\s][^0-9\n]{0,31}$"
_NEXT = r"^[^\n]*\n[ \t]*(?P<next>[^\n]*)"
# Lines that are only structure: rulers and borders, a column header (cells without digits).
STRUCTURE = r"^\s*[_=+*~|-][\s_=+*~.:|-]*$|^[ \t]*\|(?:[^0-9|\n]*\|)+[^0-9|\n]*$"


def headlines(messages: pa.Array) -> pa.Array:
    """The line that names each message (see the module docstring); null stays null."""
    messages = _plain(messages)
    if len(messages) == 0:
        return messages
    space, nothing = pa.scalar(" ", pa.large_string()), pa.scalar("", pa.large_string())
    many = pc.fill_null(pc.match_substring(messages, "\n"), False)
    out = pc.replace_substring_regex(messages, r"(?s)\n.*", "")
    if not pc.any(many).as_py():
        return out
    rest = pc.if_else(many, messages, nothing)
    # a traceback: its exception line, and what follows it (an error-manager block it names)
    found = pc.extract_regex(rest, _TRACEBACK)
    ended = pc.is_valid(found)
    out = pc.if_else(ended, found.field("line"), out)
    after = pc.if_else(ended, found.field("rest"), rest)
    # a table: its title and its first data row
    table = pc.extract_regex(rest, _TABLE)
    titled = pc.is_valid(table)
    if pc.any(titled).as_py():
        row = pc.coalesce(_group(rest, _ROW_AFTER_RULER, "row"),
                          _group(rest, _FIRST_ROW, "row"))
        named = pc.if_else(pc.is_valid(row), pc.binary_join_element_wise(
            table.field("title"), row, space), table.field("title"))
        out = pc.if_else(titled, named, out)
    # an error-manager title: the block's first line after it
    line_after = _group(pc.if_else(ended, pc.binary_join_element_wise(
        found.field("line"), found.field("rest"), nothing), after), _NEXT, "next")
    titled_code = pc.and_(pc.match_substring_regex(out, _TITLED), pc.is_valid(line_after))
    titled_code = pc.and_(titled_code, pc.invert(titled))
    return pc.if_else(pc.fill_null(titled_code, False),
                      pc.binary_join_element_wise(out, line_after, space), out)


def _group(texts: pa.Array, pattern: str, name: str) -> pa.Array:
    """Group ``name`` of ``pattern`` in each text; null where the pattern does not match."""
    found = pc.extract_regex(texts, pattern)
    return pc.if_else(pc.is_valid(found), found.field(name), pa.scalar(None, texts.type))


def headline(message: str) -> str:
    """The line that names one message."""
    if "\n" not in message:
        return message
    return headlines(pa.array([message], pa.large_string()))[0].as_py() or ""


def naming_line(message: str) -> int:
    """The index of the line of ``message`` that its headline shows (a table's data row, a
    traceback's exception line; 0 for a record its first line names)."""
    if "\n" not in message:
        return 0
    name = headline(message)
    lines = [line.strip() for line in message.split("\n")]
    starts = [i for i, line in enumerate(lines) if line and name.startswith(line)]
    if starts:
        return starts[0]
    ends = [i for i, line in enumerate(lines) if line and name.endswith(line)]
    return ends[0] if ends else 0


def structure(lines: pa.Array) -> pa.Array:
    """Whether each line (a headline) is only structure: a ruler or a column header."""
    return pc.fill_null(pc.match_substring_regex(_plain(lines), STRUCTURE), True)


def _plain(values: pa.Array) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    if not pa.types.is_large_string(values.type):
        values = values.cast(pa.large_string())
    return values
