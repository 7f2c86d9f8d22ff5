"""Synthetic CANN log-tree generator for the plogscan benchmark.

Writes, per rank, what a training job leaves behind (formats.md §4): a host debug plog and a run
plog of the rank's Python process, the device app log its AI CPU / HCCP processes sent back, all
rotated at 20 MB like the CANN log library, plus the job's stdout. Lines have the real shapes of
formats.md §1.2/§2.1/§3 (text from ``templates.py``), per-process timestamps that only go
forward, the requested share of DEBUG records and density of ERROR records, some multi-line
records, and rare header anomalies (no space after the level, a space inside the timestamp, an
empty process name, 1022-character lines).

Speed comes from building each ~1 MB batch with array operations: record kinds, body indices and
clock ticks are numpy random arrays, timestamps are digit arithmetic on a uint8 matrix, and the
lines are joined by one ``pyarrow.compute.binary_join_element_wise`` call whose output buffer is
written to the file as is. Python only renders a small pool of bodies per stream. Output is a
pure function of the arguments: same seed, same bytes.

    python bench/generate.py OUT_DIR --size 1GiB --ranks 8 --debug-share 0.7 \\
        --error-density 0.001 --seed 1

With ``--inject-root-cause`` the tree holds one cross-rank failure (``inject.py``): every rank
announces itself in the world communicator (``SetupAgent``, ``HcclCommInitRootInfo``), one rank
hits an AI Core exception, and every other rank reports a Notify Wait timeout on its ring
predecessor; ``--ranks-per-host`` puts several ranks in one ``worker-<h>`` directory (one host)
and ``--skew-host``/``--skew-seconds`` shift one host's clock.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import inject
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import templates as tpl

ROTATE_BYTES = 20 * 1024 * 1024  # DEFAULT_MAX_HOST_FILE_SIZE (formats.md §4)
MAX_LINE = 1022  # longest physical plog line the log library writes (formats.md §1.5)
ANOMALY_RATE = 2e-4  # per record, for each of the four header anomalies
# Quiet noise (--inject-root-cause): bodies that name a failure, a timeout or a setting are not
# drawn, so the injected failure is the only one in the tree.
QUIET_DROP = re.compile(r"(?i)time ?out|error|fail|exception|set by|ecc|oom|memory|warning"
                        r"|\b[15]0\d{4}\b|E[A-Z0-9]\d{4}")
MULTILINE_RATE = 0.03  # share of host GE/HCCL DEBUG/INFO bodies with indented detail lines
EPOCH = datetime(1970, 1, 1)
TS_WIDTH = 28  # "YYYY-MM-DD-hh:mm:ss.mmm.uuu " with its trailing space
_UNITS = {"": 1, "B": 1, "K": 1000, "KB": 1000, "M": 10**6, "MB": 10**6, "G": 10**9,
          "GB": 10**9, "KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30, "TIB": 1 << 40}


def parse_size(text: str) -> int:
    """Bytes from ``"1073741824"``, ``"512KiB"``, ``"200MiB"``, ``"1GiB"``, ``"1.5GB"``."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", text)
    unit = match.group(2).upper() if match else None
    if match is None or unit not in _UNITS:
        raise ValueError(
            f"bad size {text!r}: expected a number of bytes with an optional unit "
            f"(B, KiB, MiB, GiB, TiB, KB, MB, GB)"
        )
    return int(float(match.group(1)) * _UNITS[unit])


@dataclass(frozen=True)
class Config:
    """What to generate. ``debug_share`` and ``error_density`` apply to debug-log records."""

    out: Path
    size: int
    ranks: int = 8
    debug_share: float = 0.7
    error_density: float = 0.001
    seed: int = 1
    rotate: int = ROTATE_BYTES
    layout: str = "worker"  # "worker": worker-<k>/process_log/...; "modelarts": .../rank_<k>/...
    batch_lines: int = 6000
    reuse_share: float = 0.0  # share of host debug records that are HCCL's context-reuse line
    pids: int = 0  # > 0: the whole tree is one file with this many distinct pids
    ranks_per_host: int = 1  # ranks per worker-<h> directory (layout "worker")
    inject: bool = False  # one injected cross-rank root cause (see inject.py)
    root_rank: int = -1  # the rank that fails (-1: the middle rank)
    skew_host: int = -1  # the host whose clock is shifted (-1: none)
    skew_seconds: float = 0.0


@dataclass(frozen=True)
class FileStat:
    """One generated file: path relative to the tree root, size and line/record counts.

    ``records`` counts logical records: a header line plus its continuation lines (lines that
    start with whitespace or ``<exception_print>``) is one record.
    """

    path: str
    kind: str  # plog-debug | plog-run | device-app | stdout
    bytes: int
    lines: int
    records: int


# ---------------------------------------------------------------------------------------------
# Record kinds: (level, module, process) with a header prefix and a pool of rendered bodies.

@dataclass
class Proc:
    """A process that writes into one stream: header pid/pname, thread ids, its modules."""

    pid: int
    pname: str
    tids: list[int]
    modules: dict[str, int]  # module -> weight


@dataclass
class KindTable:
    """Vectorizable description of a stream's records."""

    prefixes: pa.Array  # 3 per kind: normal, no space after level, empty process name
    bodies: pa.Array  # rendered bodies, each ending in "\n"
    body_start: np.ndarray  # per kind: first index into bodies
    body_count: np.ndarray  # per kind: number of bodies
    body_lines: np.ndarray  # per body: physical lines
    cum_weights: np.ndarray  # per kind, normalized cumulative weights
    long_kind: int  # kind index of the 1022-char lines, -1 if none


def _level_weights(debug_share: float, error_density: float, run_log: bool,
                   quiet: bool = False) -> dict[str, float]:
    if run_log:  # run logs hold INFO and EVENT only (formats.md §1.3)
        return {"INFO": 0.95, "EVENT": 0.05}
    rest = max(0.0, 1.0 - debug_share - error_density)
    if quiet:
        return {"DEBUG": debug_share, "INFO": rest}
    return {"DEBUG": debug_share, "INFO": rest * 0.85, "WARNING": rest * 0.15,
            "ERROR": error_density}


def build_kinds(rnd: random.Random, procs: list[Proc], levels: dict[str, float], rank: int,
                nranks: int, dev: int, long_share: float, quiet: bool = False,
                reuse_share: float = 0.0) -> KindTable:
    """Render body pools for every (level, module, process) kind of one stream (with
    ``quiet``, none that names a failure, a timeout or a setting)."""
    prefixes: list[str] = []
    bodies: list[str] = []
    starts: list[int] = []
    counts: list[int] = []
    weights: list[float] = []
    total_module_weight = sum(w for p in procs for w in p.modules.values())
    for level, level_weight in levels.items():
        if level_weight <= 0:
            continue
        for proc in procs:
            for module, module_weight in proc.modules.items():
                prefixes += [f"[{level}] {module}({proc.pid},{proc.pname}):",
                             f"[{level}]{module}({proc.pid},{proc.pname}):",
                             f"[{level}] {module}({proc.pid},):"]
                starts.append(len(bodies))
                pool = 48 if level in ("DEBUG", "INFO") else 16
                for _ in range(pool):
                    fields = tpl.random_fields(rnd, proc.pid, proc.tids, rank, nranks, dev)
                    body = tpl.render_body(rnd, module, level, fields)
                    for _attempt in range(20 if quiet else 0):
                        if not QUIET_DROP.search(body):
                            break
                        body = tpl.render_body(rnd, module, level, fields)
                    if quiet and QUIET_DROP.search(body):
                        body = f"[{module.lower()}_stat.cc:{rnd.randrange(10, 999)}] heartbeat ok"
                    dump = level == "ERROR" and module in ("AICPU", "CCECPU")
                    detail = level in ("DEBUG", "INFO") and module in ("GE", "HCCL")
                    if (dump and rnd.random() < 0.5) or (detail and rnd.random() < MULTILINE_RATE):
                        body += "\n" + "\n".join(tpl.continuation_lines(rnd, dump, fields))
                    bodies.append(body + "\n")
                counts.append(pool)
                weights.append(level_weight * module_weight / total_module_weight)
    long_kind = -1
    if long_share > 0 and procs[0].modules.get("RUNTIME"):
        proc = procs[0]
        header = f"[INFO] RUNTIME({proc.pid},{proc.pname}):"
        prefixes += [header, header, header]
        long_kind = len(starts)
        starts.append(len(bodies))
        for _ in range(8):
            tid = rnd.choice(proc.tids)
            body = f"[kernel_info.cc:212] {tid} DumpKernelInfo: [AIC_INFO] tiling_data:"
            room = MAX_LINE - len(header) - TS_WIDTH - len(body)
            body += "".join(f"{rnd.randrange(256):02x}" for _ in range(room // 2 + 1))[:room]
            bodies.append(body + "\n")
        counts.append(8)
        weights.append(long_share)
    if reuse_share > 0 and procs[0].modules.get("HCCL"):
        # HCCL's "Already have context, skip create" DEBUG line, written on every step of a
        # job whose collectives hit the cached CCU context (the CCU001 rule's first step).
        proc = procs[0]
        prefixes += [f"[DEBUG] HCCL({proc.pid},{proc.pname}):"] * 3
        starts.append(len(bodies))
        for size in (2, 3, 4, 6):
            tid = rnd.choice(proc.tids)
            bodies.append(f"[op_common.cc:1187] [{tid}]Already have context, skip create, "
                          f"ctxSize is {size}\n")
        counts.append(4)
        weights.append(reuse_share * sum(weights) / max(1e-9, 1 - reuse_share))
    cum = np.cumsum(np.asarray(weights, dtype=np.float64))
    return KindTable(
        prefixes=pa.array(prefixes, pa.string()),
        bodies=pa.array(bodies, pa.string()),
        body_start=np.asarray(starts, dtype=np.int64),
        body_count=np.asarray(counts, dtype=np.int64),
        body_lines=np.asarray([b.count("\n") for b in bodies], dtype=np.int64),
        cum_weights=cum / cum[-1],
        long_kind=long_kind,
    )


# ---------------------------------------------------------------------------------------------
# Vectorized timestamps.

def _put(out: np.ndarray, col: int, values: np.ndarray, width: int) -> None:
    for i in range(width - 1, -1, -1):
        out[:, col + i] = 48 + values % 10
        values = values // 10


def timestamp_matrix(us: np.ndarray) -> np.ndarray:
    """``(n, 28)`` uint8 rows ``YYYY-MM-DD-hh:mm:ss.mmm.uuu `` for microseconds since 1970."""
    days = us // 86_400_000_000
    day64 = days.astype("datetime64[D]")
    month64 = day64.astype("datetime64[M]")
    year = month64.astype("datetime64[Y]").astype(np.int64) + 1970
    month = month64.astype(np.int64) % 12 + 1
    mday = (day64 - month64).astype(np.int64) + 1
    rem = us - days * 86_400_000_000
    out = np.empty((len(us), TS_WIDTH), dtype=np.uint8)
    out[:] = np.frombuffer(b"0000-00-00-00:00:00.000.000 ", dtype=np.uint8)
    _put(out, 0, year, 4)
    _put(out, 5, month, 2)
    _put(out, 8, mday, 2)
    _put(out, 11, rem // 3_600_000_000, 2)
    _put(out, 14, rem // 60_000_000 % 60, 2)
    _put(out, 17, rem // 1_000_000 % 60, 2)
    _put(out, 20, rem // 1000 % 1000, 3)
    _put(out, 24, rem % 1000, 3)
    return out


def _string_array(matrix: np.ndarray) -> pa.Array:
    """Fixed-width uint8 rows as an Arrow string array, without copying the text."""
    n, width = matrix.shape
    offsets = np.arange(0, (n + 1) * width, width, dtype=np.int32)
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(matrix.tobytes()))


def file_stamp(us: int) -> str:
    """CANN file-name time ``YYYYMMDDhhmmssmmm`` (formats.md §4)."""
    moment = EPOCH + timedelta(microseconds=int(us))
    return moment.strftime("%Y%m%d%H%M%S") + f"{moment.microsecond // 1000:03d}"


# ---------------------------------------------------------------------------------------------
# Streams: one process's records into one rotating series of files.

@dataclass
class Stream:
    """A rotating series of files ``<directory>/<head><YYYYMMDDhhmmssmmm>.log``."""

    root: Path
    directory: str  # relative to root
    head: str
    kind: str
    table: KindTable
    start_us: int
    tick_us: tuple[int, int]  # clock advance per record, [low, high)


class _Rotator:
    """Writes byte slices, starting a new file when the current one would pass ``rotate``."""

    def __init__(self, stream: Stream, rotate: int) -> None:
        self.stream = stream
        self.rotate = rotate
        self.handle = None
        self.size = 0
        self.last_us = -(10**18)
        self.stats: list[FileStat] = []
        self._lines = 0
        self._records = 0
        (stream.root / stream.directory).mkdir(parents=True, exist_ok=True)

    def _open(self, first_us: int) -> None:
        self.close()
        us = max(first_us, self.last_us + 1000)  # unique names even for tiny rotate sizes
        self.last_us = us
        self.name = f"{self.stream.directory}/{self.stream.head}{file_stamp(us)}.log"
        self.handle = open(self.stream.root / self.name, "wb")  # noqa: SIM115 - closed in close()
        self.size = self._lines = self._records = 0

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.stats.append(FileStat(self.name, self.stream.kind, self.size, self._lines,
                                       self._records))
            self.handle = None

    def write(self, data: memoryview, ends: np.ndarray, lines: np.ndarray, us: np.ndarray) -> None:
        """Write records ``data[ends[i-1]:ends[i]]``, rotating between records."""
        i, n, base = 0, len(ends), 0
        while i < n:
            if self.handle is None or self.size >= self.rotate:
                self._open(int(us[i]))
            room = self.rotate - self.size
            j = int(np.searchsorted(ends, base + room, side="right"))
            if j <= i:
                if self.size > 0:
                    self._open(int(us[i]))
                    continue
                j = i + 1  # one record larger than the rotate size: write it alone
            stop = int(ends[j - 1])
            self.handle.write(data[base:stop])
            self.size += stop - base
            self._lines += int(lines[i:j].sum())
            self._records += j - i
            base, i = stop, j


def write_stream(stream: Stream, target: int, cfg: Config,
                 rng: np.random.Generator) -> list[FileStat]:
    """Generate about ``target`` bytes of records for ``stream``."""
    table = stream.table
    rotator = _Rotator(stream, cfg.rotate)
    written, clock, n = 0, stream.start_us, cfg.batch_lines
    while written < target:
        kind = np.searchsorted(table.cum_weights, rng.random(n), side="right")
        kind = np.minimum(kind, len(table.body_count) - 1)
        body = table.body_start[kind] + rng.integers(0, 1 << 30, n) % table.body_count[kind]
        variant = np.zeros(n, dtype=np.int64)
        roll = rng.random(n)
        variant[roll < ANOMALY_RATE] = 1
        variant[(roll >= ANOMALY_RATE) & (roll < 2 * ANOMALY_RATE)] = 2
        variant[kind == table.long_kind] = 0
        us = clock + np.cumsum(rng.integers(stream.tick_us[0], stream.tick_us[1], n))
        clock = int(us[-1])
        stamps = timestamp_matrix(us)
        stamps[rng.random(n) < ANOMALY_RATE, 10] = ord(" ")
        joined = pc.binary_join_element_wise(
            table.prefixes.take(kind * 3 + variant), _string_array(stamps),
            table.bodies.take(body), "",
        )
        offsets = np.frombuffer(joined.buffers()[1], dtype=np.int32)[: n + 1]
        ends = offsets[1:].astype(np.int64)
        if written + int(ends[-1]) > target:
            keep = int(np.searchsorted(ends, target - written, side="left")) + 1
            ends, us, body = ends[:keep], us[:keep], body[:keep]
        data = memoryview(joined.buffers()[2])
        rotator.write(data, ends, table.body_lines[body], us)
        written += int(ends[-1])
    rotator.close()
    return rotator.stats


def write_stdout(root: Path, rel: str, target: int, rank: int, pid: int, start_us: int,
                 error_density: float, rnd: random.Random, quiet: bool = False) -> FileStat:
    """The rank's job stdout: progress lines, torch_npu warnings, error blocks (formats.md §3);
    with ``quiet``, progress lines only."""
    lines: list[str] = []
    size = records = 0
    clock = start_us
    step = 0
    while size < target:
        clock += rnd.randrange(200_000, 1_500_000)
        moment = EPOCH + timedelta(microseconds=clock)
        plog_ts = moment.strftime("%Y-%m-%d-%H:%M:%S.") + (
            f"{moment.microsecond // 1000:03d}.{moment.microsecond % 1000:03d}")
        glog_ts = moment.strftime("%m%d %H:%M:%S.") + (
            f"{moment.microsecond:06d}{rnd.randrange(1000):03d}")
        iso_ts = moment.strftime("%Y-%m-%d %H:%M:%S")
        if quiet:
            kind = "progress"
            step += 1
        elif rnd.random() < error_density:
            kind = "error"
        else:
            kind = rnd.choices(tpl.STDOUT_KINDS, tpl.STDOUT_WEIGHTS)[0]
            step += kind == "progress"
        record = tpl.stdout_record(rnd, kind, rank, pid, step, (plog_ts, glog_ts, iso_ts))
        for line in record:
            lines.append(line)
            size += len(line.encode()) + 1
            records += not line[0].isspace()
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(lines) + "\n"
    path.write_text(text, encoding="utf-8")
    return FileStat(rel, "stdout", len(text.encode()), len(lines), records)


# ---------------------------------------------------------------------------------------------
# Per-rank tree.

def _rank_dirs(cfg: Config, rank: int, job: str) -> tuple[str, str]:
    """(process_log directory, stdout file) of a rank, relative to the tree root."""
    if cfg.layout == "modelarts":
        base = f"modelarts-job-{job}"
        return (f"{base}/ascend/process_log/rank_{rank}",
                f"{base}/modelarts-job-{job}-proc-rank-{rank}-device-{rank % 8}.txt")
    host = rank // cfg.ranks_per_host
    return f"worker-{host}/process_log", f"worker-{host}/job/train_rank{rank}.log"


def device_of(cfg: Config, rank: int) -> int:
    return rank % cfg.ranks_per_host if cfg.ranks_per_host > 1 else rank % 8


def generate_rank(cfg: Config, rank: int) -> list[FileStat]:
    """Write one rank's files; deterministic in (seed, rank, sizes)."""
    rnd = random.Random(f"plogscan-bench/{cfg.seed}/{rank}")
    seeds = np.random.SeedSequence([cfg.seed, rank]).spawn(3)
    share = cfg.size // cfg.ranks + (1 if rank < cfg.size % cfg.ranks else 0)
    stdout_bytes = max(1, share // 100)
    run_bytes = share // 10
    device_bytes = share // 5
    debug_bytes = share - stdout_bytes - run_bytes - device_bytes
    job = f"{random.Random(f'job/{cfg.seed}').randrange(16**8):08x}"
    plog_dir, stdout_rel = _rank_dirs(cfg, rank, job)
    dev = device_of(cfg, rank)
    pid = rnd.randrange(10_000, 4_000_000)
    tids = [pid, *sorted(pid + rnd.randrange(1, 5000) for _ in range(7))]
    start = int((datetime(2025, 3, 14, 8, 0) - EPOCH).total_seconds() * 1e6)
    start += rank * 1_373 + cfg.seed % 1000 * 86_400_000_000 // 1000
    job_start = start - rank * 1_373  # the same moment on every rank (before clock skew)
    skew = 0
    if cfg.skew_host >= 0 and rank // cfg.ranks_per_host == cfg.skew_host:
        skew = round(cfg.skew_seconds * 1e6)
        start += skew
    host = [Proc(pid, "python3", tids, tpl.HOST_MODULES)]
    run = [Proc(pid, "python3", tids, tpl.RUN_MODULES)]
    device = []
    for pname, modules in tpl.DEVICE_PROCS:
        dpid = rnd.randrange(1000, 60_000)
        device.append(Proc(dpid, pname, [dpid, dpid + rnd.randrange(1, 900)],
                           {m: tpl.DEVICE_MODULES[m] for m in modules}))
    quiet = cfg.inject
    debug_levels = _level_weights(cfg.debug_share, cfg.error_density, run_log=False,
                                  quiet=quiet)
    run_levels = _level_weights(cfg.debug_share, cfg.error_density, run_log=True)
    streams = [
        (Stream(cfg.out, f"{plog_dir}/debug/plog", f"plog-{pid}_", "plog-debug",
                build_kinds(rnd, host, debug_levels, rank, cfg.ranks, dev, 2e-3, quiet,
                            cfg.reuse_share), start, (1, 120)),
         debug_bytes),
        (Stream(cfg.out, f"{plog_dir}/run/plog", f"plog-{pid}_", "plog-run",
                build_kinds(rnd, run, run_levels, rank, cfg.ranks, dev, 0.0, quiet),
                start - 9_876_000, (5, 1500)),
         run_bytes),
        (Stream(cfg.out, f"{plog_dir}/debug/device-{dev}", f"device-{pid}_", "device-app",
                build_kinds(rnd, device, debug_levels, rank, cfg.ranks, dev, 0.0, quiet),
                start + 4_321_000, (2, 400)),
         device_bytes),
    ]
    stats: list[FileStat] = []
    for (stream, target), seed in zip(streams, seeds, strict=True):
        stats += write_stream(stream, target, cfg, np.random.default_rng(seed))
    if cfg.inject:
        inject.root_cause(cfg, rank, pid, dev, job_start, skew, stats, rnd)
    stats.append(write_stdout(cfg.out, stdout_rel, stdout_bytes, rank, pid, start,
                              cfg.error_density, rnd, quiet))
    return stats


def generate(cfg: Config, jobs: int | None = None) -> list[FileStat]:
    """Write the whole tree under ``cfg.out`` and return per-file stats, sorted by path.

    ``jobs`` ranks are written in parallel (default: one per CPU); output does not depend on it.
    """
    if cfg.ranks < 1:
        raise ValueError("ranks must be at least 1")
    if not 0.0 <= cfg.debug_share <= 1.0 or not 0.0 <= cfg.error_density <= 1.0:
        raise ValueError("debug-share and error-density must be between 0 and 1")
    if cfg.debug_share + cfg.error_density > 1.0:
        raise ValueError("debug-share + error-density must not exceed 1")
    if cfg.layout not in ("worker", "modelarts"):
        raise ValueError(f"unknown layout {cfg.layout!r}: choose worker or modelarts")
    if cfg.ranks_per_host < 1:
        raise ValueError("ranks-per-host must be at least 1")
    cfg.out.mkdir(parents=True, exist_ok=True)
    if cfg.pids > 0:
        return [write_pid_storm(cfg)]
    jobs = max(1, min(jobs or os.cpu_count() or 1, cfg.ranks))
    if jobs == 1:
        parts = [generate_rank(cfg, rank) for rank in range(cfg.ranks)]
    else:
        with ProcessPoolExecutor(jobs) as pool:
            parts = list(pool.map(generate_rank, [cfg] * cfg.ranks, range(cfg.ranks)))
    return sorted((s for part in parts for s in part), key=lambda s: s.path)


def rotate_for_files(size: int, files: int) -> int:
    """The rotate size that gives about ``files`` files for a tree of ``size`` bytes (each
    rank's three plog streams rotate; its stdout is one file)."""
    return max(1, size // max(1, files))


def write_pid_storm(cfg: Config) -> FileStat:
    """One host plog of ``cfg.size`` bytes in which ``cfg.pids`` distinct processes write
    (a log aggregated from a whole node, or a fork storm): INFO lines, one in a thousand an
    ERROR, pids taken in turn."""
    rng = np.random.default_rng(cfg.seed)
    rel = "node-0/process_log/run/plog/plog-1_20250314080000000.log"
    path = cfg.out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    pid_text = pa.array([str(100_000 + i) for i in range(cfg.pids)], pa.string())
    written = lines = 0
    start = int((datetime(2025, 3, 14, 8, 0) - EPOCH).total_seconds() * 1e6)
    with open(path, "wb") as handle:
        while written < cfg.size:
            n = cfg.batch_lines * 4
            index = np.arange(lines, lines + n) % cfg.pids
            error = rng.random(n) < 0.001
            head = pc.if_else(pa.array(error), "[ERROR] GE(", "[INFO] GE(")
            us = start + np.arange(lines, lines + n) * 50
            body = pc.if_else(pa.array(error),
                              "[ge.cc:812]1 Run:failed, error code = 507011\n",
                              "[ge.cc:640]1 Run:done\n")
            joined = pc.binary_join_element_wise(
                head, pid_text.take(pa.array(index)), ",python3):",
                _string_array(timestamp_matrix(us)), body, "")
            ends = np.frombuffer(joined.buffers()[1], dtype=np.int32)[: n + 1]
            data = joined.buffers()[2].to_pybytes()[int(ends[0]):int(ends[-1])]
            if written + len(data) > cfg.size:
                cut = data.rfind(b"\n", 0, max(1, cfg.size - written)) + 1
                data = data[:cut] or data[: data.find(b"\n") + 1]
            handle.write(data)
            written += len(data)
            lines += data.count(b"\n")
    return FileStat(rel, "plog-run", written, lines, lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: generate a tree and print a one-line summary."""
    parser = argparse.ArgumentParser(
        prog="generate.py", description="Write a synthetic CANN log tree for the benchmark.")
    parser.add_argument("out", type=Path, help="output directory (created)")
    parser.add_argument("--size", default="1GiB", help="total bytes, e.g. 200MiB, 1GiB")
    parser.add_argument("--ranks", type=int, default=8)
    parser.add_argument("--debug-share", type=float, default=0.7,
                        help="share of debug-log records at DEBUG level")
    parser.add_argument("--error-density", type=float, default=0.001,
                        help="share of debug-log records at ERROR level")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rotate-size", default="20MiB", help="rotate files at this size")
    parser.add_argument("--layout", choices=("worker", "modelarts"), default="worker")
    parser.add_argument("--jobs", type=int, default=None, help="parallel ranks (default: nproc)")
    parser.add_argument("--reuse-share", type=float, default=0.0,
                        help="share of host debug records that are HCCL's 'Already have "
                        "context, skip create' line (0.02: a job that reuses every step)")
    parser.add_argument("--files", type=int, default=0,
                        help="about this many files in all (rotates at size/files; for "
                        "many small files)")
    parser.add_argument("--pids", type=int, default=0,
                        help="instead of a tree: one plog with this many distinct pids")
    parser.add_argument("--ranks-per-host", type=int, default=1,
                        help="ranks per worker-<h> directory (one host each)")
    parser.add_argument("--inject-root-cause", action="store_true",
                        help="add one cross-rank failure: an AI Core error on one rank, "
                             "Notify Wait timeouts on all the others")
    parser.add_argument("--root-rank", type=int, default=-1,
                        help="the failing rank (default: the middle one)")
    parser.add_argument("--skew-host", type=int, default=-1,
                        help="shift the clock of host worker-<h> by --skew-seconds")
    parser.add_argument("--skew-seconds", type=float, default=0.0)
    args = parser.parse_args(argv)
    try:
        cfg = Config(out=args.out, size=parse_size(args.size), ranks=args.ranks,
                     debug_share=args.debug_share, error_density=args.error_density,
                     seed=args.seed, layout=args.layout, reuse_share=args.reuse_share,
                     pids=args.pids,
                     rotate=(rotate_for_files(parse_size(args.size), args.files) if args.files
                             else parse_size(args.rotate_size)),
                     ranks_per_host=args.ranks_per_host, inject=args.inject_root_cause,
                     root_rank=args.root_rank, skew_host=args.skew_host,
                     skew_seconds=args.skew_seconds)
        started = time.perf_counter()
        stats = generate(cfg, args.jobs)
    except (ValueError, OSError) as err:
        print(f"generate.py: error: {err}", file=sys.stderr)
        return 2
    seconds = time.perf_counter() - started
    total = sum(s.bytes for s in stats)
    print(f"wrote {len(stats)} files, {total:,} bytes, {sum(s.lines for s in stats):,} lines "
          f"to {cfg.out} in {seconds:.2f} s ({total / seconds / 1e6:.1f} MB/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
