"""Read the ``i18n`` blocks of the code tables: the Chinese (and any later language's) text of
an entry, a table title, a torch_npu error type or the error-manager component names.

The shape follows the rules' ``i18n`` (``rules/README.md``): ``i18n: {zh: {field: text}}``
beside the English fields it translates. A language that is present translates every human
text field the English has (``meaning``, ``remedy``, ``note``, ``torch_npu``...), one for
one; a key that translates nothing, an unknown language, a non-text or empty value is a
located error. A table part without ``i18n`` loads (reports fall back to English); the test
suite demands the Chinese for every shipped entry.
"""

from __future__ import annotations

from collections.abc import Mapping

from plogscan.datafile.fields import Doc
from plogscan.datafile.located import LMap
from plogscan.datafile.translated import each_language

# The human text fields of an entry; every other field is an identifier, a number, a source
# or a category, shown as written in every language.
TEXT_FIELDS: tuple[str, ...] = ("meaning", "remedy", "note", "torch_npu", "desc", "error_str",
                                 "short")
Texts = tuple[tuple[str, tuple[tuple[str, str], ...]], ...]  # ((lang, ((field, text)...))...)


def read(f: Doc, m: LMap, what: str, english: Mapping[str, str],
         translatable: tuple[str, ...] = TEXT_FIELDS) -> Texts:
    """``m["i18n"]``, checked against ``english`` (field -> English text of this part): each
    language must give exactly the fields ``english`` has. Returns ``()`` without ``i18n``."""
    found = each_language(f, m, f" of {what}", "table", lambda langs, lang: _language(
        f, langs, lang, what, english, translatable))
    return tuple(sorted(found))


def _language(f: Doc, langs: LMap, lang: str, what: str, english: Mapping[str, str],
              translatable: tuple[str, ...]) -> tuple[tuple[str, str], ...] | None:
    label = f"i18n '{lang}' of {what}"
    t = f.mapping(langs[lang], langs.value_lines[lang], label)
    if t is None:
        return None
    ok = True
    for key in t:
        if key in english:
            continue
        ok = False
        if key in translatable:
            f.error(f"'{key}' in {label} translates nothing: {what} has no English '{key}'",
                    t.key_lines[key], help=_valid(english))
        else:
            f.error(f"unknown key '{key}' in {label}", t.key_lines[key], help=_valid(english))
    texts: list[tuple[str, str]] = []
    for key in english:
        if key not in t:
            f.error(f"{label} is missing '{key}'", t.line,
                    help=f"translate every text {what} has: " + ", ".join(english))
            ok = False
            continue
        text = f.text(t, key, label)
        if text is None:
            ok = False
        else:
            texts.append((key, text))
    return tuple(texts) if ok else None


def _valid(english: Mapping[str, str]) -> str:
    return "valid keys here are: " + ", ".join(english) if english else \
        "this part has no text to translate"


def letters(f: Doc, m: LMap, english: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """``components.i18n``: ``{lang: {letters: {letter: name}}}``, naming every English
    letter and no other. Returns ``{lang: {letter: name}}``."""
    return dict(each_language(f, m, " of 'components'", None,
                              lambda langs, lang: _letters(f, langs, lang, english)))


def _letters(f: Doc, langs: LMap, lang: str, english: Mapping[str, str]
             ) -> dict[str, str] | None:
    """One language's ``letters``: a name for every English letter and no other."""
    label = f"i18n '{lang}' of 'components'"
    t = f.mapping(langs[lang], langs.value_lines[lang], label)
    if t is None:
        return None
    f.keys(t, label, ("letters",), ("letters",))
    names = f.mapping(t.get("letters"), t.value_lines.get("letters", t.line),
                      f"'letters' of {label}") if "letters" in t else None
    if names is None:
        return None
    found: dict[str, str] = {}
    for letter in names:
        if letter not in english:
            f.error(f"component letter '{letter}' in {label} is not an English letter",
                    names.key_lines[letter], help="valid letters are: " + ", ".join(english))
            continue
        text = f.text(names, letter, label)
        if text is not None:
            found[letter] = text
    missing = [letter for letter in english if letter not in names]
    if missing:
        f.error(f"{label} is missing component letter(s) " + ", ".join(missing), names.line,
                help="name every component the English 'letters' names")
    return found


def pick(texts: Texts, lang: str) -> dict[str, str]:
    """The texts of ``lang`` (empty for English or a language not given)."""
    for code, pairs in texts:
        if code == lang:
            return dict(pairs)
    return {}
