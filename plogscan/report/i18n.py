"""The fixed words of the reports (headings, labels, sentences) in every report language.

Texts are keyed by their English form (``plogscan.lang.Catalogue``), so an English report uses
them unchanged and a missing translation falls back to English (tests demand none is missing:
``tests/e2e/test_zh_complete.py``). Rule texts (titles, descriptions, remediation) are not here:
they come translated from the rule files (``i18n``); code meanings come from the code tables.
Keys with ``{name}`` are format strings. The tables themselves are in ``i18n_zh`` (and
``i18n_zh_html`` for the HTML report).

Besides ``tr``, the helpers here give the words of the model's enumerations (levels, verdicts,
the root-cause verdicts, clock bases, the cross-rank signals), the implicit step name of
single-record rules, lists joined the way a language joins them, and ingest's reasons for
skipping a file.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from plogscan.lang import Catalogue
from plogscan.model import Level, Verdict
from plogscan.report.i18n_zh import ERRORS_ZH, INGEST_ZH, LEVELS_ZH, SIGNALS_ZH, UI_ZH
from plogscan.report.i18n_zh_html import HTML_ZH

UI: dict[str, dict[str, str]] = {"zh": {**UI_ZH, **HTML_ZH}}
LEVEL_NAMES: dict[str, dict[Level, str]] = {
    "zh": {Level(name): text for name, text in LEVELS_ZH.items()},
}
# The cross-rank signals' names; English names a signal by its id, as the JSON report does.
SIGNAL_NAMES: dict[str, dict[str, str]] = {"zh": SIGNALS_ZH}
# How ingest words why it skipped a file or what went wrong reading one (``plogscan.ingest``):
# (English pattern, template) pairs; the pattern's named groups (an OS error, a path, a
# number) fill the template as they are.
INGEST: dict[str, tuple[tuple[str, str], ...]] = {"zh": INGEST_ZH}
# The CLI's error messages, their help lines and labels, the same way (``error_text``).
ERRORS: dict[str, tuple[tuple[str, str], ...]] = {"zh": ERRORS_ZH}
_AFTER = re.compile(r"(?P<head>.*) \(after (?P<n>[0-9]+) members?\)")
_SEPARATORS = {"zh": "、"}

tr = Catalogue("report", UI)


def count(lang: str, n: int, one: str, many: str, **values: object) -> str:
    """``1 line`` / ``3 lines`` in ``lang``: ``one`` or ``many`` with ``{n}`` filled."""
    return tr.count(lang, n, one, many, **values)


def level_word(lang: str, level: Level) -> str:
    """A severity in running text: ``critical`` / ``严重``."""
    return LEVEL_NAMES.get(lang, {}).get(level, level.value)


def level_heading(lang: str, level: Level) -> str:
    """A severity as a section heading: ``CRITICAL`` / ``严重``."""
    return LEVEL_NAMES.get(lang, {}).get(level, level.value.upper())


def verdict_word(lang: str, verdict: Verdict | str) -> str:
    """A finding's verdict (``match`` / ``not_evaluable``) or a root-cause verdict
    (``localized`` / ``ambiguous`` / ``undetermined``) in words."""
    return tr(lang, verdict.value if isinstance(verdict, Verdict) else verdict)


def signal_word(lang: str, signal: str) -> str:
    """A cross-rank signal in words: ``wait-chain`` / ``等待链末端``."""
    return SIGNAL_NAMES.get(lang, {}).get(signal, signal)


def step_word(lang: str, step: str) -> str:
    """An evidence step's name: a rule's own step ids as written, the implicit step of a
    single-record rule (``match``) in words."""
    return tr(lang, "match") if step == "match" else step


def listing(lang: str, parts: list[str]) -> str:
    """``a, b, c`` (``a、b、c`` in Chinese)."""
    return _SEPARATORS.get(lang, ", ").join(parts)


def ingest_text(lang: str, text: str) -> str:
    """A skip reason or a file problem of ingest in ``lang``; other wording (a problem a
    stage reports in its own words) stays as it is. Every reason ingest can give has its
    pattern (tested against ingest's source)."""
    if lang == "en":
        return text
    after = _AFTER.fullmatch(text)
    if after is not None:
        return tr(lang, "{reason} (after {n} members)", reason=ingest_text(lang, after["head"]),
                  n=after["n"])
    return _patterned(INGEST.get(lang, ()), text, lambda detail: ingest_text(lang, detail))


def error_text(lang: str, text: str) -> str:
    """An error message, its help or its label (``error: ``) in ``lang``, for the CLI; a
    message without a pattern (a located error in a rule or format file, worded for the file's
    author) stays English."""
    if lang == "en":
        return text
    return _patterned(ERRORS.get(lang, ()), text, lambda detail: error_text(lang, detail))


def _patterned(table: tuple[tuple[str, str], ...], text: str,
               again: Callable[[str], str]) -> str:
    """``text`` through the first (pattern, template) of ``table`` that matches it whole; a
    group named ``detail…`` (words of their own: what a limit stopped, what could not be
    written) goes through ``again``, the other groups (paths, numbers, OS errors) stay as they
    are."""
    for pattern, template in table:
        m = re.fullmatch(pattern, text, re.DOTALL)
        if m is not None:
            return template.format(**{name: again(value) if name.startswith("detail") else value
                                      for name, value in m.groupdict().items()})
    return text
