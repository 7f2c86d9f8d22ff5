"""The stage's internal results as the report-facing values of ``plogscan.model``.

Processes become ranks, hosts and devices (``Identity``); suspects, victims and chain hops
carry the label reports show (``<host> device-<id>``, the physical id when logged); times
become datetimes (aligned to the reference clock).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from plogscan.crossrank.clock import Clock
from plogscan.crossrank.collectives import Alignment
from plogscan.crossrank.graph import Node
from plogscan.crossrank.identity import Identities, ProcessKey
from plogscan.crossrank.suspects import Verdict
from plogscan.model import (
    AttemptReport,
    ClockReport,
    CollectiveCall,
    CollectiveMismatch,
    CollectivesReport,
    CommunicatorSequence,
    EvidenceRef,
    Hop,
    Party,
    RootCause,
    Suspect,
    SuspectReason,
)

_EPOCH = datetime(1970, 1, 1)


def to_datetime(us: int | None) -> datetime | None:
    return None if us is None else _EPOCH + timedelta(microseconds=us)


def party(ids: Identities, key: ProcessKey) -> Party:
    i = ids.processes[key]
    return Party(i.rank, i.host, i.device, i.pid, i.label())


def hop(ids: Identities, node: Node) -> Hop:
    if node.key is None:
        return Hop(None, None, None, node.ip, node.ip or f"rank {node.rank}")
    i = ids.processes[node.key]
    return Hop(i.rank, i.host, i.device, i.device_ip, i.label())


def root_cause(ids: Identities, verdict: Verdict, attempt: int) -> RootCause:
    suspects = []
    for s in verdict.suspects:
        i = ids.processes[s.key]
        suspects.append(Suspect(
            rank=i.rank, host=i.host, host_ip=i.host_ip, device=i.device,
            phy_device=i.phy_device, pid=i.pid, attempt=attempt,
            communicator=s.communicator, confidence=s.confidence,
            reasons=tuple(SuspectReason(r.signal, r.text, tuple(
                EvidenceRef(p, n) for p, n in r.evidence)) for r in s.reasons),
            label=i.label()))
    return RootCause(verdict.verdict, tuple(suspects),
                     tuple(party(ids, k) for k in verdict.victims),
                     tuple(hop(ids, n) for n in verdict.chain), verdict.notes)


def attempt_report(ids: Identities, attempt: Any, verdict: Verdict) -> AttemptReport:
    idents = [ids.processes[k] for k in sorted(attempt.keys)]
    return AttemptReport(
        id=attempt.id, first_ts=to_datetime(attempt.first_ts),
        last_ts=to_datetime(attempt.last_ts),
        pids=tuple(sorted({i.pid for i in idents if i.pid is not None})),
        hosts=tuple(sorted({i.host for i in idents if i.host})),
        ranks=tuple(sorted({i.rank for i in idents if i.rank is not None})),
        root_cause=root_cause(ids, verdict, attempt.id), failed=verdict.failed)


def clock_report(clock: Clock) -> ClockReport:
    return ClockReport(clock.reference or None, tuple(o for o in clock.offsets if o.host),
                       clock.flags)


def collectives(alignment: Alignment) -> CollectivesReport:
    first = alignment.first
    mismatch = None
    if first is not None:
        mismatch = CollectiveMismatch(
            first.comm, first.seq, first.kind,
            tuple((r, CollectiveCall(*v) if v is not None else None) for r, v in first.by_rank),
            first.odd_ranks)
    return CollectivesReport(
        tuple(CommunicatorSequence(s.comm, s.ranks, s.collectives) for s in alignment.sequences),
        mismatch)
