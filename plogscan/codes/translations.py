"""Read the ``i18n`` blocks of the code tables: the Chinese (and any later language's) text of
an entry, a table title, a torch_npu error type or the error-manager component names.

The shape follows the rules' ``i18n`` (``rules/README.md``): ``i18n: {zh: {field: text}}``
beside the English fields it translates. A language that is present translates every human
text field the English has (``meaning``, ``note``, ``torch_npu``...), one for one; a key that
translates nothing, an unknown language, a non-text or empty value is a located error. A
table part without ``i18n`` loads (reports fall back to English); the test suite demands the
Chinese for every shipped entry.
"""

from __future__ import annotations

from collections.abc import Mapping

from plogscan.datafile.fields import Doc
from plogscan.datafile.located import LMap
from plogscan.lang import LANGS

TRANSLATED: tuple[str, ...] = tuple(lang for lang in LANGS if lang != "en")
# The human text fields of an entry; every other field is an identifier, a number, a source
# or a category, shown as written in every language.
TEXT_FIELDS: tuple[str, ...] = ("meaning", "note", "torch_npu", "desc", "error_str", "short")
Texts = tuple[tuple[str, tuple[tuple[str, str], ...]], ...]  # ((lang, ((field, text)...))...)


def read(f: Doc, m: LMap, what: str, english: Mapping[str, str],
         translatable: tuple[str, ...] = TEXT_FIELDS) -> Texts:
    """``m["i18n"]``, checked against ``english`` (field -> English text of this part): each
    language must give exactly the fields ``english`` has. Returns ``()`` without ``i18n``."""
    if "i18n" not in m:
        return ()
    langs = f.mapping(m["i18n"], m.value_lines["i18n"], f"'i18n' of {what}")
    if langs is None:
        return ()
    out: list[tuple[str, tuple[tuple[str, str], ...]]] = []
    for lang in langs:
        if lang not in TRANSLATED:
            f.error(f"unknown language '{lang}' in i18n of {what}", langs.key_lines[lang],
                    help="valid choices are: " + ", ".join(TRANSLATED)
                    + " (English is the table's base text)")
            continue
        texts = _language(f, langs, lang, what, english, translatable)
        if texts is not None:
            out.append((lang, texts))
    return tuple(sorted(out))


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
    if "i18n" not in m:
        return {}
    langs = f.mapping(m["i18n"], m.value_lines["i18n"], "'i18n' of 'components'")
    out: dict[str, dict[str, str]] = {}
    for lang in langs or {}:
        if lang not in TRANSLATED:
            f.error(f"unknown language '{lang}' in i18n of 'components'",
                    langs.key_lines[lang],  # type: ignore[union-attr]
                    help="valid choices are: " + ", ".join(TRANSLATED))
            continue
        label = f"i18n '{lang}' of 'components'"
        t = f.mapping(langs[lang], langs.value_lines[lang], label)  # type: ignore[index,union-attr]
        if t is None:
            continue
        f.keys(t, label, ("letters",), ("letters",))
        names = f.mapping(t.get("letters"), t.value_lines.get("letters", t.line),
                          f"'letters' of {label}") if "letters" in t else None
        if names is None:
            continue
        found: dict[str, str] = {}
        for letter in names:
            if letter not in english:
                f.error(f"component letter '{letter}' in {label} is not an English letter",
                        names.key_lines[letter],
                        help="valid letters are: " + ", ".join(english))
                continue
            text = f.text(names, letter, label)
            if text is not None:
                found[letter] = text
        missing = [letter for letter in english if letter not in names]
        if missing:
            f.error(f"{label} is missing component letter(s) " + ", ".join(missing), names.line,
                    help="name every component the English 'letters' names")
        out[lang] = found
    return out


def pick(texts: Texts, lang: str) -> dict[str, str]:
    """The texts of ``lang`` (empty for English or a language not given)."""
    for code, pairs in texts:
        if code == lang:
            return dict(pairs)
    return {}
