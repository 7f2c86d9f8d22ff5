"""The reliability table of tests/README.md says how many cases the robustness suites try:
its numbers are recomputed here from the suites themselves."""

from __future__ import annotations

import re
from pathlib import Path

from tests import fuzzing
from tests.adversarial.cases import CASES
from tests.adversarial.test_adversarial import API_CASES
from tests.payloads import NAME_PAYLOADS, PAYLOADS

TESTS = Path(__file__).resolve().parents[1]


def _row(suite: str) -> str:
    text = (TESTS / "README.md").read_text("utf-8")
    (row,) = [line for line in text.splitlines() if line.startswith(f"| {suite}")]
    return row.split("|")[2]


def _tests(name: str) -> int:
    """Test cases a module collects (a parametrized test counts once per parameter set)."""
    source = (TESTS / name).read_text("utf-8")
    plain = len(re.findall(r"^def test_", source, re.M))
    params = re.findall(r"@pytest\.mark\.parametrize\([^\[]*\[(.*?)\]\)\ndef test_", source,
                        re.S)
    extra = sum(len(re.findall(r"^\s*\(\"", block, re.M)) - 1 for block in params)
    return plain + extra


def test_adversarial_count() -> None:
    assert _row("adversarial corpus").strip() == f"{len(CASES) + len(API_CASES)} hostile inputs"


def test_fuzz_count() -> None:
    properties = (TESTS / "pipeline" / "test_fuzz.py").read_text("utf-8").count("@FUZZ\n")
    ci, long = fuzzing.PROFILES["ci"], fuzzing.PROFILES["long"]
    assert _row("fuzzing").strip() == (
        f"{properties} properties × {ci} examples in CI ({properties * ci}); × {long:,} with "
        f"`PLOGSCAN_FUZZ=long` ({properties * long:,})")


def test_payload_count() -> None:
    total = len(PAYLOADS) + len(NAME_PAYLOADS)
    assert _row("report payloads").strip() == (
        f"{total} payloads ({len(PAYLOADS)} in records, {len(NAME_PAYLOADS)} in file names) × "
        "9 outputs")


def test_redaction_count() -> None:
    from tests.redact import test_redaction as redaction

    values = sum(len(redaction.sensitive_values(n)) for n in redaction.NAMES)
    assert _row("redaction").strip() == (
        f"{len(redaction.NAMES)} samples × 18 outputs, {values} listed sensitive values")


def test_other_counts() -> None:
    assert _row("data files").strip() == (
        f"{_tests('datafile/test_datafile_safety.py')} tests of hostile rule, baseline and salt "
        "files")
    assert _row("containment and limits").strip() == f"{_tests('ingest/test_containment.py')} tests"
