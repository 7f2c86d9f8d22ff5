"""Report language: locale default, ``PLOGSCAN_LANG``, ``--lang``, translated rule texts and
report headings (English reports stay as they were: their goldens are unchanged)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from plogscan.catalog.rule import RuleSet
from plogscan.catalog.ruleset import rule_from_text
from plogscan.cli import cli
from plogscan.lang import LANGS, default_lang, locale_lang
from plogscan.report import render
from plogscan.report.i18n import UI, tr
from tests.helpers import NO_LOCALE, REPO_ROOT, diagnosed

REPO = REPO_ROOT

RULE = """\
id: TST400
name: test.lang
title: AI Core kernel exception
category: aicore-exception
level: error
description: >-
  In {scope}, an AI Core kernel failed ({count} record(s)).
remediation:
  - Read the errcode record that follows.
  - Check the kernel inputs.
i18n:
  zh:
    title: AI Core 算子执行异常
    description: >-
      {scope} 中 AI Core 算子执行异常（{count} 条记录）。
    remediation:
      - 查看紧随其后的 errcode 记录。
      - 检查算子的输入。
match: {message|contains: 'there is an aicore error exception'}
by: [host, pid]
"""
LOG = ("[ERROR] RUNTIME(51234,python3):2026-05-06-11:02:03.004.005 [device_error_proc.cc:700]"
       "51234 ProcessStarsCoreErrorInfo:there is an aicore error exception, core id is 3\n")


pytestmark = pytest.mark.usefixtures("at_repo_root")


@pytest.mark.parametrize(("env", "want"), [
    ({}, "en"),
    ({"LANG": "zh_CN.UTF-8"}, "zh"),
    ({"LANG": "en_US.UTF-8", "LC_MESSAGES": "zh_TW.UTF-8"}, "zh"),
    ({"LANG": "zh_CN.UTF-8", "LC_ALL": "C"}, "en"),
    ({"LC_ALL": "zh_CN.GB18030"}, "zh"),
    ({"LANG": "C.UTF-8"}, "en"),
])
def test_locale_language(env: dict[str, str], want: str) -> None:
    assert locale_lang(env) == want


def test_plogscan_lang_overrides_the_locale() -> None:
    assert default_lang({"LANG": "zh_CN.UTF-8", "PLOGSCAN_LANG": "en"}) == "en"
    assert default_lang({"LANG": "C", "PLOGSCAN_LANG": "zh"}) == "zh"
    assert default_lang({"LANG": "zh_CN", "PLOGSCAN_LANG": "klingon"}) == "zh"


def test_every_ui_language_is_a_report_language() -> None:
    assert set(UI) <= set(LANGS) - {"en"}
    assert tr("en", "Evidence") == "Evidence" and tr("zh", "Evidence") == "证据"
    assert tr("zh", "not a known text") == "not a known text"


def _log(tmp_path: Path) -> Path:
    path = tmp_path / "plog-51234_20260506110200000.log"
    path.write_text(LOG, encoding="utf-8")
    return path


def test_run_gives_findings_and_rule_infos_in_the_chosen_language(tmp_path: Path) -> None:
    rules = RuleSet((rule_from_text(RULE),))
    zh = diagnosed([str(_log(tmp_path))], rules=rules, lang="zh", context_lines=0)
    (finding,) = zh.findings
    assert finding.title == "AI Core 算子执行异常"
    assert finding.description == "进程 51234 中 AI Core 算子执行异常（1 条记录）。"  # scope too
    assert finding.remediation == ("查看紧随其后的 errcode 记录。", "检查算子的输入。")
    titles = {r.id: r.title for r in zh.rules_evaluated}  # the rules, and the input check
    assert titles == {"TST400": "AI Core 算子执行异常", "INPUT001": "无法读取的日志文件"}
    assert zh.lang == "zh"
    en = diagnosed([str(_log(tmp_path))], rules=rules, context_lines=0)
    assert en.findings[0].title == "AI Core kernel exception" and en.lang == "en"
    assert en.findings[0].fingerprint == finding.fingerprint  # language never changes identity


def test_zh_reports_translate_headings_and_rule_texts(tmp_path: Path) -> None:
    rules = RuleSet((rule_from_text(RULE),))
    diagnosis = diagnosed([str(_log(tmp_path))], rules=rules, lang="zh", context_lines=0)
    text = render(diagnosis, "text", width=100)
    assert "plogscan 诊断报告" in text and "结论 · 1 个事件" in text and "事件 I1 · " in text
    assert "证据" in text and "处置建议" in text and "AI Core 算子执行异常" in text
    assert "Evidence" not in text and "Remediation" not in text
    markdown = render(diagnosis, "markdown")
    assert "**结论：** I1 `TST400`" in markdown and "| 事件 | 级别 | 规则 |" in markdown
    assert "**处置建议**" in markdown and "1. 查看紧随其后的 errcode 记录。" in markdown


def _flagship(diagnose_cli, *args: str, env: dict[str, str] | None = None):
    """``plogscan diagnose`` of the flagship sample with no locale but ``env`` set."""
    return diagnose_cli("samples/ccu-reuse-before-mc2", "--quiet", "--width", "100", *args,
                        env={**NO_LOCALE, **(env or {})})


def test_cli_language_follows_locale_and_env_and_option(diagnose_cli) -> None:
    english = _flagship(diagnose_cli).stdout
    assert "Remediation" in english
    assert _flagship(diagnose_cli, env={"LANG": "zh_CN.UTF-8"}).stdout != english
    assert "处置建议" in _flagship(diagnose_cli, env={"LANG": "zh_CN.UTF-8"}).stdout
    both = {"LANG": "zh_CN.UTF-8", "PLOGSCAN_LANG": "en"}
    assert _flagship(diagnose_cli, env=both).stdout == english
    assert _flagship(diagnose_cli, "--lang", "en", env={"PLOGSCAN_LANG": "zh"}).stdout == english
    assert _flagship(diagnose_cli, "--lang", "zh").stdout == _flagship(
        diagnose_cli, env={"PLOGSCAN_LANG": "zh"}).stdout


def test_cli_rejects_an_unknown_language(diagnose_cli) -> None:
    result = _flagship(diagnose_cli, "--lang", "fr")
    assert result.exit_code == 2 and "'en', 'zh'" in result.stderr
    result = _flagship(diagnose_cli, env={"PLOGSCAN_LANG": "fr"})
    assert result.exit_code == 2 and "PLOGSCAN_LANG" in result.stderr


def test_help_documents_the_language_default(diagnose_cli) -> None:
    text = diagnose_cli("--help").stdout
    assert "--lang [en|zh]" in text and "PLOGSCAN_LANG" in text and "LC_MESSAGES" in text


@pytest.mark.parametrize(("fmt", "suffix"), [("text", "txt"), ("markdown", "md")])
def test_zh_sample_goldens(diagnose_cli, fmt: str, suffix: str, golden) -> None:
    result = _flagship(diagnose_cli, "--lang", "zh", "--format", fmt)
    assert result.exit_code == 1, result.stderr
    golden.check(f"samples/ccu-reuse-before-mc2.zh.{suffix}", result.stdout)


def test_rules_show_in_chinese(tmp_path: Path) -> None:
    (tmp_path / "lang.yaml").write_text(RULE, encoding="utf-8")
    result = CliRunner().invoke(cli, ["rules", "show", "TST400", "--rules", str(tmp_path),
                                      "--lang", "zh"], env=NO_LOCALE)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("TST400  test.lang\n  AI Core 算子执行异常\n")
    assert "  1. 查看紧随其后的 errcode 记录。\n" in result.stdout
    english = CliRunner().invoke(cli, ["rules", "show", "TST400", "--rules", str(tmp_path)],
                                 env=NO_LOCALE).stdout
    assert english.startswith("TST400  test.lang\n  AI Core kernel exception\n")


def _sample(name: str, lang: str):
    return diagnosed([str(REPO / "samples" / name)], lang=lang)


def test_zh_verdict_inputs_and_level_words() -> None:
    text = render(_sample("ccu-reuse-no-debug", "zh"), "text", width=400, details=True)
    assert ("失败：严重 2、错误 10、警告 2、提示 4（2 条无法判定）；--fail-on error，退出码 1"
            in text)
    assert "文件      已读取 8 个 · 跳过 1 个 · 242 行 · 208 条记录 · 0 行未解析" in text
    assert "错误 · 命中 · ccu-exception" in text  # level and verdict words
    assert "无法判定：缺少证据（2）" in text
    assert "进程 301556 中没有找到 HCCL 模块的 DEBUG 记录" in text  # the engine's words
    assert "开启DEBUG日志后重跑" in text  # the rule's requires.advice in Chinese
    assert "README.md：不是日志文件（.md）" in text and "首个错误" in text


def test_zh_json_keeps_keys_and_values_and_translates_sentences() -> None:
    zh = json.loads(render(_sample("notify-wait-cascade", "zh"), "json"))
    en = json.loads(render(_sample("notify-wait-cascade", "en"), "json"))
    assert zh.keys() == en.keys() and zh["summary"] == en["summary"]
    assert [f["level"] for f in zh["findings"]] == [f["level"] for f in en["findings"]]
    assert [f["verdict"] for f in zh["findings"]] == [f["verdict"] for f in en["findings"]]
    assert zh["root_cause"]["verdict"] == en["root_cause"]["verdict"] == "localized"
    zh_reasons = [r["text"] for r in zh["root_cause"]["suspects"][0]["reasons"]]
    en_reasons = [r["text"] for r in en["root_cause"]["suspects"][0]["reasons"]]
    assert [r["signal"] for r in zh["root_cause"]["suspects"][0]["reasons"]] == \
        [r["signal"] for r in en["root_cause"]["suspects"][0]["reasons"]]
    assert any(r.startswith("等待链止于此：7 个 rank 的等待都指向它") for r in zh_reasons)
    assert any(r.startswith("the chain of waits ends here: the waits of 7 ranks lead to it")
               for r in en_reasons)


def test_zh_machine_formats_translate_their_messages() -> None:
    diagnosis = _sample("ccu-reuse-no-debug", "zh")
    junit = render(diagnosis, "junit")
    assert 'message="无法判定：' in junit or "无法判定" in junit
    assert "由此引发：" in junit and "指纹 " in junit
    sarif = json.loads(render(diagnosis, "sarif"))
    messages = [r["message"]["text"] for r in sarif["runs"][0]["results"]]
    assert any("：无法判定。缺少：" in m for m in messages)
    assert all(r["level"] in ("error", "warning", "note", "none")
               for r in sarif["runs"][0]["results"])
    html = render(diagnosis, "html")
    assert '<html lang="zh-CN" data-word-copy="复制"' in html and "<h2>概要</h2>" in html


def test_english_reports_carry_no_chinese() -> None:
    diagnosis = _sample("notify-wait-cascade", "en")
    for fmt in ("text", "markdown", "html", "junit", "sarif", "json"):
        assert not re.search(r"[\u4e00-\u9fff]", render(diagnosis, fmt)), fmt
