"""Collective alignment from plogs alone: each communicator's sequence of collectives per
rank, aligned by sequence number (not by clock), and the first place the ranks diverge.

The entry logs (``Entry-Hccl<Op>: tag[...], count[...], dataType[...]``, written with
``HCCL_ENTRY_LOG_ENABLE=1``) number each rank's collectives on a communicator 1, 2, ...;
collective ``seq`` on one rank is the same collective as ``seq`` on every other rank, as
Flight Recorder numbers them. The summary keeps, per rank and communicator, the first and the
last entries (a rolling window) and the total count, which is enough to see where a hang
started: the first sequence number where the ranks entered different operations, different
counts or data types, or where some rank never arrived.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from plogscan.crossrank.identity import Identities, ProcessKey
from plogscan.crossrank.summary import Entry, Summary
from plogscan.model import (
    CollectiveCall,
    CollectiveMismatch,
    CollectivesReport,
    CommunicatorSequence,
)


@dataclass(frozen=True)
class Divergence:
    """The first mismatch as the report states it, and the processes behind its odd ranks."""

    mismatch: CollectiveMismatch
    keys: tuple[ProcessKey, ...]  # the processes of the odd ranks
    evidence: tuple[tuple[str, int], ...]  # (path, line) of the odd ranks' entries, or last ones
    others: tuple[ProcessKey, ...] = ()  # the processes that entered it


@dataclass(frozen=True)
class Alignment:
    report: CollectivesReport
    first: Divergence | None


def align(summary: Summary, ids: Identities, members: frozenset[ProcessKey]) -> Alignment:
    """The sequences of the processes in ``members`` (one attempt) and their first divergence."""
    per: dict[str, dict[ProcessKey, dict[int, Entry]]] = {}
    counts: dict[str, dict[ProcessKey, int]] = {}
    for e in summary.entries:
        key = ids.of_stream.get(e.stream)
        if key in members:
            per.setdefault(e.comm, {}).setdefault(key, {})[e.seq] = e  # type: ignore[index]
    for stream, comm, count in summary.entry_counts:
        key = ids.of_stream.get(stream)
        if key in members:
            bucket = counts.setdefault(comm, {})
            bucket[key] = bucket.get(key, 0) + count  # type: ignore[index]
    sequences = []
    first: Divergence | None = None
    for comm in sorted(counts):
        ranks = {k: _rank(ids, k, comm) for k in counts[comm]}
        known = sorted(r for r in ranks.values() if r is not None)
        sequences.append(CommunicatorSequence(comm, tuple(known), max(counts[comm].values())))
        found = _divergence(comm, per.get(comm, {}), counts[comm], ranks)
        if found is not None and (first is None or _earlier(found, first)):
            first = found
    return Alignment(CollectivesReport(tuple(sequences),
                                       first.mismatch if first is not None else None), first)


def _rank(ids: Identities, key: ProcessKey, comm: str) -> int | None:
    ident = ids.processes.get(key)
    if ident is None:
        return None
    inside = ident.rank_in(comm)
    return inside if inside is not None else ident.rank


def _earlier(a: Divergence, b: Divergence) -> bool:
    return (a.mismatch.seq, a.mismatch.communicator) < (b.mismatch.seq, b.mismatch.communicator)


def _divergence(comm: str, entries: dict[ProcessKey, dict[int, Entry]],
                counts: dict[ProcessKey, int], ranks: dict[ProcessKey, int | None]
                ) -> Divergence | None:
    keys = sorted(counts, key=lambda k: (ranks[k] is None, ranks[k] or 0, k))
    if len(keys) < 2:
        return None
    top = max(counts.values())
    seqs = sorted({s for by_seq in entries.values() for s in by_seq} | {min(counts.values()) + 1})
    for seq in seqs:
        if seq > top:
            break
        values: dict[ProcessKey, tuple[str, int | None, str | None] | None] = {}
        comparable = True
        for k in keys:
            e = entries.get(k, {}).get(seq)
            if e is not None:
                values[k] = (e.op, e.count, e.dtype)
            elif counts[k] < seq:
                values[k] = None  # never got there
            else:
                comparable = False  # entered, but not in the kept sample
                break
        if not comparable:
            continue
        kind, odd = _odd(values)
        if kind is None:
            continue
        evidence = []
        for k in odd:
            e = entries.get(k, {}).get(seq)
            if e is None and entries.get(k):
                e = entries[k][max(entries[k])]
            if e is not None:
                evidence.append((e.stream.path, e.line))
        mismatch = CollectiveMismatch(
            comm, seq, kind,
            tuple((ranks[k] if ranks[k] is not None else -1,
                   CollectiveCall(*values[k]) if values[k] is not None else None)
                  for k in keys),
            tuple(sorted(r for k in odd if (r := ranks[k]) is not None)))
        return Divergence(mismatch, tuple(odd), tuple(evidence),
                          tuple(k for k in keys if k not in odd and values[k] is not None))
    return None


def _odd(values: dict[ProcessKey, tuple | None]) -> tuple[str | None, list[ProcessKey]]:
    """The kind of divergence among the ranks' values and the ranks in the minority."""
    missing = [k for k, v in values.items() if v is None]
    if missing:
        return "missing", missing
    for index, kind in ((0, "op"), (1, "count"), (2, "dtype")):
        seen = Counter(v[index] for v in values.values() if v is not None)  # type: ignore[index]
        if len(seen) > 1:
            common = seen.most_common(1)[0][0]
            if list(seen.values()).count(seen[common]) > 1:  # a tie: everyone is odd
                return kind, sorted(values)
            return kind, [k for k, v in values.items() if v is not None and v[index] != common]
    return None, []
