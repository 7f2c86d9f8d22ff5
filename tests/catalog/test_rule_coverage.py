"""``plogscan rules coverage`` and the CI gate: every stable rule has a positive and a negative
case; catalogue rows, code-table codes and categories that no rule covers are listed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from plogscan.catalog import builtin_rules_dir
from plogscan.catalog.categories import CATEGORIES
from plogscan.catalog.coverage import ROWS, coverage
from plogscan.catalog.ruleset import display_path, load_partial
from plogscan.catalog.ruletext import CATALOGUE_ROWS
from plogscan.catalog.testing import case_files, load_cases
from plogscan.cli import cli
from plogscan.codes import tables

RULE = """\
id: TST60{n}
name: test.coverage-{n}
title: Coverage test rule {n}
category: {category}
level: error
status: {status}
covers: [{covers}]
description: Test.
remediation: [Nothing.]
match: {{{match}}}
i18n: {{zh: {{title: 覆盖测试规则, description: 测试。, remediation: [无。]}}}}
"""
CASES = """\
rule: TST601
cases:
  fires:
    log: |
      [ERROR] RUNTIME(7702,python3):2026-04-02-18:40:11.526.761 [ccu.cc:61]7702 R:ccu 507916
    expect:
      - lines: [1]
  quiet:
    log: |
      [INFO] RUNTIME(7702,python3):2026-04-02-18:40:11.526.761 [ccu.cc:61]7702 R:all fine
    expect: []
"""


pytestmark = pytest.mark.usefixtures("at_repo_root")


def _pack(tmp: Path) -> Path:
    (tmp / "one.yaml").write_text(RULE.format(
        n=1, category="ccu-exception", status="stable", covers="row-18, row-3",
        match="message|re: '\\b507916\\b'"), encoding="utf-8")
    (tmp / "one.test.yaml").write_text(CASES, encoding="utf-8")
    (tmp / "two.yaml").write_text(RULE.format(
        n=2, category="ccu-exception", status="stable", covers="row-18",
        match="message|contains: 'ccu timeout'"), encoding="utf-8")
    return tmp


def _run(*args: str):
    return CliRunner().invoke(cli, ["rules", "coverage", *args])


def test_every_stable_builtin_rule_has_a_positive_and_a_negative_case() -> None:
    rules, _ = load_partial(None)
    cases = []
    for path in case_files([builtin_rules_dir()]):
        cases.extend(load_cases(path, display_path(path))[0])
    assert coverage(rules, cases, tables()).problems == ()


def test_catalogue_row_names_cover_every_row() -> None:
    assert sorted(ROWS) == list(range(1, CATALOGUE_ROWS + 1))


def test_json_coverage_of_a_small_pack(tmp_path: Path) -> None:
    result = _run(str(_pack(tmp_path)), "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    rules = {r["id"]: r for r in doc["rules"]}
    assert (rules["TST601"]["positive"], rules["TST601"]["negative"]) == (1, 1)
    assert rules["TST601"]["covers"] == ["row-3", "row-18"] and rules["TST601"]["problems"] == []
    assert (rules["TST602"]["cases"], rules["TST602"]["problems"]) == (0, [
        "stable rule TST602 has no positive case (one whose expect lists a match)",
        "stable rule TST602 has no negative case (one with 'expect: []')"])
    rows = {r["row"]: r["rules"] for r in doc["rows"]}
    assert rows[18] == ["TST601", "TST602"] and rows[3] == ["TST601"] and rows[1] == []
    assert doc["uncovered_rows"] == [n for n in range(1, 26) if n not in (3, 18)]
    assert doc["categories_unused"] == [c for c in CATEGORIES
                                        if c not in ("ccu-exception", "unexplained")]
    assert doc["codes_available"] is True
    unmentioned = {(c["table"], c["code"]) for c in doc["codes_unmentioned"]}
    assert ("rt", "507916") not in unmentioned  # the regex of TST601 names it
    assert ("rt", "507915") in unmentioned and ("errmgr", "EI0002") in unmentioned
    assert len(unmentioned) == doc["codes_total"] - 1
    tables = {(t["table"], t["prefix"]): (t["in_source"], t["in_table"])
              for t in doc["code_tables"]}
    assert tables[("rt", "507")] == (76, 76) and tables[("hccl_result", "")] == (26, 26)
    assert all(held <= defined for defined, held in tables.values())


def test_text_coverage_of_a_small_pack(tmp_path: Path) -> None:
    result = _run(str(_pack(tmp_path)))
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("RULES (2)\n")
    assert "\n  TST601  stable  root-cause      2    1    1  ccu-exception  3,18    ok\n" in out
    assert "TST602" in out and "MISSING positive/negative" in out
    assert "CATALOGUE ROWS (formats.md §7): 2 of 25 covered" in out
    assert "CODE TABLES: codes their public source defines, codes the table holds" in out
    assert "\n  rt              507         76     76\n" in out
    assert "  18  TST601, TST602  CCU exception / timeout (507916, 507915)" in out
    assert "\n   1  NONE            AI Core / AI Vector / ffts+ exception\n" in out
    assert "CATEGORIES NO RULE USES: " in out and "\n  hccl-link-timeout\n" in out


def test_check_gate_fails_the_stable_rule_without_cases(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["rules", "check", str(_pack(tmp_path))])
    assert result.exit_code == 2
    assert result.stderr.count("stable rule TST602 has no") == 2
    assert "TST601" not in result.stderr
