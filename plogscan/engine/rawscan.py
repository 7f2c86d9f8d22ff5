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

from plogscan.engine.rule import Predicate
from plogscan.parse.codescan import QUIET_LEVELS

# Fields whose value is text of the record's own lines, as written.
RAW_FIELDS = frozenset({"message", "module", "proc", "src_file", "level"})
_ASSERTIONS = frozenset("bBAzZ")
_LITERAL_OPS = frozenset({"contains", "startswith", "endswith", "eq", "in"})


def superset_regex(pattern: str) -> str | None:
    """``pattern`` (RE2) without zero-width assertions and with its named groups unnamed:
    it matches every text in which the original matches a piece. None when the pattern holds
    a construct this does not take apart (``\\Q...\\E``), or nothing is left."""
    out: list[str] = []
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 >= n:
                return None
            nxt = pattern[i + 1]
            if nxt == "Q":
                return None
            if not in_class and nxt in _ASSERTIONS:
                i += 2
                continue
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            if pattern.startswith("[:", i):
                end = pattern.find(":]", i + 2)
                if end < 0:
                    return None
                out.append(pattern[i:end + 2])
                i = end + 2
                continue
            if c == "]":
                in_class = False
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            start = i + 1
            if pattern.startswith("^", start):
                start += 1
            if pattern.startswith("]", start):  # a "]" first in a class is a literal
                start += 1
            out.append(pattern[i:start])
            i = start
            continue
        if c in "^$":
            i += 1
            continue
        if pattern.startswith("(?P<", i) or (pattern.startswith("(?<", i)
                                             and not pattern.startswith("(?<=", i)
                                             and not pattern.startswith("(?<!", i)):
            end = pattern.find(">", i)
            if end < 0:
                return None
            out.append("(?:")
            i = end + 1
            continue
        out.append(c)
        i += 1
    if in_class:
        return None
    text = "".join(out)
    return text if text.strip("()?:|") else None


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
