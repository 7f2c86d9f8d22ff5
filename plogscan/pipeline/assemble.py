"""After the pass: the findings placed on the reference clock, the unreadable inputs as a
finding, the events table, the codes in the evidence, and the whole ``Diagnosis``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from plogscan.analysis import unreadable
from plogscan.analysis.unexplained import RankOf
from plogscan.baseline import exit_code_for
from plogscan.catalog.describe import as_written
from plogscan.catalog.rule import RuleSet
from plogscan.codes import describe
from plogscan.crossrank.analyze import Context
from plogscan.incidents import with_incidents
from plogscan.ingest.limits import LimitHit, Limits
from plogscan.model import (
    CacheUse,
    CrossRank,
    Diagnosis,
    EventRow,
    Finding,
    IngestSummary,
    RuleInfo,
)
from plogscan.parse.codescan import codes_in
from plogscan.pipeline.passes import Passes


def exit_code(findings: Sequence[Finding], fail_on: str, inputs: IngestSummary | None = None
              ) -> int:
    """2 when a path named on the command line could not be read (``inputs.errors``: the run
    is incomplete, whatever ``fail_on`` says), else 1 when a finding is at or above
    ``fail_on`` (see ``baseline.exit_code_for``)."""
    if inputs is not None and inputs.errors:
        return 2
    return exit_code_for(tuple(findings), fail_on)


def rule_infos(rules: RuleSet) -> tuple[RuleInfo, ...]:
    return tuple(RuleInfo(id=r.id, name=r.name, title=r.title, category=r.category,
                          level=r.level, description=as_written(r.description),
                          remediation=tuple(r.remediation), references=tuple(r.references))
                 for r in sorted(rules, key=lambda r: r.id))


def evidence_codes(findings: Sequence[Finding], lang: str = "en") -> dict[str, str | None]:
    """Every code in the findings' evidence with its one-line meaning in ``lang`` (None when
    unknown)."""
    found: dict[str, str | None] = {}
    for f in findings:
        for ev in f.evidence:
            for code in codes_in(ev.message):
                if code not in found:
                    found[code] = describe(code, lang)
    return dict(sorted(found.items()))


def findings_capped(limits: Limits, rule: str, matched: int, kept: int) -> LimitHit:
    """The limit hit of a rule without ``by`` that matched more records than it reports."""
    return limits.hit("findings", rule, f"rule {rule} matched {matched:,} records, a finding "
                      f"each: the earliest {kept:,} are findings, the other {matched - kept:,} "
                      "were counted, not reported")


def assembled(passes: Passes, rules: RuleSet, summary: IngestSummary,
              concluded: tuple[Context, CrossRank | None, list[Finding]],
              cache: CacheUse) -> Diagnosis:
    """The whole diagnosis of a run whose pass and cross-rank stage are done."""
    options = passes.options
    lang = options.lang
    ctx, crossrank, found = concluded
    findings = [_aligned_finding(f, ctx) for f in found]
    gap = unreadable.unreadable_finding(summary, lang, _reason_words(lang))
    if gap is not None:  # after the context lines: it has no record to read around
        findings.append(gap)
    events, truncated = passes.overview.events(_evidence_rows(findings))
    events = tuple(_aligned_event(e, ctx) for e in events)
    diagnosis = Diagnosis(
        inputs=summary, findings=tuple(findings),
        rules_evaluated=tuple(sorted((*rule_infos(rules), unreadable.rule_info(lang)),
                                     key=lambda r: r.id)),
        processes=ctx.processes(passes.overview.processes()),
        events=events, events_truncated=truncated,
        exit_code=exit_code(findings, options.fail_on, summary),
        fail_on=options.fail_on, codes=evidence_codes(findings, lang),
        unexplained=passes.unexplained.result(findings, rank_of=_rank_of(ctx)),
        unexplained_overflow=passes.unexplained.overflow_records, cache=cache,
        processes_omitted=passes.overview.processes_omitted, lang=lang, crossrank=crossrank)
    return with_incidents(diagnosis)


def _rank_of(ctx: Context) -> RankOf:
    """A process's rank as the cross-rank stage resolved it, by host and pid."""
    def rank_of(host: str, pid: int) -> int | None:
        ident = ctx.process_of(host or None, pid)
        return ident.rank if ident is not None else None
    return rank_of


def _evidence_rows(findings: Sequence[Finding]) -> list[EventRow]:
    rows = []
    for f in findings:
        for ev in f.evidence:
            rows.append(EventRow(ts=ev.ts, level=ev.level, module=ev.module, pid=ev.pid,
                                 rank=ev.rank, host=ev.host, device=ev.device, kind="",
                                 path=ev.path, line=ev.line, message=ev.message))
    return rows


def _reason_words(lang: str) -> Callable[[str], str]:
    """Ingest's reasons for a file it could not read, in ``lang``."""
    if lang == "en":
        return lambda text: text
    from plogscan.report.i18n import ingest_text

    return lambda text: ingest_text(lang, text)


def _aligned_finding(finding: Finding, ctx: Context) -> Finding:
    evidence = tuple(replace(ev, ts_aligned=ctx.aligned(ev.path, ev.line, ev.pid, ev.ts))
                     for ev in finding.evidence)
    return replace(finding, evidence=evidence)


def _aligned_event(event: EventRow, ctx: Context) -> EventRow:
    """An events-table row with its process's identity and its aligned time."""
    ident = ctx.identity(event.path, event.line, event.pid)
    if ident is None:
        return replace(event, ts_aligned=event.ts)
    return replace(event, host=ident.host or event.host,
                   rank=ident.rank if ident.rank is not None else event.rank,
                   device=ident.device if ident.device is not None else event.device,
                   ts_aligned=ctx.aligned(event.path, event.line, event.pid, event.ts))
