"""The report languages, how the default one is chosen, and the catalogues of fixed words.

Rules are written in English with translations (``i18n`` in a rule file); reports and rule
texts can be shown in any language listed here. The default follows the user's locale, so a
user on a Chinese system gets Chinese without asking; ``PLOGSCAN_LANG`` overrides the locale.

The words plogscan composes itself (report headings, the cross-rank stage's sentences, the
engine's scope words) live in ``Catalogue`` tables keyed by their English form: English uses
the key unchanged, so an English report stays exactly as written, and a text without a
translation falls back to English. ``missing_translations()`` records every such fallback
while it is active, so a test can demand that a report asks for no text its language lacks.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

LANGS: tuple[str, ...] = ("en", "zh")  # "en" is the base language of every text
ENV_VAR = "PLOGSCAN_LANG"


def locale_lang(environ: Mapping[str, str] | None = None) -> str:
    """The language of the locale: ``zh`` when the first set of ``LC_ALL``, ``LC_MESSAGES``,
    ``LANG`` starts with ``zh`` (``zh_CN.UTF-8``...), else ``en``."""
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def default_lang(environ: Mapping[str, str] | None = None) -> str:
    """``PLOGSCAN_LANG`` when it names a known language, else the locale's language."""
    env = os.environ if environ is None else environ
    chosen = env.get(ENV_VAR, "").strip().lower()
    return chosen if chosen in LANGS else locale_lang(env)


_WATCHERS: list[set[tuple[str, str, str]]] = []


@contextmanager
def missing_translations() -> Iterator[set[tuple[str, str, str]]]:
    """While active, collects ``(catalogue, lang, english)`` for every text asked of a
    catalogue in a language that has no translation of it."""
    found: set[tuple[str, str, str]] = set()
    _WATCHERS.append(found)
    try:
        yield found
    finally:
        _WATCHERS.remove(found)


class Catalogue:
    """Fixed words keyed by their English form, with their translations per language.

    ``catalogue(lang, english, **values)`` is the text in ``lang`` with its ``{name}``
    placeholders filled (the English text when untranslated, reported to
    ``missing_translations``); English texts never go through the tables."""

    def __init__(self, name: str, tables: Mapping[str, Mapping[str, str]]) -> None:
        self.name = name
        self.tables = tables

    def __call__(self, lang: str, english: str, **values: object) -> str:
        text = english
        if lang != "en":
            found = self.tables.get(lang, {}).get(english)
            if found is None:
                for watcher in _WATCHERS:
                    watcher.add((self.name, lang, english))
            else:
                text = found
        return text.format(**values) if values else text

    def count(self, lang: str, n: int, one: str, many: str, **values: object) -> str:
        """``one`` or ``many`` by ``n`` (English plural rules), ``{n}`` with thousands
        separators: ``count(lang, 3, "{n} line", "{n} lines")``."""
        return self(lang, one if n == 1 else many, n=f"{n:,}", **values)
