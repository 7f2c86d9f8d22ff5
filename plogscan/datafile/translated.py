"""The ``i18n`` block of a part of a data file (a rule, a code-table entry): which languages it
translates, each read by the caller's own reader.

Rules and code tables share the shape ``i18n: {lang: {...}}`` beside the English they
translate. Walking the block is the same for all of them: a missing block is no translation,
a language that is not one of plogscan's is a located error listing the valid ones, and every
other language's mapping goes to ``read``, which checks it against the English and returns
what the language gives (or None when it reported an error).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from plogscan.datafile.fields import Doc
from plogscan.datafile.located import LMap
from plogscan.lang import LANGS

TRANSLATED: tuple[str, ...] = tuple(lang for lang in LANGS if lang != "en")
T = TypeVar("T")


def each_language(doc: Doc, m: LMap, of: str, base: str | None,
                  read: Callable[[LMap, str], T | None]) -> list[tuple[str, T]]:
    """``read(langs, lang)`` for every language of ``m["i18n"]``, in the file's order, as
    ``(lang, result)``. ``of`` names the part in messages (``" of 'components'"``, or ``""``
    for a rule); ``base`` says whose base text English is, for the unknown-language help."""
    if "i18n" not in m:
        return []
    langs = doc.mapping(m["i18n"], m.value_lines["i18n"], f"'i18n'{of}")
    if langs is None:
        return []
    out: list[tuple[str, T]] = []
    for lang in langs:
        if lang not in TRANSLATED:
            doc.error(f"unknown language '{lang}' in i18n{of}", langs.key_lines[lang],
                      help="valid choices are: " + ", ".join(TRANSLATED)
                      + (f" (English is the {base}'s base text)" if base else ""))
            continue
        result = read(langs, lang)
        if result is not None:
            out.append((lang, result))
    return out
