"""Benchmark the cross-rank stage on a generated tree with one injected root cause.

Generates (or reuses) a tree of ``--ranks`` ranks, ``--ranks-per-host`` per ``worker-<h>``
host, in which the middle rank hits an AI Core exception, every other rank reports a Notify
Wait timeout on its ring predecessor, and host ``--skew-host``'s clock is ``--skew-seconds``
off (``generate.py --inject-root-cause``). Then, each in its own child process:

1. ``python -m plogscan diagnose TREE --format json -o OUT --quiet``: the whole run, wall time
   and peak RSS (``/usr/bin/time -v`` when present);
2. the same diagnosis through ``plogscan.pipeline.run(..., timings=...)``, which reports the
   seconds of the cross-rank stage: ``crossrank-gather`` (the per-process summary, taken during
   the one pass) and ``crossrank`` (identities, clocks, attempts, suspects after it).

It checks the answer: verdict ``localized``, the injected rank first, every other rank a
victim, the skewed host's offset within 100 ms. Exit 0 when the answer is right, 1 otherwise.

    python bench/crossrank.py                         # 1,024 ranks, 256 MiB, deleted after
    python bench/crossrank.py --tree bench/out/xr --keep
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import generate as gen

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
GNU_TIME = "/usr/bin/time"
_STAGES = (
    "import json, sys\n"
    "from plogscan.pipeline import DiagnoseOptions, Timings, run\n"
    "timings = Timings()\n"
    "run(DiagnoseOptions(paths=(sys.argv[1],)), timings=timings)\n"
    "print(json.dumps(timings.seconds))\n"
)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def whole_run(tree: Path, out: Path) -> dict:
    cmd = [sys.executable, "-m", "plogscan", "diagnose", str(tree), "--format", "json", "-o",
           str(out), "--quiet"]
    timed = shutil.which(GNU_TIME) is not None
    if timed:
        cmd = [GNU_TIME, "-v", *cmd]
    started = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=_env())
    seconds = time.perf_counter() - started
    rss = None
    for line in done.stderr.splitlines():
        if "Maximum resident set size" in line:
            rss = int(line.rsplit(":", 1)[1]) * 1024 / 1e6
    return {"seconds": round(seconds, 2), "peak_rss_mb": round(rss, 1) if rss else None,
            "exit_code": done.returncode}


def stage_times(tree: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", _STAGES, str(tree)], capture_output=True,
                          text=True, env=_env(), check=True)
    timings = json.loads(done.stdout.strip().splitlines()[-1])
    return {k: round(v, 3) for k, v in timings.items()}


def check(report: dict, cfg: gen.Config) -> list[str]:
    """What is wrong with the answer (empty when it is right)."""
    root = cfg.root_rank if cfg.root_rank >= 0 else cfg.ranks // 2
    rc = report["root_cause"]
    problems = []
    if rc["verdict"] != "localized":
        problems.append(f"verdict {rc['verdict']}, not localized")
    if not rc["suspects"] or rc["suspects"][0]["rank"] != root:
        problems.append(f"first suspect is not rank {root}")
    if len(rc["victims"]) != cfg.ranks - 1:
        problems.append(f"{len(rc['victims'])} victims, not {cfg.ranks - 1}")
    if cfg.skew_host >= 0:
        host = f"worker-{cfg.skew_host}"
        offsets = {o["host"]: o["offset_us"] for o in report["clock"]["offsets"]}
        reference = report["clock"]["reference"]
        ref_skew = cfg.skew_seconds * 1e6 if reference == host else 0.0
        want = cfg.skew_seconds * 1e6 - ref_skew
        if abs(offsets.get(host, 0) - want) > 100_000:
            problems.append(f"{host} offset {offsets.get(host)} µs, not {want:.0f} ± 100000")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="crossrank.py", description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=None, help="reuse or create the tree here")
    parser.add_argument("--keep", action="store_true", help="keep a tree this run generated")
    parser.add_argument("--size", default="256MiB")
    parser.add_argument("--ranks", type=int, default=1024)
    parser.add_argument("--ranks-per-host", type=int, default=8)
    parser.add_argument("--skew-host", type=int, default=37)
    parser.add_argument("--skew-seconds", type=float, default=7.25)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, default=None, help="also save the numbers here")
    args = parser.parse_args(argv)
    where = args.tree or Path(tempfile.mkdtemp(prefix="xr-", dir=BENCH / "out"
                                                if (BENCH / "out").is_dir() else None))
    cfg = gen.Config(out=where, size=gen.parse_size(args.size), ranks=args.ranks,
                     seed=args.seed, ranks_per_host=args.ranks_per_host, inject=True,
                     skew_host=args.skew_host, skew_seconds=args.skew_seconds)
    generated = not (where / "worker-0").is_dir()
    if generated:
        started = time.perf_counter()
        gen.generate(cfg)
        print(f"generated {args.ranks} ranks ({args.size}) in "
              f"{time.perf_counter() - started:.1f} s under {where}", file=sys.stderr)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "report.json"
            whole = whole_run(where, out)
            report = json.loads(out.read_text())
        stages = stage_times(where)
    finally:
        if generated and not args.keep:
            shutil.rmtree(where, ignore_errors=True)
    stage = stages.get("crossrank-gather", 0.0) + stages.get("crossrank", 0.0)
    problems = check(report, cfg)
    numbers = {"ranks": args.ranks, "ranks_per_host": args.ranks_per_host, "size": args.size,
               "whole_run": whole, "stages": stages, "crossrank_stage_seconds": round(stage, 3),
               "answer_ok": not problems, "problems": problems}
    print(f"diagnose (whole run)     {whole['seconds']:8.2f} s   peak RSS "
          f"{whole['peak_rss_mb'] or '-'} MB   exit {whole['exit_code']}")
    print(f"cross-rank stage         {stage:8.3f} s   (summary during the pass "
          f"{stages.get('crossrank-gather', 0):.3f} s + conclusions "
          f"{stages.get('crossrank', 0):.3f} s, of {stages.get('total', 0):.2f} s in-process)")
    print("answer                   " + ("ok" if not problems else "; ".join(problems)))
    if args.json:
        args.json.write_text(json.dumps(numbers, indent=2, sort_keys=True) + "\n")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
