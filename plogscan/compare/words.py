"""The fixed words of ``plogscan diff``'s reports, in every report language.

Keyed by their English form (``plogscan.lang.Catalogue``): an English report uses the key as
it is, a Chinese one its translation here (``tests/e2e/test_zh_complete.py`` checks that every text
the reports ask for has one, with the same placeholders). ``GOOD`` and ``BAD`` stay as the
command line spells them; values (templates, paths, codes) are filled in as they are.
"""

from __future__ import annotations

from plogscan.lang import Catalogue

WORDS: dict[str, dict[str, str]] = {
    "zh": {
        # headings
        "plogscan diff": "plogscan 运行对比",
        "ANSWER": "结论",
        "LOGGED BY BAD, NOT BY GOOD ({n} templates, most consistent first)":
            "BAD 记录而 GOOD 未记录的内容（{n} 个模板，按区分程度排序）",
        "LOGGED BY GOOD, NOT BY BAD ({n} templates)": "GOOD 记录而 BAD 未记录的内容（{n} 个模板）",
        "WHERE EACH RANK DIVERGES": "各 rank 的分歧点",
        "FINDINGS ONLY IN {run} ({n})": "仅 {run} 中出现的结论（{n}）",
        "CODES, LEVELS AND MODULES ONLY IN {run} ({n})":
            "仅 {run} 中出现的错误码、级别和模块（{n}）",
        "SETTINGS THAT DIFFER ({n})": "取值不同的配置（{n}）",
        "PROCESSES WITH NO COUNTERPART ({n})": "在另一次运行中没有对应的进程（{n}）",
        # the runs
        "{n} process": "{n} 个进程",
        "{n} processes": "{n} 个进程",
        "{n} record": "{n} 条记录",
        "{n} records": "{n} 条记录",
        "{n} failing": "{n} 个出错",
        "{n} finding": "{n} 条结论",
        "{n} findings": "{n} 条结论",
        "{n} templates past the cap of distinct templates were not compared ({records} records)":
            "{n} 个模板超出了不同模板数的上限，未参与对比（{records} 条记录）",
        "{n} records belong to no known process and were not compared":
            "{n} 条记录不属于任何已知进程，未参与对比",
        # the answer
        "No differences: both runs logged the same templates in the same order, with the same "
        "codes, levels, modules, settings and findings.":
            "没有差异：两次运行以相同的顺序记录了相同的模板，错误码、级别、模块、配置和结论也都相同。",
        "Only BAD logged 1 template. It is in {where} and in no process of GOOD:":
            "只有 BAD 记录了 1 个模板。它出现在{where}中，GOOD 的进程中都没有：",
        "Only BAD logged {n} templates. The first is in {where} and in no process of GOOD:":
            "只有 BAD 记录了 {n} 个模板。第一个出现在{where}中，GOOD 的进程中都没有：",
        "BAD's failing process": " BAD 的出错进程",
        "both of BAD's failing processes": " BAD 的两个出错进程",
        "all {n} of BAD's failing processes": " BAD 全部 {n} 个出错进程",
        "{count} of BAD's {total} failing processes": " BAD 的 {total} 个出错进程中的 {count} 个",
        "BAD's process": " BAD 的进程",
        "both of BAD's processes": " BAD 的两个进程",
        "all {n} of BAD's processes": " BAD 全部 {n} 个进程",
        "{count} of BAD's {total} processes": " BAD 的 {total} 个进程中的 {count} 个",
        "BAD logged no template that GOOD did not; 1 template is in more of its processes:":
            "BAD 没有记录 GOOD 未记录的模板；有 1 个模板出现在 BAD 更多的进程中：",
        "BAD logged no template that GOOD did not; {n} templates are in more of its processes. "
        "The first:":
            "BAD 没有记录 GOOD 未记录的模板；有 {n} 个模板出现在 BAD 更多的进程中。第一个：",
        "BAD logged no template that GOOD did not.": "BAD 没有记录 GOOD 未记录的模板。",
        "The runs first diverge on {slot} after 1 common template: BAD logs the first "
        "template below where GOOD logs the second.":
            "两次运行在 {slot} 上经过 1 个相同的模板后首次分歧：BAD 在此处记录了下面第一个模板，"
            "而 GOOD 记录的是第二个。",
        "The runs first diverge on {slot} after {n} common templates: BAD logs the first "
        "template below where GOOD logs the second.":
            "两次运行在 {slot} 上经过 {n} 个相同的模板后首次分歧：BAD 在此处记录了下面第一个模板，"
            "而 GOOD 记录的是第二个。",
        "The runs differ in what else they logged: {what}": "两次运行在其他方面的差异：{what}",
        "{label}: {what}": "{label}：{what}",
        "1 finding only in BAD, {m} only in GOOD":
            "1 条结论仅出现在 BAD 中，{m} 条仅出现在 GOOD 中",
        "{n} findings only in BAD, {m} only in GOOD":
            "{n} 条结论仅出现在 BAD 中，{m} 条仅出现在 GOOD 中",
        "1 code, level or module only in BAD, {m} only in GOOD":
            "1 个错误码、级别或模块仅出现在 BAD 中，{m} 个仅出现在 GOOD 中",
        "{n} codes, levels or modules only in BAD, {m} only in GOOD":
            "{n} 个错误码、级别或模块仅出现在 BAD 中，{m} 个仅出现在 GOOD 中",
        "1 setting with another value": "1 项配置取值不同",
        "{n} settings with other values": "{n} 项配置取值不同",
        "1 process with no counterpart": "1 个进程没有对应的进程",
        "{n} processes with no counterpart": "{n} 个进程没有对应的进程",
        # lists
        "BAD {failing}/{total} failing": "BAD {failing}/{total} 个出错进程",
        "first {ts}": "首次 {ts}",
        "… {n} more (--limit 0 or --format json lists them all)":
            "… 另有 {n} 项（--limit 0 或 --format json 可列出全部）",
        "after 1 common template": "经过 1 个相同的模板之后",
        "after {n} common templates": "经过 {n} 个相同的模板之后",
        "GOOD logs": "GOOD 记录",
        "BAD logs": "BAD 记录",
        "(nothing more)": "（没有更多记录）",
        "first only in BAD": "仅 BAD 记录的第一个模板",
        "code": "错误码",
        "level": "级别",
        "module": "模块",
        "not printed": "未打印",
        # slots
        "ranks {ranks}": "rank {ranks}",
        "process #{n}": "进程 #{n}",
        "no process": "无所属进程",
        # markdown
        "Template": "模板",
        "Runs": "运行",
        "First logged": "首次记录",
        "Setting": "配置",
        "Rule": "规则",
        "Level": "级别",
        "Verdict": "判定",
        "Ranks": "Rank",
        "Title": "标题",
        "Kind": "类别",
        "Value": "取值",
        "Meaning": "含义",
        "Processes": "进程数",
        "Records": "记录数",
    },
}

say = Catalogue("compare", WORDS)
