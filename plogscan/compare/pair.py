"""``compare_runs(good, bad)``: the comparison of two runs as a library call."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from plogscan.catalog import load_rules
from plogscan.compare.differ import Plan
from plogscan.compare.evidence import records
from plogscan.compare.model import BAD, GOOD, Comparison
from plogscan.compare.runs import read_run, table_batches
from plogscan.ingest.walk import Lister


def compare_runs(good: str, bad: str, *, rules_dirs: Sequence[str] = (), lang: str = "en",
                 workers: int | None = None,
                 on_progress: Callable[[str, int], None] | None = None,
                 listings: tuple[Lister, Lister] | None = None) -> Comparison:
    """What the run at ``bad`` (the failing one) logged that the run at ``good`` (the passing
    one) did not, and the other way round; each run is a log directory, archive or file, or
    an event table written by ``plogscan ingest``. ``rules_dirs`` add rules to the built-in
    ones (findings are compared too); ``lang`` is the language of the words the result holds
    (code meanings, rule titles); ``listings`` are the walks of ``good`` and ``bad`` when the
    caller made them already. Raises ``PlogscanError`` when a run cannot be read."""
    rules = load_rules(list(rules_dirs)).localized(lang)
    walks = listings or (None, None)
    with read_run(GOOD, good, rules, lang=lang, workers=workers,
                  on_progress=on_progress, listing=walks[0]) as good_run, \
            read_run(BAD, bad, rules, lang=lang, workers=workers,
                     on_progress=on_progress, listing=walks[1]) as bad_run:
        plan = Plan(good_run, bad_run, lang)
        found = {run.role: records(table_batches(run.table), plan.wanted[run.role])
                 for run in (good_run, bad_run)}
        return plan.comparison(found)
