"""Inputs that cannot be read as logs are a finding (INPUT001, evidence-gap, error level), not a
pass: a log turned to binary garbage, a binary-only log, a file in a tree that cannot be opened.
Unreadability is measured in bytes (NUL, control and undecodable bytes); a real log with a few
stray bytes still passes, and the finding never outranks a fault the readable files show."""

from __future__ import annotations

import gzip
import json
import random
import shutil
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from plogscan.analysis.unreadable import (
    NOT_TEXT_MIN_BYTES,
    NOT_TEXT_SHARE,
    mostly_not_text,
)
from plogscan.ingest.chunks import clean
from plogscan.ingest.textbytes import CONTROL_BYTES, control_bytes
from plogscan.lang import missing_translations
from plogscan.report import render
from tests.helpers import REPO_ROOT, run_cli
from tests.helpers import diagnosed as diagnose

ROOT = REPO_ROOT
SAMPLE = ROOT / "samples" / "ccu-reuse-before-mc2"
SCHEMA = json.loads((ROOT / "plogscan" / "schema" / "report.schema.json").read_text())
GOOD = (b"[INFO] ATRACE(4321,python3.10):2026-03-17-14:02:11.482.377 [trace_attr.c:176]"
        b"(tid:4321) trace attr init done, wait time is 0ms.\n"
        b"[INFO] TDT(4321,python3.10):2026-03-17-14:02:12.519.027 [log_env.cpp:88]"
        b"[PrintLogEnv][tid:4321] get ASCEND_GLOBAL_LOG_LEVEL [1]\n")


def _json(*args: object) -> tuple[int, dict]:
    result = run_cli("diagnose", *args, "--quiet", "--format", "json", "--no-cache")
    doc = json.loads(result.stdout)
    assert list(Draft202012Validator(SCHEMA).iter_errors(doc)) == []
    return result.exit_code, doc


def _gaps(doc: dict) -> list[dict]:
    return [f for f in doc["findings"] if f["rule"] == "INPUT001"]


def test_two_good_lines_then_binary_garbage_fail(tmp_path: Path) -> None:
    log = tmp_path / "plog-4321_20260317140211482.log"
    log.write_bytes(GOOD + random.Random(7).randbytes(2048))
    code, doc = _json(log)
    assert code == 1
    (gap,) = _gaps(doc)
    assert (gap["level"], gap["category"], gap["verdict"]) == ("error", "evidence-gap", "match")
    stats = doc["inputs"]["file_stats"][0]
    bad = stats["nul_bytes"] + stats["control_bytes"] + stats["decode_errors"]
    assert stats["records"] >= 2 and bad > 0.4 * 2048
    assert f"{log}: {bad:,} of {stats['bytes']:,} bytes are not text" in gap["description"]
    assert gap["remediation"][0].startswith("Collect these logs again")
    assert doc["incidents"][0]["rule"] == "INPUT001"  # nothing else was found


@pytest.mark.parametrize("garbage", [b"\x00\x01\x02\xff" * 16, bytes(range(256)),
                                     b"\x00" * 4096], ids=["mixed", "every-byte", "nuls"])
def test_a_little_garbage_after_the_lines_is_enough(tmp_path: Path, garbage: bytes) -> None:
    log = tmp_path / "job.log"
    log.write_bytes(GOOD + garbage)
    code, doc = _json(log)
    assert code == 1 and len(_gaps(doc)) == 1


def test_a_binary_only_log_named_is_the_finding_not_nothing_read(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_bytes(random.Random(3).randbytes(8192))
    code, doc = _json(log)
    assert code == 1
    assert _gaps(doc) and doc["inputs"]["errors"] == []
    nuls = tmp_path / "plog-1_20260101010101010.log"  # preallocated, never written
    nuls.write_bytes(b"\x00" * 5000)
    code, doc = _json(nuls)
    assert code == 1
    assert "5,000 of 5,000 bytes are not text (5,000 NUL)" in _gaps(doc)[0]["description"]


def test_a_clean_log_and_a_few_stray_bytes_pass(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_bytes(GOOD)
    code, doc = _json(log)
    assert code == 0 and not _gaps(doc)
    # a real log with a backspace, a bell, a Latin-1 byte and a torn NUL: counted, no finding
    text = (SAMPLE / "rank_0" / "process_log" / "run" / "plog"
            / "plog-276431_20260317140211482.log").read_bytes()
    stray = text[:5000] + b"\x08\x07 caf\xe9 \x00" + text[5000:]
    noisy = tmp_path / "plog-276431_20260317140211482.log"
    noisy.write_bytes(stray)
    code, doc = _json(noisy)
    stats = doc["inputs"]["file_stats"][0]
    assert (stats["control_bytes"], stats["nul_bytes"], stats["decode_errors"]) == (2, 1, 1)
    assert not _gaps(doc)


def test_the_threshold() -> None:
    assert not mostly_not_text(10_000, NOT_TEXT_MIN_BYTES - 1)  # too few bytes
    assert not mostly_not_text(10_000_000, 900_000)  # too small a share
    assert mostly_not_text(10_000, int(NOT_TEXT_SHARE * 10_000))
    assert mostly_not_text(NOT_TEXT_MIN_BYTES, NOT_TEXT_MIN_BYTES)


def test_control_bytes_are_counted_exactly() -> None:
    text = b"line\twith tab\r\n\x1b[31mred\x1b[0m\x0c\x0b"
    assert control_bytes(text) == 0 and clean(text)[3] == 0
    data = bytes(range(256)) * 3
    assert control_bytes(data) == 3 * len(CONTROL_BYTES) == 3 * 26
    assert clean(data)[1:] == (3, clean(data)[2], 78)


def test_the_same_counts_plain_and_compressed(tmp_path: Path) -> None:
    data = GOOD + random.Random(5).randbytes(100_000) + GOOD
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "job.log").write_bytes(data)
    (tmp_path / "b" / "job.log.gz").write_bytes(gzip.compress(data))
    counts = []
    for sub in ("a", "b"):
        _, doc = _json(tmp_path / sub)
        f = doc["inputs"]["file_stats"][0]
        counts.append((f["nul_bytes"], f["control_bytes"], f["decode_errors"]))
    assert counts[0] == counts[1] and counts[0][1] > 0


def test_a_real_fault_stays_the_answer(tmp_path: Path) -> None:
    """Beside the sample's CCU001, a garbage log is an incident of its own, after it (not a
    symptom of the cross-rank root, which is on a rank the garbage is not)."""
    tree = tmp_path / "job"
    shutil.copytree(SAMPLE, tree)
    (tree / "rank_1" / "train_rank1.log").write_bytes(random.Random(9).randbytes(4096))
    code, doc = _json(tree)
    assert code == 1
    assert doc["incidents"][0]["rule"] == "CCU001"
    assert doc["incidents"][-1]["rule"] == "INPUT001"
    (gap,) = _gaps(doc)
    assert doc["incidents"][-1]["root"] == gap["id"] and doc["incidents"][-1]["symptoms"] == []
    assert "train_rank1.log" in gap["description"]
    assert any(r["id"] == "INPUT001" for r in doc["rules_evaluated"])
    never = run_cli("diagnose", tree, "--quiet", "--no-cache", "--fail-on", "never")
    assert never.exit_code == 0  # a finding, not an input error


def test_a_file_in_a_tree_that_cannot_be_opened(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "job.log").write_bytes(GOOD)
    (logs / "collect.zip").write_bytes(b"PK\x03\x04" + b"garbage" * 20)
    packed = gzip.compress(GOOD + random.Random(1).randbytes(20_000).hex().encode())
    (logs / "rank1.log.gz").write_bytes(packed[:len(packed) // 2])
    code, doc = _json(logs)
    assert code == 1
    (gap,) = _gaps(doc)
    assert f"{logs}/collect.zip: could not be opened: corrupt archive" in gap["description"]
    assert f"{logs}/rank1.log.gz: not read to its end" in gap["description"]
    assert gap["description"].startswith("2 input files could not be read as logs")


def test_the_finding_speaks_chinese(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_bytes(GOOD + b"\x00\x01\xff" * 100)
    with missing_translations() as missing:
        diagnosis = diagnose([str(log)], lang="zh", cache=None)
        for fmt in ("text", "json", "markdown", "html", "sarif", "junit"):
            render(diagnosis, fmt)
    assert not missing, missing
    (gap,) = [f for f in diagnosis.findings if f.rule == "INPUT001"]
    assert gap.title == "无法读取的日志文件"
    assert "字节不是文本" in gap.description and "NUL 100" in gap.description
