"""What ingest read (the per-file accounting of every line), the rules that ran and the
processes the logs show."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from plogscan.model.findings import Level


@dataclass(frozen=True)
class SkippedFile:
    path: str
    reason: str


@dataclass(frozen=True)
class FileStats:
    """What ingest saw in one file: every physical line is accounted for here."""

    path: str
    kind: str
    bytes: int = 0
    lines: int = 0
    records: int = 0
    record_lines: int = 0  # physical lines covered by records (a line holding two glued
    # records counts once, so sum(line_count) may exceed it by the number of glued lines)
    blank_lines: int = 0
    unparsed_lines: int = 0  # lines kept as records with a null level
    decode_errors: int = 0  # invalid UTF-8 sequences replaced
    nul_bytes: int = 0
    control_bytes: int = 0  # C0 controls other than whitespace and escape, and DEL
    truncated_lines: int = 0  # physical lines of 1022+ characters
    invalid_timestamps: int = 0
    epoch_clock_records: int = 0
    problems: tuple[str, ...] = ()  # e.g. "gzip stream truncated after 1234 bytes"
    encoding: str = "utf-8"  # what the bytes were decoded from: utf-8, gbk, utf-16-le...


@dataclass(frozen=True)
class LimitHit:
    """A limit that bit: which one (``limit``, its ``option`` and ``value``), on which input,
    and what was not read because of it (``detail``)."""

    limit: str
    option: str
    value: int
    path: str
    detail: str


@dataclass(frozen=True)
class IngestSummary:
    """The ``inputs`` section of every report."""

    paths: tuple[str, ...]
    files: tuple[FileStats, ...]
    skipped: tuple[SkippedFile, ...]
    limits: tuple[LimitHit, ...] = ()  # every limit that bit, in input order
    # Paths named on the command line that could not be read at all (they do not exist,
    # cannot be opened or listed), in the order given, each with the system's reason: the
    # run is incomplete, and the command line exits 2 after writing its reports.
    errors: tuple[SkippedFile, ...] = ()

    @property
    def lines(self) -> int:
        return sum(f.lines for f in self.files)

    @property
    def records(self) -> int:
        return sum(f.records for f in self.files)

    @property
    def unparsed_lines(self) -> int:
        return sum(f.unparsed_lines for f in self.files)


@dataclass(frozen=True)
class RuleInfo:
    """Rule metadata reporters need (SARIF rule descriptors, JUnit test cases)."""

    id: str
    name: str
    title: str
    category: str
    level: Level
    description: str
    remediation: tuple[str, ...] = ()
    references: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProcessInfo:
    """One process seen in the logs: who it is and which log levels it wrote."""

    host: str | None
    pid: int
    rank: int | None
    device: int | None
    levels: tuple[str, ...]
    first_ts: datetime | None
    last_ts: datetime | None
