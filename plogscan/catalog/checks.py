"""Lints over a loaded rule set and its case files, run by ``plogscan rules check`` and CI.

Errors: a ``stable`` rule without a positive case (one expecting a match) or a negative case
(one expecting nothing); a case file naming a rule that is not loaded; a ``<stem>.test.yaml``
that tests another rule than its ``<stem>.yaml`` defines; a ``links`` or ``explains`` entry
naming a rule that is not loaded; rules that explain each other in a circle (through
``explains`` and the ``links`` of symptoms, see ``model.explainers``); a ``stable`` rule
without a Chinese text (``i18n.zh``: every report can be read in Chinese, the language most
users and the upstream docs use). Warning: a rule with no cases.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from plogscan.catalog.rule import Rule, RuleSet
from plogscan.catalog.ruleset import CASE_SUFFIX
from plogscan.catalog.testing import Case
from plogscan.errors import RuleError


@dataclass(frozen=True)
class Issue:
    """One lint result: ``error`` fails ``rules check``, ``warning`` is only shown."""

    severity: str
    error: RuleError


def check(rules: RuleSet, cases: Sequence[Case], known_ids: Iterable[str] = ()) -> list[Issue]:
    """Every lint issue of ``rules`` and their ``cases``, in a stable order.

    ``known_ids`` are further rule ids a link may name (the built-in rules, when ``rules`` are
    a user's extra rules that run next to them).
    """
    issues: list[Issue] = [*_links(rules, known_ids), *_explanation_cycles(rules)]
    counts = case_counts(rules, cases)
    for rule in rules:
        count = counts[rule.id]
        for problem in case_problems(rule, count):
            issues.append(_issue("error", problem, rule.where))
        if rule.status == "stable" and not any(lang == "zh" for lang, _ in rule.i18n):
            issues.append(_issue("error",
                                 f"rule {rule.id} is stable but has no Chinese text (i18n.zh)",
                                 rule.where, "add i18n: {zh: {title, description, remediation}}"))
        if rule.status != "stable" and not count.total:
            issues.append(_issue("warning", f"rule {rule.id} has no test cases", rule.where))
    defined = {_stem(r.where.path): r.id for r in rules}
    seen: set[str] = set()
    for case in cases:
        if case.where.path in seen:
            continue
        seen.add(case.where.path)
        if rules.get(case.rule) is None:
            issues.append(_issue("error", f"case file tests unknown rule {case.rule}", case.where,
                                 "valid rule ids are: " + ", ".join(r.id for r in rules)))
            continue
        owner = defined.get(_stem(case.where.path))
        if owner is not None and owner != case.rule:
            issues.append(_issue("error", f"case file tests {case.rule}, but its rule file "
                                 f"defines {owner}", case.where,
                                 f"name the file after the rule it tests: <stem>{CASE_SUFFIX}"))
    return issues


@dataclass(frozen=True)
class CaseCount:
    """How many cases a rule has: all, positive (expecting a match), negative (expecting
    nothing)."""

    total: int = 0
    positive: int = 0
    negative: int = 0


def case_counts(rules: RuleSet, cases: Sequence[Case]) -> dict[str, CaseCount]:
    """The cases of each rule (by id), counted."""
    out = {rule.id: CaseCount() for rule in rules}
    for case in cases:
        if case.rule in out:
            c = out[case.rule]
            out[case.rule] = CaseCount(c.total + 1, c.positive + case.positive,
                                       c.negative + case.negative)
    return out


def case_problems(rule: Rule, count: CaseCount) -> list[str]:
    """Why a rule's cases fall short of its status: a ``stable`` rule needs a positive case
    (one expecting a match) and a negative case (one expecting nothing)."""
    if rule.status != "stable":
        return []
    out = []
    if not count.positive:
        out.append(f"stable rule {rule.id} has no positive case (one whose expect lists a match)")
    if not count.negative:
        out.append(f"stable rule {rule.id} has no negative case (one with 'expect: []')")
    return out


def _links(rules: RuleSet, known_ids: Iterable[str]) -> list[Issue]:
    known = {r.id for r in rules} | set(known_ids)
    out = []
    for rule in rules:
        for key, verb, ids in (("links", "links to", rule.links),
                               ("explains", "explains", rule.explains)):
            for rid in ids:
                if rid not in known:
                    out.append(_issue("error", f"rule {rule.id} {verb} unknown rule {rid}",
                                      rule.where, f"{key} name ids of loaded rules (see "
                                      "`plogscan rules list`); check the spelling"))
    return out


def explanations(rules: Iterable[Rule]) -> dict[str, set[str]]:
    """Rule id -> the ids of the rules it explains: its ``explains``, and every symptom whose
    ``links`` name it."""
    rules = list(rules)
    out: dict[str, set[str]] = {r.id: set(r.explains) for r in rules}
    for rule in rules:
        if rule.role == "symptom":
            for rid in rule.links:
                out.setdefault(rid, set()).add(rule.id)
    return out


def _explanation_cycles(rules: RuleSet) -> list[Issue]:
    """Rules that explain themselves through others (the order would have no root): one issue
    per back edge of a depth-first walk, naming the circle."""
    graph = explanations(rules)
    where = {r.id: r.where for r in rules}
    out: list[Issue] = []
    finished: set[str] = set()
    for start in sorted(graph):
        if start in finished:
            continue
        path, stack = [start], [iter(sorted(graph[start]))]
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                stack.pop()
                finished.add(path.pop())
            elif nxt in path:
                cycle = " -> ".join([*path[path.index(nxt):], nxt])
                out.append(_issue("error", f"rules explain each other in a circle: {cycle}",
                                  where.get(nxt, where.get(path[-1])),
                                  "a root cause explains its consequences, never the other "
                                  "way round; drop one of the explains or symptom links"))
            elif nxt not in finished:
                path.append(nxt)
                stack.append(iter(sorted(graph.get(nxt, ()))))
    return out


def _stem(path: str) -> str:
    p = PurePath(path)
    name = p.name.removesuffix(CASE_SUFFIX).removesuffix(".yaml").removesuffix(".yml")
    return str(p.with_name(name))


def _issue(severity: str, message: str, where, help: str | None = None) -> Issue:
    return Issue(severity, RuleError(message, where=where, help=help))
