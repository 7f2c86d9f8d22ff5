"""``scan``: run a rule set over the event table, one record batch at a time.

For each batch, one test tells which rules can match at all (``Prefilter.possible``: most
rules hold none of a batch's literals); for each of those, every step's mask is computed over
the whole batch with ``pyarrow.compute`` (shared predicates, the records' order and their
group keys are computed once per batch); only the candidate rows
(those that fill some step) are kept, with their captures, plus a tiny per-process summary of
which levels/modules/kinds were written (for ``requires``). Sequence and threshold rules keep
their candidates as Arrow in bounded memory (``candidatestore``) and turn only the few that can
matter into Python rows; a single rule with ``by`` keys keeps a sample per group.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pyarrow as pa

from plogscan.catalog.rule import Rule, RuleSet, Sequence, Single, Threshold
from plogscan.engine import arrowrows, correlate, seqstore, thresholdstore
from plogscan.engine.correlate import Occurrence, Row
from plogscan.engine.findings import Identify, build_finding
from plogscan.engine.predicates import NO_ROWS as _NO_ROWS
from plogscan.engine.predicates import matching_rows
from plogscan.engine.prefilter import Prefilter
from plogscan.engine.presence import Presence
from plogscan.engine.seqstore import SequenceStore
from plogscan.engine.thresholdstore import ThresholdStore
from plogscan.errors import InputError
from plogscan.model import Finding, order_findings
from plogscan.schema import COLUMNS, CONTEXT_COLUMNS


class _FirstRecords:
    """The records a ``Single`` rule may still show, held as Arrow in arrival order (with the
    roles each fills, how many records each stands for and its arrival number) until they
    become ``Row`` values at the end: the first records of a rule that makes a finding of
    every record, or the first ``MAX_PER_STEP`` of each group of a rule with ``by`` keys."""

    def __init__(self) -> None:
        self.tables: list[pa.Table] = []
        self.filled: list[dict[str, np.ndarray]] = []
        self._weights: list[np.ndarray] = []
        self._arrivals: list[np.ndarray] = []
        self.held = 0
        self.trimmed = 0  # records held after the last trim

    def add(self, records: pa.RecordBatch, filled: dict[str, np.ndarray],
            weights: np.ndarray | None = None, arrivals: np.ndarray | None = None) -> None:
        n = records.num_rows
        self.tables.append(pa.Table.from_batches([records]))
        self.filled.append(filled)
        self._weights.append(np.ones(n, np.int64) if weights is None else weights)
        self._arrivals.append(np.zeros(n, np.int64) if arrivals is None else arrivals)
        self.held += n

    def _joined(self) -> tuple[pa.RecordBatch, dict[str, np.ndarray]]:
        joined = pa.concat_tables(self.tables)
        table = pa.record_batch([column.combine_chunks() for column in joined.columns],
                                schema=joined.schema)
        filled = {role: np.concatenate([f[role] for f in self.filled]) for role in self.filled[0]}
        return table, filled

    def _keep(self, table: pa.RecordBatch, filled: dict[str, np.ndarray], keep: np.ndarray,
              weights: np.ndarray) -> None:
        self.tables = [pa.Table.from_batches([table.take(pa.array(keep))])]
        self.filled = [{role: mask[keep] for role, mask in filled.items()}]
        self._arrivals = [self.arrivals()[keep]]
        self._weights = [weights]
        self.held = self.trimmed = len(keep)

    def trim(self, limit: int) -> tuple:
        """Keep the first ``limit`` records in the matchers' order (ties in arrival order);
        the sort key of the last of them."""
        table, filled = self._joined()
        position, _ = arrowrows.machine_order(table)
        first = np.argsort(position)[:limit]
        keep = np.sort(first)
        self._keep(table, filled, keep, self.weights()[keep])
        last = table.slice(int(first[-1]), 1).to_pylist()[0]
        return correlate.sort_key(Row(last, frozenset(), {}))

    def trim_groups(self, group_numbers: Callable[[pa.RecordBatch], np.ndarray]) -> None:
        """Keep the first ``MAX_PER_STEP`` records of each group in the matchers' order; the
        first kept record of a group also stands for the records of it left out."""
        if not self.tables:
            return
        table, filled = self._joined()
        group = group_numbers(table)
        position, _ = arrowrows.machine_order(table)
        keep, _ = arrowrows.first_of_groups(group, position, correlate.MAX_PER_STEP)
        weights = self.weights()
        kept_groups = group[keep]
        left_out = (np.bincount(group, weights=weights)
                    - np.bincount(kept_groups, weights=weights[keep], minlength=group.max() + 1))
        kept_weights = weights[keep]
        _, first = np.unique(kept_groups, return_index=True)
        kept_weights[first] += left_out[kept_groups[first]].astype(np.int64)
        self._keep(table, filled, keep, kept_weights)

    def weights(self) -> np.ndarray:
        return np.concatenate(self._weights) if self._weights else np.zeros(0, np.int64)

    def arrivals(self) -> np.ndarray:
        return np.concatenate(self._arrivals) if self._arrivals else np.zeros(0, np.int64)

    def rows(self, roles: list) -> list[Row]:
        if not self.tables:
            return []
        table, filled = self._joined()
        return arrowrows.as_rows(table, roles, filled)


_MERGE_ROWS = 4096  # records of a rule with ``by`` keys held before the first trim


class _Candidates:
    """The candidate records of one rule, gathered batch by batch."""

    def __init__(self, rule: Rule, lang: str = "en", max_findings: int | None = None) -> None:
        self.rule = rule
        self.lang = lang
        self.roles = list(rule.roles())
        self.rows: list[Row] = []
        # A Single rule without ``by`` makes a finding of every record: it keeps the first
        # ``max_findings`` records (in time order) and counts the others.
        self.first_only = (max_findings if isinstance(rule.body, Single) and not rule.body.by
                           else None)
        self.matched = 0
        self.cutoff: tuple | None = None  # the sort key of the last record kept at the last trim
        self.first = _FirstRecords()
        self.arrived = 0  # candidates so far (of a rule with ``by`` keys)
        # A Single rule with ``by`` keys keeps a small sample per group instead of every record.
        body = rule.body
        self.groups = (correlate.SingleGroups(body.by)
                       if isinstance(body, Single) and body.by else None)
        # ... sampled in Arrow: its keys that are no column are the rule's captures.
        self.captured = [name for name in body.by if name not in COLUMNS] if self.groups else []
        # A sequence rule keeps its candidates as Arrow and thins them before the state
        # machine (``seqstore``); a threshold rule keeps them so, down to each group's densest
        # window (``thresholdstore``).
        self.store: SequenceStore | ThresholdStore | None = (
            SequenceStore(rule, self.roles) if seqstore.eligible(rule)
            else ThresholdStore(rule, self.roles) if thresholdstore.eligible(rule) else None)

    def consume(self, batch: pa.RecordBatch, cache: dict, prefilter: Prefilter,
                possible: np.ndarray | None = None) -> None:
        """Take in the candidates of ``batch``; ``possible`` (one per role, from
        ``Prefilter.possible``) says which roles' conditions can hold on it at all."""
        found = [matching_rows(cond, batch, cache, prefilter)
                 if possible is None or possible[i] else _NO_ROWS
                 for i, (_, cond) in enumerate(self.roles)]
        if not any(rows.size for rows in found):  # most rules, in most batches
            return
        masks = {role: np.zeros(batch.num_rows, dtype=bool) for role, _ in self.roles}
        for (role, _), rows in zip(self.roles, found, strict=True):
            masks[role][rows] = True
        union = np.logical_or.reduce(list(masks.values()))
        idx = np.flatnonzero(union)
        if self.store is not None:
            # A filter by the mask copies the records (with their context lines) in one pass
            # over exact sizes; a take of that many list values grew its buffers as it went.
            self.store.add(batch.filter(pa.array(union)), masks, idx)
            return
        filled = {role: masks[role][idx] for role, _ in self.roles}
        if self.groups is None and self.first_only is None:
            self.rows.extend(arrowrows.as_rows(batch.filter(pa.array(union)), self.roles,
                                               filled))
            return
        if self.groups is not None:
            # Only the first records of each group and the groups' counts can matter: the
            # rest stay Arrow and are counted, not turned into rows. Their order and groups
            # come from the batch's own, computed once for every rule.
            group = self._candidate_groups(batch, idx, cache)
            position = arrowrows.batch_position(batch, cache)[idx]
            keep, weight = arrowrows.first_of_groups(group, position, correlate.MAX_PER_STEP)
            self.first.add(batch.take(pa.array(idx[keep])),
                           {role: mask[keep] for role, mask in filled.items()},
                           weight, self.arrived + keep)
            self.arrived += len(idx)
            if self.first.held >= max(2 * self.first.trimmed, _MERGE_ROWS):
                self.first.trim_groups(self._group_numbers)
            return
        # What decides which candidates to keep is read from their columns without the
        # context lines (most of their bytes); only the records kept are taken whole.
        sub = _without_context(batch).take(pa.array(idx))
        if self.first_only is not None:
            self.matched += sub.num_rows
            if self.cutoff is not None:  # only records before it can still be among the first
                early = np.flatnonzero(arrowrows.sorting_before(sub, self.cutoff))
                if len(early) == 0:
                    return
                sub, idx = sub.take(pa.array(early)), idx[early]
                filled = {role: mask[early] for role, mask in filled.items()}
            position, _ = arrowrows.machine_order(sub)  # a permutation: its first N, by row
            keep = np.sort(np.argsort(position)[:self.first_only])
            self.first.add(batch.take(pa.array(idx[keep])),
                           {role: mask[keep] for role, mask in filled.items()})
            if self.first.held >= 2 * self.first_only:
                self.cutoff = self.first.trim(self.first_only)

    def _candidate_groups(self, batch: pa.RecordBatch, idx: np.ndarray, cache: dict
                          ) -> np.ndarray:
        """The group numbers of the candidates ``idx`` of ``batch``: the key columns' codes
        over the batch, and the captured keys of these candidates alone."""
        assert self.groups is not None
        captured = None
        if self.captured:
            sub = arrowrows.with_captures(_without_context(batch).take(pa.array(idx)),
                                          self.roles[0][1], self.captured)
            captured = {name: sub.column(name) for name in self.captured}
        return arrowrows.group_numbers_of(batch, self.groups.by, idx, cache, captured)

    def _group_numbers(self, records: pa.RecordBatch | pa.Table) -> np.ndarray:
        assert self.groups is not None
        keyed = arrowrows.with_captures(records, self.roles[0][1], self.captured)
        return arrowrows.group_numbers(keyed, self.groups.by)[0]

    def occurrences(self, presence: Presence, aliases: Callable[..., Any] | None = None,
                    assumed: Callable[[Row], Any] | None = None) -> list[Occurrence]:
        def check(req: Any, host: Any, pid: Any) -> tuple[bool, str]:
            return presence.check(req, host, pid, aliases(host, pid) if aliases and pid is not None
                                  else (), self.lang)

        if self.groups is not None:
            self.first.trim_groups(self._group_numbers)
            self.groups.add_sampled(self.first.rows(self.roles), self.first.arrivals(),
                                    self.first.weights(), self.arrived)
            return self.groups.occurrences()
        if isinstance(self.store, ThresholdStore):
            return self.store.occurrences()
        if self.store is not None:
            self.rows = self.store.rows()
        if self.first_only is not None:
            self.rows = self.first.rows(self.roles)
        self.rows.sort(key=correlate.sort_key)
        if self.first_only is not None:
            del self.rows[self.first_only:]
        for i, row in enumerate(self.rows):
            row.order = i
        body = self.rule.body
        if isinstance(body, Single):
            return correlate.single(body, self.rows)
        if isinstance(body, Threshold):
            return correlate.threshold(body, self.rows)
        assert isinstance(body, Sequence)
        return correlate.sequence(body, self.rows, self.rule.requires, check, assumed, self.lang)


def _without_context(batch: pa.RecordBatch) -> pa.RecordBatch:
    present = [name for name in CONTEXT_COLUMNS if name in batch.schema.names]
    return batch.drop_columns(present) if present else batch


def _batches(events: pa.Table | Iterable[pa.RecordBatch]) -> Iterable[pa.RecordBatch]:
    if isinstance(events, pa.Table):
        return events.to_batches()
    return events


def scan(events: pa.Table | Iterable[pa.RecordBatch], rules: RuleSet,
         identify: Callable[[], Identify | None] | None = None,
         presence: Presence | None = None, *, max_findings: int | None = None,
         on_capped: Callable[[str, int, int], None] | None = None) -> list[Finding]:
    """Run ``rules`` over the event table; findings in ``model.order_findings`` order (level,
    root cause before symptom, earliest first timestamp, rule id, fingerprint; a finding after
    the findings that explain it).

    ``identify``, when given, is called once after the last batch; the function it returns
    gives the identity of a record (see ``findings.Identify``: what the whole input says of
    its process), which fills each finding's scope and evidence. When that function also has
    ``aliases(host, pid)`` (the other (host, pid) pairs of the same host process), a rule's
    ``requires`` is checked over the whole process. The words the engine composes (scopes,
    not_evaluable notes) are in the rule set's language (``RuleSet.lang``).

    ``presence``, when given, already knows (or will know by the end of the stream) what
    every process wrote, from the facts of all records (``ingest.facts``): then ``events``
    may hold only the records a ``Selector`` of ``rules`` kept.

    ``max_findings`` bounds what a rule without ``by`` (a finding per record) keeps: its first
    ``max_findings`` records in time order; ``on_capped(rule id, records matched, findings
    kept)`` hears of each rule that matched more."""
    plans = [_Candidates(rule, rules.lang, max_findings) for rule in rules]
    prefilter = Prefilter(cond for plan in plans for _, cond in plan.roles)
    ends = np.cumsum([len(plan.roles) for plan in plans], dtype=np.int64)
    spans = list(zip((ends - [len(plan.roles) for plan in plans]).tolist(), ends.tolist(),
                     strict=True))
    need_presence = presence is None and any(rule.requires is not None for rule in rules)
    presence = presence if presence is not None else Presence()
    for batch in _batches(events):
        missing = [c for c in COLUMNS if c not in batch.schema.names]
        if missing:
            raise InputError("the event table lacks columns: " + ", ".join(missing),
                             help="produce it with `plogscan ingest` (see plogscan.schema)")
        if batch.num_rows == 0:
            continue
        cache: dict = {}
        possible = prefilter.possible(batch, cache)
        for plan, (lo, hi) in zip(plans, spans, strict=True):
            if possible[lo:hi].any():  # most rules hold none of a batch's literals
                plan.consume(batch, cache, prefilter, possible[lo:hi])
        if need_presence:
            presence.consume(batch)
    who = identify() if identify is not None else None
    aliases = getattr(who, "aliases", None)

    def assumed(row: Row) -> Any:  # the file standing in for a process that names none
        found = who(row.cols) if who is not None else None
        return found.get("file") if found and found.get("identity") == "assumed" else None

    findings = [build_finding(p.rule, occ, who, rules.lang) for p in plans
                for occ in p.occurrences(presence, aliases, assumed if who else None)]
    for plan in plans:
        if on_capped is not None and plan.first_only is not None and (
                plan.matched > plan.first_only):
            on_capped(plan.rule.id, plan.matched, plan.first_only)
    return order_findings(findings)
