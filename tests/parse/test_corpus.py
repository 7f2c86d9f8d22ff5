"""Real log text that nobody here wrote parses: every line with a CANN header becomes a typed
record (or a line of one that spans records: a table printed row by row by one process, see
``parse.blocks``), and the accounting invariant holds.

The corpus lives outside the repository (``shared/corpus/real`` beside the checkout, or
``$PLOGSCAN_CORPUS``); it is never copied in. Without it these tests are reported as skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from plogscan.ingest.pipeline import Ingest
from tests.corpus_path import corpus_dir

HEADER = re.compile(
    r"^\[(?P<level>[A-Z]+|\d+)\]\s?(?P<module>[A-Za-z0-9_]+)\((?P<pid>-?\d+),(?P<pname>[^)]*)\):"
    r"\s?(?P<ts>\d{4}-\d{2}-\d{2}[- ]\d{2}:\d{2}:\d{2}\.\d{3}\.\d{3})")


CORPUS = corpus_dir()
FILES = sorted(CORPUS.glob("*.log")) if CORPUS else []


@pytest.mark.skipif(CORPUS is None, reason="real-log corpus not present beside the checkout")
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_cann_header_line_becomes_a_typed_record(path: Path) -> None:
    ingest = Ingest()
    rows = [r for b in ingest.batches([str(path)]) for r in b.to_pylist()]
    (stats,) = ingest.summary.files
    assert stats.lines == stats.record_lines + stats.blank_lines
    by_line, within = {}, {}
    for row in rows:
        by_line.setdefault(row["line"], row)
        for number in range(row["line"] + 1, row["line"] + row["line_count"]):
            within.setdefault(number, row)
    text = path.read_bytes().decode("utf-8", errors="replace").split("\n")
    header_lines = [i + 1 for i, line in enumerate(text) if HEADER.match(line)]
    for number in header_lines:
        m = HEADER.match(text[number - 1])
        row = by_line.get(number)
        if row is None and number in within:  # a row of a record that spans records
            joined = within[number]
            assert joined["fmt"] == "cann" and joined["line_count"] > 1
            assert (joined["pid"], joined["level"]) == (int(m["pid"]), m["level"])
            continue
        assert row is not None, f"line {number} is not the first line of a record"
        assert row["fmt"] == "cann"
        assert row["level"] == m["level"] and row["module"] == m["module"]
        assert row["pid"] == int(m["pid"]) and row["proc"] == m["pname"]
        assert row["ts"] is not None or row["ts_invalid"], f"line {number}: ts"
