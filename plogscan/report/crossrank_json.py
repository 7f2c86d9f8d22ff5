"""The cross-rank sections of the JSON report: ``root_cause`` (with the wait graph it was read
off), ``clock``, ``attempts``, ``collectives``, ``config`` and ``missing`` (see
``plogscan/schema/report.schema.json``).

Every key is always present; lists are empty and identity fields null when the logs say
nothing. Confidences have two decimals. A report without cross-rank results (a diagnosis
built by hand) gets the empty sections, with verdict ``undetermined``.
"""

from __future__ import annotations

from plogscan.model import (
    AttemptReport,
    ClockReport,
    CollectiveMismatch,
    CrossRank,
    Diagnosis,
    Hop,
    Party,
    RootCause,
    Suspect,
    WaitGraph,
)
from plogscan.report.view import iso_ts

EMPTY = CrossRank(root_cause=RootCause("undetermined"), clock=ClockReport(None))


def sections(diagnosis: Diagnosis) -> dict:
    """The six cross-rank keys of the report, and ``attempts_omitted`` with
    ``failed_attempts_omitted`` when the attempts were more than a report lists."""
    xr = diagnosis.crossrank or EMPTY
    omitted = {"attempts_omitted": xr.attempts_omitted,
               "failed_attempts_omitted": xr.failed_attempts_omitted} \
        if xr.attempts_omitted else {}
    return {**omitted,
        "root_cause": root_cause(xr.root_cause),
        "clock": {
            "reference": xr.clock.reference,
            "offsets": [{"host": o.host, "offset_us": o.offset_us,
                         "uncertainty_us": o.uncertainty_us, "pairs": o.pairs,
                         "basis": o.basis, "applied": o.applied} for o in xr.clock.offsets],
            "flags": [{"host": f.host, "kind": f.kind, "detail": f.detail}
                      for f in xr.clock.flags],
        },
        "attempts": [_attempt(a) for a in xr.attempts],
        "collectives": {
            "communicators": [{"communicator": c.communicator, "ranks": list(c.ranks),
                               "collectives": c.collectives}
                              for c in xr.collectives.communicators],
            "first_mismatch": _mismatch(xr.collectives.first_mismatch),
        },
        "config": {
            "mismatches": [{"key": m.key, "values": [{"value": v.value, "ranks": list(v.ranks)}
                                                     for v in m.values]}
                           for m in xr.config.mismatches],
            "too_short": [{"key": t.key, "value_s": t.value_s, "gap_s": t.gap_s,
                           "ranks": list(t.ranks), "what": t.what}
                          for t in xr.config.too_short],
        },
        "missing": {"ranks": list(xr.missing.ranks), "hosts": list(xr.missing.hosts),
                    "advice": list(xr.missing.advice)},
    }


def root_cause(rc: RootCause) -> dict:
    return {
        "verdict": rc.verdict,
        "suspects": [_suspect(s) for s in rc.suspects],
        "victims": [party_dict(v) for v in rc.victims],
        "chain": [_hop(h) for h in rc.chain],
        "notes": list(rc.notes),
        "graph": _graph(rc.graph),
    }


def _suspect(s: Suspect) -> dict:
    return {
        "rank": s.rank, "host": s.host, "host_ip": s.host_ip, "device": s.device,
        "phy_device": s.phy_device, "pid": s.pid, "attempt": s.attempt,
        "communicator": s.communicator, "confidence": round(s.confidence, 2),
        "label": s.label, "end": s.end, "present": s.present, "device_ip": s.device_ip,
        "reasons": [{"signal": r.signal, "text": r.text,
                     "evidence": [{"path": e.path, "line": e.line} for e in r.evidence]}
                    for r in s.reasons],
    }


def _graph(g: WaitGraph) -> dict:
    return {
        "nodes": [{"id": n.id, "label": n.label, "present": n.present, "rank": n.rank,
                   "host": n.host, "device": n.device, "pid": n.pid, "ip": n.ip}
                  for n in g.nodes],
        "edges": [{"from": e.source, "to": e.target, "kind": e.kind, "followed": e.followed,
                   "evidence": {"path": e.evidence.path, "line": e.evidence.line}
                   if e.evidence is not None else None} for e in g.edges],
        "truncated": g.truncated,
    }


def party_dict(p: Party) -> dict:
    return {"rank": p.rank, "host": p.host, "device": p.device, "pid": p.pid, "label": p.label}


def _hop(h: Hop) -> dict:
    return {"rank": h.rank, "host": h.host, "device": h.device, "ip": h.ip, "label": h.label}


def _attempt(a: AttemptReport) -> dict:
    return {"id": a.id, "first_ts": iso_ts(a.first_ts), "last_ts": iso_ts(a.last_ts),
            "pids": list(a.pids), "hosts": list(a.hosts), "ranks": list(a.ranks),
            "failed": a.failed, "root_cause": root_cause(a.root_cause)}


def _mismatch(m: CollectiveMismatch | None) -> dict | None:
    if m is None:
        return None
    return {
        "communicator": m.communicator, "seq": m.seq, "kind": m.kind,
        "by_rank": {str(rank): (None if call is None else
                                {"op": call.op, "count": call.count, "dtype": call.dtype})
                    for rank, call in m.by_rank},
        "odd_ranks": list(m.odd_ranks),
    }
