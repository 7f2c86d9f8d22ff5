"""What every reporter derives from a ``Diagnosis`` the same way: order, counts, verdict, times.

Keeping these in one place makes the text, Markdown, JSON, SARIF and JUnit reports agree on
which finding is "top", what the verdict line says and how a time or a duration is written.
Baseline results travel in ``Diagnosis.baseline`` (see ``plogscan.baseline``); the accessors
here are its only readers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from datetime import datetime

from plogscan.incidents import with_incidents
from plogscan.model import (
    Diagnosis,
    Evidence,
    Finding,
    Level,
    Scope,
    Verdict,
    finding_order,
    order_findings,
)
from plogscan.report.i18n import count, level_word, listing, tr

LEVELS_DESC = (Level.CRITICAL, Level.ERROR, Level.WARNING, Level.INFO)


def finding_key(finding: Finding) -> tuple:
    """Sort key of report order among findings that explain none of each other:
    ``model.finding_order``."""
    return finding_order(finding)


def complete(diagnosis: Diagnosis) -> Diagnosis:
    """``diagnosis`` with its incidents: as the pipeline made it, or folded here when it has
    findings but no incidents (a diagnosis built by hand, a report of an older run)."""
    if diagnosis.incidents or not diagnosis.findings:
        return diagnosis
    return with_incidents(diagnosis)


def report_findings(diagnosis: Diagnosis) -> list[Finding]:
    """The findings in report order: incident by incident, each root first (the first is the
    top finding)."""
    return list(complete(diagnosis).findings)


def ordered_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Findings in report order, ``model.order_findings`` (the engine uses the same one):
    ``finding_key``, each finding after the findings that explain it. The first is the top
    finding."""
    return order_findings(findings)


def suppressed(diagnosis: Diagnosis) -> list[Finding]:
    """Findings a baseline suppressed, in report order (empty without ``--baseline``)."""
    outcome = diagnosis.baseline
    return ordered_findings(outcome.suppressed) if outcome is not None else []


def suppression_reason(diagnosis: Diagnosis, fingerprint: str) -> str | None:
    """The reason the baseline entry gave for suppressing this fingerprint, if any."""
    outcome = diagnosis.baseline
    reason = outcome.suppressed_reasons.get(fingerprint) if outcome is not None else None
    return reason or None


def expired_entries(diagnosis: Diagnosis) -> list[dict[str, str | None]]:
    """Baseline entries past their expiry date (they no longer suppress anything)."""
    outcome = diagnosis.baseline
    entries = [dataclasses.asdict(e) for e in outcome.expired] if outcome is not None else []
    return sorted(entries, key=lambda e: (str(e["expires"] or ""), str(e["fingerprint"] or "")))


def counts_by_level(findings: Iterable[Finding]) -> dict[str, int]:
    """Number of findings per level, every level present (zeros included)."""
    counts = {level.value: 0 for level in Level}
    for finding in findings:
        counts[finding.level.value] += 1
    return counts


def counts_by_verdict(findings: Iterable[Finding]) -> dict[str, int]:
    """Number of findings per verdict, every verdict present (zeros included)."""
    counts = {verdict.value: 0 for verdict in Verdict}
    for finding in findings:
        counts[finding.verdict.value] += 1
    return counts


def verdict_line(diagnosis: Diagnosis) -> str:
    """One sentence: FAIL/PASS, the counts by level, the ``--fail-on`` threshold, the exit code
    (in the diagnosis language)."""
    lang = diagnosis.lang
    counts = counts_by_level(diagnosis.findings)
    parts = [tr(lang, "{n} {level}", n=counts[lv.value], level=level_word(lang, lv))
             for lv in LEVELS_DESC if counts[lv.value]]
    not_evaluable = counts_by_verdict(diagnosis.findings)[Verdict.NOT_EVALUABLE.value]
    what = listing(lang, parts) if parts else tr(lang, "no findings")
    if not_evaluable:
        what += tr(lang, " ({n} not evaluable)", n=not_evaluable)
    word = "FAIL" if diagnosis.exit_code == 1 else "ERROR" if diagnosis.exit_code >= 2 else "PASS"
    line = tr(lang, "{word}: {what}; --fail-on {fail_on}, exit code {code}", word=tr(lang, word),
              what=what, fail_on=diagnosis.fail_on, code=diagnosis.exit_code)
    errors = len(diagnosis.inputs.errors)
    if errors:
        line += count(lang, errors, " ({n} named path could not be read)",
                      " ({n} named paths could not be read)")
    return line


def fmt_ts(ts: datetime | None) -> str:
    """A timestamp for people: ``2026-03-18 10:33:51.120345`` (``-`` when unknown)."""
    if ts is None:
        return "-"
    return ts.isoformat(sep=" ", timespec="microseconds")


def iso_ts(ts: datetime | None) -> str | None:
    """A timestamp for machines: ISO 8601 with microseconds, or None."""
    return None if ts is None else ts.isoformat(timespec="microseconds")


def seconds_between(first: datetime | None, last: datetime | None) -> float | None:
    """``last - first`` in seconds, rounded to microseconds; None when either is unknown."""
    if first is None or last is None:
        return None
    try:
        return round((last - first).total_seconds(), 6)
    except TypeError:  # naive vs aware timestamps: not comparable, say nothing
        return None


def fmt_duration(seconds: float | None, *, signed: bool = False) -> str:
    """A duration in the unit a person reads best: ``850 µs``, ``12.345 ms``, ``2m05s``."""
    if seconds is None:
        return "?"
    sign = ("+" if seconds >= 0 else "-") if signed else ("-" if seconds < 0 else "")
    value = abs(seconds)
    if value < 1e-3:
        body = f"{round(value * 1e6)} µs"
    elif value < 1:
        body = f"{value * 1e3:.3f} ms"
    elif value < 120:
        body = f"{value:.3f} s"
    elif value < 7200:
        body = f"{int(value // 60)}m{int(value % 60):02d}s"
    else:
        body = f"{int(value // 3600)}h{int(value % 3600 // 60):02d}m"
    return sign + body


def step_deltas(evidence: Sequence[Evidence]) -> list[float | None]:
    """For each evidence record, the time since the previous timestamped one (None at first)."""
    deltas: list[float | None] = []
    previous: datetime | None = None
    for item in evidence:
        deltas.append(seconds_between(previous, item.ts) if previous and item.ts else None)
        if item.ts is not None:
            previous = item.ts
    return deltas


MAX_EVIDENCE_CHARS = 2000  # of one evidence message in the text and JUnit reports


def clip(text: str, limit: int = MAX_EVIDENCE_CHARS, lang: str = "en") -> str:
    """``text`` cut to ``limit`` characters, saying how many were left out: a record that
    swallowed a megabyte-long line must not turn a report into a megabyte of that line."""
    if len(text) <= limit:
        return text
    return text[:limit] + tr(lang, "… [{n} more characters]", n=len(text) - limit)


def int_ranges(values: Iterable[int]) -> str:
    """``0–3, 5, 7–8``: sorted distinct integers, runs of three or more as ranges."""
    ordered = sorted(set(values))
    parts: list[str] = []
    start = 0
    for i in range(1, len(ordered) + 1):
        if i == len(ordered) or ordered[i] != ordered[i - 1] + 1:
            run = ordered[start:i]
            if len(run) >= 3:
                parts.append(f"{run[0]}–{run[-1]}")
            else:
                parts += [str(v) for v in run]
            start = i
    return ", ".join(parts)


def join_ints(values: Iterable[int]) -> str:
    return ",".join(str(v) for v in values)


def scope_parts(scope: Scope, lang: str = "en") -> list[str]:
    """``["ranks 0,1", "pids 4101,4102", "hosts node-a", "devices 0,1"]``, empty parts left out
    (the words in ``lang``)."""
    parts = []
    for one, many, values in (
        ("rank {ranks}", "ranks {ranks}", [str(v) for v in scope.ranks]),
        ("pid {pids}", "pids {pids}", [str(v) for v in scope.pids]),
        ("host {hosts}", "hosts {hosts}", list(scope.hosts)),
        ("device {devices}", "devices {devices}", [str(v) for v in scope.devices]),
    ):
        if values:
            name = one.split()[0] + "s"
            parts.append(tr(lang, many if len(values) > 1 else one, **{name: ",".join(values)}))
    return parts


def time_span(diagnosis: Diagnosis) -> tuple[datetime | None, datetime | None]:
    """First and last timestamp seen, from the process list, else the events and evidence."""
    stamps = [p.first_ts for p in diagnosis.processes if p.first_ts is not None]
    stamps += [p.last_ts for p in diagnosis.processes if p.last_ts is not None]
    if not stamps:
        stamps = [e.ts for e in diagnosis.events if e.ts is not None]
        stamps += [ev.ts for f in diagnosis.findings for ev in f.evidence if ev.ts is not None]
    try:
        return (min(stamps), max(stamps)) if stamps else (None, None)
    except TypeError:  # mixed naive/aware timestamps
        return (None, None)
