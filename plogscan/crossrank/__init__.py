"""Cross-rank forensics: which rank failed first, which ranks only waited, on clocks that
disagree.

In: the record batches the engine reads (``gather.Gatherer`` keeps a small, bounded
per-process ``summary.Summary`` of them in the same pass) and, once the engine is done, its
findings. Out: ``plogscan.model.CrossRank`` (root cause, clock offsets, attempts, collectives,
configuration, missing ranks), each finding's identity (``analyze.Context.identify``, for its
scope) and ``rank_role``.

Stages: ``identity`` (who each process is, keyed by the file), ``clock`` (host offsets),
``attempts`` (process lifetimes split into runs), ``build`` with ``resolve`` and ``links`` (every
wait record an edge of the wait-for ``graph``), ``decide`` (the one decision: suspects, victims,
chain, verdict; ``rootcause`` states it), ``collectives`` (alignment by sequence), ``config``
(settings compared across ranks), ``missing`` (ranks and peers not collected); ``analyze`` runs
them. The sentences they write into the results follow ``Options.lang`` (``words``).

Must not import report, cli, diagnose or baseline: the stage never sees a report, and it never
re-reads a log.
"""
