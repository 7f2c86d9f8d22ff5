"""Which kinds of records each process wrote: the evidence ``requires`` is checked against.

While the engine streams record batches (or the facts of them, ``ingest.facts``) it keeps,
per (host, pid), the distinct (level, module, kind) triples seen: a few hundred tuples for a
whole job, whatever the log size. formats.md §9: any DEBUG record of a process proves DEBUG
logging was on for it.

Bounded: past ``MAX_PROCESSES`` processes, a new process's triples are kept for its host as
a whole; a check about such a process looks at its host and says so. The distinct rows and
the cap are worked out in Arrow, so only the rows of the processes held become Python
values: a file written by a million processes would otherwise turn every fact row into
five Python objects at once (some 300 MB) and take a Python step each.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pyarrow as pa

from plogscan.catalog.rule import Requires
from plogscan.engine.words import scope_words, words
from plogscan.schema.grouping import grouped
from plogscan.schema.keys import HeldKeys, admitted, known_rows

_KEYS = ["host", "pid", "level", "module", "kind"]
MAX_PROCESSES = 50000
Triple = tuple[Any, Any, Any]
_PROCESS_KEYS = pa.schema([pa.field("host", pa.string()), pa.field("pid", pa.int64())])


class Presence:
    """Distinct (level, module, kind) per (host, pid) of every record seen."""

    def __init__(self, max_processes: int = MAX_PROCESSES) -> None:
        self.max_processes = max_processes
        self._by_process: dict[tuple[Any, Any], set[Triple]] = {}
        self._by_host: dict[Any, set[Triple]] = {}  # every process's triples, by host
        self._untracked_hosts: set[Any] = set()  # hosts with processes past the cap
        self._held = HeldKeys(_PROCESS_KEYS)  # the (host, pid) of the processes held

    def consume(self, batch: pa.RecordBatch) -> None:
        """Add the distinct combinations of one record batch."""
        self._add(pa.Table.from_batches([batch]).select(_KEYS))

    def consume_facts(self, facts: pa.Table) -> None:
        """Add the combinations of a facts table (``ingest.facts``): the same as consuming
        the records the facts were computed from."""
        self._add(facts.select(_KEYS))

    def _add(self, table: pa.Table) -> None:
        """Add the rows of ``table`` (``_KEYS``, in arrival order): every triple to its host,
        and to its process when the process is held or there is still room for it (the
        first processes to come are the ones held)."""
        if table.num_rows == 0:
            return
        for host, *triple in _distinct(table, ["host", "level", "module", "kind"]):
            self._by_host.setdefault(host, set()).add(tuple(triple))
        processes = grouped(table, ["host", "pid"], [], in_order=True)
        room = max(self.max_processes - len(self._by_process), 0)
        if processes.num_rows > room:
            keep, past = admitted(processes, self._held.table(
                len(self._by_process), lambda: self._by_process), room)
            if len(past):
                hosts = processes.column("host").take(pa.array(past))
                self._untracked_hosts.update(hosts.unique().to_pylist())
            table = table.filter(pa.array(known_rows(table, processes.filter(
                pa.array(keep)).select(["host", "pid"]))))
        for host, pid, *triple in _distinct(table, _KEYS):
            self._by_process.setdefault((host, pid), set()).add(tuple(triple))

    def check(self, req: Requires, host: str | None, pid: int | None,
              aliases: Iterable[tuple[str | None, int]] = (), lang: str = "en"
              ) -> tuple[bool, str]:
        """Whether the scope of a trigger record has the required records, and that scope in words.

        The scope is the process (host, pid) of the trigger, with the ``aliases`` that belong to
        the same host process (a device log's records carry the device-side pid of the process
        that wrote them for it). A trigger without a pid falls back to its host, and one
        without a host to the whole input; the words say so (in ``lang``).
        """
        rows: Iterable[Triple]
        same = {(host, pid), *aliases}
        tracked = all((h, p) in self._by_process or h not in self._untracked_hosts
                      for h, p in same)
        if pid is not None and tracked and (host is not None or not self._untracked_hosts):
            rows = (t for h, p in same for t in self._process_rows(h, p))
            scope = scope_words(pid, host or None, lang=lang)
        elif pid is not None:
            rows = self._by_host.get(host, ()) if host is not None else self._all()
            scope = words(lang, "host {host} (more than {max} processes: process {pid} was "
                          "checked with its host)", host=host or words(lang, "(unnamed)"),
                          max=self.max_processes, pid=pid)
        elif host is not None:
            rows = self._by_host.get(host, ())
            scope = words(lang, "host {host} (the fault record carries no process id, so its "
                          "host was checked)", host=host)
        else:
            rows = self._all()
            scope = words(lang, "the whole input (the fault record carries no process id or "
                          "host, so every file was checked)")
        return any(_fits(req, s) for s in rows), scope

    def _process_rows(self, host: Any, pid: Any) -> Iterable[Triple]:
        """The triples of process ``pid`` on ``host`` (on any host when ``host`` is None)."""
        if host is not None:
            return self._by_process.get((host, pid), ())
        return (t for (_h, p), seen in self._by_process.items() if p == pid for t in seen)

    def _all(self) -> Iterable[Triple]:
        return (t for seen in self._by_host.values() for t in seen)


def _distinct(table: pa.Table, keys: list[str]) -> Iterable[tuple[Any, ...]]:
    """The distinct rows of ``table``'s ``keys`` columns, as tuples."""
    distinct = grouped(table, keys, [])
    return zip(*(distinct.column(k).to_pylist() for k in keys), strict=True)


def _fits(req: Requires, seen: Triple) -> bool:
    level, module, kind = seen
    return (
        (not req.levels or level in req.levels)
        and (not req.modules or module in req.modules)
        and (not req.kinds or kind in req.kinds)
    )
