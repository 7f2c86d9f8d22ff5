"""Literal tests narrowed by the ``re`` test of the same field beside them.

The selector keeps a record when it holds the literal of some rule alternative (one Hyperscan
pass finds them all). Many alternatives test a frequent word and a pattern together, such as
``message|contains: heartbeat`` with ``message|re: <tsd ... heartbeat ... lost>``: the record
must hold both. Kept on the literal alone, every heartbeat line of a DEBUG log would reach the
rules (about 6% of the records of ``bench/``'s trees, as many again for a few other words).
So a literal that only such alternatives ask for is not enough by itself: a record that holds
it is kept when one of the alternative's patterns matches too, tested with RE2 on just those
records. The literal pass stays as cheap as before; the patterns run on few rows.

On parsed records the patterns are tested as the rule wrote them, on the field. On raw text
(the skim, before parsing) they are loosened (``parse.superset``: no anchors) and tested on
the whole text of the record, header included: wherever the rule's pattern matches a piece
of the field, the loosened one matches the record's text, so the skim never drops a record
the parsed test would keep.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from plogscan.catalog.rule import Predicate
from plogscan.parse.arrays import distinct
from plogscan.parse.patternsets import PatternSets
from plogscan.parse.superset import superset_regex


@dataclass(frozen=True)
class Narrowed:
    """An alternative's literal test and the ``re`` test of the same field beside it."""

    field: str
    literals: tuple[str, ...]  # case-insensitive, any one
    patterns: tuple[str, ...]  # RE2 as the rule wrote them: any one must match the field
    loosened: tuple[str, ...]  # the same without anchors, for a record's raw text


def narrowed(alt: Sequence[Predicate], literal: Predicate) -> Narrowed | None:
    """The narrowing of ``literal`` (a literal test of ``alt``) by an ``re`` test of the same
    field in ``alt``; None when there is none, when its patterns cannot be loosened, or when
    a pattern matches inside every literal as written (``Already have context, skip create``
    and the pattern that reads its optional ctxSize): then testing it would drop only the
    records that hold the literal in another case, for an RE2 pass over every record that
    holds it."""
    words = tuple(sorted(str(v) for v in literal.values))
    for pred in alt:
        if pred.op != "re" or pred.field != literal.field:
            continue
        patterns = tuple(str(v) for v in pred.values)
        loosened = tuple(superset_regex(p) for p in patterns)
        if any(text is None for text in loosened):
            continue
        if all(_matches_inside(patterns, word) for word in words):
            return None
        return Narrowed(literal.field, words, patterns,
                        tuple(text for text in loosened if text is not None))
    return None


def _matches_inside(patterns: Sequence[str], word: str) -> bool:
    """Whether one of ``patterns`` is found in ``word``, asked of Python's ``re`` (an RE2
    call per pattern cost 14 ms a selector; a pattern ``re`` does not read is taken as not
    found, which only narrows: either answer keeps every record a rule can match)."""
    for pattern in patterns:
        try:
            if re.search(pattern, word):
                return True
        except re.error:
            continue
    return False


@dataclass(frozen=True)
class RawHits:
    """Where the selector's raw expressions match a chunk: end offsets of the matches that
    keep their record by themselves, and, per narrowed alternative, its loosened patterns and
    the end offsets of its literal's matches (their record is kept when a pattern matches
    its text)."""

    ends: np.ndarray
    narrowed: tuple[tuple[tuple[str, ...], np.ndarray], ...] = ()


class Narrowing:
    """Which literal matches keep a unit (a row, or a record of raw text) by themselves, and
    which only with a pattern of the narrowed alternatives their literal belongs to.

    ``literals`` are the ids ``0..len(literals)-1`` of a Hyperscan database; ids past them
    (its regexes) always decide by themselves, as does a literal that some alternative (or
    ``plain``) asks for without narrowing."""

    def __init__(self, literals: Sequence[str], plain: Iterable[str],
                 alternatives: Iterable[Narrowed]) -> None:
        plain = set(plain)
        self.alternatives = tuple(dict.fromkeys(alternatives))
        # Each alternative's patterns, and their loosened forms for raw text, as sets of one
        # ``PatternSets`` each: the alternatives with rows to test are tested in one scan.
        self.number = {alt: k for k, alt in enumerate(self.alternatives)}
        self.patterns = PatternSets([alt.patterns for alt in self.alternatives])
        self.loosened = PatternSets([alt.loosened for alt in self.alternatives])
        index = {text: i for i, text in enumerate(literals)}
        self.unsure = np.zeros(len(literals), bool)
        self.of_literal: dict[int, list[int]] = {}
        for k, alt in enumerate(self.alternatives):
            for text in alt.literals:
                if text in index and text not in plain:
                    self.unsure[index[text]] = True
                    self.of_literal.setdefault(index[text], []).append(k)

    def sure(self, ids: np.ndarray) -> np.ndarray:
        """Boolean mask of the matches (their expression ids) that decide by themselves."""
        inside = ids < len(self.unsure)
        out = np.ones(len(ids), bool)
        out[inside] = ~self.unsure[ids[inside]]
        return out

    def groups(self, ids: np.ndarray, units: np.ndarray
               ) -> list[tuple[Narrowed, np.ndarray]]:
        """For each narrowed alternative with a match among ``ids`` (none of them sure): the
        alternative and the distinct units those matches fall in."""
        found: dict[int, list[np.ndarray]] = {}
        for literal in distinct(ids).tolist():
            picked = units[ids == literal]
            for k in self.of_literal.get(literal, ()):
                found.setdefault(k, []).append(picked)
        return [(self.alternatives[k], distinct(np.concatenate(parts)))
                for k, parts in sorted(found.items())]
