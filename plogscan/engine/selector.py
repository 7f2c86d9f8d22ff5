"""``Selector``: which parsed records any rule of a rule set could use.

The parse workers run it over every chunk they parse (it is the ``ingest.facts.Reducer`` of
``diagnose``), so the main process receives only the records that can fill a rule's step,
plus the ERROR and WARNING records the reports keep. The test is a superset of every rule's
condition, computed in few passes:

* every alternative of every condition that holds a literal test (``contains``,
  ``startswith``, ``endswith``, all case-insensitive) of a text field needs that literal in
  the field, so the literals of all of them become one case-insensitive RE2 alternation per
  field, run once per chunk;
* the other alternatives (``codes: [...]`` and the like) are evaluated as they are.

A literal that only alternatives with an ``re`` test of the same field ask for does not keep
a record by itself: one of those patterns must match too (``engine.narrowing``), so the
heartbeat lines of a DEBUG log no longer reach the rules for a heartbeat-lost pattern.

The rules then run exactly as before on the records that are left, so they find what they
found on the whole table. ``extra`` adds literals whose records should reach the main process
too (identity and settings lines for later stages).

Library choice, measured in ``bench/prefilter.py`` over the messages of a DEBUG-heavy tree:
Hyperscan (the ``hyperscan`` package, one block-mode scan of the message buffer, match ends
mapped back to rows) ran at about 1 GB/s, Arrow's RE2 alternation at about 380 MB/s and
DuckDB's ``regexp_matches`` at about 170 MB/s on one core. Hyperscan is used where it imports
(wheels exist for x86_64 and aarch64) and its case folding is exact (ASCII literals); RE2
otherwise. Both give the same rows (a Hyperscan match across two messages only adds a row).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.catalog.operators import FIELD_KINDS
from plogscan.catalog.rule import Predicate, RuleSet
from plogscan.datafile.compiled import code_stamp, kept
from plogscan.engine.narrowing import Narrowed, Narrowing, RawHits, narrowed
from plogscan.engine.predicates import _alternative_rows, _literals
from plogscan.engine.rawscan import RAW_FIELDS, raw_expressions
from plogscan.parse.arrowtext import holds
from plogscan.parse.literals import DistinctTexts, LiteralScanner, distinct_texts
from plogscan.parse.patternsets import PatternSets
from plogscan.parse.results import TEXT_KINDS
from plogscan.schema import plain_text

_LITERAL_OPS = frozenset({"contains", "startswith", "endswith"})
NOTABLE_LEVELS = ("ERROR", "WARNING")
# The header ``tail`` prints before each file of a concatenation (``==> path <==``).
SECTION_HEADER = r"(?m)^==> .+ <==[ \t]*$"  # kept for the reports' timeline and unexplained errors


def _literal_of(alt: tuple[Predicate, ...]) -> Predicate | None:
    """The literal test of an alternative that the alternation can stand for, if any (the
    one with the fewest values: fewer, longer literals match fewer rows)."""
    found = [p for p in alt if p.op in _LITERAL_OPS and FIELD_KINDS.get(p.field) == "str"]
    return min(found, key=lambda p: len(p.values)) if found else None


def _list_member_of(alt: tuple[Predicate, ...]) -> Predicate | None:
    """An ``eq``/``in`` test of a list field (``codes``) in an alternative, if any: list
    fields are empty on most records, so that test alone is a small superset."""
    for p in alt:
        if p.op in ("eq", "in") and FIELD_KINDS.get(p.field) == "list":
            return p
    return None


def selector_for(rules: RuleSet, extra: Iterable[str] = (), extra_regexes: Iterable[str] = (),
                 skim: bool = True) -> Selector:
    """``Selector(rules, ...)``, kept compiled between runs (``datafile.compiled``) under a
    hash of the rules' conditions and of plogscan's code: building one tests each narrowed
    alternative's patterns with Python's ``re``, which compiles every one of them."""
    extra, extra_regexes = tuple(extra), tuple(extra_regexes)
    conditions = repr([cond for rule in rules for _role, cond in rule.roles()])
    return kept("selector", [code_stamp(), conditions, repr((extra, extra_regexes, skim))],
                lambda: Selector(rules, extra, extra_regexes, skim))


class Selector:
    """A picklable row test that keeps every record any rule of ``rules`` can match."""

    def __init__(self, rules: RuleSet, extra: Iterable[str] = (),
                 extra_regexes: Iterable[str] = (), skim: bool = True) -> None:
        literals: dict[str, set[str]] = {}
        plain: dict[str, set[str]] = {}  # literals that keep a record by themselves
        narrowings: list[Narrowed] = []
        members: dict[str, set[str]] = {}
        rest: list[tuple[Predicate, ...]] = []
        for rule in rules:
            for _role, cond in rule.roles():
                for alt in cond.alternatives:
                    pred = _literal_of(alt)
                    listed = _list_member_of(alt)
                    if pred is not None:
                        literals.setdefault(pred.field, set()).update(map(str, pred.values))
                        found = narrowed(alt, pred)
                        if found is None:
                            plain.setdefault(pred.field, set()).update(map(str, pred.values))
                        else:
                            narrowings.append(found)
                    elif listed is not None:
                        members.setdefault(listed.field, set()).update(map(str, listed.values))
                    else:
                        rest.append(alt)
        literals.setdefault("message", set()).update(extra)
        plain.setdefault("message", set()).update(extra)
        self.patterns = {field: _literals(tuple(sorted(values)))
                         for field, values in sorted(literals.items()) if values}
        # ``codes: [...]``-style tests: one membership test of the flattened lists per field.
        self.members = {field: tuple(sorted(values)) for field, values in sorted(members.items())}
        self.others = tuple(dict.fromkeys(rest))  # alternatives evaluated as they are
        # Records later stages read (the cross-rank summary's anchors): RE2 patterns of the
        # message, kept as they are.
        self.extra_regexes = tuple(extra_regexes)
        self._extras = PatternSets([self.extra_regexes])
        self._literals = {field: tuple(sorted(values)) for field, values in literals.items()
                          if values}
        self._plain = {field: tuple(sorted(values)) for field, values in sorted(plain.items())}
        self.narrowed = tuple(dict.fromkeys(narrowings))
        self._scanners: dict[str, LiteralScanner | None] = {}
        self._narrowings: dict[str, Narrowing] = {}
        # What the parse workers scan raw chunks for before skimming (``raw_hits``).
        self._raw = self._raw_expressions() if skim else None
        self._raw_scanner: LiteralScanner | None = None
        self._raw_narrowing: Narrowing | None = None

    def _raw_expressions(self) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        if any(field not in RAW_FIELDS for field in self._literals):
            return None
        if any(field != "codes" for field in self.members):
            return None
        found = raw_expressions(self.others, self.extra_regexes)
        if found is None:
            return None
        literals = {value for values in self._literals.values() for value in values}
        return tuple(sorted(literals | set(found[0]))), found[1]

    def raw_hits(self, buf: bytes) -> RawHits | None:
        """Where, in ``buf`` (raw text of whole lines), expressions match that cover every
        record this selector keeps, apart from those the skim always parses
        (``engine.rawscan``); None when there are no such expressions (or no Hyperscan):
        then the chunk is parsed whole."""
        if self._raw is None:
            return None
        if not any(self._raw):  # the skim's own tests (the level) cover every rule
            return RawHits(np.zeros(0, np.int64))
        if self._raw_scanner is None:
            self._raw_scanner = LiteralScanner.build(*self._raw)
            if self._raw_scanner is None:
                self._raw = None
                return None
        if self._raw_narrowing is None:
            plain = {v for values in self._plain.values() for v in values}
            plain |= set(self._raw[0]) - set(v for vs in self._literals.values() for v in vs)
            self._raw_narrowing = Narrowing(self._raw[0], plain, self.narrowed)
        ids, ends = self._raw_scanner.ids_and_ends(buf)
        narrowing = self._raw_narrowing
        sure = narrowing.sure(ids)
        return RawHits(ends[sure], tuple(
            (narrowing.loosened.members[narrowing.number[alt]], where)
            for alt, where in narrowing.groups(ids[~sure], ends[~sure])))

    def fingerprint(self) -> str:
        """A hash of what this selector keeps: two rule sets that keep the same records
        share cached extractions."""
        text = repr((sorted(self.patterns.items()), sorted(self.members.items()),
                     self.others, NOTABLE_LEVELS, self.extra_regexes, sorted(TEXT_KINDS),
                     self.narrowed))
        return hashlib.sha256(text.encode()).hexdigest()

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_scanners"] = {}  # compiled databases stay in their process
        state["_raw_scanner"] = None
        state["_raw_narrowing"] = None
        state["_narrowings"] = {}
        return state

    def _scanner(self, field: str) -> LiteralScanner | None:
        if field not in self._scanners:
            regexes = tuple(alt[0].values[0] for alt in self.others if _lone_regex(alt, field))
            scanner = LiteralScanner.build(self._literals[field], regexes)
            if scanner is None and regexes:
                scanner = LiteralScanner.build(self._literals[field], ())
            self._scanners[field] = scanner
        return self._scanners[field]

    def _narrowing(self, field: str) -> Narrowing:
        if field not in self._narrowings:
            self._narrowings[field] = Narrowing(
                self._literals[field], self._plain.get(field, ()),
                [alt for alt in self.narrowed if alt.field == field])
        return self._narrowings[field]

    def keep(self, records: pa.Table) -> np.ndarray:
        """Boolean mask of the rows of ``records`` to hand on: rule candidates, notable
        (ERROR, WARNING) records, records of the extra patterns, and every record of job
        stdout and system logs, and every record of a chunk that holds a ``==> path <==`` section
        header (later stages read sections from the records)."""
        return self.keep_and_candidates(records)[0]

    def keep_and_candidates(self, records: pa.Table) -> tuple[np.ndarray, np.ndarray | None]:
        """``keep``, and the ``candidates`` mask it computed on the way (None when every
        record is kept without asking which are candidates)."""
        n = records.num_rows
        if n and plain_text(records.column("kind")).slice(0, 1).to_pylist()[0] in TEXT_KINDS:
            return np.ones(n, dtype=bool), None
        message = _combined(records.column("message"))
        if n and _holds_section(message):
            return np.ones(n, dtype=bool), None  # a pasted concatenation: its sections are read
        texts = distinct_texts(message)
        candidates = self.candidates(records, {"message": texts})
        mask = _is_notable(records.column("level")) | candidates
        if self.extra_regexes and n:
            mask |= texts.spread(self._extras.mask(texts.values))
        return mask, candidates

    def candidates(self, records: pa.Table | pa.RecordBatch,
                   known: dict[str, DistinctTexts] | None = None) -> np.ndarray:
        """Boolean mask of the rows of ``records`` that some rule may match (``known``: the
        distinct texts of fields the caller already has)."""
        n = records.num_rows
        mask = np.zeros(n, dtype=bool)
        for field, pattern in self.patterns.items():
            texts = (known or {}).get(field) or distinct_texts(_combined(records.column(field)))
            mask |= texts.spread(self._literal_hits(field, pattern, texts.values))
        for field, values in self.members.items():
            column = _combined(records.column(field))
            flat = pc.list_flatten(column)
            if len(flat):
                parents = pc.list_parent_indices(column).to_numpy(zero_copy_only=False)
                hit = pc.is_in(flat, value_set=pa.array(values, flat.type))
                mask[parents[hit.fill_null(False).to_numpy(zero_copy_only=False)]] = True
        rest = [alt for alt in self.others if not (
            (scanner := self._scanners.get(alt[0].field)) is not None and scanner.regexes
            and _lone_regex(alt, alt[0].field))]  # those are in the scanner's database
        todo = np.flatnonzero(~mask)
        if rest and len(todo):
            # Only the rows not marked yet are tested (most candidates hold a literal), in one
            # batch with one cache: a test several alternatives share runs once.
            fields = {p.field for alt in rest for p in alt}
            batch = (_as_batch(records, fields) if len(todo) == n else
                     _as_batch(records.select(sorted(fields)).take(pa.array(todo)), fields))
            cache: dict = {}
            for alt in rest:
                rows = _alternative_rows(alt, batch, cache)
                mask[rows if len(todo) == n else todo[rows]] = True
        return mask

    def _literal_hits(self, field: str, pattern: str, column: pa.Array) -> np.ndarray:
        """Mask of the values of ``column`` (texts of ``field``) that hold one of its
        literals (narrowed by their patterns) or match one of its lone regexes: a Hyperscan
        scan, RE2 where it decides."""
        mask = np.zeros(len(column), dtype=bool)
        scanner = self._scanner(field)
        if scanner is None:
            hit = pc.match_substring_regex(column, pattern)
            return hit.fill_null(False).to_numpy(zero_copy_only=False)
        ids, rows, non_ascii = scanner.matches(column)
        narrowing = self._narrowing(field)
        sure = narrowing.sure(ids)
        mask[rows[sure]] = True
        asked = [(narrowing.number[alt], units[~mask[units]])
                 for alt, units in narrowing.groups(ids[~sure], rows[~sure])]
        for (_, units), hit in zip(asked, narrowing.patterns.matching(column, asked),
                                   strict=True):
            mask[units[hit]] = True
        if len(non_ascii):  # Unicode case folding: RE2 decides these
            hit = pc.match_substring_regex(column.take(pa.array(non_ascii)), pattern)
            mask[non_ascii[hit.fill_null(False).to_numpy(zero_copy_only=False)]] = True
        return mask


def _lone_regex(alt: tuple[Predicate, ...], field: str) -> bool:
    """An alternative that is a single ``re`` test of ``field`` with one group-less pattern."""
    return (len(alt) == 1 and alt[0].field == field and alt[0].op == "re"
            and len(alt[0].values) == 1 and not any(alt[0].groups))


def _holds_section(message: pa.Array) -> bool:
    """Whether a message is a ``==> path <==`` section header: RE2 runs only when the
    messages' bytes hold ``==> `` (a look for a rare byte first, ``holds``)."""
    data = message.buffers()[2]
    if data is None or not holds(data, b"==> ", 2):
        return False
    return bool(pc.any(pc.match_substring_regex(message, SECTION_HEADER)).as_py())


def _is_notable(levels: pa.ChunkedArray | pa.Array) -> np.ndarray:
    hit = pc.is_in(plain_text(levels), value_set=pa.array(NOTABLE_LEVELS, pa.string()))
    return hit.fill_null(False).to_numpy(zero_copy_only=False)


def _combined(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    column = plain_text(column)
    return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column


def _as_batch(records: pa.Table | pa.RecordBatch, fields: set[str]) -> pa.RecordBatch:
    """The named columns of ``records`` as one batch of plain (not dictionary) arrays."""
    names = sorted(fields)
    columns = [_combined(records.column(name)) for name in names]
    return pa.RecordBatch.from_arrays(columns, names=names)
