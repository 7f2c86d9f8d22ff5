"""Which rank is which, and which rank failed first: shared by the summary and the swimlane chart.

A record's rank comes from its own line when the parser found one, else from the process list
(same host and pid). The root-cause rank is the rank of the earliest timestamped evidence among
the matched findings: in a collective, the rank that failed first is usually the cause and the
others its victims (their timeouts follow it). When the cross-rank analysis judged a failed
attempt, its verdict decides: its first suspect's rank, or no rank at all.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone

from plogscan.model import Diagnosis, Finding, Verdict
from plogscan.report import view

ERROR_LEVELS = frozenset({"ERROR", "CRITICAL", "FATAL"})
WARNING_LEVELS = frozenset({"WARNING", "WARN"})

Resolver = Callable[[int | None, str | None, int | None], int | None]


def naive_utc(ts: datetime) -> datetime:
    """Make timestamps comparable: aware values become naive UTC, naive ones stay as logged."""
    if ts.tzinfo is None:
        return ts
    return ts.astimezone(timezone.utc).replace(tzinfo=None)


def rank_resolver(diagnosis: Diagnosis) -> Resolver:
    """A ``(rank, host, pid) -> rank`` function that fills a missing rank from the process list."""
    known = {(p.host, p.pid): p.rank for p in diagnosis.processes if p.rank is not None}

    def resolve(rank: int | None, host: str | None, pid: int | None) -> int | None:
        if rank is None and pid is not None:
            return known.get((host, pid))
        return rank

    return resolve


def distinct_ranks(diagnosis: Diagnosis) -> tuple[int, ...]:
    """Every rank named by a process, an event or a piece of evidence, ascending."""
    resolve = rank_resolver(diagnosis)
    ranks = {p.rank for p in diagnosis.processes}
    ranks |= {resolve(e.rank, e.host, e.pid) for e in diagnosis.events}
    ranks |= {resolve(i.rank, i.host, i.pid) for f in diagnosis.findings for i in f.evidence}
    return tuple(sorted(r for r in ranks if r is not None))


def root_cause(diagnosis: Diagnosis) -> tuple[int, datetime, Finding] | None:
    """``(rank, ts, finding)`` of the earliest timestamped evidence among matched findings (a
    finding's own ``first_ts`` counts when it is scoped to one rank); None when unknown. When
    the cross-rank analysis names a suspect with a rank, only that rank's findings count
    (times aligned to the reference clock)."""
    resolve = rank_resolver(diagnosis)
    xr = diagnosis.crossrank
    suspect = next((s.rank for s in xr.root_cause.suspects if s.rank is not None
                    and s.present), None) \
        if xr is not None else None
    if suspect is None and xr is not None and any(a.failed for a in xr.attempts):
        return None  # the cross-rank verdict names no rank: no report may name one instead
    candidates = []
    for order, finding in enumerate(view.report_findings(diagnosis)):
        if finding.verdict is not Verdict.MATCH:
            continue
        if suspect is not None and suspect not in finding.scope.ranks:
            continue
        for item in finding.evidence:
            rank = resolve(item.rank, item.host, item.pid)
            ts = item.ts_aligned if item.ts_aligned is not None else item.ts
            if rank is not None and ts is not None and suspect in (None, rank):
                candidates.append((naive_utc(ts), rank, order, ts, finding))
        if finding.first_ts is not None and len(finding.scope.ranks) == 1 and xr is None:
            ts = finding.first_ts
            candidates.append((naive_utc(ts), finding.scope.ranks[0], order, ts, finding))
    if not candidates:
        return None
    _, rank, _, ts, finding = min(candidates, key=lambda c: c[:3])
    return rank, ts, finding


def first_errors(diagnosis: Diagnosis) -> dict[int, datetime]:
    """Each rank's earliest ERROR-level record (events table or matched-finding evidence)."""
    resolve = rank_resolver(diagnosis)
    def when(item) -> datetime | None:
        return item.ts_aligned if item.ts_aligned is not None else item.ts

    records = [(e.rank, e.host, e.pid, when(e), e.level) for e in diagnosis.events]
    records += [(i.rank, i.host, i.pid, when(i), i.level) for f in diagnosis.findings
                if f.verdict is Verdict.MATCH for i in f.evidence]
    firsts: dict[int, datetime] = {}
    for rank, host, pid, ts, level in records:
        rank = resolve(rank, host, pid)
        if rank is None or ts is None or (level or "").upper() not in ERROR_LEVELS:
            continue
        ts = naive_utc(ts)
        if rank not in firsts or ts < firsts[rank]:
            firsts[rank] = ts
    return firsts
