"""Which bytes a line must start with for a pattern to match it.

Lines that no format can match (the indented detail lines of multi-line records, mostly) are
then left out before any regex runs on them. The analysis reads the pattern's parse tree
(Python's ``re`` parser; format patterns are the RE2 subset that both accept) and is
conservative: whenever it is unsure, it answers "any byte".
"""

from __future__ import annotations

import string

try:
    from re import _parser as sre_parse  # Python >= 3.11
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse  # type: ignore[no-redef]

ANY = None  # "any byte may start a match"
_ASCII = range(128)
_HIGH = set(range(128, 256))  # first bytes of non-ASCII characters: always allowed
_CATEGORIES = {
    "CATEGORY_DIGIT": set(string.digits.encode()),
    "CATEGORY_WORD": set((string.ascii_letters + string.digits + "_").encode()) | _HIGH,
    "CATEGORY_SPACE": set(b" \t\n\r\f\v"),
}


def first_bytes(pattern: str) -> frozenset[int] | None:
    """The bytes a match of ``pattern`` (anchored at the line start) can begin with, or
    ``None`` when any byte can (or the empty string matches)."""
    try:
        tree = sre_parse.parse(pattern)
    except Exception:
        return ANY
    if tree.state.flags & (sre_parse.SRE_FLAG_IGNORECASE | sre_parse.SRE_FLAG_VERBOSE):
        return ANY
    found, nullable = _sequence(list(tree))
    if found is ANY or nullable:
        return ANY
    return frozenset(found)


def _sequence(items: list) -> tuple[set[int] | None, bool]:
    """First bytes of a sequence of parse items, and whether it can match empty."""
    out: set[int] = set()
    for op, av in items:
        name = str(op)
        if name == "AT":  # ^, \b... are zero-width
            continue
        found, nullable = _item(name, av)
        if found is ANY:
            return ANY, False
        out |= found
        if not nullable:
            return out, False
    return out, True


def _item(name: str, av: object) -> tuple[set[int] | None, bool]:
    if name == "LITERAL":
        return {chr(av).encode("utf-8")[0]}, False  # type: ignore[arg-type]
    if name == "IN":
        return _charset(av), False  # type: ignore[arg-type]
    if name == "SUBPATTERN":
        return _sequence(list(av[-1]))  # type: ignore[index]
    if name == "BRANCH":
        out: set[int] = set()
        empty = False
        for branch in av[1]:  # type: ignore[index]
            found, nullable = _sequence(list(branch))
            if found is ANY:
                return ANY, False
            out |= found
            empty |= nullable
        return out, empty
    if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        low, _high, body = av  # type: ignore[misc]
        found, nullable = _sequence(list(body))
        return found, nullable or low == 0
    return ANY, False


def _charset(items: list) -> set[int] | None:
    out: set[int] = set()
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            out.add(chr(av).encode("utf-8")[0])
        elif name == "RANGE":
            low, high = av
            out |= {b for b in _ASCII if low <= b <= high}
            if high >= 128:
                out |= _HIGH
        elif name == "CATEGORY" and str(av) in _CATEGORIES:
            out |= _CATEGORIES[str(av)]
        else:  # NEGATE, NOT_LITERAL, other categories
            return ANY
    return out
