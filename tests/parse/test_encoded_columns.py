"""The dictionary-encoded form of the event table that ``ingest`` hands to the Parquet writer."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.parse.codescan import extract_codes
from plogscan.parse.columns import constant_column
from plogscan.schema import (
    ENCODED_TEXT,
    EVENT_SCHEMA,
    STORED_SCHEMA,
    decoded,
    encoded,
    encoded_text,
    orderable_text,
    plain_text,
    text_equals,
)

LEVELS = st.sampled_from([None, "DEBUG", "INFO", "ERROR", "WARNING", "TRACE", "3"])


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.text(max_size=4)), max_size=30),
       null_value=st.booleans(), data=st.data())
def test_a_dictionary_with_a_null_value_keeps_the_rows(values: list[str | None],
                                                        null_value: bool,
                                                        data: st.DataObject) -> None:
    """The prefix dictionary holds a null for lines without a header; the encoded column
    must read the same, with no null among its values (Arrow cannot unify those)."""
    distinct = sorted({v for v in values if v is not None})
    if null_value:
        distinct.insert(data.draw(st.integers(0, len(distinct))), None)
    if not distinct:
        return
    index = data.draw(st.lists(st.one_of(st.none(), st.integers(0, len(distinct) - 1)),
                               max_size=30))
    column = pa.DictionaryArray.from_arrays(pa.array(index, pa.int32()),
                                            pa.array(distinct, pa.string()))
    result = encoded_text(column)
    assert result.type == ENCODED_TEXT
    assert result.dictionary.null_count == 0
    assert result.to_pylist() == column.to_pylist()
    assert plain_text(result).to_pylist() == column.to_pylist()


@settings(max_examples=100, deadline=None)
@given(levels=st.lists(LEVELS, min_size=1, max_size=20))
def test_codes_are_found_the_same_with_encoded_levels(levels: list[str | None]) -> None:
    messages = pa.array([f"error code is 507916, EI0002 at {i}" for i in range(len(levels))],
                        pa.large_string())
    text_levels = pa.array(levels, pa.string())
    assert (extract_codes(messages, encoded_text(text_levels)).to_pylist()
            == extract_codes(messages, text_levels).to_pylist())


def test_constant_columns_read_the_same_encoded_or_not() -> None:
    for value in ("worker-1/plog/plog-1_20260101000000000.log", None, ""):
        spelled = constant_column(value, 5)
        stored = constant_column(value, 5, encoded=True)
        assert stored.type == ENCODED_TEXT and spelled.type == pa.string()
        assert stored.to_pylist() == spelled.to_pylist() == [value] * 5


def test_batches_encode_and_decode_between_the_two_schemas() -> None:
    row = {name: None for name in EVENT_SCHEMA.names}
    row.update(level="ERROR", module="HCCL", path="a.log", kind="plog", fmt="cann",
               message="x", line=1, line_count=1, codes=["EI0002"], truncated=False,
               ts_invalid=False, clock_epoch=False)
    batch = pa.RecordBatch.from_pylist([row, {**row, "level": None, "line": 2}],
                                       schema=EVENT_SCHEMA)
    stored = encoded(batch)
    assert stored.schema == STORED_SCHEMA
    assert decoded(stored).equals(batch)
    assert encoded(stored) is stored and decoded(batch) is batch


def test_record_columns_are_copied_out_of_numpy_memory() -> None:
    """Numbers built on a numpy array are copied into Arrow's pool, values unchanged, so
    the worker's heap block can be freed at once (``parse.in_arrow_memory``)."""
    import numpy as np

    from plogscan.parse.columns import in_arrow_memory

    values = np.arange(1000, dtype=np.int64)
    wrapped = pa.array(values)
    assert wrapped.buffers()[1].address == values.ctypes.data  # Arrow did not copy
    owned = in_arrow_memory(wrapped)
    assert owned.buffers()[1].address != values.ctypes.data
    assert owned.equals(wrapped)
    indices = pa.DictionaryArray.from_arrays(pa.array(np.zeros(3, np.int32)), pa.array(["a"]))
    assert in_arrow_memory(indices).to_pylist() == ["a", "a", "a"]


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.sampled_from(["", "a", "b", "ERROR", "é", "Z"]),
                                 st.text(max_size=3)), max_size=30),
       groups=st.lists(st.integers(0, 3), min_size=30, max_size=30),
       probe=st.sampled_from(["ERROR", "a", "", "x"]))
def test_encoded_text_compares_and_orders_as_plain_text(values: list[str | None],
                                                        groups: list[int], probe: str) -> None:
    """The cross-rank summary reads ingest's encoded columns without spelling them out: the
    rows equal to a value, and the least text of each group, are those of the plain column."""
    import numpy as np
    import pyarrow.compute as pc

    plain = pa.array(values, pa.string())
    for column in (plain, pc.dictionary_encode(plain), encoded_text(plain)):
        assert text_equals(column, probe).tolist() == [v == probe for v in values]
        orderable, back = orderable_text(column)
        table = pa.table({"g": pa.array(groups[:len(values)], pa.int64()), "v": orderable})
        got = {row["g"]: back(row["v_min"]) for row in
               table.group_by("g", use_threads=False).aggregate([("v", "min")]).to_pylist()}
        want = {row["g"]: row["v_min"] for row in pa.table(
            {"g": pa.array(groups[:len(values)], pa.int64()), "v": plain}).group_by(
            "g", use_threads=False).aggregate([("v", "min")]).to_pylist()}
        assert got == want
        assert isinstance(text_equals(column, probe), np.ndarray)
