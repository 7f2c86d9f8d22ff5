"""Configuration consistency: the settings every rank printed, compared across ranks.

HCCL prints the effective value of each environment setting at start-up (``[HCCL_ENV]
HCCL_EXEC_TIMEOUT set by default to [1836]s``, older ``ExecTimeOut is set to timeOut[120]``;
formats.md §9), and TDT prints the log-level variables. A setting that differs between ranks
of one job is reported with the ranks holding each value. A timeout is reported as too short
when the logs show ranks further apart than it allows: the spread of one communicator's
rendezvous against ``HCCL_CONNECT_TIMEOUT``, the spread of one collective's entries or of the
ranks' Notify Wait timeouts against ``HCCL_EXEC_TIMEOUT``. Values not printed count with their
documented defaults (120 s and 1836 s).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from plogscan.crossrank.clock import Clock
from plogscan.crossrank.identity import Identities, ProcessKey
from plogscan.crossrank.summary import Summary
from plogscan.crossrank.words import say
from plogscan.model import SettingMismatch, SettingValue, ShortTimeout

DEFAULTS = {"HCCL_CONNECT_TIMEOUT": 120.0, "HCCL_EXEC_TIMEOUT": 1836.0}
# Settings expected to differ from rank to rank (addresses of each host's own NIC).
PER_RANK = frozenset({"HCCL_IF_IP", "HCCL_SOCKET_IFNAME", "HCCL_LOGIC_SUPERPOD_ID"})
_NUMBER = re.compile(r"\s*(\d+(?:\.\d+)?)")
_IPISH = re.compile(r"^[0-9A-Fa-f:.%\w]*\d+\.\d+\.\d+\.\d+")


Settings = Mapping[ProcessKey, Mapping[str, tuple[str, tuple[str, int]]]]


def settings_by_process(summary: Summary, ids: Identities, members: frozenset[ProcessKey]
                        ) -> dict[ProcessKey, dict[str, tuple[str, tuple[str, int]]]]:
    """process -> setting -> (value, where it was printed): the first print of each."""
    out: dict[ProcessKey, dict[str, tuple[str, tuple[str, int]]]] = {}
    for s in summary.settings:
        key = ids.of_stream.get(s.stream)
        if key in members:
            out.setdefault(key, {}).setdefault(  # type: ignore[arg-type]
                s.key, (s.value.strip(), (s.stream.path, s.line)))
    return out


def mismatches(settings: Settings, ids: Identities) -> tuple[SettingMismatch, ...]:
    """The settings whose value differs between processes, the most common value first."""
    keys = sorted({k for per in settings.values() for k in per})
    out = []
    for name in keys:
        if name in PER_RANK:
            continue
        holders: dict[str, list[ProcessKey]] = {}
        for proc, per in settings.items():
            if name in per:
                holders.setdefault(per[name][0], []).append(proc)
        if len(holders) < 2 or all(_IPISH.match(v) for v in holders):
            continue
        values = []
        for value in sorted(holders, key=lambda v: (-len(holders[v]), v)):
            ranks = sorted(r for p in holders[value] if (r := ids.processes[p].rank) is not None)
            values.append(SettingValue(value, tuple(ranks)))
        out.append(SettingMismatch(name, tuple(values)))
    return tuple(out)


def holders(settings: Settings, name: str, value: str
            ) -> tuple[list[ProcessKey], tuple[tuple[str, int], ...]]:
    """The processes that printed ``name`` as ``value``, and where (the first three)."""
    found = sorted((proc, per[name][1]) for proc, per in settings.items()
                   if name in per and per[name][0] == value)
    return [p for p, _ in found], tuple(w for _, w in found[:3])


def in_force(settings: Mapping[ProcessKey, Mapping[str, tuple[str, tuple[str, int]]]]
             ) -> dict[str, float]:
    """The smallest value of each timeout the ranks printed, or its default."""
    found = dict(DEFAULTS)
    printed: dict[str, float] = {}
    for per in settings.values():
        for name in DEFAULTS:
            if name in per:
                m = _NUMBER.match(per[name][0])
                if m:
                    value = float(m.group(1))
                    printed[name] = min(printed.get(name, value), value)
    found.update(printed)
    return found


def too_short(summary: Summary, ids: Identities, clock: Clock, members: frozenset[ProcessKey],
              timeouts: Mapping[str, float], lang: str = "en") -> tuple[ShortTimeout, ...]:
    """Timeouts shorter than a gap between ranks that the logs show (aligned clocks); what
    the gap is between, in ``lang``."""
    out: list[ShortTimeout] = []

    def check(name: str, what: str, times: dict[ProcessKey, int]) -> None:
        if len(times) < 2:
            return
        limit = timeouts.get(name)
        gap = (max(times.values()) - min(times.values())) / 1e6
        if limit is None or gap <= limit:
            return
        late = sorted(k for k, t in times.items() if t - min(times.values()) > limit * 1e6)
        ranks = sorted(r for k in late if (r := ids.processes[k].rank) is not None)
        out.append(ShortTimeout(name, limit, round(gap, 3), tuple(ranks), what))

    setup: dict[str, dict[ProcessKey, int]] = {}
    for a in summary.announces:
        key = ids.of_stream.get(a.stream)
        if a.kind == "setup-agent" and a.comm and key in members and a.ts is not None:
            t = clock.align(ids.processes[key], a.ts)  # type: ignore[index]
            setup.setdefault(a.comm, {}).setdefault(key, t)  # type: ignore[arg-type]
    for comm, times in sorted(setup.items()):
        check("HCCL_CONNECT_TIMEOUT", say(lang, "rendezvous of communicator {comm}", comm=comm),
              times)
    worst: tuple[float, str, dict[ProcessKey, int]] | None = None
    entries: dict[tuple[str, int], dict[ProcessKey, int]] = {}
    for e in summary.entries:
        key = ids.of_stream.get(e.stream)
        if key in members and e.ts is not None:
            entries.setdefault((e.comm, e.seq), {}).setdefault(
                key, clock.align(ids.processes[key], e.ts))  # type: ignore[index, arg-type]
    for (comm, seq), times in sorted(entries.items()):
        if len(times) > 1:
            gap = max(times.values()) - min(times.values())
            if worst is None or gap > worst[0]:
                worst = (gap, say(lang, "entries of collective {seq} on communicator {comm}",
                                  seq=seq, comm=comm), times)
    if worst is not None:
        check("HCCL_EXEC_TIMEOUT", worst[1], worst[2])
    notify: dict[ProcessKey, int] = {}
    for w in summary.waits:
        key = ids.of_stream.get(w.stream)
        if w.kind == "notify" and key in members and w.ts is not None:
            notify.setdefault(key, clock.align(ids.processes[key], w.ts))  # type: ignore
    check("HCCL_EXEC_TIMEOUT", say(lang, "the ranks' Notify Wait timeouts"), notify)
    return tuple(out)
