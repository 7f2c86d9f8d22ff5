"""Chunks handed over through shared memory arrive whole, and nothing is left behind."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pytest

from plogscan.ingest import handoff
from plogscan.ingest.pipeline import Ingest
from plogscan.schema import decoded
from tests import plog_lines as L

needs_shm = pytest.mark.skipif(not os.access(handoff.SHM_ROOT, os.W_OK),
                               reason="no writable /dev/shm on this machine")


def _ours() -> set[str]:
    if not os.path.isdir(handoff.SHM_ROOT):
        return set()
    return {n for n in os.listdir(handoff.SHM_ROOT) if n.startswith("plogscan-")}


@needs_shm
def test_a_table_round_trips_and_its_file_is_unlinked() -> None:
    table = pa.table({"a": [1, 2, 3], "m": ["x", None, "z" * 5000]})
    with handoff.Handoff() as box:
        assert box.directory is not None
        path = handoff.put(table, box.directory)
        assert path is not None and os.path.exists(path)
        assert handoff.take(path).equals(table)
        assert not os.path.exists(path)
        directory = box.directory
    assert not os.path.exists(directory)


def test_without_a_directory_tables_go_through_the_pipe() -> None:
    assert handoff.put(pa.table({"a": [1]}), None) is None
    with handoff.Handoff(enabled=False) as box:
        assert box.directory is None


def _tree(tmp_path: Path) -> Path:
    logs = tmp_path / "logs"
    logs.mkdir()
    body = "\n".join(L.VALID_LINES * 200) + "\n"
    for i in range(3):
        (logs / f"plog-{i}_20260101000000000.log").write_text(body)
    return logs


def _ingest(logs: Path, encoded: bool = False) -> pa.Table:
    ingest = Ingest(workers=2, chunk_bytes=4096, processes=True, encoded=encoded)
    return pa.Table.from_batches([decoded(b) for b in ingest.batches([str(logs)])])


@needs_shm
def test_ingest_with_and_without_shared_memory_agree_and_leave_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    logs = _tree(tmp_path)
    before = _ours()
    shared = _ingest(logs)
    assert _ours() == before
    assert _ingest(logs, encoded=True).equals(shared)  # dictionaries pass through it too
    monkeypatch.setattr(handoff, "SHM_ROOT", str(tmp_path / "no-such-dir"))
    piped = _ingest(logs)
    assert shared.num_rows > 1000
    assert shared.equals(piped)


@needs_shm
def test_an_interrupted_run_removes_its_directory(tmp_path: Path) -> None:
    logs = _tree(tmp_path)
    before = _ours()
    batches = Ingest(workers=2, chunk_bytes=4096, processes=True).batches([str(logs)])
    next(batches)
    batches.close()  # the consumer stops early (an error, ^C, a broken pipe)
    assert _ours() == before


@needs_shm
def test_a_full_shared_memory_falls_back_to_the_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*_args: object, **_kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    with handoff.Handoff() as box:
        monkeypatch.setattr(pa.ipc, "new_file", full)
        assert handoff.put(pa.table({"a": [1]}), box.directory) is None
        assert os.listdir(box.directory) == []  # no partial file is left
