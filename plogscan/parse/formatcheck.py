"""The checked format set: formats whose every sample line parses, with the real parser, to
the fields it states.

Loading formats and checking their samples are two steps because the parser is built on the
format definitions (``lineformats``); the check needs both, so it lives above them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from plogscan.datafile.compiled import code_stamp, kept
from plogscan.errors import ErrorGroup, FormatError, Location
from plogscan.parse.chunk import parse_chunk, parse_samples
from plogscan.parse.lineformats import FormatSet, builtin_format_files, read_formats
from plogscan.parse.results import FileContext
from plogscan.schema import SourceKind


def load_formats(paths: Sequence[Path] | None = None) -> FormatSet:
    """Load format files and check every sample parses; without ``paths``, the built-in
    formats, whose samples the test suite checks (``check_samples``), in their compiled form
    (``datafile.compiled``): a run does not parse them again."""
    if paths is None:
        return compiled_formats()
    fset = read_formats(paths)
    check_samples(fset)
    return fset


def compiled_formats() -> FormatSet:
    """The built-in formats read (not checked) and with every derived table computed, kept
    compiled between runs under a hash of the format files and of plogscan's code."""
    files = builtin_format_files()
    parts = [code_stamp(), *(part for path in files for part in (path.name, path.read_bytes()))]
    return kept("formats", parts, lambda: _with_tables(read_formats(files)))


def _with_tables(fset: FormatSet) -> FormatSet:
    """``fset`` with its cached tables computed, so that they are kept with it."""
    for table in ("secondary_start_bytes", "secondary_pretest", "prefix_starts",
                  "format_starts", "start_bytes"):
        getattr(fset, table)
    return fset


def check_samples(fset: FormatSet) -> None:
    """Parse every sample with the real parser; raise if any field differs.

    Format samples are parsed as plog lines (those of text-only formats as job stdout) and
    must come out in their own format; prefix
    samples are parsed as job stdout, with the fields they state (``fmt`` among them, for the
    line inside); strip samples must come out as stated; continuation samples must make one
    record with the stated message."""
    errors: list[FormatError] = []
    plog = [line for fmt in fset.formats if not fmt.text_only for line, _, _ in fmt.samples]
    # markdown structure exists only in pasted text: those samples are job stdout, as are
    # the prefixes'
    stdout = [line for fmt in fset.formats if fmt.text_only for line, _, _ in fmt.samples]
    stdout += [line for prefix in fset.prefixes for line, _, _ in prefix.samples]
    parsed = iter(parse_samples(plog, fset))
    parsed_stdout = iter(parse_samples(stdout, fset, SourceKind.STDOUT))
    for fmt in fset.formats:
        for line, expected, where in fmt.samples:
            got = next(parsed_stdout) if fmt.text_only else next(parsed)
            if got.get("fmt") != fmt.name:
                errors.append(FormatError(
                    f"sample is parsed by format '{got.get('fmt')}', not '{fmt.name}'",
                    where=where, help=f"sample: {line[:120]}"))
                continue
            _compare(got, expected, line, where, errors)
    for prefix in fset.prefixes:
        for line, expected, where in prefix.samples:
            _compare(next(parsed_stdout), expected, line, where, errors)
    for strip in fset.strips:
        for line, want, where in strip.samples:
            have = strip.apply(line.encode("utf-8")).decode("utf-8", "replace")
            if have != want:
                errors.append(FormatError(f"strip sample gives {have!r}, expected {want!r}",
                                          where=where))
    for cont in fset.continuations:
        for text, want, where in cont.samples:
            ctx = FileContext(path="<sample>", kind=SourceKind.STDOUT.value)
            records = parse_chunk(text.encode("utf-8"), 1, ctx, fset, open_record=False).records
            messages = records.column("message").to_pylist()
            if messages != [want]:
                errors.append(FormatError(
                    f"continuation sample gives {len(messages)} record(s) {messages!r:.200}, "
                    f"expected one with message {want!r}", where=where))
    if errors:
        raise ErrorGroup(errors)


def _compare(got: dict[str, Any], expected: dict[str, Any], line: str, where: Location,
             errors: list[FormatError]) -> None:
    for key, want in expected.items():
        have = got.get(key)
        if str(have) != str(want):
            errors.append(FormatError(f"sample field '{key}' is {have!r}, expected {want!r}",
                                      where=where, help=f"sample: {line[:120]}"))


@lru_cache(maxsize=1)
def builtin_formats() -> FormatSet:
    """The built-in formats, loaded once per process (their samples are checked by the test
    suite, not by every run)."""
    return load_formats()
