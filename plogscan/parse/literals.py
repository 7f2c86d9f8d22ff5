"""One Hyperscan pass over a text column: which rows hold which of many literals.

The selector asks whether a message holds any rule literal; the engine asks, per rule, which
rows hold that rule's literal, so that each rule looks only at its own rows. Both questions
are answered by one scan of the column's data buffer with a Hyperscan block-mode database
(the ``hyperscan`` package; wheels for x86_64 and aarch64), match ends mapped back to rows.

Hyperscan folds ASCII case only, where RE2 and Arrow fold Unicode case too (the Kelvin sign
matches ``k``): rows that hold any non-ASCII byte are therefore reported as possible matches
of every literal, so the answer stays a superset of what Arrow's case-insensitive tests
accept; the exact test then runs on those rows. Without Hyperscan (or with a literal it cannot
take) ``build`` gives None and callers use RE2.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.datafile.compiled import kept
from plogscan.parse import compiled

_BUILT: dict[tuple[tuple[str, ...], tuple[str, ...]], LiteralScanner | None] = {}
_BUILT_LOCK = threading.Lock()
_BUILT_MAX = 16  # rule sets a process compiles databases for (tests build many)
_DEDUPE_MIN_ROWS = 64  # below this, scanning the rows as they are costs less
_EMPTY = np.zeros(0, np.int64)


class LiteralScanner:
    """A database of case-insensitive literals, and optionally whole regexes."""

    def __init__(self, database: object, scratch_type: type, count: int,
                 regexes: tuple[str, ...]) -> None:
        self.database = database
        self.scratch_type = scratch_type
        self.count = count  # literals: ids 0..count-1; regexes after them
        self.regexes = regexes
        self.local = threading.local()  # one scratch space per thread

    def __getstate__(self) -> dict:
        raise TypeError("a compiled Hyperscan database stays in its process")

    @classmethod
    def build(cls, literals: tuple[str, ...], regexes: tuple[str, ...] = ()
              ) -> LiteralScanner | None:
        """None when Hyperscan is missing or cannot take the expressions.

        Compiled once per process and set of expressions: a worker process receives a fresh
        copy of its selector with every task, and compiling the database takes tens of
        milliseconds. The lock is held while compiling, so that parse threads asking for the
        same database at once wait for one compile instead of each running their own."""
        key = (tuple(literals), tuple(regexes))
        with _BUILT_LOCK:
            if key not in _BUILT:
                if len(_BUILT) >= _BUILT_MAX:
                    _BUILT.clear()
                _BUILT[key] = cls._compiled(literals, regexes)
            return _BUILT[key]

    @classmethod
    def _compiled(cls, literals: tuple[str, ...], regexes: tuple[str, ...]
                  ) -> LiteralScanner | None:
        if not (literals or regexes) or not all(text.isascii() for text in literals):
            return None
        try:
            import hyperscan
        except ImportError:
            return None
        expressions = [re.escape(text).encode() for text in literals]
        expressions += [pattern.encode() for pattern in regexes]
        flags = [hyperscan.HS_FLAG_CASELESS] * len(literals) + [0] * len(regexes)
        database = block_database(expressions, flags)
        return None if database is None else cls(database, hyperscan.Scratch, len(literals),
                                                 regexes)

    def matches(self, column: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(expression ids, rows) of every match, and the rows that hold non-ASCII text
        (possible matches of every literal).

        Log lines repeat: when at most half the values are distinct, the distinct ones are
        scanned and their matches spread to the rows that hold them (one Python callback per
        match is the cost of a scan)."""
        texts = distinct_texts(column)
        if texts.index is None:
            return self.scan_rows(column)
        ids, rows, non_ascii = self.scan_rows(texts.values)
        return spread_matches(texts.index, ids, rows, non_ascii)

    def scan_rows(self, column: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``matches`` without looking for repeated values first: every row is scanned.

        The values are scanned end to end as they lie in the column's buffer, so a match may
        begin in one value and end in the next: it is reported for the row it ends in. The
        rows are therefore possible matches, for an exact test to confirm."""
        n = len(column)
        empty = np.zeros(0, np.int64)
        if n == 0:
            return empty, empty, empty
        if not pa.types.is_large_string(column.type):
            column = column.cast(pa.large_string())
        # Only literals are folded differently from Arrow: regexes alone need no such rows.
        non_ascii = (np.flatnonzero(~pc.fill_null(pc.string_is_ascii(column), True).to_numpy(
            zero_copy_only=False)) if self.count else empty)
        offsets = np.frombuffer(column.buffers()[1], dtype=np.int64)[column.offset:
                                                                      column.offset + n + 1]
        data = column.buffers()[2]
        if data is None or offsets[-1] == offsets[0]:
            return empty, empty, non_ascii
        ids, ends = self._scan(memoryview(data)[offsets[0]:offsets[-1]])  # scanned in place
        if not len(ends):
            return empty, empty, non_ascii
        rows = np.searchsorted(offsets[1:] - offsets[0], ends - 1, side="right")
        return ids, rows.astype(np.int64), non_ascii

    def _scratch(self) -> object:
        """This thread's scratch space (Hyperscan's scans must not share one)."""
        scratch = getattr(self.local, "scratch", None)
        if scratch is None:
            scratch = self.local.scratch = self.scratch_type(self.database)
        return scratch

    def _scan(self, buf: bytes | memoryview) -> tuple[np.ndarray, np.ndarray]:
        """(expression id, end offset) of every match in ``buf``, in two int64 arrays.

        Hyperscan calls its handler once per match: the C module's ``MatchList`` keeps the
        numbers without a Python frame per match (on a chunk of a DEBUG log where a literal
        is found on every other line, a Python handler added 85% to the scan, the C one
        60%: the rest is the ``hyperscan`` package's own call); without it, two lists."""
        if not buf:
            return _EMPTY, _EMPTY
        native = compiled.native
        if native is not None:
            found = native.MatchList()
            self.database.scan(buf, match_event_handler=found, scratch=self._scratch())
            ids, ends = found.arrays()
            return np.frombuffer(ids, np.int64), np.frombuffer(ends, np.int64)
        id_list: list[int] = []
        end_list: list[int] = []

        def kept_match(expression: int, _start: int, end: int, _flags: int, _ctx: object
                       ) -> None:
            id_list.append(expression)
            end_list.append(end)

        self.database.scan(buf, match_event_handler=kept_match, scratch=self._scratch())
        return np.asarray(id_list, np.int64), np.asarray(end_list, np.int64)

    def ids_and_ends(self, buf: bytes) -> tuple[np.ndarray, np.ndarray]:
        """(expression id, end offset (exclusive)) of every match in ``buf``."""
        return self._scan(buf)


def non_ascii_rows(column: pa.Array) -> np.ndarray:
    """The rows of a text column that hold a non-ASCII byte (none when its data has none,
    which a look at the bytes tells faster than Arrow's test of every value)."""
    data = column.buffers()[2]
    if data is None or not np.frombuffer(data, np.uint8).view(np.int8).min(initial=0) < 0:
        return np.zeros(0, np.int64)
    ascii_rows = pc.fill_null(pc.string_is_ascii(column), True)
    return np.flatnonzero(~ascii_rows.to_numpy(zero_copy_only=False))


@dataclass(frozen=True)
class DistinctTexts:
    """A text column as its distinct ``values`` and, per row, the place of its value among
    them (``index``, -1 for a null); when its values seldom repeat, the column itself as
    ``values`` (``index`` None). A test of every value, spread to the rows, is the test of
    every row, for a fraction of the cost on log lines, which repeat."""

    values: pa.Array
    index: np.ndarray | None = None

    def spread(self, hit: np.ndarray) -> np.ndarray:
        """A mask over the values as the mask over the rows (False for a null)."""
        return hit if self.index is None else np.append(hit, False)[self.index]


def distinct_texts(column: pa.Array) -> DistinctTexts:
    """``column`` by its distinct values when at most half of them are (and it is not too
    short for a look at them to pay)."""
    if len(column) >= _DEDUPE_MIN_ROWS:
        encoded = pc.dictionary_encode(column)
        if 2 * len(encoded.dictionary) <= len(column):
            index = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)
            return DistinctTexts(encoded.dictionary, index.astype(np.int64))
    return DistinctTexts(column)


def spread_matches(rows_value: np.ndarray, ids: np.ndarray, values: np.ndarray,
                   non_ascii: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Matches of distinct values (``values[i]`` holds ``ids[i]``) as matches of the rows
    whose value is that one (``rows_value``: -1, or any place past the values, for a null),
    in row order, and the rows of the non-ASCII values: each row takes its value's run of
    matches, found by counting."""
    top = max(int(rows_value.max(initial=-1)), int(values.max(initial=-1))) + 1
    index = np.where(rows_value < 0, top, rows_value)  # nulls: a value with no match
    if len(values) > 1 and not (values[1:] >= values[:-1]).all():
        order = np.argsort(values, kind="stable")
        ids, values = ids[order], values[order]
    per_value = np.bincount(values, minlength=top + 1)
    first_match = np.cumsum(per_value) - per_value  # where each value's run of matches starts
    per_row = per_value[index]
    first_out = np.cumsum(per_row) - per_row  # where each row's matches go
    total = int(first_out[-1] + per_row[-1]) if len(per_row) else 0
    rows = np.repeat(np.arange(len(index), dtype=np.int64), per_row)
    picked = np.repeat(first_match[index] - first_out, per_row) + np.arange(total)
    loose = np.zeros(top + 1, bool)
    loose[non_ascii] = True
    return ids[picked], rows, np.flatnonzero(loose[index])


def block_database(expressions: list[bytes], flags: list[int]) -> object | None:
    """A Hyperscan block-mode database of ``expressions`` (ids in their order), read from its
    serialized form when an earlier run kept it (``datafile.compiled``); None when Hyperscan
    cannot take them."""
    import hyperscan

    def compiled() -> object | None:
        try:
            database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
            database.compile(expressions=expressions, ids=list(range(len(expressions))),
                             flags=flags)
        except Exception:
            return None
        return database

    # A database compiled for another processor does not load (Hyperscan checks): built again.
    parts = [hyperscan.__version__, repr(flags), *expressions]
    return kept("hyperscan", parts, compiled, hyperscan.dumpb,
                lambda data: hyperscan.loadb(data, hyperscan.HS_MODE_BLOCK))
