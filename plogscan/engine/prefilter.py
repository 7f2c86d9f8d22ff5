"""``Prefilter``: one pass per batch over each text field finds which rows hold which of the
rules' literals, so that a literal test runs only on the rows that hold its literal, and a rule
none of whose literals a batch holds is not evaluated there at all (``possible``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.catalog.operators import FIELD_KINDS
from plogscan.catalog.rule import Condition, Predicate
from plogscan.engine import distinct
from plogscan.engine.predicates import (
    _LITERAL_OPS,
    NO_ROWS,
    _in_order,
    _literals,
    literal_test,
)
from plogscan.parse.arrays import distinct as distinct_values


class Prefilter:
    """One pass per text field that finds the rows any rule can start from.

    Most alternatives start with a literal test of the message (``contains``, ``startswith``,
    ``endswith``, all case-insensitive), and each such test would scan every message of the
    batch. Instead, the literals of all of them are joined into one case-insensitive RE2
    alternation that runs once per batch; every literal test then runs only on the rows it
    found (a row that contains none of the literals passes none of the tests). On DEBUG-heavy
    logs those are a fraction of a percent of the rows.
    """

    def __init__(self, conditions: Iterable[Condition]) -> None:
        literals: dict[str, set[str]] = {}
        conditions_list = list(conditions)
        for cond in conditions_list:
            for alt in cond.alternatives:
                first = _in_order(alt)[0]
                if first.op in _LITERAL_OPS and FIELD_KINDS.get(first.field) == "str":
                    literals.setdefault(first.field, set()).update(str(v) for v in first.values)
        self.patterns = {field: _literals(tuple(sorted(values)))
                         for field, values in literals.items() if values}
        # Every literal test of every alternative, by field: one Hyperscan pass per batch
        # tells which rows hold which literal, so an alternative runs only on the rows that
        # hold its literal, whatever the order of its tests (``literal_rows``).
        every: dict[str, set[str]] = {}
        for cond in conditions_list:
            for alt in cond.alternatives:
                pred = literal_test(alt)
                if pred is not None:
                    every.setdefault(pred.field, set()).update(str(v) for v in pred.values)
        self.literal_ids = {field: {v: i for i, v in enumerate(sorted(values))}
                            for field, values in every.items()}
        self._scanners: dict[str, object] = {}
        self._wanted: dict[tuple[str, tuple], np.ndarray] = {}  # a test's literal ids
        # For ``possible``: each alternative's condition, which alternatives have no literal
        # test, and per field the (alternative, literal id) pairs of those that have one.
        alternatives = [(c, alt) for c, cond in enumerate(conditions_list)
                        for alt in cond.alternatives]
        self._conditions = len(conditions_list)
        self._condition_of = np.array([c for c, _ in alternatives], np.int64)
        self._unindexed = np.ones(len(alternatives), bool)
        pairs: dict[str, list[tuple[int, int]]] = {}
        for a, (_, alt) in enumerate(alternatives):
            pred = literal_test(alt)
            if pred is not None:
                self._unindexed[a] = False
                ids = self.literal_ids[pred.field]
                pairs.setdefault(pred.field, []).extend((a, ids[str(v)]) for v in pred.values)
        self._pairs = {field: np.array(found, np.int64).reshape(-1, 2)
                       for field, found in pairs.items()}

    def _hits(self, field: str, batch: pa.RecordBatch, cache: dict
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The rows of ``batch`` that hold each literal of ``field`` (one Hyperscan pass per
        batch, ``cache``): where each literal's rows begin, the rows by literal, and the rows
        that hold non-ASCII text; None when there is no index for the field."""
        ids = self.literal_ids.get(field)
        if ids is None:
            return None
        if field not in self._scanners:
            from plogscan.parse.literals import LiteralScanner

            self._scanners[field] = LiteralScanner.build(tuple(ids))
        scanner = self._scanners[field]
        if scanner is None:
            return None
        key = ("literal-hits", field)
        if key not in cache:
            found, rows, non_ascii = _scanned(scanner, batch, field, cache)
            order = np.argsort(found, kind="stable")  # rows by literal; starts: where each begins
            starts = np.zeros(len(ids) + 1, np.int64)
            np.cumsum(np.bincount(found, minlength=len(ids)), out=starts[1:])
            cache[key] = (starts, rows[order], non_ascii)
        return cache[key]

    def possible(self, batch: pa.RecordBatch, cache: dict) -> np.ndarray:
        """Which of the conditions (in the order given) can hold on some record of ``batch``:
        one that has an alternative without a literal test, or one whose literal some record
        may hold (``literal_rows``: a condition it marks false has no rows there). One
        vectorized test for every rule, instead of a step per rule."""
        alive = self._unindexed.copy()
        for field, pairs in self._pairs.items():
            hits = self._hits(field, batch, cache)
            if hits is None or hits[2].size:
                alive[pairs[:, 0]] = True
                continue
            starts = hits[0]
            present = starts[1:] > starts[:-1]
            alive[pairs[present[pairs[:, 1]], 0]] = True
        out = np.zeros(self._conditions, bool)
        out[self._condition_of[alive]] = True
        return out

    def literal_rows(self, pred: Predicate, batch: pa.RecordBatch, cache: dict
                     ) -> np.ndarray | None:
        """Rows of ``batch`` that may satisfy the literal test ``pred`` (a superset), or None
        when there is no Hyperscan index for its field."""
        hits = self._hits(pred.field, batch, cache)
        if hits is None:
            return None
        starts, rows, non_ascii = hits
        wanted = self._wanted.get((pred.field, pred.values))
        if wanted is None:
            ids = self.literal_ids[pred.field]
            wanted = self._wanted[(pred.field, pred.values)] = np.asarray(
                sorted(ids[str(v)] for v in pred.values), np.int64)
        lo, hi = starts[wanted], starts[wanted + 1]
        if not non_ascii.size and not (hi - lo).any():  # most literals, in most batches
            return NO_ROWS
        parts = [rows[a:b] for a, b in zip(lo, hi, strict=True)] + [non_ascii]
        return distinct_values(np.concatenate(parts))

    def rows(self, pred: Predicate, batch: pa.RecordBatch, cache: dict) -> np.ndarray | None:
        """Rows of ``batch`` where ``pred`` may hold, or None when it is not prefiltered."""
        pattern = self.patterns.get(pred.field)
        if pattern is None or pred.op not in _LITERAL_OPS:
            return None
        key = ("prefilter", pred.field)
        if key not in cache:
            hit = pc.match_substring_regex(batch.column(pred.field), pattern)
            cache[key] = np.flatnonzero(hit.fill_null(False).to_numpy(zero_copy_only=False))
        return cache[key]


def _scanned(scanner: Any, batch: pa.RecordBatch, field: str, cache: dict
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``LiteralScanner.matches`` of a text column: (literal ids, rows) of every match and the
    rows of non-ASCII text. When at most half the values are distinct (log lines repeat),
    the distinct ones are scanned and their matches spread to their rows, with the column's
    encoding that the rules' tests of the same field share (``distinct.repeating``)."""
    encoded = distinct.repeating(batch, field, cache)
    if encoded is None:
        column = batch.column(field)
        if distinct.repeats(column) and not pa.types.is_list(column.type):
            return scanner.scan_rows(column)  # encoded already, and found mostly distinct
        return scanner.matches(column)
    from plogscan.parse.literals import spread_matches

    return spread_matches(encoded.index, *scanner.scan_rows(encoded.values))
