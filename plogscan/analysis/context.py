"""Context lines around evidence, read back from the original files.

Evidence records are known only after the rules have run, so their neighbouring lines are
fetched afterwards: each file that holds evidence is read once more, up to the last line
needed. With the extraction cache a plain file's line starts are kept as it is read
(``cache.linemarks``), so a rerun seeks to each wanted line and reads a few kilobytes around
it. Archive members are found by walking their archive again. Lines are raw text, cut to a
readable length.
"""

from __future__ import annotations

import os
import stat
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from plogscan.cache.digest import stream_digest
from plogscan.cache.linemarks import LineMarks, MarkStore, StoredMarks
from plogscan.ingest.filekeys import absolute
from plogscan.model import Evidence, Finding

CONTEXT_LINES = 3
MAX_CHARS = 500
READ_BLOCK = 1 << 20
SMALL_BLOCK = 16 << 10  # the first read after a jump to a mark (see ``cache.linemarks``)
LINE_BYTES = 4 * MAX_CHARS  # of a line held: enough for MAX_CHARS characters of any UTF-8
_NEWLINE = ord("\n")
READERS = min(4, os.cpu_count() or 1)  # threads reading context lines


def _wanted(findings: Iterable[Finding], radius: int) -> dict[str, set[int]]:
    wanted: dict[str, set[int]] = defaultdict(set)
    for finding in findings:
        for ev in finding.evidence:
            first = max(1, ev.line - radius)
            wanted[ev.path].update(range(first, ev.line + ev.line_count + radius))
    return wanted


def _read_lines(stream, numbers: set[int], marks: LineMarks | None = None) -> dict[int, str]:
    """The requested 1-based lines of a binary stream (stops after the last one).

    The newlines of each block are found with numpy (no copy, and without the GIL, so files
    read by several threads overlap); a block without a wanted line is only counted, a block
    with some gives just those lines. Of a line longer than a block only its first
    ``LINE_BYTES`` are held: a huge line (a NUL run, a dump) is read past, never kept whole.

    With ``marks`` (a plain file's, see ``cache.linemarks``) the stream is a seekable file:
    the read jumps to the last mark before each wanted line and reads small blocks from there,
    and it records marks in what it reads past the last one. The lines are the same as those
    of a read from the start: blocks never cross a multiple of ``READ_BLOCK`` and a long line
    is cut to ``LINE_BYTES`` at those multiples only, where a read from the start cuts it."""
    out: dict[int, str] = {}
    wanted = sorted(numbers)
    line, carry, index, pos = 1, b"", 0, 0
    size = READ_BLOCK if marks is None else SMALL_BLOCK
    while index < len(wanted):
        target = wanted[index]
        if marks is not None:
            mark = marks.before(target)
            if mark is not None and mark[0] > line:
                stream.seek(mark[1] - 1)
                if stream.read(1) != b"\n":
                    raise _StaleMarks
                line, pos, carry, size = mark[0], mark[1], b"", SMALL_BLOCK
            elif not marks.covers(target):
                size = READ_BLOCK
            block = stream.read(min(size, READ_BLOCK - pos % READ_BLOCK))
            size = min(2 * size, READ_BLOCK)  # a long way to the line: larger blocks
        else:
            block = stream.read(READ_BLOCK)
        if not block:
            carry = carry[:LINE_BYTES]
            if carry and line in numbers:  # the last line, without a newline
                out[line] = _text(carry)
            break
        ends = np.flatnonzero(np.frombuffer(block, np.uint8) == _NEWLINE)
        if marks is not None:
            marks.note(ends, pos, len(block), line)
        pos += len(block)
        if not len(ends):  # the line goes on past the block
            carry += block
        else:
            stop = line + len(ends)  # lines before this one end in the block
            while index < len(wanted) and wanted[index] < stop:
                number = wanted[index]
                k = number - line
                out[number] = _text(carry + block[:ends[0]] if k == 0
                                    else block[ends[k - 1] + 1:ends[k]])
                index += 1
            carry = block[ends[-1] + 1:]
            line = stop
        if marks is None or pos % READ_BLOCK == 0:
            carry = carry[:LINE_BYTES]
    return out


class _StaleMarks(Exception):
    """A mark that is not at the start of a line: the marks are not this file's."""


def _text(raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace").rstrip("\r\n").replace("\x00", "")
    return text if len(text) <= MAX_CHARS else text[:MAX_CHARS] + " …"


def _read_once(path: str) -> bool:
    """True for ``-`` and for FIFOs and character devices: inputs that cannot be read again."""
    if path == "-":
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


@dataclass(frozen=True)
class FileLines:
    """What ``file_lines`` read: the lines, and the file's marks when they are new or grew
    (to keep for the next read)."""

    lines: dict[int, str]
    marks: StoredMarks | None = None


def file_lines(path: str, numbers: set[int], known: StoredMarks | None = None,
               keep_marks: bool = False) -> FileLines | None:
    """The requested lines of a plain file (None when it cannot be read); it runs where the
    file is, a cluster's worker when the parse ran there.

    With ``keep_marks`` the read uses the marks ``known`` when the file's size, modification
    time and content digest are still theirs, and returns the marks it has (``FileLines``);
    else the file is read from its start."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:  # without blocking, and only a regular file (a FIFO put in its place is left alone)
        with open(path, "rb", opener=lambda p, _f: os.open(p, flags)) as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                return None
            if not keep_marks:
                return FileLines(_read_lines(handle, numbers))
            digest = stream_digest(handle)
            marks = _usable(known, info, digest)
            handle.seek(0)
            try:
                lines = _read_lines(handle, numbers, marks)
            except _StaleMarks:
                handle.seek(0)
                marks = LineMarks(info.st_size)
                lines = _read_lines(handle, numbers, marks)
            kept = (StoredMarks(info.st_size, info.st_mtime_ns, digest, marks.pack())
                    if marks.grown else None)
            return FileLines(lines, kept)
    except OSError:
        return None


def _usable(known: StoredMarks | None, info: os.stat_result, digest: str) -> LineMarks:
    """The marks ``known`` when they are still the file's, else none yet."""
    if (known is not None and known.size == info.st_size
            and known.mtime_ns == info.st_mtime_ns and known.digest == digest):
        try:
            return LineMarks(info.st_size, known.data)
        except ValueError:
            pass  # a damaged entry: the marks are taken again
    return LineMarks(info.st_size)


def _collect(inputs: Sequence[str], wanted: dict[str, set[int]],
             submit: Callable[..., Any] | None = None, limits: object = None,
             marks: MarkStore | None = None) -> dict[str, dict[int, str]]:
    found: dict[str, dict[int, str]] = {}
    keep = marks is not None

    def take(path: str, where: str, result: FileLines | None) -> None:
        if result is None:
            return
        found[path] = result.lines
        if marks is not None and result.marks is not None:
            marks.save_marks(where, result.marks)

    if submit is not None:  # the files are where the workers are
        plain = {p for p in wanted if "!" not in p and not _read_once(p)}
        futures = {}
        for path in sorted(plain):
            where = os.path.abspath(path)
            known = marks.find_marks(where) if marks is not None else None
            futures[path] = where, submit(file_lines, where, wanted[path], known, keep)
        for path, (where, future) in futures.items():
            take(path, where, future.result())
    else:
        plain = {p for p in wanted if "!" not in p and Path(p).is_file()}
        cwd = os.getcwd()
        jobs = []
        for path in sorted(plain):
            where = absolute(path, cwd)
            known = marks.find_marks(where) if marks is not None else None
            jobs.append((path, where, (path, wanted[path], known, keep)))
        # Files are read by a few threads at once: reading and finding newlines run without
        # the GIL. Each thread holds one block and the lines it found.
        with ThreadPoolExecutor(max_workers=min(READERS, len(jobs) or 1),
                                thread_name_prefix="plogscan-context") as pool:
            results = pool.map(lambda job: file_lines(*job[2]), jobs)
            for (path, where, _), result in zip(jobs, results, strict=True):
                take(path, where, result)
    members = {p for p in wanted if p not in plain}
    if members:
        from plogscan.ingest.sniff import iter_inputs
        from plogscan.ingest.sources import Skipped

        # Standard input and pipes were consumed by the first read: opening a pipe again
        # would wait forever for a writer.
        for item in iter_inputs([p for p in inputs if not _read_once(p)],
                                limits):  # type: ignore[arg-type]
            if isinstance(item, Skipped):
                continue
            source, stream = item
            if source.path in members:
                try:
                    found[source.path] = _read_lines(stream, wanted[source.path])
                except OSError:
                    continue
    return found


def add_context(findings: Sequence[Finding], inputs: Sequence[str],
                radius: int = CONTEXT_LINES, submit: Callable[..., Any] | None = None,
                limits: object = None, marks: MarkStore | None = None
                ) -> tuple[Finding, ...]:
    """Findings whose evidence carries ``radius`` lines of context on each side. ``submit``
    (an executor's) reads plain files where the parse ran, for a cluster whose files the
    client may not see. ``marks`` (the extraction cache's) keeps where lines start in each
    plain file read, so that the next run seeks to its lines instead of reading up to them."""
    wanted = _wanted(findings, radius)
    if not wanted:
        return tuple(findings)
    lines = _collect(inputs, wanted, submit, limits, marks)

    def with_context(ev: Evidence) -> Evidence:
        text = lines.get(ev.path, {})
        before = tuple((n, text[n]) for n in range(max(1, ev.line - radius), ev.line) if n in text)
        end = ev.line + ev.line_count
        after = tuple((n, text[n]) for n in range(end, end + radius) if n in text)
        return replace(ev, context_before=before, context_after=after)

    return tuple(replace(f, evidence=tuple(with_context(e) for e in f.evidence))
                 for f in findings)
