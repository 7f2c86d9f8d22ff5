"""One Hyperscan pass finds every row that holds a literal (case-insensitive), whether the
rows are scanned as they are or, when they repeat, once per distinct value; the C module's
match handler keeps what a Python one keeps."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.parse import compiled
from plogscan.parse.literals import LiteralScanner

LITERALS = ("already", "context", "timeout", "507916")
SCANNER = LiteralScanner.build(LITERALS)
MESSAGES = [" Already have context ", " step done ", " notify TIMEOUT 507916 ", " 上下文 context ",
            " nothing ", None, " "]


def _pairs(found: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[set, set]:
    ids, rows, non_ascii = found
    return set(zip(ids.tolist(), rows.tolist(), strict=True)), set(non_ascii.tolist())


def _exact(messages: list[str | None]) -> set:
    return {(i, row) for row, m in enumerate(messages) if m is not None
            for i, lit in enumerate(LITERALS) if lit in m.lower()}


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(MESSAGES), min_size=0, max_size=300))
def test_repeated_rows_give_the_matches_of_each_row(messages: list[str | None]) -> None:
    column = pa.array(messages, pa.large_string())
    assert SCANNER is not None
    deduped, plain = SCANNER.matches(column), SCANNER.scan_rows(column)
    assert _pairs(deduped) == _pairs(plain)  # no literal spans two values: spaces around
    assert _pairs(deduped)[0] == _exact(messages)
    assert _pairs(deduped)[1] == {r for r, m in enumerate(messages) if m and not m.isascii()}


def test_many_rows_of_few_values_are_scanned_once_per_value() -> None:
    messages = MESSAGES[:3] * 1000
    column = pa.array(messages, pa.large_string())
    ids, rows, _ = SCANNER.matches(column)
    assert len(ids) == len(_exact(messages)) == 4000
    assert sorted(set(rows.tolist())) == [r for r in range(3000) if r % 3 != 1]


@contextmanager
def _python_path() -> Iterator[None]:
    """Within it, the C module counts as not built (``compiled.native`` is None)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compiled, "native", None)
        yield


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["Already have context", "timeout 507916", "tiMEout", "x",
                                 "\n", "上下文", "\xff"]), max_size=400))
def test_the_c_match_list_finds_what_the_python_handler_finds(parts: list[str]) -> None:
    """Hyperscan's matches kept by the C module's ``MatchList`` equal those a Python handler
    keeps (the fallback where the module is not built): same ids, same ends, same order."""
    assert compiled.native is not None  # built in CI: else this compares Python with itself
    assert SCANNER is not None
    buf = "".join(parts).encode("utf-8", "surrogateescape")
    by_c = SCANNER.ids_and_ends(buf)
    with _python_path():
        by_python = SCANNER.ids_and_ends(buf)
    for c_side, python_side in zip(by_c, by_python, strict=True):
        assert c_side.dtype == python_side.dtype == np.int64
        assert np.array_equal(c_side, python_side)
    column = pa.array(parts, pa.large_string())
    with _python_path():
        fallback = SCANNER.matches(column)
    for c_side, python_side in zip(SCANNER.matches(column), fallback, strict=True):
        assert np.array_equal(c_side, python_side)


def test_the_match_list_refuses_what_hyperscan_never_passes() -> None:
    """Called with arguments no scan gives, a ``MatchList`` raises (a scan then stops and
    raises it) instead of keeping a wrong number; ``arrays`` empties it."""
    assert compiled.native is not None
    found = compiled.native.MatchList()
    found(3, 0, 17, 0, None)
    found(1, 0, 2**40, 0, None)
    assert len(found) == 2
    for args in [(1,), ("1", 0, 2, 0, None), (-1, 0, 2, 0, None), (1, 0, 2**70, 0, None)]:
        with pytest.raises((TypeError, ValueError, OverflowError)):
            found(*args)
    with pytest.raises(TypeError):
        found(1, 0, 2, 0, None, extra=1)
    ids, ends = found.arrays()
    assert np.frombuffer(ids, np.int64).tolist() == [3, 1]
    assert np.frombuffer(ends, np.int64).tolist() == [17, 2**40]
    assert len(found) == 0 and found.arrays() == (bytearray(), bytearray())


def test_a_failing_handler_stops_the_scan_with_its_error() -> None:
    """An error in the handler reaches the caller of the scan (Hyperscan stops there)."""
    assert SCANNER is not None

    def broken(*_args: object) -> None:
        raise RuntimeError("handler failed")

    with pytest.raises(RuntimeError, match="handler failed"):
        SCANNER.database.scan(b"already", match_event_handler=broken,
                              scratch=SCANNER._scratch())
