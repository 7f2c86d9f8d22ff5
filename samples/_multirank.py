"""Generate the multi-rank sample trees under ``samples/`` (cross-rank analysis).

Each sample is a job of several ranks on one or more hosts, in the per-host layout ascend-fd
and MindCluster collections use (``<host>/process_log/{run,debug}/plog/plog-<pid>_<ts>.log``),
with the HCCL, runtime and torch_npu lines in the shapes CANN writes (formats.md §1.2, §5,
§7, §9). Every sample has a ``README.md`` that states the expected suspect, victims and chain,
and where the key lines are. Standard library only, seeded, byte-for-byte reproducible.

Usage::

    python samples/_multirank.py            # (re)write the multi-rank samples
    python samples/_multirank.py --check    # regenerate in a temp dir and compare
"""

from __future__ import annotations

import argparse
import filecmp
import random
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

SAMPLES_DIR = Path(__file__).resolve().parent
T0 = datetime(2026, 4, 14, 9, 30, 0)


def log_ts(t: datetime) -> str:
    return f"{t:%Y-%m-%d-%H:%M:%S}.{t.microsecond // 1000:03d}.{t.microsecond % 1000:03d}"


def file_ts(t: datetime) -> str:
    return f"{t:%Y%m%d%H%M%S}{t.microsecond // 1000:03d}"


def ms(n: float) -> timedelta:
    return timedelta(microseconds=round(n * 1000))


@dataclass
class Rank:
    """One rank's process: where it runs and what it writes (true times; the host's clock
    skew is added when the lines are written)."""

    host: str
    rank: int
    device: int
    pid: int
    server_ip: str
    device_ip: str
    skew: timedelta = timedelta(0)
    run: list[tuple[datetime, str]] = field(default_factory=list)
    debug: list[tuple[datetime, str]] = field(default_factory=list)
    stdout: list[str] = field(default_factory=list)
    keys: dict[str, tuple[str, int]] = field(default_factory=dict)  # name -> (file, line)

    def rec(self, where: str, t: datetime, level: str, module: str, body: str,
            key: str | None = None) -> None:
        """One record: ``[LEVEL] MODULE(pid,python3):ts body``."""
        text = f"[{level}] {module}({self.pid},python3):{log_ts(t + self.skew)} {body}"
        target = self.run if where == "run" else self.debug
        target.append((t, text))
        if key:
            self.keys[key] = (where, len(target))


@dataclass
class Job:
    name: str
    ranks: list[Rank]
    identifier: str
    exec_timeout: int = 1836
    entry_log: bool = False
    readme: Callable[[Job, dict[str, str]], str] | None = None
    files: dict[str, str] = field(default_factory=dict)  # relative path -> text


def hccl(r: Rank, where: str, t: datetime, src: str, body: str, level: str = "INFO",
         key: str | None = None) -> None:
    r.rec(where, t, level, "HCCL", f"[{src}] [{r.pid}]{body}", key)


def start_up(job: Job, r: Rank, t: datetime, rnd: random.Random) -> datetime:
    """Process start and the settings HCCL prints."""
    r.rec("run", t, "INFO", "ATRACE", f"[trace_attr.c:190](tid:{r.pid}) attr init success, "
          "timeout=0ms.")
    t += ms(rnd.uniform(30, 60))
    r.rec("run", t, "INFO", "RUNTIME", f"[runtime.cc:5408] {r.pid} GetVisibleDevices: "
          "ASCEND_RT_VISIBLE_DEVICES param was not set")
    t += ms(rnd.uniform(200, 400))
    for src, name, value, how in (
            ("externalinput.cc:598", "HCCL_CONNECT_TIMEOUT", "[120]s", "default"),
            ("externalinput.cc:558", "HCCL_EXEC_TIMEOUT", f"[{job.exec_timeout}]s",
             "environment" if job.exec_timeout != 1836 else "default"),
            ("externalinput.cc:1250", "HCCL_RDMA_TIMEOUT", "[20]", "default"),
            ("externalinput.cc:1370", "HCCL_BUFFSIZE", "[200]M", "default"),
            ("externalinput.cc:1484", "HCCL_ENTRY_LOG_ENABLE", f"[{int(job.entry_log)}]",
             "environment" if job.entry_log else "default")):
        hccl(r, "run", t, src, f"[HCCL_ENV] {name} set by {how} to {value}")
        t += ms(0.004)
    return t


def rendezvous(job: Job, r: Rank, t: datetime, done: datetime, rnd: random.Random) -> datetime:
    """Root-info set-up: each rank arrives at ``t``; the rendezvous completes for all of them
    at ``done`` (each logs its success within a few ms of it)."""
    size = len(job.ranks)
    root = job.ranks[0].server_ip
    hccl(r, "run", t, "op_base.cc:413", f"Entry-HcclCommInitRootInfo:ranks[{size}], "
         f"rank[{r.rank}], rootinfo: host ip[{root}] port[60000] nicDeploy[1] identifier["
         f"{job.identifier}], deviceLogicId[{r.device}]")
    t += ms(rnd.uniform(150, 260))
    hccl(r, "run", t, "topoinfo_detect.cc:208", f"[HCCL_TRACE]SetupAgent rankNum[{size}], "
         f"rank[{r.rank}], rootInfo identifier[{job.identifier}], server[{r.server_ip}%eth0], "
         f"logicDevId[{r.device}], phydevId[{r.device}], deviceIp[{r.device_ip}]",
         key="setup")
    t = done + ms(rnd.uniform(0, 4))
    hccl(r, "run", t, "op_base.cc:489", f"[HCCL_TRACE]HcclCommInitRootInfo success,take time "
         f"[{rnd.randint(1700000, 1990000)}]us, rankNum[{size}], rank[{r.rank}],rootInfo "
         f"identifier[{job.identifier}], server[{r.server_ip}%eth0], logicDevId[{r.device}]")
    return t


def entry(job: Job, r: Rank, t: datetime, count: int) -> None:
    hccl(r, "run", t, "hccl_opbase_atrace_info.cc:56",
         f"Entry-HcclAllReduce: tag[AllReduce_{job.identifier}], sendBuf[0x12c0{r.rank:02x}"
         f"800000], recvBuf[0x12c0{r.rank:02x}800000], count[{count}], dataType[float32], "
         f"op[sum], localRank[{r.rank}], streamId[5],comm[0x3a1c9c00], deviceLogicId[{r.device}]")


def notify_wait(job: Job, r: Rank, t: datetime, peer: int, index: int, task: int) -> None:
    """A host task exception of a Notify Wait (the rank waited HCCL_EXEC_TIMEOUT for a peer)."""
    src = "task_exception_handler.cc"
    hccl(r, "debug", t, f"{src}:449", "[TaskExceptionHandler][Callback]Task from HCCL run "
         "failed.", "ERROR")
    hccl(r, "debug", t + ms(0.015), f"{src}:452", "[TaskExceptionHandler][Callback]Task run "
         f"failed, base information is streamID:[3], taskID[{task}], taskType[Notify Wait], "
         f"tag[AllReduce_{job.identifier}], index[{index}], AlgType(level 0-1-2):"
         "[null-null-ring].", "ERROR", key="notify")
    hccl(r, "debug", t + ms(0.034), f"{src}:454", "[TaskExceptionHandler][Callback]Task run "
         f"failed, para information is notify id:[0x00000000{r.rank:02x}000048], "
         f"stage:[ffffffff], remote rank:[{peer}].", "ERROR", key="remote")
    hccl(r, "debug", t + ms(0.036), f"{src}:454", "[TaskExceptionHandler][Callback]Task run "
         f"failed, groupRank information is group:[{job.identifier}], rankSize["
         f"{len(job.ranks)}], rankId[{r.rank}].", "ERROR")


def aicore_error(r: Rank, t: datetime, kernel: str) -> None:
    """The runtime's report of an AI Core exception on this rank's device."""
    tag = "[INIT][DEFAULT]"
    r.rec("debug", t, "ERROR", "RUNTIME", f"[stars_engine.cc:1553]{r.pid} ProcLogicCqReport:"
          f"{tag}Task run failed, device_id={r.device}, stream_id=2, task_id=318, "
          "sqe_type=0(ffts), errType=0x1(task exception), sqSwStatus=0", key="first_error")
    r.rec("debug", t + ms(2.1), "ERROR", "RUNTIME", f"[device_error_proc.cc:1635]{r.pid} "
          f"ProcessStarsCoreErrorInfo:{tag}The error from device(chipId:{r.device}, dieId:0), "
          "serial number is 7, there is an aicore error exception, core id is 21, error code = "
          "0x800000, dump info: pc start: 0x12c10002a3c0, current: 0x12c10002a6f4",
          key="aicore")
    r.rec("debug", t + ms(2.2), "ERROR", "RUNTIME", f"[device_error_proc.cc:1647]{r.pid} "
          f"ProcessStarsCoreErrorInfo:{tag}The extend info: errcode:(0x800000, 0, 0) errorStr: "
          "The DDR address of the MTE instruction is out of range. fixp_error0 info: 0x4000031")
    r.rec("debug", t + ms(2.9), "ERROR", "RUNTIME", f"[davinci_kernel_task.cc:1381]{r.pid} "
          f"PrintErrorInfoForDavinciTask:{tag}Aicore kernel execute failed, device_id="
          f"{r.device}, stream_id=2, report_stream_id=2, task_id=318, flip_num=0, fault "
          f"kernel_name={kernel}, fault kernel info ext=none, program id=12, hash=97734201")
    r.rec("debug", t + ms(5.0), "ERROR", "ASCENDCL", f"[stream.cpp:120]{r.pid} "
          f"aclrtSynchronizeStream: {tag}synchronize stream failed, runtime result = 507015")


def link_error(job: Job, r: Rank, t: datetime, dest: Rank) -> None:
    """The LINK_ERROR_INFO table HCCL prints when a link is not set up in time."""
    src = "comm_base.cc"
    rows = [
        "   _________________________LINK_ERROR_INFO___________________________",
        f"   |  comm error, device[{r.device}] num[1]",
        "   |  dest_ip(rank_id)  |  src_ip(rank_id)   |   Role   |   Status   |",
        "   |--------------------|--------------------|----------|------------|",
        f"   |  {dest.device_ip}({dest.rank})   |   {r.device_ip}({r.rank})   |  "
        f"{'client' if r.rank > dest.rank else 'server'}  | time out |",
        "   ___________________________________________________________________",
        "the connection failure between this device and target device may be due to the "
        "following reasons:",
    ]
    for k, body in enumerate(rows):
        hccl(r, "debug", t + ms(0.013 * k), f"{src}:{967 + k}", body, "ERROR",
             key="link" if k == 4 else None)
    hccl(r, "debug", t + ms(0.6), "hccl_impl.cc:1881", "[Loop][Allreduce]errNo"
         "[0x0000000005000004] op_base hcclComm all reduce error, tag[AllReduce_"
         f"{job.identifier}], input_ptr[0x124100c00000], output_ptr[0x12410d400000], "
         "count[1024], data_type[4], op[3]", "ERROR")


def write(job: Job, out: Path) -> dict[str, str]:
    """Write the job's files; returns key -> "path:line" for its README."""
    where: dict[str, str] = {}
    for r in job.ranks:
        for kind, records in (("run", r.run), ("debug", r.debug)):
            if not records:
                continue
            opened = records[0][0] + r.skew - ms(3)
            rel = f"{r.host}/process_log/{kind}/plog/plog-{r.pid}_{file_ts(opened)}.log"
            job.files[rel] = "".join(text + "\n" for _, text in records)
            for key, (target, line) in r.keys.items():
                if target == kind:
                    where[f"{r.rank}.{key}"] = f"{rel}:{line}"
        if r.stdout:
            job.files[f"{r.host}/train_rank{r.rank}.log"] = "".join(s + "\n" for s in r.stdout)
    root = out / job.name
    if root.exists():
        shutil.rmtree(root)
    for rel, text in sorted(job.files.items()):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert job.readme is not None
    (root / "README.md").write_text(job.readme(job, where), encoding="utf-8")
    return where


def make_ranks(hosts: list[tuple[str, str, int]], pid0: int, skews: dict[str, timedelta]
               | None = None) -> list[Rank]:
    """Ranks numbered across ``hosts`` (name, server IP, ranks on it), devices from 0."""
    ranks = []
    n = 0
    for h, (name, ip, count) in enumerate(hosts):
        for d in range(count):
            ranks.append(Rank(name, n, d, pid0 + 137 * n + 11 * h, ip,
                              f"192.168.{100 + h}.{11 + d}",
                              (skews or {}).get(name, timedelta(0))))
            n += 1
    return ranks


# --------------------------------------------------------------------------- scenarios

def _training(job: Job, rnd: random.Random, start: datetime, steps: int, count: int = 4194304,
              skip: dict[int, int] | None = None) -> datetime:
    """``steps`` AllReduce collectives on every rank (entry logs only with entry_log);
    ``skip`` rank -> how many of the last steps that rank never entered."""
    t = start
    for step in range(steps):
        for r in job.ranks:
            if skip and step >= steps - skip.get(r.rank, 0):
                continue
            if job.entry_log:
                entry(job, r, t + ms(rnd.uniform(0, 25)), count)
        t += ms(rnd.uniform(900, 1100))
    return t


def _setup(job: Job, rnd: random.Random, t: datetime = T0) -> datetime:
    """Every rank starts, then meets the others at the rendezvous (within ~40 ms)."""
    for r in job.ranks:
        start_up(job, r, t + ms(rnd.uniform(0, 900)), rnd)
    meet = t + timedelta(seconds=3)
    done = meet + ms(1900)
    for r in job.ranks:
        rendezvous(job, r, meet + ms(rnd.uniform(0, 40)), done, rnd)
    return done + timedelta(seconds=2)


def cascade(rnd: random.Random) -> Job:
    ranks = make_ranks([("node-a", "10.20.0.11", 4), ("node-b", "10.20.0.12", 4)], 31200,
                       {"node-b": ms(2.7)})
    job = Job("notify-wait-cascade", ranks, "10.20.0.11%eth0_60000_0_1776159000123456",
              exec_timeout=300, readme=_cascade_readme)
    t = _training(job, rnd, _setup(job, rnd), 6)
    fault = t + timedelta(minutes=2)
    aicore_error(ranks[5], fault, "MatMulV3_5d1e7a0c92b84f36_high_performance_1")
    for r in ranks:
        if r.rank != 5:
            notify_wait(job, r, fault + timedelta(seconds=300) + ms(rnd.uniform(5, 60)),
                        (r.rank - 1) % 8, 57, 880100 + r.rank)
    return job


def _cascade_readme(job: Job, where: dict[str, str]) -> str:
    ring = " → ".join(f"node-{'a' if r < 4 else 'b'} device-{r % 4}"
                      for r in (4, 3, 2, 1, 0, 7, 6, 5))
    return f"""# notify-wait-cascade: one AI Core error, seven Notify Wait timeouts

Eight ranks on two hosts (`node-a` ranks 0-3, `node-b` ranks 4-7, devices 0-3 on each) run a
ring AllReduce on one communicator. Rank 5 (`node-b`, device 1) hits an AI Core exception (the
MTE instruction addressed DDR out of range, 507015). Its peers keep waiting for its notify; after
`HCCL_EXEC_TIMEOUT` (set by the environment to 300 s) each of the seven others reports a Notify
Wait task exception whose `remote rank` is its ring predecessor. The clocks of the two hosts
agree to within 3 ms.

## What `plogscan diagnose` must report

* root cause **localized**, first suspect **`node-b device-1`, rank 5** (signals
  `error-vs-timeout`, `wait-chain`: the only real error, and the end of every chain of waits);
* victims: ranks 0, 1, 2, 3, 4, 6 and 7 (they only waited);
* chain (the ring of waits, from the rank farthest from the root): {ring};
* findings: `OOB001` (the MTE out-of-range access) and `AIC001` on rank 5 (`rank_role`
  root-cause), `HCCL001` on every other rank (`rank_role` victim).

## Key lines

* rank 5's first error: `{where['5.first_error']}`; the exception: `{where['5.aicore']}`
* rank 6 waits for rank 5: `{where['6.remote']}`
* rank 4 waits for rank 3: `{where['4.remote']}`

Generated by `samples/_multirank.py` (seeded; ids, addresses and times are invented).
"""


def silent_rank(rnd: random.Random) -> Job:
    ranks = make_ranks([("worker-0", "10.30.0.21", 8), ("worker-1", "10.30.0.22", 8)], 52000)
    job = Job("link-chain-silent-rank", ranks, "10.30.0.21%eth0_60000_0_1776159100654321",
              readme=_silent_readme)
    t = _setup(job, rnd)
    # rank 13 never reaches the first collective (it hangs loading data): it logs nothing more.
    # Everyone else tries to set up the links of the first AllReduce and times out, each on
    # the peer it waits for: a tree of waits that ends at rank 13.
    waits_for = {0: 3, 1: 3, 2: 4, 3: 4, 4: 12, 5: 13, 6: 5, 7: 14, 8: 12, 9: 12, 10: 14,
                 11: 14, 12: 13, 14: 13, 15: 13}
    start = t + timedelta(seconds=20)
    for r in ranks:
        if r.rank == 13:
            continue
        link_error(job, r, start + timedelta(seconds=140) + ms(rnd.uniform(0, 80)),
                   ranks[waits_for[r.rank]])
    return job


def _silent_readme(job: Job, where: dict[str, str]) -> str:
    return f"""# link-chain-silent-rank: 15 ranks wait at link set-up for one that went silent

Sixteen ranks on two hosts (`worker-0` ranks 0-7, `worker-1` ranks 8-15). Every rank starts and
joins the root-info rendezvous of the world communicator. Then rank 13 (`worker-1`, device 5)
stops logging: it never issues the first AllReduce (its process hung before it). The fifteen
others try to set up the links of that collective and give up after `HCCL_CONNECT_TIMEOUT`
(120 s; +20 s effective), each printing a `LINK_ERROR_INFO` table that names the peer it waited
for. Their waits form a tree: rank 0 waits for 3, 3 for 4, 4 for 12, 12 for 13; ranks 5, 14
and 15 wait for 13 directly; the others wait for one of those. Rank 13 waits for nobody and
logged no error: it is the root.

## What `plogscan diagnose` must report

* root cause **localized**, first suspect **`worker-1 device-5`, rank 13** (signals
  `wait-chain` and `silent-rank`);
* victims: the other 15 ranks;
* chain: `worker-0 device-0 → worker-0 device-3 → worker-0 device-4 → worker-1 device-4 →
  worker-1 device-5`;
* findings: `HCCL007` (link set-up timeout) on each of the 15 ranks (`rank_role` victim);
  nothing on rank 13.

## Key lines

* rank 13's last record (its rendezvous): `{where['13.setup']}`
* rank 12 waits for rank 13: `{where['12.link']}`
* rank 0 waits for rank 3: `{where['0.link']}`

Generated by `samples/_multirank.py` (seeded; ids, addresses and times are invented).
"""


def index_mismatch(rnd: random.Random) -> Job:
    ranks = make_ranks([("node-c", "10.40.0.31", 4)], 71000)
    job = Job("op-index-mismatch", ranks, "10.40.0.31%eth0_60000_0_1776159200111222",
              exec_timeout=600, entry_log=True, readme=_index_readme)
    t = _training(job, rnd, _setup(job, rnd), 42, skip={2: 1})
    for r in ranks:
        notify_wait(job, r, t + timedelta(seconds=600) + ms(rnd.uniform(2, 30)),
                    (r.rank - 1) % 4, 41 if r.rank == 2 else 42, 5120300 + r.rank)
    return job


def _index_readme(job: Job, where: dict[str, str]) -> str:
    return f"""# op-index-mismatch: one rank is a collective behind

Four ranks on one host (`node-c`, devices 0-3) run AllReduce after AllReduce with
`HCCL_ENTRY_LOG_ENABLE=1`, so every collective is logged as `Entry-HcclAllReduce`. Rank 2 never
enters the 42nd: it is stuck before it. The others enter it and wait; after `HCCL_EXEC_TIMEOUT`
(600 s) all four report a Notify Wait task exception, the three at op `index[42]` and rank 2 at
`index[41]` (its last collective, which its peers had long finished).

## What `plogscan diagnose` must report

* root cause **localized**, first suspect **`node-c device-2`, rank 2** (signals
  `index-mismatch` and `collective-mismatch`);
* victims: ranks 0, 1 and 3;
* collectives: first mismatch at collective 42 of the communicator, kind `missing`, odd rank 2;
* chain: the ranks' Notify Waits form a ring, so the chain leads to rank 2 from its waiters;
* findings: `HCCL001` on all four ranks (rank 2's with `rank_role` root-cause).

## Key lines

* rank 2 at index 41: `{where['2.notify']}`; rank 0 at index 42: `{where['0.notify']}`

Generated by `samples/_multirank.py` (seeded; ids, addresses and times are invented).
"""


SKEW_S = -6.4


def clock_skew(rnd: random.Random) -> Job:
    ranks = make_ranks([("host-1", "10.50.0.41", 8), ("host-2", "10.50.0.42", 8)], 88000,
                       {"host-2": timedelta(seconds=SKEW_S)})
    job = Job("clock-skew-earliest-error", ranks, "10.50.0.41%eth0_60000_0_1776159300333444",
              exec_timeout=300, entry_log=True, readme=_skew_readme)
    t = _training(job, rnd, _setup(job, rnd), 24)
    fault = t + timedelta(seconds=30)
    aicore_error(ranks[3], fault, "FlashAttentionScore_8c2d41f09e7ab356_high_performance_2")
    # rank 12's SDMA copy to its dead peer fails 0.8 s later; on host-b's clock, which is
    # 6.4 s behind, it looks 5.6 s earlier than rank 3's error.
    r12 = ranks[12]
    r12.rec("debug", fault + ms(800), "ERROR", "RUNTIME", f"[device_error_proc.cc:2208]"
            f"{r12.pid} ProcessStarsSdmaErrorInfo:[EXEC][EXEC]The error from device(chipId:4, "
            "dieId:0), serial number is 2, there is a sdma error, sdma channel is 3, "
            "cqeStatus=0x3", key="first_error")
    r12.rec("debug", fault + ms(801), "ERROR", "RUNTIME", f"[stream.cc:1172]{r12.pid} "
            "GetError:[EXEC][EXEC]Memory async copy failed, device_id=4, stream_id=7, "
            "task_id=2261")
    for r in ranks:
        if r.rank != 3:
            notify_wait(job, r, fault + timedelta(seconds=300) + ms(rnd.uniform(5, 60)),
                        (r.rank - 1) % 16, 25, 940500 + r.rank)
    return job


def _skew_readme(job: Job, where: dict[str, str]) -> str:
    return f"""# clock-skew-earliest-error: the naive "earliest error" points at the wrong rank

Sixteen ranks on two hosts (`host-1` ranks 0-7, `host-2` ranks 8-15, devices 0-7 on each),
entry logs on (`HCCL_ENTRY_LOG_ENABLE=1`). `host-2`'s clock runs **{-SKEW_S:.1f} s behind**
`host-1`'s. Rank 3 (`host-1`, device 3) hits an AI Core exception. 0.8 s later rank 12
(`host-2`, device 4) has an SDMA copy fail (cqeStatus 0x3) because its peer is gone; its log
stamps that error {-SKEW_S - 0.8:.1f} s *before* rank 3's. After `HCCL_EXEC_TIMEOUT` (300 s) the
fifteen ranks other than 3 report Notify Wait timeouts, each waiting for its ring predecessor.

Sorting the ERROR records by their written time names rank 12 first: wrong. Aligned by the
offsets plogscan estimates from the rendezvous and the 24 collectives every rank entered, rank 3
is first by 0.8 s.

## What `plogscan diagnose` must report

* clock: reference `host-1`; `host-2` offset about **{SKEW_S * 1e6:+.0f} µs**, recovered within
  100 ms (from the end of the root-info rendezvous and the collectives every rank entered,
  whichever gives the smaller uncertainty);
* root cause **localized**, first suspect **`host-1 device-3`, rank 3** (signals
  `error-vs-timeout`, `earliest-error`, `wait-chain`); rank 12 second (its own real error, but
  later on aligned clocks);
* victims: every other rank;
* findings: `OOB001` and `AIC001` on rank 3, `SDMA001` on rank 12, `HCCL001` on the fifteen
  waiting ranks.

## Key lines

* rank 3's first error: `{where['3.first_error']}`
* rank 12's SDMA error (written time earlier than rank 3's): `{where['12.first_error']}`
* rank 4 waits for rank 3: `{where['4.remote']}`

Generated by `samples/_multirank.py` (seeded; ids, addresses and times are invented).
"""


def restart(rnd: random.Random) -> Job:
    first = make_ranks([("node-d", "10.60.0.51", 2), ("node-e", "10.60.0.52", 2)], 40100)
    second = make_ranks([("node-d", "10.60.0.51", 2), ("node-e", "10.60.0.52", 2)], 46900)
    job = Job("restart-two-attempts", first, "10.60.0.51%eth0_60000_0_1776159400100001",
              readme=_restart_readme)
    t = _training(job, rnd, _setup(job, rnd), 5)
    fault = t + timedelta(minutes=3)
    r1 = first[1]
    r1.rec("debug", fault, "ERROR", "RUNTIME", f"[device_error_proc.cc:1892]{r1.pid} "
           "ProcessStarsCoreErrorInfo:[EXEC][EXEC]The error from device(chipId:1, dieId:0), "
           "serial number is 1, there is an aicore error exception, core id is 4, error code "
           "= 0x100, errcode:(0x100, 0, 0) errorStr: ecc error, hardware fault.", key="first_error")
    r1.rec("debug", fault + ms(3), "ERROR", "RUNTIME", f"[stream.cc:1172]{r1.pid} GetError:"
           "[EXEC][EXEC]Stream Synchronize failed, stream_id=2, retCode=0x225, "
           "error code is 507054, HBM MULTI BIT ECC ERROR")
    for r in first:
        if r.rank != 1:
            notify_wait(job, r, fault + timedelta(seconds=1836) + ms(rnd.uniform(5, 60)),
                        (r.rank - 1) % 4, 6, 30100 + r.rank)
    # the job is restarted ten minutes later: new pids on the same devices, a new communicator
    again = Job("restart-two-attempts", second, "10.60.0.51%eth0_60000_0_1776163800200002")
    t2 = fault + timedelta(seconds=1836 + 600)
    t2 = _training(again, rnd, _setup(again, rnd, t2), 3)
    fault2 = t2 + timedelta(seconds=40)
    r2 = second[2]
    r2.rec("debug", fault2, "ERROR", "RUNTIME", f"[npu_driver.cc:1233]{r2.pid} "
           "DevMemAllocHugePageManaged:[EXEC][EXEC]DevMemAllocHugePageManaged failed, "
           "device_id=0, size=8589934592, drvRetCode=6", key="first_error")
    r2.rec("debug", fault2 + ms(1), "ERROR", "ASCENDCL", f"[memory.cpp:97]{r2.pid} aclrtMalloc:"
           "[EXEC][EXEC]malloc device memory failed, runtime result = 207001")
    for r in second:
        if r.rank != 2:
            notify_wait(again, r, fault2 + timedelta(seconds=1836) + ms(rnd.uniform(5, 60)),
                        (r.rank - 1) % 4, 4, 60100 + r.rank)
    job.ranks = first + second
    return job


def _restart_readme(job: Job, where: dict[str, str]) -> str:
    return f"""# restart-two-attempts: a job that failed, was restarted, and failed again

Four ranks on two hosts (`node-d` ranks 0-1, `node-e` ranks 2-3). **Attempt 1**: rank 1
(`node-d`, device 1) hits an uncorrectable HBM ECC error (507054); the three others wait for
it and report Notify Wait timeouts after `HCCL_EXEC_TIMEOUT` (1836 s). Ten minutes later the
job is **restarted**: new processes (new pids) on the same devices, a new communicator.
**Attempt 2**: rank 2 (`node-e`, device 0) cannot allocate device memory (207001); the others
time out waiting for it.

## What `plogscan diagnose` must report

* attempts: **two**, each with its own verdict:
  attempt 1 localized on `node-d device-1` (rank 1), attempt 2 localized on `node-e device-0`
  (rank 2);
* the top-level root cause is the last attempt that failed: **localized**, first suspect
  **`node-e device-0`, rank 2**; victims ranks 0, 1 and 3 (of attempt 2);
* no chain or finding mixes the two attempts' processes.

## Key lines

* attempt 1, rank 1's ECC error: `{where['1.first_error']}`
* attempt 2's processes are the second set of plogs in each host's `process_log/`.

Generated by `samples/_multirank.py` (seeded; ids, addresses and times are invented).
"""


def undetermined(rnd: random.Random) -> Job:
    ranks = make_ranks([("node-f", "10.70.0.61", 4)], 23300)
    job = Job("notify-wait-undetermined", ranks, "10.70.0.61%eth0_60000_0_1776159500555666",
              readme=_undetermined_readme)
    t = _training(job, rnd, _setup(job, rnd), 4)
    for r in ranks:
        notify_wait(job, r, t + timedelta(seconds=1836) + ms(rnd.uniform(1, 20)),
                    (r.rank - 1) % 4, 5, 700200 + r.rank)
    return job


def _undetermined_readme(job: Job, where: dict[str, str]) -> str:
    return f"""# notify-wait-undetermined: every rank only waited, and the logs cannot tell why

Four ranks on one host (`node-f`). All four report a Notify Wait timeout after
`HCCL_EXEC_TIMEOUT` (1836 s), at the same op index (5), under the same tag, each waiting for
its ring predecessor. No rank logged a real error, none is silent, no heartbeat names anyone,
and entry logs are off, so nothing orders the ranks' collectives.

## What `plogscan diagnose` must report

* root cause **undetermined** (no suspects): the evidence cannot single out a device, and
  plogscan says so instead of guessing;
* victims: all four ranks;
* findings: `HCCL001` on every rank.

To tell, rerun with `HCCL_ENTRY_LOG_ENABLE=1` (every collective is logged, so a rank that is
behind shows) and collect the job's stdout and the host's `/var/log/messages`.

## Key lines

* rank 0's Notify Wait: `{where['0.notify']}`

Generated by `samples/_multirank.py` (seeded; ids, addresses and times are invented).
"""


SCENARIOS: dict[str, Callable[[random.Random], Job]] = {
    "notify-wait-cascade": cascade,
    "link-chain-silent-rank": silent_rank,
    "op-index-mismatch": index_mismatch,
    "clock-skew-earliest-error": clock_skew,
    "restart-two-attempts": restart,
    "notify-wait-undetermined": undetermined,
}


def sensitive_values(name: str) -> tuple[str, ...]:
    """What a sample's logs give away about its machines (host names, server and device
    addresses): a report made with ``--redact`` must hold none of these."""
    seed = 13 + list(SCENARIOS).index(name)
    job = SCENARIOS[name](random.Random(seed))
    return tuple(sorted({value for r in job.ranks
                         for value in (r.host, r.server_ip, r.device_ip)}))


def generate(out: Path) -> None:
    for seed, (name, build) in enumerate(SCENARIOS.items(), start=13):
        job = build(random.Random(seed))
        assert job.name == name
        write(job, out)


def _same(a: Path, b: Path) -> bool:
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only or cmp.diff_files or cmp.funny_files:
        return False
    return all(_same(a / d, b / d) for d in cmp.common_dirs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="regenerate into a temporary directory and compare")
    args = parser.parse_args(argv)
    if not args.check:
        generate(SAMPLES_DIR)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp))
        bad = [n for n in SCENARIOS if not _same(Path(tmp) / n, SAMPLES_DIR / n)]
    for name in bad:
        print(f"{name}: differs from what _multirank.py generates", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
