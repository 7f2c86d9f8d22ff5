"""Findings and what they are made of: levels, verdicts, evidence records, scopes, and the one
order of findings (each after the findings that explain it)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import Enum


class Level(str, Enum):
    """Severity of a rule and its findings; ordered for ``--fail-on``."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"
    CRITICAL = "critical"

    @property
    def rank(self) -> int:
        return _LEVEL_RANK[self]


_LEVEL_RANK = {Level.INFO: 0, Level.WARNING: 1, Level.ERROR: 2, Level.CRITICAL: 3}


class Verdict(str, Enum):
    """Whether a rule matched, or could not be checked for lack of evidence."""

    MATCH = "match"
    NOT_EVALUABLE = "not_evaluable"


@dataclass(frozen=True)
class Evidence:
    """One log record that supports a finding."""

    path: str
    line: int
    ts: datetime | None
    message: str
    step: str  # the rule step it filled ("match" for single-event rules)
    level: str | None = None
    module: str | None = None
    pid: int | None = None
    rank: int | None = None
    host: str | None = None
    device: int | None = None
    line_count: int = 1
    # Neighbouring records of the same file, for --verbose and the HTML report:
    # (line, text) pairs before and after this record, in file order.
    context_before: tuple[tuple[int, str], ...] = ()
    context_after: tuple[tuple[int, str], ...] = ()
    ts_aligned: datetime | None = None  # ts on the reference host's clock (crossrank.clock)


@dataclass(frozen=True)
class EventRow:
    """A log record shown outside a finding (HTML events table, timelines): ERROR/WARNING
    records and the records that are evidence of a finding."""

    ts: datetime | None
    level: str | None
    module: str | None
    pid: int | None
    rank: int | None
    host: str | None
    device: int | None
    kind: str
    path: str
    line: int
    message: str
    codes: tuple[str, ...] = ()
    ts_aligned: datetime | None = None  # ts on the reference host's clock (crossrank.clock)


@dataclass(frozen=True)
class Scope:
    """Where a finding happened. ``identity`` says where its ranks, devices and hosts came
    from: ``content`` (the logs say so), ``path`` (the directory names do), ``assumed`` (a file
    with no process identity stood in for one process), or None when nothing is known."""

    hosts: tuple[str, ...] = ()
    ranks: tuple[int, ...] = ()
    pids: tuple[int, ...] = ()
    devices: tuple[int, ...] = ()
    identity: str | None = None


@dataclass(frozen=True)
class Finding:
    """A rule's conclusion about one group of events (one process, one communicator...)."""

    fingerprint: str
    rule: str  # stable id, e.g. "CCU001"
    name: str  # dotted name, e.g. "ccu.context-reuse-then-mc2-fault"
    title: str
    category: str
    level: Level
    verdict: Verdict
    description: str
    scope: Scope
    first_ts: datetime | None
    last_ts: datetime | None
    evidence: tuple[Evidence, ...]
    remediation: tuple[str, ...]
    references: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()  # for NOT_EVALUABLE: what evidence is missing and how to get it
    captures: tuple[tuple[str, str], ...] = ()  # named regex captures, sorted by name
    # "root-cause" | "fallback" (a reading of a record by a general mechanism, such as its
    # documented code) | "symptom" (a wrapper or downstream effect)
    role: str = "root-cause"
    links: tuple[str, ...] = ()  # ids of related rules (a symptom names its likely root causes)
    # What the cross-rank analysis says of the ranks this finding is about: "root-cause",
    # "victim", or None where it says nothing (``role`` keeps the rule's own meaning).
    rank_role: str | None = None
    attempt: int | None = None  # the run of the job it belongs to (crossrank.attempts)
    explains: tuple[str, ...] = ()  # ids of rules whose findings are consequences of this one
    # Unique within a report and stable across reruns of the same input (``CCU001-2``: the
    # rule's second finding in report order); set with the incidents. Fingerprints repeat when
    # one failure occurs in several processes, so they cannot serve.
    id: str = ""


ROLE_RANK = {"root-cause": 0, "fallback": 1, "symptom": 2}


def finding_order(f: Finding) -> tuple:
    """The order of findings that ``order_findings`` refines: level (critical first), root
    causes before symptoms, matches before not_evaluable, earliest first timestamp (unknown
    last), rule id, fingerprint, then the first evidence record's path and line."""
    first = f.evidence[0] if f.evidence else None
    return (
        -f.level.rank, ROLE_RANK.get(f.role, 0), f.verdict is not Verdict.MATCH,
        f.first_ts is None, f.first_ts or datetime.min, f.rule, f.fingerprint,
        first.path if first else "", first.line if first else 0,
    )


def explainers(findings: Iterable[Finding]) -> dict[str, set[str]]:
    """Rule id -> the ids of the rules of ``findings`` that explain its findings: a present
    rule that lists it in ``explains``, and for a symptom the present rules its ``links``
    name."""
    findings = list(findings)
    present = {f.rule for f in findings}
    out: dict[str, set[str]] = {}
    for f in findings:
        for rid in f.explains:
            if rid in present and rid != f.rule:
                out.setdefault(rid, set()).add(f.rule)
        if f.role == "symptom":
            for rid in f.links:
                if rid in present and rid != f.rule:
                    out.setdefault(f.rule, set()).add(rid)
    return out


def order_findings(findings: Iterable[Finding]) -> list[Finding]:
    """The one order of findings everywhere (engine output and every report); the first is the
    top finding. ``finding_order`` (level, role, time...), except that a finding comes after
    every finding that explains it (see ``explainers``): before a finding is placed, the
    findings of the rules that explain it are, in their own order, so the root of a chain is
    on top whatever the levels. Rules that explain each other in a circle (``rules check``
    rejects them) fall back to ``finding_order``."""
    base = sorted(findings, key=finding_order)
    causes = explainers(base)
    if not causes:
        return base
    first: dict[str, int] = {}
    by_rule: dict[str, list[Finding]] = {}
    for index, f in enumerate(base):
        first.setdefault(f.rule, index)
        by_rule.setdefault(f.rule, []).append(f)
    placed: set[int] = set()
    placing: set[str] = set()  # rules whose causes are being placed (guards a circle)
    out: list[Finding] = []

    def place(f: Finding) -> None:
        if id(f) in placed:
            return
        if f.rule not in placing:
            placing.add(f.rule)
            for cause in sorted(causes.get(f.rule, ()), key=first.__getitem__):
                for g in by_rule[cause]:
                    place(g)
            placing.discard(f.rule)
        if id(f) not in placed:
            placed.add(id(f))
            out.append(f)

    for f in base:
        place(f)
    return out
