"""Field predicates as Arrow masks: each operator's mask, and the mask/capture evaluators.

Every operator works on a whole record batch with ``pyarrow.compute`` (regexes are RE2, so a
rule cannot hang the scan). Inside one alternative the cheap predicates run first over the
batch and the costly ones only over the rows still standing; ``re`` named groups are extracted
only on the few candidate rows. A null field never matches, with one exception: a record
header's ``level`` and ``module`` that the text does not give (a line pasted without its
header) do not contradict an alternative that tests the record's text too (``HEADER_FIELDS``).
``Prefilter`` (``engine.prefilter``) joins the literal tests that start alternatives into one
pass per batch, so those tests run on its rows only; a test of repeating values, on the
distinct ones.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.catalog.operators import FIELD_KINDS, OPERATORS
from plogscan.catalog.rule import Condition, Predicate
from plogscan.engine import distinct
from plogscan.parse.arrays import distinct as distinct_values


class LiteralIndex(Protocol):
    """What the row tests ask of a batch's literal index (``engine.prefilter.Prefilter``,
    which builds it from these tests: it is named here by its shape, so that the tests do not
    import the module built on them)."""

    def literal_rows(self, pred: Predicate, batch: pa.RecordBatch, cache: dict
                     ) -> np.ndarray | None: ...

    def rows(self, pred: Predicate, batch: pa.RecordBatch, cache: dict
             ) -> np.ndarray | None: ...


MaskFn = Callable[[pa.Array, tuple], pa.Array]


def _any(arr: pa.Array, values: tuple, one: Callable[[pa.Array, object], pa.Array]) -> pa.Array:
    out = one(arr, values[0])
    for v in values[1:]:
        out = pc.or_kleene(out, one(arr, v))
    return out


def _eq(arr: pa.Array, values: tuple) -> pa.Array:
    return pc.is_in(arr, value_set=pa.array(list(values), type=arr.type))


_RE2_SPECIAL = frozenset("\\.^$|?*+()[]{}")


def _literals(values: tuple, head: str = "", tail: str = "") -> str:
    """Several literals as one case-insensitive RE2 alternation: one pass instead of many."""
    escaped = ("".join("\\" + c if c in _RE2_SPECIAL else c for c in str(v)) for v in values)
    return f"(?i){head}(?:{'|'.join(escaped)}){tail}"


def _contains(arr: pa.Array, values: tuple) -> pa.Array:
    if len(values) > 1:
        return pc.match_substring_regex(arr, _literals(values))
    return pc.match_substring(arr, values[0], ignore_case=True)


def _startswith(arr: pa.Array, values: tuple) -> pa.Array:
    if len(values) > 1:
        return pc.match_substring_regex(arr, _literals(values, head="^"))
    return pc.starts_with(arr, values[0], ignore_case=True)


def _endswith(arr: pa.Array, values: tuple) -> pa.Array:
    if len(values) > 1:
        return pc.match_substring_regex(arr, _literals(values, tail="$"))
    return pc.ends_with(arr, values[0], ignore_case=True)


def _re(arr: pa.Array, values: tuple) -> pa.Array:
    return _any(arr, values, lambda a, v: pc.match_substring_regex(a, v))


def _known(arr: pa.Array, values: tuple) -> pa.Array:
    """Codes the code tables give a class (``codes.category_of``), each looked up once."""
    from plogscan.codes import category_of

    distinct = pc.unique(arr.drop_null()).to_pylist()
    known = [code for code in distinct if category_of(code) is not None]
    return pc.is_in(arr, value_set=pa.array(known, type=arr.type))


def _gte(arr: pa.Array, values: tuple) -> pa.Array:
    return pc.greater_equal(arr, pa.scalar(values[0], type=arr.type))


def _lte(arr: pa.Array, values: tuple) -> pa.Array:
    return pc.less_equal(arr, pa.scalar(values[0], type=arr.type))


# The mask of each operator of the catalogue (``catalog.operators.OPERATORS``: its field kinds
# and cost), over a whole column.
MASKS: dict[str, MaskFn] = {
    "eq": _eq, "in": _eq, "contains": _contains, "startswith": _startswith,
    "endswith": _endswith, "re": _re, "gte": _gte, "lte": _lte, "known": _known,
}


# The fields a CANN header gives a record. A line pasted without its header ("[DEBUG] Already
# have context, skip create", a device report copied from a terminal) has none of them, and
# what it lacks cannot contradict a condition: in an alternative that also tests the record's
# text (``TEXT_FIELDS``), a null header field passes and the text decides. Alone, a header
# test still needs the field.
HEADER_FIELDS = frozenset({"level", "module"})
TEXT_FIELDS = frozenset({"message", "codes"})


def unknown_header_passes(preds: Sequence[Predicate]) -> bool:
    """Whether a null ``HEADER_FIELDS`` value passes the tests of this alternative."""
    return any(p.field in TEXT_FIELDS for p in preds)


def _field_mask(pred: Predicate, arr: pa.Array, unknown_passes: bool = False) -> np.ndarray:
    """Rows of ``arr`` where ``pred`` holds; with ``unknown_passes``, also the rows where a
    header field of ``pred`` is null."""
    mask = _value_mask(pred, arr)
    if unknown_passes and pred.field in HEADER_FIELDS and arr.null_count:
        mask |= arr.is_null().to_numpy(zero_copy_only=False)
    return mask


def _value_mask(pred: Predicate, arr: pa.Array) -> np.ndarray:
    mask = MASKS[pred.op]
    if pa.types.is_list(arr.type):
        flat = pc.list_flatten(arr)
        parents = pc.list_parent_indices(arr).to_numpy(zero_copy_only=False)
        hit = mask(flat, pred.values).fill_null(False).to_numpy(zero_copy_only=False)
        out = np.zeros(len(arr), dtype=bool)
        out[parents[hit]] = True
        return out
    return mask(arr, pred.values).fill_null(False).to_numpy(zero_copy_only=False)


_LITERAL_OPS = frozenset({"contains", "startswith", "endswith"})
NO_ROWS = np.zeros(0, np.int64)  # empty: nothing can write into it


def literal_test(alt: Sequence[Predicate]) -> Predicate | None:
    """The literal test (``contains``, ``startswith``, ``endswith``) of a text field in an
    alternative with the fewest values, if it has one: a row that satisfies the alternative
    holds one of its literals."""
    found = [p for p in alt if p.op in _LITERAL_OPS and FIELD_KINDS.get(p.field) == "str"]
    return min(found, key=lambda p: len(p.values)) if found else None


def _in_order(preds: Sequence[Predicate]) -> list[Predicate]:
    """The predicates of one alternative in the order they run: cheap ones first."""
    return sorted(preds, key=lambda p: OPERATORS[p.op].cost)


def _batch_mask(pred: Predicate, batch: pa.RecordBatch, cache: dict, unknown_passes: bool
                ) -> np.ndarray:
    """``_field_mask`` of ``pred`` over the whole batch, computed once per batch: over the
    distinct values of a text field (``distinct``), over the column otherwise."""
    header_null = unknown_passes and pred.field in HEADER_FIELDS
    key = ("batch-mask", pred.field, pred.op, pred.values, header_null)
    mask = cache.get(key)
    if mask is None:
        column = batch.column(pred.field)
        if not distinct.repeats(column):
            mask = _field_mask(pred, column, unknown_passes)
        else:
            test = MASKS[pred.op]
            mask = distinct.encoded(batch, pred.field, cache).mask(
                lambda values: test(values, pred.values))
            if header_null and column.null_count:
                mask |= column.is_null().to_numpy(zero_copy_only=False)
        cache[key] = mask
    return mask


def _holding(pred: Predicate, batch: pa.RecordBatch, rows: np.ndarray, cache: dict | None,
             unknown_passes: bool) -> np.ndarray:
    """Those of ``rows`` where ``pred`` holds: a field whose values repeat is tested once per
    batch and looked up; the message is tested on these rows only."""
    if cache is not None and pred.field not in distinct.ROW_FIELDS:
        return rows[_batch_mask(pred, batch, cache, unknown_passes)[rows]]
    found = distinct.repeating(batch, pred.field, cache) if cache is not None else None
    if found is not None and not (unknown_passes and pred.field in HEADER_FIELDS):
        test = MASKS[pred.op]
        return rows[found.holding(rows, lambda values: test(values, pred.values))]
    sub = batch.column(pred.field).take(pa.array(rows))
    return rows[_field_mask(pred, sub, unknown_passes)]


def _first_mask(first: Predicate, batch: pa.RecordBatch, cache: dict | None,
                prefilter: LiteralIndex | None, unknown_passes: bool) -> np.ndarray:
    if cache is not None and first.field not in distinct.ROW_FIELDS:
        return _batch_mask(first, batch, cache, unknown_passes)
    rows = prefilter.rows(first, batch, cache) if prefilter and cache is not None else None
    if rows is None:
        return _field_mask(first, batch.column(first.field), unknown_passes)
    mask = np.zeros(batch.num_rows, dtype=bool)
    if rows.size:
        mask[rows[_field_mask(first, batch.column(first.field).take(pa.array(rows)),
                              unknown_passes)]] = True
    return mask


@functools.lru_cache(maxsize=4096)
def _plan(preds: tuple[Predicate, ...]) -> tuple[list[Predicate], bool, Predicate | None]:
    """One alternative's predicates in order, whether a null header passes, its literal test."""
    return _in_order(preds), unknown_header_passes(preds), literal_test(preds)


def _alternative_rows(
    preds: Sequence[Predicate], batch: pa.RecordBatch, cache: dict | None,
    prefilter: LiteralIndex | None = None,
) -> np.ndarray:
    """Row indices (ascending) where every predicate of one alternative holds (cheap
    predicates first).

    With a prefilter's literal index, only the rows that hold the alternative's literal are
    looked at (one Hyperscan pass per batch serves every rule)."""
    order, unknown, literal = _plan(tuple(preds))
    if literal is not None and prefilter is not None and cache is not None:
        rows = prefilter.literal_rows(literal, batch, cache)
        if rows is not None:
            for pred in order:
                if rows.size == 0:
                    break
                rows = _holding(pred, batch, rows, cache, unknown)
            return rows
    first = order[0]
    key = (first.field, first.op, first.values, unknown and first.field in HEADER_FIELDS)
    if cache is not None and key in cache:
        rows = cache[key]
    else:
        rows = np.flatnonzero(_first_mask(first, batch, cache, prefilter, unknown))
        if cache is not None:
            cache[key] = rows
    for pred in order[1:]:
        if rows.size == 0:
            break
        rows = _holding(pred, batch, rows, cache, unknown)
    return rows


def matching_rows(cond: Condition, batch: pa.RecordBatch, cache: dict | None = None,
                  prefilter: LiteralIndex | None = None) -> np.ndarray:
    """Row indices (ascending) of the records of ``batch`` that satisfy ``cond``; see
    ``evaluate``."""
    parts = [rows for alt in cond.alternatives
             if (rows := _alternative_rows(alt, batch, cache, prefilter)).size]
    if len(parts) < 2:
        return parts[0] if parts else NO_ROWS
    return distinct_values(np.concatenate(parts))


def evaluate(cond: Condition, batch: pa.RecordBatch, cache: dict | None = None,
             prefilter: LiteralIndex | None = None) -> np.ndarray:
    """Boolean mask of the records of ``batch`` that satisfy ``cond``. ``cache`` (one dict per
    batch) shares masks between conditions; ``prefilter`` must have been built from a set of
    conditions that includes ``cond``."""
    mask = np.zeros(batch.num_rows, dtype=bool)
    mask[matching_rows(cond, batch, cache, prefilter)] = True
    return mask


def extract(cond: Condition, sub: pa.RecordBatch) -> dict[str, list[str | None]]:
    """Named-group captures of ``cond`` for every row of ``sub`` (the candidate rows only).

    The first alternative, and within it the first pattern, that yields a non-empty value for a
    name wins. Rows where nothing captured a name hold None.
    """
    names = sorted(cond.captures)
    out: dict[str, list[str | None]] = {n: [None] * sub.num_rows for n in names}
    # The alternatives' shared tests run once (over a batch's distinct values, ``distinct``).
    cache: dict | None = {} if isinstance(sub, pa.RecordBatch) else None
    for alt in cond.alternatives:
        alt_rows = _alternative_rows(alt, sub, cache)
        for pred in alt:
            if pred.op == "known" and alt_rows.size:
                _merge(out, alt_rows, _known_codes(sub.column(pred.field), alt_rows),
                       OPERATORS["known"].captures)
            if pred.op != "re":
                continue
            column = sub.column(pred.field)
            for pattern, groups in zip(pred.values, pred.groups, strict=True):
                if not groups or alt_rows.size == 0:
                    continue
                texts = column.take(pa.array(alt_rows))
                found = pc.extract_regex(texts, pattern)
                _merge(out, alt_rows, found, groups)
    return out


def _known_codes(column: pa.Array, rows: np.ndarray) -> pa.StructArray:
    """For the given rows of a ``codes`` column: the most telling known code and its class,
    as the struct ``extract_regex`` gives a pattern's groups. Each distinct list of codes is
    looked up once (an error repeated on every step carries the same codes)."""
    from plogscan.codes import most_specific

    lists = column.take(pa.array(rows))
    values = pc.list_flatten(lists)
    if values.null_count or pc.any(pc.match_substring(values, _CODE_SEPARATOR)).as_py():
        distinct, index = lists.to_pylist(), np.arange(len(lists))  # no join tells them apart
    else:
        encoded = pc.dictionary_encode(pc.binary_join(lists, _CODE_SEPARATOR))
        distinct = [value.split(_CODE_SEPARATOR) if value else []
                    for value in encoded.dictionary.to_pylist()]
        distinct.append([])  # a null list
        index = pc.fill_null(encoded.indices, len(distinct) - 1).to_numpy(zero_copy_only=False)
    picked = [most_specific(codes or ()) for codes in distinct]
    code = pa.array([p[0] if p else None for p in picked], pa.string()).take(index)
    category = pa.array([p[1] if p else None for p in picked], pa.string()).take(index)
    return pa.StructArray.from_arrays([code, category], names=list(OPERATORS["known"].captures))


_CODE_SEPARATOR = "\x1f"


def _merge(
    out: Mapping[str, list[str | None]], rows: np.ndarray, found: pa.Array, groups: Sequence[str]
) -> None:
    valid = found.is_valid().to_numpy(zero_copy_only=False)
    for name in groups:
        values = found.field(name).to_pylist()
        target = out[name]
        for i, row in enumerate(rows):
            if valid[i] and values[i] and target[row] is None:
                target[row] = values[i]
