"""Line text for the synthetic log generator: per-module body shapes and message templates.

The generator (``generate.py``) owns the machinery; this module owns the words. Every template
was written for the benchmark in the shapes that formats.md §1.2, §2.1 and §3 document (header
``[LEVEL] MODULE(PID,PNAME):TIMESTAMP `` followed by a module-specific body), with made-up
wording, file names, functions and numbers. Nothing here is copied from a real log.

A body is rendered as ``shape.format(file=..., line=..., func=..., msg=..., **fields)`` where
``msg`` is one message template rendered with the same ``fields`` (see ``random_fields``).
"""

from __future__ import annotations

import random
import zlib

# Level classes used to pick messages. EVENT records go to run logs only (formats.md §1.3).
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "EVENT")

# Body shapes (formats.md §1.2). ``{tid}`` is a thread id of the writing process.
SHAPE_RUNTIME = "[{file}:{line}] {tid} {func}: {msg}"
SHAPE_RUNTIME_ERR = "[{file}:{line}]{tid} {func}:[EXEC][EXEC]{msg}"
SHAPE_GE = "[{file}:{line}]{tid} {func}:{msg}"
SHAPE_ACL = "[{file}:{line}]{tid} {func}: {msg}"
SHAPE_HCCL = "[{file}:{line}] [{tid}]{msg}"
SHAPE_HCCL_WARN = "[{file}:{line}] [{tid}]ErrToWarn: {msg}"
SHAPE_TDT = "[{file}:{line}][{func}][tid:{tid}] {msg}"
SHAPE_IDEDD = "[{file}:{line}][tid:{tid}] {msg}"
SHAPE_ATRACE = "[{file}:{line}](tid:{tid}) {msg}"
SHAPE_PROF = "[{file}:{line}] (tid:{tid}) {msg}"
SHAPE_TUNE = '[{file}:{line}][CANNKB][Tid:{tid}]"{msg}"'
SHAPE_DRV = "[{file}:{line}][ascend][curpid:{pid},{tid}][drv][{drvsub}][{func}]{msg}"
SHAPE_APP = '[log_inner.cpp:76]{tid} {file}:{func}:{line}: "[PTA]:"{msg}""'
SHAPE_HCCP = "[{file}:{line}]tid:{tid},{func}({line}) : {msg}"

# module -> {"sources": [(file, func)], "shape": default shape, "shapes": {level: shape},
#            level: [message templates]}
MODULES: dict[str, dict] = {
    "RUNTIME": {
        "sources": [
            ("runtime.cc", "SetDevice"), ("stream.cc", "StreamCreate"),
            ("kernel_launcher.cc", "LaunchKernel"), ("mem_alloc.cc", "DevMalloc"),
            ("event_record.cc", "EventRecord"), ("task_submit.cc", "SubmitTask"),
            ("context_mgr.cc", "CtxSynchronize"), ("engine_cq.cc", "ProcReportCq"),
        ],
        "shape": SHAPE_RUNTIME,
        "shapes": {"ERROR": SHAPE_RUNTIME_ERR},
        "DEBUG": [
            "launch kernel, stream_id={stream}, task_id={task}, block_dim={blk}, args_size={size}",
            "alloc device memory ok, size={size}, addr=0x{addr}, policy={n}",
            "submit task to sq, sq_id={sq}, sq_tail={n}, task_type={small}",
            "event record done, event_id={n}, stream_id={stream}, task_id={task}",
            "get cq report, cq_id={sq}, stream_id={stream}, task_id={task}, status=0",
            "refresh stream pos, stream_id={stream}, head={n}, tail={n2}",
        ],
        "INFO": [
            "device {dev} opened, chip type={chip}, ts version={small}.{n}",
            "stream created, stream_id={stream}, priority={small}, flag=0x{small}",
            "ASCEND_RT_VISIBLE_DEVICES not set, {ndev} devices visible",
            "context {addr} bound to device {dev}, mode={small}",
        ],
        "WARNING": [
            "stream {stream} has {n} pending tasks, waiting for completion",
            "memory pool of device {dev} above watermark, used={size}, limit={size2}",
        ],
        "ERROR": [
            "Task run failed, device_id={dev}, stream_id={stream}, task_id={task}, "
            "sqe_type={small}(ffts), errType=0x{small}(task exception), sqSwStatus=0",
            "The error from device(chipId:{dev}, dieId:0), serial number is {n}, "
            "there is an aicore error exception, core id is {blk}, error code = 0x{code}",
            "report error module_type={small}, module_name=EZ9999, blockDim={blk}",
            "synchronize stream timeout, stream_id={stream}, timeout={ms}ms, retCode=0x{code}",
        ],
        "EVENT": ["device {dev} is ready, stream resources reserved: {n}"],
    },
    "GE": {
        "sources": [
            ("graph_manager.cc", "BuildGraph"), ("model_executor.cc", "RunGraph"),
            ("graph_optimize.cc", "OptimizeWholeGraph"), ("davinci_model.cc", "InitModel"),
            ("hybrid_executor.cc", "ExecuteAsync"), ("op_desc_util.cc", "UpdateTensorDesc"),
        ],
        "shape": SHAPE_GE,
        "DEBUG": [
            "node {op}_{n} infer shape done, output[0] shape=[{b},{h},{w}], dtype=DT_FLOAT16",
            "graph {graph} pass {op}Fusion matched {small} times",
            "op {op}_{n} memory offset={size}, size={size2}, stream={stream}",
            "subgraph {graph}_{small} partitioned, node count={n}",
            "tensor desc updated, name={op}_{n}:0, format=ND, origin_format=NCHW",
        ],
        "INFO": [
            "build graph {graph} success, graph_id={small}, node num={n}, cost {ms} ms",
            "run graph {graph} on device {dev}, iterations={n}",
            "model {graph} loaded, total memory={size}, weight memory={size2}",
        ],
        "WARNING": [
            "op {op}_{n} fallback to AI CPU, reason: dtype not supported by aicore",
            "graph {graph} has {small} dynamic shape nodes, execution may be slower",
        ],
        "ERROR": [
            "ErrorNo: 4294967295(failed) [EXEC]Stream synchronize failed, model_id={small}, "
            "ret=0x{code}",
            "execute model {graph} failed, ret=0x{code}, graph_id={small}",
        ],
        "EVENT": ["graph {graph} compile finished, graph_id={small}"],
    },
    "FE": {
        "sources": [
            ("fe_graph_optimizer.cc", "OptimizeFusedGraph"), ("op_store_adapter.cc", "CompileOp"),
            ("format_dtype_setter.cc", "SetSupportFormatDtype"),
        ],
        "shape": SHAPE_GE,
        "DEBUG": [
            "op[{op}_{n}] select format ND, dtype float16 for input {small}",
            "fusion pass {op}FusionPass not matched on graph {graph}",
        ],
        "INFO": ["compile op {op}_{n} success, kernel={op}_{addr}, cost {ms} ms"],
        "WARNING": ["op {op}_{n} has no precise mode, using high performance mode"],
        "ERROR": ["compile op {op}_{n} failed, reason: tiling function returned {small}"],
        "EVENT": ["op compile cache hit ratio {small}%"],
    },
    "ASCENDCL": {
        "sources": [
            ("stream.cpp", "aclrtSynchronizeStream"), ("memory.cpp", "aclrtMalloc"),
            ("model.cpp", "aclmdlExecute"), ("device.cpp", "aclrtSetDevice"),
        ],
        "shape": SHAPE_ACL,
        "DEBUG": [
            "start to execute aclrtMalloc, size={size}, policy={small}",
            "stream {addr} synchronize begin, timeout={ms}",
        ],
        "INFO": ["acl init success, device count={ndev}, version={small}.{n}"],
        "WARNING": ["aclrtMalloc size {size} exceeds free memory hint, retrying with policy 0"],
        "ERROR": [
            "synchronize stream failed, runtime result = {rtcode}",
            "execute model failed, modelId={small}, runtime result = {rtcode}",
        ],
        "EVENT": ["acl finalize done"],
    },
    "HCCL": {
        "sources": [
            ("hcom.cc", "HcomInit"), ("comm_factory.cc", "CreateCommPlane"),
            ("transport_manager.cc", "CreateLink"), ("externalinput.cc", "InitEnv"),
            ("all_reduce_operator.cc", "AllReduce"), ("task_exception_handler.cc", "Process"),
            ("heartbeat.cc", "SendFrame"),
        ],
        "shape": SHAPE_HCCL,
        "shapes": {"WARNING": SHAPE_HCCL_WARN},
        "DEBUG": [
            "AllReduce: tag[{op}_{n}], count[{size}], dataType[float16], op[sum], "
            "streamId[{stream}], deviceLogicId[{dev}]",
            "link to rank[{rank2}] established, localPort[{port}], remotePort[{port2}]",
            "notify record, notifyId[{n}], streamId[{stream}], taskId[{task}]",
            "heartbeat frame sent to rank[{rank2}], seq[{n}]",
        ],
        "INFO": [
            "HCCL_CONNECT_TIMEOUT set by environment to [{small}0]s",
            "hcom init success, group[{group}], rankSize[{nranks}], rank[{rank}]",
            "communicator {group} created, userRank[{rank}], devicePhyId[{dev}]",
        ],
        "WARNING": [
            "get socket from rank[{rank2}] not ready, retry[{small}]",
            "[InitChannelStage][Timeout]wait link to rank[{rank2}] for {ms} ms",
        ],
        "ERROR": [
            "[TaskExecStage][Timeout][HOST]Task run failed, base information is "
            "streamID:[{stream}], taskID[{task}], taskType[Notify Wait], tag[{op}_{n}]",
            "[InitChannelStage][Timeout]get socket timeout, local rank[{rank}], "
            "remote rank[{rank2}], errNo[0x000000000500000b]",
            "HcclAllReduce failed, group[{group}], ret[{small}], code EI0002",
        ],
        "EVENT": ["hcom init finished, group[{group}], rankSize[{nranks}]"],
    },
    "TDT": {
        "sources": [
            ("client_manager.cpp", "GetClientRunMode"), ("tsd_client.cpp", "Open"),
            ("process_mode_manager.cpp", "LoadSysOpKernel"),
        ],
        "shape": SHAPE_TDT,
        "DEBUG": ["recv msg from tsd, type={small}, len={size}"],
        "INFO": [
            "runningMode:{small}",
            "open tsd success, logicDeviceId[{dev}], rankSize[{nranks}]",
        ],
        "WARNING": ["tsd heartbeat delayed {ms} ms, deviceId[{dev}]"],
        "ERROR": ["open tsd failed, deviceId[{dev}], ret[{small}]"],
        "EVENT": ["tsd process started on device {dev}"],
    },
    "IDEDD": {
        "sources": [("dump_operator.cpp", "LoadInputTensor"), ("adump_server.cpp", "DumpTensor")],
        "shape": SHAPE_IDEDD,
        "DEBUG": ["[Dump] collect tensor {op}_{n}:{small}, size={size}"],
        "INFO": ["[Dump] dump config updated, mode=output, path=./dump/{dev}"],
        "WARNING": ["[Dump] tensor {op}_{n} too large, dump truncated to {size} bytes"],
        "ERROR": [
            "[Dump][Exception] dump exception to file, file: "
            "./extra-info/data-dump/{dev}/exception_info.{small}.{n}.{task}",
        ],
        "EVENT": ["[Dump] server started"],
    },
    "ATRACE": {
        "sources": [("trace_attr.c", "TraceAttrInit"), ("trace_recorder.c", "TraceSave")],
        "shape": SHAPE_ATRACE,
        "DEBUG": ["trace buffer {small} flushed, bytes={size}"],
        "INFO": ["attr init success, timeout={small}ms."],
        "WARNING": ["trace buffer {small} full, {n} records dropped"],
        "ERROR": ["save trace file failed, ret={small}"],
        "EVENT": ["trace session {n} created"],
    },
    "PROFILING": {
        "sources": [("platform.cpp", "Init"), ("prof_manager.cpp", "Handle")],
        "shape": SHAPE_PROF,
        "DEBUG": ["profiling switch checked, mask=0x{addr}"],
        "INFO": ["Profiling platform version: {small}.0.", "profiling is disabled on device {dev}"],
        "WARNING": ["profiling channel {small} busy, sample skipped"],
        "ERROR": ["start profiling failed on device {dev}, ret={small}"],
        "EVENT": ["profiling stopped"],
    },
    "TUNE": {
        "sources": [("cann_kb_pyfunc_mgr.cpp", "PyObjectInit"), ("cann_kb_query.cpp", "Query")],
        "shape": SHAPE_TUNE,
        "DEBUG": ["CannKbQuery: op {op} key {addr} not found"],
        "INFO": ["CannKbPyfuncMgr: enter init, reference is {small}!"],
        "WARNING": ["CannKb: knowledge file of {op} is outdated"],
        "ERROR": ["CannKb: load knowledge file failed, ret {small}"],
        "EVENT": ["CannKb: ready"],
    },
    "DRV": {
        "sources": [("drv_log_user.c", "hdc_session_open"), ("devdrv_user.c", "halMemAlloc")],
        "shape": SHAPE_DRV,
        "DEBUG": ["mem alloc ok. (devid={dev}; size={size}; va=0x{addr})"],
        "INFO": ["Server create success.(devid={dev}; service={small})"],
        "WARNING": ["session recv slow. (devid={dev}; wait={ms}ms)"],
        "ERROR": ["hdc session connect failed. (devid={dev}; ret={small})"],
        "EVENT": ["device {dev} link up"],
    },
    "APP": {
        "sources": [("InitNpuBindings.cpp", "THPModule_npu_shutdown"), ("NPUQueue.cpp", "Enqueue")],
        "shape": SHAPE_APP,
        "DEBUG": ["queue length {n}"],
        "INFO": ["npu device {dev} initialized"],
        "WARNING": ["NPU warning, error code is {rtcode}"],
        "ERROR": ["NPU function error, error code is {rtcode}", "NPU shutdown failed."],
        "EVENT": ["npu shutdown"],
    },
    # Device-side modules (device app logs, formats.md §2.1).
    "CCECPU": {
        "sources": [("main.cpp", "main"), ("ae_kernel_lib_fwk.cc", "LoadKernelSo"),
                    ("aicpu_sched.cpp", "ProcessTask")],
        "shape": SHAPE_TDT,
        "DEBUG": ["task from stream {stream} task {task} dispatched to cpu {small}"],
        "INFO": ["Start para. deviceId={dev}, hostPid={pid}, profilingMode={small}"],
        "WARNING": ["load kernel so {op}.so failed, ret is[{n}]"],
        "ERROR": ["kernel {op} execute failed, stream {stream} task {task}, ret {n}"],
        "EVENT": ["aicpu scheduler ready"],
    },
    "AICPU": {
        "sources": [("aicpu_kernel.cc", "Compute"), ("aicpu_task.cc", "Execute")],
        "shape": SHAPE_TDT,
        "DEBUG": ["kernel {op} input {small} shape [{b},{h}]"],
        "INFO": ["kernel {op} registered, count={n}"],
        "WARNING": ["kernel {op} slow path, cost {ms} ms"],
        "ERROR": ["kernel {op} exception, stream {stream} task {task}, dump follows"],
        "EVENT": ["aicpu kernels loaded"],
    },
    "HCCP": {
        "sources": [("rs_ssl.c", "rs_ssl_init"), ("ra_host.c", "ra_socket_init"),
                    ("rs_socket.c", "rs_socket_listen")],
        "shape": SHAPE_HCCP,
        "DEBUG": ["qp {n} state to RTS, psn {n2}"],
        "INFO": ["TLS SWITCH ({small})", "listen on port {port} success"],
        "WARNING": ["socket {n} recv timeout, retry {small}"],
        "ERROR": ["[check][ip]fail, ret({n}), ip 10.{small}.{blk}.{small2}"],
        "EVENT": ["hccp service up"],
    },
}

# Share of records per module within a level, for each kind of file.
HOST_MODULES = {
    "GE": 28, "RUNTIME": 22, "HCCL": 16, "ASCENDCL": 8, "FE": 6, "TDT": 5, "DRV": 4,
    "PROFILING": 3, "ATRACE": 2, "IDEDD": 2, "TUNE": 2, "APP": 2,
}
RUN_MODULES = {
    "HCCL": 25, "RUNTIME": 20, "GE": 15, "ASCENDCL": 10, "TDT": 10, "ATRACE": 6,
    "PROFILING": 6, "DRV": 4, "TUNE": 4,
}
DEVICE_MODULES = {"CCECPU": 40, "AICPU": 25, "HCCL": 25, "HCCP": 10}
# Device-side processes that write a host process's device app log: (pname, modules).
DEVICE_PROCS = (("aicpu_scheduler", ("CCECPU", "AICPU", "HCCL")), ("hccp_service.bin", ("HCCP",)))

OPS = ("MatMul", "Add", "Conv2D", "Softmax", "LayerNorm", "Gelu", "Transpose", "Cast",
       "ReduceSum", "FlashAttention", "AllGather", "RmsNorm")
GRAPHS = ("ge_default", "train_step", "fwd_graph", "bwd_graph", "opt_graph")
GROUPS = ("hccl_world_group", "tp_group_0", "dp_group_1", "pp_group_0")
RT_CODES = (507035, 507011, 507015, 507046, 507053, 507899, 107022, 207018)
DRV_SUBS = ("hdc", "devmm", "dms", "svm")


def source_line(file: str, func: str) -> int:
    """A fixed, plausible source line for a call site (same site, same line, every run)."""
    return 20 + zlib.crc32(f"{file}:{func}".encode()) % 1900


def random_fields(rnd: random.Random, pid: int, tids: list[int], rank: int, nranks: int,
                  dev: int) -> dict[str, object]:
    """Random values for every placeholder a template may use."""
    r = rnd.randrange
    return {
        "pid": pid, "tid": rnd.choice(tids), "rank": rank, "nranks": nranks, "dev": dev,
        "rank2": r(nranks), "ndev": 8, "chip": rnd.choice(("910B", "910B3", "310P")),
        "stream": r(2, 2048), "task": r(65536), "sq": r(1, 512), "blk": r(1, 49),
        "n": r(1, 100000), "n2": r(1, 100000), "small": r(0, 10), "small2": r(1, 255),
        "size": r(32, 1 << 30), "size2": r(32, 1 << 30), "addr": f"{r(1 << 44):x}",
        "code": f"{r(1 << 28):x}", "rtcode": rnd.choice(RT_CODES), "ms": r(1, 30000),
        "port": r(16000, 60000), "port2": r(16000, 60000), "op": rnd.choice(OPS),
        "graph": rnd.choice(GRAPHS), "group": rnd.choice(GROUPS), "b": r(1, 64),
        "h": r(1, 4096), "w": r(1, 4096), "drvsub": rnd.choice(DRV_SUBS),
    }


def render_body(rnd: random.Random, module: str, level: str, fields: dict[str, object]) -> str:
    """One body (everything after ``TIMESTAMP ``) for ``module`` at ``level``."""
    spec = MODULES[module]
    file, func = rnd.choice(spec["sources"])
    shape = spec.get("shapes", {}).get(level, spec["shape"])
    msg = rnd.choice(spec[level]).format(**fields)
    return shape.format(file=file, line=source_line(file, func), func=func, msg=msg, **fields)


def continuation_lines(rnd: random.Random, dump: bool, fields: dict[str, object]) -> list[str]:
    """Headerless lines that belong to the record before them (formats.md §1.5, §2.2, §3.1).

    ``<exception_print>`` register dump lines when ``dump``, else indented graph-node details.
    """
    count = rnd.randrange(2, 7)
    if dump:
        base = rnd.randrange(1 << 20)
        return [
            f"<exception_print>reg[{i:02d}] addr=0x{base + i * 64:08x} "
            f"value=0x{rnd.randrange(1 << 32):08x} core={fields['blk']}"
            for i in range(count)
        ]
    return [
        f"    node[{i}] name={fields['op']}_{rnd.randrange(1000)} type={rnd.choice(OPS)} "
        f"stream={fields['stream']} mem_offset={rnd.randrange(1 << 30)}"
        for i in range(count)
    ]


# ---------------------------------------------------------------------------------------------
# Job stdout (formats.md §3): training progress, torch_npu warnings, error-manager blocks.

def stdout_record(rnd: random.Random, kind: str, rank: int, pid: int, step: int,
                  ts: tuple[str, str, str]) -> list[str]:
    """One logical stdout record as physical lines; continuation lines are indented.

    ``ts`` is the same instant written three ways: ``(plog, glog, iso)``.
    """
    plog_ts, glog_ts, iso_ts = ts
    if kind == "progress":
        loss = 2.0 + rnd.random() * 2.5
        return [
            f"[{iso_ts}] iteration {step:>8d}/  200000 | consumed samples: {step * 256:>10d} "
            f"| elapsed time per iteration (ms): {300 + rnd.random() * 900:.1f} "
            f"| learning rate: {rnd.random() * 3e-4:.3E} | lm loss: {loss:.6E} "
            f"| grad norm: {rnd.random() * 5:.3f} | number of skipped iterations: 0 |"
        ]
    if kind == "warning":
        return [
            f"[rank{rank}]:[W{glog_ts} NPUStream.cpp:{rnd.randrange(400, 700)}] Warning: "
            f"NPU warning, error code is {rnd.choice(RT_CODES)}[Error]: the stream is busy, "
            f"the operation will be retried."
        ]
    if kind == "info":
        return [
            f"[INFO] {plog_ts[:19]} (PID:{pid}, Device:{rank % 8}, RankID:{rank}) "
            f"checkpoint step {step} saved to ./ckpt/iter_{step:07d}"
        ]
    # kind == "error": a torch_npu error line, an error-manager block and a traceback.
    code = rnd.choice(("EI0002", "EZ9999", "EE1002", "EL0004"))
    return [
        f"[ERROR] {plog_ts[:19]} (PID:{pid}, Device:{rank % 8}, RankID:{rank}) ERR02200 DIST "
        f"call hccl api failed.",
        f"{code}: [PID: {pid}] {plog_ts} The wait on a notify of stream {rnd.randrange(2, 900)} "
        f"timed out after {rnd.randrange(60, 1800)}s, remote rank {rnd.randrange(64)} did not "
        f"report.",
        f"        Possible cause: a peer rank stopped or the link is down.[FUNC:WaitNotify]"
        f"[FILE:notify_wait.cc][LINE:{rnd.randrange(100, 900)}]",
        "        TraceBack (most recent call last):",
        f"        Task run failed, stream {rnd.randrange(2, 900)} task {rnd.randrange(65536)}"
        f"[FUNC:ReportTaskFail][FILE:task_fail.cc][LINE:{rnd.randrange(100, 900)}]",
    ]


STDOUT_KINDS = ("progress", "warning", "info")
STDOUT_WEIGHTS = (0.90, 0.07, 0.03)
