"""A group of small files parsed as one buffer and cut back into files.

The files' lines are joined into one buffer, parsed once (skimmed first when diagnose's
reduced parse would skim a chunk: the records no rule needs are summarized, not parsed), and
the records cut back into files by line number: path, host and line numbers are put back per
file, rank and device filled from each file's path hints where the content names none. The
accounting of each file comes from its own records and the skim's summary of its skipped ones
(lines, records, record lines, blank, unparsed, invalid and 1970 timestamps) and its own bytes
(NUL bytes, decode errors).

It is used only when it provably gives what parsing each file alone gives: every record,
skipped or parsed, ends in the file it starts in, and no line of the group was glued or cut;
otherwise ``parse_joined`` says None and the caller parses each file alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.ingest.facts import Reducer, facts_of, in_line_order, merged_facts
from plogscan.ingest.groups import FileOutcome, GroupOutcome, Piece
from plogscan.ingest.skimming import skim_and_parse, skipped_facts
from plogscan.parse.arrowtext import split_lines
from plogscan.parse.chunk import parse_chunk
from plogscan.parse.lineformats import FormatSet
from plogscan.parse.messages import long_lines
from plogscan.parse.pasted import strip_text
from plogscan.parse.results import TEXT_KINDS, FileContext
from plogscan.parse.skim import Skimmed
from plogscan.schema import ENCODED_TEXT
from plogscan.schema.facts import FACTS_SCHEMA


def parse_joined(pieces: list[Piece], fset: FormatSet, encoded: bool, reducer: Reducer | None
            ) -> GroupOutcome | None:
    """The group parsed as one buffer (skimmed first where the chunk path would skim it),
    cut back into files; None when that would not give what parsing each file alone gives."""
    kind = pieces[0].ctx.kind
    lines = np.array([p.data.count(b"\n") + 1 for p in pieces], dtype=np.int64)
    bounds = np.cumsum(lines)  # last global line of each file
    first = bounds - lines  # global lines before each file
    ctx = FileContext(path="", kind=kind)
    data = b"\n".join(p.data for p in pieces)
    skimmed = (skim_and_parse(data, 1, ctx, fset, False, encoded, reducer)
               if reducer is not None else None)
    result, skim = skimmed if skimmed is not None else (
        parse_chunk(data, 1, ctx, fset, False, encoded), None)
    if result.head is not None or result.shared_lines:
        return None
    # the parser strips terminal colour codes from text kinds first (never a newline)
    seen = (b"\n".join(strip_text(p.data, fset) for p in pieces) if kind in TEXT_KINDS
            else data)
    # the parser's own count of long lines, per file (each has one line at least)
    truncated = np.add.reduceat(long_lines(split_lines(seen)).astype(np.int64), first)
    if int(truncated.sum()) != result.truncated_lines:
        return None
    records = result.records
    line = records.column("line").to_numpy()
    count = records.column("line_count").to_numpy().astype(np.int64)
    start_file = np.searchsorted(bounds, line, side="left")
    end_file = np.searchsorted(bounds, line + count - 1, side="left")
    if not np.array_equal(start_file, end_file) or int(lines.sum()) != result.lines:
        return None
    n = len(pieces)
    skipped = _Skipped.of(skim, bounds, n) if skim is not None else _Skipped.none(n)
    if skipped is None:  # a skipped record runs on into the next file
        return None
    records = _per_file_columns(records, pieces, start_file, line - first[start_file], encoded)
    per = np.bincount(start_file, minlength=n) + skipped.records
    record_lines = (np.bincount(start_file, weights=count, minlength=n).astype(np.int64)
                    + skipped.lines)
    fmt = pc.cast(records.column("fmt"), pa.string())
    no_format = pc.fill_null(pc.is_in(fmt, value_set=pa.array(["unparsed", "text"])), False)
    unparsed = np.bincount(start_file, weights=count * no_format.to_numpy(), minlength=n)
    invalid = skipped.invalid + np.bincount(
        start_file, weights=records.column("ts_invalid").to_numpy(), minlength=n)
    epoch = skipped.epoch + np.bincount(
        start_file, weights=records.column("clock_epoch").to_numpy(), minlength=n)
    facts = fact_rows = None
    kept_per = per
    if reducer is not None:
        kept = np.asarray(reducer.keep(records), dtype=bool)
        kept_per = np.bincount(start_file[kept], minlength=n)
        skipped_facts = (skipped.facts(skim, pieces, first)
                         if skim is not None else None)
        facts, fact_rows = _facts_by_file(records, start_file, n, kept_per == per,
                                          skipped_facts)
        records = records.filter(pa.array(kept))
    outcomes = []
    for i, piece in enumerate(pieces):
        stats = {"bytes": piece.size, "nul_bytes": piece.nul, "decode_errors": piece.bad,
                 "control_bytes": piece.control,
                 "lines": int(lines[i]), "records": int(per[i]),
                 "record_lines": int(record_lines[i]),
                 "blank_lines": int(lines[i] - record_lines[i]),
                 "unparsed_lines": int(unparsed[i]), "truncated_lines": int(truncated[i]),
                 "invalid_timestamps": int(invalid[i]),
                 "epoch_clock_records": int(epoch[i])}
        outcomes.append(FileOutcome(int(kept_per[i]),
                                    int(fact_rows[i]) if fact_rows is not None else 0, stats))
    return GroupOutcome(records, facts, outcomes)


@dataclass
class _Skipped:
    """Per file of a group: the records the skim skipped, their lines, invalid and 1970
    timestamps; and the file of each skipped record."""

    records: np.ndarray
    lines: np.ndarray
    invalid: np.ndarray
    epoch: np.ndarray
    file: np.ndarray

    @classmethod
    def none(cls, n: int) -> _Skipped:
        zeros = np.zeros(n, np.int64)
        return cls(zeros, zeros, zeros, zeros, np.zeros(0, np.int64))

    @classmethod
    def of(cls, skim: Skimmed, bounds: np.ndarray, n: int) -> _Skipped | None:
        """None when a skipped record's lines reach into the next file (parsing each file
        alone would cut it there)."""
        file = np.searchsorted(bounds, 1 + skim.skipped_rows, side="left")
        inside = np.flatnonzero(~skim.parse)  # every line of a skipped record
        owner = np.searchsorted(skim.skipped_rows, inside, side="right") - 1
        line_file = np.searchsorted(bounds, 1 + inside, side="left")
        if not np.array_equal(line_file, file[owner]):
            return None
        return cls(np.bincount(file, minlength=n), np.bincount(line_file, minlength=n),
                   np.bincount(file, weights=skim.invalid, minlength=n).astype(np.int64),
                   np.bincount(file, weights=skim.epoch, minlength=n).astype(np.int64), file)

    def facts(self, skim: Skimmed, pieces: list[Piece], first: np.ndarray) -> pa.Table:
        """Facts of the skipped records by file (a ``file`` column), each file's own line
        numbers and fields."""
        summary = skim.summary(1 + skim.skipped_rows - first[self.file], self.file)
        take = pa.array(summary.column("file").to_numpy().astype(np.int64))
        texts = (_file_field(pieces, name, take, encoded=True) for name in ("host", "kind", "path"))
        table = skipped_facts(summary, *texts, _file_field(pieces, "rank", take),
                              _file_field(pieces, "device", take))
        return table.append_column("file", summary.column("file"))


def _per_file_columns(records: pa.Table, pieces: list[Piece], file_index: np.ndarray,
                      lines: np.ndarray, encoded: bool) -> pa.Table:
    """Path, host, line, rank and device of each record from its own file."""
    take = pa.array(file_index)

    def number(name: str) -> pa.Array:
        column = records.column(name)
        return pc.coalesce(column, _file_field(pieces, name, take).cast(column.type))

    schema = records.schema
    replaced = {
        **{name: _file_field(pieces, name, take, encoded) for name in ("kind", "path", "host")},
        "line": pa.array(lines, pa.int64()),
        "rank": number("rank"),
        "device": number("device"),
    }
    for name, column in replaced.items():
        index = schema.get_field_index(name)
        records = records.set_column(index, schema.field(name), column)
    return records


def _facts_by_file(records: pa.Table, file_index: np.ndarray, n: int, whole: np.ndarray,
                   skipped: pa.Table | None = None) -> tuple[pa.Table, np.ndarray]:
    """``facts_of`` of each file's records, from one grouped pass over the whole group, joined
    with ``skipped`` (the facts of the records the skim skipped, by ``file``): the facts in
    file order, and how many rows each file has. ``whole[i]``: every record of file ``i`` is
    handed on (its facts say so)."""
    table = facts_of(records.append_column("file", pa.array(file_index, pa.int64())),
                     extra_keys=("file",)) if records.num_rows else None
    if skipped is not None and skipped.num_rows:
        table = in_line_order(merged_facts([t for t in (table, skipped) if t is not None],
                                           extra_keys=("file",)))
    if table is None:
        return FACTS_SCHEMA.empty_table(), np.zeros(n, np.int64)
    order = pc.sort_indices(table, sort_keys=[("file", "ascending")])
    table = table.take(order)
    files = table.column("file").to_numpy()
    index = table.schema.get_field_index("whole")
    table = table.set_column(index, table.schema.field(index), pa.array(whole[files]))
    return table.drop_columns(["file"]), np.bincount(files, minlength=n)


def _file_field(pieces: list[Piece], name: str, take: pa.Array, encoded: bool | None = None
                ) -> pa.Array:
    """The context field ``name`` of each row's file (``take``: the file of each row): a
    number, or with ``encoded`` given a text, dictionary-encoded when ``encoded`` is true."""
    values = [getattr(p.ctx, name) for p in pieces]
    if encoded is None:
        return pa.array(values, pa.int64()).take(take)
    column = pa.array(values, pa.string()).take(take)
    return column.dictionary_encode().cast(ENCODED_TEXT) if encoded else column
