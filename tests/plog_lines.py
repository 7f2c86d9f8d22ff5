"""Hand-written log lines in the real CANN shapes, shared by the parser tests."""

from __future__ import annotations

HCCL_DEBUG = ("[DEBUG] HCCL(4100,python3):2026-02-03-10:00:01.000.100 [op_common.cc:901] [4102]"
              "Already have context, skip create, ctxSize is 2")
RUNTIME_ERROR = ("[ERROR] RUNTIME(4100,python3):2026-02-03-10:00:02.500.000 [stream.cc:812]4100 "
                 "GetError:[EXEC][EXEC]Stream Synchronize failed, ErrCode=507916, "
                 "desc=[ccu exception], InnerCode=0x7150227")
INFO_GE = ("[INFO] GE(4100,python3):2026-02-03-10:00:00.900.000 [graph_manager.cc:77]4101 "
           "BuildGraph: graph 3 built")
TDT_INFO = ("[INFO] TDT(4100,python3):2026-02-03-10:00:00.100.000 [tsd_client.cpp:211]"
            "[OpenProcess][tid:4100] open device 0")
CONTINUATION = "    tiling data: 0x0 0x1 0x2"
STDOUT_PTA = ("[ERROR] 2026-02-03-10:00:03 (PID:4100, Device:0, RankID:1) ERR00100 PTA call acl "
              "api failed")
STDOUT_EXC = ("RuntimeError: npuSynchronizeDevice: AclrtSynchronizeDeviceWithTimeout, "
              "error code is 507916")

VALID_LINES = [HCCL_DEBUG, RUNTIME_ERROR, INFO_GE, TDT_INFO, CONTINUATION, "", "   "]
