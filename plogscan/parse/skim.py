"""Skim a chunk of CANN log text: find the records no later stage reads, and read only the
fields of their facts.

``diagnose`` hands on only the records its rules and reports can use; of the others it needs
just the per-process facts (level, module, pid, timestamp and line of each record; see
``ingest.facts``). In a DEBUG-heavy plog most records are of that kind, and parsing them
fully costs more than everything else together. So before the parser runs, the chunk is
skimmed:

* a *plain* record is one whose header line the CANN header pattern matches (its level,
  module, pid and proc end at the first ``):``, its timestamp has the fixed 27-byte shape),
  followed only by lines that continue it for certain: lines that no prefix and no other
  format can start (``could_start``); every line of it is ASCII, not blank, shorter than the
  truncation mark, without a second level tag (``glue.suspects``) and without a hit of the
  caller's raw expressions (``hits``);
* a plain record at a quiet level (DEBUG, INFO, TRACE: error codes are never read there,
  see ``codescan``) is *skipped*: its fact fields are read from their fixed places here;
* every other line is parsed as usual, in order: the lines before the first header, every
  record that is not skipped, and the chunk's last record (it may continue in the next
  chunk).

Skipped records come out exactly as the parser would have read them (``tests/parse/test_skim.py``
compares the two on generated and real lines); lines and records stay counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.parse import cannheader, glue
from plogscan.parse.arrays import distinct
from plogscan.parse.arrowtext import (
    LARGE,
    blank_lines,
    byte_at,
    byte_lengths,
    line_buffers,
    substrings,
    windows,
)
from plogscan.parse.codescan import QUIET_LEVELS
from plogscan.parse.fieldvalues import CANN_TS_BYTES, digits, timestamps
from plogscan.parse.lineformats import FormatSet
from plogscan.parse.messages import TRUNCATION_CHARS
from plogscan.parse.patternsets import matching
from plogscan.parse.timestamps import epoch_mask

# The CANN header's fields before the timestamp (cannheader.PREFIX), matched whole.
_PREFIX_WHOLE = (r"^\[(?P<level>[A-Z]+|\d+)\] ?(?P<module>\w+)\((?P<pid>-?\d+),"
                 r"(?P<proc>[^)]*)\): ?$")
_SHORTEST = len("[D] M(1,):") + CANN_TS_BYTES
_DIGIT_COLUMNS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22, 24, 25, 26]
_DASH, _SPACE, _COLON, _DOT, _OPEN, _CLOSE = 45, 32, 58, 46, 91, 41


@dataclass
class Skimmed:
    """What skimming a chunk found: which lines to parse, and the skipped records' facts."""

    parse: np.ndarray  # per line: parse it (False: inside a skipped record)
    skipped_rows: np.ndarray  # line index of each skipped record (its header line)
    prefix: np.ndarray  # of each skipped record: its header's prefix, an index into prefixes
    prefixes: dict[str, pa.Array]  # level, module and pid of each distinct header prefix
    ts: pa.Array  # of each skipped record
    epoch: np.ndarray  # of each skipped record: its clock reads 1970
    invalid: np.ndarray  # of each skipped record: its timestamp is not a valid time
    skipped_lines: int
    # by prefix (rows: records, real dates, first and last time, first and last row, 1970
    # clocks), where the C module summed them (``skimtext``); else None
    sums: np.ndarray | None = None
    picked: bytes | None = None  # the lines to parse joined by newlines, where C copied them
    # those lines split and their headers read, where C read them (``skimtext``)
    matched: cannheader.MatchedLines | None = None

    @property
    def epoch_records(self) -> int:
        return int(self.epoch.sum())

    @property
    def invalid_timestamps(self) -> int:
        return int(self.invalid.sum())

    def summary(self, lines: np.ndarray, files: np.ndarray | None = None) -> pa.Table:
        """The skipped records by (pid, level, module), in no set order: how many (records),
        their first and last timestamp and line, and how many have a 1970 clock
        (epoch_records). ``lines`` is the line number of each skipped record; with ``files``
        (a file index of each, for files parsed as one buffer) they are grouped by file too,
        in a ``file`` column.

        Records are grouped by their header's prefix first (a small integer), so no text is
        hashed record by record; the few prefixes that share a pid, level and module (their
        proc or spacing differ) are joined after."""
        by = ["prefix"] if files is None else ["prefix", "file"]
        table = pa.table({"prefix": pa.array(self.prefix, pa.int64()), "ts": self.ts,
                          "line": pa.array(lines, pa.int64()),
                          "epoch": pa.array(self.epoch.astype(np.int64)),
                          **({} if files is None else {"file": pa.array(files, pa.int64())})})
        by_prefix = table.group_by(by, use_threads=False).aggregate([
            ([], "count_all"), ("ts", "min"), ("ts", "max"), ("line", "min"), ("line", "max"),
            ("epoch", "sum")])
        return self._joined(by_prefix.column("prefix"), {
            **({} if files is None else {"file": by_prefix.column("file")}),
            "records": by_prefix.column("count_all"), "first_ts": by_prefix.column("ts_min"),
            "last_ts": by_prefix.column("ts_max"), "first_line": by_prefix.column("line_min"),
            "last_line": by_prefix.column("line_max"),
            "epoch_records": by_prefix.column("epoch_sum")})

    def counted(self, first_line: int) -> pa.Table:
        """``summary(first_line + skipped_rows)``: from the sums by prefix the C module made
        while it read the timestamps (``sums``), where it did."""
        if self.sums is None:
            return self.summary(first_line + self.skipped_rows)
        records, dated, first_ts, last_ts, first_row, last_row, epoch = self.sums
        used = np.flatnonzero(records > 0)
        some = dated[used] > 0
        return self._joined(pa.array(used, pa.int64()), {
            "records": pa.array(records[used]),
            "first_ts": pa.array(first_ts[used], pa.timestamp("us"), mask=~some),
            "last_ts": pa.array(last_ts[used], pa.timestamp("us"), mask=~some),
            "first_line": pa.array(first_line + first_row[used]),
            "last_line": pa.array(first_line + last_row[used]),
            "epoch_records": pa.array(epoch[used])})

    def _joined(self, picked: pa.Array, columns: dict[str, pa.Array]) -> pa.Table:
        """The sums of ``columns`` (by prefix ``picked``, and by file where they hold a
        ``file``) joined by pid, level and module: the few prefixes that share them (their
        proc or spacing differ) become one row."""
        keyed = pa.table({
            **{name: self.prefixes[name].take(picked) for name in ("pid", "level", "module")},
            **columns})
        by = ["pid", "level", "module", *(["file"] if "file" in columns else [])]
        joined = keyed.group_by(by, use_threads=False).aggregate([
            ("records", "sum"), ("first_ts", "min"), ("last_ts", "max"), ("first_line", "min"),
            ("last_line", "max"), ("epoch_records", "sum")])
        return joined.rename_columns([name.rsplit("_", 1)[0] if name.endswith(
            ("_sum", "_min", "_max")) else name for name in joined.column_names])


def skim(buf: bytes, lines: pa.Array, hits: np.ndarray, fset: FormatSet,
         narrowed: Sequence[tuple[Sequence[str], np.ndarray]] = ()) -> Skimmed | None:
    """Skim the ``lines`` of ``buf`` (``arrowtext.split_lines(buf)``); ``hits`` marks the
    lines that hold a match of an expression whose records must be parsed; each of
    ``narrowed`` holds RE2 patterns and lines whose record must be parsed when a pattern
    matches the record's text (``engine.narrowing``). None when no record can be skipped."""
    n = len(lines)
    if n < 3:
        return None
    offsets, data = line_buffers(lines)
    starts, lengths = offsets[:-1], byte_lengths(lines)
    first = np.zeros(n, np.uint8)
    nonempty = np.flatnonzero(lengths > 0)
    first[nonempty] = data[starts[nonempty]]
    header, ts_start, prefix, prefixes = _headers(lines, data, starts, lengths, first)
    if not header.any():
        return None
    quiet = _mask(pc.is_in(prefixes["level"], value_set=pa.array(QUIET_LEVELS)))[prefix]
    blank = blank_lines(lines)
    ascii_text = (np.ones(n, bool) if buf.isascii()  # 1 ms for 8 MiB, the GIL held
                  else _mask(pc.string_is_ascii(lines)))
    parse_line = hits | blank | ~ascii_text | (lengths >= TRUNCATION_CHARS)
    parse_line[glue.suspects(buf)] = True
    parse_line[header] |= ~quiet
    others = np.flatnonzero(~header & ~parse_line)
    if len(others):
        parse_line[others] = could_start(lines, others, first, fset)
    segment = np.cumsum(header)  # 0: the lines before the first header line
    count = int(segment[-1]) + 1
    parse_segment = np.bincount(segment, weights=parse_line, minlength=count) > 0
    parse_segment[0] = parse_segment[-1] = True
    if narrowed:
        _parse_matching(buf, offsets, lengths, header, segment, parse_segment, narrowed)
    parse = parse_segment[segment]
    skipped = np.flatnonzero(header & ~parse)
    if len(skipped) == 0:
        return None
    keep = np.flatnonzero(header)
    position = np.searchsorted(keep, skipped)  # each skipped header among the header lines
    ts, invalid = timestamps(data, offsets, skipped, ts_start[skipped],
                             np.full(len(skipped), CANN_TS_BYTES, np.int64))
    return Skimmed(parse, skipped, prefix[position], prefixes, ts, epoch_mask(ts),
                   np.asarray(invalid, bool), skipped_lines=int(n - parse.sum()))


def _headers(lines: pa.Array, data: np.ndarray, starts: np.ndarray, lengths: np.ndarray,
             first: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, pa.Array]]:
    """Lines that carry a CANN header (exactly those ``cannheader.ONE_PASS`` matches, proc
    without ``[``, pid short enough to read), where their timestamp starts, which distinct
    prefix (the header before its timestamp) each header line has, and the level, module and
    pid of each distinct prefix."""
    n = len(lines)
    spans = cannheader.one_pass_spans(lines)
    if spans is not None:  # read in C: the prefix's length where the line matches
        rows = np.flatnonzero(spans[:, 1] > 0)
        ts_start = np.zeros(n, np.int64)
        ts_start[rows] = spans[rows, 1]
    else:
        rows, ts_start = _shaped_headers(data, starts, lengths, first, lines)
    index, distinct = cannheader.distinct_texts(data, starts[rows], ts_start[rows])
    readable, prefixes = prefix_fields(distinct)
    good = readable[index]
    header = np.zeros(n, bool)
    header[rows[good]] = True
    return header, ts_start, index[good], prefixes


def prefix_fields(distinct: pa.Array) -> tuple[np.ndarray, dict[str, pa.Array]]:
    """Of each distinct header prefix: whether the skim reads its header (a pid short enough
    to read, a proc without ``[``), and its level, module and pid."""
    found = pc.extract_regex(distinct, _PREFIX_WHOLE)
    fields = dict(zip(("level", "module", "pid", "proc"), found.flatten(), strict=True))
    pid = digits(fields["pid"], pa.int64())  # null where the prefix did not match
    bracket = pc.fill_null(pc.match_substring(fields["proc"], "["), True)
    readable = _mask(pid.is_valid()) & ~_mask(bracket)
    return readable, {"level": fields["level"], "module": fields["module"], "pid": pid}


def _shaped_headers(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray,
                    first: np.ndarray, lines: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """The lines whose start has the shape of a CANN header up to its timestamp (``[``, the
    first ``)`` followed by ``:``, an optional space, a timestamp), and where that timestamp
    starts: ``one_pass_spans`` in numpy, for a build without the C module."""
    n = len(lines)
    header = (first == _OPEN) & (lengths >= _SHORTEST)
    close = pc.find_substring(lines, ")").to_numpy(zero_copy_only=False).astype(np.int64)
    header &= close > 0
    rows = np.flatnonzero(header)
    ends = starts[rows] + lengths[rows]
    colon = byte_at(data, ends, starts[rows] + close[rows] + 1)
    space = byte_at(data, ends, starts[rows] + close[rows] + 2) == _SPACE
    ts_start = np.zeros(n, np.int64)
    ts_start[rows] = close[rows] + 2 + space
    ok = (colon == _COLON) & (ts_start[rows] + CANN_TS_BYTES <= lengths[rows])
    rows = rows[ok]
    stamp = windows(data, starts[rows] + ts_start[rows], CANN_TS_BYTES)
    shaped = (((stamp[:, _DIGIT_COLUMNS] - np.uint8(48)) <= 9).all(axis=1)
              & (stamp[:, 4] == _DASH) & (stamp[:, 7] == _DASH)
              & ((stamp[:, 10] == _DASH) | (stamp[:, 10] == _SPACE))
              & (stamp[:, 13] == _COLON) & (stamp[:, 16] == _COLON)
              & (stamp[:, 19] == _DOT) & (stamp[:, 23] == _DOT))
    return rows[shaped], ts_start


def _parse_matching(buf: bytes, offsets: np.ndarray, lengths: np.ndarray, header: np.ndarray,
                    segment: np.ndarray, parse_segment: np.ndarray,
                    narrowed: Sequence[tuple[Sequence[str], np.ndarray]]) -> None:
    """Mark for parsing each record (segment) that holds a line of one of ``narrowed`` and
    whose whole text, as it stands in ``buf``, one of that entry's patterns matches."""
    count = len(parse_segment)
    # Each (entry, record) pair once, sorted by entry then record: one sort for all entries.
    entry = np.repeat(np.arange(len(narrowed)), [len(where) for _patterns, where in narrowed])
    held = segment[np.concatenate([where for _patterns, where in narrowed])]
    still = ~parse_segment[held]
    pairs = distinct(entry[still] * count + held[still])
    if len(pairs) == 0:
        return
    pair_entry, pair_segment = np.divmod(pairs, count)
    candidates, place = np.unique(pair_segment, return_inverse=True)
    first_lines = np.flatnonzero(header)  # segment k >= 1 starts at first_lines[k - 1]
    first = first_lines[candidates - 1]
    after = np.append(first_lines, len(lengths))[candidates]  # the next record's first line
    starts = offsets[first] + first  # in ``buf``, where each line kept its newline
    ends = offsets[after - 1] + (after - 1) + lengths[after - 1]
    texts = pc.cast(substrings(np.frombuffer(buf, np.uint8), starts, ends - starts), LARGE)
    bounds = np.searchsorted(pair_entry, np.arange(len(narrowed) + 1))
    asked = [(patterns, place[bounds[k]:bounds[k + 1]])
             for k, (patterns, _where) in enumerate(narrowed)]
    for (_patterns, picked), hit in zip(asked, matching(texts, asked), strict=True):
        parse_segment[candidates[picked[hit]]] = True


def _mask(values: pa.Array) -> np.ndarray:
    return pc.fill_null(values, False).to_numpy(zero_copy_only=False)


def could_start(lines: pa.Array, rows: np.ndarray, first: np.ndarray,
                fset: FormatSet) -> np.ndarray:
    """For each of ``rows`` (lines ``_headers`` did not take): whether a prefix or a format
    could match it, so that it may start a record of its own.

    Patterns whose first bytes are known (``FormatSet.start_bytes``) are judged by the line's
    first byte; the others are run on the lines no known first byte rules in."""
    mask, unknown = fset.start_bytes
    maybe = mask[first[rows]] & (byte_lengths(lines)[rows] > 0)
    rest = np.flatnonzero(~maybe)
    if len(rest) and unknown:
        sub = lines.take(pa.array(rows[rest]))
        for pattern in unknown:
            hit = pc.fill_null(pc.match_substring_regex(sub, f"^(?:{pattern})"), False)
            maybe[rest] |= hit.to_numpy(zero_copy_only=False)
    return maybe
