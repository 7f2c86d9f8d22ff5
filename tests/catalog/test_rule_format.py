"""The rule keys about meaning: ``role``, ``links``, ``covers`` and ``i18n`` (load, lint, use)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from plogscan.catalog import load_rules
from plogscan.catalog.ruleset import rule_from_text
from plogscan.cli import cli
from plogscan.errors import ErrorGroup
from tests.helpers import REPO_ROOT

ROOT = REPO_ROOT
BAD_LINKS = Path(__file__).parents[1] / "bad_links"

RULE = """\
id: TST300
name: test.symptom
title: Model execution failed
category: runtime-error
level: warning
role: symptom
links: [AIC001]
covers: [row-17, row-1, row-17]
description: >-
  In {scope}, model execution failed ({count} record(s)).
remediation:
  - Look for the first device error.
  - Read the root-cause finding.
i18n:
  zh:
    title: 模型执行失败
    description: >-
      {scope} 中模型执行失败（{count} 条记录）。
    remediation:
      - 查找最早的设备错误。
      - 查看根因结论。
match: {message|contains: 'model execute failed'}
"""


pytestmark = pytest.mark.usefixtures("at_repo_root")


def test_meaning_keys_are_stored_on_the_rule() -> None:
    rule = rule_from_text(RULE)
    assert rule.role == "symptom"
    assert rule.links == ("AIC001",)
    assert rule.covers == (1, 17)
    assert [lang for lang, _ in rule.i18n] == ["zh"]
    zh = rule.text("zh")
    assert zh.title == "模型执行失败"
    assert zh.remediation == ("查找最早的设备错误。", "查看根因结论。")
    assert rule.text("en").title == "Model execution failed"
    assert rule.text("fr").title == "Model execution failed"  # unknown language: English


def test_defaults_without_meaning_keys() -> None:
    text = "\n".join(line for line in RULE.splitlines()
                     if not line.startswith(("role:", "links:", "covers:")))
    rule = rule_from_text(text.split("i18n:")[0] + "match: {message|contains: 'x'}\n")
    assert (rule.role, rule.links, rule.covers, rule.i18n) == ("root-cause", (), (), ())
    assert rule.localized("zh") is rule


def test_localized_swaps_texts_and_keeps_the_rest() -> None:
    rule = rule_from_text(RULE)
    zh = rule.localized("zh")
    assert zh.title == "模型执行失败" and zh.description.startswith("{scope} 中")
    assert (zh.id, zh.body, zh.level, zh.role) == (rule.id, rule.body, rule.level, rule.role)
    assert zh.text("en") == rule.text("en") and zh.text("zh") == rule.text("zh")
    assert zh.localized("en").title == "Model execution failed"


def test_translation_with_other_placeholders_is_rejected() -> None:
    bad = RULE.replace("（{count} 条记录）", "（{total} 条记录）")
    with pytest.raises(ErrorGroup) as err:
        rule_from_text(bad, "x.yaml")
    assert "i18n 'zh' description placeholders differ" in err.value.render()
    assert "missing: {count}; not in the English description: {total}" in err.value.render()


def test_check_reports_a_link_to_an_unknown_rule() -> None:
    result = CliRunner().invoke(cli, ["rules", "check", str(BAD_LINKS.relative_to(ROOT))])
    assert result.exit_code == 2
    for golden in sorted(BAD_LINKS.glob("*.err")):
        assert golden.read_text(encoding="utf-8") in result.stderr, golden.name
    assert result.stderr.count("links to unknown rule") == 1


def test_check_resolves_links_to_builtin_rules(tmp_path: Path) -> None:
    (tmp_path / "symptom.yaml").write_text(RULE, encoding="utf-8")
    result = CliRunner().invoke(cli, ["rules", "check", str(tmp_path)])
    assert "links to unknown rule" not in result.stderr
    assert result.exit_code == 0, result.stderr


def test_builtin_links_resolve() -> None:
    rules = load_rules()
    ids = {r.id for r in rules}
    assert all(link in ids for r in rules for link in r.links)
