"""The ``diagnose`` pipeline as a library call: ``DiagnoseOptions`` -> ``Diagnosis``.

sources -> parse -> event batches -> (engine + overview, in one pass) -> findings, with
context lines and the exit code decided for ``fail_on``. Reporters take it from there. Each
stage below is one named call of ``run``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from plogscan.cache.fingerprint import code_fingerprint
from plogscan.cache.run import RunCache
from plogscan.catalog import load_rules
from plogscan.catalog.rule import RuleSet
from plogscan.engine import scan
from plogscan.ingest.contextlines import kept_schema
from plogscan.ingest.pipeline import Ingest
from plogscan.ingest.prefetch import prefetched
from plogscan.ingest.walk import Lister, unchanged
from plogscan.model import CacheUse, Diagnosis, Finding
from plogscan.pipeline.assemble import assembled, findings_capped
from plogscan.pipeline.options import DiagnoseOptions, NothingRead, Timings
from plogscan.pipeline.passes import Passes
from plogscan.redact.redactor import Redactor
from plogscan.schema import table_schema
from plogscan.table.parquet import named_inputs

Progress = Callable[[str, int], None]


def run(options: DiagnoseOptions, *, listing: Lister | None = None,
        on_progress: Progress | None = None, executor: Any = None,
        redactor: Redactor | None = None, timings: Timings | None = None) -> Diagnosis:
    """Read every input, run the rules, and return the whole diagnosis.

    ``options.lang`` (``plogscan.lang.LANGS``) picks the language of the rule texts in the
    findings and of the reports' fixed words; a rule without that translation stays in
    English. ``listing`` is the walk of ``options.paths`` when the caller made it already
    (``table.parquet.named_inputs``: the progress total and the redaction take it too), so
    the paths are walked once whoever asks. With ``options.cache`` (``plogscan.cache``) and
    ``options.reuse_result``, the whole result of an earlier run over the same unchanged
    inputs with the same rules and options is reused (``cache.memo``); without
    ``reuse_result`` each file's entry is.
    ``executor`` (``ingest.cluster.DaskExecutor``) runs the parse, and reads the context
    lines, on a cluster instead of the local pool. ``timings`` receives the seconds spent in
    each stage. ``redactor`` redacts what ``events_out`` receives (records and accounting);
    the rules run on the original records, and the caller redacts the returned diagnosis
    (``plogscan.redact.values.redact_diagnosis``), after applying any baseline."""
    timings = timings if timings is not None else Timings()
    with timings.stage("total"):
        rules = prepared_rules(options)
        passes = Passes(options, rules, redactor, timings)
        inputs = listing if listing is not None else named_inputs(options.paths, options.limits)
        with run_cache(options, rules, passes, executor, inputs) as cache:
            found = cache.found()
            if found is not None:
                return reused(found, on_progress)
            ingest = ingest_for(options, passes, cache, executor, on_progress, inputs)
            findings = single_pass(options, ingest, passes, rules, inputs)
            concluded = passes.conclude(findings)
        use = CacheUse(reused_files=ingest.reused_files, problem=cache.problem)
        diagnosis = assembled(passes, rules, ingest.summary, concluded, use)
        cache.keep(diagnosis)
        return diagnosis


def prepared_rules(options: DiagnoseOptions) -> RuleSet:
    """The rules of the run (given, or loaded from the built-in pack and ``rules_dirs``), in
    the run's language."""
    rules = options.rules if options.rules is not None else load_rules(list(options.rules_dirs))
    return rules.localized(options.lang)


def run_cache(options: DiagnoseOptions, rules: RuleSet, passes: Passes, executor: Any,
              inputs: Lister) -> RunCache:
    """The run's extraction cache: none without a cache directory, or when every record is
    handed on (``--events-out``: no selector to key entries by). Everything else a result
    depends on is in the inputs (their listing, the whole of it asked for only here), the
    code or the options' result key."""
    if options.cache is None or passes.selector is None:
        return RunCache()
    # The entries keep each file's records with their context lines: the radius is part of
    # what they are.
    radius = passes.context.radius if passes.context is not None else 0
    namespace = hashlib.sha256(
        f"{code_fingerprint()}{passes.selector.fingerprint()}context={radius}".encode())
    memoized = executor is None and options.reuse_result
    schema = kept_schema(table_schema(False)) if radius else None
    return RunCache(options.cache, namespace.hexdigest(), inputs.complete,
                    options.result_key(rules) if memoized else None, unchanged, schema)


def reused(diagnosis: Diagnosis, on_progress: Progress | None) -> Diagnosis:
    """A diagnosis the cache kept for these very inputs, as this run's: every file it read
    came from the cache."""
    if on_progress is not None:
        on_progress("bytes", sum(f.bytes for f in diagnosis.inputs.files))
    use = replace(diagnosis.cache, reused_files=len(diagnosis.inputs.files), reused_result=True)
    return replace(diagnosis, cache=use)


def ingest_for(options: DiagnoseOptions, passes: Passes, cache: RunCache, executor: Any,
               on_progress: Progress | None, inputs: Lister) -> Ingest:
    """The ingest of the run: its workers hand on what the selector keeps, the facts of all
    records to the passes, and reuse the cache's entries; the digests it computes are kept
    with the inputs' listing, for the memo of the whole result."""
    facts = passes.facts
    return Ingest(workers=options.workers, on_progress=on_progress,
                  processes=options.processes, reducer=passes.selector,
                  on_facts=facts.add if facts is not None else None, store=cache.store,
                  executor=executor, limits=options.limits, kinds=cache.store,
                  digests=inputs.digests if cache.memo is not None else None,
                  context=passes.context)


def single_pass(options: DiagnoseOptions, ingest: Ingest, passes: Passes, rules: RuleSet,
                inputs: Lister) -> list[Finding]:
    """The one pass over every record: the rules and every watcher of ``passes``; the event
    table, if one is written, closed whatever happens. ``NothingRead`` when no input gave a
    record or a file (an empty ``--events-out`` is not left behind)."""
    findings = None
    limits = ingest.limits
    try:
        findings = scan(prefetched(passes.watched(options.paths, ingest, inputs),
                                   on_stop=ingest.cancel), rules,
                        passes.identify, passes.presence, max_findings=limits.findings,
                        on_capped=lambda rule, matched, kept: ingest.record_limit(
                            findings_capped(limits, rule, matched, kept)))
    finally:
        passes.close_writer(ingest.summary if findings is not None else None)
    summary = ingest.summary
    if not summary.files and not passes.saw_batches:
        if options.events_out:  # leave no empty table behind that looks like a result
            Path(options.events_out).unlink(missing_ok=True)
        raise NothingRead(summary)
    return findings
