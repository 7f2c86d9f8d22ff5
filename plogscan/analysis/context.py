"""Context lines around evidence, read back from the original files.

Evidence records are known only after the rules have run, so their neighbouring lines are
fetched afterwards: each file that holds evidence is read once more, up to the last line
needed. Archive members are found by walking their archive again. Lines are raw text, cut to
a readable length.
"""

from __future__ import annotations

import os
import stat
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from plogscan.model import Evidence, Finding

CONTEXT_LINES = 3
MAX_CHARS = 500
READ_BLOCK = 1 << 20
LINE_BYTES = 4 * MAX_CHARS  # of a line held: enough for MAX_CHARS characters of any UTF-8


def _wanted(findings: Iterable[Finding], radius: int) -> dict[str, set[int]]:
    wanted: dict[str, set[int]] = defaultdict(set)
    for finding in findings:
        for ev in finding.evidence:
            first = max(1, ev.line - radius)
            wanted[ev.path].update(range(first, ev.line + ev.line_count + radius))
    return wanted


def _read_lines(stream, numbers: set[int]) -> dict[int, str]:
    """The requested 1-based lines of a binary stream (stops after the last one).

    Blocks without a wanted line are only counted (``bytes.count``), not split into lines.
    Of a line longer than a block only its first ``LINE_BYTES`` are held: a huge line (a NUL
    run, a dump) is read past, never kept whole."""
    out: dict[int, str] = {}
    wanted = sorted(numbers)
    last = wanted[-1]
    line, carry, index = 1, b"", 0
    while index < len(wanted) and line <= last:
        block = stream.read(READ_BLOCK)
        if not block:
            if carry and line in numbers:  # the last line, without a newline
                out[line] = _text(carry)
            break
        data = carry + block if carry else block
        newlines = data.count(b"\n")
        if wanted[index] >= line + newlines:  # no wanted line ends in this block
            carry = (data[data.rfind(b"\n") + 1:] if newlines else data)[:LINE_BYTES]
            line += newlines
            continue
        parts = data.split(b"\n")
        for offset, raw in enumerate(parts[:-1]):
            if line + offset in numbers:
                out[line + offset] = _text(raw)
        carry = parts[-1][:LINE_BYTES]
        line += newlines
        while index < len(wanted) and wanted[index] < line:
            index += 1
    return out


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


def file_lines(path: str, numbers: set[int]) -> dict[int, str] | None:
    """The requested lines of a plain file (None when it cannot be read); it runs where the
    file is, a cluster's worker when the parse ran there."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:  # without blocking, and only a regular file (a FIFO put in its place is left alone)
        with open(path, "rb", opener=lambda p, _f: os.open(p, flags)) as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            return _read_lines(handle, numbers)
    except OSError:
        return None


def _collect(inputs: Sequence[str], wanted: dict[str, set[int]],
             submit: Callable[..., Any] | None = None,
             limits: object = None) -> dict[str, dict[int, str]]:
    found: dict[str, dict[int, str]] = {}
    if submit is not None:  # the files are where the workers are
        plain = {p for p in wanted if "!" not in p and not _read_once(p)}
        futures = {path: submit(file_lines, os.path.abspath(path), wanted[path])
                   for path in sorted(plain)}
        for path, future in futures.items():
            lines = future.result()
            if lines is not None:
                found[path] = lines
    else:
        plain = {p for p in wanted if "!" not in p and Path(p).is_file()}
        for path in sorted(plain):
            lines = file_lines(path, wanted[path])
            if lines is not None:
                found[path] = lines
    members = {p for p in wanted if p not in plain}
    if members:
        from plogscan.ingest.sources import Skipped
        from plogscan.ingest.walk import iter_inputs

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
                limits: object = None) -> tuple[Finding, ...]:
    """Findings whose evidence carries ``radius`` lines of context on each side. ``submit``
    (an executor's) reads plain files where the parse ran, for a cluster whose files the
    client may not see."""
    wanted = _wanted(findings, radius)
    if not wanted:
        return tuple(findings)
    lines = _collect(inputs, wanted, submit, limits)

    def with_context(ev: Evidence) -> Evidence:
        text = lines.get(ev.path, {})
        before = tuple((n, text[n]) for n in range(max(1, ev.line - radius), ev.line) if n in text)
        end = ev.line + ev.line_count
        after = tuple((n, text[n]) for n in range(end, end + radius) if n in text)
        return replace(ev, context_before=before, context_after=after)

    return tuple(replace(f, evidence=tuple(with_context(e) for e in f.evidence))
                 for f in findings)
