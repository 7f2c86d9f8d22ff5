"""Benchmark ``plogscan ingest`` against two baselines on one synthetic log tree, in one run.

1. ``grep -c ''`` over every file: the raw read speed of the machine (LC_ALL=C).
2. ``naive_parser.py``: a per-line Python ``re`` loop that builds a pandas DataFrame per file.
3. ``python -m plogscan ingest TREE -o OUT.parquet --quiet``.

Each tool runs in its own child process; wall time is measured around it and peak RSS comes from
``/usr/bin/time -v`` (or, without it, from ``getrusage(RUSAGE_CHILDREN)`` in a one-child wrapper).
Before timing, every file is read once so that all three tools read from the page cache.

    python bench/run.py --size 1GiB                    # generate, measure, delete the tree
    python bench/run.py --tree bench/out/t1 --keep     # reuse or create a tree there
    python bench/run.py --scale --scale-sizes 1GiB,4GiB  # peak RSS of ingest vs input size

MB are 10**6 bytes, for throughput and for RSS. See bench/README.md for the targets.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import generate as gen

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
WORKDIR = BENCH / "out"
GNU_TIME = "/usr/bin/time"
TOOLS = ("grep", "naive", "plogscan")
LABELS = {"grep": "grep -c ''", "naive": "naive re + DataFrame", "plogscan": "plogscan ingest"}
TARGET_MBPS = 150.0
TARGET_RSS_MB = 1000.0
TARGET_RSS_GROWTH = 1.10
_RUSAGE_WRAPPER = (
    "import resource, subprocess, sys\n"
    "code = subprocess.call(sys.argv[2:])\n"
    "with open(sys.argv[1], 'w') as out:\n"
    "    out.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
    "sys.exit(code)\n"
)
_UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@dataclass
class Tree:
    """The input: where it is, how big, and whether this run created it."""

    path: Path
    files: int
    bytes: int
    lines: int
    generated: bool
    generate_seconds: float | None = None
    params: dict = field(default_factory=dict)


@dataclass
class Result:
    """One tool's measurement. ``status`` is ``ok``, ``failed`` or ``unavailable``."""

    tool: str
    status: str
    seconds: float | None = None
    peak_rss_mb: float | None = None
    mb_per_s: float | None = None
    lines_per_s: float | None = None
    time_vs_plogscan: float | None = None
    rows: int | None = None
    exit_code: int | None = None
    message: str = ""


# ---------------------------------------------------------------------------------------------
# Measuring one child process.

def measure(cmd: Sequence[str], probe: str, env: dict[str, str] | None = None,
            cwd: Path | None = None) -> tuple[float, float | None, subprocess.CompletedProcess]:
    """Run ``cmd``; return (wall seconds, peak RSS in MB or None, the completed process)."""
    with tempfile.TemporaryDirectory(prefix="plogscan-bench-") as tmp:
        report = Path(tmp) / "rss"
        if probe == "time":
            wrapped = [GNU_TIME, "-v", "-o", str(report), *cmd]
        else:
            wrapped = [sys.executable, "-c", _RUSAGE_WRAPPER, str(report), *cmd]
        started = time.perf_counter()
        proc = subprocess.run(wrapped, capture_output=True, text=True, errors="replace",
                              env=env, cwd=cwd, check=False)
        seconds = time.perf_counter() - started
        text = report.read_text() if report.exists() else ""
    if probe == "time":
        match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
        kib = int(match.group(1)) if match else None
    else:
        kib = int(text) if text.strip().isdigit() else None
    return seconds, (kib * 1024 / 1e6 if kib is not None else None), proc


def _tail(text: str, lines: int = 5) -> str:
    """Last lines of a child's stderr, with control characters made visible."""
    kept = [_UNPRINTABLE.sub("?", line) for line in text.strip().splitlines()[-lines:]]
    return "\n".join("    " + line[:300] for line in kept)


def _failed(tool: str, proc: subprocess.CompletedProcess, seconds: float) -> Result:
    return Result(tool, "failed", seconds=seconds, exit_code=proc.returncode,
                  message=f"exit {proc.returncode}\n{_tail(proc.stderr)}")


def run_grep(tree: Tree, probe: str) -> Result:
    """Baseline 1: ``find TREE -type f -exec grep -c -H '' {} +``."""
    if shutil.which("grep") is None or shutil.which("find") is None:
        return Result("grep", "unavailable", message="grep or find not on PATH")
    env = {**os.environ, "LC_ALL": "C"}
    cmd = ["find", str(tree.path), "-type", "f", "-exec", "grep", "-c", "-H", "", "{}", "+"]
    seconds, rss, proc = measure(cmd, probe, env=env)
    if proc.returncode != 0:
        return _failed("grep", proc, seconds)
    lines = sum(int(row.rsplit(":", 1)[1]) for row in proc.stdout.splitlines() if ":" in row)
    return Result("grep", "ok", seconds=seconds, peak_rss_mb=rss, rows=lines, exit_code=0)


def run_naive(tree: Tree, probe: str) -> Result:
    """Baseline 2: ``naive_parser.py TREE``."""
    cmd = [sys.executable, str(BENCH / "naive_parser.py"), str(tree.path)]
    seconds, rss, proc = measure(cmd, probe)
    if proc.returncode != 0:
        return _failed("naive", proc, seconds)
    rows = json.loads(proc.stdout.strip().splitlines()[-1])["rows"]
    return Result("naive", "ok", seconds=seconds, peak_rss_mb=rss, rows=rows, exit_code=0)


def _plogscan_env() -> dict[str, str]:
    """Run the checkout's plogscan, installed or not."""
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": str(REPO) + (os.pathsep + path if path else "")}


def compile_checkout() -> None:
    """Compile the checkout's bytecode before anything is timed, as ``pip install`` does for
    an installed plogscan: where ``PYTHONDONTWRITEBYTECODE`` is set (or the checkout is
    read-only) every timed run would otherwise compile plogscan's source again, about 0.1 s a
    run on the machine of ``results.md``."""
    compileall.compile_dir(REPO / "plogscan", quiet=1)


def plogscan_available() -> str | None:
    """None when ``python -m plogscan ingest`` exists, else why not."""
    proc = subprocess.run([sys.executable, "-m", "plogscan", "ingest", "--help"],
                          capture_output=True, text=True, errors="replace",
                          env=_plogscan_env(), cwd=REPO, check=False)
    if proc.returncode == 0:
        return None
    return (f"`python -m plogscan ingest --help` exited {proc.returncode}; "
            f"the ingest command is not available yet\n{_tail(proc.stderr or proc.stdout)}")


def run_plogscan(tree: Tree, probe: str, workdir: Path) -> Result:
    """The tool under test: ``python -m plogscan ingest TREE -o OUT.parquet --quiet``."""
    missing = plogscan_available()
    if missing:
        return Result("plogscan", "unavailable", message=missing)
    workdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ingest-", dir=workdir) as tmp:
        out = Path(tmp) / "events.parquet"
        cmd = [sys.executable, "-m", "plogscan", "ingest", str(tree.path), "-o", str(out),
               "--quiet"]
        seconds, rss, proc = measure(cmd, probe, env=_plogscan_env(), cwd=REPO)
        if proc.returncode != 0:
            return _failed("plogscan", proc, seconds)
        rows = None
        if out.exists():
            import pyarrow.parquet as pq

            rows = pq.read_metadata(out).num_rows
    return Result("plogscan", "ok", seconds=seconds, peak_rss_mb=rss, rows=rows, exit_code=0)


# ---------------------------------------------------------------------------------------------
# The tree.

def scan_tree(path: Path) -> tuple[int, int, int]:
    """(files, bytes, lines) of a tree, reading every byte: this also warms the page cache.

    Lines are counted as ``grep -c ''`` does: a last line without a newline counts.
    """
    files = size = lines = 0
    for parent, _dirs, names in os.walk(path):
        for name in names:
            last = b"\n"
            with open(os.path.join(parent, name), "rb") as handle:
                while chunk := handle.read(1 << 23):
                    size += len(chunk)
                    lines += chunk.count(b"\n")
                    last = chunk[-1:]
            lines += last != b"\n"
            files += 1
    return files, size, lines


def prepare_tree(args: argparse.Namespace, size: int, where: Path | None) -> Tree:
    """Use the tree at ``where`` if it holds files, else generate one (there or in a temp dir)."""
    if where is not None and where.is_dir() and any(where.iterdir()):
        files, nbytes, lines = scan_tree(where)
        return Tree(where, files, nbytes, lines, generated=False)
    WORKDIR.mkdir(parents=True, exist_ok=True)
    path = where or Path(tempfile.mkdtemp(prefix=f"tree-{size}-", dir=WORKDIR))
    cfg = gen.Config(out=path, size=size, ranks=args.ranks, debug_share=args.debug_share,
                     error_density=args.error_density, seed=args.seed)
    print(f"generating {size:,} bytes into {path} ...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    try:
        gen.generate(cfg)
    except BaseException:
        if where is None:
            shutil.rmtree(path, ignore_errors=True)
        raise
    seconds = time.perf_counter() - started
    files, nbytes, lines = scan_tree(path)
    params = {"size": size, "ranks": args.ranks, "debug_share": args.debug_share,
              "error_density": args.error_density, "seed": args.seed}
    return Tree(path, files, nbytes, lines, generated=True, generate_seconds=seconds,
                params=params)


def release_tree(tree: Tree, keep: bool) -> None:
    """Delete a tree this run generated, unless asked to keep it."""
    if tree.generated and not keep:
        shutil.rmtree(tree.path, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Report.

def machine_facts() -> dict[str, str]:
    """Facts that explain the numbers: CPUs, memory, versions."""
    import numpy
    import pandas
    import pyarrow

    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem_kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f"{mem_kib * 1024 / 1e9:.1f} GB"
    except (OSError, ValueError, IndexError):
        memory = "unknown"
    try:
        nproc = len(os.sched_getaffinity(0))
    except AttributeError:
        nproc = os.cpu_count() or 0
    sys.path.insert(0, str(REPO))
    try:
        from plogscan import __version__ as plogscan_version
    except ImportError:
        plogscan_version = "not importable"
    finally:
        sys.path.remove(str(REPO))
    return {
        "platform": platform.platform(), "cpu": cpu or platform.machine(), "nproc": str(nproc),
        "memory": memory, "python": platform.python_version(), "pyarrow": pyarrow.__version__,
        "pandas": pandas.__version__, "numpy": numpy.__version__, "plogscan": plogscan_version,
        "rss_probe": "/usr/bin/time -v" if Path(GNU_TIME).exists() else "getrusage",
    }


def _num(value: float | None, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def print_header(facts: dict[str, str]) -> None:
    print("plogscan benchmark")
    print(f"  machine   : {facts['platform']}, {facts['cpu']}")
    print(f"  cpus      : nproc {facts['nproc']}, memory {facts['memory']}")
    print(f"  versions  : python {facts['python']}, pyarrow {facts['pyarrow']}, "
          f"pandas {facts['pandas']}, numpy {facts['numpy']}, plogscan {facts['plogscan']}")
    print(f"  rss probe : {facts['rss_probe']} (peak RSS of each tool's own process tree)")


def print_tree(tree: Tree) -> None:
    print(f"  tree      : {tree.path}")
    print(f"              {tree.files:,} files, {tree.bytes:,} bytes "
          f"({tree.bytes / 2**30:.2f} GiB), {tree.lines:,} lines")
    if tree.generated:
        p = tree.params
        print(f"  generated : {tree.generate_seconds:.1f} s "
              f"({tree.bytes / tree.generate_seconds / 1e6:.0f} MB/s); ranks {p['ranks']}, "
              f"debug-share {p['debug_share']}, error-density {p['error_density']}, "
              f"seed {p['seed']}")
    else:
        print("  generated : no (existing tree, left as it is)")


def print_results(results: list[Result]) -> None:
    print()
    print(f"{'tool':<22} {'seconds':>9} {'MB/s':>9} {'lines/s':>12} {'peak RSS MB':>12} "
          f"{'time vs plogscan':>17}")
    print("-" * 86)
    for r in results:
        if r.status != "ok":
            print(f"{LABELS[r.tool]:<22} {r.status.upper():>9}")
            continue
        ratio = "-" if r.time_vs_plogscan is None else f"{r.time_vs_plogscan:.2f}x"
        print(f"{LABELS[r.tool]:<22} {r.seconds:>9.2f} {_num(r.mb_per_s, '.1f'):>9} "
              f"{_num(r.lines_per_s, ',.0f'):>12} {_num(r.peak_rss_mb, '.1f'):>12} {ratio:>17}")
    print("-" * 86)
    print("time vs plogscan = tool seconds / plogscan seconds (above 1: slower than plogscan).")
    print("seconds include interpreter start-up; all tools read the same warm page cache.")
    counts = [f"{LABELS[r.tool]} {r.rows:,}" for r in results if r.status == "ok" and r.rows]
    if counts:
        print("output rows (grep: lines; others: records): " + "; ".join(counts))
    for r in results:
        if r.status != "ok":
            print(f"\n{LABELS[r.tool]}: {r.status}: {r.message}")


def check_targets(results: list[Result]) -> list[dict]:
    """The issue's targets for ingest, each with its measured value and verdict."""
    ingest = next((r for r in results if r.tool == "plogscan" and r.status == "ok"), None)
    if ingest is None:
        return []
    return [
        {"target": f"plogscan ingest >= {TARGET_MBPS:.0f} MB/s", "value": ingest.mb_per_s,
         "unit": "MB/s", "pass": ingest.mb_per_s >= TARGET_MBPS},
        {"target": f"plogscan peak RSS <= {TARGET_RSS_MB:.0f} MB", "value": ingest.peak_rss_mb,
         "unit": "MB",
         "pass": ingest.peak_rss_mb is not None and ingest.peak_rss_mb <= TARGET_RSS_MB},
    ]


def print_targets(targets: list[dict]) -> None:
    if not targets:
        return
    print("\ntargets (issue 2, point 11):")
    for t in targets:
        print(f"  {t['target']:<34} {_num(t['value'], '.1f'):>9} {t['unit']:<5} "
              f"{'PASS' if t['pass'] else 'FAIL'}")


# ---------------------------------------------------------------------------------------------
# Modes.

def compare(args: argparse.Namespace, facts: dict[str, str]) -> dict:
    """The three tools on one tree."""
    tools = [t for t in args.tools.split(",") if t]
    tree = prepare_tree(args, gen.parse_size(args.size), args.tree)
    try:
        print_header(facts)
        print_tree(tree)
        sys.stdout.flush()
        results = []
        for tool in TOOLS:
            if tool not in tools:
                continue
            print(f"running {LABELS[tool]} ...", file=sys.stderr, flush=True)
            if tool == "grep":
                results.append(run_grep(tree, args.probe))
            elif tool == "naive":
                results.append(run_naive(tree, args.probe))
            else:
                results.append(run_plogscan(tree, args.probe, WORKDIR))
    finally:
        release_tree(tree, args.keep)
    base = next((r for r in results if r.tool == "plogscan" and r.status == "ok"), None)
    for r in results:
        if r.status == "ok":
            r.mb_per_s = tree.bytes / r.seconds / 1e6
            r.lines_per_s = tree.lines / r.seconds
            r.time_vs_plogscan = r.seconds / base.seconds if base else None
    print_results(results)
    targets = check_targets(results)
    print_targets(targets)
    return {"mode": "compare", "machine": facts, "tree": _tree_json(tree),
            "results": [asdict(r) for r in results], "targets": targets}


def scale(args: argparse.Namespace, facts: dict[str, str]) -> dict:
    """``plogscan ingest`` on trees of growing size: peak RSS must not grow with the input."""
    sizes = [gen.parse_size(s) for s in args.scale_sizes.split(",") if s.strip()]
    if len(sizes) < 2:
        raise ValueError("--scale-sizes needs at least two sizes, e.g. 1GiB,4GiB")
    print_header(facts)
    missing = plogscan_available()
    if missing:
        print(f"\nplogscan ingest: unavailable: {missing}")
        return {"mode": "scale", "machine": facts, "error": missing, "runs": []}
    runs = []
    for size in sizes:
        where = args.tree / f"tree-{size}" if args.tree else None
        tree = prepare_tree(args, size, where)
        try:
            print(f"running plogscan ingest on {tree.bytes:,} bytes ...", file=sys.stderr,
                  flush=True)
            result = run_plogscan(tree, args.probe, WORKDIR)
        finally:
            release_tree(tree, args.keep)
        if result.status == "ok":
            result.mb_per_s = tree.bytes / result.seconds / 1e6
            result.lines_per_s = tree.lines / result.seconds
        runs.append({"tree": _tree_json(tree), "result": asdict(result)})
    print()
    print(f"{'input bytes':>16} {'GiB':>6} {'files':>6} {'seconds':>9} {'MB/s':>8} "
          f"{'peak RSS MB':>12}  status")
    print("-" * 74)
    for run in runs:
        t, r = run["tree"], run["result"]
        print(f"{t['bytes']:>16,} {t['bytes'] / 2**30:>6.2f} {t['files']:>6} "
              f"{_num(r['seconds'], '.2f'):>9} {_num(r['mb_per_s'], '.1f'):>8} "
              f"{_num(r['peak_rss_mb'], '.1f'):>12}  {r['status']}")
    print("-" * 74)
    report: dict = {"mode": "scale", "machine": facts, "runs": runs}
    first, last = runs[0]["result"], runs[-1]["result"]
    if first["peak_rss_mb"] and last["peak_rss_mb"]:
        growth = last["peak_rss_mb"] / first["peak_rss_mb"]
        verdict = "PASS" if growth <= TARGET_RSS_GROWTH else "FAIL"
        print(f"RSS({runs[-1]['tree']['bytes'] / 2**30:.2f} GiB) / "
              f"RSS({runs[0]['tree']['bytes'] / 2**30:.2f} GiB) = {growth:.3f}  "
              f"(target <= {TARGET_RSS_GROWTH:.2f})  {verdict}")
        report["targets"] = [{"target": f"RSS growth <= {TARGET_RSS_GROWTH:.2f}",
                              "value": growth, "unit": "x", "pass": growth <= TARGET_RSS_GROWTH}]
    for run in runs:
        if run["result"]["status"] != "ok":
            print(f"\nplogscan ingest: {run['result']['status']}: {run['result']['message']}")
    return report


def _tree_json(tree: Tree) -> dict:
    data = asdict(tree)
    data["path"] = str(tree.path)
    return data


def main(argv: Sequence[str] | None = None) -> int:
    """Command line. Exit 0 when every requested tool ran, 1 when one failed (or, with
    ``--check``, missed a target), 2 on bad arguments."""
    parser = argparse.ArgumentParser(prog="run.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="1GiB", help="tree size to generate (default 1GiB)")
    parser.add_argument("--tree", type=Path, default=None,
                        help="use the tree in DIR; generate it there if DIR is missing or empty "
                             "(with --scale: a parent directory for one tree per size)")
    parser.add_argument("--keep", action="store_true", help="keep trees this run generated")
    parser.add_argument("--ranks", type=int, default=8)
    parser.add_argument("--debug-share", type=float, default=0.7)
    parser.add_argument("--error-density", type=float, default=0.001)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tools", default=",".join(TOOLS),
                        help="comma-separated subset of grep,naive,plogscan")
    parser.add_argument("--scale", action="store_true",
                        help="run plogscan ingest on --scale-sizes and compare peak RSS")
    parser.add_argument("--scale-sizes", default="1GiB,4GiB")
    parser.add_argument("--json", type=Path, default=None, help="also save the numbers here")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--probe", choices=("auto", "time", "rusage"), default="auto",
                        help="how to measure peak RSS (auto: /usr/bin/time -v when present)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.tools.split(",")) - set(TOOLS) - {""})
    if unknown:
        parser.error(f"unknown tool(s) {', '.join(unknown)}: choose from {', '.join(TOOLS)}")
    if args.probe == "auto":
        args.probe = "time" if Path(GNU_TIME).exists() else "rusage"
    compile_checkout()
    facts = machine_facts()
    try:
        report = scale(args, facts) if args.scale else compare(args, facts)
    except ValueError as err:
        print(f"run.py: error: {err}", file=sys.stderr)
        return 2
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    results = ([run["result"] for run in report.get("runs", [])] if args.scale
               else report["results"])
    failed = "error" in report or any(r["status"] != "ok" for r in results)
    missed = any(not t["pass"] for t in report.get("targets", []))
    return 1 if failed or (args.check and missed) else 0


if __name__ == "__main__":
    sys.exit(main())
