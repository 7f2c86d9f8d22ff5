"""``diagnose`` hands the rules and the cross-rank stage only the records they can use (the
workers' selector) plus facts of all; the report is the one the whole table gives
(``--events-out`` keeps the whole table flowing through the same stages)."""

from __future__ import annotations

from pathlib import Path

import pytest

from plogscan.report import render
from tests.helpers import SAMPLES_DIR, diagnosed

SAMPLES = SAMPLES_DIR
HEAD = "[{level}] HCCL({pid},python3):2026-03-02-10:15:{s:02d}.000.000 [x.cc:1] [7]"


def _both(paths: list[str], tmp_path: Path) -> tuple[str, str]:
    selective = render(diagnosed(paths), "json")
    whole = render(diagnosed(paths, events_out=str(tmp_path / "events.parquet")), "json")
    return selective, whole


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.iterdir() if p.is_dir()))
def test_samples_give_the_whole_table_report(sample: str, tmp_path: Path) -> None:
    selective, whole = _both([str(SAMPLES / sample)], tmp_path)
    assert selective == whole


def test_pasted_concatenation_with_sections(tmp_path: Path) -> None:
    lines = []
    for worker in (0, 1):
        lines.append(f"==> worker-{worker}/process_log/run/plog/plog-{100 + worker}_1.log <==")
        for i in range(30):
            level = "ERROR" if i == 20 and worker == 1 else "INFO"
            text = "Notify wait timeout, remote rank 0" if level == "ERROR" else f"step {i}"
            lines.append(HEAD.format(level=level, pid=100 + worker, s=i) + text)
        lines.append("")
    pasted = tmp_path / "pasted.log"
    pasted.write_text("\n".join(lines) + "\n")
    selective, whole = _both([str(pasted)], tmp_path)
    assert selective == whole
