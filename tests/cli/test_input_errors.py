"""Paths named on the command line that cannot be read: named on stderr with the system's
reason, listed among the report's inputs as errors in every format, and exit code 2 once the
reports of what could be read are written (2 wins over 1, under ``--fail-on never`` too)."""

from __future__ import annotations

import json
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.forked import plogscan_as_nobody
from tests.helpers import REPO_ROOT, run_cli

ROOT = REPO_ROOT
SAMPLE = str(ROOT / "samples" / "ccu-reuse-before-mc2")


def test_a_missing_path_is_named_and_the_rest_is_reported(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent"
    result = run_cli("diagnose", missing, SAMPLE, "--quiet", "--width", "100")
    assert result.exit_code == 2
    assert f"plogscan: {missing}: No such file or directory" in result.stderr.splitlines()
    assert "Traceback" not in result.stderr
    out = " ".join(result.stdout.split())  # long paths wrap
    assert "CCU001" in out  # the sample is still diagnosed
    assert f"Not read {missing}: No such file or directory" in out
    assert "exit code 2 (1 named path could not be read)" in out
    assert "Named paths that could not be read" in out


@pytest.mark.parametrize("fail_on", ["error", "never"])
def test_exit_2_wins_over_findings_and_over_fail_on_never(tmp_path: Path, fail_on: str) -> None:
    missing = tmp_path / "gone"
    result = run_cli("diagnose", missing, SAMPLE, "--quiet", "--format", "json",
                     "--fail-on", fail_on)
    assert result.exit_code == 2
    doc = json.loads(result.stdout)
    assert doc["inputs"]["errors"] == [{"path": str(missing),
                                        "reason": "No such file or directory"}]
    assert doc["summary"]["exit_code"] == 2
    assert doc["inputs"]["paths"] == [str(missing), SAMPLE]
    clean = run_cli("diagnose", SAMPLE, "--quiet", "--format", "json", "--fail-on", fail_on)
    assert clean.exit_code == (1 if fail_on == "error" else 0)
    assert json.loads(clean.stdout)["inputs"]["errors"] == []


def test_every_format_lists_the_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing.log"
    out = tmp_path / "out"
    result = run_cli("diagnose", missing, SAMPLE, "--quiet", "--output-dir", out)
    assert result.exit_code == 2
    assert str(missing) in (out / "report.md").read_text()
    assert "Named paths that could not be read" in (out / "report.md").read_text()
    html = (out / "report.html").read_text()
    assert "Named paths that could not be read" in html and str(missing) in html
    sarif = json.loads((out / "report.sarif").read_text())
    invocation = sarif["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 2
    errors = [n for n in invocation["toolExecutionNotifications"] if n["level"] == "error"]
    assert [n["message"]["text"] for n in errors] == [f"{missing}: No such file or directory"]
    junit = ET.parse(out / "report.xml").getroot()
    assert junit.get("errors") == "1"
    error = junit.find(".//testcase/error")
    assert error is not None and str(missing) in (error.text or "")


def test_a_pattern_that_matches_nothing(tmp_path: Path) -> None:
    pattern = f"{tmp_path}/nothing-*.log"
    result = run_cli("diagnose", pattern, SAMPLE, "--quiet", "--format", "json")
    assert result.exit_code == 2
    assert f"plogscan: {pattern}: no file matches this pattern" in result.stderr
    assert json.loads(result.stdout)["inputs"]["errors"][0]["path"] == pattern


def test_alone_it_still_says_nothing_could_be_read(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent"
    result = run_cli("diagnose", missing)
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert lines[0] == f"plogscan: {missing}: No such file or directory"
    assert lines[1] == "error: nothing could be read from the given paths"
    empty = tmp_path / "empty"
    empty.mkdir()
    other = run_cli("diagnose", empty)  # an empty directory is readable: no path error
    assert other.exit_code == 2
    assert f"plogscan: skipped {empty}: empty directory" in other.stderr.splitlines()
    beside = run_cli("diagnose", empty, SAMPLE, "--quiet", "--format", "json")
    assert beside.exit_code == 1  # said on stderr and in the report, not an error
    assert f"plogscan: skipped {empty}: empty directory" in beside.stderr.splitlines()
    assert {"path": str(empty), "reason": "empty directory"} in \
        json.loads(beside.stdout)["inputs"]["skipped_files"]


def test_other_commands_write_their_output_then_exit_2(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    events = run_cli("events", missing, SAMPLE, "--format", "jsonl", "--level", "ERROR", "--quiet")
    assert events.exit_code == 2
    assert f"plogscan: {missing}: No such file or directory" in events.stderr
    assert len(events.stdout.splitlines()) > 10
    table = tmp_path / "e.parquet"
    ingest = run_cli("ingest", missing, SAMPLE, "-o", table, "--quiet")
    assert ingest.exit_code == 2 and table.stat().st_size > 0
    assert f"plogscan: {missing}: No such file or directory" in ingest.stderr
    # the table keeps the accounting: its report names the path too, and exits 2
    again = run_cli("diagnose", table, "--quiet", "--format", "json")
    assert again.exit_code == 2
    assert json.loads(again.stdout)["inputs"]["errors"][0]["path"] == str(missing)
    baseline = tmp_path / "b.json"
    made = run_cli("baseline", "create", missing, SAMPLE, "-o", baseline, "--quiet")
    assert made.exit_code == 2 and json.loads(baseline.read_text())["entries"]


def test_a_missing_file_inside_a_named_directory_is_no_path_error(tmp_path: Path) -> None:
    """Only what the command line names is an input error: a broken symlink found in a walk
    is a skipped file."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "train.log").write_text((Path(SAMPLE) / "rank_0" / "train_rank0.log").read_text())
    (logs / "gone.log").symlink_to(logs / "never-there.log")
    result = run_cli("diagnose", logs, "--quiet", "--format", "json")
    doc = json.loads(result.stdout)
    assert doc["inputs"]["errors"] == []
    assert {"path": str(logs / "gone.log"), "reason": "broken symlink"} in \
        doc["inputs"]["skipped_files"]


def test_a_broken_symlink_named_on_the_command_line(tmp_path: Path) -> None:
    link = tmp_path / "latest.log"
    link.symlink_to(tmp_path / "rotated-away.log")
    result = run_cli("diagnose", link, SAMPLE, "--quiet", "--format", "json")
    assert result.exit_code == 2
    assert json.loads(result.stdout)["inputs"]["errors"] == [
        {"path": str(link), "reason": "No such file or directory (broken symlink)"}]


def test_chinese_reasons(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent"
    result = run_cli("diagnose", missing, SAMPLE, "--quiet", "--lang", "zh", "--width", "100")
    assert result.exit_code == 2
    assert f"plogscan: {missing}: 没有那个文件或目录" in result.stderr
    assert "无法读取的指定路径" in result.stdout and "退出码 2" in result.stdout


def test_permission_denied_is_named_with_its_reason(tmp_path: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        base.chmod(0o755)
        locked = base / "locked.log"
        locked.write_text((Path(SAMPLE) / "rank_0" / "train_rank0.log").read_text())
        locked.chmod(0)
        secret = base / "secret"
        secret.mkdir()
        secret.chmod(0)
        run_cli("diagnose", SAMPLE, "--quiet", "--format", "json")  # warm up as root
        code, out, err = plogscan_as_nobody(["diagnose", str(locked), str(secret), SAMPLE,
                                             "--quiet", "--format", "json", "--workers", "1",
                                             "--no-cache"])
        assert code == 2, err
        assert f"plogscan: {locked}: Permission denied" in err.splitlines()
        assert f"plogscan: {secret}: Permission denied" in err.splitlines()
        doc = json.loads(out)
        assert doc["inputs"]["errors"] == [
            {"path": str(locked), "reason": "Permission denied"},
            {"path": str(secret), "reason": "Permission denied"}]
        assert doc["findings"]  # the sample beside them is still diagnosed
        secret.chmod(0o755)
