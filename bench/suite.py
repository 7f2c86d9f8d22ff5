"""The scale benchmark: every target cell of plogscan's speed and memory goals, in one run.

For each cell a tree is generated (``generate.py``) and read once to warm the page cache,
then each tool runs in its own child process (wall time around it, peak RSS from
``/usr/bin/time -v``):

* ``grep -c ''``: ``find TREE -type f -exec grep -c '' {} +``, the machine's read speed;
* ``keyword grep``: the keyword scan below, ``grep -rcE ... TREE``, output through a pipe (GNU
  grep stops early when it writes to /dev/null);
* ``naive``: ``naive_parser.py`` (a per-line Python ``re`` loop and a DataFrame per file);
* ``ingest``: ``plogscan ingest TREE -o OUT.parquet``;
* ``diagnose``: ``plogscan diagnose TREE --format json --no-cache``;
* ``ingest1`` and ``diagnose1``: the same with ``--workers 1``, against the default (one
  worker per core): how the parse grows with cores (run ``--repeat`` times, as ``ingest`` and
  ``diagnose`` are). Each run's CPU time (user and system, with its worker processes) gives
  its MB/s a core; with ``--workers 1`` beside the default, the run's serial seconds and its
  parallel part's MB/s a core (Amdahl's law from the two points), from which the time on a
  host of more cores is predicted.

The dense cells generate a tree where failures are dense (``--reuse-share 0.25
--error-density 0.09``: the flagship's reuse line in about one line in six, one line in ten an
ERROR or WARNING); the others use ``--reuse-share 0.06``.
* ``processes``: the same with ``--parallel processes`` (peak RSS of the main process only:
  ``time`` does not add the worker processes);
* ``first``: ``plogscan diagnose`` with an empty cache directory, as a first run goes by
  default (the cache is on unless turned off);
* ``cached``: ``plogscan diagnose`` again with that cache directory, timed (nothing changed:
  the whole earlier result is reused);
* ``touched``: then one file's modification time is set to now and ``diagnose`` runs again
  with that cache: that file is parsed again and every other file read from its own entry;
* ``dask``: ``plogscan diagnose TREE --scheduler ADDR --no-cache`` against a LocalCluster of
  two worker processes on loopback, started by this script (its workers' memory is theirs,
  not the client's).

A last cell times ``diagnose`` of a plog of one record: the fixed start every run pays,
beside ``python -c "import numpy, pyarrow, hyperscan"`` in turn with it (its target: at most
1.5 times that import; the compiled formats, rules and Hyperscan databases are kept in the
user's cache directory by the first run, as by any run of a user). It prints each cell and
the targets (met or missed, with the measured value, and for a missed one what meeting it
would take, told against that fixed start), and writes ``bench/results.md``. Timings live
there, never in tests.

    python bench/suite.py                      # every cell (about 20 minutes, 15 GB of disk)
    python bench/suite.py --cells 512m,files   # some of them
    python bench/suite.py --cells speed        # a group: the speed targets' cells (2g,
                                               # dense2g, floor); also dense, memory
    python bench/suite.py --quick --cells speed  # the same on small trees, a few minutes
    python bench/suite.py --quick              # small sizes, to try the script
    python bench/suite.py --repeat 1           # each tool once (faster, noisier)

Keyword grep, the import, ``ingest`` and ``diagnose`` run ``--repeat`` times (3 by default),
in turn after every tool has run once: their seconds are the median, their peak RSS the
highest.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from resource import RUSAGE_CHILDREN, getrusage
from typing import NamedTuple

import generate as gen
import run as single

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
KEYWORDS = (r"^\[(ERROR|WARNING|EVENT)\]|Already have context|aicore error|aivec error|"
            r"507[0-9]{3}|EI00[0-9]{2}|EE[0-9]{4}|EL[0-9]{4}|timeout|fusion kernel|Heartbeat")
REPEATED = ("keyword", "imports", "ingest", "diagnose")  # the tools the targets compare, run
# --repeat times
REUSE_SHARE = 0.06  # the flagship's reuse line on every step (about 4% of all records)
# Dense failures: the reuse line in about one line in six (a cached context reused on every
# step, HCCL at DEBUG), one line in ten an ERROR or WARNING (a job that fails loudly).
DENSE = {"reuse_share": 0.25, "error_density": 0.09}
GiB, MiB, MB = 1 << 30, 1 << 20, 10**6
SMALL_FILES = 27_500  # rotation for about 20,000 files (each holds one or two records)
# The floor cell's one record: an HCCL error as a host plog writes it (formats.md §1.2).
FLOOR_RECORD = (b"[ERROR] HCCL(4001,python3):2025-03-14-08:00:00.000.100 [hccl_comm.cc:88] "
                b"[4001]HcclAllReduce failed, return code 7\n")


@dataclass(frozen=True)
class Cell:
    """One tree and the tools measured on it."""

    name: str
    title: str
    size: int
    tools: tuple[str, ...]
    ranks: int = 8
    files: int = 0
    pids: int = 0
    under: str = ""  # directories the tree is generated below (a long path, for memory)
    reuse_share: float = REUSE_SHARE
    error_density: float = gen.Config.error_density


ONE_WORKER = ("ingest1", "diagnose1")  # against "ingest" and "diagnose": one worker a core
SPEED = ("grep", "keyword", "ingest", "diagnose", *ONE_WORKER)
ALL_TOOLS = ("grep", "keyword", "naive", "ingest", "diagnose", "processes", "first", "cached",
             "touched", "dask")
CELLS = (
    Cell("512m", "8 ranks, 512 MiB", 512 * MiB, ALL_TOOLS),
    Cell("2g", "8 ranks, 2 GiB", 2 * GiB, (*SPEED, "processes", "first", "cached", "touched",
                                           "dask")),
    Cell("dense512m", "8 ranks, 512 MiB, dense failures", 512 * MiB, SPEED, **DENSE),
    Cell("dense2g", "8 ranks, 2 GiB, dense failures", 2 * GiB, SPEED, **DENSE),
    Cell("1024r", "1,024 ranks, 256 MiB", 256 * MiB, ALL_TOOLS, ranks=1024),
    Cell("files", "20,000 small files", 3_300_000, ("grep", "keyword", "ingest", "diagnose",
                                                   "processes", "first", "cached", "touched"),
         files=27_500),
    Cell("onefile", "one file of the same bytes", 3_300_000, ("grep", "keyword", "ingest",
                                                              "diagnose")),
    Cell("100kfiles", "100,000 small files", 16_500_000, ("keyword", "diagnose"),
         files=137_500),
    Cell("pids", "1,000,000 pids in one file", 72 * MB, ("grep", "keyword", "ingest",
                                                         "diagnose"), pids=1_000_000),
    # Facts carry a file's path on every process's row: the bound must not depend on its length.
    Cell("pidslong", "1,000,000 pids in one file, 150 more characters of path", 72 * MB,
         ("keyword", "diagnose"), pids=1_000_000,
         under="/".join(["collected-from-the-cluster-node-logs"] * 4)),
    Cell("10g", "8 ranks, 10 GiB (memory flatness)", 10 * GiB, ("keyword", "ingest",
                                                                "diagnose")),
    # What every run pays before its input's size counts: the interpreter, the imports, the
    # line formats' samples, the rules, the report. The targets' gaps are told against it.
    Cell("floor", "one record (the fixed start)", 0, ("keyword", "imports", "diagnose")),
)
# Named subsets of the cells for --cells: a group runs in far less time than every cell.
GROUPS = {"speed": ("2g", "dense2g", "floor"), "dense": ("dense512m", "dense2g"),
          "memory": ("512m", "10g")}
QUICK = {"512m": 32 * MiB, "2g": 64 * MiB, "dense512m": 16 * MiB, "dense2g": 64 * MiB,
         "1024r": 16 * MiB, "files": 330_000,
         "onefile": 330_000, "100kfiles": 660_000, "pids": 8 * MB, "pidslong": 8 * MB,
         "10g": 128 * MiB, "floor": 0}


@dataclass
class Measured:
    tool: str
    seconds: float | None  # the median of the runs
    rss_mb: float | None  # the highest of the runs
    ok: bool
    note: str = ""
    runs: int = 1
    cpu: float | None = None  # user and system seconds of the run and its children, median

    def bytes_rate(self, nbytes: int) -> float:
        """MB/s of wall time over ``nbytes``."""
        return nbytes / (self.seconds or 1.0) / MB

    def core_rate(self, nbytes: int) -> float | None:
        """MB/s a core: ``nbytes`` over the CPU seconds of every process of the run."""
        return nbytes / self.cpu / MB if self.cpu else None


def combined(runs: list[Measured]) -> Measured:
    """Several runs of one tool as one figure: the median time and the highest peak; a
    failed run makes the figure that run's failure."""
    failed = next((m for m in runs if not m.ok), None)
    if failed is not None or len(runs) == 1:
        return failed or runs[0]
    cpu = [m.cpu for m in runs if m.cpu is not None]
    return Measured(runs[0].tool, statistics.median(m.seconds or 0.0 for m in runs),
                    max(m.rss_mb or 0.0 for m in runs), True, runs[0].note, len(runs),
                    statistics.median(cpu) if cpu else None)


@dataclass
class CellResult:
    cell: Cell
    files: int
    bytes: int
    lines: int
    results: dict[str, Measured] = field(default_factory=dict)
    runs: dict[str, list[Measured]] = field(default_factory=dict)  # every run, in turn
    size: int = 0  # the size the tree was generated for (``--quick`` makes it smaller)

    def ratio(self, tool: str, baseline: str) -> float | None:
        """``tool``'s seconds over ``baseline``'s: the median of the ratios of the runs made
        in the same round (each pair close in time, so the machine's drift cancels); the
        ratio of the figures when either ran once. None unless both ran well."""
        a, b = self.results.get(tool), self.results.get(baseline)
        if not (a and b and a.ok and b.ok and a.seconds and b.seconds):
            return None
        pairs = list(zip(self.runs.get(tool, []), self.runs.get(baseline, []), strict=False))
        if len(pairs) < 2:
            return a.seconds / b.seconds
        return statistics.median((x.seconds or 0.0) / (y.seconds or 1.0) for x, y in pairs)


def _env(cache: Path | None = None) -> dict[str, str]:
    env = single._plogscan_env()
    env["PLOGSCAN_CACHE"] = str(cache) if cache else "off"
    return env


def _plogscan(*args: str) -> list[str]:
    return [sys.executable, "-m", "plogscan", *args]


def _measure(tool: str, cmd: list[str], env: dict[str, str] | None = None,
             ok_codes: tuple[int, ...] = (0,), shell: bool = False) -> Measured:
    if shell:
        cmd = ["sh", "-c", cmd[0]]
    before = getrusage(RUSAGE_CHILDREN)
    seconds, rss, proc = single.measure(cmd, "time" if Path(single.GNU_TIME).exists()
                                        else "rusage", env=env, cwd=REPO)
    after = getrusage(RUSAGE_CHILDREN)  # every process of the run was waited for: counted
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if proc.returncode not in ok_codes:
        return Measured(tool, seconds, rss, False, f"exit {proc.returncode}: "
                        f"{single._tail(proc.stderr, 2).strip()}", cpu=cpu)
    return Measured(tool, seconds, rss, True, cpu=cpu)


def run_tool(tool: str, tree: Path, work: Path, scheduler: str | None) -> Measured:
    quoted = str(tree).replace("'", "'\\''")
    if tool == "grep":
        return _measure(tool, [f"LC_ALL=C find '{quoted}' -type f -exec grep -c '' {{}} + "
                               "| cat > /dev/null"], shell=True)
    if tool == "keyword":
        return _measure(tool, [f"grep -rcE '{KEYWORDS}' '{quoted}' | cat > /dev/null"],
                        shell=True)
    if tool == "imports":  # the fixed start's yardstick: the interpreter and the libraries
        return _measure(tool, [sys.executable, "-c", "import numpy, pyarrow, hyperscan"])
    if tool == "naive":
        return _measure(tool, [sys.executable, str(BENCH / "naive_parser.py"), str(tree)])
    one = ["--workers", "1"] if tool.endswith("1") else []
    if tool in ("ingest", "ingest1"):
        out = work / "events.parquet"
        measured = _measure(tool, _plogscan("ingest", str(tree), "-o", str(out), "--quiet",
                                            *one), env=_env())
        out.unlink(missing_ok=True)
        return measured
    report = ["--format", "json", "-o", str(work / f"{tool}.json"), "--quiet"]
    if tool in ("diagnose", "diagnose1"):
        return _measure(tool, _plogscan("diagnose", str(tree), *report, *one), env=_env(),
                        ok_codes=(0, 1))
    if tool == "processes":
        return _measure(tool, _plogscan("diagnose", str(tree), *report, "--parallel",
                                        "processes"), env=_env(), ok_codes=(0, 1))
    cache = work / "cache"
    if tool == "first":  # the default: the cache on, and empty; the next tool reuses it
        shutil.rmtree(cache, ignore_errors=True)
        return _measure(tool, _plogscan("diagnose", str(tree), *report), env=_env(cache),
                        ok_codes=(0, 1))
    if tool in ("cached", "touched"):  # the cache of the run before; left for the next
        if not cache.exists():
            first = subprocess.run(_plogscan("diagnose", str(tree), *report), env=_env(cache),
                                   cwd=REPO, capture_output=True, check=False)
            if first.returncode not in (0, 1):
                return Measured(tool, None, None, False, f"first run exit {first.returncode}")
        if tool == "touched":
            os.utime(min(p for p in tree.rglob("*") if p.is_file()))
        return _measure(tool, _plogscan("diagnose", str(tree), *report), env=_env(cache),
                        ok_codes=(0, 1))
    if tool == "dask":
        if scheduler is None:
            return Measured(tool, None, None, False, "dask.distributed not installed")
        measured = _measure(tool, _plogscan("diagnose", str(tree), *report, "--scheduler",
                                            scheduler), env=_env(), ok_codes=(0, 1))
        measured.cpu = None  # the cluster's workers are no children of the run: not counted
        return measured
    raise ValueError(tool)


def _same_findings(work: Path) -> dict[str, bool]:
    """Whether the cached and Dask reports equal the plain one (findings and inputs)."""
    base = work / "diagnose.json"
    if not base.exists():
        return {}
    reference = json.loads(base.read_text())
    out = {}
    for tool in ("diagnose1", "processes", "first", "cached", "touched", "dask"):
        path = work / f"{tool}.json"
        if path.exists():
            other = json.loads(path.read_text())
            out[tool] = (other["findings"] == reference["findings"]
                         and other["inputs"] == reference["inputs"])
    return out


@contextlib.contextmanager
def local_cluster(wanted: bool) -> Iterator[str | None]:
    if not wanted:
        yield None
        return
    try:
        from distributed import LocalCluster
    except ImportError:
        yield None
        return
    environment = dict(os.environ)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None, silence_logs=40) as cluster:
        # Starting the cluster sets Dask's worker settings in this process's environment
        # (among them MALLOC_TRIM_THRESHOLD_=65536, which alone makes `plogscan ingest` of
        # 512 MiB 40% slower). Every run the suite measures inherits this environment, so it
        # is put back as it was; the workers have started with theirs.
        os.environ.clear()
        os.environ.update(environment)
        yield cluster.scheduler_address


def generate_tree(cell: Cell, size: int, where: Path) -> Path:
    if cell.name == "floor":
        plogs = where / "worker-0" / "process_log" / "debug" / "plog"
        plogs.mkdir(parents=True)
        (plogs / "plog-4001_20250314080000000.log").write_bytes(FLOOR_RECORD)
        return where
    files = SMALL_FILES if cell.name == "onefile" else cell.files
    rotate = gen.rotate_for_files(size, files) if files else gen.ROTATE_BYTES
    cfg = gen.Config(out=where, size=size, ranks=cell.ranks, seed=1, rotate=rotate,
                     reuse_share=cell.reuse_share, error_density=cell.error_density,
                     pids=cell.pids)
    gen.generate(cfg)
    if cell.name == "onefile":  # the small-files tree's bytes, joined into one plog
        parts = sorted(p for p in where.rglob("*") if p.is_file())
        target = where / "worker-0" / "process_log" / "debug" / "plog"
        target.mkdir(parents=True, exist_ok=True)
        joined = where / "one.tmp"
        with open(joined, "wb") as out:
            for part in parts:
                data = part.read_bytes()
                out.write(data if data.endswith(b"\n") or not data else data + b"\n")
                part.unlink()
        for folder in sorted((p for p in where.rglob("*") if p.is_dir()), reverse=True):
            if not any(folder.iterdir()):
                folder.rmdir()
        target.mkdir(parents=True, exist_ok=True)
        joined.rename(target / "plog-1_20250314080000000.log")
    return where


def measure_cell(cell: Cell, size: int, tools: tuple[str, ...], scheduler: str | None,
                 repeat: int = 1) -> CellResult:
    """Every tool once, in order; then the ``REPEATED`` tools again, in turn, until each
    has run ``repeat`` times (so a drift of the machine's speed reaches the tools a ratio
    compares alike)."""
    base = BENCH / "out"
    base.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"suite-{cell.name}-", dir=base) as tmp:
        tree = generate_tree(cell, size, Path(tmp) / cell.under / "tree")
        os.sync()  # the tree's bytes written out now, not while a tool is timed
        files, nbytes, lines = single.scan_tree(tree)
        result = CellResult(cell, files, nbytes, lines, size=size)
        work = Path(tmp) / "work"
        work.mkdir()
        runs: dict[str, list[Measured]] = {}
        again = [t for t in tools if t in REPEATED or t in ONE_WORKER]
        for round_ in range(repeat):
            for tool in tools if round_ == 0 else again:
                print(f"  {cell.name}: {tool} ...", file=sys.stderr, flush=True)
                runs.setdefault(tool, []).append(run_tool(tool, tree, work, scheduler))
        result.results = {tool: combined(measured) for tool, measured in runs.items()}
        result.runs = runs
        for tool, same in _same_findings(work).items():
            result.results[tool].note = ("same findings and accounting" if same
                                         else "DIFFERENT findings or accounting")
    return result


# ---------------------------------------------------------------------------------------------
# Targets and the results file.

class Target(NamedTuple):
    """One target as the suite measured it."""

    name: str
    measured: str
    met: bool
    takes: str = ""  # for a missed target: what meeting it would take, from the measurements


def targets(cells: dict[str, CellResult], cores: int | None = None) -> list[Target]:
    """Every target whose cells ran. A missed speed target says what meeting it would take,
    against the fixed start (``floor``: a ``diagnose`` of one record) when that cell ran.
    ``cores``: the workers of a default run (one per core of this machine)."""
    cores = cores or _cores()
    out: list[Target] = []

    def result(cell: str, tool: str) -> Measured | None:
        found = cells.get(cell)
        m = found.results.get(tool) if found else None
        return m if m and m.ok else None

    def sec(cell: str, tool: str) -> float | None:
        m = result(cell, tool)
        return m.seconds if m else None

    def rss(cell: str, tool: str) -> float | None:
        m = result(cell, tool)
        return m.rss_mb if m else None

    def rounds(cell: str, *tools: str) -> str:
        count = min(len(cells[cell].runs.get(t, [])) for t in tools)
        return f" (the median of {count} rounds' ratios)" if count > 1 else ""

    floor = sec("floor", "diagnose")
    for name in ("512m", "2g", "dense2g", "1024r", "files", "pids"):
        d, k = sec(name, "diagnose"), sec(name, "keyword")
        ratio = cells[name].ratio("diagnose", "keyword") if name in cells else None
        times = 4 if name in BIG else 3
        if d and k and ratio:
            out.append(Target(f"diagnose <= {times}x keyword grep ({cells[name].cell.title})",
                              f"{d:.2f} s vs {k:.2f} s: {ratio:.1f}x"
                              f"{rounds(name, 'diagnose', 'keyword')}", ratio <= times,
                              _budget(times * k, d, floor, cells[name].bytes)))
    for name, tool, rate in (*((n, "ingest", 150) for n in ("512m", "10g")),
                             *((n, t, r) for n in BIG for t, r in RATES)):
        s = sec(name, tool)
        if s:
            nbytes = cells[name].bytes
            out.append(Target(f"{tool} >= {rate} MB/s ({cells[name].cell.title})",
                              f"{nbytes / s / MB:.0f} MB/s ({s:.2f} s){_baselines(cells[name])}",
                              nbytes / s / MB >= rate,
                              _budget(nbytes / rate / MB, s, floor, nbytes, tool)))
    for name in BIG:
        for tool in ("ingest", "diagnose"):
            ratio = cells[name].ratio(f"{tool}1", tool) if name in cells else None
            one, many = sec(name, f"{tool}1"), sec(name, tool)
            if ratio and one and many and cores > 1:
                want = SCALING_EFFICIENCY * cores
                out.append(Target(
                    f"{tool} --workers {cores} (the default) >= {want:.1f}x --workers 1 "
                    f"({cells[name].cell.title})",
                    f"{one:.2f} s vs {many:.2f} s: {ratio:.2f}x"
                    f"{rounds(name, tool, f'{tool}1')}", ratio >= want,
                    _serial_budget(one, many, cores, want)))
    for name in ("512m", "2g", "dense512m", "dense2g", "10g", "100kfiles", "pids", "pidslong",
                 "1024r", "files"):
        for tool in ("diagnose", "ingest"):
            r = rss(name, tool)
            if r:
                out.append(Target(f"{tool} peak RSS <= 1 GB ({cells[name].cell.title})",
                                  f"{r:.0f} MB", r <= 1000))
    small, large = rss("512m", "diagnose"), rss("10g", "diagnose")
    if small and large:
        out.append(Target(f"diagnose peak RSS flat, 10 GiB / 512 MiB <= {FLATNESS}",
                          f"{large / small:.2f} ({large:.0f} MB vs {small:.0f} MB)",
                          large / small <= FLATNESS,
                          f"a peak of at most {FLATNESS * small:.0f} MB at 10 GiB, "
                          f"{large - FLATNESS * small:.0f} MB below this one"))
    many, one = sec("files", "diagnose"), sec("onefile", "diagnose")
    if many and one:
        files = cells["files"].files
        out.append(Target("20,000 small files within 2x one file of the same bytes (diagnose)",
                          f"{many:.2f} s vs {one:.2f} s = {many / one:.1f}x", many / one <= 2,
                          f"at most {one / files * 1e6:.0f} us a file more than one file's "
                          f"run, where diagnose spends {(many - one) / files * 1e6:.0f} us"))
    start, imports = sec("floor", "diagnose"), sec("floor", "imports")
    ratio = cells["floor"].ratio("diagnose", "imports") if "floor" in cells else None
    if start and imports and ratio:
        out.append(Target("fixed start <= 1.5x the import of numpy, pyarrow and hyperscan",
                          f"{start:.2f} s vs {imports:.2f} s: {ratio:.1f}x", ratio <= 1.5,
                          f"{1.5 * imports:.2f} s for a diagnose of one record, "
                          f"{start - 1.5 * imports:.2f} s less"))
    cached = sec("512m", "cached")
    if cached:
        out.append(Target("cached rerun of an unchanged 512 MiB tree <= 1.5 s",
                          f"{cached:.2f} s", cached <= 1.5))
    return [t._replace(takes="") if t.met else t for t in out]  # a met target needs none


BIG = ("2g", "dense2g")  # the trees of the throughput and scaling targets
RATES = (("ingest", 300), ("diagnose", 250))  # MB/s on them
SCALING_EFFICIENCY = 0.8  # of a perfect speed-up with the cores: 1.6x on two
FLATNESS = 1.15  # peak RSS at 10 GiB over 512 MiB


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _baselines(cell: CellResult) -> str:
    """The cell's keyword grep and ``grep -c ''``, for a rate to be read beside them."""
    shown = [f"{LABELS[t]} {m.bytes_rate(cell.bytes):.0f} MB/s" for t in ("keyword", "grep")
             if (m := cell.results.get(t)) and m.ok and m.seconds]
    return f"; {', '.join(shown)}" if shown else ""


def _budget(budget: float, seconds: float, floor: float | None, nbytes: int,
            tool: str = "diagnose") -> str:
    """What a ``budget`` of seconds leaves for the input's work past the fixed start, beside
    what ``tool`` took (``seconds``)."""
    if floor is None:
        return f"{budget:.2f} s in all"
    if budget <= floor:
        return (f"{budget:.2f} s in all, less than the fixed start alone ({floor:.2f} s: "
                "interpreter, imports, formats, rules, report)")
    need = nbytes / (budget - floor) / MB
    now = f"{nbytes / (seconds - floor) / MB:.0f} MB/s" if seconds > floor else "-"
    return (f"{budget:.2f} s in all: past the fixed start ({floor:.2f} s), {need:.0f} MB/s "
            f"of input, where {tool} does {now}")


def amdahl(one: float, many: float, cores: int) -> tuple[float, float] | None:
    """The serial seconds and the parallel part's one-core seconds of a run that took ``one``
    with one worker and ``many`` with ``cores`` (Amdahl's law through the two points); None
    when more workers were not faster."""
    if cores < 2 or many >= one:
        return None
    parallel = (one - many) * cores / (cores - 1)
    return one - parallel, parallel


def _serial_budget(one: float, many: float, cores: int, want: float) -> str:
    """What a speed-up of ``want`` with ``cores`` workers asks of the serial part."""
    allowed = (one / want - one / cores) / (1 - 1 / cores)
    split = amdahl(one, many, cores)
    now = (f"{split[0]:.2f} s serial now" if split
           else "now more workers are not faster")
    return (f"at most {allowed:.2f} s of the {one:.2f} s one worker takes serial (the main "
            f"process's share and the fixed start), the rest parallel: {now}")


def predicted(cell: CellResult, tool: str, cores: int, hosts: tuple[int, ...] = (8, 64)
              ) -> str:
    """The run's serial seconds, its parallel part's MB/s a core, and the time it predicts on
    hosts of more cores, from ``tool`` with one worker and with ``cores``; "" when either did
    not run."""
    one, many = cell.results.get(f"{tool}1"), cell.results.get(tool)
    if not (one and many and one.ok and many.ok and one.seconds and many.seconds):
        return ""
    split = amdahl(one.seconds, many.seconds, cores)
    if split is None:
        return (f"{tool}: {one.seconds:.2f} s with one worker, {many.seconds:.2f} s with "
                f"{cores}: no parallel part to predict from")
    serial, parallel = split
    guesses = ", ".join(f"{n} cores {serial + parallel / n:.2f} s "
                        f"({cell.bytes / (serial + parallel / n) / MB:.0f} MB/s)" for n in hosts)
    return (f"{tool}: {serial:.2f} s serial + {cell.bytes / parallel / MB:.0f} MB/s a core in "
            f"parallel ({parallel:.2f} s on one core); predicted: {guesses}")


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def render_markdown(cells: list[CellResult], facts: dict[str, str], quick: bool,
                    started: str, repeat: int = 1) -> str:
    lines = ["# plogscan scale benchmark: results", "",
             f"Written by `python bench/suite.py{' --quick' if quick else ''}"
             f"{f' --repeat {repeat}' if repeat != 1 else ''}` on {started} (UTC). Each run "
             "is the tool in its own process, on a warm page cache. "
             + (f"Keyword grep, the import, `ingest` and `diagnose` ran {repeat} times in "
                "turn: their seconds are the median of the runs, their peak RSS the highest, "
                "and a ratio of two of them the median of the ratios of the runs of one round; "
                "the other tools ran once. " if repeat > 1 else "Each figure is one run. ")
             + "The machine is shared, so compare rows of one cell, run at one time.", "",
             f"Machine: {facts['platform']}, {facts['cpu']}, nproc {facts['nproc']}, memory "
             f"{facts['memory']}; python {facts['python']}, pyarrow {facts['pyarrow']}, "
             f"plogscan {facts['plogscan']}; peak RSS from {facts['rss_probe']}.", ""]
    lines += ["## Targets", "",
              "A missed target says what meeting it would take, from the same run's figures; "
              "the fixed start is the median `diagnose` of the one-record cell.", "",
              "| target | measured | met | what meeting it would take |", "|---|---|---|---|"]
    cores = int(facts.get("nproc") or 0) or _cores()
    for t in targets({c.cell.name: c for c in cells}, cores):
        lines.append(f"| {t.name} | {t.measured} | {'met' if t.met else 'MISSED'} | "
                     f"{t.takes} |")
    scaling = [line for c in cells for tool in ("ingest", "diagnose")
               if (line := predicted(c, tool, cores))]
    if scaling:
        lines += ["", "## Scaling with cores", "",
                  f"From each tool with `--workers 1` and with the default ({cores} workers "
                  "here, one a core), by Amdahl's law: the serial seconds (the fixed start, "
                  "the main process's share) and the parallel part's MB/s a core, and the "
                  "time they predict on a host of more cores (the same per-core speed, the "
                  "inputs in the page cache).", ""]
        lines += [f"* {c.cell.title}: {line}" for c in cells for tool in ("ingest", "diagnose")
                  if (line := predicted(c, tool, cores))]
    used = [t for t in COMMANDS if any(t in c.results for c in cells)]
    lines += ["", "## Commands", "",
              "Each tool, run from the repository root with the checkout's plogscan "
              "(`python -m plogscan`), the cell's tree in place of TREE:", ""]
    lines += [f"* {LABELS[t]}: " + (COMMANDS[t] if t in NOT_COMMANDS else f"`{COMMANDS[t]}`")
              for t in used]
    lines += ["", "## Cells", ""]
    for c in cells:
        lines += [f"### {c.cell.title}", "",
                  f"{c.files:,} files, {c.bytes / MB:,.1f} MB, {c.lines:,} lines: "
                  f"`{generate_command(c.cell, c.size or c.cell.size)}`.",
                  "",
                  "| tool | seconds | MB/s | MB/s a core | peak RSS MB | vs keyword grep | "
                  "note |", "|---|---|---|---|---|---|---|"]
        for tool, m in c.results.items():
            ratio = c.ratio(tool, "keyword")
            sized = m.ok and c.bytes >= MB  # the one-record cell has no rate to speak of
            rate = m.bytes_rate(c.bytes) if sized and m.seconds else None
            core = m.core_rate(c.bytes) if sized else None
            lines.append(f"| {LABELS[tool]} | {_fmt(m.seconds if m.ok else None, '.2f')} | "
                         f"{_fmt(rate, '.0f')} | {_fmt(core, '.0f')} | "
                         f"{_fmt(m.rss_mb if m.ok else None, '.0f')} | "
                         f"{_fmt(ratio, '.1f')} | {m.note} |")
        lines.append("")
    return "\n".join(lines)


LABELS = {"grep": "`grep -c ''`", "keyword": "keyword `grep -rcE`", "naive": "naive parser",
          "imports": "`python -c 'import numpy, pyarrow, hyperscan'`",
          "ingest": "`plogscan ingest`", "diagnose": "`plogscan diagnose`",
          "ingest1": "`plogscan ingest --workers 1`",
          "diagnose1": "`plogscan diagnose --workers 1`",
          "processes": "`diagnose --parallel processes` (peak RSS: main process only)",
          "first": "`diagnose`, first run with the cache (the default)",
          "cached": "`diagnose`, cached rerun (nothing changed)",
          "touched": "`diagnose`, cached rerun, one file touched",
          "dask": "`diagnose --scheduler` (2 workers)"}


# What each tool runs (TREE: the cell's tree), for the results' reader to run again.
COMMANDS = {"grep": "LC_ALL=C find TREE -type f -exec grep -c '' {} + | cat > /dev/null",
            "keyword": f"grep -rcE '{KEYWORDS}' TREE | cat > /dev/null",
            "naive": "python bench/naive_parser.py TREE",
            "ingest": "plogscan ingest TREE -o OUT.parquet --quiet",
            "ingest1": "plogscan ingest TREE -o OUT.parquet --quiet --workers 1",
            "diagnose": "plogscan diagnose TREE --format json -o OUT.json --quiet --no-cache",
            "diagnose1": "plogscan diagnose TREE --format json -o OUT.json --quiet --no-cache "
                         "--workers 1",
            "imports": 'python -c "import numpy, pyarrow, hyperscan"',
            "processes": "plogscan diagnose TREE --format json -o OUT.json --quiet --no-cache "
                         "--parallel processes",
            "first": "plogscan diagnose TREE --format json -o OUT.json --quiet "
                     "--cache EMPTY_DIR",
            "cached": "the same as the first run, again, with its cache directory",
            "touched": "the same again after one file's modification time is set to now",
            "dask": "plogscan diagnose TREE --format json -o OUT.json --quiet --no-cache "
                    "--scheduler tcp://127.0.0.1:PORT"}
NOT_COMMANDS = ("cached", "touched")  # said in words


def generate_command(cell: Cell, size: int) -> str:
    """The ``generate.py`` command line of a cell's tree (the one-record and joined-file
    cells are made by this script from it)."""
    if cell.name == "floor":
        return "one plog of one record (FLOOR_RECORD in bench/suite.py)"
    files = SMALL_FILES if cell.name == "onefile" else cell.files
    parts = [f"python bench/generate.py TREE --size {size} --ranks {cell.ranks} --seed 1",
             f"--reuse-share {cell.reuse_share}"]
    if cell.error_density != gen.Config.error_density:
        parts.append(f"--error-density {cell.error_density}")
    if files:
        parts.append(f"--rotate-size {gen.rotate_for_files(size, files)}")
    if cell.pids:
        parts.append(f"--pids {cell.pids}")
    joined = " (then its files joined into one plog)" if cell.name == "onefile" else ""
    return " ".join(parts) + joined


def select_cells(text: str) -> list[Cell]:
    """The cells named in ``text`` (comma-separated cell or group names), in suite order."""
    named = {name for part in text.split(",") for name in GROUPS.get(part.strip(),
                                                                      (part.strip(),))}
    return [c for c in CELLS if c.name in named]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cells", default=",".join(c.name for c in CELLS),
                        help="comma-separated: " + ", ".join(c.name for c in CELLS)
                        + "; or a group: " + "; ".join(f"{g} ({', '.join(names)})"
                                                        for g, names in GROUPS.items()))
    parser.add_argument("--quick", action="store_true", help="small trees, to try the script")
    parser.add_argument("--output", type=Path, default=BENCH / "results.md")
    parser.add_argument("--json", type=Path, default=None, help="also save the numbers here")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of keyword grep, ingest and diagnose in each cell, in turn "
                             "(the median is shown; default 3)")
    args = parser.parse_args(argv)
    chosen = select_cells(args.cells)
    if not chosen:
        parser.error("no known cell in --cells")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    single.compile_checkout()
    facts = single.machine_facts()
    started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M")
    results = []
    with local_cluster(any("dask" in c.tools for c in chosen)) as scheduler:
        for cell in chosen:
            size = QUICK[cell.name] if args.quick else cell.size
            begun = time.perf_counter()
            results.append(measure_cell(cell, size, cell.tools, scheduler, args.repeat))
            print(f"{cell.title}: {time.perf_counter() - begun:.0f} s", file=sys.stderr)
    text = render_markdown(results, facts, args.quick, started, args.repeat)
    print(text)
    args.output.write_text(text + "\n", encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps([{"cell": r.cell.name, "files": r.files,
                                          "bytes": r.bytes, "results": {
                                              k: vars(v) for k, v in r.results.items()}}
                                         for r in results], indent=2))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
