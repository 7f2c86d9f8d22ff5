"""The walk in a forked child (``ingest.walkchild``) hands on what the walk in process does.

Every tree is built in ``tmp_path`` from lines written for these tests in the shapes of
formats.md. Each case reads every stream to its end in blocks, as the parse does, and compares
all of it: the order, the sources, the skips, the bytes, how each stream ended, the limits.
"""

from __future__ import annotations

import bz2
import gzip
import io
import os
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from plogscan.ingest import walkchild
from plogscan.ingest.chunks import READ_ERRORS
from plogscan.ingest.limits import LimitHit, Limits
from plogscan.ingest.sniff import HEAD_BYTES, iter_inputs
from plogscan.ingest.sources import Skipped
from plogscan.ingest.walkchild import WalkFailed, walk_inputs, worth_a_child

PLOG = (b"[ERROR] HCCL(4242,python3):2025-09-11-08:30:15.123.456 [transport.cc:88] [4242]"
        b"wait socket establish timeout, remote rank 3\n"
        b"[INFO] RUNTIME(4242,python3):2025-09-11-08:30:15.200.001 [stream.cc:12] stream ok\n")
STDOUT = (b"Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
          b"RuntimeError: ACL stream synchronize failed, error code is 507035\n")


def _tree(root: Path) -> Path:
    """A job's logs in most of the forms a walk meets."""
    plog = root / "node-1" / "debug" / "plog"
    plog.mkdir(parents=True)
    (plog / "plog-4242_20250911083015000.log").write_bytes(PLOG)
    (plog / "plog-4243_20250911083015000.log").write_bytes(PLOG * (HEAD_BYTES // len(PLOG) + 9))
    (plog / "plog-4244_20250911083015000.log.gz").write_bytes(gzip.compress(PLOG * 50))
    varied = b"".join(PLOG.replace(b"rank 3", b"rank %d" % i) for i in range(1000))
    packed = gzip.compress(varied)
    (plog / "plog-4245_20250911083015000.log.gz").write_bytes(packed[: len(packed) // 2])
    (plog / "empty.log").write_bytes(b"")
    (plog / "table.parquet").write_bytes(b"PAR1....PAR1")
    (plog / "core.bin").write_bytes(bytes(range(256)) * 64)
    (root / "node-1" / "train.log").write_bytes(STDOUT)
    (root / "node-1" / "utf16.log").write_bytes(STDOUT.decode().encode("utf-16"))
    (root / "node-1" / "gbk.log").write_bytes("训练失败\n".encode("gbk") + STDOUT + b"\xff\xfe\n")
    (root / "node-1" / "notes.md").write_text("not a log\n")
    (root / "node-1" / "loop").symlink_to(root / "node-1")
    (root / "node-1" / "outside.log").symlink_to("/etc/hostname")
    (root / "node-1" / "alias.log").symlink_to(plog / "plog-4242_20250911083015000.log")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for i in range(3):
            info = tarfile.TarInfo(f"plog/plog-{i}_20250911083015000.log")
            info.size = len(PLOG)
            tar.addfile(info, io.BytesIO(PLOG))
    (root / "node-2.tar.gz").write_bytes(buffer.getvalue())
    with zipfile.ZipFile(root / "node-3.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("job/stdout.log", STDOUT * 30)
        archive.writestr("run/plog/plog-7_20250911083015000.log", PLOG)
    (root / "bomb.log.bz2").write_bytes(bz2.compress(PLOG * 20_000))
    return root


def _read(items: Iterator[Any], block: int) -> list[tuple[Any, ...]]:
    """Every item, its stream read to the end in ``block`` reads: what a consumer sees."""
    seen: list[tuple[Any, ...]] = []
    for item in items:
        if isinstance(item, Skipped):
            seen.append(("skipped", item))
            continue
        source, stream = item
        parts, ended = [], "end"
        while True:
            try:
                data = stream.read(block)
            except READ_ERRORS as err:
                ended = f"{type(err).__name__}: {err}"
                break
            if not data:
                break
            parts.append(len(data))
            parts.append(data)
        seen.append(("log", source, parts, ended, getattr(stream, "decode_errors", 0),
                     isinstance(stream, io.BufferedReader), getattr(stream, "whole", None)))
    return seen


def _apart(paths: list[str], after: int = 0, **options: Any) -> Iterator[Any]:
    """``walk_inputs`` forking after ``after`` items, whatever the time they took."""
    return walk_inputs(paths, apart=True, alone_seconds=float("inf"), alone_items=after,
                       **options)


def _both(paths: list[str], block: int = 4096, limits: Limits | None = None, after: int = 0
          ) -> tuple[list[Any], list[LimitHit], list[Any], list[LimitHit]]:
    inline_hits: list[LimitHit] = []
    child_hits: list[LimitHit] = []
    inline = _read(iter_inputs(paths, limits, inline_hits.append), block)
    child = _read(_apart(paths, after, limits=limits, on_limit=child_hits.append, block=block),
                  block)
    return inline, inline_hits, child, child_hits


@pytest.mark.parametrize(("block", "after"), [(4096, 0), (1 << 20, 0), (4096, 1), (4096, 6),
                                              (4096, 16), (1 << 20, 19), (4096, 10**6)])
def test_the_child_hands_on_what_the_walk_in_process_does(tmp_path: Path, block: int,
                                                          after: int) -> None:
    """The same items whenever the walk forks: at once, inside the plog directory, between
    the members of the tar archive (16 items in) and of the zip archive (19), or never."""
    root = _tree(tmp_path / "logs")
    limits = Limits(decompressed_bytes=256 << 10)  # the bz2 file stops at this, with a hit
    inline, inline_hits, child, child_hits = _both([str(root)], block, limits, after)
    assert child == inline
    assert child_hits == inline_hits
    kinds = {entry[0] for entry in inline}
    assert kinds == {"log", "skipped"}
    ended = [entry[3] for entry in inline if entry[0] == "log"]
    assert any(e.startswith("LimitReached") for e in ended)  # a limit raised in the child
    assert any(e != "end" and not e.startswith("LimitReached") for e in ended)  # cut gzip
    assert any(entry[4] for entry in inline if entry[0] == "log")  # GBK decode errors
    assert any(entry[5] for entry in inline if entry[0] == "log")  # plain files stay files
    assert any(entry[6] for entry in inline if entry[0] == "log")  # small files come whole
    assert inline_hits


def test_limits_on_the_number_of_files_and_depth_are_the_walks(tmp_path: Path) -> None:
    root = _tree(tmp_path / "logs")
    for limits in (Limits(files=3), Limits(depth=1)):
        for after in (0, 2):
            inline, inline_hits, child, child_hits = _both([str(root)], limits=limits,
                                                           after=after)
            assert child == inline
            assert child_hits == inline_hits and inline_hits


def test_several_arguments_and_globs_keep_their_order_and_duplicates(tmp_path: Path) -> None:
    root = _tree(tmp_path / "logs")
    plog = root / "node-1" / "debug" / "plog" / "plog-4242_20250911083015000.log"
    paths = [str(root / "node-3.zip"), str(root / "node-1" / "*.log"), str(plog), str(root),
             str(tmp_path / "missing")]
    for after in (0, 1, 3):
        inline, _, child, _ = _both(paths, after=after)
        assert child == inline
    assert any(e[0] == "skipped" and e[1].reason.startswith("duplicate") for e in inline)


def test_a_consumer_that_stops_early_leaves_no_child_behind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "logs")
    started: list[int] = []
    fork = walkchild._fork

    def noted(*args: Any) -> tuple[int, int] | None:
        child = fork(*args)
        assert child is not None
        started.append(child[0])
        return child

    monkeypatch.setattr(walkchild, "_fork", noted)
    for stop_after in (1, 10**6):  # mid-walk (the child is killed), and after its end
        items = _apart([str(root)], block=4096)
        for _ in zip(range(stop_after), items, strict=False):
            pass
        items.close()
        with pytest.raises(ChildProcessError):  # reaped already
            os.waitpid(started[-1], os.WNOHANG)
    assert len(started) == 2
    assert _read(walk_inputs([str(root)], apart=True), 4096) == _read(
        iter_inputs([str(root)]), 4096)


def test_a_stream_left_unread_is_skipped_to_its_end(tmp_path: Path) -> None:
    root = _tree(tmp_path / "logs")
    inline = [e if isinstance(e, Skipped) else e[0] for e in iter_inputs([str(root)])]
    child = [e if isinstance(e, Skipped) else e[0] for e in _apart([str(root)], block=1024)]
    assert child == inline


class _BrokenWalker(walkchild.Walker):
    def inputs(self, paths: Any) -> Iterator[Any]:
        yield Skipped("a", "first")
        yield Skipped("b", "second")
        raise KeyError("a bug in the walk")


class _DyingWalker(walkchild.Walker):
    def inputs(self, paths: Any) -> Iterator[Any]:
        yield Skipped("a", "first")
        yield Skipped("b", "second")
        os._exit(9)


def test_a_failure_in_the_child_is_raised_in_the_main_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(walkchild, "Walker", _BrokenWalker)
    with pytest.raises(WalkFailed, match="KeyError: 'a bug in the walk'"):
        list(_apart([str(tmp_path)], after=1))
    monkeypatch.setattr(walkchild, "Walker", _DyingWalker)
    with pytest.raises(WalkFailed, match="stopped before it was done"):
        list(_apart([str(tmp_path)], after=1))


class _Memo:
    """A kind memo that keeps what it is told, as the extraction cache does."""

    def __init__(self, known: dict[str, tuple[str, float]]) -> None:
        self.known = dict(known)
        self.used: list[str] = []

    def find_kind(self, key: str) -> str | None:
        found = self.known.get(key)
        if found is not None:
            self.used.append(key)
        return found[0] if found else None

    def save_kind(self, key: str, kind: str) -> None:
        self.known[key] = (kind, 0.0)

    def kinds_found(self, limit: int) -> dict[str, tuple[str, float]] | None:
        return dict(self.known) if len(self.known) <= limit else None

    def kind_used(self, key: str, last: float) -> None:
        assert last == 0.0
        self.used.append(key)


def test_the_kind_memo_is_read_and_filled_through_the_main_process(tmp_path: Path) -> None:
    root = _tree(tmp_path / "logs")
    inline_memo, child_memo = _Memo({}), _Memo({})
    inline = _read(iter_inputs([str(root)], kinds=inline_memo), 4096)
    child = _read(_apart([str(root)], after=3, kinds=child_memo), 4096)
    assert child == inline
    assert child_memo.known == inline_memo.known and child_memo.known
    assert not child_memo.used
    # a second walk finds every kind in the memo, in process and in the child, and says so
    again = _read(_apart([str(root)], after=3, kinds=child_memo), 4096)
    assert again == inline
    assert sorted(child_memo.used) == sorted(set(child_memo.used)) == sorted(child_memo.known)


def test_the_child_is_used_for_walks_only(tmp_path: Path) -> None:
    root = _tree(tmp_path / "logs")
    one = str(root / "node-1" / "train.log")
    assert worth_a_child([str(root)])
    assert worth_a_child([one, str(root / "node-*")])
    assert not worth_a_child([one])
    assert not worth_a_child([str(root), "-"])
    assert worth_a_child([str(root)], _Memo({}))
    assert not worth_a_child([str(root)], object())  # type: ignore[arg-type]
    big = _Memo({f"k{i}": ("plog", 0.0) for i in range(walkchild.MEMO_ENTRIES + 1)})
    walked = _read(_apart([str(root)], kinds=big), 4096)  # too many to copy: in process
    assert walked == _read(iter_inputs([str(root)], kinds=_Memo({})), 4096)


def test_a_short_walk_does_not_fork(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "logs")
    forks: list[int] = []
    monkeypatch.setattr(walkchild, "_fork", lambda *a: forks.append(1))
    walked = _read(walk_inputs([str(root)], apart=True, alone_seconds=60.0), 4096)
    assert walked == _read(iter_inputs([str(root)]), 4096) and not forks
    _read(walk_inputs([str(root)], apart=True, alone_seconds=0.0), 4096)
    assert forks == [1]  # the fork was asked for at once, and failed: the walk went on here


@pytest.mark.parametrize("cache", [False, True])
def test_diagnose_reports_the_same_with_the_walk_apart_or_not(diagnose_cli,
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache: bool) -> None:


    root = _tree(tmp_path / "logs")
    reports = []
    for apart in (True, False):
        monkeypatch.setattr(walkchild, "worth_a_child", lambda *_a, apart=apart: apart)
        monkeypatch.setattr(walkchild, "ALONE_SECONDS", 0.0)
        options = ["--cache", str(tmp_path / f"cache-{apart}")] if cache else ["--no-cache"]
        result = diagnose_cli(root, "--format", "json", "--max-decompressed", "256K", *options)
        assert result.exit_code in (0, 1), result.output
        reports.append(result.stdout)
    assert reports[0] == reports[1]
    assert '"skipped_files"' in reports[0] and '"--max-decompressed"' in reports[0]
