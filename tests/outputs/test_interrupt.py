"""Ctrl-C and full disks: no partial output file, one clear line, no traceback.

An interrupted run is a real ``plogscan`` process reading a named pipe that a slow writer
feeds, so the run is surely in the middle of its work (its temporary output exists) when
SIGINT arrives. It must stop promptly (a generous bound guards against a hang; nothing is
timed), say ``interrupted``, exit 2, and leave neither the output nor its temporary file.
A full disk is ``/dev/full``: every write fails with ENOSPC.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT

ROOT = REPO_ROOT
LINE = ("[INFO] GE(4321,python):2026-03-02-10:15:01.123.456 [graph.cc:11][tid:4321] step "
        "{i} done\n")


def _feed(lines: int, pause: float) -> str:
    """A writer of plog lines into the pipe ``argv[1]``: ``lines`` lines, then ``pause``
    seconds, for ever; past 4,000 lines (about 380 kB taken by the run: it is reading
    records) it creates the file ``argv[2]``."""
    return f"""
import pathlib, sys, time
with open(sys.argv[1], "w") as pipe:
    for i in range(10**9):
        pipe.write({LINE!r}.format(i=i))
        if i % {lines} == 0:
            pipe.flush()
            time.sleep({pause})
        if i == 4000:
            pathlib.Path(sys.argv[2]).touch()
"""


FEED = _feed(2000, 0.01)
SLOW_FEED = _feed(200, 0.1)


def _interrupt(argv: list[str], tmp_path: Path, started: Callable[[], bool],
               feed: str = FEED) -> subprocess.CompletedProcess:
    """``plogscan ARGV`` reading the named pipe ``tmp_path/job.log`` that ``feed`` writes,
    given Ctrl-C half a second after ``started()`` says it is inside its work."""
    fifo = tmp_path / "job.log"
    os.mkfifo(fifo)
    feeder = subprocess.Popen([sys.executable, "-c", feed, str(fifo), str(tmp_path / "reading")])
    proc = subprocess.Popen([sys.executable, "-m", "plogscan", *argv], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not started():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the run never got under way"
            time.sleep(0.05)
        time.sleep(0.5)  # well inside the run
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            pytest.fail(f"the run did not stop within 60 s of Ctrl-C; its stderr:\n{err}")
    finally:
        feeder.kill()
        feeder.wait()
        if proc.poll() is None:
            proc.kill()
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def _writing(out_dir: Path) -> Callable[[], bool]:
    """Whether the run has begun its output file in ``out_dir`` (its temporary file)."""
    return lambda: any(p.name.endswith(".tmp") for p in out_dir.iterdir())


@pytest.mark.parametrize("parallel", ["threads", "processes"])
def test_ctrl_c_leaves_no_partial_event_table(tmp_path: Path, parallel: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    done = _interrupt(["ingest", str(tmp_path / "job.log"), "-o", str(out / "events.parquet"),
                       "-q", "--workers", "2", "--parallel", parallel], tmp_path, _writing(out))
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "interrupted", done.stderr
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr
    assert list(out.iterdir()) == []  # neither the table nor its temporary file


def test_ctrl_c_leaves_no_partial_report(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    done = _interrupt(["diagnose", str(tmp_path / "job.log"), "-q", "--workers", "1",
                       "--events-out", str(out / "events.parquet"), "--output-dir",
                       str(out / "reports")], tmp_path, _writing(out))
    assert done.returncode == 2 and "interrupted" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert [p.name for p in out.iterdir()] in ([], ["reports"])
    assert not list(out.rglob("*.tmp")) and not list(out.rglob("report.*"))


@pytest.mark.parametrize(("argv", "what"), [
    (["diagnose", "{log}", "-o", "/dev/full"], "report"),
    (["diagnose", "{log}", "--format", "json", "-o", "/dev/full"], "report"),
    (["ingest", "{log}", "-o", "/dev/full"], "event table"),
    (["diagnose", "{log}", "--redact-map", "/dev/full"], "redaction map"),
    (["baseline", "create", "{log}", "-o", "/dev/full"], "baseline file"),
])
def test_a_full_disk_is_one_clear_line(tmp_path: Path, argv: list[str], what: str) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    log = tmp_path / "plog-1_20260302101500000.log"
    log.write_text("".join(LINE.format(i=i) for i in range(200)))
    done = subprocess.run([sys.executable, "-m", "plogscan",
                           *[a.format(log=log) for a in argv], "-q"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert f"error: cannot write {what}: No space left on device" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_an_atomic_write_replaces_the_old_file_only_when_complete(tmp_path: Path) -> None:
    from plogscan.outputs.atomic import replacing, write_bytes

    target = tmp_path / "report.json"
    target.write_text("old")
    with pytest.raises(RuntimeError), replacing(target) as temp:
        Path(temp).write_text("half")
        raise RuntimeError("interrupted")
    assert target.read_text() == "old" and list(tmp_path.iterdir()) == [target]
    write_bytes(target, b"new")
    assert target.read_bytes() == b"new" and list(tmp_path.iterdir()) == [target]
    assert oct(target.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_ctrl_c_stops_a_diagnosis_of_a_slow_pipe(tmp_path: Path) -> None:
    """A pipe whose writer is slow, of lines the diagnosis drops: the reading may be in the
    middle of a chunk that takes minutes to fill, with no record handed on; Ctrl-C must not
    wait for it."""
    report = tmp_path / "report.txt"
    done = _interrupt(["diagnose", str(tmp_path / "job.log"), "-q", "--workers", "1", "-o",
                       str(report)], tmp_path, (tmp_path / "reading").exists, SLOW_FEED)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "interrupted", done.stderr
    assert "Traceback" not in done.stderr and not report.exists()
