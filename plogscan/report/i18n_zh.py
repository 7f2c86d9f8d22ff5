"""The Chinese of the reports' fixed words (``plogscan.report.i18n``), keyed by their English.

Written as Ascend and CANN documentation writes Chinese: 根因, 通信域, 算子, 超时, 设备, 主机,
证据, 处置建议; rank, pid, HCCL and option names stay in Latin letters as they do there.
"""

from __future__ import annotations

LEVELS_ZH: dict[str, str] = {"critical": "严重", "error": "错误", "warning": "警告", "info": "提示"}

UI_ZH: dict[str, str] = {
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
    "too weak to apply": "太弱，未应用",
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
    "… {n} more attempts, {failed} of them failed (--format json lists more)":
        "… 另有 {n} 次尝试，其中 {failed} 次失败（--format json 列出更多）",
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
    # words of the model's values
    "match": "命中",
    "not_evaluable": "无法判定",
    "not evaluable": "无法判定",
    "FAIL": "失败",
    "ERROR": "出错",
    "PASS": "通过",
    "rendezvous": "初始化同步",
    "collective-entry": "集合通信入口",
    "heartbeat": "心跳",
    "override": "手动指定",
    "missing": "缺失",
    "op": "算子",
    "count": "数据量",
    "dtype": "数据类型",
    # shared pieces
    " ({text})": "（{text}）",
    "({facts})": "（{facts}）",
    ": {detail}": "：{detail}",
    " ({detail})": "（{detail}）",
    "; ": "；",
    "{path}: {reason}": "{path}：{reason}",
    "{reason} (after {n} members)": "{reason}（已读取 {n} 个成员之后）",
    "{n} {level}": "{level} {n}",
    "no findings": "没有结论",
    "{level} ({n})": "{level}（{n}）",
    " ({n} not evaluable)": "（{n} 条无法判定）",
    "{word}: {what}; --fail-on {fail_on}, exit code {code}":
        "{word}：{what}；--fail-on {fail_on}，退出码 {code}",
    "… [{n} more characters]": "… [另有 {n} 个字符]",
    "fingerprint {fingerprint}": "指纹 {fingerprint}",
    "fingerprint": "指纹",
    "first error": "首个错误",
    "timeout": "超时",
    "error": "错误",
    "warning": "警告",
    "no scope": "无范围",
    "{n} more": "另有 {n} 个",
    # terminal header and appendix
    "{n} read": "已读取 {n} 个",
    "{n} skipped": "跳过 {n} 个",
    "{n} line": "{n} 行",
    "{n} lines": "{n} 行",
    "{n} record": "{n} 条记录",
    "{n} records": "{n} 条记录",
    "{n} unparsed line": "{n} 行未解析",
    "{n} unparsed lines": "{n} 行未解析",
    "{n} rank": "{n} 个 rank",
    "{n} ranks": "{n} 个 rank",
    "{n} host": "{n} 台主机",
    "{n} hosts": "{n} 台主机",
    "{n} process": "{n} 个进程",
    "{n} processes": "{n} 个进程",
    "{n} file": "{n} 个文件",
    "{n} files": "{n} 个文件",
    "{files} read": "已读取 {files}",
    "RANK": "RANK",
    "HOST": "主机",
    "PID": "PID",
    "DEV": "设备",
    "LOG LEVELS": "日志级别",
    "RANKS": "RANK",
    "DEVS": "设备",
    "PROCS": "进程数",
    "… and {n} more hosts (--all lists every process)": "… 另有 {n} 台主机（--all 列出每个进程）",
    " ({omitted} past the {described} described, only counted)":
        "（其中 {omitted} 个超出已描述的 {described} 个进程，只计数）",
    "… and {n} more processes": "… 另有 {n} 个进程",
    ", … ({n} in all)": "，…（共 {n} 个）",
    " · reason: {reason}": " · 原因：{reason}",
    "warning: baseline entry {fingerprint} ({rule}: {title}) expired on {date}; it no longer "
    "suppresses anything":
        "警告：基线条目 {fingerprint}（{rule}：{title}）已于 {date} 过期，不再屏蔽任何结论",
    "{n} invalid UTF-8 sequence": "{n} 处无效的 UTF-8 序列",
    "{n} invalid UTF-8 sequences": "{n} 处无效的 UTF-8 序列",
    "{n} NUL byte": "{n} 个 NUL 字节",
    "{n} NUL bytes": "{n} 个 NUL 字节",
    "{n} line cut at 1022+ chars": "{n} 行超过 1022 个字符被截断",
    "{n} invalid timestamp": "{n} 个无效时间戳",
    "{n} invalid timestamps": "{n} 个无效时间戳",
    "{n} record with an unsynchronised 1970 clock": "{n} 条记录的时钟未同步（1970 年）",
    "{n} records with an unsynchronised 1970 clock": "{n} 条记录的时钟未同步（1970 年）",
    "Skipped files": "跳过的文件",
    "Files with problems": "读取有问题的文件",
    "  … and {n} more files": "  … 另有 {n} 个文件",
    "every line of every file was read and parsed": "每个文件的每一行都已读取并解析",
    "first {ts}": "首次 {ts}",
    "e.g. {where}": "示例 {where}",
    "  … {n} more ERROR records in templates not kept":
        "  … 另有 {n} 条 ERROR 记录属于未保留的模板",
    "not in the code tables": "不在错误码表中",
    # cross-rank section (terminal)
    "{key}: {values}": "{key}：{values}",
    "{value} ({ranks})": "{value}（{ranks}）",
    "(empty)": "（空）",
    "#{id} pids {n} · {state} · {who}": "#{id} 进程 {n} 个 · {state} · {who}",
    # Markdown
    "plogscan {version} read {files} file(s), {lines} lines ({unparsed} unparsed); skipped "
    "{skipped} file(s).":
        "plogscan {version} 读取了 {files} 个文件，共 {lines} 行（{unparsed} 行未解析）；"
        "跳过 {skipped} 个文件。",
    "{count}× (ranks {ranks}) first {ts}, e.g. {where}":
        "{count}×（rank {ranks}），首次 {ts}，示例 {where}",
    "… {n} more evidence records": "… 另有 {n} 条证据记录",
    "({level}; {scope}) fingerprint {fingerprint}": "（{level}；{scope}）指纹 {fingerprint}",
    "**expired** baseline entry {fingerprint} ({rule}) on {date}: it no longer suppresses "
    "anything": "基线条目 {fingerprint}（{rule}）已于 {date} **过期**：不再屏蔽任何结论",
    # JUnit
    "Missing evidence:": "缺少的证据：",
    "Evidence:": "证据：",
    "Remediation:": "处置建议：",
    "... {n} more evidence records": "... 另有 {n} 条证据记录",
    "Follows from it:": "由此引发：",
    "not evaluable: {missing}": "无法判定：{missing}",
    "suppressed by baseline ({reason}): ": "已被基线屏蔽（{reason}）：",
    "suppressed by baseline: ": "已被基线屏蔽：",
    # SARIF
    "No remediation recorded for this rule.": "该规则没有记录处置建议。",
    "root cause: {rule} ({incident})": "根因：{rule}（{incident}）",
    "skipped {path}: {reason}": "已跳过 {path}：{reason}",
    # stderr while reading (cli.common.report_problems)
    "skipped {n} file(s) that are not logs (e.g. {path}); {listed}":
        "跳过了 {n} 个不是日志的文件（例如 {path}）；{listed}",
    "skipped {n} files: {reason} (e.g. {path}); {listed}":
        "跳过了 {n} 个文件：{reason}（例如 {path}）；{listed}",
    "{n} files: {problem} (e.g. {path}); {listed}":
        "{n} 个文件：{problem}（例如 {path}）；{listed}",
    "{n} more problem(s) inside files; {listed}": "文件内还有 {n} 个问题；{listed}",
    "{n} invalid UTF-8 sequence(s) replaced": "替换了 {n} 处无效的 UTF-8 序列",
    "{n} NUL byte(s) removed": "删除了 {n} 个 NUL 字节",
    "invalid UTF-8 sequence(s) replaced": "无效的 UTF-8 序列已被替换",
    "NUL byte(s) removed": "NUL 字节已被删除",
    "the report's inputs section lists them": "报告的输入部分列出了全部",
    "plogscan diagnose lists them in its report's inputs section":
        "plogscan diagnose 的报告在输入部分列出了全部",
    "wrote {path}": "已写入 {path}",
    "--stats lists them": "--stats 列出了全部",
    "plogscan ingest --stats lists them": "plogscan ingest --stats 列出了全部",
    "`plogscan ingest --stats` lists them": "`plogscan ingest --stats` 列出了全部",
    "{head}: not evaluable": "{head}：无法判定",
    "{head}. Missing: {missing}": "{head}。缺少：{missing}",
    "{head}. {description}": "{head}。{description}",
}


# (English pattern, Chinese template) for ingest's skip reasons and file problems; the named
# groups are details (OS errors, paths, numbers) and stay as they are.
INGEST_ZH: tuple[tuple[str, str], ...] = (
    (r"not a log file \((?P<suffix>[^)]*)\)", "不是日志文件（{suffix}）"),
    (r"not a log file", "不是日志文件"),
    (r"unknown format: no line matches a known log shape",
     "未知格式：没有任何一行符合已知的日志格式"),
    (r"parquet event table \(use plogscan events\)",
     "Parquet 事件表（请用 plogscan events 读取）"),
    (r"corrupt archive member: (?P<detail>.+)", "归档成员已损坏：{detail}"),
    (r"corrupt archive: (?P<detail>.+)", "归档文件已损坏：{detail}"),
    (r"corrupt data: (?P<detail>.+)", "数据已损坏：{detail}"),
    (r"empty archive", "空的归档文件"),
    (r"encrypted archive member", "加密的归档成员"),
    (r"link inside archive: not followed", "归档内的链接：未跟随"),
    (r"not a regular file", "不是普通文件"),
    (r"not found: the pattern matches nothing", "未找到：该通配模式没有匹配到任何文件"),
    (r"not found", "未找到"),
    (r"broken symlink", "符号链接已失效"),
    (r"symlink loop", "符号链接循环"),
    (r"unreadable: no standard input", "无法读取：没有标准输入"),
    (r"unreadable: (?P<detail>.+)", "无法读取：{detail}"),
    (r"cannot read: (?P<detail>.+)", "无法读取：{detail}"),
    (r"the file grew while read: its first (?P<n>[0-9]+) bytes were read",
     "读取期间文件仍在增长：只读取了前 {n} 字节"),
    # limits (the details in ``detail`` groups are translated in turn)
    (r"not read to its end: (?P<detail>.+)", "未读到末尾：{detail}"),
    (r"not read past byte (?P<n>[0-9,]+): (?P<detail>.+)", "第 {n} 字节之后未读取：{detail}"),
    (r"not read: (?P<detail>.+) \((?P<option>--max-[a-z-]+)\)", "未读取：{detail}（{option}）"),
    (r"archive nested too deeply \((?P<detail>.+); (?P<option>--max-[a-z-]+)\)",
     "归档嵌套过深（{detail}；{option}）"),
    (r"more than (?P<n>[0-9,]+) files: this file and every input after it were not read",
     "超过 {n} 个文件：此文件及其后的所有输入均未读取"),
    (r"more than (?P<n>[0-9,]+) directory levels below (?P<path>.+): this directory was not "
     r"read", "{path} 之下超过 {n} 层目录：此目录未读取"),
    (r"more than (?P<n>[0-9,]+) archive or compression levels", "超过 {n} 层归档或压缩"),
    (r"rule (?P<rule>\S+) matched (?P<m>[0-9,]+) records, a finding each: the earliest "
     r"(?P<n>[0-9,]+) are findings, the other (?P<k>[0-9,]+) were counted, not reported",
     "规则 {rule} 匹配了 {m} 条记录（每条一个发现）：最早的 {n} 条作为发现报告，其余 {k} 条只计数、"
     "未报告"),
    (r"more than (?P<size>\S+ \S+) decompressed: stopped after (?P<n>[0-9,]+) bytes from "
     r"(?P<packed>[0-9,]+) compressed bytes; the rest was not read",
     "解压后超过 {size}：由 {packed} 字节压缩数据解出 {n} 字节后停止，其余未读取"),
    (r"more than (?P<ratio>[0-9.]+) times its compressed size decompressed \(a decompression "
     r"bomb\): stopped after (?P<n>[0-9,]+) bytes from (?P<packed>[0-9,]+) compressed bytes; "
     r"the rest was not read",
     "解压后超过压缩大小的 {ratio} 倍（解压炸弹）：由 {packed} 字节压缩数据解出 {n} 字节后停止，"
     "其余未读取"),
    (r"(?P<lines>[0-9,]+) line\(s\) longer than (?P<bound>\S+ \S+) kept their first \S+ \S+ "
     r"\(first: line (?P<first>[0-9,]+)\); (?P<n>[0-9,]+) bytes of them were not read",
     "{lines} 行超过 {bound}，只保留了前 {bound}（第一处：第 {first} 行）；其中 {n} 字节未读取"),
    (r"the file grew by (?P<n>[0-9,]+) bytes while it was read: bytes after (?P<m>[0-9,]+) were "
     r"not read", "读取期间文件增长了 {n} 字节：第 {m} 字节之后的内容未读取"),
    (r"symlink leads outside the directory given: not followed",
     "符号链接指向给定目录之外：未跟随"),
    (r"duplicate: same directory as (?P<path>.+)", "重复：与 {path} 是同一目录"),
    (r"duplicate: same file as (?P<path>.+)", "重复：与 {path} 是同一文件"),
    (r"unsupported compression: (?P<fmt>.+) \(unpack it first\)",
     "不支持的压缩格式：{fmt}（请先解压）"),
    (r"nested zip archive larger than (?P<n>[0-9]+) MiB: unpack it first",
     "嵌套的 zip 归档超过 {n} MiB：请先解压"),
    (r"archive nested too deeply \(more than (?P<n>[0-9]+) levels\)",
     "归档嵌套过深（超过 {n} 层）"),
    (r"empty file", "空文件"),
    (r"binary file \(only NUL bytes\)", "二进制文件（只有 NUL 字节）"),
    (r"binary file", "二进制文件"),
    (r"read stopped after (?P<n>[0-9]+) bytes: (?P<detail>.+)", "读取 {n} 字节后中断：{detail}"),
    (r"read stopped after (?P<n>[0-9]+) bytes", "读取 {n} 字节后中断"),
    (r"line (?P<line>[0-9]+) is longer than (?P<mib>[0-9]+) MiB: kept its first part",
     "第 {line} 行超过 {mib} MiB：只保留了前一部分"),
)


# (English pattern, Chinese template) for the CLI's error messages, help lines and labels
# (``i18n.error_text``); ``detail…`` groups are translated in turn. Errors located in rule and
# format files are worded for their authors and stay English.
ERRORS_ZH: tuple[tuple[str, str], ...] = (
    (r"error: ", "错误："),
    (r"interrupted", "已中断"),
    (r"  = help: ", "  = 帮助："),
    (r"nothing could be read from the given paths", "给定的路径中没有任何可以读取的内容"),
    (r"pass log files, directories, archives or an events \.parquet",
     "请给出日志文件、目录、归档文件或事件表 .parquet 文件"),
    (r"pass log files, directories or archives; see plogscan ingest -h",
     "请给出日志文件、目录或归档文件；参见 plogscan ingest -h"),
    (r"cannot write (?P<detail_what>report|reports|event table|baseline file|dataset|"
     r"redaction map): (?P<detail>.+)", "无法写入{detail_what}：{detail}"),
    (r"refusing to overwrite the input file (?P<path>.+) with the (?P<detail_what>report|"
     r"reports|event table|baseline file|dataset|redaction map)",
     "拒绝用{detail_what}覆盖输入文件 {path}"),
    (r"(?P<path>.+) is not a directory", "{path} 不是目录"),
    (r"permission denied", "没有权限"),
    (r"report", "报告"),
    (r"reports", "报告"),
    (r"event table", "事件表"),
    (r"baseline file", "基线文件"),
    (r"dataset", "数据集"),
    (r"redaction map", "脱敏映射文件"),
    (r"unknown --fail-on level '(?P<level>.+)'", "未知的 --fail-on 级别 '{level}'"),
    (r"valid choices are: (?P<choices>.+)", "可选值：{choices}"),
    (r"unknown report format (?P<fmt>.+)", "未知的报告格式 {fmt}"),
    (r"unknown code '(?P<code>.+)'", "未知的错误码 '{code}'"),
    (r"closest known codes: (?P<codes>.+)", "最接近的已知错误码：{codes}"),
    (r"no similar code is known; see `plogscan explain --help` for the forms understood",
     "没有相近的已知错误码；可识别的写法见 `plogscan explain --help`"),
    (r"no rule '(?P<rule>.+)'", "没有规则 '{rule}'"),
    (r"valid ids are: (?P<ids>.+)", "可用的规则编号：{ids}"),
    (r"cannot read baseline file: (?P<reason>.+)", "无法读取基线文件：{reason}"),
    (r"baseline file is not valid JSON: (?P<reason>.+)", "基线文件不是有效的 JSON：{reason}"),
    (r"cannot use the cache directory (?P<path>.+?): (?P<reason>.+)",
     "无法使用缓存目录 {path}：{reason}"),
    (r"give another with --cache DIR, or turn it off with --no-cache",
     "请用 --cache DIR 指定其他目录，或用 --no-cache 关闭缓存"),
    (r"--scheduler needs dask\.distributed, which is not installed",
     "--scheduler 需要 dask.distributed，但它没有安装"),
    (r"cannot create salt file: (?P<reason>.+)", "无法创建盐值文件：{reason}"),
    (r"cannot read salt file: (?P<reason>.+)", "无法读取盐值文件：{reason}"),
)
