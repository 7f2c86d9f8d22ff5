"""The ``diagnose`` pipeline as a library call: paths -> ``Diagnosis``.

sources -> parse -> event batches -> (engine + overview, in one pass) -> findings, with
context lines and the exit code decided for ``fail_on``. Reporters take it from there.
``Diagnosis.extra`` carries ``codes`` (each code in the evidence -> its one-line meaning in
the diagnosis language, or None), ``unexplained`` (ERROR templates no finding explains, see
``plogscan.analysis.unexplained``) and ``unexplained_overflow`` (ERROR records of templates
dropped to bound memory).

Long module: the orchestrator with its cache lookup and event writer, due to be split into
named stages.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa

from plogscan.analysis import unreadable
from plogscan.analysis.context import add_context
from plogscan.analysis.overview import Overview
from plogscan.analysis.unexplained import Unexplained
from plogscan.baseline import exit_code_for
from plogscan.catalog import RuleSet, load_rules
from plogscan.catalog.describe import as_written
from plogscan.codes import describe
from plogscan.crossrank.analyze import Context, Options
from plogscan.crossrank.gather import Gatherer
from plogscan.crossrank.patterns import PREFILTER as GATHER_PATTERN
from plogscan.engine import scan
from plogscan.engine.presence import Presence
from plogscan.engine.selector import Selector
from plogscan.errors import InputError, Location, PlogscanError
from plogscan.incidents import with_incidents
from plogscan.ingest.facts import merged_facts
from plogscan.ingest.limits import LimitHit, Limits
from plogscan.ingest.pipeline import Ingest
from plogscan.ingest.prefetch import prefetched
from plogscan.memory import release_freed
from plogscan.model import Diagnosis, EventRow, Finding, IngestSummary, RuleInfo
from plogscan.parse.codescan import codes_in
from plogscan.redact.redactor import Redactor
from plogscan.redact.values import redact_value, redacted_alignment
from plogscan.schema import batch_bytes
from plogscan.table.parquet import EventWriter, event_batches

FAIL_ON = ("info", "warning", "error", "critical", "never")
COALESCE_ROWS = 65536  # small batches are joined up to this many rows before the rules run
COALESCE_BYTES = 16 << 20
COALESCE_BATCHES = 256  # small batches waiting at most, before they are joined


class NothingRead(InputError):
    """No input could be read; ``summary`` says why for each path (the CLI prints it)."""

    def __init__(self, summary: IngestSummary) -> None:
        super().__init__("nothing could be read from the given paths",
                         help="pass log files, directories, archives or an events .parquet")
        self.summary = summary


def coalesced(batches: Iterable[pa.RecordBatch], rows: int = COALESCE_ROWS,
              nbytes: int = COALESCE_BYTES) -> Iterator[pa.RecordBatch]:
    """The same rows in the same order, with small batches joined.

    Ingest yields at least one batch per file, and every rule costs a few Arrow calls per
    batch: a tree of thousands of one-line files would otherwise cost thousands of rule passes.
    Every ``COALESCE_BATCHES`` waiting batches are joined at once: each batch object costs
    kilobytes of its own (its schema and one array object per column) whatever its rows, so
    65,536 one-row batches waiting for their row count held hundreds of MB.
    """
    pending: list[pa.RecordBatch] = []
    small: list[pa.RecordBatch] = []  # the latest batches, not yet joined
    count = size = 0
    for batch in batches:
        small.append(batch)
        count += batch.num_rows
        size += batch_bytes(batch)
        if len(small) >= COALESCE_BATCHES:
            pending.append(pa.concat_batches(small))
            small = []
        if count >= rows or size >= nbytes:
            pending += small
            small = []
            yield pending[0] if len(pending) == 1 else pa.concat_batches(pending)
            pending, count, size = [], 0, 0
    pending += small
    if pending:
        yield pending[0] if len(pending) == 1 else pa.concat_batches(pending)


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


def _evidence_rows(findings: Sequence[Finding]) -> list[EventRow]:
    rows = []
    for f in findings:
        for ev in f.evidence:
            rows.append(EventRow(ts=ev.ts, level=ev.level, module=ev.module, pid=ev.pid,
                                 rank=ev.rank, host=ev.host, device=ev.device, kind="",
                                 path=ev.path, line=ev.line, message=ev.message))
    return rows


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


def _cannot_write_events(path: str | None, err: OSError) -> PlogscanError:
    reason = os.strerror(err.errno) if err.errno else (err.strerror or str(err))
    return PlogscanError(f"cannot write event table: {reason}", where=Location(str(path)))


def _event_writer(path: str) -> EventWriter:
    try:
        return EventWriter(path)
    except OSError as err:
        raise _cannot_write_events(path, err) from None


def _findings_capped(limits: Limits, rule: str, matched: int, kept: int) -> LimitHit:
    """The limit hit of a rule without ``by`` that matched more records than it reports."""
    return limits.hit("findings", rule, f"rule {rule} matched {matched:,} records, a finding "
                      f"each: the earliest {kept:,} are findings, the other {matched - kept:,} "
                      "were counted, not reported")


class _FactsSink:
    """Facts tables from the workers, merged in bulk into the overview and ``requires``
    evidence (one small table per chunk would cost an Arrow group-by each)."""

    FLUSH_ROWS = 20000

    def __init__(self, overview: Overview, presence: Presence | None,
                 gatherer: Gatherer | None = None) -> None:
        self.overview = overview
        self.presence = presence
        self.gatherer = gatherer
        self.pending: list[pa.Table] = []
        self.rows = 0

    def add(self, table: pa.Table) -> None:
        if self.gatherer is not None:  # before the records these facts were computed from
            self.gatherer.consume_facts(table)
        self.pending.append(table)
        self.rows += table.num_rows
        if self.rows >= self.FLUSH_ROWS:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        merged = merged_facts(self.pending)
        self.pending, self.rows = [], 0
        self.overview.consume_facts(merged)
        if self.presence is not None:
            self.presence.consume_facts(merged)


def run(paths: Sequence[str], rules_dirs: Sequence[str] = (), fail_on: str = "error", *,
        rules: RuleSet | None = None, workers: int | None = None, processes: bool = False,
        on_progress: Callable[[str, int], None] | None = None,
        events_out: str | None = None, context_lines: int = 3, lang: str = "en",
        clock_offsets: Sequence[tuple[str, float]] = (), clock_reference: str | None = None,
        timings: dict[str, float] | None = None, cache: Path | None = None,
        executor: Any = None, limits: Limits | None = None,
        redactor: Redactor | None = None, skim: bool = True,
        reuse_result: bool = True) -> Diagnosis:
    """Read every input, run the rules, and return the whole diagnosis.

    ``lang`` (``plogscan.lang.LANGS``) picks the language of the rule texts in the findings and
    of the reports' fixed words; a rule without that translation stays in English.
    ``clock_offsets`` (host, seconds) override the estimated clock offsets and
    ``clock_reference`` picks the reference host (``plogscan.crossrank.clock``). ``timings``,
    when given, receives the seconds spent in each stage: ``crossrank-gather`` (the summary,
    during the pass), ``crossrank`` (identities, clocks and conclusions after it), ``total``.
    ``cache`` is the extraction cache's directory (``plogscan.cache``; None: no cache). With
    it, and ``reuse_result``, the whole result of an earlier run over the same unchanged
    inputs with the same rules and options is reused (``cache.memo``); without
    ``reuse_result`` each file's entry is.
    ``executor`` (``ingest.cluster.DaskExecutor``) runs the parse, and reads the context
    lines, on a cluster instead of the local pool.

    ``skim`` lets the parse workers skip the records no rule can use without parsing them
    (``plogscan.parse.skim``; the diagnosis is the same either way).

    ``limits`` bound what is read (``plogscan.ingest.limits``). ``redactor`` redacts what
    ``events_out`` receives (records and accounting). The rules run on the original records;
    the caller redacts the returned diagnosis (``plogscan.redact.values.redact_diagnosis``),
    after applying any baseline."""
    started = time.perf_counter()
    timings = timings if timings is not None else {}
    if fail_on not in FAIL_ON:
        raise InputError(f"unknown --fail-on level '{fail_on}'",
                         help="valid choices are: " + ", ".join(FAIL_ON))
    ruleset = (rules if rules is not None else load_rules(list(rules_dirs))).localized(lang)
    overview = Overview()
    unexplained = Unexplained()
    gatherer = Gatherer()
    options = Options(tuple(clock_offsets), clock_reference, lang)
    contexts: list[Context] = []
    writer = _event_writer(events_out) if events_out else None
    # Without --events-out the workers hand on only the records some rule can use (and the
    # ERROR/WARNING ones the reports keep); what every process wrote comes as facts.
    selective = writer is None
    presence = Presence() if selective else None
    facts = _FactsSink(overview, presence, gatherer) if selective else None
    # The cross-rank summary reads its anchor records (identities, settings, collectives) from
    # what the workers keep, and counts every record's stream from the facts.
    selector = (Selector(ruleset, extra_regexes=(GATHER_PATTERN,), skim=skim) if selective
                else None)
    store = None
    cache_problem = None
    memo = None
    if cache is not None and selector is not None:
        from plogscan.cache import CacheStore, code_fingerprint, max_bytes
        from plogscan.cache.memo import ResultMemo

        namespace = hashlib.sha256((code_fingerprint() + selector.fingerprint()).encode())
        try:
            store = CacheStore(cache, namespace.hexdigest(), max_bytes())
        except InputError as err:  # an unusable cache only makes the run slower
            cache_problem = err.message
        if store is not None and executor is None and reuse_result:
            # Everything else a result depends on is in the inputs, the code or these.
            settings = repr((ruleset, fail_on, context_lines, tuple(clock_offsets),
                             clock_reference, limits or Limits()))
            memo = ResultMemo(store, paths, hashlib.sha256(settings.encode()).hexdigest())
            found = memo.find(store)
            if found is not None:
                store.close()
                timings["total"] = time.perf_counter() - started
                return _reused(found, on_progress)
    ingest = Ingest(workers=workers, on_progress=on_progress, processes=processes,
                    reducer=selector,
                    on_facts=facts.add if facts is not None else None, store=store,
                    executor=executor, limits=limits, kinds=store)
    saw_batches = False

    def identify():  # called by the engine after the last batch
        release_freed()
        begun = time.perf_counter()
        contexts.append(Context(gatherer.summary(), options))
        timings["crossrank"] = timings.get("crossrank", 0.0) + time.perf_counter() - begun
        return contexts[0]  # callable: a record's identity; .aliases: its process's pids

    def watched() -> Iterator[pa.RecordBatch]:
        nonlocal saw_batches
        for batch in coalesced(event_batches(list(paths), ingest)):
            saw_batches = True
            overview.consume(batch, processes=not selective)
            unexplained.consume(batch)
            begun = time.perf_counter()
            gatherer.consume(batch, count=not selective)
            timings["crossrank-gather"] = (timings.get("crossrank-gather", 0.0)
                                           + time.perf_counter() - begun)
            if writer is not None:
                try:
                    writer.write(redactor.batch(batch) if redactor is not None else batch)
                except OSError as err:
                    raise _cannot_write_events(events_out, err) from None
            # The rules get the ERROR and WARNING records kept for the reports too: their
            # literal index (one Hyperscan pass per batch) keeps each rule to its own rows.
            yield batch
        if facts is not None:
            facts.flush()

    # The store stays open for the context lines: it keeps where lines start in the files
    # they are read from (``cache.linemarks``).
    with contextlib.closing(store) if store is not None else contextlib.nullcontext():
        findings = None
        try:
            findings = scan(prefetched(watched()), ruleset, identify, presence,
                            max_findings=ingest.limits.findings,
                            on_capped=lambda rule, matched, kept: ingest.record_limit(
                                _findings_capped(ingest.limits, rule, matched, kept)))
        finally:
            if writer is not None:
                ctx = contexts[0] if contexts else None
                done = ingest.summary if findings is not None else None
                aligner, offsets = ((ctx.aligned_column, ctx.offset_by_host()) if ctx
                                    else (None, None))
                if done is not None and redactor is not None:
                    done = redact_value(done, redactor)
                    aligner, offsets = redacted_alignment(redactor, aligner, offsets)
                try:
                    writer.close(done, aligner=aligner, offsets=offsets)
                except OSError as err:
                    raise _cannot_write_events(events_out, err) from None
        summary = ingest.summary
        if not summary.files and not saw_batches:
            if events_out:  # leave no empty table behind that looks like a result
                Path(events_out).unlink(missing_ok=True)
            raise NothingRead(summary)
        ctx = contexts[0] if contexts else Context(gatherer.summary(), options)
        begun = time.perf_counter()
        crossrank, findings = ctx.conclude(findings)
        timings["crossrank"] = timings.get("crossrank", 0.0) + time.perf_counter() - begun
        if context_lines:
            findings = list(add_context(findings, paths, context_lines,
                                        executor.submit if executor is not None else None,
                                        limits=ingest.limits, marks=store))
    findings = [_aligned_finding(f, ctx) for f in findings]
    gap = unreadable.unreadable_finding(summary, lang, _reason_words(lang))
    if gap is not None:  # after the context lines: it has no record to read around
        findings.append(gap)
    events, truncated = overview.events(_evidence_rows(findings))
    events = tuple(_aligned_event(e, ctx) for e in events)
    extra: dict[str, object] = {
        "codes": evidence_codes(findings, lang),
        "unexplained": unexplained.result(findings),
        "unexplained_overflow": unexplained.overflow_records,
        "reused_files": ingest.reused_files,  # files read from the extraction cache
        "cache_problem": cache_problem,  # why the cache could not be used, if it could not
        "processes_omitted": overview.processes_omitted,  # past the overview's cap
    }
    diagnosis = Diagnosis(
        inputs=summary, findings=tuple(findings),
        rules_evaluated=tuple(sorted((*rule_infos(ruleset), unreadable.rule_info(lang)),
                                     key=lambda r: r.id)),
        processes=ctx.processes(overview.processes()),
        events=events, events_truncated=truncated, exit_code=exit_code(findings, fail_on, summary),
        fail_on=fail_on, extra=extra, lang=lang, crossrank=crossrank)
    diagnosis = with_incidents(diagnosis)
    if memo is not None:
        memo.save(diagnosis)
    timings["total"] = time.perf_counter() - started
    return diagnosis


def _reason_words(lang: str) -> Callable[[str], str]:
    """Ingest's reasons for a file it could not read, in ``lang``."""
    if lang == "en":
        return lambda text: text
    from plogscan.report.i18n import ingest_text

    return lambda text: ingest_text(lang, text)


def _reused(diagnosis: Diagnosis, on_progress: Callable[[str, int], None] | None
            ) -> Diagnosis:
    """A diagnosis the cache kept for these very inputs, as this run's: every file it read
    came from the cache."""
    if on_progress is not None:
        on_progress("bytes", sum(f.bytes for f in diagnosis.inputs.files))
    files = len(diagnosis.inputs.files)
    return replace(diagnosis, extra={**diagnosis.extra, "reused_files": files,
                                     "reused_result": True})


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
