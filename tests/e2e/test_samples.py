"""End to end: every bundled sample gives its documented outcome, in every report format.

Each ``samples/<name>/`` is diagnosed through the CLI as a user would run it (from the
repository root, with the sample's relative path). The text, Markdown and JSON reports are
compared whole with goldens in ``tests/golden/samples/``; JSON and SARIF are validated against
their schemas; the exit code and the headline findings are asserted from the sample's README.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from plogscan.report.json_report import schema_path
from tests.helpers import REPO_ROOT

REPO = REPO_ROOT
SARIF_SCHEMA = json.loads((REPO / "tests/schemas/sarif-schema-2.1.0.json").read_text())
REPORT_SCHEMA = json.loads(schema_path().read_text())

# sample -> (exit code, {(rule, verdict): number of findings})
EXPECTED = {
    "ccu-reuse-before-mc2": (1, {("CCU001", "match"): 2}),
    "mc2-before-eager": (0, {}),
    "ccu-reuse-no-debug": (1, {("CCU001", "not_evaluable"): 2, ("CCU002", "match"): 2}),
    "hostile-text": (1, {("CCU001", "match"): 1}),
    "ccu-reuse-pasted": (1, {("CCU001", "match"): 1, ("CCU001", "not_evaluable"): 0,
                             ("CCU002", "match"): 1}),
    "notify-timeout-two-hosts": (1, {("MEM001", "match"): 1, ("HCCL002", "match"): 1}),
    # multi-rank samples (samples/_multirank.py); tests/crossrank/test_crossrank_samples.py checks
    # their suspects, victims, chains, clocks and attempts
    "notify-wait-cascade": (1, {("OOB001", "match"): 1, ("HCCL001", "match"): 7}),
    "link-chain-silent-rank": (1, {("HCCL007", "match"): 15}),
    "op-index-mismatch": (1, {("HCCL001", "match"): 4}),
    "clock-skew-earliest-error": (1, {("OOB001", "match"): 1, ("SDMA001", "match"): 1,
                                      ("HCCL001", "match"): 15}),
    "restart-two-attempts": (1, {("HW001", "match"): 1, ("MEM001", "match"): 1,
                                 ("HCCL001", "match"): 6}),
    "notify-wait-undetermined": (1, {("HCCL001", "match"): 4}),
}


pytestmark = pytest.mark.usefixtures("at_repo_root")


@pytest.mark.parametrize("sample", sorted(EXPECTED))
def test_sample_outcome_and_json_golden(diagnose_cli, sample: str, golden) -> None:
    code, wanted = EXPECTED[sample]
    result = diagnose_cli(f"samples/{sample}", "--quiet", "--format", "json")
    assert result.exit_code == code, result.stderr
    document = json.loads(result.stdout)
    jsonschema.validate(document, REPORT_SCHEMA)
    counts: dict[tuple[str, str], int] = {}
    for finding in document["findings"]:
        key = (finding["rule"], finding["verdict"])
        counts[key] = counts.get(key, 0) + 1
    for key, number in wanted.items():
        assert counts.get(key, 0) == number, (key, counts)
    if code == 0:
        assert not [f for f in document["findings"] if f["level"] in ("error", "critical")]
    golden.check(f"samples/{sample}.json", result.stdout)
    again = diagnose_cli(f"samples/{sample}", "--quiet", "--format", "json")
    assert again.stdout == result.stdout  # byte-identical


@pytest.mark.parametrize("sample", sorted(EXPECTED))
@pytest.mark.parametrize(("fmt", "suffix"), [("text", "txt"), ("markdown", "md")])
def test_sample_text_and_markdown_goldens(diagnose_cli, sample: str, fmt: str, suffix: str,
                                          golden) -> None:
    result = diagnose_cli(f"samples/{sample}", "--quiet", "--format", fmt, "--width", "100")
    assert result.exit_code == EXPECTED[sample][0]
    golden.check(f"samples/{sample}.{suffix}", result.stdout)


@pytest.mark.parametrize("sample", sorted(EXPECTED))
def test_sample_sarif_and_junit_are_valid(diagnose_cli, sample: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = diagnose_cli(f"samples/{sample}", "--quiet", "--output-dir", str(out))
    assert result.exit_code == EXPECTED[sample][0]
    names = sorted(p.name for p in out.iterdir())
    assert names == ["report.html", "report.json", "report.md", "report.sarif", "report.xml"]
    jsonschema.validate(json.loads((out / "report.sarif").read_text()), SARIF_SCHEMA)
    import xml.etree.ElementTree as ET

    suite = ET.parse(out / "report.xml").getroot()
    assert suite.iter("testcase")
    assert (out / "report.html").stat().st_size < 2_000_000


def test_flagship_finding_names_kernel_stream_task_and_the_delay(diagnose_cli) -> None:
    document = diagnose_cli.json("samples/ccu-reuse-before-mc2")
    flagship = [f for f in document["findings"] if f["rule"] == "CCU001"]
    assert {tuple(f["scope"]["ranks"]) for f in flagship} == {(0,), (1,)}
    first = flagship[0]
    assert first["level"] == "critical" and first["category"] == "ccu-context-reuse"
    steps = [e["step"] for e in first["evidence"]]
    assert "reuse" in steps and "fault" in steps
    reuse = next(e for e in first["evidence"] if e["step"] == "reuse")
    assert "Already have context, skip create" in reuse["message"]
    assert reuse["path"].endswith(".log") and reuse["line"] > 0
    captures = dict(first["captures"]) if isinstance(first["captures"], list) else first["captures"]
    assert "AlltoAllvQuantGroupedMatMul" in str(captures.get("kernel_name"))
    assert captures.get("stream_id") == "61" and captures.get("task_id") == "90"
    assert first["remediation"][0].startswith("Workaround")


def test_pasted_founding_case_answers_ccu001_with_its_two_steps(diagnose_cli) -> None:
    """The excerpt as its reporter pasted it (no header on any line): the answer is CCU001,
    the reuse line and the fault its evidence."""
    document = diagnose_cli.json("samples/ccu-reuse-pasted")
    top = document["incidents"][0]
    assert (top["rule"], top["root"]) == ("CCU001", "CCU001-1")
    (flagship,) = [f for f in document["findings"] if f["rule"] == "CCU001"]
    assert flagship["verdict"] == "match" and flagship["level"] == "critical"
    steps = [(e["step"], e["line"]) for e in flagship["evidence"]]
    assert steps == [("reuse", 3), ("fault", 6), ("fault", 8)]
    assert next(e for e in flagship["evidence"] if e["line"] == 8)["line_count"] == 9


def test_no_debug_sample_says_how_to_enable_debug_logs(diagnose_cli) -> None:
    document = diagnose_cli.json("samples/ccu-reuse-no-debug")
    advice = [" ".join(f["missing"]) for f in document["findings"]
              if f["verdict"] == "not_evaluable"]
    assert len(advice) == 2
    for missing in advice:
        assert "ASCEND_GLOBAL_LOG_LEVEL=0" in missing
        assert "ASCEND_MODULE_LOG_LEVEL=HCCL=0" in missing


def test_a_broken_rule_file_is_located_and_exits_2(diagnose_cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: BAD001\nname: bad.rule\ntitle: t\ncategory: nonsense\nlevel: error\n"
                   "description: d\nmatch:\n  message|contains: x\n")
    result = diagnose_cli("samples/mc2-before-eager", "--quiet", "--rules", str(bad))
    assert result.exit_code == 2
    assert f"{bad}:4" in result.stderr and "category" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_answer_ends_the_terminal_report_and_details_unfold_the_appendix(diagnose_cli) -> None:
    """The last lines are the answer and the exit code; the appendix is one line per section
    until --details, which --help names."""
    folded = diagnose_cli.stdout("samples/link-chain-silent-rank", "--width", "100").splitlines()
    assert folded[-1] == "FAIL: 30 error, 15 warning; --fail-on error, exit code 1"
    assert folded[-3].startswith("Answer  I1 HCCL007  ")
    assert "worker-1 device-5 (rank 13)" in " ".join(folded[-3:-1])
    assert "INGEST HEALTH" not in folded and "UNEXPLAINED ERRORS" not in "\n".join(folded)
    full = diagnose_cli.stdout("samples/link-chain-silent-rank", "--width", "100", "--details")
    assert "INGEST HEALTH" in full and "CODES (1)" in full
    assert full.splitlines()[-1] == folded[-1]
    unexplained = diagnose_cli("samples/notify-wait-cascade", "--quiet", "--width", "100")
    assert "UNEXPLAINED ERRORS" not in unexplained.stdout
    assert "UNEXPLAINED ERRORS" in diagnose_cli.stdout("samples/notify-wait-cascade", "--width",
                                                       "100", "--details")
    # no findings: all in full
    clean = diagnose_cli.stdout("samples/mc2-before-eager", "--width", "100")
    assert "INGEST HEALTH" in clean and clean.splitlines()[-1].startswith("PASS: ")
    assert "--details" in diagnose_cli("--help").stdout
