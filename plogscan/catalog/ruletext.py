"""The rule keys about meaning rather than matching: ``role``, ``links``, ``explains``,
``covers``, ``i18n``.

``role`` says whether a rule names a root cause, a fallback (a reading of a record by a
general mechanism, such as the code tables, that only answers where no rule written for the
cause does) or a symptom (a wrapper code, a downstream effect); ``links`` names related rules
so a report can show the chain; ``explains`` names the rules whose findings follow from this
one's (reports put this rule's findings before them); ``covers`` names the rows of the
error-signature catalogue (formats.md §7) the rule implements, for ``plogscan rules
coverage``; ``i18n`` carries the title, description and remediation in other
languages than the English base. Each check records a located error in the ``Doc``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from plogscan.catalog.rule import RuleText
from plogscan.datafile.fields import Doc
from plogscan.datafile.located import LMap
from plogscan.datafile.translated import each_language

ROLES: tuple[str, ...] = ("root-cause", "fallback", "symptom")
CATALOGUE_ROWS = 25  # formats.md §7 has rows 1..25
_ID = re.compile(r"[A-Z]{2,10}[0-9]{3}")
_ROW = re.compile(r"row-([0-9]+)")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def meaning(doc: Doc, m: LMap, own_id: str | None, base: RuleText | None) -> dict[str, Any]:
    """The ``Rule`` fields ``role``, ``links``, ``explains``, ``covers`` and ``i18n`` of rule
    mapping ``m`` (``base`` is its English text, None when that is itself invalid)."""
    return {"role": role(doc, m), "links": links(doc, m, own_id),
            "explains": rule_ids(doc, m, "explains", own_id), "covers": covers(doc, m),
            "i18n": i18n(doc, m, base)}


def placeholders(text: str) -> set[str]:
    """The ``{name}`` placeholders of a description."""
    return set(_PLACEHOLDER.findall(text))


def role(doc: Doc, m: LMap) -> str:
    """``role``: root-cause (default), fallback or symptom."""
    if "role" not in m:
        return "root-cause"
    return doc.choice(m, "role", "rule", ROLES) or "root-cause"


def links(doc: Doc, m: LMap, own_id: str | None) -> tuple[str, ...]:
    """``links``: ids of related rules (their existence is checked against the rule set)."""
    return rule_ids(doc, m, "links", own_id)


def rule_ids(doc: Doc, m: LMap, key: str, own_id: str | None) -> tuple[str, ...]:
    """A list of other rules' ids under ``key`` (``links``, ``explains``), duplicates dropped;
    whether they exist is checked against the whole rule set (``checks``)."""
    got = doc.text_list(m, key, "rule") or ()
    out: list[str] = []
    for rid in got:
        if not _ID.fullmatch(rid):
            doc.error(f"invalid rule id '{rid}' in {key}", m.value_lines[key],
                      help="a rule id is 2-10 capital letters and 3 digits, e.g. AIC001")
        elif rid == own_id:
            doc.error(f"rule {rid} {'links to' if key == 'links' else key} itself",
                      m.value_lines[key])
        elif rid not in out:
            out.append(rid)
    return tuple(out)


def covers(doc: Doc, m: LMap) -> tuple[int, ...]:
    """``covers``: formats.md §7 rows as ``row-N`` (1..25), returned as sorted numbers."""
    got = doc.text_list(m, "covers", "rule") or ()
    rows: set[int] = set()
    for item in got:
        found = _ROW.fullmatch(item)
        if found is None or not 1 <= int(found.group(1)) <= CATALOGUE_ROWS:
            doc.error(f"invalid catalogue row '{item}' in covers", m.value_lines["covers"],
                      help=f"write row-1 ... row-{CATALOGUE_ROWS}: the rows of the "
                      "error-signature catalogue (formats.md §7)")
        else:
            rows.add(int(found.group(1)))
    return tuple(sorted(rows))


def i18n(doc: Doc, m: LMap, base: RuleText | None) -> tuple[tuple[str, RuleText], ...]:
    """``i18n``: ``{lang: {title, description, remediation, advice}}``, checked against the
    English base: the same number of remediation steps (and of ``requires.advice`` items,
    required when the rule has them) and the same set of placeholders."""
    found = each_language(doc, m, "", "rule",
                          lambda langs, lang: _translation(doc, langs, lang, base))
    return tuple(sorted(found, key=lambda pair: pair[0]))


def _translation(doc: Doc, langs: LMap, lang: str, base: RuleText | None) -> RuleText | None:
    t = doc.mapping(langs[lang], langs.value_lines[lang], f"i18n '{lang}'")
    if t is None:
        return None
    what = f"i18n '{lang}'"
    wanted = ("title", "description", "remediation") + (
        ("advice",) if base is not None and base.advice else ())
    doc.keys(t, what, ("title", "description", "remediation", "advice"), wanted)
    title = doc.text(t, "title", what)
    description = doc.text(t, "description", what)
    remediation = doc.text_list(t, "remediation", what)
    advice = doc.text_list(t, "advice", what) if "advice" in t else ()
    if base is not None and remediation is not None \
            and len(remediation) != len(base.remediation):
        doc.error(f"{what} remediation has {len(remediation)} step(s), the English one has "
                  f"{len(base.remediation)}", t.value_lines["remediation"],
                  help="translate every step, one for one, in the same order")
    if base is not None and advice is not None and "advice" in t \
            and len(advice) != len(base.advice):
        doc.error(f"{what} advice has {len(advice)} item(s), the English requires.advice has "
                  f"{len(base.advice)}", t.value_lines["advice"],
                  help="translate every item of requires.advice, one for one, in the same order")
    if base is not None and description is not None:
        mine, theirs = placeholders(description), placeholders(base.description)
        if mine != theirs:
            doc.error(f"{what} description placeholders differ from the English ones",
                      t.value_lines["description"], help=_diff(mine, theirs))
    if title is None or description is None or remediation is None or advice is None:
        return None
    return RuleText(title, description, remediation, advice)


def _diff(mine: set[str], theirs: set[str]) -> str:
    parts = []
    if theirs - mine:
        parts.append("missing: " + _names(theirs - mine))
    if mine - theirs:
        parts.append("not in the English description: " + _names(mine - theirs))
    return "; ".join(parts)


def _names(names: Iterable[str]) -> str:
    return ", ".join("{" + n + "}" for n in sorted(names))
