"""Lints over a loaded rule set and its case files, run by ``plogscan rules check`` and CI.

Errors: a ``stable`` rule without a positive case (one expecting a match) or a negative case
(one expecting nothing); a case file naming a rule that is not loaded; a ``<stem>.test.yaml``
that tests another rule than its ``<stem>.yaml`` defines. Warning: a rule with no cases.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath

from plogscan.engine.rule import RuleSet
from plogscan.engine.ruleset import CASE_SUFFIX
from plogscan.engine.testing import Case
from plogscan.errors import RuleError


@dataclass(frozen=True)
class Issue:
    """One lint result: ``error`` fails ``rules check``, ``warning`` is only shown."""

    severity: str
    error: RuleError


def check(rules: RuleSet, cases: Sequence[Case]) -> list[Issue]:
    """Every lint issue of ``rules`` and their ``cases``, in a stable order."""
    issues: list[Issue] = []
    by_rule: dict[str, list[Case]] = {}
    for case in cases:
        by_rule.setdefault(case.rule, []).append(case)
    for rule in rules:
        mine = by_rule.get(rule.id, [])
        if rule.status == "stable":
            if not any(c.positive for c in mine):
                issues.append(_issue("error", f"stable rule {rule.id} has no positive case "
                                     "(one whose expect lists a match)", rule.where))
            if not any(c.negative for c in mine):
                issues.append(_issue("error", f"stable rule {rule.id} has no negative case "
                                     "(one with 'expect: []')", rule.where))
        elif not mine:
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


def _stem(path: str) -> str:
    p = PurePath(path)
    name = p.name.removesuffix(CASE_SUFFIX).removesuffix(".yaml").removesuffix(".yml")
    return str(p.with_name(name))


def _issue(severity: str, message: str, where, help: str | None = None) -> Issue:
    return Issue(severity, RuleError(message, where=where, help=help))
