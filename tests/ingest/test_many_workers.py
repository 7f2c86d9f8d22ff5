"""Many workers: the chunks in flight grow with the workers only as far as they keep the
consumer fed, and any count of workers reads the same records with the same accounting."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from plogscan.ingest.cores import inflight_limit
from plogscan.ingest.pipeline import Ingest

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "ccu-reuse-before-mc2"


@pytest.mark.parametrize(("workers", "limit"), [(1, 4), (2, 8), (4, 16), (5, 17), (64, 76)])
def test_the_chunks_in_flight_grow_one_a_worker_past_four_workers(workers, limit):
    assert inflight_limit(workers, 4) == limit


def _read(workers: int) -> tuple[pa.Table, object]:
    ingest = Ingest(workers=workers, chunk_bytes=4096)  # many chunks a file
    batches = list(ingest.batches([str(SAMPLE)]))
    return pa.Table.from_batches(batches), ingest.summary


def test_any_count_of_workers_reads_the_same_records_and_accounting():
    table, summary = _read(1)
    assert table.num_rows > 100
    for workers in (3, 24):
        other, other_summary = _read(workers)
        assert other.equals(table), workers
        assert other_summary == summary, workers
