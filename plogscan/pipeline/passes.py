"""What watches the single pass over the records: the overview, the unexplained errors, the
cross-rank summary, the ``requires`` evidence and the ``--events-out`` writer each see every
batch on its way to the rules; ``coalesced`` joins small batches first.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence

import pyarrow as pa

from plogscan.analysis.overview import Overview
from plogscan.analysis.unexplained import Unexplained
from plogscan.catalog.rule import RuleSet
from plogscan.crossrank.analyze import Context, Options
from plogscan.crossrank.gather import Gatherer
from plogscan.crossrank.patterns import PREFILTER as GATHER_PATTERN
from plogscan.engine.presence import Presence
from plogscan.engine.selector import selector_for
from plogscan.errors import Location, PlogscanError
from plogscan.ingest.contextlines import ContextSpec, without_context_columns
from plogscan.ingest.facts import merged_facts
from plogscan.ingest.pipeline import Ingest
from plogscan.ingest.walk import Lister
from plogscan.memory import release_freed
from plogscan.model import Finding, IngestSummary
from plogscan.pipeline.options import DiagnoseOptions, Timings
from plogscan.redact.redactor import Redactor
from plogscan.redact.values import redact_value, redacted_annotation
from plogscan.schema import batch_bytes
from plogscan.table.parquet import EventWriter, event_batches

COALESCE_ROWS = 65536  # small batches are joined up to this many rows before the rules run
COALESCE_BYTES = 16 << 20
COALESCE_BATCHES = 256  # small batches waiting at most, before they are joined


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


class FactsSink:
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


def cannot_write_events(path: str | None, err: OSError) -> PlogscanError:
    reason = os.strerror(err.errno) if err.errno else (err.strerror or str(err))
    return PlogscanError(f"cannot write event table: {reason}", where=Location(str(path)))


class Passes:
    """Everything that sees the records on their way to the rules, for one run.

    Without ``--events-out`` the workers hand on only the records some rule can use (and the
    ERROR/WARNING ones the reports keep; ``selector``); what every process wrote comes as
    facts. The cross-rank summary reads its anchor records (identities, settings, collectives)
    from what the workers keep, and counts every record's stream from the facts."""

    def __init__(self, options: DiagnoseOptions, rules: RuleSet, redactor: Redactor | None,
                 timings: Timings) -> None:
        self.options, self.redactor, self.timings = options, redactor, timings
        self.overview = Overview()
        self.unexplained = Unexplained()
        self.gatherer = Gatherer()
        self.crossrank_options = Options(options.clock_offsets, options.clock_reference,
                                         options.lang)
        self.contexts: list[Context] = []
        self.writer = self._writer() if options.events_out else None
        self.selective = self.writer is None
        self.presence = Presence() if self.selective else None
        self.facts = (FactsSink(self.overview, self.presence, self.gatherer) if self.selective
                      else None)
        self.selector = (selector_for(rules, extra_regexes=(GATHER_PATTERN,), skim=options.skim)
                         if self.selective else None)
        # The records whose context lines the workers take: those some rule may use.
        self.context = (ContextSpec(options.context_lines, self.selector or selector_for(rules))
                        if options.context_lines else None)
        self.saw_batches = False

    def _writer(self) -> EventWriter:
        try:
            return EventWriter(str(self.options.events_out), staged=True)
        except OSError as err:
            raise cannot_write_events(self.options.events_out, err) from None

    def identify(self) -> Context:
        """Called by the engine after the last batch: each record's identity (the context is
        callable) and each process's pids (``.aliases``)."""
        release_freed()
        with self.timings.stage("crossrank"):
            self.contexts.append(Context(self.gatherer.summary(), self.crossrank_options))
        return self.contexts[0]

    def watched(self, paths: Sequence[str], ingest: Ingest, inputs: Lister
                ) -> Iterator[pa.RecordBatch]:
        """Every batch of the inputs (the walk of ``inputs``), seen by every watcher on its
        way to the rules."""
        for batch in coalesced(event_batches(list(paths), ingest, inputs)):
            self.saw_batches = True
            self.overview.consume(batch, processes=not self.selective)
            self.unexplained.consume(batch)
            with self.timings.stage("crossrank-gather"):
                self.gatherer.consume(batch, count=not self.selective)
            if self.writer is not None:
                self._write(batch)
            # The rules get the ERROR and WARNING records kept for the reports too: their
            # literal index (one Hyperscan pass per batch) keeps each rule to its own rows.
            yield batch
        if self.facts is not None:
            self.facts.flush()

    def _write(self, batch: pa.RecordBatch) -> None:
        assert self.writer is not None
        try:
            batch = without_context_columns(batch)
            self.writer.write(self.redactor.batch(batch) if self.redactor is not None else batch)
        except OSError as err:
            raise cannot_write_events(self.options.events_out, err) from None

    def close_writer(self, done: IngestSummary | None) -> None:
        """Close the event table, with the run's accounting when the pass finished (``done``)
        and each record's identity and aligned time (``crossrank.rows``)."""
        if self.writer is None:
            return
        ctx = self.contexts[0] if self.contexts else None
        annotate, offsets = (ctx.annotate, ctx.offset_by_host()) if ctx else (None, None)
        if done is not None and self.redactor is not None:
            done = redact_value(done, self.redactor)
            annotate, offsets = redacted_annotation(self.redactor, annotate, offsets)
        try:
            self.writer.close(done, annotate=annotate, offsets=offsets)
        except OSError as err:
            raise cannot_write_events(self.options.events_out, err) from None

    def conclude(self, findings: Sequence[Finding]) -> tuple[Context, object, list[Finding]]:
        """The cross-rank conclusions over the findings: the context each record is seen in,
        the cross-rank result, and the findings with what it adds."""
        ctx = (self.contexts[0] if self.contexts
               else Context(self.gatherer.summary(), self.crossrank_options))
        with self.timings.stage("crossrank"):
            crossrank, concluded = ctx.conclude(findings)
        return ctx, crossrank, concluded
