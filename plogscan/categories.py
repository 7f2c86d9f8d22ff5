"""The closed category taxonomy of rules: every rule names one of these failure classes.

``CATEGORIES`` gives each class its one-line meaning and ``REMEDIES`` the first thing to do
about it (a rule's own remediation is more specific). ``rules/README.md`` lists the same
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

# Timeouts: what waiting for something that failed looks like. A finding of one of these
# follows from an earlier fault of its own process, when the logs show one (``incidents``).
WAITING: frozenset[str] = frozenset({
    "hccl-notify-timeout", "hccl-link-timeout", "stream-sync-timeout", "aicore-timeout",
    "aicpu-timeout",
})
