"""The cross-rank prefilter finds the same rows with Hyperscan as with RE2, on any text."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.crossrank.patterns import _LITERALS
from plogscan.crossrank.prefilter import prefiltered_rows

# Pieces of the alternation's literals (whole, cut, in another case) among other text.
_PIECES = [text.replace("\\", "") for text in _LITERALS] + [
    "][12]hcom init", "][]hcom init", "][x1]hcom init", "SETUPAGENT", "setupagent", "|  x",
    "| ", "==>", "==> ", "é", "心跳", "\n", " ", "remote\nrank", "Entry-", "Hccl"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.none(), st.lists(st.sampled_from(_PIECES) | st.text(max_size=6),
                                              max_size=6).map("".join)),
                max_size=80))
def test_hyperscan_and_re2_find_the_same_rows(messages: list[str | None]) -> None:
    column = pa.array(messages, pa.large_string())
    assert prefiltered_rows(column).tolist() == prefiltered_rows(column, hyperscan=False).tolist()


def test_a_match_across_two_messages_is_not_a_row() -> None:
    column = pa.array(["Entry-", "Hccl", "Entry-Hccl"], pa.large_string())
    assert prefiltered_rows(column).tolist() == [2]


def test_a_repeated_message_is_found_on_every_row() -> None:
    column = pa.array(["x", "HCCL_CONNECT_TIMEOUT set by environment to [50]s", None] * 40,
                      pa.large_string())
    assert prefiltered_rows(column).tolist() == list(range(1, 120, 3))
