"""The operators a rule's ``field|op`` may use: the field kinds each accepts, its cost class,
and the checks of a regex; the vocabulary the rule files are validated against.

The masks that evaluate them over a batch are the engine's (``engine.predicates.MASKS``, a test
holds the two to the same names).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from plogscan.schema import EVENT_SCHEMA


def _kind(t: pa.DataType) -> str | None:
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "str"
    if pa.types.is_integer(t):
        return "int"
    if pa.types.is_boolean(t):
        return "bool"
    if pa.types.is_list(t):
        return "list"
    return None  # timestamps: ordered and windowed by the engine, not matched


FIELD_KINDS: dict[str, str] = {
    f.name: k for f in EVENT_SCHEMA if (k := _kind(f.type)) is not None  # type: ignore[misc]
}


@dataclass(frozen=True)
class Operator:
    """One ``field|op``: the field kinds it accepts and its cost class (its mask is
    ``engine.predicates.MASKS[op]``)."""

    kinds: frozenset[str]
    cost: int  # 0 exact, 1 literal substring, 2 regex: evaluated in this order
    single: bool = False  # takes exactly one value (no OR list)
    value_kind: str | None = None  # the kind of its values when not the field's own
    captures: tuple[str, ...] = ()  # the names it captures (``re``: the pattern's groups)


_TEXT = frozenset({"str", "list"})
OPERATORS: dict[str, Operator] = {
    "eq": Operator(frozenset({"str", "int", "bool", "list"}), 0),
    "in": Operator(frozenset({"str", "int", "bool", "list"}), 0),
    "contains": Operator(_TEXT, 1),
    "startswith": Operator(_TEXT, 1),
    "endswith": Operator(_TEXT, 1),
    "re": Operator(_TEXT, 2),
    "gte": Operator(frozenset({"int"}), 0, single=True),
    "lte": Operator(frozenset({"int"}), 0, single=True),
    # ``codes|known: true``: a code of the record is in the code tables with a failure class;
    # captures the most telling such code and its class (``plogscan.codes.most_specific``).
    "known": Operator(frozenset({"list"}), 0, single=True, value_kind="true",
                      captures=("code", "code_category")),
}

_GROUP = re.compile(r"\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>")
# RE2 bounds the compiled program (repetition counts, its memory budget); a pattern is also
# compiled once per batch of records, so its text is bounded too.
MAX_REGEX_CHARS = 4096


def regex_groups(pattern: str) -> tuple[str, ...]:
    """Named groups of an RE2 pattern, in order of appearance."""
    return tuple(_GROUP.findall(pattern))


def check_regex(pattern: str) -> str | None:
    """Why an RE2 pattern cannot be used (compiled by Arrow's RE2), or None when it is fine."""
    names = regex_groups(pattern)
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        return f"named group '{dupes[0]}' appears twice in one pattern"
    probe = pa.array([""], pa.large_string())
    try:
        pc.match_substring_regex(probe, pattern)
        if names:
            pc.extract_regex(probe, pattern)
    except pa.ArrowInvalid as err:
        text = str(err)
        if "unnamed groups" in text:
            return "a pattern with named groups must not also have unnamed groups; write (?:...)"
        return text
    return None
