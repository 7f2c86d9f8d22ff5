"""Each input file is opened once per run for its records, plus at most one digest read when
the extraction cache is on: the walk opens it, the workers read through its descriptor, the
evidence's context lines come from the same pass, and nothing reopens it afterwards.

An audit hook (``sys.addaudithook``) notes every ``open`` of the interpreter, in the walk's
forked child and the worker processes too (they inherit it), into a file opened for appending;
the test counts them per input file, on a tree with a ranged plog, a plog read by its group,
small files, a ``.gz`` plog, a ``.tar.gz`` of another rank's logs, a README and a ``.git``
directory, run with ``--redact``. Worker processes (``--parallel processes``) cannot be handed
a descriptor: they open a file's ranges or group by its path, once more.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import shutil
import sys
import tarfile
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from plogscan.ingest import walkchild
from tests.helpers import SAMPLES_DIR

FLAGSHIP = SAMPLES_DIR / "ccu-reuse-before-mc2"
FILLER = ("[DEBUG] GE(276431,python3.10):2026-03-17-14:02:11.{ms:03d}.000 [graph.cc:{n}]276431 "
          "CompileGraph: node {n} visited, nothing to report\n")

_LOG: list[int] = []  # the file descriptor the hook writes to, while counting
_HOOKED: list[bool] = []


def _hook(event: str, args: tuple) -> None:
    if event != "open" or not _LOG:
        return
    path = args[0]
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, str):
        return  # an open of a descriptor (``FileIO(fd)``): no file is opened
    mode = args[1] if len(args) > 1 else None
    line = f"{os.getpid()}\t{threading.get_ident()}\t{mode is not None}\t{path}\n"
    with contextlib.suppress(OSError):
        os.write(_LOG[0], line.encode("utf-8", "surrogateescape"))


@contextlib.contextmanager
def counted_opens(record: Path) -> Iterator[Counter]:
    """Every file opened inside the block, with how many times: an ``io.FileIO`` open with
    an ``opener`` is one open (its own event, then the ``os.open`` event of its opener)."""
    if not _HOOKED:
        sys.addaudithook(_hook)  # for good: a hook cannot be removed; it is off outside
        _HOOKED.append(True)
    fd = os.open(record, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    found: Counter = Counter()
    _LOG.append(fd)
    try:
        yield found
    finally:
        _LOG.clear()
        os.close(fd)
        last: dict[tuple[str, str], str] = {}  # (pid, thread) -> path of an open with a mode
        for line in record.read_text("utf-8", "surrogateescape").splitlines():
            pid, thread, moded, path = line.split("\t", 3)
            if moded == "False" and last.get((pid, thread)) == path:
                del last[(pid, thread)]  # the opener's ``os.open`` of that same open
                continue
            last[(pid, thread)] = path if moded == "True" else ""
            found[os.path.realpath(path)] += 1
        record.unlink()


def _filler(lines: int) -> str:
    return "".join(FILLER.format(ms=n % 1000, n=n) for n in range(lines))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """The flagship's two ranks: rank 0 as files (a plog read in ranges, one read by its
    small-file group, small ones, a gzipped one), rank 1 in a ``.tar.gz``; a README and a
    ``.git`` directory beside them."""
    root = tmp_path / "job"
    shutil.copytree(FLAGSHIP, root)
    run_plog = next((root / "rank_0" / "process_log" / "run" / "plog").iterdir())
    run_plog.write_text(run_plog.read_text() + _filler(900))  # past the sniff, a group's
    device = next((root / "rank_0" / "process_log" / "debug" / "device-0").iterdir())
    gz = device.with_name(device.name + ".gz")
    gz.write_bytes(gzip.compress(device.read_bytes()))
    device.unlink()
    with tarfile.open(root / "rank_1.tar.gz", "w:gz") as archive:
        archive.add(root / "rank_1", arcname="rank_1")
    shutil.rmtree(root / "rank_1")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n\tbare = false\n")
    return root


def _inputs(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def _opens_of_diagnose(diagnose_cli, root: Path, record: Path,
                       *options: str) -> tuple[Counter, dict]:
    """The opens of each file during ``plogscan diagnose ROOT --redact OPTIONS``, and its report."""
    with counted_opens(record) as opened:
        result = diagnose_cli(root, "--redact", "--format", "json", "--quiet", "--workers", "2",
                              *options)
    assert result.exit_code == 1, result.output
    return opened, json.loads(result.stdout)


def _per_file(root: Path, opened: Counter) -> dict[str, int]:
    return {str(p.relative_to(root)): opened[os.path.realpath(p)] for p in _inputs(root)}


def _context_in_the_archive(report: dict) -> bool:
    return any(ev["context_before"] for f in report["findings"] for ev in f["evidence"]
               if "!" in ev["path"])


def test_each_input_is_opened_once_without_the_cache(diagnose_cli, tree: Path,
                                                     tmp_path: Path) -> None:
    sizes = {p.name: p.stat().st_size for p in _inputs(tree)}
    assert max(sizes.values()) > 256 << 10  # a plog read in ranges
    assert any(64 << 10 < size <= 256 << 10 for size in sizes.values())  # one by its group
    opened, report = _opens_of_diagnose(diagnose_cli, tree, tmp_path / "opens", "--no-cache")
    counts = _per_file(tree, opened)
    assert counts.pop(".git/config") == 0
    assert set(counts.values()) == {1}, counts
    assert _context_in_the_archive(report)
    assert [f["rule"] for f in report["findings"]]


def test_the_walk_in_its_child_process_passes_the_files_it_opened(diagnose_cli,
        tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, alone = _opens_of_diagnose(diagnose_cli, tree, tmp_path / "opens", "--no-cache")
    monkeypatch.setattr(walkchild, "ALONE_SECONDS", 0.0)  # the walk forks at once
    opened, forked = _opens_of_diagnose(diagnose_cli, tree, tmp_path / "opens", "--no-cache")
    counts = _per_file(tree, opened)
    assert counts.pop(".git/config") == 0
    assert set(counts.values()) == {1}, counts
    assert forked == alone


def test_with_the_cache_a_file_is_read_once_more_at_most_for_its_digest(diagnose_cli,
        tree: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _, plain = _opens_of_diagnose(diagnose_cli, tree, tmp_path / "opens", "--no-cache")
    runs = []
    for step in ("cold", "warm", "touched"):
        if step == "touched":
            plog = next((tree / "rank_0" / "process_log" / "debug" / "plog").iterdir())
            os.utime(plog, ns=(plog.stat().st_atime_ns, plog.stat().st_mtime_ns + 10**9))
        opened, report = _opens_of_diagnose(diagnose_cli, tree, tmp_path / "opens", "--cache",
                                            str(cache))
        counts = _per_file(tree, opened)
        assert counts.pop(".git/config") == 0
        assert max(counts.values()) <= 2 and min(counts.values()) >= 1, (step, counts)
        runs.append((step, counts))
        assert report == plain, step
    warm = dict(runs)["warm"]
    assert set(warm.values()) == {1}, warm  # the whole result reused: each file hashed once


def test_worker_processes_open_a_file_once_more_by_its_path(diagnose_cli, tree: Path,
                                                            tmp_path: Path) -> None:
    _, plain = _opens_of_diagnose(diagnose_cli, tree, tmp_path / "opens", "--no-cache")
    opened, report = _opens_of_diagnose(diagnose_cli, tree, tmp_path / "opens", "--no-cache",
                                        "--parallel", "processes")
    counts = _per_file(tree, opened)
    assert counts.pop(".git/config") == 0
    assert max(counts.values()) <= 2 and min(counts.values()) >= 1, counts
    assert report == plain
