"""Plain files are read by the workers in newline-aligned ranges: the result must be the one the
streaming reader gives, record for record and count for count."""

from __future__ import annotations

import io
import itertools
import os
import tempfile
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plogscan.ingest import ranges as ingest_module
from plogscan.ingest.pipeline import Ingest
from plogscan.ingest.ranges import plan_ranges
from plogscan.parse.results import FileContext
from tests import plog_lines as L


def _by_ranges(path: Path, chunk: int, workers: int = 2) -> tuple[pa.Table | None, object]:
    ingest = Ingest(chunk_bytes=chunk, workers=workers)
    with open(path, "rb") as stream:
        batches = list(ingest.batches_from([(FileContext(str(path), "plog-debug"), stream)]))
    (stats,) = ingest.summary.files
    return (pa.Table.from_batches(batches) if batches else None), stats


def _streamed(data: bytes, path: Path) -> tuple[pa.Table | None, object]:
    ingest = Ingest(chunk_bytes=1 << 20, workers=1)
    ctx = FileContext(str(path), "plog-debug")
    batches = list(ingest.batches_from([(ctx, io.BytesIO(data))]))
    (stats,) = ingest.summary.files
    return (pa.Table.from_batches(batches) if batches else None), stats


LINES = st.sampled_from([*L.VALID_LINES, "\t", "x", "    indented detail", ""])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(LINES, min_size=1, max_size=60), chunk=st.integers(1, 500),
       trailing_newline=st.booleans())
def test_ranges_give_the_records_and_counts_of_the_streaming_reader(lines, chunk,
                                                                    trailing_newline) -> None:
    data = "\n".join(lines).encode() + (b"\n" if trailing_newline else b"")
    if not data:
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "plog-1_20260101000000000.log"
        path.write_bytes(data)
        with open(path, "rb") as stream:
            assert plan_ranges(stream, chunk) is not None
        ranged, ranged_stats = _by_ranges(path, chunk)
        streamed, streamed_stats = _streamed(data, path)
    assert ranged_stats == streamed_stats
    assert (ranged is None) == (streamed is None)
    if ranged is not None:
        assert ranged.equals(streamed)


def test_ranges_cut_after_newlines_and_cover_the_file(tmp_path: Path) -> None:
    path = tmp_path / "a.log"
    path.write_bytes(b"".join(b"line %d\n" % i for i in range(1000)))
    with open(path, "rb") as stream:
        ranges = plan_ranges(stream, 100)
        assert stream.tell() == 0
    assert ranges is not None and len(ranges) > 10
    assert ranges[0].start == 0 and ranges[-1].end == os.path.getsize(path)
    data = path.read_bytes()
    for before, after in itertools.pairwise(ranges):
        assert before.end == after.start
        assert data[before.end - 1:before.end] == b"\n"
    assert [r.open_record for r in ranges] == [False] + [True] * (len(ranges) - 1)


def test_a_line_longer_than_the_scan_window_is_streamed(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ingest_module, "RANGE_SCAN_BYTES", 64)
    path = tmp_path / "plog-1_20260101000000000.log"
    data = (L.VALID_LINES[0] + "\n" + "A" * 500 + "\n" + L.VALID_LINES[1] + "\n").encode()
    path.write_bytes(data)
    with open(path, "rb") as stream:
        assert plan_ranges(stream, 50) is None
        assert stream.tell() == 0
    ranged, stats = _by_ranges(path, 50)
    streamed, streamed_stats = _streamed(data, path)
    assert stats == streamed_stats and ranged.equals(streamed)


def test_streams_that_are_not_plain_files_are_not_ranged() -> None:
    assert plan_ranges(io.BytesIO(b"a\nb\n"), 1) is None


def _ranged_plog(tmp_path: Path) -> tuple[Path, list]:
    """A plog on disk cut into ranges of about 200 bytes."""
    path = tmp_path / "plog-1_20260101000000000.log"
    path.write_bytes(("\n".join(L.VALID_LINES * 20) + "\n").encode())
    with open(path, "rb") as stream:
        ranges = plan_ranges(stream, 200)
    assert ranges is not None
    return path, ranges


def test_a_file_that_shrinks_while_read_is_reported(tmp_path: Path) -> None:
    path, ranges = _ranged_plog(tmp_path)
    with open(path, "r+b") as handle:
        handle.truncate(ranges[1].start + 10)
    part = ranges[1]
    cleaned = ingest_module.parse_range(part, FileContext(str(path), "plog-debug"), None)
    assert cleaned.problem is not None and "became shorter" in cleaned.problem


def test_a_range_that_cannot_be_read_counts_no_line(tmp_path: Path) -> None:
    path, ranges = _ranged_plog(tmp_path)
    path.unlink()
    cleaned = ingest_module.parse_range(ranges[1], FileContext(str(path), "plog-debug"), None)
    assert cleaned.result.lines == 0 and cleaned.result.records.num_rows == 0
    assert cleaned.problem is not None and "the file vanished during the scan" in cleaned.problem
