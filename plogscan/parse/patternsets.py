"""Sets of RE2 patterns tested on rows of text, with one Hyperscan scan first.

Several stages ask RE2 whether some patterns match many rows that they rarely match: the
selector's extra patterns over every message of a chunk, and each narrowed alternative's
patterns over the records that hold its literal (``engine.narrowing``: on the parsed field,
and on the records' raw text in ``parse.skim``). RE2 costs about a microsecond for a row and a
pattern there. A ``PatternSets`` answers them all with one Hyperscan scan of the rows asked
about, with the loosened form of every pattern of every set (``parse.superset``: it matches
wherever the pattern matches a piece); RE2 then runs only where a set's own pattern may
match. The answer is RE2's, row for row:

* on ASCII text a loosened pattern, read by Hyperscan, matches wherever RE2 finds the pattern
  (Hyperscan's case folding and classes are ASCII's, as RE2's are on ASCII text);
* a row that holds non-ASCII text goes to RE2 whatever the scan says (Hyperscan reads bytes
  and RE2 characters: ``.`` takes one whole character, ``(?i)`` folds the Kelvin sign);
* the rows are scanned end to end, so a match may span two of them: it only sends a row to
  RE2.

Without Hyperscan, or with a pattern it cannot take, RE2 runs on every row asked about.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from plogscan.parse.arrays import distinct
from plogscan.parse.arrowtext import any_match
from plogscan.parse.literals import LiteralScanner, non_ascii_rows
from plogscan.parse.superset import superset_regex


class PatternSet(tuple):
    """The patterns of one set of a ``PatternSets``: a tuple of RE2 texts, as any caller
    reads them, that knows its sets (``sets``) and its number among them (``number``)."""

    sets: PatternSets
    number: int


class PatternSets:
    """Sets of RE2 patterns, each tested on its own rows of the same texts."""

    def __init__(self, sets: Sequence[Sequence[str]]) -> None:
        self.sets = tuple(tuple(patterns) for patterns in sets)
        loosened = [superset_regex(p) for patterns in self.sets for p in patterns]
        self.loosened: tuple[str, ...] | None = tuple(
            p for p in loosened if p is not None) if None not in loosened else None
        # The set of each pattern of the database (its ids in this order).
        self.owner = np.repeat(np.arange(len(self.sets)), [len(p) for p in self.sets])
        self.members = tuple(_member(patterns, self, k) for k, patterns in enumerate(self.sets))
        self.scanner: LiteralScanner | None = None

    def __getstate__(self) -> dict:
        return {**self.__dict__, "scanner": None}  # a compiled database stays in its process

    def _scanner(self) -> LiteralScanner | None:
        if self.loosened and self.scanner is None:
            self.scanner = LiteralScanner.build((), self.loosened)
            if self.scanner is None:  # a pattern Hyperscan cannot take: RE2 alone
                self.loosened = None
        return self.scanner

    def mask(self, texts: pa.Array) -> np.ndarray:
        """The rows of ``texts`` that a pattern of some set matches."""
        rows = np.arange(len(texts))
        found = np.zeros(len(texts), bool)
        for hit in self.matching(texts, [(k, rows) for k in range(len(self.sets))]):
            found |= hit
        return found

    def matching(self, texts: pa.Array, asked: Sequence[tuple[int, np.ndarray]]
                 ) -> list[np.ndarray]:
        """For each (set number, rows of ``texts``) of ``asked``: a mask over those rows, where
        one of that set's patterns matches the row's text."""
        out = []
        for (number, rows), may in zip(asked, self._maybe(texts, asked), strict=True):
            hit = np.zeros(len(rows), bool)
            test = np.flatnonzero(may)
            if len(test):
                hit[test] = any_match(texts.take(pa.array(rows[test])), self.sets[number])
            out.append(hit)
        return out

    def _maybe(self, texts: pa.Array, asked: Sequence[tuple[int, np.ndarray]]
               ) -> list[np.ndarray]:
        """For each entry of ``asked``, the rows where the set may match (RE2 decides)."""
        scanner = self._scanner()
        if scanner is None or not asked:
            return [np.ones(len(rows), bool) for _number, rows in asked]
        union = distinct(np.concatenate([rows for _number, rows in asked]))
        if len(union) == 0:
            return [np.zeros(0, bool) for _number in asked]
        sub = texts if len(union) == len(texts) else texts.take(pa.array(union))
        ids, at, _ = scanner.matches(sub)  # ``at``: positions in ``union``
        owners = self.owner[ids]  # the set of each match's pattern
        loose = np.zeros(len(union), bool)
        loose[non_ascii_rows(sub)] = True
        out = []
        for number, rows in asked:
            may = loose.copy()  # flags over ``union``: where this set may match
            may[at[owners == number]] = True
            out.append(may[np.searchsorted(union, rows)])
        return out


def _member(patterns: tuple[str, ...], sets: PatternSets, number: int) -> PatternSet:
    member = PatternSet(patterns)
    member.sets, member.number = sets, number
    return member


def matching(texts: pa.Array, asked: Sequence[tuple[Sequence[str], np.ndarray]]
             ) -> list[np.ndarray]:
    """For each (patterns, rows of ``texts``) of ``asked``: a mask over those rows, where one
    of the patterns matches. One scan for all when every entry's patterns are a
    ``PatternSet`` of the same sets; else RE2 on every row asked about."""
    members = [patterns for patterns, _rows in asked]
    if members and all(isinstance(p, PatternSet) for p in members):
        sets = {id(p.sets): p.sets for p in members if isinstance(p, PatternSet)}
        if len(sets) == 1:
            return next(iter(sets.values())).matching(
                texts, [(p.number, rows) for p, rows in asked if isinstance(p, PatternSet)])
    return [any_match(texts.take(pa.array(rows)), patterns) if len(rows) else
            np.zeros(0, bool) for patterns, rows in asked]
