"""The compiled chunk kernels (``native/cannheader.c``) and their Arrow, numpy and RE2 twins
give the same event table, record for record, and the same report.

Each side runs as its own ``plogscan`` process, the compiled one as installed and the other
with ``PLOGSCAN_NATIVE=0``, over every bundled sample, small generated trees (plain and dense
in failures) and files of hostile bytes. The install builds the C module: a missing module
is a failed test here, not a skipped one, since the comparison would then prove nothing.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted(p for p in (ROOT / "samples").iterdir() if p.is_dir() and p.name[0] != "_")
HEADER = "[{level}] HCCL({pid},python3):2025-03-14-08:01:{s:02d}.{ms:03d}.006 [hccl.cc:{n}]{tid} "


def test_the_compiled_module_is_built() -> None:
    """``pip install`` compiles native/cannheader.c where a C compiler is found, as it is in
    CI: without it every other test of this file compares the fallback with itself."""
    try:
        from plogscan.parse import _cannheader
    except ImportError as err:
        pytest.fail(f"plogscan.parse._cannheader was not built ({err}): install plogscan "
                    "with a C compiler (pip install -e '.[test]' runs setup.py's build_ext)")
    assert callable(_cannheader.spans)


def _run(args: list[str], native: bool, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("PLOGSCAN_NATIVE", None)
    if not native:
        env["PLOGSCAN_NATIVE"] = "0"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return subprocess.run([sys.executable, "-m", "plogscan", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def _hostile_lines(rng: random.Random) -> bytes:
    """Log text a parser must survive: headers cut anywhere, NULs, CRLF and lone CRs, invalid
    UTF-8, random bytes, very long lines and glued records."""
    parts: list[bytes] = []
    for i in range(3000):
        head = HEADER.format(level=rng.choice(["DEBUG", "INFO", "ERROR", "WARNING", "EVENT"]),
                             pid=rng.choice([1, 22, 333]), s=i % 60, ms=i % 1000, n=i,
                             tid=rng.choice(["", "7 ", "[8]", "[Run][tid:9]", "(tid:5)"]))
        line = (head + rng.choice(["Already have context, skip create", "timeout or trap",
                                   "error code 507916", "EI0006 notify wait", "x" * 50])
                ).encode()
        kind = rng.randrange(14)
        if kind == 0:
            line = line[:rng.randrange(len(line) + 1)]
        elif kind == 1:
            line = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 90)))
        elif kind == 2:
            line = line + b"\r"
        elif kind == 3:
            line = line.replace(b" ", b"\r", 1)
        elif kind == 4:
            line = line + b"\xff\xfe\xc3" + "é中".encode()
        elif kind == 5:
            line = line.replace(b"[", b"\x00[", 1)
        elif kind == 6:
            line = line + b" " + line
        elif kind == 7:
            line = b"    at frame " + line[:20]
        elif kind == 8:
            line = b""
        elif kind == 9 and i % 500 == 9:
            line = line + b"y" * 40_000
        parts.append(line)
    return b"\n".join(parts) + b"\n"


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Small generated trees (plain, and dense: the reuse line in one line of four, a tenth
    of the lines ERROR) and a tree of hostile files."""
    base = tmp_path_factory.mktemp("native")
    made = []
    for name, options in (("plain", []), ("dense", ["--reuse-share", "0.25",
                                                     "--error-density", "0.09"])):
        out = base / name
        subprocess.run([sys.executable, str(ROOT / "bench" / "generate.py"), str(out),
                        "--size", "3MiB", "--ranks", "2", "--jobs", "1", *options],
                       check=True, capture_output=True)
        made.append(out)
    hostile = base / "hostile" / "debug" / "plog"
    hostile.mkdir(parents=True)
    for seed in range(3):
        (hostile / f"plog-{100 + seed}_20250314080126400.log").write_bytes(
            _hostile_lines(random.Random(seed)))
    made.append(base / "hostile")
    return made


def test_the_event_tables_are_equal(trees: list[Path], tmp_path: Path) -> None:
    inputs = [str(p) for p in (*SAMPLES, *trees)]
    tables = []
    for native in (True, False):
        out = tmp_path / f"events-{native}.parquet"
        done = _run(["ingest", *inputs, "-o", str(out), "--quiet"], native, tmp_path)
        assert done.returncode == 0, done.stderr
        tables.append(pq.read_table(out))
    compiled, fallback = tables
    assert compiled.num_rows > 30_000
    assert compiled.schema == fallback.schema
    for name in compiled.column_names:
        assert compiled.column(name).equals(fallback.column(name)), name


@pytest.mark.parametrize("which", ["samples", "trees"])
def test_the_reports_are_equal(which: str, trees: list[Path], tmp_path: Path) -> None:
    """``diagnose`` skims chunks (the records no rule reads give only their facts): the same
    JSON report either way."""
    inputs = [str(p) for p in (SAMPLES if which == "samples" else trees)]
    reports = []
    for native in (True, False):
        done = _run(["diagnose", *inputs, "--no-cache", "--format", "json"], native, tmp_path)
        assert done.returncode in (0, 1), done.stderr
        reports.append(done.stdout)
    assert reports[0] == reports[1]
    assert '"findings"' in reports[0]
