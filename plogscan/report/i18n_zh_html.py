"""The Chinese of the HTML report's fixed words (``plogscan.report.i18n``): the template's
headings, labels, table headers, legends, tooltips and the script's words, and the swimlane's
tooltips and caption. Keyed by their English; the same terms as ``i18n_zh``.
"""

from __future__ import annotations

HTML_ZH: dict[str, str] = {
    "plogscan report: {verdict}": "plogscan 诊断报告：{verdict}",
    "plogscan diagnosis": "plogscan 诊断",
    "Sections": "章节",
    "Summary": "概要",
    "Rank × time": "rank × 时间",
    "Incidents ({n})": "事件（{n}）",
    "Events": "日志记录",
    "Ingest health": "日志读取情况",
    "clean": "未发现问题",
    "{n} {level} finding": "{n} 条{level}结论",
    "{n} {level} findings": "{n} 条{level}结论",
    "{n} findings": "{n} 条结论",
    "{findings}: {levels}": "{findings}：{levels}",
    "{n} check": "{n} 项检查",
    "{n} checks": "{n} 项检查",
    "{checks} could not be evaluated for lack of evidence: each says below what is missing and "
    "how to get it.": "{checks}因缺少证据而无法判定：下文逐项说明缺少什么以及如何获取。",
    " (not evaluable)": "（无法判定）",
    "Root cause": "根因",
    ": the logs cannot single out a device": "：日志无法确定单个设备",
    "Wait chain": "等待链",
    "{n} runs in the input; the verdict is about the last one that failed":
        "输入中有 {n} 次运行；结论针对最后一次失败的运行",
    "Outcome": "结果",
    "{files}, {records}, {processes}": "{files}，{records}，{processes}",
    ", ranks {ranks}": "，rank {ranks}",
    "Errors, timeouts and finding steps per lane over time":
        "各泳道随时间分布的错误、超时与结论步骤",
    " (suspected root cause)": "（疑似根因）",
    " (victim: it only waited)": "（受害者：仅在等待）",
    "finding step, labelled by its rule": "结论步骤（标注其规则）",
    "step order": "步骤顺序",
    "first-error rank → later errors": "最先出错的 rank → 之后的错误",
    "wait chain (waiting rank → the rank it waits for); ▶ suspected root, · victim":
        "等待链（等待方 rank → 被等待的 rank）；▶ 疑似根因，· 受害者",
    "Marks are at aligned times.": "标记位于对齐后的时间。",
    "Time since {start} (span {span}). One lane per rank; a record without a rank goes to its "
    "host and pid, or else its file. Hover a mark for its log line.":
        "自 {start} 起的时间（跨度 {span}）。每个 rank 一条泳道；没有 rank 的记录按主机与进程归入"
        "泳道，否则按文件。将鼠标悬停在标记上可查看对应的日志行。",
    "{n} records without a timestamp are not drawn.": "{n} 条没有时间戳的记录未绘制。",
    "Nothing to draw: no error, warning or evidence record has a timestamp ({n} records without "
    "a timestamp are not drawn).":
        "没有可绘制的内容：错误、警告和证据记录都没有时间戳（{n} 条没有时间戳的记录未绘制）。",
    "Nothing to draw: no error, warning or evidence record has a timestamp.":
        "没有可绘制的内容：错误、警告和证据记录都没有时间戳。",
    "Incidents ({n}) · findings ({m})": "事件（{n}）· 结论（{m}）",
    " · attempt {n}": " · 运行批次 {n}",
    "Follows from it: {summary} ({n})": "由此引发：{summary}（{n}）",
    "No rule matched, and every rule had the evidence it needs.":
        "没有规则命中，且每条规则都具备所需的证据。",
    "Baseline": "基线",
    "{n} known findings suppressed by the baseline:": "{n} 条已知结论已被基线屏蔽：",
    "{n} baseline entries have expired and suppress nothing:":
        "{n} 个基线条目已过期，不再屏蔽任何结论：",
    ", expired {date}": "，已于 {date} 过期",
    "Errors, warnings and the records cited as evidence: {shown} of {total} shown.":
        "错误、警告以及被引为证据的记录：共 {total} 条，显示 {shown} 条。",
    " {n} more are left out (the table holds at most {rows} rows; evidence and errors are kept "
    "first).": "另有 {n} 条未列出（表格最多 {rows} 行，优先保留证据和错误）。",
    " The diagnosis itself kept only part of the events.": "诊断本身只保留了部分记录。",
    "Filter": "筛选",
    "text in any column": "任意列中的文本",
    "Level": "级别",
    "all": "全部",
    "NONE": "无级别",  # a record with no level (a line of unknown shape)
    "Time": "时间",
    "Rank": "Rank",
    "Host": "主机",
    "Module": "模块",
    "Location": "位置",
    "Message": "消息",
    "Device": "设备",
    "Levels": "日志级别",
    "First record": "首条记录",
    "Last record": "末条记录",
    "ERROR records that no rule explains, grouped into templates (numbers, ids and paths "
    "masked), earliest first: {shown} of {total} shown.":
        "没有规则能解释的 ERROR 记录，按模板归类（数字、ID 和路径已屏蔽），按最早出现排序："
        "共 {total} 个，显示 {shown} 个。",
    "{count}× · ranks {ranks} · first {ts} · e.g.": "{count}× · rank {ranks} · 首次 {ts} · 示例",
    "{files} read, {skipped} skipped; {lines}, {records},":
        "已读取 {files}，跳过 {skipped} 个；共 {lines}，{records}，",
    "unparsed lines.": "行未解析。",
    "Inputs:": "输入：",
    "Clocks": "时钟",
    " {n} invalid timestamps": " {n} 个无效时间戳",
    " {n} records stamped near the epoch (device clock not set)":
        " {n} 条记录的时间戳接近 1970 年（设备时钟未设置）",
    "No invalid or epoch-clock timestamps.": "没有无效或接近 1970 年的时间戳。",
    "Problems": "问题",
    "Processes": "进程",
    "Path": "路径",
    "Kind": "类型",
    "Bytes": "字节数",
    "Lines": "行数",
    "Records": "记录数",
    "Unparsed": "未解析",
    "Decode errors": "解码错误",
    "NUL bytes": "NUL 字节",
    "Truncated lines": "截断的行",
    "{n} more files are not listed.": "另有 {n} 个文件未列出。",
    "Written by plogscan {version}. This file is self-contained: it loads nothing from the "
    "network, and its script only sorts and filters the events table and copies fingerprints.":
        "由 plogscan {version} 生成。本文件自包含：不从网络加载任何内容，其脚本只对日志记录表进行"
        "排序和筛选，以及复制指纹。",
    "the cross-rank analysis names this finding's rank as a suspect":
        "跨 rank 分析认为该结论所在的 rank 是疑似根因",
    "this finding's rank only waited for another": "该结论所在的 rank 只是在等待其他 rank",
    "victim": "受害者",
    "category": "类别",
    "symptom of": "症状，可能的根因",
    "linked": "相关规则",
    "verdict": "判定",
    "Scope:": "范围：",
    "Missing evidence: how to make this checkable": "缺少证据：如何使其可以判定",
    "Captured fields": "捕获的字段",
    "Fingerprint": "指纹",
    "Copy": "复制",
    "Copied": "已复制",
    "Copy failed": "复制失败",
    "{shown} of {total} rows shown": "显示 {shown} / {total} 行",
    # swimlane tooltips and caption
    "Aligned to the clock of {reference}: {offsets}.": "已对齐到 {reference} 的时钟：{offsets}。",
    "rank {root} went wrong first; rank {rank} logged its first error {delay} later":
        "rank {root} 最先出错；rank {rank} 在 {delay} 之后记录了首个错误",
    "{waiting} waits for {peer}": "{waiting} 在等待 {peer}",
    " (+{n} more here)": "（此处另有 {n} 个）",
    "{label} (not in the input)": "{label}（不在输入中）",
}
