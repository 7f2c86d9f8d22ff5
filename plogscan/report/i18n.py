"""The fixed words of the reports (headings, labels) in every report language.

Texts are keyed by their English form, so an English report uses them unchanged and a missing
translation falls back to English. Rule texts (titles, descriptions, remediation) are not here:
they come translated from the rule files (``i18n``). Keys with ``{name}`` are format strings.
"""

from __future__ import annotations

from plogscan.model import Level

UI: dict[str, dict[str, str]] = {
    "zh": {
        # terminal report
        "plogscan report": "plogscan 诊断报告",
        "Inputs": "输入",
        "Files": "文件",
        "Time span": "时间范围",
        "Seen": "涉及",
        "TIMELINE (key events per rank)": "时间线（各 rank 的关键事件）",
        "SUPPRESSED BY BASELINE ({n})": "已被基线屏蔽（{n}）",
        "UNEXPLAINED ERRORS (top {shown} of {total} templates, earliest first)":
            "未解释的错误（共 {total} 个模板，按最早出现排序，显示前 {shown} 个）",
        "INGEST HEALTH": "日志读取情况",
        "CODES ({n})": "错误码（{n}）",
        # one finding
        "… {n} more {rule} findings{where} (--verbose or --format json lists all)":
            "… 另有 {n} 条 {rule} 结论{where}（--verbose 或 --format json 可列出全部）",
        "ranks {ranks}": "rank {ranks}",
        "pids {pids}": "进程 {pids}",
        "Unexplained errors": "未解释的错误",
        "_{n} more templates: see the JSON report._": "_另有 {n} 个模板，见 JSON 报告。_",
        "Evidence": "证据",
        "Remediation": "处置建议",
        "References": "参考资料",
        "Not evaluable: missing evidence": "无法判定：缺少证据",
        "symptom of: {links}": "症状，可能的根因：{links}",
        "symptom": "症状",
        "root cause": "根因",
        "linked: {links}": "相关规则：{links}",
        "suspect rank": "疑似根因 rank",
        "victim (waited)": "受害者（仅在等待）",
        "identity assumed": "身份为推定",
        # cross-rank section
        "ROOT CAUSE · {verdict}": "根因定位 · {verdict}",
        "localized": "已定位",
        "ambiguous": "多个可能",
        "undetermined": "无法确定",
        "The logs cannot single out a device: every rank only waited, and nothing marks one "
        "of them as first or odd.":
            "日志无法确定单个设备：所有 rank 都只是在等待，没有证据表明哪一个最先出错或行为异常。",
        "confidence {value}": "置信度 {value}",
        "Chain": "等待链",
        "… {n} more hops …": "… 另有 {n} 跳 …",
        "Victims": "受害者",
        " and {n} more": " 等另外 {n} 个",
        "reference {host}": "基准主机 {host}",
        "{n} pair(s)": "{n} 组配对",
        "Clock": "时钟",
        "no failure": "无故障",
        "Attempts": "运行批次",
        "Missing": "缺失",
        "{key} = {value} s is shorter than the {gap} s gap between {what}":
            "{key} = {value} 秒，短于 {what} 之间 {gap} 秒的间隔",
        "Settings": "配置",
        "first divergence at collective {seq} of {comm}: {kind} (odd ranks {ranks})":
            "通信域 {comm} 的第 {seq} 个集合通信首次出现分歧：{kind}（异常 rank：{ranks}）",
        "Collectives": "集合通信",
        "Note": "说明",
        "… {n} more suspects (--format json lists all)":
            "… 另有 {n} 个疑似根因（--format json 可列出全部）",
        # incidents (terminal)
        "ANSWER · {n} incident": "结论 · {n} 个事件",
        "ANSWER · {n} incidents": "结论 · {n} 个事件",
        "INCIDENT {id} · {rule}": "事件 {id} · {rule}",
        "COULD NOT CHECK: EVIDENCE MISSING ({n})": "无法判定：缺少证据（{n}）",
        "Follows from it": "由此引发",
        "also on {where} ({n} finding)": "同样出现在 {where}（{n} 条结论）",
        "also on {where} ({n} findings)": "同样出现在 {where}（{n} 条结论）",
        "root": "根因",
        "chain": "等待链",
        "waited": "仅等待",
        "do": "处置",
        "also": "另见",
        "could not check": "无法判定",
        "{who} · {verdict} · confidence {value}": "{who} · {verdict} · 置信度 {value}",
        "{n} ranks only waited ({ranks})": "{n} 个 rank 仅在等待（{ranks}）",
        "rank {ranks}": "rank {ranks}",
        "pid {pids}": "进程 {pids}",
        "device {devices}": "设备 {devices}",
        "devices {devices}": "设备 {devices}",
        "host {hosts}": "主机 {hosts}",
        "hosts {hosts}": "主机 {hosts}",
        "+{n} more evidence records (--all shows them)": "另有 {n} 条证据记录（--all 显示全部）",
        "… {n} more rules (--all lists them)": "… 另有 {n} 条规则（--all 列出全部）",
        "  … {n} more key events": "  … 另有 {n} 个关键事件",
        "… {n} more ranks (--all shows every rank)": "… 另有 {n} 个 rank（--all 显示全部）",
        # incidents (Markdown)
        "| Incident | Level | Rule | Title | Scope | Findings | First seen |":
            "| 事件 | 级别 | 规则 | 标题 | 范围 | 结论数 | 首次出现 |",
        "| Finding | Level | Rule | Title | Verdict | Scope |":
            "| 结论 | 级别 | 规则 | 标题 | 判定 | 范围 |",
        "**Only waited:** {n} ranks ({ranks})": "**仅在等待：** {n} 个 rank（{ranks}）",
        "_{n} more incidents: see the full report._": "_另有 {n} 个事件：请查看完整报告。_",
        # Markdown report
        "Top finding:": "首要结论：",
        "| # | Level | Rule | Title | Verdict | Scope | First seen |":
            "| # | 级别 | 规则 | 标题 | 判定 | 范围 | 首次出现 |",
        "**Evidence**": "**证据**",
        "**Remediation**": "**处置建议**",
        "**Not evaluable, missing evidence:**": "**无法判定，缺少证据：**",
        "### Suppressed by baseline ({n})": "### 已被基线屏蔽（{n}）",
        "No findings from {n} rules evaluated.": "已评估 {n} 条规则，没有发现问题。",
        "_{n} more findings: see the full report._": "_另有 {n} 条结论：请查看完整报告。_",
    },
}

LEVEL_NAMES: dict[str, dict[Level, str]] = {
    "zh": {Level.CRITICAL: "严重", Level.ERROR: "错误", Level.WARNING: "警告", Level.INFO: "提示"},
}


def tr(lang: str, text: str, **values: object) -> str:
    """``text`` in ``lang`` (English when untranslated), with ``{name}`` filled from ``values``."""
    out = UI.get(lang, {}).get(text, text)
    return out.format(**values) if values else out


def level_word(lang: str, level: Level) -> str:
    """A severity in running text: ``critical`` / ``严重``."""
    return LEVEL_NAMES.get(lang, {}).get(level, level.value)


def level_heading(lang: str, level: Level) -> str:
    """A severity as a section heading: ``CRITICAL`` / ``严重``."""
    return LEVEL_NAMES.get(lang, {}).get(level, level.value.upper())
