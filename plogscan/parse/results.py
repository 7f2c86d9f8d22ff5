"""The parser's typed hand-off: what it is told about a file (``FileContext``) and what it
returns for one chunk (``ChunkResult``, with the ``Head`` of lines that continue the record
before the chunk)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from plogscan.schema import SourceKind

TEXT_KINDS = {SourceKind.STDOUT.value, SourceKind.SYSLOG.value}  # no fixed line grammar


@dataclass(frozen=True)
class FileContext:
    """What is known about a file before its content is read."""

    path: str
    kind: str
    host: str | None = None
    rank: int | None = None
    device: int | None = None
    encoding: str = "utf-8"  # what the file was decoded from before parsing


@dataclass
class Head:
    """Lines at the top of a chunk that continue the record before the chunk."""

    text: str  # continuation text from the first non-blank line, joined with "\n"
    first_line: int  # physical line number of that first non-blank line
    lines: int  # physical lines from it to the last continuation line
    lead_blank: int  # blank lines before it at the top of the chunk (counted as blank)
    truncated: bool


@dataclass
class ChunkResult:
    """Records of one chunk and the line accounting that goes with them."""

    records: pa.Table
    head: Head | None
    lines: int = 0
    blank_lines: int = 0  # blank lines outside every record of this chunk
    trailing_blank: int = 0  # blank lines after the chunk's last record (may become interior)
    unparsed_lines: int = 0
    shared_lines: int = 0  # physical lines holding two glued records (counted once)
    truncated_lines: int = 0
    invalid_timestamps: int = 0
    epoch_records: int = 0
    formats_seen: dict[str, int] = field(default_factory=dict)
    # the first ``lead`` records may continue the record before the chunk (``parse.blocks``);
    # they are kept whatever a reducer says, and their facts are left to whoever joins them
    lead: int = 0
    # where each line of the chunk starts, when the parse found them anyway (the skim does):
    # read in the worker that parsed the chunk, never sent on
    line_starts: np.ndarray | None = None

