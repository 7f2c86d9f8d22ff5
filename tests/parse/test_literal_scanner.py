"""One Hyperscan pass finds every row that holds a literal (case-insensitive), whether the
rows are scanned as they are or, when they repeat, once per distinct value."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

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
