"""Which kinds of records each process wrote: the evidence ``requires`` is checked against.

While the engine streams record batches it keeps, per (host, pid), the distinct
(level, module, kind) triples seen: a few hundred tuples for a whole job, whatever the log
size. formats.md §9: any DEBUG record of a process proves DEBUG logging was on for it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pyarrow as pa

from plogscan.engine.rule import Requires
from plogscan.engine.words import scope_words, words

_KEYS = ["host", "pid", "level", "module", "kind"]


class Presence:
    """Distinct (host, pid, level, module, kind) of every record seen."""

    def __init__(self) -> None:
        self.seen: set[tuple[Any, ...]] = set()

    def consume(self, batch: pa.RecordBatch) -> None:
        """Add the distinct combinations of one record batch."""
        table = pa.Table.from_batches([batch]).select(_KEYS)
        distinct = table.group_by(_KEYS, use_threads=False).aggregate([])
        self.seen.update(zip(*(distinct.column(k).to_pylist() for k in _KEYS), strict=True))

    def check(self, req: Requires, host: str | None, pid: int | None,
              aliases: Iterable[tuple[str | None, int]] = (), lang: str = "en"
              ) -> tuple[bool, str]:
        """Whether the scope of a trigger record has the required records, and that scope in words.

        The scope is the process (host, pid) of the trigger, with the ``aliases`` that belong to
        the same host process (a device log's records carry the device-side pid of the process
        that wrote them for it). A trigger without a pid falls back to its host, and one
        without a host to the whole input; the words say so (in ``lang``).
        """
        if pid is not None:
            same = {(host, pid), *aliases}
            rows: Iterable[tuple[Any, ...]] = (
                s for s in self.seen
                if any(s[1] == p and (h is None or s[0] == h) for h, p in same))
            scope = scope_words(pid, host or None, lang=lang)
        elif host is not None:
            rows = (s for s in self.seen if s[0] == host)
            scope = words(lang, "host {host} (the fault record carries no process id, so its "
                          "host was checked)", host=host)
        else:
            rows = self.seen
            scope = words(lang, "the whole input (the fault record carries no process id or "
                          "host, so every file was checked)")
        return any(_fits(req, s) for s in rows), scope


def _fits(req: Requires, seen: tuple[Any, ...]) -> bool:
    _host, _pid, level, module, kind = seen
    return (
        (not req.levels or level in req.levels)
        and (not req.modules or module in req.modules)
        and (not req.kinds or kind in req.kinds)
    )
