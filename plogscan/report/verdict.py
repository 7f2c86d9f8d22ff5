"""The answer every report gives, worded once: the root incident, where it happened, and the
cross-rank verdict (suspects with their reasons, the wait chain, the victims, the missing ranks
and what to collect).

The terminal, Markdown and HTML reports render these values, so they name the same suspects
and the same chain as the JSON report, which carries ``Diagnosis.crossrank`` as data. Words are
in the diagnosis language; log text (labels, reasons) is returned as it is, for each reporter to
make safe for its own syntax.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from plogscan.model import Diagnosis, Finding, Incident, RootCause, Suspect, Verdict
from plogscan.report.i18n import count, signal_word, tr, verdict_word
from plogscan.report.view import complete, int_ranges

MAX_HOPS = 8  # a longer chain shows its first and last hops (the JSON report has them all)
MAX_VICTIMS_SHOWN = 16  # victims named in a report; the rest are counted


def party_name(label: str, rank: int | None, lang: str) -> str:
    """``worker-0 device-3 (rank 3)``; the label alone when it already names the rank
    (``worker-1 rank 1``) or the rank is unknown."""
    if rank is None or re.search(rf"\brank {rank}\b", label):
        return label
    return tr(lang, "{label} (rank {rank})", label=label, rank=rank)


@dataclass(frozen=True)
class SuspectView:
    name: str  # "worker-1 device-5 (rank 13)"
    label: str  # "worker-1 device-5": the analysis's label, as in the JSON report
    facts: tuple[str, ...]  # ("rank 13", "pid 53792", "confidence 0.80")
    reasons: tuple[tuple[str, str], ...]  # (signal in words, sentence)
    confidence: str


@dataclass(frozen=True)
class CrossRankVerdict:
    verdict: str  # localized | ambiguous | undetermined
    verdict_word: str
    suspects: tuple[SuspectView, ...]
    chain: tuple[str, ...]  # hop labels, the waiting rank first, the root last
    victims: tuple[str, ...]  # party names
    missing_ranks: tuple[int, ...]
    missing_hosts: tuple[str, ...]
    collect: tuple[str, ...]  # what to check or collect for the ranks the input lacks
    notes: tuple[str, ...]
    attempts: int


def _suspect(s: Suspect, lang: str) -> SuspectView:
    facts = []
    if s.rank is not None and party_name(s.label, s.rank, lang) != s.label:
        facts.append(tr(lang, "rank {ranks}", ranks=s.rank))
    if s.pid is not None:
        facts.append(tr(lang, "pid {pids}", pids=s.pid))
    confidence = f"{s.confidence:.2f}"
    facts.append(tr(lang, "confidence {value}", value=confidence))
    return SuspectView(party_name(s.label, s.rank, lang), s.label, tuple(facts),
                       tuple((signal_word(lang, r.signal), r.text) for r in s.reasons),
                       confidence)


def crossrank_verdict(diagnosis: Diagnosis) -> CrossRankVerdict | None:
    """The cross-rank verdict of the diagnosis, or None when no attempt failed (or the
    analysis did not run)."""
    xr = diagnosis.crossrank
    if xr is None or not any(a.failed for a in xr.attempts):
        return None
    lang = diagnosis.lang
    rc = xr.root_cause
    return CrossRankVerdict(
        verdict=rc.verdict, verdict_word=verdict_word(lang, rc.verdict),
        suspects=tuple(_suspect(s, lang) for s in rc.suspects),
        chain=tuple(h.label for h in rc.chain),
        victims=tuple(party_name(v.label, v.rank, lang) for v in rc.victims),
        missing_ranks=xr.missing.ranks, missing_hosts=xr.missing.hosts,
        collect=xr.missing.advice, notes=rc.notes, attempts=len(xr.attempts))


def chain_text(chain: Sequence[str], lang: str) -> str:
    """``a → b → c``; past ``MAX_HOPS`` the first and last three hops and a count."""
    labels = list(chain)
    if len(labels) > MAX_HOPS:
        skipped = len(labels) - 6
        labels = [*labels[:3], tr(lang, "… {n} more hops …", n=skipped), *labels[-3:]]
    return " → ".join(labels)


def waited_text(n: int, lang: str) -> str:
    """``1 rank only waited`` / ``15 ranks only waited``."""
    return count(lang, n, "{n} rank only waited", "{n} ranks only waited")


def attempt_root_cause(diagnosis: Diagnosis, incident: Incident) -> RootCause | None:
    """The root cause of the attempt an incident belongs to (the top-level one by default)."""
    xr = diagnosis.crossrank
    if xr is None:
        return None
    for attempt in xr.attempts:
        if attempt.id == incident.attempt:
            return attempt.root_cause
    return xr.root_cause


def incident_suspect(root_cause: RootCause | None, members: Sequence[Finding]
                     ) -> Suspect | None:
    """The attempt's first suspect when the incident holds a finding about it."""
    if root_cause is None or not root_cause.suspects:
        return None
    suspect = root_cause.suspects[0]
    if not suspect.present:  # a peer outside the input has no findings
        return None
    for finding in members:
        if suspect.pid is not None and suspect.pid in finding.scope.pids:
            return suspect
        if suspect.rank is not None and suspect.rank in finding.scope.ranks and (
                not finding.scope.hosts or suspect.host in finding.scope.hosts):
            return suspect
    return None


def where_parts(ranks: Sequence[int], devices: Sequence[int], hosts: Sequence[str],
                pids: Sequence[int], lang: str, max_hosts: int = 3) -> list[str]:
    """``ranks 0–3``, ``device 1``, ``hosts a, b``, and the pids when no rank is known."""
    parts = []
    if ranks:
        parts.append(tr(lang, "ranks {ranks}" if len(ranks) > 1 else "rank {ranks}",
                        ranks=int_ranges(ranks)))
    if devices:
        parts.append(tr(lang, "devices {devices}" if len(devices) > 1 else "device {devices}",
                        devices=int_ranges(devices)))
    if hosts:
        shown = ", ".join(hosts[:max_hosts])
        more = tr(lang, " and {n} more", n=len(hosts) - max_hosts) \
            if len(hosts) > max_hosts else ""
        parts.append(tr(lang, "hosts {hosts}" if len(hosts) > 1 else "host {hosts}",
                        hosts=shown + more))
    if not ranks and pids:
        parts.append(tr(lang, "pids {pids}" if len(pids) > 1 else "pid {pids}",
                        pids=int_ranges(pids)))
    return parts


@dataclass(frozen=True)
class Answer:
    """The root incident and where it happened, for a report's first or last line."""

    incident: Incident
    root: Finding
    where: str  # "root cause worker-1 device-5 (rank 13)" or "rank 0 · device 0"
    checked: bool  # False: the root finding could not be evaluated


def answer(diagnosis: Diagnosis) -> Answer | None:
    """The first incident (the one to fix first) and where it is; None without findings."""
    diagnosis = complete(diagnosis)
    if not diagnosis.incidents:
        return None
    lang = diagnosis.lang
    incident = diagnosis.incidents[0]
    by_id = {f.id: f for f in diagnosis.findings}
    root = by_id[incident.root]
    members = [by_id[i] for i in incident.members]
    root_cause = attempt_root_cause(diagnosis, incident)
    suspect = incident_suspect(root_cause, members)
    if suspect is None and root_cause is not None and root_cause.suspects:
        suspect = root_cause.suspects[0]  # the rank the job waited for: a silent one, say
    if suspect is not None and root_cause is not None:
        where = tr(lang, "root cause {who} · {verdict}",
                   who=party_name(suspect.label, suspect.rank, lang),
                   verdict=verdict_word(lang, root_cause.verdict))
    else:
        scope = incident.scope
        where = " · ".join(where_parts(scope.ranks, scope.devices, scope.hosts, scope.pids,
                                       lang))
        if root_cause is not None and root_cause.verdict == "undetermined" and \
                diagnosis.crossrank is not None and \
                any(a.failed for a in diagnosis.crossrank.attempts):
            undetermined = tr(lang, "root cause {verdict}",
                              verdict=verdict_word(lang, "undetermined"))
            where = " · ".join(p for p in (where, undetermined) if p)
    return Answer(incident, root, where, root.verdict is not Verdict.NOT_EVALUABLE)
