"""Build one ``Rule`` from one located YAML document, reporting every problem with its line.

The format is written out in ``rules/README.md``. Checks done here: unknown and missing keys,
types, closed choices (level, category, status, operators, fields), RE2 validity of every
regex, durations, step structure, ``by`` fields that every step must produce, and
``{placeholders}``/``show`` names that no column or capture provides. The keys about meaning
(``role``, ``links``, ``covers``, ``i18n``) are checked in ``ruletext``.
"""

from __future__ import annotations

import re

from plogscan.catalog import ruletext
from plogscan.catalog.categories import CATEGORIES
from plogscan.catalog.operators import (
    FIELD_KINDS,
    MAX_REGEX_CHARS,
    OPERATORS,
    check_regex,
    regex_groups,
)
from plogscan.catalog.rule import (
    STATUSES,
    Body,
    Condition,
    Predicate,
    Requires,
    Rule,
    RuleText,
    Sequence,
    Single,
    Step,
    Threshold,
)
from plogscan.datafile.fields import Doc
from plogscan.datafile.located import LList, LMap
from plogscan.errors import Location
from plogscan.model import Level
from plogscan.schema import COLUMNS, LEVELS, SourceKind

RULE_KEYS = ("id", "name", "title", "category", "level", "status", "description", "remediation",
             "references", "requires", "match", "by", "sequence", "threshold", "show",
             "role", "links", "explains", "covers", "i18n", "category_from")
REQUIRED = ("id", "name", "title", "category", "level", "description", "remediation")
BODIES = ("match", "sequence", "threshold")
_ID = re.compile(r"[A-Z]{2,10}[0-9]{3}")
_NAME = re.compile(r"[a-z][a-z0-9]*(\.[a-z0-9][a-z0-9-]*)+")
_STEP = re.compile(r"[a-z][a-z0-9_]*")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def build_rule(doc: Doc, m: LMap) -> Rule | None:
    """The rule in ``m``, or None after recording its errors in ``doc``."""
    before = len(doc.errors)
    doc.keys(m, "rule", RULE_KEYS, REQUIRED)
    rid = doc.text(m, "id", "rule")
    if rid is not None and not _ID.fullmatch(rid):
        doc.error(f"invalid id '{rid}'", m.value_lines["id"],
                  help="an id is 2-10 capital letters and 3 digits, e.g. HCCL001, CCU002")
    name = doc.text(m, "name", "rule")
    if name is not None and not _NAME.fullmatch(name):
        doc.error(f"invalid name '{name}'", m.value_lines["name"],
                  help="a name is dotted lower-case kebab, e.g. hccl.link-timeout")
    title = doc.text(m, "title", "rule")
    description = doc.text(m, "description", "rule")
    level = doc.choice(m, "level", "rule", [lv.value for lv in Level])
    doc.choice(m, "category", "rule", CATEGORIES)
    status = doc.choice(m, "status", "rule", STATUSES) if "status" in m else "experimental"
    remediation = doc.text_list(m, "remediation", "rule")
    if remediation == ():
        doc.error("'remediation' must list at least one step", m.value_lines["remediation"])
    body = _body(doc, m)
    requires = _requires(doc, m)
    show = doc.text_list(m, "show", "rule") or ()
    if body is not None:
        _check_names(doc, m, body, show)
    category_from = _category_from(doc, m, body)
    base = RuleText(title, description, remediation, requires.advice if requires else ()) \
        if title and description and remediation else None
    meaning = ruletext.meaning(doc, m, rid, base)
    if len(doc.errors) > before or body is None or level is None:
        return None
    return Rule(
        id=str(rid), name=str(name), title=str(title),
        category=str(m["category"]), level=Level(level), status=str(status),
        description=str(description), remediation=remediation or (),
        body=body, references=doc.text_list(m, "references", "rule") or (),
        requires=requires, show=show, where=Location(doc.path, m.key_lines.get("id", 1)),
        category_from=category_from, **meaning,
    )


def _category_from(doc: Doc, m: LMap, body: Body | None) -> str | None:
    """``category_from``: a capture every matching record has, whose value (a category of the
    taxonomy, such as the ``code_category`` of ``codes|known``) is each finding's category."""
    name = doc.text(m, "category_from", "rule") if "category_from" in m else None
    if name is None or body is None:
        return None
    conds = ([s.cond for s in body.positive] if isinstance(body, Sequence) else [body.cond])
    if not any(name in c.guaranteed for c in conds):
        doc.error(f"'category_from' names '{name}', which no step always captures",
                  m.value_lines["category_from"],
                  help="name a capture every alternative of a step produces, such as the "
                  "code_category of 'codes|known: true'")
        return None
    return name


def _body(doc: Doc, m: LMap) -> Body | None:
    present = [k for k in BODIES if k in m]
    if len(present) != 1:
        where = m.key_lines[present[1]] if len(present) > 1 else m.line
        doc.error("a rule needs exactly one of 'match', 'sequence', 'threshold'"
                  + (f"; found {', '.join(present)}" if present else ""), where)
        return None
    kind = present[0]
    if "by" in m and kind != "match":
        doc.error(f"top-level 'by' goes with 'match'; write 'by' inside '{kind}'",
                  m.key_lines["by"])
    if kind == "match":
        cond = condition(doc, m["match"], m.value_lines["match"], "match")
        by = _by(doc, m, "rule", [cond] if cond else [])
        return Single(cond, by) if cond is not None and by is not None else None
    section = doc.mapping(m[kind], m.value_lines[kind], f"'{kind}'")
    if section is None:
        return None
    return _sequence(doc, section) if kind == "sequence" else _threshold(doc, section)


def _threshold(doc: Doc, t: LMap) -> Threshold | None:
    doc.keys(t, "threshold", ("match", "by", "count", "within"), ("match", "count"))
    cond = condition(doc, t["match"], t.value_lines["match"], "match") if "match" in t else None
    count = doc.integer(t, "count", "threshold", 1)
    within = doc.duration(t, "within", "threshold")
    by = _by(doc, t, "threshold", [cond] if cond else [])
    if cond is None or count is None or by is None:
        return None
    return Threshold(cond, count, by, within)


def _sequence(doc: Doc, s: LMap) -> Sequence | None:
    doc.keys(s, "sequence", ("by", "within", "steps", "until", "context"), ("steps",))
    within = doc.duration(s, "within", "sequence")
    steps = _steps(doc, s, "steps") if "steps" in s else None
    context = _steps(doc, s, "context") if "context" in s else ()
    until = condition(doc, s["until"], s.value_lines["until"], "until") if "until" in s else None
    if steps is None or context is None:
        return None
    ids = [st.id for st in (*steps, *context)]
    for dup in sorted({i for i in ids if ids.count(i) > 1}):
        doc.error(f"step id '{dup}' is used twice", s.line)
    positive = [st for st in steps if not st.absent]
    if len(positive) < 2:
        doc.error("a sequence needs at least two steps that are not 'absent'",
                  s.value_lines["steps"], help="a single step is a 'match' rule")
    if steps and (steps[0].absent or steps[-1].absent):
        doc.error("an 'absent' step must sit between two other steps", s.value_lines["steps"])
    conds = [st.cond for st in (*steps, *context)] + ([until] if until else [])
    by = _by(doc, s, "sequence", conds)
    if by is None or ("until" in s and until is None):
        return None
    return Sequence(tuple(steps), by, within, until, tuple(context))


def _steps(doc: Doc, s: LMap, key: str) -> tuple[Step, ...] | None:
    items = s[key]
    if not isinstance(items, LList) or not items:
        doc.error(f"'{key}' must be a non-empty list of steps", s.value_lines[key])
        return None
    out: list[Step] = []
    valid = ("id", "match", "limit") if key == "context" else ("id", "match", "absent")
    for item, line in zip(items, items.item_lines, strict=True):
        st = doc.mapping(item, line, f"a step of '{key}'")
        if st is None:
            continue
        doc.keys(st, f"a step of '{key}'", valid, ("id", "match"))
        sid = doc.text(st, "id", "step")
        if sid is not None and (not _STEP.fullmatch(sid) or sid in ("match", "until", "when")):
            doc.error(f"invalid step id '{sid}'", st.value_lines["id"],
                      help="lower-case letters, digits and '_'; not 'match', 'until' or 'when'")
        absent = st.get("absent", False)
        if not isinstance(absent, bool):
            doc.error(f"'absent' must be true or false, got {absent!r}", st.value_lines["absent"])
        limit = doc.integer(st, "limit", "context step", 1) if "limit" in st else 5
        cond = None
        if "match" in st:
            cond = condition(doc, st["match"], st.value_lines["match"], "match")
        if sid is not None and cond is not None:
            out.append(Step(sid, cond, absent is True, limit or 5))
    return tuple(out) if len(out) == len(items) else None


def condition(doc: Doc, value: object, line: int, what: str) -> Condition | None:
    """A mapping of predicates (all must hold) or a list of such mappings (any must hold)."""
    if isinstance(value, LMap):
        maps, lines = [value], [line]
    elif isinstance(value, LList) and value and all(isinstance(v, LMap) for v in value):
        maps, lines = list(value), value.item_lines
    else:
        doc.error(f"'{what}' must be a mapping of field predicates or a list of them", line)
        return None
    alts = [_alternative(doc, m, ln, what) for m, ln in zip(maps, lines, strict=True)]
    if any(a is None for a in alts):
        return None
    return Condition(tuple(a for a in alts if a is not None))


def _alternative(doc: Doc, m: LMap, line: int, what: str) -> tuple[Predicate, ...] | None:
    if not m:
        doc.error(f"'{what}' has no predicates", line)
        return None
    preds = [_predicate(doc, key, m[key], m.key_lines[key], m.value_lines[key]) for key in m]
    return None if any(p is None for p in preds) else tuple(p for p in preds if p is not None)


def _predicate(doc: Doc, key: str, value: object, kline: int, vline: int) -> Predicate | None:
    field, _, op = key.partition("|")
    op = op or "eq"
    kind = FIELD_KINDS.get(field)
    if kind is None:
        doc.error(f"unknown field '{field}'", kline, help="valid fields are: "
                  + ", ".join(sorted(FIELD_KINDS)))
        return None
    spec = OPERATORS.get(op)
    if spec is None:
        doc.error(f"unknown operator '{op}' in '{key}'", kline,
                  help="valid operators are: " + ", ".join(OPERATORS))
        return None
    if kind not in spec.kinds:
        doc.error(f"operator '{op}' does not apply to field '{field}'", kline)
        return None
    raw = list(value) if isinstance(value, LList) else [value]
    lines = value.item_lines if isinstance(value, LList) else [vline]
    if not raw or (spec.single and len(raw) > 1):
        doc.error(f"'{key}' takes {'one value' if spec.single else 'a value or a list'}", vline)
        return None
    values = [_value(doc, spec.value_kind or kind, key, v, ln)
              for v, ln in zip(raw, lines, strict=True)]
    if any(v is None for v in values):
        return None
    groups: tuple[tuple[str, ...], ...] = (spec.captures,) if spec.captures else ()
    if op == "re":
        for pattern, ln in zip(values, lines, strict=True):
            if len(str(pattern)) > MAX_REGEX_CHARS:
                doc.error(f"regex of {len(str(pattern)):,} characters: at most "
                          f"{MAX_REGEX_CHARS:,}", ln, help="a regex is compiled for every "
                          "batch of records; split the rule, or match a literal first")
                return None
            problem = check_regex(str(pattern))
            if problem:
                doc.error(f"invalid regex '{pattern}': {problem}", ln, help="regexes use RE2 "
                          "syntax: no look-around or backreferences")
                return None
        groups = tuple(regex_groups(str(p)) for p in values)
        if kind == "list" and any(groups):
            doc.error(f"named groups are not captured from list field '{field}'", vline)
            return None
    return Predicate(field, op, tuple(values), groups)


def _value(doc: Doc, kind: str, key: str, value: object, line: int) -> object | None:
    if kind == "true":  # an operator that is on or absent (``codes|known: true``)
        if value is True:
            return True
        doc.error(f"'{key}' takes true, got {value!r}", line,
                  help="to match records without such a code, leave the test out")
        return None
    if kind in ("str", "list") and isinstance(value, str | int) and not isinstance(value, bool):
        return str(value)
    if kind == "int" and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind == "bool" and isinstance(value, bool):
        return value
    want = {"str": "text", "list": "text", "int": "a whole number", "bool": "true or false"}[kind]
    doc.error(f"'{key}' needs {want}, got {value!r}", line)
    return None


def _by(doc: Doc, m: LMap, what: str, conds: list[Condition]) -> tuple[str, ...] | None:
    by = doc.text_list(m, "by", what)
    if by is None:
        return () if "by" not in m else None
    for name in by:
        if name in COLUMNS:
            continue
        if not conds or not all(name in c.guaranteed for c in conds):
            doc.error(f"group-by field '{name}' is not produced by every step", m.value_lines["by"],
                      help="use a column or a named regex group that every step, 'until' and "
                      "'context' entry captures")
            return None
    return by


def _requires(doc: Doc, m: LMap) -> Requires | None:
    if "requires" not in m:
        return None
    r = doc.mapping(m["requires"], m.value_lines["requires"], "'requires'")
    if r is None:
        return None
    doc.keys(r, "requires", ("levels", "modules", "kinds", "advice", "when"), ("advice",))
    if "sequence" not in m:
        doc.error("'requires' applies to 'sequence' rules only", m.key_lines["requires"])
    levels = doc.text_list(r, "levels", "requires") or ()
    kinds = doc.text_list(r, "kinds", "requires") or ()
    source_kinds = [k.value for k in SourceKind]
    for key, got, valid in (("levels", levels, LEVELS), ("kinds", kinds, source_kinds)):
        for bad in [v for v in got if v not in valid]:
            doc.error(f"invalid {key[:-1]} '{bad}' in requires", r.value_lines[key],
                      help="valid choices are: " + ", ".join(valid))
    modules = doc.text_list(r, "modules", "requires") or ()
    if not (levels or modules or kinds):
        doc.error("'requires' needs at least one of levels, modules, kinds", r.line)
    when = condition(doc, r["when"], r.value_lines["when"], "when") if "when" in r else None
    return Requires(levels, modules, kinds, doc.text_list(r, "advice", "requires") or (), when)


def _check_names(doc: Doc, m: LMap, body: Body, show: tuple[str, ...]) -> None:
    known = set(COLUMNS) | {"count", "scope"}
    if isinstance(body, Sequence):
        known.add("elapsed")
        conds = [s.cond for s in (*body.steps, *body.context)]
    else:
        conds = [body.cond]
    for c in conds:
        known |= c.captures
    text = m.get("description")
    for name in _PLACEHOLDER.findall(text) if isinstance(text, str) else ():
        if name not in known:
            doc.error(f"description placeholder '{{{name}}}' is not a column or a capture",
                      m.value_lines["description"], help="known names: " + ", ".join(sorted(known)))
    for name in show:
        if name not in known:
            doc.error(f"'show' names '{name}', which is not a column or a capture",
                      m.value_lines["show"], help="known names: " + ", ".join(sorted(known)))
