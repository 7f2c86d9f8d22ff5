"""Context lines read through line marks (``cache.linemarks``) are the very lines a read from
the start of the file gives: CRLF files, files without a final newline, lines cut because they
are long (also across the read blocks' boundaries, with NULs and multibyte text in them), lines
past the end. Marks that are not the file's are not used; a rerun with the cache seeks instead
of reading the whole file."""

from __future__ import annotations

import io
import os
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from plogscan.analysis import context
from plogscan.analysis.context import file_lines
from plogscan.cache import linemarks
from plogscan.cache.digest import file_digest
from plogscan.cache.linemarks import LineMarks, StoredMarks
from plogscan.cache.store import DATABASE, clear
from plogscan.ingest.limits import Limits
from plogscan.report import render
from tests.helpers import diagnosed

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "ccu-reuse-before-mc2"


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks and mark spacing small enough that a file of kilobytes crosses many of them."""
    monkeypatch.setattr(context, "READ_BLOCK", 4096)
    monkeypatch.setattr(context, "SMALL_BLOCK", 64)
    monkeypatch.setattr(context, "LINE_BYTES", 200)
    monkeypatch.setattr(linemarks, "MARK_BYTES", 256)


def _lines(seed: int, count: int, newline: bytes = b"\n") -> list[bytes]:
    rng = random.Random(seed)
    out = []
    for number in range(count):
        kind = rng.random()
        if kind < 0.05:
            out.append(b"")
        elif kind < 0.10:  # longer than LINE_BYTES, NULs and multibyte text inside
            out.append(b"\x00" * rng.randrange(50, 400) + "长行 é".encode() * rng.randrange(1, 900)
                       + b"\x00tail")
        else:
            out.append(b"[INFO] line %d " % number + b"x" * rng.randrange(0, 120))
    return [line + newline for line in out]


def _write(path: Path, lines: list[bytes], final_newline: bool = True) -> Path:
    data = b"".join(lines)
    if not final_newline:
        data = data.rstrip(b"\r\n")
    path.write_bytes(data)
    return path


def _wanted(rng: random.Random, last: int, spots: int) -> set[int]:
    wanted: set[int] = set()
    for _ in range(spots):
        line = rng.randrange(1, last + 1)
        wanted.update(range(max(1, line - 3), line + 4))
    return wanted


CASES = [("lf", b"\n", True), ("crlf", b"\r\n", True), ("no-final-newline", b"\n", False),
         ("crlf-no-final-newline", b"\r\n", False)]


@pytest.mark.parametrize(("name", "newline", "final"), CASES)
def test_lines_through_marks_equal_a_read_from_the_start(
        tmp_path: Path, small_blocks: None, name: str, newline: bytes, final: bool) -> None:
    path = _write(tmp_path / f"{name}.log", _lines(7, 400, newline), final)
    rng = random.Random(name)
    total = path.read_bytes().count(b"\n") + 1
    first = _wanted(rng, total // 2, 5)  # the first read stops halfway: marks cover half
    recorded = file_lines(str(path), first, None, keep_marks=True)
    assert recorded is not None and recorded.marks is not None
    assert recorded.lines == file_lines(str(path), first).lines
    known = recorded.marks
    for spots in (1, 8, 40):
        wanted = _wanted(rng, total + 5, spots) | {1, total, total + 1, total + 9}
        plain = file_lines(str(path), wanted)
        marked = file_lines(str(path), wanted, known, keep_marks=True)
        assert plain is not None and marked is not None
        assert marked.lines == plain.lines
        assert total + 1 not in plain.lines and total + 9 not in plain.lines  # past the end
        if marked.marks is not None:  # grew: read past the last mark
            assert len(marked.marks.data) > len(known.data)
            known = marked.marks


def test_a_long_line_across_a_block_boundary_is_cut_as_before(tmp_path: Path,
                                                              small_blocks: None) -> None:
    lines = [b"short %d\n" % n for n in range(300)]
    lines.insert(200, b"\x00" * 3000 + "é".encode() * 5000 + b"\n")  # crosses 4096-multiples
    path = _write(tmp_path / "long.log", lines)
    recorded = file_lines(str(path), {301}, None, keep_marks=True)
    assert recorded is not None and recorded.marks is not None
    wanted = {199, 200, 201, 202}
    plain = file_lines(str(path), wanted)
    marked = file_lines(str(path), wanted, recorded.marks, keep_marks=True)
    assert plain is not None and marked is not None
    assert marked.lines == plain.lines
    assert plain.lines[201].endswith(" …")


def test_a_rerun_seeks_to_the_lines_instead_of_reading_up_to_them(tmp_path: Path) -> None:
    path = _write(tmp_path / "big.log", [b"[INFO] filler line %08d\n" % n
                                         for n in range(120_000)])  # about 3 MB
    wanted = {2, 3, 60_000, 60_001, 119_999}
    recorded = file_lines(str(path), wanted, None, keep_marks=True)
    assert recorded is not None and recorded.marks is not None
    marks = LineMarks(path.stat().st_size, recorded.marks.data)
    assert len(marks.lines) > 100
    counted = _CountingReader(path.read_bytes())
    again = context._read_lines(counted, wanted, marks)
    assert again == recorded.lines == file_lines(str(path), wanted).lines
    assert counted.read_bytes < path.stat().st_size // 20
    assert not marks.grown  # nothing past the last mark was read: nothing to keep anew


def test_marks_of_other_content_are_not_used(tmp_path: Path, small_blocks: None) -> None:
    path = _write(tmp_path / "a.log", _lines(1, 300))
    other = _write(tmp_path / "b.log", _lines(2, 300))
    wanted = {5, 6, 7, 150, 151, 290}
    theirs = file_lines(str(other), {299}, None, keep_marks=True)
    assert theirs is not None and theirs.marks is not None
    info = path.stat()
    expected = file_lines(str(path), wanted)
    assert expected is not None
    # Another file's marks under this file's size, time and digest: they are not at the
    # starts of this file's lines, so the file is read from its start.
    forged = StoredMarks(info.st_size, info.st_mtime_ns, str(file_digest(str(path))),
                         theirs.marks.data)
    for known in (forged,
                  StoredMarks(info.st_size, info.st_mtime_ns, "another digest",
                              theirs.marks.data),
                  StoredMarks(info.st_size + 1, info.st_mtime_ns, forged.digest, forged.data),
                  StoredMarks(info.st_size, info.st_mtime_ns, forged.digest, b"\x01" * 17),
                  StoredMarks(info.st_size, info.st_mtime_ns, forged.digest, b"\x01" * 16)):
        read = file_lines(str(path), wanted, known, keep_marks=True)
        assert read is not None and read.lines == expected.lines
        assert read.marks is not None and read.marks.data != theirs.marks.data


def test_damaged_marks_are_refused() -> None:
    with pytest.raises(ValueError):
        LineMarks(100, b"\x00" * 24)  # not whole pairs
    with pytest.raises(ValueError):
        LineMarks(15, LineMarks(100, b"\x03" + b"\x00" * 7 + b"\x10" + b"\x00" * 7).pack())
    descending = LineMarks(1 << 20)
    descending.lines.extend([5, 3])
    descending.offsets.extend([10, 20])
    with pytest.raises(ValueError):
        LineMarks(1 << 20, descending.pack())
    fine = LineMarks(1 << 20)
    fine.lines.extend([3, 5])
    fine.offsets.extend([10, 20])
    back = LineMarks(1 << 20, fine.pack())
    assert list(back.lines) == [3, 5] and list(back.offsets) == [10, 20]


class _CountingReader(io.BytesIO):
    """A seekable stream that counts the bytes read from it."""

    read_bytes = 0

    def read(self, size: int | None = -1) -> bytes:
        data = super().read(size)
        self.read_bytes += len(data)
        return data


def _evidence_file(logs: Path) -> tuple[Path, int]:
    """The plain file and line of the first evidence record of the sample."""
    diagnosis = diagnosed([str(logs)], context_lines=0)
    for finding in diagnosis.findings:
        for ev in finding.evidence:
            if ev.path.endswith(".log") and ev.line > 1:
                return Path(ev.path), ev.line
    raise AssertionError("the sample has no evidence in a plain file")


@pytest.mark.usefixtures("every_file_stored")
def test_cached_reruns_give_the_context_of_a_read_from_the_start(tmp_path: Path) -> None:
    """A CRLF log without a final newline, a line cut by --max-line-bytes across the first
    read block's end right before the evidence: the uncached report, the first cached one
    (marks taken) and the second (marks used) are byte-identical."""
    logs = tmp_path / "logs"
    shutil.copytree(SAMPLE, logs)
    target, line = _evidence_file(logs)
    lines = target.read_bytes().split(b"\n")
    filler = [b"[INFO] GE(1,python3):2026-03-17-14:02:11.000.000 [x.cc:1] filler %d" % n
              for n in range((1 << 20) // 70)]
    long_line = b"\x00" * 4000 + "长行".encode() * 60_000  # about 360 KB
    lines[line - 1:line - 1] = [*filler, long_line]
    target.write_bytes(b"\r\n".join(lines).rstrip(b"\r\n"))
    limits = Limits(line_bytes=64 << 10)
    cache = tmp_path / "cache"
    plain = render(diagnosed([str(logs)], cache=None, limits=limits), "json")
    first = render(diagnosed([str(logs)], cache=cache, limits=limits), "json")
    with sqlite3.connect(cache / DATABASE) as db:
        assert db.execute("SELECT count(*) FROM line_marks").fetchone()[0] > 0
    second = diagnosed([str(logs)], cache=cache, limits=limits, reuse_result=False)
    # a file with a cut line is parsed every time (its entry is not kept); its marks are
    assert second.cache.reused_files == len(second.inputs.files) - 1
    assert plain == first == render(second, "json")
    moved = line + len(filler) + 1
    evidence = [ev for f in second.findings for ev in f.evidence
                if ev.path == str(target) and ev.line == moved]
    assert evidence and evidence[0].context_before[-1][1].endswith(" …")
    assert any(problem for f in second.inputs.files if f.path == str(target)
               for problem in f.problems)  # the long line was cut
    os.utime(target)  # a changed time: the marks are taken again, the lines stay the same
    assert render(diagnosed([str(logs)], cache=cache, limits=limits), "json") == plain
    clear(cache)
    with sqlite3.connect(cache / DATABASE) as db:
        assert db.execute("SELECT count(*) FROM line_marks").fetchone()[0] == 0


def _lines_read_whole(data: bytes, numbers: set[int], block: int, keep: int) -> dict[int, str]:
    """The wanted lines as a read from the start gives them, written the plain way: the file
    split at its newlines, each line cut to ``keep`` bytes from every multiple of ``block``
    it reaches (where the read lets go of what it holds of a long line)."""
    out: dict[int, str] = {}
    start = 0
    for number, raw in enumerate(data.split(b"\n"), 1):
        end = start + len(raw)  # its newline's offset
        held, taken = b"", 0
        cut = (start // block + 1) * block  # the first multiple after the line's start
        while cut <= end:  # the read reaches a multiple before the newline
            held, taken = (held + raw[taken:cut - start])[:keep], cut - start
            cut += block
        held += raw[taken:]
        if number in numbers and (end < len(data) or raw):
            out[number] = context._text(held)
        start = end + 1
    return out


@pytest.mark.parametrize(("name", "newline", "final"), CASES)
def test_lines_are_those_of_the_whole_file_split_at_its_newlines(
        tmp_path: Path, small_blocks: None, name: str, newline: bytes, final: bool) -> None:
    path = _write(tmp_path / f"{name}.log", _lines(11, 500, newline), final)
    data = path.read_bytes()
    total = data.count(b"\n") + 1
    rng = random.Random(name)
    for spots in (1, 5, 60):
        wanted = _wanted(rng, total + 3, spots) | {1, total, total + 2}
        found = file_lines(str(path), wanted)
        assert found is not None
        assert found.lines == _lines_read_whole(data, wanted, context.READ_BLOCK,
                                                context.LINE_BYTES)
