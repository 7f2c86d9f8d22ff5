"""A stable rule must carry its Chinese text; `rules check` says so and exits 2."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from plogscan.cli import cli

RULE = """\
id: TST001
name: test.zh-required
title: A test rule
category: aicore-exception
level: error
status: stable
description: An aicore error was logged.
remediation:
  - Look at the kernel.
match:
  message|contains: 'there is an aicore error exception'
"""
CASES = """\
rule: TST001
cases:
  fires:
    log: |
      [ERROR] RUNTIME(7,p):2026-01-01-00:00:00.000.001 [a.cc:1]7 there is an aicore error exception
    expect:
      - verdict: match
  quiet:
    log: |
      [INFO] RUNTIME(7,python3):2026-01-01-00:00:00.000.001 [a.cc:1]7 nothing to see
    expect: []
"""
ZH = """\
i18n:
  zh:
    title: 测试规则
    description: 记录到AI Core错误。
    remediation:
      - 检查kernel。
"""


def _check(tmp_path: Path, text: str):
    (tmp_path / "tst.yaml").write_text(text, encoding="utf-8")
    (tmp_path / "tst.test.yaml").write_text(CASES, encoding="utf-8")
    return CliRunner().invoke(cli, ["rules", "check", str(tmp_path)])


def test_stable_rule_without_chinese_fails_the_check(tmp_path: Path) -> None:
    result = _check(tmp_path, RULE)
    assert result.exit_code == 2
    assert "has no Chinese text" in result.output


def test_stable_rule_with_chinese_passes(tmp_path: Path) -> None:
    result = _check(tmp_path, RULE + ZH)
    assert result.exit_code == 0, result.output
