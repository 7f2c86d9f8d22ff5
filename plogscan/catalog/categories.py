"""The closed category taxonomy of rules: every rule names one of these failure classes.

``CATEGORIES`` gives each class its one-line meaning and ``REMEDIES`` the first thing to do
about it (a rule's own remediation is more specific); ``CATEGORIES_ZH`` and ``REMEDIES_ZH``
say the same in Chinese. ``rules/README.md`` lists the same
categories with the same meanings and first steps; a test keeps them in step. Add a category
here and in the README together, never in a rule file alone.
"""

from __future__ import annotations

CATEGORIES: dict[str, str] = {
    "ccu-context-reuse": "a cached HCCL/CCU context was reused and a CCU or MC2 fused-kernel fault "
    "followed in the same process",
    "ccu-exception": "a CCU (collective communication unit) task or an MC2 fused kernel failed "
    "(507916 ccu exception, 507915 ccu timeout)",
    "aicore-exception": "an AI Core / AI Vector kernel raised an exception",
    "aicore-timeout": "an AI Core, vector-core or ffts+ kernel timed out or trapped "
    "(hang, dead loop)",
    "operator-oob": "a kernel read or wrote out of bounds (bad shape, tiling or index input)",
    "operator-param": "an operator rejected its parameters on the host before any kernel ran "
    "(parameter check or tiling failed, data type, format or shape not supported)",
    "hccl-notify-timeout": "a collective waited for a peer's notify longer than HCCL_EXEC_TIMEOUT",
    "hccl-link-timeout": "HCCL link or socket setup timed out (HCCL_CONNECT_TIMEOUT)",
    "hccl-init-failure": "communicator initialisation or root-info negotiation failed",
    "hccl-config-error": "an HCCL environment variable, the rank table or a port setting is "
    "invalid or conflicts with another process",
    "hccl-param-mismatch": "ranks issued inconsistent collectives (arguments, tag or index differ)",
    "hccl-exec-failure": "an HCCL task failed during execution for a reason no narrower "
    "class names",
    "hccl-roce-cqe": "RoCE retransmission exceeded: error CQE (network loss or peer exited)",
    "sdma-error": "an SDMA memory copy task failed",
    "stream-sync-timeout": "a stream or event synchronisation timed out (a host-side "
    "synchronize, or a device task waiting for an event)",
    "device-oom": "device memory (HBM) was exhausted",
    "resource-exhausted": "a device resource other than memory ran out: streams, events, "
    "notifies, queues or task slots (often several processes sharing one device)",
    "device-busy": "the device is held by another or a stale process",
    "env-config": "the software environment does not fit the job: CANN toolkit or library not "
    "installed or not on the library path, driver, firmware, toolkit and framework versions "
    "that do not match, or devices not visible to the process",
    "job-config": "the job's own launch or serving configuration was rejected (parallel sizes, "
    "model or service parameters)",
    "acl-graph": "an ACL graph (captured stream, aclgraph) could not be captured or replayed: an "
    "operation that capture does not allow, or a fault inside the captured graph",
    "driver-error": "a driver call failed (drv api, halXxx drvRetCode, 507899 driver internal "
    "error) for a reason no narrower class names",
    "hw-ecc": "a hardware memory error: multi-bit ECC or uncorrectable error evidence",
    "hw-link": "a hardware or network link went down or flapped",
    "heartbeat-lost": "a device, firmware or peer heartbeat was lost",
    "aicpu-exception": "an AI CPU operator failed",
    "aicpu-timeout": "an AI CPU operator timed out",
    "missing-kernel": "a kernel, operator package or binary could not be found or loaded",
    "runtime-error": "a runtime wrapper code (EZ9999, 507011...) with no more specific record",
    "python-error": "a Python exception in user or framework code with no device or CANN "
    "cause below it",
    "host-oom": "the host, not the device, ran out of memory (the Linux OOM killer, "
    "MemoryError, std::bad_alloc, Cannot allocate memory)",
    "evidence-gap": "the logs lack what is needed to decide (log level too low, files missing)",
    "unexplained": "error records that no rule explains, clustered into templates",
}

REMEDIES: dict[str, str] = {
    "ccu-context-reuse": "run the MC2 fused operator before the first eager collective on the "
    "communicator, or give the eager collectives their own process group",
    "ccu-exception": "treat it like an HCCL execution failure: find the peer rank or link "
    "the CCU task waited on",
    "aicore-exception": "run msaicerr / asys analyze on the exception dump and check the "
    "faulting kernel's inputs and tiling",
    "aicore-timeout": "find out what the kernel waited for (a peer in a communication kernel, "
    "a dead loop) before raising any timeout",
    "operator-oob": "fix the kernel or its input shapes, indices and tiling; rerun the op alone "
    "with the logged shapes",
    "operator-param": "check the operator's input data types, formats and shapes against what "
    "it supports on this device; cast or reshape in the model",
    "hccl-notify-timeout": "find the first rank that failed or lagged; raise HCCL_EXEC_TIMEOUT "
    "only when the job is merely slow",
    "hccl-link-timeout": "follow the wait chain to the rank that never connected; check its "
    "process, the network and HCCL_CONNECT_TIMEOUT",
    "hccl-init-failure": "check every rank reached communicator init, the NICs and ports HCCL "
    "uses, and that no earlier process still holds the devices",
    "hccl-config-error": "correct the named variable, rank table or port range; give co-located "
    "jobs distinct ports",
    "hccl-param-mismatch": "make every rank issue the same collectives in the same order with "
    "the same arguments",
    "hccl-exec-failure": "read the first HCCL error of the earliest failing rank",
    "hccl-roce-cqe": "check the NIC links (hccn_tool -link_stat) and whether the peer exited",
    "sdma-error": "check the copy's buffers (freed or too small) and the memory allocator "
    "settings; look for a device fault just before",
    "stream-sync-timeout": "find what the waited-for stream or peer was doing; raise the "
    "timeout only when the work is merely slow",
    "device-oom": "lower batch size, sequence length or the memory fraction, and check other "
    "processes on the device",
    "resource-exhausted": "run fewer processes or models per device, or lower the number of "
    "streams and events each one creates (graph capture sizes, parallel servers)",
    "device-busy": "stop stale processes on the device (npu-smi info) and wait 10 s before "
    "restarting",
    "env-config": "source the CANN set_env.sh scripts in the job's own environment and install "
    "matching driver, firmware, toolkit, kernels and framework versions",
    "job-config": "correct the rejected setting of the launcher or service configuration",
    "acl-graph": "run the failing path eagerly (disable graph capture) to confirm, then keep "
    "synchronizing and host-side operations out of captured regions",
    "driver-error": "check the driver log (dmesg, npu-smi) for the failing call and the device "
    "topology; reinstall or upgrade the driver if it persists",
    "hw-ecc": "isolate the device and follow the hardware fault procedure (reset, then repair)",
    "hw-link": "check cables, optics and switch ports of the link; look at the link "
    "statistics",
    "heartbeat-lost": "check the node or device that went silent first: process exit, hang or "
    "device reset",
    "aicpu-exception": "find the failing AI CPU operator in the device logs and check its "
    "inputs and the CANN version",
    "aicpu-timeout": "check what the AI CPU operator waited for (data queue, host)",
    "missing-kernel": "install the operator (kernels) package matching the toolkit and the "
    "SoC, and source its set_env.sh",
    "runtime-error": "read the findings ranked above and the first ERROR of the process",
    "python-error": "read the exception and the frame that raised it: fix the code, the input "
    "or the package it names",
    "host-oom": "lower the host memory the job needs (data loader workers, CPU offload, "
    "checkpoint loading) or give the container or node more memory",
    "evidence-gap": "collect the missing logs or raise the log level and rerun",
    "unexplained": "read the templates; write a rule when one recurs",
}


# The same meanings and first steps in Chinese, one for one (``meaning``, ``first_step``).
CATEGORIES_ZH: dict[str, str] = {
    "ccu-context-reuse": "HCCL 复用了缓存的 CCU 上下文，随后同一进程中的 CCU 或 MC2 通算融合算子发"
    "生故障",
    "ccu-exception": "CCU（集合通信单元）任务或 MC2 通算融合算子执行失败（507916 ccu exception、507"
    "915 ccu timeout）",
    "aicore-exception": "AI Core / AI Vector 核函数发生异常",
    "aicore-timeout": "AI Core、Vector Core 或 ffts+ 核函数超时或 trap（挂死、死循环）",
    "operator-oob": "核函数读写越界（shape、tiling 或索引输入错误）",
    "operator-param": "算子在下发核函数之前就在 Host 侧拒绝了参数（参数检查或 tiling 失败，数据类型"
    "、格式或 shape 不支持）",
    "hccl-notify-timeout": "集合通信等待对端 notify 的时间超过了 HCCL_EXEC_TIMEOUT",
    "hccl-link-timeout": "HCCL 建链或 socket 建立超时（HCCL_CONNECT_TIMEOUT）",
    "hccl-init-failure": "通信域初始化或 root info 协商失败",
    "hccl-config-error": "HCCL 环境变量、rank table 或端口设置无效，或与其他进程冲突",
    "hccl-param-mismatch": "各 rank 下发的集合通信不一致（参数、tag 或 index 不同）",
    "hccl-exec-failure": "HCCL 任务执行失败，且没有更具体的类别可以描述其原因",
    "hccl-roce-cqe": "RoCE 重传超限：error CQE（网络丢包或对端退出）",
    "sdma-error": "SDMA 内存拷贝任务失败",
    "stream-sync-timeout": "stream 或 event 同步超时（Host 侧的同步，或等待 event 的 Device 任务）",
    "device-oom": "Device 内存（HBM）耗尽",
    "resource-exhausted": "内存以外的 Device 资源耗尽：stream、event、notify、队列或任务槽位（常见"
    "于多个进程共享一个设备）",
    "device-busy": "设备被其他进程或残留进程占用",
    "env-config": "软件环境与作业不匹配：CANN toolkit 或库未安装或不在库路径上，驱动、固件、toolkit"
    " 与框架版本不配套，或进程看不到设备",
    "job-config": "作业自身的启动或服务配置被拒绝（并行规模、模型或服务参数）",
    "acl-graph": "ACL 图（捕获的 stream、aclgraph）无法捕获或重放：捕获期间不允许的操作，或捕获图内"
    "部的故障",
    "driver-error": "驱动调用失败（drv api、halXxx drvRetCode、507899 驱动内部错误），且没有更具体"
    "的类别可以描述其原因",
    "hw-ecc": "硬件内存错误：多比特 ECC 或不可纠正错误的证据",
    "hw-link": "硬件或网络链路断开或闪断",
    "heartbeat-lost": "设备、固件或对端的心跳丢失",
    "aicpu-exception": "AI CPU 算子执行失败",
    "aicpu-timeout": "AI CPU 算子执行超时",
    "missing-kernel": "找不到或无法加载核函数、算子包或二进制",
    "runtime-error": "Runtime 包装错误码（EZ9999、507011 等），且没有更具体的记录",
    "python-error": "用户或框架代码中的 Python 异常，其下没有设备或 CANN 层面的原因",
    "host-oom": "耗尽的是 Host 内存而不是 Device 内存（Linux OOM killer、MemoryError、std::bad_allo"
    "c、Cannot allocate memory）",
    "evidence-gap": "日志缺少做出判断所需的内容（日志级别太低、文件缺失）",
    "unexplained": "没有规则能解释的错误记录，按模板聚类",
}

REMEDIES_ZH: dict[str, str] = {
    "ccu-context-reuse": "在通信域上第一次 eager 集合通信之前先执行 MC2 通算融合算子，或者为 eager "
    "集合通信使用单独的 process group",
    "ccu-exception": "按 HCCL 执行失败处理：找到 CCU 任务所等待的对端 rank 或链路",
    "aicore-exception": "对异常 dump 运行 msaicerr / asys analyze，检查出错核函数的输入和 tiling",
    "aicore-timeout": "在调大任何超时之前，先查明核函数在等待什么（通信核函数中的对端、死循环）",
    "operator-oob": "修正核函数或其输入的 shape、索引和 tiling；用日志中的 shape 单独重跑该算子",
    "operator-param": "对照该算子在本设备上支持的范围检查输入的数据类型、格式和 shape；在模型中做类"
    "型转换或 reshape",
    "hccl-notify-timeout": "找到最先失败或落后的 rank；只有作业确实只是慢时才调大 HCCL_EXEC_TIMEOUT"
    "找到最先失败或落后的 rank；只有作业确实只是慢时才调大 HCCL_EXEC_TIMEOUT",
    "hccl-link-timeout": "沿等待链找到从未建链的 rank；检查其进程、网络和 HCCL_CONNECT_TIMEOUT",
    "hccl-init-failure": "检查所有 rank 都到达了通信域初始化、HCCL 使用的网卡和端口，以及没有更早的"
    "进程仍占用设备",
    "hccl-config-error": "修正报错的变量、rank table 或端口范围；为同节点上的作业分配不同的端口",
    "hccl-param-mismatch": "让每个 rank 以相同的顺序、相同的参数下发相同的集合通信",
    "hccl-exec-failure": "阅读最早失败的 rank 的第一条 HCCL 错误",
    "hccl-roce-cqe": "检查网卡链路（hccn_tool -link_stat）以及对端是否已退出",
    "sdma-error": "检查拷贝的缓冲区（已释放或太小）和内存分配器设置；查看之前是否有设备故障",
    "stream-sync-timeout": "查明被等待的 stream 或对端在做什么；只有工作确实只是慢时才调大超时",
    "device-oom": "减小 batch size、序列长度或内存比例，并检查设备上的其他进程",
    "resource-exhausted": "每个设备上运行更少的进程或模型，或减少每个进程创建的 stream 和 event（图"
    "捕获档位、并行服务数）",
    "device-busy": "停止设备上的残留进程（npu-smi info），等待 10 秒后再重启",
    "env-config": "在作业自己的环境中 source CANN 的 set_env.sh，安装配套的驱动、固件、toolkit、ker"
    "nels 和框架版本",
    "job-config": "修正启动器或服务配置中被拒绝的设置",
    "acl-graph": "以 eager 方式运行出错的路径（关闭图捕获）加以确认，然后把同步和 Host 侧操作移出捕"
    "获区域",
    "driver-error": "在驱动日志（dmesg、npu-smi）中查看失败的调用和设备拓扑；问题持续时重装或升级驱"
    "动",
    "hw-ecc": "隔离该设备并按硬件故障流程处理（先复位，再维修）",
    "hw-link": "检查该链路的线缆、光模块和交换机端口；查看链路统计",
    "heartbeat-lost": "检查最先失联的节点或设备：进程退出、挂死或设备复位",
    "aicpu-exception": "在 Device 日志中找到失败的 AI CPU 算子，检查其输入和 CANN 版本",
    "aicpu-timeout": "检查 AI CPU 算子在等待什么（数据队列、Host）",
    "missing-kernel": "安装与 toolkit 和 SoC 匹配的算子（kernels）包，并 source 其 set_env.sh",
    "runtime-error": "阅读排在前面的结论以及该进程的第一条 ERROR",
    "python-error": "阅读异常及抛出它的栈帧：修正其指出的代码、输入或软件包",
    "host-oom": "降低作业所需的 Host 内存（data loader worker、CPU offload、checkpoint 加载），或为"
    "容器或节点分配更多内存",
    "evidence-gap": "收集缺失的日志，或调高日志级别后重跑",
    "unexplained": "阅读这些模板；某类错误反复出现时为它编写规则",
}

_TEXTS = {"en": (CATEGORIES, REMEDIES), "zh": (CATEGORIES_ZH, REMEDIES_ZH)}


def meaning(category: str, lang: str = "en") -> str | None:
    """What a category means, in ``lang`` (English when it has no such translation)."""
    texts = _TEXTS.get(lang, _TEXTS["en"])[0]
    return texts.get(category) or CATEGORIES.get(category)


def first_step(category: str, lang: str = "en") -> str | None:
    """The first thing to do about a category, in ``lang`` (English without a translation)."""
    texts = _TEXTS.get(lang, _TEXTS["en"])[1]
    return texts.get(category) or REMEDIES.get(category)

# Timeouts: what waiting for something that failed looks like. A finding of one of these
# follows from an earlier fault of its own process, when the logs show one (``incidents``).
WAITING: frozenset[str] = frozenset({
    "hccl-notify-timeout", "hccl-link-timeout", "stream-sync-timeout", "aicore-timeout",
    "aicpu-timeout",
})
