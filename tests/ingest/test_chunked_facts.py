"""A file parsed in several chunks gives the diagnosis it gives in one: the per-process facts
of a chunk read from the middle of a file carry the file's line numbers, like its records.

Before, the facts of every chunk after the first kept the chunk's own line numbers, so the
records of a job's stdout past its first chunk (8 MiB) were left out of the cross-rank
streams, and an attempt ended where that chunk did."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from plogscan.crossrank import gather
from plogscan.ingest.pipeline import Ingest
from plogscan.pipeline import stages
from plogscan.report import render
from tests.helpers import diagnosed

PLOG = ("[{level}] HCCL(4242,python3):2026-03-14-{h:02d}:{m:02d}:{s:02d}.{ms:03d}.000 "
        "[hccl_comm.cc:310] [4242]routine step {n}")
STDOUT = ("[2026-03-14 {h:02d}:{m:02d}:{s:02d}] (PID:4242, Device:0, RankID:0) iteration {n} "
          "| lm loss: 2.5 |")


LINES = 6000


def _tree(root: Path) -> Path:
    plog = root / "worker-0" / "process_log" / "debug" / "plog"
    plog.mkdir(parents=True)
    job = root / "worker-0" / "job"
    job.mkdir(parents=True)
    lines, out = [], []
    for n in range(LINES):  # files past the small-file size, in about 150 chunks of 4 KiB
        h, rest = divmod(n, 3600)
        m, s = divmod(rest, 60)
        level = "ERROR" if n % 997 == 0 else "DEBUG"
        lines.append(PLOG.format(level=level, h=8 + h, m=m, s=s, ms=n % 1000, n=n))
        out.append(STDOUT.format(h=8 + h, m=m, s=s, n=n))
    (plog / "plog-4242_20260314080000000.log").write_text("\n".join(lines) + "\n")
    (job / "train_rank0.log").write_text("\n".join(out) + "\n")
    return root


def test_small_chunks_give_the_diagnosis_of_whole_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "logs")
    whole = diagnosed([str(root)])
    streams: list = []
    real = gather.Gatherer.summary

    def watched(self):  # type: ignore[no-untyped-def]
        summary = real(self)
        streams.extend(summary.streams)
        return summary

    monkeypatch.setattr(gather.Gatherer, "summary", watched)
    monkeypatch.setattr(stages, "Ingest", functools.partial(Ingest, chunk_bytes=4096))
    chunked = diagnosed([str(root)])
    assert render(chunked, "json") == render(whole, "json")
    stdout = [s for s in streams if s.key.path.endswith("train_rank0.log")]
    assert sum(s.records for s in stdout) == LINES
    assert max(s.last_line for s in stdout) == LINES
    plog = [s for s in streams if s.key.path.endswith(".log") and s.kind == "plog-debug"]
    assert max(s.last_line for s in plog) == LINES
