"""The sentences the cross-rank stage writes into its results, in every report language.

Suspect reasons, notes, the missing-host advice, clock flag details and the "what" of a
timeout that is shorter than a gap: the stage composes them from these templates, keyed by
their English form (``plogscan.lang.Catalogue``), so an English result is exactly the English
template filled and a Chinese one follows the diagnosis language the way the code tables do.
``WORDS[lang]`` translates every template (tested); values (labels, communicators, IPs, times)
are filled in as they are. Keys with ``{name}`` are format strings.
"""

from __future__ import annotations

from plogscan.lang import Catalogue

WORDS: dict[str, dict[str, str]] = {
    "zh": {
        # signals: errors
        "{text}: a real error, not a timeout; it outranks every rank that only waited":
            "{text}：这是真实的错误而非超时，优先于所有仅在等待的 rank",
        "the earliest non-timeout error of the attempt on aligned clocks, {delta} before the "
        "next one ({label}; clock uncertainty ±{margin})":
            "按对齐后的时钟，这是本次运行中最早的非超时错误，比下一个错误（{label}）早 {delta}"
            "（时钟不确定度 ±{margin}）",
        # signals: heartbeats
        "HCCL's cluster heartbeat names it ({culprit}, {status})":
            "HCCL 集群心跳指出了它（{culprit}，{status}）",
        "abnormal": "异常",
        # signals: waits
        "{label} waits for a peer that cannot exist: {why} ({where})":
            "{label} 在等待一个不可能存在的对端：{why}（{where}）",
        "it waits for its own secondary stream (remote rank: local): the task on its other "
        "stream never finished":
            "它在等待自身的从流（日志中 remote rank 为 local）：其另一条流上的任务一直没有完成",
        "mutual wait at link set-up: {names}": "建链时相互等待：{names}",
        "the chain of waits ends here: the wait of {n} rank leads to it (directly: {kinds})":
            "等待链止于此：{n} 个 rank 的等待指向它（直接等待：{kinds}）",
        "the chain of waits ends here: the waits of {n} ranks lead to it (directly: {kinds})":
            "等待链止于此：{n} 个 rank 的等待都指向它（直接等待：{kinds}）",
        "its link to {peer} failed and the input does not contain {peer}: one end of the link "
        "is here, the other is to collect":
            "它到 {peer} 的链路建立失败，而输入中没有 {peer}：链路的一端在此，另一端需要收集日志",
        "{n} rank waits for it and the input does not contain it: collect its logs":
            "{n} 个 rank 在等待它，而输入中没有它：请收集它的日志",
        "{n} ranks wait for it and the input does not contain it: collect its logs":
            "{n} 个 rank 在等待它，而输入中没有它：请收集它的日志",
        "the waits of {labels} form a ring in which every rank waited for the next: it singles "
        "out none of them":
            "{labels} 的等待构成一个环，每个 rank 都在等待下一个：无法从中单独指出任何一个",
        "the wait of {n} rank ends at {label}, which only timed out and names no peer the "
        "input holds":
            "{n} 个 rank 的等待止于 {label}，而它只记录了超时，且没有指出输入中存在的对端",
        "the waits of {n} ranks end at {label}, which only timed out and names no peer the "
        "input holds":
            "{n} 个 rank 的等待止于 {label}，而它只记录了超时，且没有指出输入中存在的对端",
        "it logged neither an error nor a timeout while {n} rank waited for it":
            "在 {n} 个 rank 等待它期间，它既没有记录错误，也没有记录超时",
        "it logged neither an error nor a timeout while {n} ranks waited for it":
            "在 {n} 个 rank 等待它期间，它既没有记录错误，也没有记录超时",
        "the cluster heartbeat names {culprit}, which is no rank of {label}'s communicators: "
        "all their ranks are in the input":
            "集群心跳指出了 {culprit}，但它不是 {label} 所在通信域中的任何 rank：这些通信域的所有 "
            "rank 都在输入中",
        "{label}: a record names its own process as the peer it waited for ({where})":
            "{label}：一条记录把它自己的进程当作了所等待的对端（{where}）",
        "host {host} runs {n} processes of the input and the record does not say which":
            "主机 {host} 上运行着输入中的 {n} 个进程，而该记录没有指明是哪一个",
        # kinds of wait (the wait graph's edges)
        "socket": "套接字建链",
        "p2p": "P2P 建链",
        "notify": "通知等待",
        "roce": "RoCE",
        "rendezvous": "初始化协商",
        "heartbeat": "集群心跳",
        "op-index": "算子序号",
        "op-tag": "算子标签",
        "collective": "集合通信顺序",
        "{kind} wait": "{kind}等待",
        # signals: positions
        "its failed task is at op index {low} while {ranks} is at {high}: {behind} behind "
        "(the smallest index is the likely root)":
            "其失败任务的算子序号为 {low}，而 {ranks} 已到 {high}：落后 {behind}"
            "（序号最小者最可能是根因）",
        "its failed task is at op index {low} while {ranks} are at {high}: {behind} behind "
        "(the smallest index is the likely root)":
            "其失败任务的算子序号为 {low}，而 {ranks} 已到 {high}：落后 {behind}"
            "（序号最小者最可能是根因）",
        "{n} collective": "{n} 个集合通信",
        "{n} collectives": "{n} 个集合通信",
        "its failed task runs under tag {tag} while the others run {common}: a different "
        "collective": "其失败任务的标签为 {tag}，而其他 rank 为 {common}：执行的是另一个集合通信",
        # signals: silence and odd ranks
        "{text}; its last record is {delta} before the first timeout":
            "{text}；其最后一条记录比首个超时早 {delta}",
        "{key} is {value} here and {common} on the other ranks":
            "{key} 在此为 {value}，在其他 rank 上为 {common}",
        "(empty)": "（空）",
        "it never entered collective {seq} of communicator {comm}, which the other ranks "
        "entered": "它没有进入通信域 {comm} 的第 {seq} 个集合通信，而其他 rank 都进入了",
        "collective {seq} of communicator {comm}: it entered {kind} {mine} where the others "
        "entered {theirs}":
            "通信域 {comm} 的第 {seq} 个集合通信：它进入时的{kind}为 {mine}，"
            "而其他 rank 为 {theirs}",
        "op": "算子",
        "count": "数据量",
        "dtype": "数据类型",
        # the wait graph
        "rank {peer} is not in communicator {comm} of {size} ranks ({ip})":
            "rank {peer} 不在共 {size} 个 rank 的通信域 {comm} 中（{ip}）",
        "rank {peer} is not in its communicator of {size} ranks ({ip})":
            "rank {peer} 不在其所在的共 {size} 个 rank 的通信域中（{ip}）",
        "no IP": "无 IP",
        # problems read from the summary
        "link set-up wait": "建链等待",
        "Notify Wait timeout": "Notify Wait 超时",
        "{task} task exception": "{task} 任务异常",
        # who is missing
        "collect each missing host's CANN logs: $HOME/ascend/log (or ASCEND_PROCESS_LOG_PATH) "
        "with debug/ and run/ (plog/ and device-<id>/), and the job's stdout of every rank":
            "收集每台缺失主机的 CANN 日志：$HOME/ascend/log（或 ASCEND_PROCESS_LOG_PATH）下的 "
            "debug/ 与 run/（其中的 plog/ 与 device-<id>/），以及每个 rank 的作业标准输出",
        "the input holds {present} of the {size} ranks of communicator {comm}; ranks {ranks} are "
        "not in it: collect their logs":
            "通信域 {comm} 共有 {size} 个 rank，输入中只有 {present} 个；rank {ranks} 不在其中："
            "请收集它们的日志",
        "the input holds {present} of the {size} ranks of communicator {comm}; ranks {ranks} are "
        "not in it ({named}): collect their logs":
            "通信域 {comm} 共有 {size} 个 rank，输入中只有 {present} 个；rank {ranks} 不在其中"
            "（{named}）：请收集它们的日志",
        "rank {rank} (device IP {ip})": "rank {rank}（设备 IP {ip}）",
        "missing: collect the logs of {peer}, which the wait of {n} rank leads to":
            "缺失：请收集 {peer} 的日志，{n} 个 rank 的等待指向它",
        "missing: collect the logs of {peer}, which the waits of {n} ranks lead to":
            "缺失：请收集 {peer} 的日志，{n} 个 rank 的等待都指向它",
        "host {hosts} is named by the logs but not in the input":
            "日志中提到了主机 {hosts}，但输入中没有它的日志",
        "hosts {hosts} are named by the logs but not in the input":
            "日志中提到了主机 {hosts}，但输入中没有它们的日志",
        "{label} is in the input but went silent while its peers waited: check whether its "
        "process hung or exited (py-spy dump --pid, npu-smi info, the job's stdout of that rank)":
            "{label} 在输入中，但在其对端等待期间没有任何记录：请检查其进程是否挂起或已退出"
            "（py-spy dump --pid、npu-smi info、该 rank 的作业标准输出）",
        # clocks
        "{n} record stamped in 1970: a device clock not yet synchronised; it is left out of "
        "every ordering": "{n} 条记录的时间戳在 1970 年：设备时钟尚未同步；这些记录不参与任何排序",
        "{n} records stamped in 1970: a device clock not yet synchronised; they are left out "
        "of every ordering":
            "{n} 条记录的时间戳在 1970 年：设备时钟尚未同步；这些记录不参与任何排序",
        "offset {offset} s is larger than {name} ({limit} s): the clocks disagree, or the ranks "
        "reached this point further apart than the timeout allows":
            "时钟偏移 {offset} 秒大于 {name}（{limit} 秒）：要么各主机的时钟不一致，要么各 rank "
            "到达此处的时间差超出了该超时所允许的范围",
        # settings
        "rendezvous of communicator {comm}": "通信域 {comm} 的初始化同步",
        "entries of collective {seq} on communicator {comm}":
            "通信域 {comm} 上第 {seq} 个集合通信的入口",
        "the ranks' Notify Wait timeouts": "各 rank 的 Notify Wait 超时",
    },
}

say = Catalogue("crossrank", WORDS)
