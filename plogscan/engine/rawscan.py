"""The selector's test as expressions over raw log text, for skimming before the parse.

``parse.skim`` skips records that no rule can use without parsing them. To know which, it
needs expressions that match somewhere in a record's raw lines whenever the selector would
keep the record: a *superset* test over bytes. For a record the skim may skip (a CANN header
line at a quiet level, its message and continuation lines verbatim after it) that holds for:

* a literal test (``contains``, ``startswith``, ``endswith``, ``eq``, ``in``) of a field whose
  text is a piece of the record's own lines (``RAW_FIELDS``): the literal, case-insensitive;
* an ``re`` test of such a field: the pattern without its zero-width assertions (``^``,
  ``$``, ``\\b``...), which then matches wherever the original matched a piece of the field;
* a test of the level that only levels above INFO pass, and ``codes`` tests (codes are read
  only from records above INFO, see ``parse.codescan``): the skim parses those records anyway.

A rule set with any other kind of alternative (a test of the path, of a number) gets no raw
expressions, and its chunks are parsed whole, as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from plogscan.catalog.rule import Predicate
from plogscan.parse.codescan import QUIET_LEVELS
from plogscan.parse.superset import superset_regex

# Fields whose value is text of the record's own lines, as written.
RAW_FIELDS = frozenset({"message", "module", "proc", "src_file", "level"})
_LITERAL_OPS = frozenset({"contains", "startswith", "endswith", "eq", "in"})


def _raw_alternative(alt: Sequence[Predicate]) -> tuple[list[str], list[str]] | None:
    """(literals, regexes) one of which matches the raw text of every record ``alt``
    accepts that the skim could skip; empty lists when the skim never skips such a record;
    None when no predicate of ``alt`` gives such a test."""
    for pred in alt:
        if pred.field == "level" and pred.op in ("eq", "in") and not (
                {str(v).upper() for v in pred.values} & set(QUIET_LEVELS)):
            return [], []
        if pred.field == "codes":
            return [], []
        if pred.field not in RAW_FIELDS:
            continue
        if pred.op in _LITERAL_OPS:
            return [str(v) for v in pred.values], []
        if pred.op == "re":
            regexes = [superset_regex(str(v)) for v in pred.values]
            if all(r is not None for r in regexes):
                return [], [r for r in regexes if r is not None]
    return None


def raw_expressions(alternatives: Iterable[Sequence[Predicate]], extra_regexes: Iterable[str]
                    ) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """Case-insensitive literals and case-sensitive regexes whose matches cover every record
    the alternatives (and the ``extra_regexes`` of the message) accept; None when some
    alternative cannot be covered."""
    literals: set[str] = set()
    regexes: list[str] = []
    for alt in alternatives:
        found = _raw_alternative(alt)
        if found is None:
            return None
        literals.update(found[0])
        regexes.extend(found[1])
    for pattern in extra_regexes:
        regex = superset_regex(pattern)
        if regex is None:
            return None
        regexes.append(regex)
    return tuple(sorted(literals)), tuple(dict.fromkeys(regexes))
