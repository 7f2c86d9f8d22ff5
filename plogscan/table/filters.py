"""Row filters over event batches (``plogscan events``, ``plogscan.read_events``), as Arrow
boolean masks. The identity filters (rank, device, host, attempt) need the table's schema."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import pyarrow as pa
import pyarrow.compute as pc

from plogscan.errors import InputError

_TS_SHAPES = ("%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d")


def parse_when(text: str) -> datetime:
    """``2025-05-08 09:56:18[.522534]``, with ``T`` or ``-`` between date and time, or a date."""
    value = text.strip()
    value = re.sub(r"^(\d{4}-\d\d-\d\d)[T-](\d)", r"\1 \2", value)
    value = re.sub(r"^(.*:\d\d)\.(\d{3})\.(\d{3})$", r"\1.\2\3", value)  # CANN ms.us
    for shape in _TS_SHAPES:
        try:
            return datetime.strptime(value, shape)
        except ValueError:
            continue
    raise InputError(f"cannot read time '{text}'",
                     help="write it as YYYY-MM-DD, YYYY-MM-DD HH:MM[:SS[.ffffff]] "
                          "or as in the logs, YYYY-MM-DD-HH:MM:SS.mmm.uuu")


@dataclass(frozen=True)
class EventFilter:
    """What ``events`` keeps; every part is optional and the parts are ANDed."""

    levels: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    pids: tuple[int, ...] = ()
    ranks: tuple[int, ...] = ()
    grep: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    devices: tuple[int, ...] = ()  # logical device ids
    hosts: tuple[str, ...] = ()  # as the table names them (exact)
    attempts: tuple[int, ...] = ()

    def check(self) -> None:
        """Reject a regex RE2 cannot compile before any input is read."""
        if self.grep is not None:
            try:
                pc.match_substring_regex(pa.array([""]), self.grep)
            except pa.ArrowInvalid as err:
                raise InputError(f"--grep is not a valid RE2 regex: {err}",
                                 help="RE2 has no look-around or backreferences") from err

    def mask(self, batch: pa.RecordBatch) -> pa.Array:
        keep = pa.array([True] * batch.num_rows)
        parts: list[pa.Array] = []
        if self.levels:
            parts.append(_in(batch.column("level"), [v.upper() for v in self.levels]))
        if self.modules:
            parts.append(_in(batch.column("module"), [v.upper() for v in self.modules]))
        if self.pids:
            parts.append(_in(batch.column("pid"), list(self.pids)))
        if self.ranks:
            parts.append(_in(batch.column("rank"), list(self.ranks)))
        if self.devices:
            parts.append(_in(batch.column("device"), list(self.devices)))
        if self.hosts:
            parts.append(pc.is_in(batch.column("host"),
                                  value_set=pa.array(list(self.hosts), pa.string())))
        if self.attempts:
            parts.append(_in(batch.column("attempt"), list(self.attempts)))
        if self.grep is not None:
            parts.append(pc.match_substring_regex(batch.column("message"), self.grep))
        if self.since is not None:
            parts.append(pc.greater_equal(batch.column("ts"), pa.scalar(self.since,
                                                                        pa.timestamp("us"))))
        if self.until is not None:
            parts.append(pc.less_equal(batch.column("ts"), pa.scalar(self.until,
                                                                     pa.timestamp("us"))))
        for part in parts:
            keep = pc.and_(keep, pc.fill_null(part, False))
        return keep


def _in(column: pa.Array, values: Sequence[object]) -> pa.Array:
    if pa.types.is_string(column.type):
        column = pc.utf8_upper(column)
    return pc.is_in(column, value_set=pa.array(values, column.type))
