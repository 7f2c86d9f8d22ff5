"""Many small files parsed as one: no fixed cost of milliseconds per file.

Every parse of a chunk costs a few hundred Arrow and numpy calls whatever its size, so a job
directory of 20,000 small plogs parsed file by file spends its time in those calls. Here a
worker reads a group of small plain files itself, joins their lines into one
buffer, parses it once, and cuts the records back into files by line number: path, host and
line numbers are put back per file, rank and device filled from each file's path hints where
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
    """One file of a group: its records (reduced when a reducer was given), its facts and
    its accounting, keyed as in ``FileStats``."""

    records: pa.Table
    facts: pa.Table | None
    stats: dict[str, int]
    problems: list[str] = field(default_factory=list)
    digest: str | None = None  # content digest, when asked for (for the cache)


@dataclass
class _Piece:
    ctx: FileContext
    data: bytes
    nul: int
    bad: int
    size: int
    problem: str | None
    digest: str | None = None


def _read(ctx: FileContext, path: str, digest: bool) -> _Piece:
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
    size = len(raw)
    data = raw[:-1] if raw.endswith(b"\n") else raw  # the final newline ends the last line
    data, nul, bad = clean(data)
    return _Piece(ctx, data, nul, bad, size, None,
                  content_digest(raw).hexdigest() if digest else None)


def parse_files(files: list[tuple[FileContext, str]], fset: FormatSet | None,
                encoded: bool = False, reducer: Reducer | None = None,
                digests: bool = False) -> list[FileOutcome]:
    """Parse a group of small plain files (runs in a worker): all of text kinds (stdout,
    syslog) or none, the one way a file's kind changes how it is parsed; with ``digests``
    each outcome carries its file's content digest."""
    fset = fset or builtin_formats()
    pieces = [_read(ctx, path, digests) for ctx, path in files]
    joinable = [p for p in pieces if p.data and p.size <= SMALL_FILE_BYTES]
    outcomes = None
    if len(joinable) == len(pieces) and len(pieces) > 1:
        outcomes = _joined(pieces, fset, encoded, reducer)
    if outcomes is None:
        outcomes = [_alone(p, fset, encoded, reducer) for p in pieces]
    for piece, outcome in zip(pieces, outcomes, strict=True):
        outcome.digest = piece.digest
        if piece.size > SMALL_FILE_BYTES:  # it grew past the bound since it was listed
            outcome.problems.append(f"the file grew while read: its first "
                                    f"{SMALL_FILE_BYTES} bytes were read")
    return outcomes


def _alone(piece: _Piece, fset: FormatSet, encoded: bool, reducer: Reducer | None
           ) -> FileOutcome:
    stats = {"bytes": piece.size, "nul_bytes": piece.nul, "decode_errors": piece.bad}
    problems = [piece.problem] if piece.problem else []
    if not piece.size:
        return FileOutcome(table_schema(encoded).empty_table(), None, stats, problems)
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
    return FileOutcome(records, facts, stats, problems)


def _reduce_all(records: pa.Table, reducer: Reducer) -> tuple[pa.Table, int, int]:
    """Reduced records of a whole file: its last record need not be kept (nothing follows)."""
    if records.num_rows == 0:
        return records, 0, 0
    mask = np.asarray(reducer.keep(records), dtype=bool)
    counts = records.column("line_count").to_numpy()
    return records.filter(pa.array(mask)), int((~mask).sum()), int(counts[~mask].sum())


def _joined(pieces: list[_Piece], fset: FormatSet, encoded: bool, reducer: Reducer | None
            ) -> list[FileOutcome] | None:
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
    cuts = np.concatenate([[0], np.cumsum(per)])
    record_lines = np.bincount(start_file, weights=count, minlength=n).astype(np.int64)
    fmt = pc.cast(records.column("fmt"), pa.string())
    no_format = pc.fill_null(pc.is_in(fmt, value_set=pa.array(["unparsed", "text"])), False)
    unparsed = np.bincount(start_file, weights=count * no_format.to_numpy(), minlength=n)
    invalid = np.bincount(start_file, weights=records.column("ts_invalid").to_numpy(),
                          minlength=n)
    epoch = np.bincount(start_file, weights=records.column("clock_epoch").to_numpy(),
                        minlength=n)
    facts = _facts_by_file(records, start_file, n) if reducer is not None else None
    kept = None
    if reducer is not None:
        kept = np.asarray(reducer.keep(records), dtype=bool)
    outcomes = []
    for i, piece in enumerate(pieces):
        part = records.slice(int(cuts[i]), int(per[i]))
        whole = True
        if kept is not None:
            own = kept[cuts[i]:cuts[i + 1]]
            whole = bool(own.all())
            part = part.filter(pa.array(own))
        stats = {"bytes": piece.size, "nul_bytes": piece.nul, "decode_errors": piece.bad,
                 "lines": int(lines[i]), "records": int(per[i]),
                 "record_lines": int(record_lines[i]),
                 "blank_lines": int(lines[i] - record_lines[i]),
                 "unparsed_lines": int(unparsed[i]), "truncated_lines": int(truncated[i]),
                 "invalid_timestamps": int(invalid[i]),
                 "epoch_clock_records": int(epoch[i])}
        outcomes.append(FileOutcome(part, as_whole(facts[i], whole) if facts is not None
                                    else None, stats))
    return outcomes


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


def _facts_by_file(records: pa.Table, file_index: np.ndarray, n: int) -> list[pa.Table]:
    """``facts_of`` of each file's records, from one grouped pass over the whole group."""
    if records.num_rows == 0:
        return [FACTS_SCHEMA.empty_table()] * n
    table = facts_of(records.append_column("file", pa.array(file_index, pa.int64())),
                     extra_keys=("file",))
    order = pc.sort_indices(table, sort_keys=[("file", "ascending")])
    table = table.take(order)
    files = table.column("file").to_numpy()
    cuts = np.searchsorted(files, np.arange(n + 1), side="left")
    plain = table.drop_columns(["file"])
    return [plain.slice(int(cuts[i]), int(cuts[i + 1] - cuts[i])) for i in range(n)]


