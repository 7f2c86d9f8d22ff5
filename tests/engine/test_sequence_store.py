"""Sequence candidates kept as Arrow and thinned (``engine.seqstore``) give the findings the
plain record-by-record path gives, whatever the interleaving of steps, context records,
processes and files."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from plogscan.engine import candidatestore, seqstore
from plogscan.report import render
from tests.helpers import diagnosed

HEAD = "[{level}] {module}({pid},python3):2026-03-17-14:{m:02d}:{s:02d}.{ms:03d}.000 "
REUSE = "[op_common.cc:1187] [7]Already have context, skip create, ctxSize is {n}"
ENTRY = "[op_base.cc:88] [7]Entry-HcclAlltoAllV: tag[x], count[4]"
FAULT = "[ccu.cc:10] [7]ccu exception occurred, streamId=3, taskId={n}"
OTHER = "[x.cc:1] [7]routine work {n}"


def _line(rnd: random.Random, pid: int, minute: int, second: int) -> str:
    kind = rnd.choices(["reuse", "entry", "fault", "other"], [50, 20, 3, 27])[0]
    module = "HCCL" if kind in ("reuse", "entry") else rnd.choice(["HCCL", "RUNTIME"])
    level = "ERROR" if kind == "fault" else "DEBUG"
    text = {"reuse": REUSE, "entry": ENTRY, "fault": FAULT, "other": OTHER}[kind]
    return (HEAD.format(level=level, module=module, pid=pid, m=minute, s=second,
                        ms=rnd.randrange(1000)) + text.format(n=rnd.randrange(9)))


def _tree(root: Path, seed: int) -> Path:
    rnd = random.Random(seed)
    for pid in (101, 102):
        for part in range(3):  # rotated files of one process, times overlapping a little
            folder = root / f"rank_{pid % 2}" / "process_log" / "debug" / "plog"
            folder.mkdir(parents=True, exist_ok=True)
            lines = []
            for i in range(rnd.randrange(30, 120)):
                minute = part * 4 + i * 5 // 120 + rnd.choice([0, 0, 0, 1])
                lines.append(_line(rnd, pid, minute % 60, rnd.randrange(60)))
            (folder / f"plog-{pid}_2026031714{part:02d}00000.log").write_text(
                "\n".join(lines) + "\n")
    return root


@pytest.mark.parametrize("seed", range(8))
def test_thinned_sequence_gives_the_same_findings(seed: int, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "logs", seed)
    thinned = diagnosed([str(root)])
    monkeypatch.setattr(seqstore, "eligible", lambda rule: False)
    plain = diagnosed([str(root)])
    assert render(thinned, "json") == render(plain, "json")
    assert any(f.rule == "CCU001" for f in plain.findings)


@pytest.mark.parametrize("seed", range(4))
def test_spilled_candidates_give_the_same_findings(seed: int, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "logs", seed)
    monkeypatch.setattr(candidatestore, "SPILL_ROWS", 5)  # past 5 records: to the temporary file
    spilled = diagnosed([str(root)])
    monkeypatch.setattr(seqstore, "eligible", lambda rule: False)
    assert render(spilled, "json") == render(diagnosed([str(root)]), "json")


def test_spilled_rows_are_read_back_batch_by_batch(tmp_path: Path) -> None:
    path = str(tmp_path / "spill.arrow")
    sizes = [3, 0, 5, 1, 4]
    schema = pa.schema([("line", pa.int64()), ("message", pa.string())])
    with pa.ipc.new_file(path, schema) as writer:
        start = 0
        for n in sizes:
            rows = list(range(start, start + n))
            writer.write_batch(pa.record_batch([pa.array(rows, pa.int64()),
                                                pa.array([f"m{r}" for r in rows])], schema=schema))
            start += n
    keep = np.array([0, 2, 3, 7, 8, 12], np.int64)
    table = pa.Table.from_batches(candidatestore.read_kept(path, keep, sizes),
                              schema=schema)
    assert table.column("line").to_pylist() == keep.tolist()
    assert table.column("message").to_pylist() == [f"m{r}" for r in keep]
    assert candidatestore.read_kept(path, np.array([], np.int64), sizes) == []


@pytest.mark.parametrize("seed", range(4))
def test_candidates_split_by_group_on_disk_give_the_same_findings(
        seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past THIN_ROWS the thin columns go to files by group (``groupbuckets``), two buckets
    here so that groups share a file; the findings are those of the plain path."""
    from plogscan.engine import groupbuckets

    root = _tree(tmp_path / "logs", seed)
    monkeypatch.setattr(candidatestore, "SPILL_ROWS", 5)
    monkeypatch.setattr(candidatestore, "THIN_ROWS", 7)
    monkeypatch.setattr(groupbuckets, "BUCKETS", 2)
    made: list[groupbuckets.GroupBuckets] = []
    real = groupbuckets.GroupBuckets

    def watched(by: tuple[str, ...]) -> groupbuckets.GroupBuckets:
        made.append(real(by))
        return made[-1]

    monkeypatch.setattr(candidatestore, "GroupBuckets", watched)
    bucketed = diagnosed([str(root)])
    assert made and all(not Path(b.directory).exists() for b in made)  # used, then removed
    monkeypatch.setattr(seqstore, "eligible", lambda rule: False)
    assert render(bucketed, "json") == render(diagnosed([str(root)]), "json")
