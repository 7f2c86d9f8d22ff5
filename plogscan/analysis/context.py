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
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from plogscan.model import Evidence, Finding

CONTEXT_LINES = 3
MAX_CHARS = 500
READ_BYTES = 4 * MAX_CHARS  # of one line: enough for MAX_CHARS characters of any UTF-8
SKIP_BYTES = 1 << 20  # the rest of a longer line is read past in steps of this size


def _wanted(findings: Iterable[Finding], radius: int) -> dict[str, set[int]]:
    wanted: dict[str, set[int]] = defaultdict(set)
    for finding in findings:
        for ev in finding.evidence:
            first = max(1, ev.line - radius)
            wanted[ev.path].update(range(first, ev.line + ev.line_count + radius))
    return wanted


def _lines(stream) -> Iterator[bytes]:  # type: ignore[no-untyped-def]
    """The lines of a binary stream, each cut to its first ``READ_BYTES`` bytes: a huge line
    (a NUL run, a dump) is skipped through in chunks, never held whole."""
    while True:
        raw = stream.readline(READ_BYTES)
        if not raw:
            return
        if not raw.endswith(b"\n"):
            while True:  # the rest of an over-long line
                more = stream.readline(SKIP_BYTES)
                if not more or more.endswith(b"\n"):
                    break
        yield raw


def _read_lines(stream, numbers: set[int]) -> dict[int, str]:  # type: ignore[no-untyped-def]
    """The requested 1-based lines of a binary stream (stops after the last one)."""
    out: dict[int, str] = {}
    last = max(numbers)
    for number, raw in enumerate(_lines(stream), start=1):
        if number in numbers:
            text = raw.decode("utf-8", errors="replace").rstrip("\r\n").replace("\x00", "")
            out[number] = text if len(text) <= MAX_CHARS else text[:MAX_CHARS] + " …"
        if number >= last:
            break
    return out


def _read_once(path: str) -> bool:
    """True for ``-`` and for FIFOs and character devices: inputs that cannot be read again."""
    if path == "-":
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def _collect(inputs: Sequence[str], wanted: dict[str, set[int]],
             limits: object = None) -> dict[str, dict[int, str]]:
    found: dict[str, dict[int, str]] = {}
    plain = {p for p in wanted if "!" not in p and Path(p).is_file()}
    for path in sorted(plain):
        try:
            with open(path, "rb") as handle:
                found[path] = _read_lines(handle, wanted[path])
        except OSError:
            continue
    members = {p for p in wanted if p not in plain}
    if members:
        from plogscan.ingest.sources import Skipped
        from plogscan.ingest.walk import iter_inputs

        # Standard input and pipes were consumed by the first read: opening a pipe again
        # would wait forever for a writer.
        for item in iter_inputs([p for p in inputs if not _read_once(p)], limits):  # type: ignore[arg-type]
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
                radius: int = CONTEXT_LINES, limits: object = None) -> tuple[Finding, ...]:
    """Findings whose evidence carries ``radius`` lines of context on each side."""
    wanted = _wanted(findings, radius)
    if not wanted:
        return tuple(findings)
    lines = _collect(inputs, wanted, limits)

    def with_context(ev: Evidence) -> Evidence:
        text = lines.get(ev.path, {})
        before = tuple((n, text[n]) for n in range(max(1, ev.line - radius), ev.line) if n in text)
        end = ev.line + ev.line_count
        after = tuple((n, text[n]) for n in range(end, end + radius) if n in text)
        return replace(ev, context_before=before, context_after=after)

    return tuple(replace(f, evidence=tuple(with_context(e) for e in f.evidence))
                 for f in findings)
