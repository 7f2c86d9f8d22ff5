"""One Hyperscan pass finds every row that holds a literal (case-insensitive), whether the
rows are scanned as they are or, when they repeat, once per distinct value."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.parse.arrowtext import any_match
from plogscan.parse.literals import LiteralScanner, RegexRows

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


PATTERNS = (r"(?i)\bstep \d+ done$", r"^==> .+ <==[ \t]*$", r"ctx.x")
TEXTS = [" Step 12 done", "STEP 3 DONE later", "==> a/b.log <==", "x ==> a <==", "ctx€x",
         "ctxax", "stэp 1 done", "\u212aeep step 7 done", "==> ", " <==", None, "",
         "mid\nstep 1 done"]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(TEXTS), min_size=0, max_size=200))
def test_regex_rows_are_those_re2_finds_in_every_row(texts: list[str | None]) -> None:
    """Hyperscan picks the rows RE2 then tests: the same rows as RE2 on all of them, for
    non-ASCII text too (a multibyte character where the pattern has ``.``), for repeated
    rows and for patterns that match across two values when scanned end to end."""
    column = pa.array(texts, pa.large_string())
    rows = RegexRows(PATTERNS)
    assert rows.mask(column).tolist() == any_match(column, PATTERNS).tolist()
    assert rows.scanner is not None  # the loosened patterns went to Hyperscan


def test_regex_rows_without_a_loosened_form_use_re2_alone() -> None:
    rows = RegexRows((r"\Qa.b\E",))  # superset_regex does not take \Q...\E apart
    column = pa.array(["a.b", "axb", None])
    assert rows.loosened is None
    assert rows.mask(column).tolist() == [True, False, False]
