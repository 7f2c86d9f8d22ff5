"""``plogscan rules list|show|check|test``: outputs, streams and exit codes (0/1/2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from plogscan.catalog import load_rules
from plogscan.catalog.testing import case_files, load_cases
from plogscan.cli import cli
from tests.helpers import REPO_ROOT

ROOT = REPO_ROOT
BAD = Path(__file__).parents[1] / "bad_rules"

RULE = """\
id: TST200
name: test.cli-rule
title: A rule for the CLI tests
category: aicore-exception
level: error
status: {status}
description: Test.
remediation: [Nothing.]
match: {{message|contains: 'aicore error'}}
"""
LINE = ("[ERROR] RUNTIME(7702,python3):2026-04-02-18:40:11.526.761 [device_error_core_proc.cc:611]"
        "7702 ProcessStarsCoreErrorInfo:there is an aicore error exception, core id is 0\n")


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, ["rules", *args])


pytestmark = pytest.mark.usefixtures("at_repo_root")


def write_rule(tmp: Path, status: str = "stable", cases: str | None = None) -> Path:
    (tmp / "cli_rule.yaml").write_text(RULE.format(status=status), encoding="utf-8")
    if cases is not None:
        (tmp / "cli_rule.test.yaml").write_text(cases, encoding="utf-8")
    return tmp


def test_list_shows_the_catalog() -> None:
    result = run("list")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["ID", "LEVEL", "CATEGORY", "STATUS", "NAME", "TITLE"]
    ids = [line.split()[0] for line in lines[1:]]
    assert ids == [r.id for r in load_rules()]
    row = next(line for line in lines if line.startswith("CCU001"))
    assert row.split()[1:5] == ["critical", "ccu-context-reuse", "stable",
                                "ccu.context-reuse-then-mc2-fault"]


def test_list_with_extra_rules(tmp_path: Path) -> None:
    result = run("list", "--rules", str(write_rule(tmp_path)))
    assert result.exit_code == 0 and "TST200" in result.stdout


@pytest.mark.parametrize("key", ["CCU001", "ccu001", "ccu.context-reuse-then-mc2-fault"])
def test_show_prints_summary_and_source(key: str) -> None:
    result = run("show", key)
    assert result.exit_code == 0, result.output
    source = (ROOT / "rules/ccu/context_reuse_then_mc2_fault.yaml").read_text(encoding="utf-8")
    assert result.stdout.startswith("CCU001  ccu.context-reuse-then-mc2-fault\n")
    assert "  source: rules/ccu/context_reuse_then_mc2_fault.yaml\n" in result.stdout
    assert result.stdout.endswith(source)


def test_show_unknown_rule_exits_2_listing_ids() -> None:
    result = run("show", "NOPE999")
    assert result.exit_code == 2 and result.stdout == ""
    assert "error: no rule 'NOPE999'" in result.stderr and "CCU001" in result.stderr


def test_check_builtin_pack_is_clean() -> None:
    result = run("check")
    assert result.exit_code == 0, result.stderr
    n_rules = len(load_rules())
    n_files = len(case_files([ROOT / "rules"]))
    assert result.stderr == (f"checked {n_rules} rules and {n_files} case files: "
                             "0 errors, 0 warnings\n")


def test_check_reports_every_error_at_once_and_exits_2() -> None:
    result = run("check", "tests/bad_rules")
    assert result.exit_code == 2
    goldens = sorted(BAD.glob("*.err"))
    for golden in goldens:
        assert golden.read_text(encoding="utf-8") in result.stderr, golden.name
    total = sum(g.read_text(encoding="utf-8").count("\nerror: ") + 1 for g in goldens)
    assert result.stderr.count("error: ") == total
    assert result.stderr.endswith(f"checked 0 rules and 0 case files: {total} errors, "
                                  "0 warnings\n")


def test_check_fails_stable_rule_without_cases(tmp_path: Path) -> None:
    result = run("check", str(write_rule(tmp_path)))
    assert result.exit_code == 2
    assert "error: stable rule TST200 has no positive case" in result.stderr
    assert "error: stable rule TST200 has no negative case" in result.stderr
    assert "cli_rule.yaml:1" in result.stderr


def test_check_warns_for_experimental_rule_without_cases(tmp_path: Path) -> None:
    result = run("check", str(write_rule(tmp_path, status="experimental")))
    assert result.exit_code == 0
    assert "warning: rule TST200 has no test cases" in result.stderr


def test_check_case_file_naming_another_rule(tmp_path: Path) -> None:
    cases = "rule: CCU001\ncases:\n  quiet:\n    log: x\n    expect: []\n"
    result = run("check", str(write_rule(tmp_path, "experimental", cases)))
    assert result.exit_code == 2
    assert "error: case file tests unknown rule CCU001" in result.stderr
    other = RULE.format(status="experimental").replace("TST200", "TST201").replace(
        "test.cli-rule", "test.other-rule")
    (tmp_path / "other.yaml").write_text(other, encoding="utf-8")
    (tmp_path / "cli_rule.test.yaml").write_text(cases.replace("CCU001", "TST201"), "utf-8")
    result = run("check", str(tmp_path))
    assert result.exit_code == 2
    assert "error: case file tests TST201, but its rule file defines TST200" in result.stderr
    empty = run("check", str(write_rule(tmp_path, "experimental", "rule: TST200\ncases: {}\n")))
    assert empty.exit_code == 2 and "error: 'cases' is empty" in empty.stderr


def test_test_runs_the_builtin_cases() -> None:
    result = run("test")
    assert result.exit_code == 0, result.stdout
    total = sum(len(load_cases(p)[0]) for p in case_files([ROOT / "rules"]))
    assert result.stdout == ""
    assert result.stderr == f"{total} pass, 0 fail\n"
    verbose = run("test", "-v")
    assert verbose.stdout.count("PASS  ") == total
    assert "PASS  CCU001::not_evaluable_without_debug_logs\n" in verbose.stdout


CASES = """\
rule: TST200
cases:
  fires:
    log: |
      {line}
    expect:
      - {{lines: [1]}}
  quiet_but_wrong:
    log: |
      {line}
    expect: []
  known_gap:
    log: |
      {line}
    expect: []
    todo: the rule does not know this shape yet
"""


def test_test_reports_failures_and_exits_1(tmp_path: Path) -> None:
    write_rule(tmp_path, cases=CASES.format(line=LINE.strip()))
    result = run("test", str(tmp_path))
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "FAIL  TST200::quiet_but_wrong",
        f"      unexpected finding: TST200 match lines ['{'case.log'}:1']",
        f"      at {tmp_path / 'cli_rule.test.yaml'}:8",
        "TODO  TST200::known_gap  (the rule does not know this shape yet)",
    ]
    assert result.stderr == "1 pass, 1 fail, 1 todo\n"


def test_test_with_a_broken_case_file_exits_2(tmp_path: Path) -> None:
    write_rule(tmp_path, cases="rule: TST200\ncases:\n  bad:\n    log: x\n    expect: {}\n")
    result = run("test", str(tmp_path))
    assert result.exit_code == 2
    assert "error: 'expect' must be a list of expected findings" in result.stderr
    assert "cli_rule.test.yaml:5" in result.stderr


def test_test_with_a_broken_rule_exits_2() -> None:
    result = run("test", "tests/bad_rules/unknown_key.yaml")
    assert result.exit_code == 2
    assert "unknown key 'levle' in rule" in result.stderr
