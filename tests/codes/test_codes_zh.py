"""Chinese code meanings: every text of every code table has its ``i18n.zh``, the loader checks
the translations strictly, and ``describe``/``decode``/``explain``/``diagnose`` speak Chinese
when asked while English stays the default."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from plogscan.codes import decode, describe, load_tables, tables
from plogscan.codes.translations import pick
from plogscan.codes.words import KINDS, LABELS, WORDS, every_word, word
from plogscan.errors import ErrorGroup, PlogscanError
from tests.helpers import NO_LOCALE, REPO_ROOT, run_cli

REPO = REPO_ROOT
CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef\u3000-\u303f]")
# An ordinary English word (``timeout``, ``Driver``): a text that has one needs Chinese words.
# Identifiers such as ``TEFusion``, ``AclNN``, ``CCE`` or ``HCCL errNo`` may stay as they are.
PLAIN_WORD = re.compile(r"(?<![\w{])[A-Za-z][a-z]{2,}(?![\w}])")
# Names and numbers that a translation must keep exactly as the English writes them.
IDENTIFIER = re.compile(r"\b(?:[A-Z][A-Z0-9]*_[A-Z0-9_]+|[a-z]+(?:_[a-z]+)+|0x[0-9a-fA-F]+|"
                        r"\d{3,}|E[A-Z0-9]\d{4})\b")


def _shipped_texts() -> list[tuple[str, str, str | None]]:
    """(where, English text, Chinese text or None) for every human text of the shipped tables."""
    t = tables()
    out: list[tuple[str, str, str | None]] = []
    for table in t.names:
        part = t.part(table)
        out.append((f"table {table} title", part.title,
                    pick(part.title_i18n, "zh").get("title")))
    for entries in t.entries.values():
        for entry in entries.values():
            zh = pick(entry.i18n, "zh")
            for field, english in entry.english_texts().items():
                out.append((f"{entry.where} {entry.table} {entry.code} {field}", english,
                            zh.get(field)))
    for letter, name in sorted(t.components.items()):
        zh_name = t.part("errmgr").components_i18n.get("zh", {}).get(letter)
        out.append((f"errmgr component {letter}", name, zh_name))
    for ident, pta in sorted(t.pta_types.items()):
        zh = pick(pta.i18n, "zh")
        for field in ("meaning", "note", "remedy"):
            if getattr(pta, field) is not None:
                out.append((f"pta type {ident} {field}", getattr(pta, field), zh.get(field)))
    return out


def _decoder_words() -> list[tuple[str, str, str | None]]:
    return [(f"words {english!r}", english, WORDS["zh"].get(english)) for english in every_word()]


# --- completeness and quality of the Chinese text -------------------------------------------

def test_every_text_of_every_code_table_has_its_chinese() -> None:
    texts = _shipped_texts()
    assert len(texts) > 1200  # every table, entry, field, component and torch_npu type
    missing = [where for where, _english, zh in texts if zh is None]
    assert not missing, "add i18n: {zh: {...}} for:\n" + "\n".join(missing)


def test_every_word_the_decoder_composes_has_its_chinese() -> None:
    missing = [english for english in every_word() if english not in WORDS["zh"]]
    assert not missing, missing
    stale = sorted(set(WORDS["zh"]) - set(every_word()))
    assert not stale, f"translations of words nothing uses: {stale}"
    assert set(KINDS) == {"acl", "aclnn", "aicore_errcode", "device_event", "errmgr",
                          "errmgr_component", "ge", "hccl_errno", "hccl_result", "innercode",
                          "pta", "rt", "ts_retcode"}


@pytest.mark.parametrize("source", [_shipped_texts, _decoder_words], ids=["tables", "words"])
def test_chinese_texts_are_chinese_and_keep_names_and_numbers(source) -> None:
    bad = []
    for where, english, zh in source():
        if zh is None:
            continue  # reported by the completeness tests
        if not zh.strip():
            bad.append(f"{where}: empty")
        if PLAIN_WORD.search(english) and not CJK.search(zh):
            bad.append(f"{where}: {zh!r} has no Chinese, the English {english!r} has words")
        lost = set(IDENTIFIER.findall(english)) - set(IDENTIFIER.findall(zh))
        if lost:
            bad.append(f"{where}: {zh!r} drops {sorted(lost)}")
        if set(re.findall(r"\{\w+\}", english)) != set(re.findall(r"\{\w+\}", zh)):
            bad.append(f"{where}: placeholders differ from {english!r}")
    assert not bad, "\n".join(bad)


def test_the_quality_checks_can_fail() -> None:
    assert PLAIN_WORD.search("ccu exception") and not PLAIN_WORD.search("TEFusion")
    assert not PLAIN_WORD.search("HCCL errNo") and not PLAIN_WORD.search("{component} x")
    assert not CJK.search("ccu exception") and CJK.search("CCU 执行异常")
    assert IDENTIFIER.findall("ACL_ERROR_RT_X (507915), hccn_tool, EI0001") == [
        "ACL_ERROR_RT_X", "507915", "hccn_tool", "EI0001"]


# --- decoding in Chinese ----------------------------------------------------------------------

def test_describe_is_english_by_default_and_chinese_when_asked() -> None:
    english = ("ACL_ERROR_RT_CCU_EXCEPTION: ccu exception (the collective communication unit "
               "task failed)")
    assert describe("507916") == describe("507916", "en") == english
    assert describe("507916", "zh") == \
        "ACL_ERROR_RT_CCU_EXCEPTION：CCU 执行异常（集合通信单元任务失败）"
    assert describe("0x227", "zh") == "TS retCode：CCU 执行异常"
    assert describe("no such code", "zh") is None


def test_composed_readings_are_chinese() -> None:
    (errno,) = decode("0x0000000005010009", lang="zh")
    assert errno.name == "HCOM 超时 (9)" and errno.kind == "HCCL errNo"
    assert errno.meaning == \
        "HCCL errNo = 模块 HCCL (5) + 子模块 HCOM (1) + HCCL_E_TIMEOUT (9)：超时"
    assert dict(errno.details)["error"] == "HCCL_E_TIMEOUT (9)：超时"
    (known,) = decode("EI0002", lang="zh")
    assert known.name == "Communication_Error_Timeout" and "通信算子执行超时" in known.meaning
    assert dict(known.details) == {"component": "I = HCCL"}
    assert known.remedy is not None and known.remedy.startswith("若只有部分 rank 报此错")
    (unknown,) = decode("W70001", lang="zh")
    assert unknown.name == "Vector 算子插件 告警码" and unknown.meaning.startswith("不在错误码表中")
    assert unknown.kind == "错误管理模块错误码（按组件字母解读）"
    (pta,) = decode("ERR07200", lang="zh")
    assert pta.name == "torch_npu 模块 07" and pta.meaning == "调用 HCCL 接口失败"
    assert dict(pta.details) == {"module": "07 = 不在表中", "type": "200 = 调用 HCCL 接口失败",
                                 "note": "HcclResult 在上一行（error code is N）"}
    (acl,) = decode("207018", lang="zh")
    assert dict(acl.details)["torch npu"] == "Device 上的内存已耗尽。"
    (aicore,) = decode("errcode 0x200000000", lang="zh")
    assert aicore.name == "AI Core 错误码 (0x200000000, 0, 0)" and aicore.kind == "AI Core 错误码"
    (internal,) = decode("EL9998", lang="zh")
    assert internal.name == "驱动（Driver） 错误码" and CJK.search(internal.meaning)


def test_every_known_code_reads_the_same_structure_in_both_languages() -> None:
    from plogscan.codes import known_codes
    for code in known_codes():
        en, zh = decode(code), decode(code, lang="zh")
        assert [(r.code, r.table, r.category, r.source, r.exact) for r in en] == \
            [(r.code, r.table, r.category, r.source, r.exact) for r in zh], code
        for a, b in zip(en, zh, strict=True):
            assert [k for k, _ in a.details] == [k for k, _ in b.details], code
            assert CJK.search(b.line()), (code, b.line())
            assert a.lang == "en" and b.lang == "zh"


def test_word_falls_back_to_english() -> None:
    assert word("en", "source: {source}", source="X") == "source: X"
    assert word("zh", "source: {source}", source="X") == "来源：X"
    assert word("fr", "module") == "module"
    assert "torch npu" in LABELS


# --- strict loading of i18n -------------------------------------------------------------------

def _problems(directory: Path) -> list[PlogscanError]:
    with pytest.raises(PlogscanError) as info:
        load_tables(directory)
    err = info.value
    return err.errors if isinstance(err, ErrorGroup) else [err]


def _located(path: Path, problems: list[PlogscanError]) -> list[tuple[int, str, str]]:
    return [(p.where.line or 0, p.message, p.help or "") for p in problems
            if p.where is not None and p.where.path == str(path)]


def test_entry_translations_are_checked_and_located(tmp_path: Path) -> None:
    path = tmp_path / "ts_retcode.yaml"
    path.write_text("\n".join([
        "table: ts_retcode",                               # 1
        "title: TS",                                       # 2
        "i18n: {zh: {titel: 任务调度器}}",                  # 3  unknown key
        "source: github.com/hicann/runtime x.h",           # 4
        "entries:",                                        # 5
        "  - code: '0x25'",                                # 6
        "    meaning: aicore timeout",                     # 7
        "    i18n: {fr: {meaning: délai}}",                # 8  unknown language
        "  - code: '0x26'",                                # 9
        "    meaning: aicore exception",                   # 10
        "    i18n:",                                       # 11
        "      zh:",                                       # 12
        "        note: 说明",                               # 13 translates nothing; meaning missing
        "  - code: '0x30'",                                # 14
        "    meaning: m",                                  # 15
        "    i18n: {zh: {meaning: [a, b]}}",               # 16 not text
        "  - code: '0x31'",                                # 17
        "    meaning: m",                                  # 18
        "    i18n: {zh: {meaning: ''}}",                   # 19 empty
        "  - code: '0x5D'",                                # 20
        "    meaning: m",                                  # 21
        "    i18n: 中文",                                   # 22 not a mapping
        "  - code: '0x105'",                               # 23
        "    meaning: m",                                  # 24
        "    i18n: {zh: {meaning: 任务, colour: 红}}",       # 25 unknown key
        "  - code: '0x10F'",                               # 26
        "    meaning: m",                                  # 27
        "    i18n: {zh: {meaning: 正确}}",                  # 28 fine
        "",
    ]), encoding="utf-8")
    problems = _located(path, _problems(tmp_path))

    def at(line: int, words: str, help_words: str = "") -> bool:
        return any(n == line and words in m and help_words in h for n, m, h in problems)

    assert at(3, "unknown key 'titel' in i18n 'zh' of table ts_retcode",
              "valid keys here are: title")
    assert at(3, "i18n 'zh' of table ts_retcode is missing 'title'")
    assert at(8, "unknown language 'fr' in i18n of entry 0x25", "valid choices are: zh")
    assert at(13, "'note' in i18n 'zh' of entry 0x26 translates nothing", "meaning")
    assert any("i18n 'zh' of entry 0x26 is missing 'meaning'" in m for _n, m, _h in problems)
    assert at(16, "'meaning' of i18n 'zh' of entry 0x30 must be text, got a list")
    assert at(19, "'meaning' of i18n 'zh' of entry 0x31 must not be empty")
    assert at(22, "'i18n' of entry 0x5D must be a mapping, got the text '中文'")
    assert at(25, "unknown key 'colour' in i18n 'zh' of entry 0x105",
              "valid keys here are: meaning")
    assert len(problems) == 9, problems


def test_a_translation_names_every_text_field_of_its_entry(tmp_path: Path) -> None:
    path = tmp_path / "rt.yaml"
    path.write_text("table: rt\ntitle: A\nsource: github.com/hicann/runtime x.h\nentries:\n"
                    "  - code: 507916\n    name: N\n    meaning: ccu exception\n"
                    "    torch_npu: The task failed.\n    note: look at rank 0\n"
                    "    i18n:\n      zh: {meaning: CCU 执行异常}\n", encoding="utf-8")
    problems = _located(path, _problems(tmp_path))
    messages = sorted(m for _n, m, _h in problems)
    assert messages == ["i18n 'zh' of entry 507916 is missing 'note'",
                        "i18n 'zh' of entry 507916 is missing 'torch_npu'"]
    assert all("meaning, torch_npu, note" in h for _n, _m, h in problems)


def test_component_and_torch_npu_translations_are_checked(tmp_path: Path) -> None:
    errmgr = tmp_path / "errmgr.yaml"
    errmgr.write_text("\n".join([
        "table: errmgr",                   # 1
        "title: E",                        # 2
        "source: https://example.org/e",   # 3
        "components:",                     # 4
        "  letters: {I: HCCL, L: Driver}", # 5
        "  i18n:",                         # 6
        "    zh:",                         # 7
        "      letters:",                  # 8
        "        I: HCCL",                 # 9
        "        Q: 队列",                  # 10 not an English letter; L missing
        "entries: []",                     # 11
        "",
    ]), encoding="utf-8")
    pta = tmp_path / "pta.yaml"
    pta.write_text("table: pta\ntitle: P\nsource: github.com/Ascend/pytorch x.h\nmodules:\n"
                   "  - {id: 2, name: DIST, i18n: {zh: {name: 分布式}}}\n"          # 5
                   "types:\n  - {id: 200, meaning: call hccl api failed, note: see above,\n"
                   "     i18n: {zh: {meaning: 调用 HCCL 接口失败}}}\n", encoding="utf-8")
    problems = _problems(tmp_path)
    located = _located(errmgr, problems) + _located(pta, problems)
    assert (10, "component letter 'Q' in i18n 'zh' of 'components' is not an English letter",
            "valid letters are: I, L") in located
    assert any(n == 9 and "missing component letter(s) L" in m for n, m, _h in located)
    assert any(n == 5 and "unknown key 'name' in i18n 'zh' of id 2 of 'modules'" in m
               for n, m, _h in located)
    assert any("i18n 'zh' of id 200 of 'types' is missing 'note'" in m for _n, m, _h in located)
    assert len(located) == 4, located


def test_tables_without_translations_load_and_read_in_english(tmp_path: Path) -> None:
    (tmp_path / "ts_retcode.yaml").write_text(
        "table: ts_retcode\ntitle: TS\nsource: https://example.org/ts\nentries:\n"
        "  - code: '0x25'\n    meaning: aicore timeout\n"
        "  - code: '0x26'\n    meaning: aicore exception\n"
        "    i18n: {zh: {meaning: AI Core 异常}}\n",
        encoding="utf-8")
    loaded = load_tables(tmp_path)
    assert loaded.title("ts_retcode", "zh") == "TS"
    assert [r.meaning for r in decode("retCode=0x25", loaded, "zh")] == ["aicore timeout"]
    assert [r.line() for r in decode("retCode=0x26", loaded, "zh")] == ["TS retCode：AI Core 异常"]


# --- explain and diagnose -----------------------------------------------------------------------

def _cli(*args: str, env: dict[str, str] | None = None):
    return run_cli(*args, env={**NO_LOCALE, **(env or {})})


def test_explain_speaks_chinese_when_asked() -> None:
    english = _cli("explain", "507916", "EI0002", "0x0000000005010009").stdout
    assert "ccu exception" in english and "source: github.com/hicann/runtime " in english
    chinese = _cli("explain", "507916", "EI0002", "0x0000000005010009", "--lang", "zh").stdout
    assert "CCU 执行异常（集合通信单元任务失败）" in chinese and "处理建议：" in chinese
    assert "来源：github.com/hicann/runtime " in chinese and "组件：I = HCCL" in chinese
    assert "子模块：HCOM (1)" in chinese and "（根据错误码的结构解读）" in chinese
    assert "ACL Runtime 错误码：ACL_ERROR_RT_CCU_EXCEPTION" in chinese
    assert _cli("explain", "507916", env={"PLOGSCAN_LANG": "zh"}).stdout == \
        _cli("explain", "507916", "--lang", "zh").stdout
    assert _cli("explain", "507916", env={"LANG": "zh_CN.UTF-8"}).stdout == \
        _cli("explain", "507916", "--lang", "zh").stdout
    assert _cli("explain", "507916", "--lang", "en", env={"LANG": "zh_CN.UTF-8"}).stdout == \
        _cli("explain", "507916").stdout


def test_explain_json_keeps_english_keys_in_chinese() -> None:
    doc = json.loads(_cli("explain", "207018", "ERR02200", "--format", "json",
                          "--lang", "zh").stdout)
    acl, pta = doc[0]["readings"][0], doc[1]["readings"][0]
    assert acl["meaning"] == "Device 侧内存耗尽" and acl["kind"] == "ACL Runtime 错误码"
    assert acl["details"] == {"torch npu": "Device 上的内存已耗尽。"}
    assert set(pta["details"]) == {"module", "type", "note"}


def test_diagnose_in_chinese_shows_chinese_code_meanings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    base = ("diagnose", "samples/ccu-reuse-before-mc2", "--quiet", "--width", "200", "--details")
    text = _cli(*base, "--lang", "zh").stdout
    section = text[re.search(r"^错误码（\d+）", text, re.MULTILINE).start():]
    row = next(line for line in section.splitlines() if line.strip().startswith("507916"))
    assert "ACL_ERROR_RT_CCU_EXCEPTION：CCU 执行异常（集合通信单元任务失败）" in row
    assert "ccu exception" not in section
    english = _cli(*base).stdout
    english_section = english[re.search(r"^CODES \(\d+\)", english, re.MULTILINE).start():]
    assert "ACL_ERROR_RT_CCU_EXCEPTION: ccu exception" in english_section
    codes = json.loads(_cli(*base, "--lang", "zh", "--format", "json").stdout)["codes"]
    assert codes["507916"] == describe("507916", "zh") and codes["0x227"] == describe("0x227", "zh")
    assert codes["0x7150227"] is None
