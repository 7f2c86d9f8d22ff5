"""The closed category taxonomy of rules: every rule names one of these failure classes.

``rules/README.md`` lists the same categories with the same one-line meanings; a test keeps the
two in step. Add a category here and in the README together, never in a rule file alone.
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
    "hccl-notify-timeout": "a collective waited for a peer's notify longer than HCCL_EXEC_TIMEOUT",
    "hccl-link-timeout": "HCCL link or socket setup timed out (HCCL_CONNECT_TIMEOUT)",
    "hccl-init-failure": "communicator initialisation or root-info negotiation failed",
    "hccl-config-error": "an HCCL environment variable or the rank table is invalid",
    "hccl-param-mismatch": "ranks issued inconsistent collectives (arguments, tag or index differ)",
    "hccl-exec-failure": "an HCCL task failed during execution for a reason no narrower "
    "class names",
    "hccl-roce-cqe": "RoCE retransmission exceeded: error CQE (network loss or peer exited)",
    "sdma-error": "an SDMA memory copy task failed",
    "stream-sync-timeout": "a host-side stream or event synchronisation timed out",
    "device-oom": "device memory (HBM) was exhausted",
    "device-busy": "the device is held by another or a stale process",
    "hw-ecc": "a hardware memory error: multi-bit ECC or uncorrectable error evidence",
    "hw-link": "a hardware or network link went down or flapped",
    "heartbeat-lost": "a device, firmware or peer heartbeat was lost",
    "aicpu-exception": "an AI CPU operator failed",
    "aicpu-timeout": "an AI CPU operator timed out",
    "missing-kernel": "a kernel, operator package or binary could not be found or loaded",
    "runtime-error": "a runtime wrapper code (EZ9999, 507011...) with no more specific record",
    "evidence-gap": "the logs lack what is needed to decide (log level too low, files missing)",
    "unexplained": "error records that no rule explains, clustered into templates",
}
