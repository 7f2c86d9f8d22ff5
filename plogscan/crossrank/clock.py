"""Clock alignment: each host's offset from the reference host, from events that happen at
nearly the same moment on every rank.

Anchor events (one key per event, the same on every rank that took part):

* ``rendezvous``: a communicator's root-info rendezvous and set-up (``SetupAgent``,
  ``Entry-HcclCommInitRootInfo``, ``HcclCommInitRootInfo success``, ``hcclCommInitInfo``);
* ``collective-entry``: the same collective (communicator and sequence number) entered by
  every rank (``Entry-Hccl<Op>`` with ``HCCL_ENTRY_LOG_ENABLE=1``);
* ``heartbeat``: informers on several hosts reporting the same culprit.

Per event and host the median time over the host's ranks is taken; the difference between a
host and the reference host over many events gives the offset as their median (robust to a
straggler or a late rank), its uncertainty as the scaled median absolute deviation over the
square root of the number of pairs (never below the spread of one event's times on one host),
and ``pairs``. Each basis, and each kind of rendezvous record alone, gives a candidate; the
one with the smallest uncertainty wins among those of at least ``MIN_PAIRS`` pairs (any, when
none has that many). Pairs are a bounded, evenly spread sample.

An offset from fewer than ``MIN_PAIRS`` pairs, or whose uncertainty is at least half its size,
is weak: it is reported (``applied`` false) and moves no record, so records stamped the same
second on two hosts are never drawn minutes apart by one hand-edited or straggling pair.
A host that shares no event with the reference is reached through another host. A process
restarted on the same device is another generation: its events never pair with the first
one's. ``offset_us`` is host clock minus reference clock; aligned time is ``ts - offset``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property

from plogscan.crossrank.identity import Identities, Identity, ProcessKey
from plogscan.crossrank.summary import Summary
from plogscan.crossrank.words import say
from plogscan.model import ClockFlag, ClockOffset

MAX_PAIRS = 4096  # per host pair and basis
MIN_PAIRS = 3  # an offset from fewer anchor events is reported, not applied
UNKNOWN_SPREAD_US = 1_000_000  # uncertainty of an offset from events whose spread is unknown
BASES = ("collective-entry", "rendezvous", "heartbeat")
_RENDEZVOUS = frozenset({"setup-agent", "init-entry", "init-success", "comm-info"})


@dataclass(frozen=True)
class Clock:
    reference: str | None
    offsets: tuple[ClockOffset, ...]
    flags: tuple[ClockFlag, ...] = ()

    @cached_property
    def _by_host(self) -> dict[str, ClockOffset]:
        return {o.host: o for o in self.offsets}

    def offset_of(self, host: str | None) -> int:
        """The offset applied to ``host``'s records (0 when none is, or it is weak)."""
        o = self._by_host.get(host or "")
        return o.offset_us if o is not None and o.applied else 0

    def align(self, identity: Identity | None, ts: int | None) -> int | None:
        if ts is None:
            return None
        return ts - self.offset_of(identity.clock_host if identity else None)

    def uncertainty(self, host: str | None) -> int:
        """How far ``host``'s aligned times may be off: the uncertainty of its applied offset,
        or, for an offset too weak to apply, the whole estimate and its uncertainty."""
        o = self._by_host.get(host or "")
        if o is None:
            return 0
        return o.uncertainty_us if o.applied else abs(o.offset_us) + o.uncertainty_us


def generations(ids: Identities) -> dict[ProcessKey, int]:
    """Per process, how many earlier processes used the same device (or rank) on its host:
    a restarted job's processes are generation 1, 2..., and never pair with generation 0."""
    slots: dict[tuple, list[Identity]] = {}
    for ident in ids.processes.values():
        slot = (ident.clock_host, "device", ident.device) if ident.device is not None else (
            (ident.clock_host, "rank", ident.rank) if ident.rank is not None else None)
        if slot is not None:
            slots.setdefault(slot, []).append(ident)
    gen: dict[ProcessKey, int] = {}
    for members in slots.values():
        members.sort(key=lambda i: (i.first_ts is None, i.first_ts or 0, i.key))
        for n, ident in enumerate(members):
            gen[ident.key] = n
    return gen


def anchor_events(summary: Summary, ids: Identities, gen: Mapping[ProcessKey, int]
                  ) -> dict[str, dict[tuple, dict[str, list[int]]]]:
    """basis -> event key -> host -> times of that event on the host's ranks."""
    out: dict[str, dict[tuple, dict[str, list[int]]]] = {b: {} for b in BASES}

    def put(basis: str, key: tuple, ident: Identity | None, ts: int | None) -> None:
        if ident is None or ts is None:
            return
        event = out[basis].setdefault((*key, gen.get(ident.key, 0)), {})
        event.setdefault(ident.clock_host, []).append(ts)

    seen: dict[tuple, int] = {}
    for a in sorted(summary.announces, key=lambda a: (a.stream.order(), a.line)):
        if a.kind not in _RENDEZVOUS or not a.comm:
            continue
        ident = ids.processes.get(ids.of_stream.get(a.stream))  # type: ignore[arg-type]
        if ident is None:
            continue
        n = seen.get((ident.key, a.kind, a.comm), 0)
        seen[(ident.key, a.kind, a.comm)] = n + 1
        put("rendezvous", (a.kind, a.comm, n), ident, a.ts)
    for e in summary.entries:
        put("collective-entry", (e.comm, e.seq),
            ids.processes.get(ids.of_stream.get(e.stream)), e.ts)  # type: ignore[arg-type]
    first_report: dict[tuple, int] = {}
    for h in summary.heartbeats:
        ident = ids.processes.get(ids.of_stream.get(h.stream))  # type: ignore[arg-type]
        if ident is None or h.ts is None:
            continue
        k = (ident.key, h.culprit)
        if k not in first_report or h.ts < first_report[k]:
            first_report[k] = h.ts
            put("heartbeat", (h.culprit,), ident, h.ts)
    return out


def _candidates(events: dict[str, dict[tuple, dict[str, list[int]]]]
                ) -> list[tuple[str, dict[tuple, dict[str, list[int]]]]]:
    """The event sets an offset may be estimated from: each basis whole, and each kind of
    rendezvous record alone (the end of a rendezvous is far tighter than the arrivals at
    it). The one giving the smallest uncertainty wins."""
    out = [(basis, events[basis]) for basis in BASES if events[basis]]
    kinds = sorted({key[0] for key in events["rendezvous"]})
    if len(kinds) > 1:
        out += [("rendezvous", {k: v for k, v in events["rendezvous"].items() if k[0] == kind})
                for kind in kinds]
    return out


def _spaced(items: list, limit: int) -> list:
    if len(items) <= limit:
        return items
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


def _estimate(diffs: list[int], jitter: float | None) -> tuple[int, int]:
    """(median, uncertainty) of the pairwise differences."""
    import statistics  # here: a run of one host never estimates an offset

    mid = statistics.median(diffs)
    n = len(diffs)
    if n >= 3:
        mad = statistics.median(abs(d - mid) for d in diffs)
        spread = 1.4826 * mad / math.sqrt(n)
    elif n == 2:
        spread = abs(diffs[0] - diffs[1]) / 2
    else:
        spread = jitter if jitter else UNKNOWN_SPREAD_US
    if jitter is not None:
        spread = max(spread, jitter / math.sqrt(n))
    return round(mid), round(spread)


def _pair_diffs(events: dict[tuple, dict[str, list[int]]], a: str, b: str) -> list[int]:
    import statistics

    keys = sorted(k for k, hosts in events.items() if a in hosts and b in hosts)
    return [round(statistics.median(events[k][a]) - statistics.median(events[k][b]))
            for k in _spaced(keys, MAX_PAIRS)]


def _jitter(events: dict[tuple, dict[str, list[int]]]) -> float | None:
    """How far apart the ranks of one host log the same event (median over events): the
    floor of any offset's uncertainty. None when no host has two ranks at one event."""
    import statistics

    spreads = [max(ts) - min(ts) for hosts in events.values() for ts in hosts.values()
               if len(ts) > 1]
    return float(statistics.median(spreads)) if spreads else None


def estimate(summary: Summary, ids: Identities, reference: str | None = None,
             overrides: Mapping[str, float] | None = None) -> Clock:
    """Offsets of every host that shares anchor events with the reference (directly or
    through other hosts); ``overrides`` (host -> seconds) replace estimates."""
    hosts = sorted({i.clock_host for i in ids.processes.values()})
    ref = reference if reference is not None else default_reference(ids.processes.values())
    overrides = dict(overrides or {})
    events = anchor_events(summary, ids, generations(ids))
    candidates = _candidates(events)
    jitters = [_jitter(subset) for _, subset in candidates]
    known: dict[str, ClockOffset] = {}
    if ref is not None:
        known[ref] = ClockOffset(ref, 0, 0, 0, "reference")
    frontier = [ref] if ref is not None else []
    while frontier:  # breadth first from the reference, best basis per hop
        nxt = []
        for via in frontier:
            for host in hosts:
                if host in known:
                    continue
                best = None
                for n, (basis, subset) in enumerate(candidates):
                    diffs = _pair_diffs(subset, host, via)
                    if not diffs:
                        continue
                    mid, spread = _estimate(diffs, jitters[n])
                    rank = (len(diffs) < MIN_PAIRS, spread, -len(diffs))
                    if best is None or rank < best[0]:
                        best = (rank, basis, len(diffs), mid, spread)
                if best is not None:
                    _rank, basis, pairs, mid, spread = best
                    base = known[via]
                    offset = base.offset_us + mid
                    uncertainty = base.uncertainty_us + spread
                    known[host] = ClockOffset(host, offset, uncertainty, pairs, basis,
                                              _strong(offset, uncertainty, pairs)
                                              and base.applied)
                    nxt.append(host)
        frontier = nxt
    for host, seconds in overrides.items():
        known[host] = ClockOffset(host, round(seconds * 1_000_000), 0, 0, "override")
    offsets = [o for o in known.values() if o.basis != "reference"]
    return Clock(reference=ref, offsets=tuple(sorted(offsets, key=lambda o: o.host)))


def _strong(offset_us: int, uncertainty_us: int, pairs: int) -> bool:
    """Whether an estimate is firm enough to move records: enough pairs, and an uncertainty
    well below the offset itself."""
    return pairs >= MIN_PAIRS and 2 * uncertainty_us < abs(offset_us)


def default_reference(processes: Iterable[Identity]) -> str | None:
    """The host with the most ranks (then the most processes), ties by name."""
    ranks: dict[str, set] = {}
    procs: dict[str, int] = {}
    for ident in processes:
        ranks.setdefault(ident.clock_host, set())
        procs[ident.clock_host] = procs.get(ident.clock_host, 0) + 1
        if ident.rank is not None:
            ranks[ident.clock_host].add(ident.rank)
    if not ranks:
        return None
    return min(ranks, key=lambda h: (-len(ranks[h]), -procs[h], h))


def with_flags(clock: Clock, summary: Summary, ids: Identities,
               timeouts: Mapping[str, float], lang: str = "en") -> Clock:
    """``clock`` with its flags: hosts with device records stamped in 1970, and offsets larger
    than a timeout in force (``timeouts``: setting -> seconds); details in ``lang``."""
    flags: list[ClockFlag] = []
    epoch: dict[str, int] = {}
    for stream in summary.streams:
        if stream.epoch_records:
            ident = ids.processes.get(ids.of_stream.get(stream.key))  # type: ignore[arg-type]
            host = ident.clock_host if ident else (stream.host or "")
            epoch[host] = epoch.get(host, 0) + stream.epoch_records
    for host, count in sorted(epoch.items()):
        flags.append(ClockFlag(host, "epoch-1970", say.count(
            lang, count, "{n} record stamped in 1970: a device clock not yet synchronised; it is "
            "left out of every ordering", "{n} records stamped in 1970: a device clock not yet "
            "synchronised; they are left out of every ordering")))
    if timeouts:
        name, limit = min(timeouts.items(), key=lambda kv: (kv[1], kv[0]))
        for o in clock.offsets:
            if abs(o.offset_us) > limit * 1_000_000:
                flags.append(ClockFlag(o.host, "offset-exceeds-timeout", say(
                    lang, "offset {offset} s is larger than {name} ({limit} s): the clocks "
                    "disagree, or the ranks reached this point further apart than the timeout "
                    "allows", offset=f"{o.offset_us / 1e6:+.3f}", name=name,
                    limit=f"{limit:g}")))
    return Clock(clock.reference, clock.offsets, tuple(flags))
