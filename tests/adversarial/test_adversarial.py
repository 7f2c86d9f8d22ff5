"""Run the adversarial corpus (``cases.py``), and the cases that need the Python API or a real
pipe: files that grow, shrink or vanish while they are read, named pipes and process
substitution, a highly compressible genuine log, and 10^6 distinct pids in bounded memory.

Every case says its expected message, what is kept and the exit code; ``README.md`` lists them
all and a test keeps it in step with the code.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from plogscan.cli import cli
from plogscan.ingest.limits import Limits
from plogscan.ingest.pipeline import Ingest
from plogscan.ingest.ranges import Range, parse_range
from plogscan.ingest.smallfiles import SMALL_FILE_BYTES
from plogscan.parse.results import FileContext
from tests.adversarial.cases import CASES, GOOD, PLOG, Case
from tests.forked import plogscan_as_nobody
from tests.helpers import REPO_ROOT, run_child

ROOT = REPO_ROOT
HERE = Path(__file__).resolve().parent
# Cases below run through the Python API or a shell; README.md lists them with the others.
API_CASES = ("file-grows", "file-shrinks", "file-vanishes", "named-pipe",
             "process-substitution", "compressible-gz", "million-pids", "huge-line-memory")


def _inline(argv: list[str]) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, argv)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def _child(argv: list[str]) -> tuple[int, str, str]:
    done = run_child(*argv)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Case, tmp_path: Path) -> None:
    base = tmp_path
    if case.runner == "nobody":
        if os.geteuid() == 0:
            plogscan_as_nobody(["diagnose", str(ROOT / "samples" / "hostile-text"), "-q",
                               "--workers", "1", "--format", "json"])  # warm up as root
        base = Path(tempfile.mkdtemp())
        base.chmod(0o777)
    try:
        args = case.build(base)
        argv = ["diagnose", *args, "--format", "json", "-q", "--workers", "1"]
        runner = {"inline": _inline, "child": _child, "nobody": plogscan_as_nobody}[case.runner]
        code, out, err = runner(argv)
        assert code == case.exit, err
        assert "Traceback" not in err and "CHILD ERROR" not in err, err
        warnings = [line for line in err.splitlines() if line.startswith("plogscan:")]
        if case.message is None:
            assert not warnings, err
        else:
            assert any(re.search(case.message, line) for line in warnings), err
        if case.exit != 2:
            doc = json.loads(out)
            case.check(doc, base)
            _unreadable_as_expected(case, doc)
    finally:
        if base is not tmp_path:
            for path in base.rglob("*"):
                if path.is_dir() and not path.is_symlink():
                    path.chmod(0o755)
            shutil.rmtree(base, ignore_errors=True)


# The cases whose input holds a file that cannot be read as a log (not opened, not read to
# its end, or mostly not text): they add the INPUT001 finding, after the good log's fault.
UNREADABLE = frozenset({
    "nul-runs", "binary-head", "sparse-2gib", "truncated-gz", "truncated-bz2", "truncated-xz",
    "corrupt-gz", "corrupt-bz2", "corrupt-xz", "truncated-tar", "corrupt-tar", "truncated-zip",
    "corrupt-zip", "zip-bomb", "gzip-bomb", "unreadable"})


def _unreadable_as_expected(case: Case, doc: dict) -> None:
    """INPUT001 where a file cannot be read as a log, nowhere else; never the top incident
    over the good log's fault."""
    gaps = [f for f in doc["findings"] if f["rule"] == "INPUT001"]
    assert bool(gaps) == (case.name in UNREADABLE), [g["description"] for g in gaps]
    assert doc["incidents"][0]["rule"] == "HCCL002", doc["incidents"][0]


def test_readme_lists_every_case() -> None:
    text = (HERE / "README.md").read_text("utf-8")
    rows = re.findall(r"^\| `([a-z0-9-]+)` \|", text, re.M)
    assert rows == [c.name for c in CASES] + list(API_CASES)


# -- cases through the Python API ----------------------------------------------------------------


def _range_file(tmp_path: Path) -> Path:
    """A plain file big enough to be read in ranges (not with the small files)."""
    path = tmp_path / PLOG
    copies = SMALL_FILE_BYTES // len(GOOD) + 1
    path.write_bytes(GOOD * copies)  # many ranges of 4 KiB
    return path


def _read(path: Path, during) -> Ingest:  # type: ignore[no-untyped-def]
    """Ingest ``path`` in 4 KiB ranges, calling ``during`` once, after the first range."""
    done = []

    def progress(event: str, amount: int) -> None:
        if event == "bytes" and not done:
            done.append(True)
            during(path)

    ingest = Ingest(workers=1, chunk_bytes=4096, on_progress=progress)
    list(ingest.batches([str(path)]))
    return ingest


def test_file_grows(tmp_path: Path) -> None:
    """Lines appended while the file is read are reported, not silently read or lost."""
    path = _range_file(tmp_path)
    lines = path.read_bytes().count(b"\n")
    ingest = _read(path, lambda p: p.open("ab").write(GOOD * 10))
    (stats,) = ingest.summary.files
    assert stats.lines == lines == stats.record_lines + stats.blank_lines
    assert any(f"grew by {len(GOOD) * 10:,} bytes while it was read" in p
               for p in stats.problems)


def test_file_shrinks(tmp_path: Path) -> None:
    path = _range_file(tmp_path)
    lines = path.read_bytes().count(b"\n")
    ingest = _read(path, lambda p: os.truncate(p, 10000))
    (stats,) = ingest.summary.files
    assert stats.lines < lines and stats.lines == stats.record_lines + stats.blank_lines
    assert any("the file became shorter" in p or "read stopped at byte" in p
               for p in stats.problems), stats.problems


def test_file_vanishes(tmp_path: Path) -> None:
    """Removed while read: worker threads read the descriptor the walk opened, so they read
    the very file that was opened, whole, and never the new file under its name; a worker
    that opens the path itself (a process, a cluster's) finds it gone or replaced, and says
    so."""
    def replace(path: Path) -> None:
        path.unlink()
        path.write_bytes(b"x\n" * 100)  # a new file under the old name

    path = _range_file(tmp_path)
    lines = path.read_bytes().count(b"\n")
    ingest = _read(path, replace)
    (stats,) = ingest.summary.files
    assert stats.lines == lines == stats.record_lines + stats.blank_lines
    assert not stats.problems
    opened_by_path = Range(str(path), 0, 4096, False, file_id=(0, 0))
    cleaned = parse_range(opened_by_path, FileContext(str(path), "plog-debug"), None)
    assert "replaced by another one" in (cleaned.problem or "")


def test_named_pipe(tmp_path: Path) -> None:
    fifo = tmp_path / "job.log"
    os.mkfifo(fifo)
    (tmp_path / "source.log").write_bytes(GOOD)
    writer = subprocess.Popen(["sh", "-c", f"cat '{tmp_path}/source.log' > '{fifo}'"])
    try:
        code, out, err = _child(["diagnose", str(fifo), "--format", "json", "--workers", "1"])
    finally:
        writer.kill()
        writer.wait()
    assert code == 1, err
    assert json.loads(out)["findings"][0]["evidence"][0]["path"] == str(fifo)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash for <(...)")
def test_process_substitution(tmp_path: Path) -> None:
    source = tmp_path / "job.log.gz"
    source.write_bytes(gzip.compress(GOOD))
    done = subprocess.run(["bash", "-c", f"{sys.executable} -m plogscan diagnose "
                           f"<(zcat '{source}') --format json --workers 1"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 1, done.stderr
    path = json.loads(done.stdout)["findings"][0]["evidence"][0]["path"]
    assert re.fullmatch(r"/dev/fd/\d+|/proc/self/fd/\d+", path), path


def test_compressible_gz_is_not_a_bomb(tmp_path: Path) -> None:
    """A genuine DEBUG log, however compressible, is read whole: the ratio limit stops only
    output that is not log text. The same ratio of NULs is stopped."""
    line = (b"[DEBUG] HCCL(4321,python):2026-03-02-10:15:01.123.456 [hb.cc:9][tid:4321] "
            b"heartbeat ok\n")
    genuine = tmp_path / "run" / "plog" / "plog-1_20260302101500000.log.gz"
    genuine.parent.mkdir(parents=True)
    genuine.write_bytes(gzip.compress(line * 200_000 + GOOD, 9))  # 20 MB of repeated lines
    bomb = tmp_path / "plog-2_20260302101500000.log.gz"
    bomb.write_bytes(gzip.compress(bytes(20 << 20) + GOOD, 9))
    limits = Limits(ratio=100, ratio_floor=1 << 20)  # a strict ratio, checked after 1 MiB
    ingest = Ingest(workers=1, limits=limits)
    list(ingest.batches([str(genuine), str(bomb)]))
    whole, cut = ingest.summary.files
    assert whole.lines == 200_002 and not whole.problems
    ratio = 20 * len(line) * 200_000 // len(genuine.read_bytes())
    assert ratio > 100  # more compressible than the limit, and still read
    assert cut.problems and "decompression bomb" in cut.problems[0]
    assert [h.limit for h in ingest.summary.limits] == ["ratio"]


def test_million_pids_in_bounded_memory(tmp_path: Path) -> None:
    """10^6 distinct processes: ingest and events read every record in bounded memory."""
    path = tmp_path / "plog-1_20260302101500000.log"
    with open(path, "w") as handle:
        for i in range(1_000_000):
            handle.write(f"[INFO] GE({i + 1000},python):2026-03-02-10:15:01.123.456 "
                         f"[op.cc:1][tid:{i}] step done\n")
    code, _, err, peak = _measured(["ingest", str(path), "-o", str(tmp_path / "e.parquet"),
                                    "-q"])
    assert code == 0 and "wrote 1000000 records" in err, err
    assert peak < 1 << 20, f"ingest peak RSS {peak} KiB"
    code, out, err, peak = _measured(["events", str(path), "--pid", "1000999", "--format",
                                      "jsonl", "-q"])
    assert code == 0 and json.loads(out)["pid"] == 1000999, err
    assert peak < 1 << 20, f"events peak RSS {peak} KiB"


_MEASURE = """
import re, sys
from plogscan.cli import main
sys.argv = ["plogscan", *sys.argv[1:]]
try:
    main()
except SystemExit as stop:
    code = stop.code
# VmHWM: this process's own peak (getrusage's maxrss would carry the forking parent's)
with open("/proc/self/status") as status:
    peak = re.search(r"VmHWM:\\s+(\\d+)", status.read()).group(1)
sys.stderr.write(f"\\npeak-rss-kib {peak}\\n")
sys.exit(code)
"""


def _measured(argv: list[str]) -> tuple[int, str, str, int]:
    """A child's exit code, output and peak RSS (KiB, as measured by the child itself: a
    measure of memory, never of time)."""
    done = subprocess.run([sys.executable, "-c", _MEASURE, *argv], cwd=ROOT, timeout=600,
                          capture_output=True, text=True, check=False)
    peak = int(re.findall(r"peak-rss-kib (\d+)", done.stderr)[-1])
    return done.returncode, done.stdout, done.stderr, peak


def test_a_huge_line_costs_bounded_memory(tmp_path: Path) -> None:
    """A 512 MiB single line is cut at --max-line-bytes while it is read: the run's peak RSS
    stays well below the line's size, and the record after it is found."""
    path = tmp_path / "plog-1_20260302101500000.log.gz"
    with gzip.open(path, "wb", compresslevel=1) as handle:
        handle.write(b"[INFO] GE(1,python):2026-03-02-10:15:01.123.456 [a.cc:1][tid:1] ")
        block = b"x" * (16 << 20)
        for _ in range(32):
            handle.write(block)
        handle.write(b"\n" + GOOD)
    code, out, err, peak = _measured(["diagnose", str(path), "--format", "json", "-q"])
    assert code == 1, err
    assert "kept their first 8 MiB" in err
    assert json.loads(out)["findings"]
    assert peak < 512 << 10, f"peak RSS {peak} KiB for a 512 MiB line"


def test_small_file_honours_the_line_limit(tmp_path: Path) -> None:
    """A file small enough to be parsed in a group still has its long lines cut at
    ``--max-line-bytes`` (such a file is read alone)."""
    path = tmp_path / PLOG
    path.write_bytes(b"x" * 5000 + b"\n" + GOOD)
    ingest = Ingest(workers=1, limits=Limits(line_bytes=1024))
    list(ingest.batches([str(path)]))
    (stats,) = ingest.summary.files
    assert any("longer than 1 KiB kept their first 1 KiB" in p for p in stats.problems), \
        stats.problems
