"""The rows of HCCL's ``LINK_ERROR_INFO`` table: which peer each failed link was waiting for.

HCCL prints the table when the links of a collective are not set up in time (formats.md §5):
a header row naming the columns, then one row per failed link::

    |  dest_ip(rank_id)  |  src_ip(rank_id)   |   Role   |   Status   |
    |  124.0.0.11(1)     |   124.0.0.21(0)    |  server  | no connect |

Newer builds add ports and TLS columns (``dest_ip(user_rank) | dest_port | src_ip(user_rank) |
src_port | MyRole | Status | TlsStatus``). The rows may reach the reader as separate records,
or joined with the header into one multi-line record; either way each row becomes one wait of
its ``src`` (the waiting rank) for its ``dest``. Without a header the ``ip(rank)`` cells are read
in the order every build prints them, destination first.
"""

from __future__ import annotations

from dataclasses import dataclass

from plogscan.crossrank.patterns import TABLE_CELL

_ROLES = frozenset({"server", "client"})


@dataclass(frozen=True)
class LinkRow:
    dest_ip: str
    dest_rank: int
    src_ip: str
    src_rank: int
    role: str
    status: str
    offset: int = 0  # the row's line within the record (0: its first line)


@dataclass(frozen=True)
class _Columns:
    dest: int
    src: int
    role: int | None
    status: int | None


def _cells(line: str) -> list[str]:
    parts = line.split("|")
    return [c.strip() for c in parts[1:-1]] if len(parts) > 2 else []


def _header(cells: list[str]) -> _Columns | None:
    lower = [c.lower() for c in cells]
    dest = next((i for i, c in enumerate(lower) if c.startswith("dest_ip")), None)
    src = next((i for i, c in enumerate(lower) if c.startswith("src_ip")), None)
    if dest is None or src is None:
        return None
    role = next((i for i, c in enumerate(lower) if c.endswith("role")), None)
    status = next((i for i, c in enumerate(lower) if c == "status"), None)
    return _Columns(dest, src, role, status)


def _row(cells: list[str], columns: _Columns | None, offset: int) -> LinkRow | None:
    found = [(i, m) for i, c in enumerate(cells) if (m := TABLE_CELL.match(c))]
    if len(found) < 2:
        return None
    at = dict(found)
    # The header's positions hold only for a row of its own layout; a row of another layout
    # (ports and TLS columns, or fewer) is read by its cells' shapes.
    fits = columns is not None and columns.dest in at and columns.src in at
    if fits:
        dest, src = at[columns.dest], at[columns.src]
    else:
        (_, dest), (_, src) = found[0], found[1]
    role = ""
    status = ""
    if fits and columns.role is not None and columns.role < len(cells):
        role = cells[columns.role]
    else:
        role = next((c for c in cells if c.lower() in _ROLES), "")
    if fits and columns.status is not None and columns.status < len(cells):
        status = cells[columns.status]
    elif role and role in cells:
        after = cells.index(role) + 1
        status = cells[after] if after < len(cells) else ""
    return LinkRow(dest.group("ip"), int(dest.group("rank")), src.group("ip"),
                   int(src.group("rank")), role, status, offset)


def link_rows(message: str) -> list[LinkRow]:
    """The failed links of a record: one row, or a header and its rows in one message."""
    if "|" not in message:
        return []
    columns: _Columns | None = None
    out = []
    for offset, line in enumerate(message.split("\n")):
        cells = _cells(line)
        if len(cells) < 2:
            continue
        header = _header(cells)
        if header is not None:
            columns = header
            continue
        row = _row(cells, columns, offset)
        if row is not None:
            out.append(row)
    return out
