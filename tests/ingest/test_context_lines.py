"""Context lines taken by the parse workers (``ingest.contextlines``) are the very lines of
the file around each record: CRLF files, files without a final newline, lines cut because they
are long (with NULs and multibyte text in them), records at the edges of chunks and of ranges,
in plain files read by ranges, compressed files read as streams and small files read in
groups. A rerun with the cache gives the same context without reading the file again."""

from __future__ import annotations

import gzip
import os
import random
import re
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.ingest import contextlines
from plogscan.ingest.contextlines import ContextSpec, Lines, line_text
from plogscan.ingest.limits import Limits
from plogscan.ingest.pipeline import Ingest
from plogscan.report import render
from tests.helpers import SAMPLES_DIR, diagnosed

SAMPLE = SAMPLES_DIR / "ccu-reuse-before-mc2"
RADIUS = 3


class Every:
    """A marker of the records written as line number ``N`` (``... line N ...``) where ``N``
    is a multiple of ``step`` (it reads the text, as a rule does: a worker numbers its lines
    from the start of its range)."""

    def __init__(self, step: int) -> None:
        self.step = step

    def candidates(self, records: pa.Table) -> np.ndarray:
        return np.array([marked(m, self.step) for m in records.column("message").to_pylist()],
                        dtype=bool)


def marked(message: str | None, step: int) -> bool:
    found = re.search(r"\bline (\d+) ", message or "")
    return found is not None and int(found.group(1)) % step == 0


def _lines(seed: int, count: int, newline: bytes = b"\n") -> list[bytes]:
    rng = random.Random(seed)
    out = []
    for number in range(count):
        kind = rng.random()
        if kind < 0.05:
            out.append(b"")
        elif kind < 0.10:  # longer than a line is shown, NULs and multibyte text inside
            out.append(b"\x00" * rng.randrange(50, 400) + "长行 é".encode() * rng.randrange(1, 900)
                       + b"\x00tail")
        elif kind < 0.20:  # a continuation line of the record before it
            out.append(b"    at frame %d" % number)
        else:
            out.append(b"[INFO] GE(1,python3):2026-03-17-14:02:%02d.000.000 [x.cc:1]1 line %d "
                       % (number % 60, number) + b"x" * rng.randrange(0, 120))
    return [line + newline for line in out]


def _write(path: Path, lines: list[bytes], final_newline: bool = True) -> bytes:
    data = b"".join(lines)
    if not final_newline:
        data = data.rstrip(b"\r\n")
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)
    return data


def _reference(data: bytes) -> list[str]:
    """The file split at its newlines, each line as the evidence shows it."""
    raw = data.split(b"\n")
    if data.endswith(b"\n"):
        raw = raw[:-1]
    return [line_text(line) for line in raw]


def _checked(path: Path, data: bytes | dict[str, bytes], chunk_bytes: int, step: int) -> int:
    """Ingest ``path`` with context lines taken for every ``step``-th line's record and
    check each against its file (``data``: the file's bytes, or each file's by path when
    ``path`` is a folder); how many records were checked."""
    spec = ContextSpec(RADIUS, Every(step))
    ingest = Ingest(workers=2, chunk_bytes=chunk_bytes, context=spec)
    table = pa.Table.from_batches(list(ingest.batches([str(path)])))
    files = data if isinstance(data, dict) else {str(path): data}
    expected = {name: _reference(content) for name, content in files.items()}
    checked = 0
    for row in table.to_pylist():
        if row["context_before"] is None:
            assert not marked(row["message"], step), row["line"]
            continue
        lines = expected[row["path"]]
        first, end = row["line"] - 1, row["line"] - 1 + row["line_count"]
        assert row["context_before"] == lines[max(0, first - RADIUS):first], row["line"]
        assert row["context_after"] == lines[end:end + RADIUS], row["line"]
        checked += 1
    return checked


CASES = [("lf", b"\n", True), ("crlf", b"\r\n", True), ("no-final-newline", b"\n", False),
         ("crlf-no-final-newline", b"\r\n", False)]


@pytest.mark.parametrize(("name", "newline", "final"), CASES)
def test_pass_lines_equal_a_read_from_the_start(tmp_path: Path, name: str, newline: bytes,
                                                final: bool) -> None:
    """A plain file read in ranges of 4 KiB and the same file gzipped (read as a stream in
    chunks of 4 KiB): every record's context lines are the file's own, across every edge."""
    lines = _lines(7, 3000, newline)
    for suffix in (".log", ".log.gz"):
        path = tmp_path / f"{name}{suffix}"
        data = _write(path, lines, final)
        assert len(data) > 64 * 4096  # a range file: past the small-file size
        assert _checked(path, data, 4096, 3) > 500


@pytest.mark.parametrize(("name", "newline", "final"), CASES)
def test_lines_are_those_of_the_whole_file_split_at_its_newlines(
        tmp_path: Path, name: str, newline: bytes, final: bool) -> None:
    """Small files parsed in one group: each record's lines come from its own file, never
    from the file before or after it in the group."""
    folder = tmp_path / "plog"
    folder.mkdir()
    files = {}
    for index in range(5):
        path = folder / f"plog-{index}_20260317140200000.log"
        files[str(path)] = _write(path, _lines(11 + index, 200, newline), final)
    assert _checked(folder, files, 1 << 20, 2) > 300


def _evidence_file(logs: Path) -> tuple[Path, int]:
    """The plain file and line of the first evidence record of the sample."""
    diagnosis = diagnosed([str(logs)], context_lines=0)
    for finding in diagnosis.findings:
        for ev in finding.evidence:
            if ev.path.endswith(".log") and ev.line > 1:
                return Path(ev.path), ev.line
    raise AssertionError("the sample has no evidence in a plain file")


@pytest.mark.usefixtures("every_file_stored")
def test_cached_reruns_give_the_same_context(tmp_path: Path) -> None:
    """A CRLF log without a final newline, a line cut by --max-line-bytes right before the
    evidence: the uncached report, the first cached one and the second (the other files
    read from the cache, with their context lines) are byte-identical."""
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
    second = diagnosed([str(logs)], cache=cache, limits=limits, reuse_result=False)
    # a file with a cut line is parsed every time (its entry is not kept)
    assert second.cache.reused_files == len(second.inputs.files) - 1
    assert plain == first == render(second, "json")
    moved = line + len(filler) + 1
    evidence = [ev for f in second.findings for ev in f.evidence
                if ev.path == str(target) and ev.line == moved]
    assert evidence and evidence[0].context_before[-1][1].endswith(" …")
    assert any(problem for f in second.inputs.files if f.path == str(target)
               for problem in f.problems)  # the long line was cut
    os.utime(target)
    assert render(diagnosed([str(logs)], cache=cache, limits=limits), "json") == plain


LINE_PARTS = st.sampled_from(["x", "é", "长", "\r", " ", "ab" * 140, "长" * 300, "\r\r"])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(LINE_PARTS, max_size=6).map("".join), min_size=1, max_size=40),
       st.lists(st.binary(max_size=30), max_size=3), st.lists(st.binary(max_size=30), max_size=3),
       st.integers(0, 4), st.data())
def test_lines_around_rows_are_each_line_as_shown(
        lines: list[str], before: list[bytes], after: list[bytes], radius: int,
        data: st.DataObject) -> None:
    """``Lines.around`` gives, for any rows and file bounds, the lines ``line_text`` shows:
    lines cut on a character, CRs that end them left out, edge lines past the chunk."""
    raw = "\n".join(lines).encode()
    chunk = Lines(raw, before, after)
    count = len(lines)
    rows = data.draw(st.lists(st.tuples(st.integers(0, count - 1), st.integers(1, 3)),
                              min_size=1, max_size=12))
    first = np.array([row for row, _span in rows], np.int64)
    end = np.minimum(first + [span for _row, span in rows], count)
    bounded = data.draw(st.booleans())
    low = np.minimum(first, data.draw(st.integers(0, count))) if bounded else None
    high = np.maximum(end, data.draw(st.integers(0, count))) if bounded else None
    shown_before, shown_after = chunk.around(first, end, radius, low, high)
    with pytest.MonkeyPatch.context() as patch:  # a chunk past views' reach: copied out
        patch.setattr(contextlines, "views_fit", lambda _size: False)
        assert chunk.around(first, end, radius, low, high) == (shown_before, shown_after)

    def text(k: int) -> str | None:
        if k < 0:
            return line_text(before[k]) if -k <= len(before) else None
        if k >= count:
            return line_text(after[k - count]) if k - count < len(after) else None
        return line_text(lines[k].encode())

    def within(k: int, i: int) -> bool:
        inside = (low is None or k >= low[i]) and (high is None or k < high[i])
        return (0 <= k < count and inside) or not 0 <= k < count

    for i in range(len(rows)):
        wanted_before = [text(k) for k in range(first[i] - radius, first[i]) if within(k, i)]
        wanted_after = [text(k) for k in range(end[i], end[i] + radius) if within(k, i)]
        assert shown_before[i].as_py() == [t for t in wanted_before if t is not None]
        assert shown_after[i].as_py() == [t for t in wanted_after if t is not None]
