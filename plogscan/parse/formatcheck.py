"""The checked format set: formats whose every sample line parses, with the real parser, to
the fields it states.

Loading formats and checking their samples are two steps because the parser is built on the
format definitions (``lineformats``); the check needs both, so it lives above them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from plogscan.errors import ErrorGroup, FormatError
from plogscan.parse.chunk import parse_sample, parse_samples
from plogscan.parse.lineformats import FormatSet, read_formats


def load_formats(paths: Sequence[Path] | None = None) -> FormatSet:
    """Load format files (the built-in ones by default) and check every sample parses."""
    fset = read_formats(paths)
    check_samples(fset)
    return fset


def check_samples(fset: FormatSet) -> None:
    """Parse every sample line with the real parser; raise if any field differs."""
    errors: list[FormatError] = []
    every = [line for fmt in fset.formats for line, _, _ in fmt.samples]
    parsed = iter(parse_samples(every, fset) or [parse_sample(line, fset) for line in every])
    for fmt in fset.formats:
        for line, expected, where in fmt.samples:
            got = next(parsed)
            if got.get("fmt") != fmt.name:
                errors.append(FormatError(
                    f"sample is parsed by format '{got.get('fmt')}', not '{fmt.name}'",
                    where=where, help=f"sample: {line[:120]}"))
                continue
            for key, want in expected.items():
                have = got.get(key)
                if str(have) != str(want):
                    errors.append(FormatError(
                        f"sample field '{key}' is {have!r}, expected {want!r}", where=where,
                        help=f"sample: {line[:120]}"))
    if errors:
        raise ErrorGroup(errors)


@lru_cache(maxsize=1)
def builtin_formats() -> FormatSet:
    """The built-in formats, loaded and checked once per process."""
    return load_formats()
