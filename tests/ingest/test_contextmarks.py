"""When the reducer is also the context's marker (``diagnose``), the workers ask it once per
chunk which records are candidates (``ingest.contextmarks``): the records kept and their
context lines are those of asking twice, in plain files read by ranges, streamed ones and
small files read in groups, with processes and threads."""

from __future__ import annotations

import gzip
import threading
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from plogscan.ingest.contextlines import ContextSpec
from plogscan.ingest.contextmarks import RememberedMarks, asked_once
from plogscan.ingest.pipeline import Ingest
from tests.ingest.test_context_lines import RADIUS, Every, _lines, _write

CALLS = threading.local()


class KeepEvery(Every):
    """``Every`` as a reducer too: it keeps its candidates and every third record, and counts
    the times it is asked for candidates outside ``keep`` (in this thread)."""

    def keep_and_candidates(self, records: pa.Table) -> tuple[np.ndarray, np.ndarray | None]:
        candidates = super().candidates(records)
        return candidates | (np.arange(records.num_rows) % 3 == 0), candidates

    def keep(self, records: pa.Table) -> np.ndarray:
        return self.keep_and_candidates(records)[0]

    def candidates(self, records: pa.Table) -> np.ndarray:
        CALLS.count = getattr(CALLS, "count", 0) + 1
        return super().candidates(records)


def _table(path: Path, reducer: KeepEvery, marker: KeepEvery, processes: bool) -> pa.Table:
    ingest = Ingest(workers=2, chunk_bytes=4096, reducer=reducer, processes=processes,
                    context=ContextSpec(RADIUS, marker))
    return pa.Table.from_batches(list(ingest.batches([str(path)]))).sort_by(
        [("path", "ascending"), ("line", "ascending")])


@pytest.mark.parametrize("processes", [False, True])
def test_asking_once_keeps_the_same_records_and_context(tmp_path: Path, processes: bool
                                                        ) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    lines = _lines(5, 3000)
    _write(folder / "big.log", lines)  # a range file
    (folder / "big.log.gz").write_bytes(gzip.compress(b"".join(lines)))  # a stream
    for index in range(3):  # small files, parsed in a group
        _write(folder / f"plog-{index}_20260317140200000.log", _lines(20 + index, 150))
    reducer = KeepEvery(4)
    twice = _table(folder, reducer, KeepEvery(4), processes)  # another marker: asked again
    once = _table(folder, reducer, reducer, processes)
    assert once.num_rows == twice.num_rows > 1000
    assert once.equals(twice)
    assert once.column("context_before").null_count < once.num_rows  # context was taken


def test_the_context_reads_the_reducers_answer() -> None:
    """Parsed once, the context's ``candidates`` comes from ``keep``: the marker is not asked
    again, and the records it marks are those it marked among all of them."""
    reducer = KeepEvery(2)
    marks, spec = asked_once(reducer, ContextSpec(RADIUS, reducer))
    assert isinstance(marks, RememberedMarks) and spec is not None and spec.marker is marks
    messages = [f"x line {n} y" for n in range(1, 21)]
    records = pa.table({"line": list(range(1, 21)), "message": messages})
    CALLS.count = 0
    kept = records.filter(pa.array(marks.keep(records)))
    assert CALLS.count == 0
    assert spec.marker.candidates(kept).tolist() == [
        n % 2 == 0 for n in kept.column("line").to_pylist()]
    assert CALLS.count == 0
    # another reducer, or no context: nothing is wrapped
    assert asked_once(reducer, ContextSpec(RADIUS, KeepEvery(2)))[0] is reducer
    assert asked_once(reducer, None) == (reducer, None)
