"""The process table as identities see it.

The overview counts processes by the pid their lines print (``(host, pid)``); identities are
keyed by the file (``identity``). Each process of the overview gets the rank, device and host
of its identity, and a line pid whose records several files own (a collection that rewrote
the pids in its files' lines) becomes each of those processes, with its file's pid.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from plogscan.crossrank.identity import Identities, Identity, ProcessKey
from plogscan.crossrank.summary import Summary
from plogscan.model import ProcessInfo

_EPOCH = datetime(1970, 1, 1)


def to_datetime(us: int | None) -> datetime | None:
    """Microseconds since 1970 (as written, no time zone) as a datetime."""
    return None if us is None else _EPOCH + timedelta(microseconds=us)


def identified(ids: Identities, summary: Summary, seen: Sequence[ProcessInfo],
               process_of: Callable[[str | None, int], Identity | None]
               ) -> tuple[ProcessInfo, ...]:
    """``seen`` (the overview's processes) with their identities, by rank."""
    owners: dict[tuple[str, int], list[ProcessKey]] = {}  # only the pids of several
    first = ids.by_record_pid
    for stream in summary.streams:
        k = stream.key
        if k.pid is None:
            continue
        where, key = (stream.host or "", k.pid), ids.of_stream[k]
        if key != first.get(where):
            found = owners.setdefault(where, [first[where]])
            if key not in found:
                found.append(key)
    out = []
    for proc in seen:
        keys = owners.get((proc.host or "", proc.pid), ())
        if len(keys) <= 1:
            ident = process_of(proc.host, proc.pid)
            out.append(proc if ident is None else replace(
                proc, host=ident.host or proc.host,
                rank=ident.rank if ident.rank is not None else proc.rank,
                device=ident.device if ident.device is not None else proc.device))
            continue
        for key in keys:
            ident = ids.processes[key]
            out.append(replace(proc, host=ident.host or proc.host,
                               pid=ident.pid if ident.pid is not None else proc.pid,
                               rank=ident.rank, device=ident.device,
                               first_ts=to_datetime(ident.first_ts),
                               last_ts=to_datetime(ident.last_ts)))
    out.sort(key=lambda p: (p.rank is None, p.rank or 0, p.host or "", p.pid))
    return tuple(out)
