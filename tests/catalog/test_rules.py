"""Every built-in rule's cases (``rules/**/<stem>.test.yaml``), one pytest case each, as
``RULEID::case``; plus the lints that ``plogscan rules check`` runs on the pack."""

from __future__ import annotations

import pytest

from plogscan.catalog import builtin_rules_dir, load_rules
from plogscan.catalog.checks import check
from plogscan.catalog.testing import Case, case_files, load_cases
from plogscan.crossrank.analyze import identities
from plogscan.engine.cases import run_case


def _cases() -> list[Case]:
    out: list[Case] = []
    for path in case_files([builtin_rules_dir()]):
        found, errors = load_cases(path)
        assert not errors, "\n\n".join(e.render() for e in errors)
        out.extend(found)
    return out


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case" in metafunc.fixturenames:
        cases = _cases()
        metafunc.parametrize("case", cases, ids=[c.id for c in cases])


def test_rule_case(case: Case) -> None:
    result = run_case(case, load_rules(), identities)
    if case.todo is not None and not result.passed:
        pytest.xfail(f"todo: {case.todo}")
    assert result.passed, "\n".join(result.problems)


def test_rule_pack_passes_its_lints() -> None:
    rules = load_rules()
    issues = check(rules, _cases())
    assert [i.error.render() for i in issues if i.severity == "error"] == []


def test_flagship_ships_the_required_cases() -> None:
    names = {c.name for c in _cases() if c.rule == "CCU001"}
    assert {
        "quiet_when_fault_comes_before_reuse",
        "quiet_when_reuse_and_fault_are_in_different_processes",
        "quiet_when_reuse_has_no_fault",
        "quiet_without_reuse_although_debug_is_on",
        "not_evaluable_without_debug_logs",
    } <= names
    verdicts = {e.verdict.value for c in _cases() if c.rule == "CCU001" for e in c.expect}
    assert verdicts == {"match", "not_evaluable"}


def test_every_rule_has_positive_and_negative_cases() -> None:
    cases = _cases()
    for rule in load_rules():
        mine = [c for c in cases if c.rule == rule.id]
        assert any(c.positive for c in mine), rule.id
        assert any(c.negative for c in mine), rule.id
