"""A regular expression loosened into one that matches wherever the original matches a piece.

Two stages test text with many patterns and want a cheap first pass that may say yes too often
but never no too often: the skim (``parse.skim``, through ``engine.rawscan``) looks for rule
patterns anywhere in raw lines, and the line matcher (``parse.linematch``) tests all its
secondary formats at once before trying them one by one. Both take each pattern without its
zero-width assertions and with its named groups unnamed (so that many can share one
alternation).
"""

from __future__ import annotations

from collections.abc import Sequence

_ASSERTIONS = frozenset("bBAzZ")


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


def start_pretest(patterns: Sequence[str]) -> str | None:
    """One RE2 pattern that matches at the start of every text that one of ``patterns``
    matches at its start (and of some others); None when one cannot be loosened."""
    loose = [superset_regex(pattern) for pattern in patterns]
    if not loose or any(text is None for text in loose):
        return None
    return "^(?:" + "|".join(f"(?:{text})" for text in loose) + ")"
