"""The codes column of a batch (``extract_codes``) is ``codes_in`` of each record's message,
whatever repeats, nulls and levels the batch holds: each distinct message is searched once,
and the answer goes back to every record that holds it. Checked on the samples' lines, the
shared corpora's lines and generated messages."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.parse.codescan import QUIET_LEVELS, codes_in, extract_codes

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
LEVELS = [None, "ERROR", "WARNING", "EVENT", "DEBUG", "INFO", "TRACE", "3"]


def _expected(messages: list[str | None], levels: list[str | None]) -> list[list[str]]:
    return [[] if level in QUIET_LEVELS else codes_in(text or "")
            for text, level in zip(messages, levels, strict=True)]


def _column(messages: list[str | None], levels: list[str | None]) -> list[list[str]]:
    return extract_codes(pa.array(messages, pa.large_string()),
                         pa.array(levels, pa.string())).to_pylist()


def _lines(root: Path) -> list[str]:
    found: list[str] = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in {"", ".log", ".txt", ".md", ".out"}:
            found += path.read_bytes().decode("utf-8", "replace").splitlines()
    return found


def test_equal_to_codes_in_on_the_samples_and_corpora() -> None:
    lines = _lines(ROOT / "samples") + (_lines(CORPUS) if CORPUS.is_dir() else [])
    # the check sees codes: dozens of lines in the samples alone, hundreds with the corpora
    assert sum(bool(codes_in(line)) for line in lines) > (100 if CORPUS.is_dir() else 50)
    messages = lines + lines[::7] + [None, "", "\n".join(lines[:50])]
    levels = [LEVELS[i % len(LEVELS)] for i in range(len(messages))]
    assert _column(messages, levels) == _expected(messages, levels)
    assert _column(messages, [None] * len(messages)) == _expected(messages, [None] * len(messages))


_PIECES = ["EI0002", "E40021:", "ERR00100 ", "error code is 507916", "ret=0x7150227",
           "InnerCode=0x26", "error=117571619", "runtime result = 207000.", "failed : 145021",
           " ", "\n", "x", "(", "EZ9999", "507015", "ret ", ":", "0x", "9"]
_MESSAGES = st.one_of(st.none(), st.lists(st.sampled_from(_PIECES), max_size=8).map("".join))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_MESSAGES, st.sampled_from(LEVELS)), max_size=40), st.data())
def test_equal_to_codes_in_on_generated_messages(records: list, data: st.DataObject) -> None:
    records = records + data.draw(st.lists(st.sampled_from(records), max_size=20)
                                  if records else st.just([]))  # repeats
    messages = [text for text, _ in records]
    levels = [level for _, level in records]
    assert _column(messages, levels) == _expected(messages, levels)
