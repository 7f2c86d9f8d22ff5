"""What a group of small files is made of and what its parse hands back: each file's bytes
(``Piece``), and the group's records, facts and per-file outcomes (``GroupOutcome``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pyarrow as pa

from plogscan.parse.results import FileContext
from plogscan.schema.facts import FACTS_SCHEMA


@dataclass
class FileOutcome:
    """One file of a group: how many of the group's records and fact rows are its own (they
    follow the files before it), and its accounting, keyed as in ``FileStats``."""

    records: int
    fact_rows: int
    stats: dict[str, int]
    problems: list[str] = field(default_factory=list)
    digest: str | None = None  # content digest, when asked for (for the cache)


@dataclass
class GroupOutcome:
    """What a group's parse hands back: the records of all its files (reduced when a
    reducer was given) and their facts, each in file order, and each file's outcome.

    One table for the group, not one per file: a slice of a table pickles (to the main
    process, or from a cluster's worker) with all of the buffers it is cut from, so
    thousands of per-file slices would each carry the whole group."""

    records: pa.Table
    facts: pa.Table | None
    files: list[FileOutcome]

    def file_records(self, index: int) -> pa.Table:
        """File ``index``'s records: a slice of the group's table. Only the files whose
        extraction the cache keeps ask, so only theirs are cut (cutting every file of every
        group made a first run with the cache over 20,000 small files a quarter longer)."""
        return self.records.slice(int(self._record_starts[index]), self.files[index].records)

    def file_facts(self, index: int) -> pa.Table:
        """File ``index``'s facts (empty without a reducer)."""
        if self.facts is None:
            return FACTS_SCHEMA.empty_table()
        return self.facts.slice(int(self._fact_starts[index]), self.files[index].fact_rows)

    @cached_property
    def _record_starts(self) -> np.ndarray:
        return _starts([f.records for f in self.files])

    @cached_property
    def _fact_starts(self) -> np.ndarray:
        return _starts([f.fact_rows for f in self.files])


def _starts(counts: list[int]) -> np.ndarray:
    """Where each file's rows start in a group's table: the sums of the counts before it."""
    return np.concatenate(([0], np.cumsum(counts, dtype=np.int64)))


@dataclass
class Piece:
    """One file of a group as the group joins it: its bytes (the final newline off, NUL and
    undecodable bytes replaced and counted), its size on disk and any read problem."""

    ctx: FileContext
    data: bytes
    nul: int
    bad: int
    size: int
    problem: str | None
    digest: str | None = None
    control: int = 0  # control bytes (``chunks.control_bytes``)
