"""One cross-rank failure added to a generated tree (``generate.py --inject-root-cause``).

Every rank joins the root-info rendezvous of one world communicator before its noise starts
(``Entry-HcclCommInitRootInfo``, ``SetupAgent``, ``HcclCommInitRootInfo success``, as formats.md
§7 rows 10-11 show them) and prints its ``HCCL_EXEC_TIMEOUT``. Two hours into the job the root
rank hits an AI Core exception (the runtime's ``Task run failed`` / ``there is an aicore error
exception`` records); ``HCCL_EXEC_TIMEOUT`` later every other rank reports a Notify Wait task
exception whose ``remote rank`` is its ring predecessor. Times carry the host's clock skew.
The lines go at the head of the rank's first run plog and at the end of its last debug plog,
so timestamps still only move forward within each process.
"""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

EXEC_TIMEOUT_S = 300
EPOCH = datetime(1970, 1, 1)


def _ts(us: int) -> str:
    t = EPOCH + timedelta(microseconds=us)
    return f"{t:%Y-%m-%d-%H:%M:%S}.{t.microsecond // 1000:03d}.{t.microsecond % 1000:03d}"


def identifier(seed: int) -> str:
    return f"10.0.0.1%eth0_60000_0_{1741939200000000 + seed}"


def server_ip(host: int) -> str:
    return f"10.{host // 250}.{host % 250}.1"


def device_ip(host: int, device: int) -> str:
    return f"172.{16 + host // 250}.{host % 250}.{10 + device}"


def _init_lines(cfg, rank: int, pid: int, dev: int, at: int, rnd: random.Random) -> list[str]:
    host = rank // cfg.ranks_per_host
    ident = identifier(cfg.seed)
    head = f"[INFO] HCCL({pid},python3):"
    arrive = at + rnd.randrange(0, 40_000)
    done = at + 1_900_000 + rnd.randrange(0, 4_000)
    return [
        f"{head}{_ts(at - 400_000)} [externalinput.cc:558] [{pid}][HCCL_ENV] HCCL_EXEC_TIMEOUT "
        f"set by environment to [{EXEC_TIMEOUT_S}]s",
        f"{head}{_ts(arrive)} [op_base.cc:413][{pid}]Entry-HcclCommInitRootInfo:ranks["
        f"{cfg.ranks}], rank[{rank}], rootinfo: host ip[{server_ip(0)}] port[60000] nicDeploy[1] "
        f"identifier[{ident}], deviceLogicId[{dev}]",
        f"{head}{_ts(arrive + 180_000)} [topoinfo_detect.cc:208][{pid}][HCCL_TRACE]SetupAgent "
        f"rankNum[{cfg.ranks}], rank[{rank}], rootInfo identifier[{ident}], server["
        f"{server_ip(host)}%eth0], logicDevId[{dev}], phydevId[{dev}], deviceIp["
        f"{device_ip(host, dev)}]",
        f"{head}{_ts(done)} [op_base.cc:489][{pid}][HCCL_TRACE]HcclCommInitRootInfo success,take "
        f"time [{done - arrive}]us, rankNum[{cfg.ranks}], rank[{rank}],rootInfo identifier["
        f"{ident}], server[{server_ip(host)}%eth0], logicDevId[{dev}]",
    ]


def _fault_lines(pid: int, dev: int, at: int) -> list[str]:
    tag = "[INIT][DEFAULT]"
    head = f"[ERROR] RUNTIME({pid},python3):"
    return [
        f"{head}{_ts(at)} [stars_engine.cc:1553]{pid} ProcLogicCqReport:{tag}Task run failed, "
        f"device_id={dev}, stream_id=2, task_id=4411, sqe_type=0(ffts), errType=0x1(task "
        "exception), sqSwStatus=0",
        f"{head}{_ts(at + 2_100)} [device_error_proc.cc:1635]{pid} ProcessStarsCoreErrorInfo:"
        f"{tag}The error from device(chipId:{dev}, dieId:0), serial number is 3, there is an "
        "aicore error exception, core id is 9, error code = 0, dump info: pc start: "
        "0x12c100031a40",
        f"{head}{_ts(at + 2_900)} [davinci_kernel_task.cc:1381]{pid} PrintErrorInfoForDavinci"
        f"Task:{tag}Aicore kernel execute failed, device_id={dev}, stream_id=2, "
        "report_stream_id=2, task_id=4411, flip_num=0, fault kernel_name="
        "GroupedMatmul_7a4c21e90f3b8d55_high_performance_1, fault kernel info ext=none, "
        "program id=4, hash=22081617",
    ]


def _wait_lines(cfg, rank: int, pid: int, at: int) -> list[str]:
    head = f"[ERROR] HCCL({pid},python3):"
    ident = identifier(cfg.seed)
    src = "task_exception_handler.cc"
    return [
        f"{head}{_ts(at)} [{src}:449][{pid}][TaskExceptionHandler][Callback]Task from HCCL "
        "run failed.",
        f"{head}{_ts(at + 15)} [{src}:452][{pid}][TaskExceptionHandler][Callback]Task run "
        f"failed, base information is streamID:[3], taskID[{90210 + rank}], taskType[Notify "
        f"Wait], tag[AllReduce_{ident}], index[77], AlgType(level 0-1-2):[null-null-ring].",
        f"{head}{_ts(at + 34)} [{src}:454][{pid}][TaskExceptionHandler][Callback]Task run "
        f"failed, para information is notify id:[0x{rank:016x}], stage:[ffffffff], remote "
        f"rank:[{(rank - 1) % cfg.ranks}].",
        f"{head}{_ts(at + 36)} [{src}:454][{pid}][TaskExceptionHandler][Callback]Task run "
        f"failed, groupRank information is group:[{ident}], rankSize[{cfg.ranks}], "
        f"rankId[{rank}].",
    ]


def _rewrite(root: Path, stat, lines: list[str], at_head: bool):
    path = root / stat.path
    old = path.read_bytes()
    new = "".join(line + "\n" for line in lines).encode()
    path.write_bytes(new + old if at_head else old + new)
    return replace(stat, bytes=stat.bytes + len(new), lines=stat.lines + len(lines),
                   records=stat.records + len(lines))


def root_cause(cfg, rank: int, pid: int, dev: int, job_start: int, skew: int, stats: list,
               rnd: random.Random) -> None:
    """Add this rank's part of the failure to its files (``stats`` is updated in place)."""
    root_rank = cfg.root_rank if cfg.root_rank >= 0 else cfg.ranks // 2
    runs = [i for i, s in enumerate(stats) if s.kind == "plog-run"]
    debugs = [i for i, s in enumerate(stats) if s.kind == "plog-debug"]
    local = random.Random(f"inject/{cfg.seed}/{rank}")
    first_run = min(runs, key=lambda i: stats[i].path)
    stats[first_run] = _rewrite(cfg.out, stats[first_run],
                                _init_lines(cfg, rank, pid, dev, job_start - 30_000_000 + skew,
                                            local), at_head=True)
    fault = job_start + 2 * 3600 * 1_000_000 + skew
    if rank == root_rank:
        lines = _fault_lines(pid, dev, fault)
    else:
        lines = _wait_lines(cfg, rank, pid, fault + EXEC_TIMEOUT_S * 1_000_000
                            + local.randrange(5_000, 60_000))
    last_debug = max(debugs, key=lambda i: stats[i].path)
    stats[last_debug] = _rewrite(cfg.out, stats[last_debug], lines, at_head=False)
