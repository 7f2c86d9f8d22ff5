"""The shared vocabulary handed from the engine to the reporters: frozen dataclasses, no I/O.

Reporters see these values only, never the parser or the event table.

Long module: it is the whole hand-off between the analysis stages and every reporter (findings
and their order, the ingest accounting, and the cross-rank results: root cause, clock,
attempts, collectives, settings, missing ranks). Keeping the vocabulary in one module keeps it
one layer that nothing below the reports has to import twice; it holds declarations only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
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
    role: str = "root-cause"  # "root-cause" | "symptom" (a wrapper or downstream effect)
    links: tuple[str, ...] = ()  # ids of related rules (a symptom names its likely root causes)
    # What the cross-rank analysis says of the ranks this finding is about: "root-cause",
    # "victim", or None where it says nothing (``role`` keeps the rule's own meaning).
    rank_role: str | None = None
    attempt: int | None = None  # the run of the job it belongs to (crossrank.attempts)
    explains: tuple[str, ...] = ()  # ids of rules whose findings are consequences of this one


ROLE_RANK = {"root-cause": 0, "symptom": 1}


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


@dataclass(frozen=True)
class SkippedFile:
    path: str
    reason: str


@dataclass(frozen=True)
class FileStats:
    """What ingest saw in one file: every physical line is accounted for here."""

    path: str
    kind: str
    bytes: int = 0
    lines: int = 0
    records: int = 0
    record_lines: int = 0  # physical lines covered by records (a line holding two glued
    # records counts once, so sum(line_count) may exceed it by the number of glued lines)
    blank_lines: int = 0
    unparsed_lines: int = 0  # lines kept as records with a null level
    decode_errors: int = 0  # invalid UTF-8 sequences replaced
    nul_bytes: int = 0
    truncated_lines: int = 0  # physical lines of 1022+ characters
    invalid_timestamps: int = 0
    epoch_clock_records: int = 0
    problems: tuple[str, ...] = ()  # e.g. "gzip stream truncated after 1234 bytes"
    encoding: str = "utf-8"  # what the bytes were decoded from: utf-8, gbk, utf-16-le...


@dataclass(frozen=True)
class LimitHit:
    """A limit that bit: which one (``limit``, its ``option`` and ``value``), on which input,
    and what was not read because of it (``detail``)."""

    limit: str
    option: str
    value: int
    path: str
    detail: str


@dataclass(frozen=True)
class IngestSummary:
    """The ``inputs`` section of every report."""

    paths: tuple[str, ...]
    files: tuple[FileStats, ...]
    skipped: tuple[SkippedFile, ...]
    limits: tuple[LimitHit, ...] = ()  # every limit that bit, in input order

    @property
    def lines(self) -> int:
        return sum(f.lines for f in self.files)

    @property
    def records(self) -> int:
        return sum(f.records for f in self.files)

    @property
    def unparsed_lines(self) -> int:
        return sum(f.unparsed_lines for f in self.files)


@dataclass(frozen=True)
class Diagnosis:
    """Everything ``diagnose`` concluded: the input to every reporter."""

    inputs: IngestSummary
    findings: tuple[Finding, ...]
    rules_evaluated: tuple[RuleInfo, ...] = ()  # every rule that ran, sorted by id
    processes: tuple[ProcessInfo, ...] = ()
    events: tuple[EventRow, ...] = ()  # ERROR/WARNING + evidence records, (ts, path, line) order
    events_truncated: bool = False  # True when more events existed than were kept
    exit_code: int = 0  # what the CLI will exit with for the chosen --fail-on
    fail_on: str = "error"
    extra: dict[str, object] = field(default_factory=dict)
    lang: str = "en"  # language of the rule texts and of the reports' fixed words
    crossrank: CrossRank | None = None  # who failed first, who waited, clocks, attempts


@dataclass(frozen=True)
class RuleInfo:
    """Rule metadata reporters need (SARIF rule descriptors, JUnit test cases)."""

    id: str
    name: str
    title: str
    category: str
    level: Level
    description: str
    remediation: tuple[str, ...] = ()
    references: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProcessInfo:
    """One process seen in the logs: who it is and which log levels it wrote."""

    host: str | None
    pid: int
    rank: int | None
    device: int | None
    levels: tuple[str, ...]
    first_ts: datetime | None
    last_ts: datetime | None


# --------------------------------------------------------------------------- cross-rank
# What ``plogscan.crossrank`` concluded about the ranks together. Identity fields may be None
# where the logs do not say; ``host`` is the tree's name for a host (``worker-1``), else its IP.


@dataclass(frozen=True)
class EvidenceRef:
    path: str
    line: int


@dataclass(frozen=True)
class SuspectReason:
    signal: str  # error-vs-timeout, earliest-error, heartbeat, wait-chain, cycle, ...
    text: str
    evidence: tuple[EvidenceRef, ...] = ()


@dataclass(frozen=True)
class Suspect:
    rank: int | None
    host: str | None
    host_ip: str | None
    device: int | None  # logical id
    phy_device: int | None
    pid: int | None  # host process id
    attempt: int | None
    communicator: str | None
    confidence: float  # 0..1, two decimals
    reasons: tuple[SuspectReason, ...]
    label: str  # "worker-1 device-3" (physical id when logged)


@dataclass(frozen=True)
class Party:
    """A rank the analysis names without suspecting it (a victim)."""

    rank: int | None
    host: str | None
    device: int | None
    pid: int | None
    label: str


@dataclass(frozen=True)
class Hop:
    """One step of a wait chain; a peer the input does not contain carries only its IP."""

    rank: int | None
    host: str | None
    device: int | None
    ip: str | None
    label: str


@dataclass(frozen=True)
class RootCause:
    verdict: str  # localized | ambiguous | undetermined
    suspects: tuple[Suspect, ...] = ()
    victims: tuple[Party, ...] = ()
    chain: tuple[Hop, ...] = ()  # victim first, root last; a cycle repeats its first hop
    notes: tuple[str, ...] = ()  # what the analysis could not place


@dataclass(frozen=True)
class ClockOffset:
    host: str
    offset_us: int  # host clock minus reference clock
    uncertainty_us: int
    pairs: int
    basis: str  # rendezvous | collective-entry | heartbeat | override


@dataclass(frozen=True)
class ClockFlag:
    host: str
    kind: str  # epoch-1970 | offset-exceeds-timeout
    detail: str


@dataclass(frozen=True)
class ClockReport:
    reference: str | None
    offsets: tuple[ClockOffset, ...] = ()
    flags: tuple[ClockFlag, ...] = ()


@dataclass(frozen=True)
class AttemptReport:
    id: int
    first_ts: datetime | None  # aligned
    last_ts: datetime | None
    pids: tuple[int, ...]
    hosts: tuple[str, ...]
    ranks: tuple[int, ...]
    root_cause: RootCause
    failed: bool


@dataclass(frozen=True)
class CollectiveCall:
    op: str
    count: int | None
    dtype: str | None


@dataclass(frozen=True)
class CommunicatorSequence:
    communicator: str
    ranks: tuple[int, ...]
    collectives: int


@dataclass(frozen=True)
class CollectiveMismatch:
    communicator: str
    seq: int  # counts the communicator's collectives from 1
    kind: str  # op | count | dtype | missing
    by_rank: tuple[tuple[int, CollectiveCall | None], ...]
    odd_ranks: tuple[int, ...]


@dataclass(frozen=True)
class CollectivesReport:
    communicators: tuple[CommunicatorSequence, ...] = ()
    first_mismatch: CollectiveMismatch | None = None


@dataclass(frozen=True)
class SettingValue:
    value: str
    ranks: tuple[int, ...]


@dataclass(frozen=True)
class SettingMismatch:
    key: str
    values: tuple[SettingValue, ...]


@dataclass(frozen=True)
class ShortTimeout:
    key: str
    value_s: float
    gap_s: float
    ranks: tuple[int, ...]
    what: str


@dataclass(frozen=True)
class ConfigReport:
    mismatches: tuple[SettingMismatch, ...] = ()
    too_short: tuple[ShortTimeout, ...] = ()


@dataclass(frozen=True)
class MissingReport:
    ranks: tuple[int, ...] = ()
    hosts: tuple[str, ...] = ()
    advice: tuple[str, ...] = ()


@dataclass(frozen=True)
class CrossRank:
    root_cause: RootCause
    clock: ClockReport
    attempts: tuple[AttemptReport, ...] = ()
    collectives: CollectivesReport = CollectivesReport()
    config: ConfigReport = ConfigReport()
    missing: MissingReport = MissingReport()
