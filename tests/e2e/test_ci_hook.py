"""The CI guide's example, run for real: ``docs/ci/github-hook.sh`` against a small log tree.

These tests need the whole pipeline (``plogscan.pipeline`` and ``plogscan diagnose
--output-dir``/``--baseline``). Until that is importable they FAIL on purpose, never skip: a
CI guide whose example does not run must not look green.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from plogscan.cli import cli
from tests.helpers import REPO_ROOT

ROOT = REPO_ROOT
HOOK = ROOT / "docs" / "ci" / "github-hook.sh"
REPORTS = ("report.html", "report.json", "report.md", "report.sarif", "report.xml")
PLOG = "logs/worker-0/debug/plog/plog-52817_20260402142101233.log"
AICORE_LINE = 3
# Default log level (ERROR only in the debug plog): an aicore "timeout or trap" error in a
# process without HCCL DEBUG records.
PLOG_TEXT = (
    "[ERROR] RUNTIME(52817,python3):2026-04-02-14:21:07.311.204 [stars_engine.cc:1553]52817 "
    "ProcLogicCqReport:[EXEC][EXEC]Task run failed, device_id=0, stream_id=61, task_id=90, "
    "sqe_type=0(ffts), errType=0x1(task exception), sqSwStatus=0\n"
    "[ERROR] RUNTIME(52817,python3):2026-04-02-14:21:07.314.870 [device_error_core_proc.cc:480]"
    "52817 PrintCcuTaskInfo:[EXEC][EXEC]ccu task print, coreNum=1, streamId=61, taskId=90.\n"
    "[ERROR] RUNTIME(52817,python3):2026-04-02-14:21:07.318.552 [device_error_core_proc.cc:611]"
    "52817 ProcessStarsCoreErrorInfo:[EXEC][EXEC]The error from device(chipId=0, dieId=0), "
    "serial number is 3, there is an aicore error exception, core id is 12, error code = 0, "
    "errcode:(0) errorstr: timeout or trap error. subErrType: 0x4.\n"
)
NOISE = (
    "[ERROR] TEFUSION(52817,python3):2026-04-02-14:21:02.001.377 [pywrapper.cc:41]52817 "
    "InitPyLogger: optional python logger module not found, using the C++ logger\n"
)


def require_pipeline() -> None:
    try:
        import plogscan.pipeline.stages  # noqa: F401
    except ImportError as err:
        pytest.fail(f"the diagnose pipeline is not importable yet ({err}); these tests run "
                    "docs/ci/github-hook.sh end to end and must not be skipped")


def make_logs(root: Path, noise: bool = False) -> Path:
    plog = root / PLOG
    plog.parent.mkdir(parents=True)
    plog.write_text((NOISE if noise else "") + PLOG_TEXT, encoding="utf-8")
    return root / "logs"


def run_hook(tmp_path: Path, log_dir: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    environment.update({"PLOGSCAN": f"{sys.executable} -m plogscan", "NO_COLOR": "1",
                        "PYTHONPATH": str(ROOT), "OUT": str(tmp_path / "plogscan-report")})
    environment.update(env)
    return subprocess.run(["bash", str(HOOK), str(log_dir)], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=300, check=False)


def test_hook_writes_every_report_and_keeps_the_exit_code(tmp_path):
    require_pipeline()
    logs = make_logs(tmp_path)
    summary = tmp_path / "step-summary.md"
    summary.write_text("# earlier step\n", encoding="utf-8")
    done = run_hook(tmp_path, logs, GITHUB_STEP_SUMMARY=str(summary))
    assert done.returncode == 1, done.stderr
    out = tmp_path / "plogscan-report"
    for name in REPORTS:
        assert (out / name).stat().st_size > 0, name
    document = json.loads((out / "report.json").read_text(encoding="utf-8"))
    schema = json.loads((ROOT / "plogscan/schema/report.schema.json").read_text())
    assert list(Draft202012Validator(schema).iter_errors(document)) == []
    assert document["summary"]["exit_code"] == 1
    evidence = {(e["path"], e["line"]) for f in document["findings"] for e in f["evidence"]}
    assert any(path.endswith(PLOG) and line == AICORE_LINE for path, line in evidence)
    report_md = (out / "report.md").read_text(encoding="utf-8")
    assert report_md.startswith("## plogscan: FAIL")
    assert summary.read_text(encoding="utf-8") == "# earlier step\n" + report_md
    junit = ET.parse(out / "report.xml").getroot()
    assert int(junit.get("failures")) >= 1
    sarif = json.loads((out / "report.sarif").read_text(encoding="utf-8"))
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["results"]
    assert "<html" in (out / "report.html").read_text(encoding="utf-8").lower()


def test_hook_fail_on_never_exits_zero(tmp_path):
    require_pipeline()
    done = run_hook(tmp_path, make_logs(tmp_path), FAIL_ON="never")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "plogscan-report" / "report.json").exists()


def test_hook_reports_when_plogscan_cannot_run(tmp_path):
    require_pipeline()
    summary = tmp_path / "step-summary.md"
    done = run_hook(tmp_path, tmp_path / "no-such-dir", GITHUB_STEP_SUMMARY=str(summary))
    assert done.returncode == 2, done.stderr
    assert "could not diagnose" in summary.read_text(encoding="utf-8")
    assert not (tmp_path / "plogscan-report" / "report.md").exists()


def test_baseline_round_trip_through_the_cli(diagnose_cli, tmp_path):
    """baseline create, then diagnose --baseline on the same logs plus unrelated noise."""
    require_pipeline()
    logs = make_logs(tmp_path / "first")
    baseline = tmp_path / ".plogscan-baseline.json"
    runner = CliRunner()
    created = runner.invoke(cli, ["baseline", "create", str(logs), "-o", str(baseline),
                                  "--reason", "known aicore trap", "--expires", "2999-12-31"])
    assert created.exit_code == 0, created.output
    entries = json.loads(baseline.read_text(encoding="utf-8"))["entries"]
    assert entries and {e["reason"] for e in entries} == {"known aicore trap"}

    noisy = make_logs(tmp_path / "second", noise=True)
    out = tmp_path / "out"
    result = diagnose_cli(noisy, "--baseline", baseline, "--output-dir", out)
    document = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert {f["fingerprint"] for f in document["suppressed"]} == {e["fingerprint"]
                                                                  for e in entries}
    assert document["findings"] == []
    assert result.exit_code == 0, result.output
