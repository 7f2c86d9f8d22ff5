"""Many small files parsed as one: no fixed cost of milliseconds per file.

Every parse of a chunk costs a few hundred Arrow and numpy calls whatever its size, so a job
directory of 20,000 small plogs parsed file by file spends its time in those calls. Here a
worker takes a group of small plain files (the bytes of each that the walk read whole when it
sniffed it, else its path, which the worker reads) and parses them as one buffer
(``joined.parse_joined``), where that provably gives what parsing each file alone gives.
Otherwise (a file that starts with continuation lines, a glued or over-long line) each file
of the group is parsed alone, as ``chunks.parse_task`` would.
"""

from __future__ import annotations

import errno
import os
import stat

import numpy as np
import pyarrow as pa

from plogscan.cache.digest import content_digest
from plogscan.ingest.chunks import CHUNK_BYTES, clean
from plogscan.ingest.contextlines import (
    CONTEXT_COLUMNS,
    LINES,
    ContextSpec,
    Lines,
    with_context_columns,
)
from plogscan.ingest.facts import Reducer, as_whole, facts_of
from plogscan.ingest.groups import FileOutcome, GroupOutcome, Piece
from plogscan.ingest.joined import parse_joined
from plogscan.parse.arrays import distinct
from plogscan.parse.chunk import parse_chunk
from plogscan.parse.formatcheck import builtin_formats
from plogscan.parse.lineformats import FormatSet
from plogscan.parse.results import TEXT_KINDS, FileContext
from plogscan.schema import table_schema
from plogscan.schema.facts import FACTS_SCHEMA

__all__ = ["GROUP_BYTES", "GROUP_FILES", "SMALL_FILE_BYTES", "FileOutcome", "GroupOutcome",
           "parse_files"]

SMALL_FILE_BYTES = 256 << 10  # plain files up to this size are parsed in groups
GROUP_BYTES = CHUNK_BYTES
GROUP_FILES = 4096


def _with_context(group: GroupOutcome, pieces: list[Piece], spec: ContextSpec) -> pa.Table:
    """The group's records with the context lines of those rules may use: one marker pass
    over the group, then one pass over the files that hold one, joined (each a whole file:
    no edges; each row's lines kept inside its own file)."""
    records = group.records
    marked = np.flatnonzero(np.asarray(spec.marker.candidates(records), dtype=bool))
    if not len(marked):
        return with_context_columns(records)
    starts = np.concatenate(([0], np.cumsum([f.records for f in group.files])))
    owner = np.searchsorted(starts, marked, side="right") - 1
    used = distinct(owner)  # the files that hold a marked record, joined by newlines
    lines_in = np.array([pieces[i].data.count(b"\n") + 1 for i in used], np.int64)
    first_of = np.concatenate(([0], np.cumsum(lines_in)[:-1]))
    joined = Lines(b"\n".join(pieces[i].data for i in used))
    at = np.searchsorted(used, owner)
    low, high = first_of[at], first_of[at] + lines_in[at]
    sub = records.take(pa.array(marked))
    first = sub.column("line").to_numpy().astype(np.int64) - 1 + low
    counts = sub.column("line_count").fill_null(1).to_numpy().astype(np.int64)
    found = joined.around(first, first + counts, spec.radius, low, high)
    index = np.full(records.num_rows, -1, np.int64)
    index[marked] = np.arange(len(marked))
    take = pa.array(np.maximum(index, 0), pa.int64(), mask=index < 0)
    for name, column in zip(CONTEXT_COLUMNS, found, strict=True):
        records = records.append_column(pa.field(name, LINES), column.take(take))
    return records


def _read(ctx: FileContext, path: str, whole: bytes | int | None, digest: bool) -> Piece:
    """The bytes of one file of the group: ``whole`` when the walk read all of them already,
    read from the descriptor ``whole`` when it is one (the walk's, duplicated: a worker
    thread reads it without opening the file again), else read from ``path``."""
    if isinstance(whole, bytes):
        return _piece(ctx, whole, digest)
    if isinstance(whole, int):
        try:
            return _piece(ctx, os.pread(whole, SMALL_FILE_BYTES + 1, 0), digest)
        except OSError as err:
            return Piece(ctx, b"", 0, 0, 0,
                         f"read stopped at byte 0: {type(err).__name__}: {err}")
    try:
        # Without blocking, and only a regular file: the walk checked it, but it may have been
        # swapped for a FIFO since.
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
        with open(path, "rb", opener=lambda p, _f: os.open(p, flags)) as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise OSError(errno.EINVAL, "no longer a regular file")
            raw = handle.read(SMALL_FILE_BYTES + 1)
    except OSError as err:
        return Piece(ctx, b"", 0, 0, 0, f"read stopped at byte 0: {type(err).__name__}: {err}")
    return _piece(ctx, raw, digest)


def _piece(ctx: FileContext, raw: bytes, digest: bool) -> Piece:
    """A file's bytes as the group joins them: the final newline off, NUL and undecodable
    bytes counted and replaced (``chunks.clean``)."""
    size = len(raw)
    data = raw[:-1] if raw.endswith(b"\n") else raw  # the final newline ends the last line
    data, nul, bad, control = clean(data)
    return Piece(ctx, data, nul, bad, size, None,
                 content_digest(raw).hexdigest() if digest else None, control)


def parse_files(files: list[tuple[FileContext, str, bytes | int | None]],
                fset: FormatSet | None,
                encoded: bool = False, reducer: Reducer | None = None,
                digests: bool = False, context: ContextSpec | None = None) -> GroupOutcome:
    """Parse a group of small plain files (runs in a worker): each given by its path and, when
    the walk read all of it already, its bytes (or a descriptor to read it from, see
    ``_read``); with ``digests`` each outcome carries its file's content digest; with
    ``context``, the records carry the lines around those rules may use
    (``contextlines``).

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
    if context is not None:
        group.records = _with_context(group, pieces, context)
    for piece, outcome in zip(pieces, group.files, strict=True):
        outcome.digest = piece.digest
        if piece.size > SMALL_FILE_BYTES:  # it grew past the bound since it was listed
            outcome.problems.append(f"the file grew while read: its first "
                                    f"{SMALL_FILE_BYTES} bytes were read")
    return group


def _parse_alike(pieces: list[Piece], fset: FormatSet, encoded: bool,
                 reducer: Reducer | None) -> GroupOutcome:
    """Files all of text kinds or none: joined when that is exact, else each alone."""
    joinable = [p for p in pieces if p.data and p.size <= SMALL_FILE_BYTES]
    group = None
    if len(joinable) == len(pieces) and len(pieces) > 1:
        group = parse_joined(pieces, fset, encoded, reducer)
    return group if group is not None else _each_alone(pieces, fset, encoded, reducer)


def _in_file_order(pieces: list[Piece], text: list[bool], fset: FormatSet, encoded: bool,
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


def _each_alone(pieces: list[Piece], fset: FormatSet, encoded: bool,
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


def _alone(piece: Piece, fset: FormatSet, encoded: bool, reducer: Reducer | None
           ) -> tuple[pa.Table, pa.Table | None, FileOutcome]:
    """One file's records, facts and outcome."""
    stats = {"bytes": piece.size, "nul_bytes": piece.nul, "decode_errors": piece.bad,
             "control_bytes": piece.control}
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
