"""The limits that keep one run bounded whatever the input, and the record of each one that bit.

Every limit has a default that a real job's logs never reach, a command-line option to change
it (``LIMIT_OPTIONS`` lists them for ``--help`` and the README), and, when it bites, a
``LimitHit`` in the ``inputs`` section of every report that says what was not read and why.

* ``line_bytes``: a physical line longer than this keeps its first ``line_bytes`` bytes; the
  rest of the line is counted, not read, and the line is flagged ``truncated``.
* ``decompressed_bytes``: one compressed stream (a ``.gz``/``.bz2``/``.xz`` file, a compressed
  tar, one zip member) stops after producing this many bytes.
* ``ratio``: a compressed stream stops once it has produced ``ratio_floor`` bytes (256 MiB),
  more than ``ratio`` times its compressed size, *and* what it just produced does not look like
  log text (no line break, or mostly NUL bytes): a bomb's filler. A genuine log, however
  compressible (repeated DEBUG lines reach thousands to one under xz), is never cut by the
  ratio; it is bounded by ``decompressed_bytes`` like any other stream.
* ``nesting``: compression and archive layers inside one another.
* ``depth``: directory levels below a directory named on the command line.
* ``files``: files read (plain files and archive members) in the whole run.
* ``findings`` (``diagnose`` only): findings of one rule without ``by`` groups, which makes a
  finding of every record it matches; past it, its earliest records are findings and the
  others are counted (the hit's ``path`` is the rule's id).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from plogscan.model import LimitHit

__all__ = ["LIMIT_OPTIONS", "LimitHit", "LimitOption", "Limits", "format_size", "parse_size"]


@dataclass(frozen=True)
class Limits:
    """How much of the input one run may read; see the module docstring for each field."""

    line_bytes: int = 8 << 20
    decompressed_bytes: int = 64 << 30
    ratio: int = 1000
    ratio_floor: int = 256 << 20
    nesting: int = 8
    depth: int = 64
    files: int = 1_000_000
    findings: int = 10_000

    def hit(self, name: str, path: str, detail: str) -> LimitHit:
        """The record of limit ``name`` (a field of this class) biting on ``path``."""
        option = next(o for o in LIMIT_OPTIONS if o.field == name)
        return LimitHit(limit=name, option=option.flag, value=getattr(self, name), path=path,
                        detail=detail)


@dataclass(frozen=True)
class LimitOption:
    """One limit as the command line spells it."""

    field: str
    flag: str
    metavar: str
    size: bool  # takes a size with a K/M/G/T suffix
    help: str
    diagnose_only: bool = False  # bounds what the rules report, not what is read


LIMIT_OPTIONS = (
    LimitOption("line_bytes", "--max-line-bytes", "SIZE", True,
                "Longest physical line kept; a longer one keeps its first SIZE bytes and is "
                "flagged truncated."),
    LimitOption("decompressed_bytes", "--max-decompressed", "SIZE", True,
                "Bytes one compressed file, compressed tar or zip member may produce."),
    LimitOption("ratio", "--max-ratio", "N", False,
                "Stop a compressed stream past 256 MiB of output that is not log text (no line "
                "breaks, or NUL bytes) when it produced more than N times its compressed size: "
                "a decompression bomb (0: no ratio check)."),
    LimitOption("nesting", "--max-nesting", "N", False,
                "Compression and archive layers read inside one another."),
    LimitOption("depth", "--max-depth", "N", False,
                "Directory levels walked below each directory given."),
    LimitOption("files", "--max-files", "N", False,
                "Files (plain files and archive members) read in one run."),
    LimitOption("findings", "--max-findings", "N", False,
                "Findings of one rule without `by` groups (a finding per matching record): "
                "past N its earliest N records are findings and the rest are counted.",
                diagnose_only=True),
)

_SIZE = re.compile(r"(?i)\s*(\d+)\s*([kmgt]?)(?:i?b)?\s*")
_UNITS = {"": 0, "k": 10, "m": 20, "g": 30, "t": 40}


def parse_size(text: str) -> int:
    """``"64M"`` -> 67108864 (binary units; a plain number is bytes). Raises ``ValueError``."""
    m = _SIZE.fullmatch(text)
    if not m:
        raise ValueError(f"{text!r} is not a size: write a number of bytes, or 64K, 8M, 2G, 1T")
    return int(m.group(1)) << _UNITS[m.group(2).lower()]


def format_size(value: int) -> str:
    """8388608 -> ``"8 MiB"``: the largest binary unit that divides the value, else bytes."""
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if value >= 1 << shift and value % (1 << shift) == 0:
            return f"{value >> shift} {unit}"
    return f"{value} bytes"
