"""Many small files parsed as one: no fixed cost of milliseconds per file.

Every parse of a chunk costs a few hundred Arrow and numpy calls whatever its size, so a job
directory of 20,000 small plogs parsed file by file spends its time in those calls. Here a
worker takes a group of small plain files (the bytes of each that the walk read whole when it
sniffed it, else its path, which the worker reads), joins their lines into one buffer, parses
it once, and cuts the records back into files by line number: path, host and line numbers
are put back per file, rank and device filled from each file's path hints where
the content names none. The accounting of each file comes from its own records (lines,
records, record lines, blank, unparsed, invalid and 1970 timestamps) and its own bytes (NUL
bytes, decode errors).

The joined parse is used only when it provably gives what parsing each file alone gives:
every record ends in the file it starts in, and no line of the group was glued or cut.
Otherwise (a file that starts with continuation lines, a glued or over-long line) each file
of the group is parsed alone, as ``chunks.parse_task`` would.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.ingest.chunks import CHUNK_BYTES, clean
from plogscan.ingest.facts import FACTS_SCHEMA, Reducer, as_whole, facts_of
from plogscan.ingest.reuse import content_digest
from plogscan.parse.chunk import parse_chunk
from plogscan.parse.formatcheck import builtin_formats
from plogscan.parse.lineformats import FormatSet
from plogscan.parse.messages import TRUNCATION_CHARS
from plogscan.parse.pasted import strip_text
from plogscan.parse.results import TEXT_KINDS, FileContext
from plogscan.schema import STORED_SCHEMA, table_schema

SMALL_FILE_BYTES = 256 << 10  # plain files up to this size are parsed in groups
GROUP_BYTES = CHUNK_BYTES
GROUP_FILES = 4096


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

    def file_records(self) -> list[pa.Table]:
        """Each file's records: slices of the group's table, in file order."""
        return _cut(self.records, [f.records for f in self.files])

    def file_facts(self) -> list[pa.Table]:
        """Each file's facts (empty without a reducer)."""
        if self.facts is None:
            return [FACTS_SCHEMA.empty_table()] * len(self.files)
        return _cut(self.facts, [f.fact_rows for f in self.files])


def _cut(table: pa.Table, counts: list[int]) -> list[pa.Table]:
    starts = np.concatenate(([0], np.cumsum(counts, dtype=np.int64)))
    return [table.slice(int(starts[i]), counts[i]) for i in range(len(counts))]


@dataclass
class _Piece:
    ctx: FileContext
    data: bytes
    nul: int
    bad: int
    size: int
    problem: str | None
    digest: str | None = None


def _read(ctx: FileContext, path: str, whole: bytes | None, digest: bool) -> _Piece:
    """The bytes of one file of the group: ``whole`` when the walk read all of them already,
    else read from ``path``."""
    if whole is not None:
        return _piece(ctx, whole, digest)
    try:
        # Without blocking, and only a regular file: the walk checked it, but it may have been
        # swapped for a FIFO since.
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
        with open(path, "rb", opener=lambda p, _f: os.open(p, flags)) as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise OSError(errno.EINVAL, "no longer a regular file")
            raw = handle.read(SMALL_FILE_BYTES + 1)
    except OSError as err:
        return _Piece(ctx, b"", 0, 0, 0, f"read stopped at byte 0: {type(err).__name__}: {err}")
    return _piece(ctx, raw, digest)


def _piece(ctx: FileContext, raw: bytes, digest: bool) -> _Piece:
    """A file's bytes as the group joins them: the final newline off, NUL and undecodable
    bytes counted and replaced (``chunks.clean``)."""
    size = len(raw)
    data = raw[:-1] if raw.endswith(b"\n") else raw  # the final newline ends the last line
    data, nul, bad = clean(data)
    return _Piece(ctx, data, nul, bad, size, None,
                  content_digest(raw).hexdigest() if digest else None)


def parse_files(files: list[tuple[FileContext, str, bytes | None]], fset: FormatSet | None,
                encoded: bool = False, reducer: Reducer | None = None,
                digests: bool = False) -> GroupOutcome:
    """Parse a group of small plain files (runs in a worker): each given by its path and, when
    the walk read all of it already, its bytes; with ``digests`` each outcome carries its
    file's content digest.

    Text kinds (stdout, syslog) are parsed apart from the others, the one way a file's kind
    changes how it is parsed, and the records put back in file order: a job directory lists a
    rank's stdout beside its plogs, and a group cut at every change of kind held one file."""
    fset = fset or builtin_formats()
    pieces = [_read(ctx, path, whole, digests) for ctx, path, whole in files]
    text = [p.ctx.kind in TEXT_KINDS for p in pieces]
    if all(text) or not any(text):
        group = _parse_alike(pieces, fset, encoded, reducer)
    else:
        group = _in_file_order(pieces, text, fset, encoded, reducer)
    for piece, outcome in zip(pieces, group.files, strict=True):
        outcome.digest = piece.digest
        if piece.size > SMALL_FILE_BYTES:  # it grew past the bound since it was listed
            outcome.problems.append(f"the file grew while read: its first "
                                    f"{SMALL_FILE_BYTES} bytes were read")
    return group


def _parse_alike(pieces: list[_Piece], fset: FormatSet, encoded: bool,
                 reducer: Reducer | None) -> GroupOutcome:
    """Files all of text kinds or none: joined when that is exact, else each alone."""
    joinable = [p for p in pieces if p.data and p.size <= SMALL_FILE_BYTES]
    group = None
    if len(joinable) == len(pieces) and len(pieces) > 1:
        group = _joined(pieces, fset, encoded, reducer)
    return group if group is not None else _each_alone(pieces, fset, encoded, reducer)


def _in_file_order(pieces: list[_Piece], text: list[bool], fset: FormatSet, encoded: bool,
                   reducer: Reducer | None) -> GroupOutcome:
    """The text files and the others parsed apart, put back together in file order (one
    ``take`` of each table, not a slice per file)."""
    records: list[pa.Table] = []
    facts: list[pa.Table] = []
    record_owner: list[np.ndarray] = []  # the file (its index in ``pieces``) of each row
    fact_owner: list[np.ndarray] = []
    outcomes: list[FileOutcome | None] = [None] * len(pieces)
    for kind in (False, True):
        where = np.array([i for i, t in enumerate(text) if t == kind], dtype=np.int64)
        part = _parse_alike([pieces[i] for i in where], fset, encoded, reducer)
        records.append(part.records)
        record_owner.append(np.repeat(where, [f.records for f in part.files]))
        if reducer is not None:
            assert part.facts is not None
            facts.append(part.facts)
            fact_owner.append(np.repeat(where, [f.fact_rows for f in part.files]))
        for i, outcome in zip(where, part.files, strict=True):
            outcomes[i] = outcome
    placed = _by_owner(records, record_owner)
    placed_facts = _by_owner(facts, fact_owner) if reducer is not None else None
    return GroupOutcome(placed, placed_facts, outcomes)  # type: ignore[arg-type]


def _by_owner(tables: list[pa.Table], owners: list[np.ndarray]) -> pa.Table:
    """The rows of ``tables``, joined, ordered by owner (stable: each owner's rows keep their
    order)."""
    joined = pa.concat_tables(tables).combine_chunks()
    order = np.argsort(np.concatenate(owners), kind="stable")
    return joined.take(pa.array(order)) if len(order) else joined


def _each_alone(pieces: list[_Piece], fset: FormatSet, encoded: bool,
                reducer: Reducer | None) -> GroupOutcome:
    parts = [_alone(p, fset, encoded, reducer) for p in pieces]
    tables = [r for r, _f, _o in parts if r.num_rows]
    records = (pa.concat_tables(tables).combine_chunks() if tables
               else table_schema(encoded).empty_table())
    facts = None
    if reducer is not None:
        found = [f for _r, f, _o in parts if f is not None and f.num_rows]
        facts = (pa.concat_tables(found).combine_chunks() if found
                 else FACTS_SCHEMA.empty_table())
    return GroupOutcome(records, facts, [o for _r, _f, o in parts])


def _alone(piece: _Piece, fset: FormatSet, encoded: bool, reducer: Reducer | None
           ) -> tuple[pa.Table, pa.Table | None, FileOutcome]:
    """One file's records, facts and outcome."""
    stats = {"bytes": piece.size, "nul_bytes": piece.nul, "decode_errors": piece.bad}
    problems = [piece.problem] if piece.problem else []
    if not piece.size:
        return table_schema(encoded).empty_table(), None, FileOutcome(0, 0, stats, problems)
    result = parse_chunk(piece.data, 1, piece.ctx, fset, False, encoded)
    records = result.records
    facts = facts_of(records) if reducer is not None else None
    line_counts = records.column("line_count").to_numpy()
    stats.update(lines=result.lines, blank_lines=result.blank_lines,
                 unparsed_lines=result.unparsed_lines, truncated_lines=result.truncated_lines,
                 invalid_timestamps=result.invalid_timestamps,
                 epoch_clock_records=result.epoch_records, records=records.num_rows,
                 record_lines=int(line_counts.sum()) - result.shared_lines)
    if reducer is not None:
        records, dropped, _lines = _reduce_all(records, reducer)
        facts = as_whole(facts, dropped == 0) if facts is not None else None
    outcome = FileOutcome(records.num_rows, facts.num_rows if facts is not None else 0, stats,
                          problems)
    return records, facts, outcome


def _reduce_all(records: pa.Table, reducer: Reducer) -> tuple[pa.Table, int, int]:
    """Reduced records of a whole file: its last record need not be kept (nothing follows)."""
    if records.num_rows == 0:
        return records, 0, 0
    mask = np.asarray(reducer.keep(records), dtype=bool)
    counts = records.column("line_count").to_numpy()
    return records.filter(pa.array(mask)), int((~mask).sum()), int(counts[~mask].sum())


def _joined(pieces: list[_Piece], fset: FormatSet, encoded: bool, reducer: Reducer | None
            ) -> GroupOutcome | None:
    kind = pieces[0].ctx.kind
    lines = np.array([p.data.count(b"\n") + 1 for p in pieces], dtype=np.int64)
    bounds = np.cumsum(lines)  # last global line of each file
    first = bounds - lines  # global lines before each file
    ctx = FileContext(path="", kind=kind)
    result = parse_chunk(b"\n".join(p.data for p in pieces), 1, ctx, fset, False, encoded)
    if result.head is not None or result.shared_lines:
        return None
    text = kind in TEXT_KINDS  # the parser strips terminal colour codes from these first
    truncated = np.array([_long_lines(strip_text(p.data, fset) if text else p.data)
                          for p in pieces], dtype=np.int64)
    if int(truncated.sum()) != result.truncated_lines:
        return None
    records = result.records
    line = records.column("line").to_numpy()
    count = records.column("line_count").to_numpy().astype(np.int64)
    start_file = np.searchsorted(bounds, line, side="left")
    end_file = np.searchsorted(bounds, line + count - 1, side="left")
    if not np.array_equal(start_file, end_file) or int(lines.sum()) != result.lines:
        return None
    records = _per_file_columns(records, pieces, start_file, line - first[start_file], encoded)
    n = len(pieces)
    per = np.bincount(start_file, minlength=n)
    record_lines = np.bincount(start_file, weights=count, minlength=n).astype(np.int64)
    fmt = pc.cast(records.column("fmt"), pa.string())
    no_format = pc.fill_null(pc.is_in(fmt, value_set=pa.array(["unparsed", "text"])), False)
    unparsed = np.bincount(start_file, weights=count * no_format.to_numpy(), minlength=n)
    invalid = np.bincount(start_file, weights=records.column("ts_invalid").to_numpy(),
                          minlength=n)
    epoch = np.bincount(start_file, weights=records.column("clock_epoch").to_numpy(),
                        minlength=n)
    facts = fact_rows = None
    kept_per = per
    if reducer is not None:
        kept = np.asarray(reducer.keep(records), dtype=bool)
        kept_per = np.bincount(start_file[kept], minlength=n)
        facts, fact_rows = _facts_by_file(records, start_file, n, whole=kept_per == per)
        records = records.filter(pa.array(kept))
    outcomes = []
    for i, piece in enumerate(pieces):
        stats = {"bytes": piece.size, "nul_bytes": piece.nul, "decode_errors": piece.bad,
                 "lines": int(lines[i]), "records": int(per[i]),
                 "record_lines": int(record_lines[i]),
                 "blank_lines": int(lines[i] - record_lines[i]),
                 "unparsed_lines": int(unparsed[i]), "truncated_lines": int(truncated[i]),
                 "invalid_timestamps": int(invalid[i]),
                 "epoch_clock_records": int(epoch[i])}
        outcomes.append(FileOutcome(int(kept_per[i]),
                                    int(fact_rows[i]) if fact_rows is not None else 0, stats))
    return GroupOutcome(records, facts, outcomes)


def _long_lines(data: bytes) -> int:
    """Lines of at least ``TRUNCATION_CHARS`` characters, as the parser counts them."""
    if len(data) < TRUNCATION_CHARS:
        return 0
    return sum(1 for line in data.split(b"\n") if len(line) >= TRUNCATION_CHARS
               and len(line.decode("utf-8", "replace")) >= TRUNCATION_CHARS)


def _per_file_columns(records: pa.Table, pieces: list[_Piece], file_index: np.ndarray,
                      lines: np.ndarray, encoded: bool) -> pa.Table:
    """Path, host, line, rank and device of each record from its own file."""
    take = pa.array(file_index)

    def text(values: list[str | None]) -> pa.Array:
        column = pa.array(values, pa.string()).take(take)
        return column.dictionary_encode() if encoded else column

    def number(name: str, values: list[int | None]) -> pa.Array:
        hints = pa.array(values, pa.int64()).take(take)
        column = records.column(name)
        return pc.coalesce(column, hints.cast(column.type))

    schema = records.schema
    replaced = {
        "kind": text([p.ctx.kind for p in pieces]),
        "path": text([p.ctx.path for p in pieces]),
        "host": text([p.ctx.host for p in pieces]),
        "line": pa.array(lines, pa.int64()),
        "rank": number("rank", [p.ctx.rank for p in pieces]),
        "device": number("device", [p.ctx.device for p in pieces]),
    }
    if encoded:
        for name in ("kind", "path", "host"):
            replaced[name] = replaced[name].cast(STORED_SCHEMA.field(name).type)
    for name, column in replaced.items():
        index = schema.get_field_index(name)
        records = records.set_column(index, schema.field(name), column)
    return records


def _facts_by_file(records: pa.Table, file_index: np.ndarray, n: int, whole: np.ndarray
                   ) -> tuple[pa.Table, np.ndarray]:
    """``facts_of`` of each file's records, from one grouped pass over the whole group: the
    facts in file order, and how many rows each file has. ``whole[i]``: every record of
    file ``i`` is handed on (its facts say so)."""
    if records.num_rows == 0:
        return FACTS_SCHEMA.empty_table(), np.zeros(n, np.int64)
    table = facts_of(records.append_column("file", pa.array(file_index, pa.int64())),
                     extra_keys=("file",))
    order = pc.sort_indices(table, sort_keys=[("file", "ascending")])
    table = table.take(order)
    files = table.column("file").to_numpy()
    index = table.schema.get_field_index("whole")
    table = table.set_column(index, table.schema.field(index), pa.array(whole[files]))
    return table.drop_columns(["file"]), np.bincount(files, minlength=n)


