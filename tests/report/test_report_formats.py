"""Every report format except HTML, on the canonical diagnoses of ``tests/report_fixtures.py``.

Text (80 columns, no colour), Markdown and JSON are compared whole with goldens under
``tests/golden/reports/`` (``pytest --update-goldens`` rewrites them). JSON is validated against
the published schema, SARIF against the official SARIF 2.1.0 schema, JUnit is parsed back.
Hostile log text is checked in every format; baselines are created, loaded and applied.
"""

from __future__ import annotations

import hashlib
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from datetime import date, datetime

import pytest
from click.testing import CliRunner
from jsonschema import Draft4Validator, Draft202012Validator, FormatChecker
from rich.cells import cell_len

from plogscan.baseline import (
    Baseline,
    BaselineEntry,
    apply_baseline,
    create_baseline,
    dumps_baseline,
    expiry_warnings,
    load_baseline,
)
from plogscan.cli import cli
from plogscan.errors import InputError, PlogscanError
from plogscan.model import Diagnosis, EventRow, IngestSummary, Level, Verdict
from plogscan.report import OUTPUT_FILES, Format, render, write_all
from plogscan.report.json_report import schema_path
from plogscan.report.markdown import fenced
from plogscan.report.timeline import key_events
from plogscan.textsafe import neutralize
from tests.helpers import REPO_ROOT
from tests.report_fixtures import (
    BASELINE_TODAY,
    FIXTURES,
    HOSTILE_MESSAGES,
    baseline_for_flagship,
    baselined_diagnosis,
    flagship_diagnosis,
    hostile_diagnosis,
    not_evaluable_diagnosis,
)

ROOT = REPO_ROOT
REPORT_SCHEMA = json.loads(schema_path().read_text(encoding="utf-8"))
SARIF_SCHEMA = json.loads((ROOT / "tests/schemas/sarif-schema-2.1.0.json").read_text())
GOLDEN_EXT = {Format.TEXT: "txt", Format.MARKDOWN: "md", Format.JSON: "json"}
NON_HTML = [f for f in Format if f is not Format.HTML]
ESC_OUTSIDE_SGR = re.compile(r"\x1b(?!\[[0-9;]*m)")


def report_errors(document: dict) -> list[str]:
    validator = Draft202012Validator(REPORT_SCHEMA, format_checker=FormatChecker())
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(document)]


def sarif_errors(document: dict) -> list[str]:
    validator = Draft4Validator(SARIF_SCHEMA, format_checker=FormatChecker())
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(document)]


# --- goldens and determinism ---------------------------------------------------------------

@pytest.mark.parametrize("fmt", list(GOLDEN_EXT))
@pytest.mark.parametrize("name", list(FIXTURES))
def test_golden(name, fmt, golden):
    golden.check(f"reports/{name}.{GOLDEN_EXT[fmt]}", render(FIXTURES[name](), fmt))


@pytest.mark.parametrize("name", ["flagship", "hostile"])
def test_golden_text_verbose(name, golden):
    golden.check(f"reports/{name}.verbose.txt", render(FIXTURES[name](), "text", verbose=True))


@pytest.mark.parametrize("fmt", NON_HTML)
@pytest.mark.parametrize("name", list(FIXTURES))
def test_render_is_deterministic(name, fmt):
    first = render(FIXTURES[name](), fmt).encode("utf-8")
    again = render(FIXTURES[name](), fmt).encode("utf-8")
    assert first == again
    assert first.endswith(b"\n") and not first.endswith(b"\n\n")


def test_unknown_format_is_a_clear_error():
    with pytest.raises(PlogscanError, match="unknown report format 'yaml'") as err:
        render(flagship_diagnosis(), "yaml")
    assert "markdown" in (err.value.help or "")


# --- text ----------------------------------------------------------------------------------

@pytest.mark.parametrize("verbose", [False, True])
@pytest.mark.parametrize("name", list(FIXTURES))
def test_text_fits_80_columns(name, verbose):
    text = render(FIXTURES[name](), "text", verbose=verbose)
    too_wide = [line for line in text.splitlines() if cell_len(line) > 80]
    assert not too_wide


def test_text_width_option():
    text = render(flagship_diagnosis(), "text", width=120)
    assert max(cell_len(line) for line in text.splitlines()) > 80
    assert "logs/node-a/rank_0/debug/plog/plog-31207_20260318103340117.log:4410" in text


def test_text_plain_has_no_escape_sequences():
    text = render(hostile_diagnosis(), "text", verbose=True)
    assert "\x1b" not in text and "\x00" not in text and "\r" not in text
    assert "\u202e" not in text
    assert "\\x1b[2J" in text and "\\u202e" in text  # shown, not executed


def test_text_color_styles_but_never_passes_log_escapes():
    text = render(hostile_diagnosis(), "text", color=True, verbose=True)
    assert "\x1b[" in text  # rich styled it
    assert not ESC_OUTSIDE_SGR.search(text)
    assert "\x1b[2J" not in text and "\x1b]0;" not in text
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
    assert plain == render(hostile_diagnosis(), "text", verbose=True)


def test_text_sections_and_content():
    text = render(flagship_diagnosis(), "text")
    for heading in ("ANSWER · 3 incidents", "INCIDENT I1 · CCU001", "INCIDENT I2 · CCU002",
                    "TIMELINE (key events per rank)", "DETAILS (--details shows each in full)"):
        assert heading in text
    assert (text.index("ANSWER") < text.index("INCIDENT I1") < text.index("INCIDENT I2")
            < text.index("TIMELINE") < text.index("DETAILS"))
    # the appendix is one line per section; the answer and the exit code end the report
    assert "INGEST HEALTH" not in text and "  Ingest health  6 files read · 1 skipped" in text
    assert text.splitlines()[-3:] == [
        "Answer  I1 CCU001  Cached CCU context reused, then an MC2 fused-kernel fault ·",
        "                   ranks 0, 1 · devices 0, 1 · host node-a",
        "FAIL: 2 critical, 2 error; --fail-on error, exit code 1"]
    detailed = render(flagship_diagnosis(), "text", details=True)
    assert "INGEST HEALTH" in detailed and "DETAILS (" not in detailed
    assert "logs/node-a/core.31207: binary file" in detailed
    assert detailed.splitlines()[-1] == text.splitlines()[-1]
    assert "CRITICAL (2)" not in text  # the by-level listing is --all's
    every = render(flagship_diagnosis(), "text", show_all=True)
    assert every.index("CRITICAL (2)") < every.index("ERROR (2)") < every.index("TIMELINE")
    assert "DEBUG INFO WARNING ERROR EVENT" in text  # levels per process
    assert "+1.234 s" in text  # Δt from reuse to fault
    assert "1. Workaround: run the MC2 fused operator" in text
    verbose = render(flagship_diagnosis(), "text", verbose=True)
    assert "TryReuseResource algTag" in verbose and "TryReuseResource" not in text


def test_text_not_evaluable_says_what_is_missing():
    text = render(not_evaluable_diagnosis(), "text")
    assert "COULD NOT CHECK: EVIDENCE MISSING (1)" in text
    assert "export ASCEND_GLOBAL_LOG_LEVEL=0" in text
    every = render(not_evaluable_diagnosis(), "text", show_all=True)
    assert "not_evaluable" in every and "Not evaluable: missing evidence" in every


def _event(rank, ts, level, message, line):
    return EventRow(ts=datetime.fromisoformat(f"2026-05-01T08:00:{ts}"), level=level,
                    module="HCCL", pid=100 + rank, rank=rank, host="h", device=rank,
                    kind="plog-debug", path=f"r{rank}.log", line=line, message=message)


def test_timeline_key_events_per_rank():
    events = (
        _event(1, "01.000000", "WARNING", "AclrtSynchronizeDeviceWithTimeout returned", 1),
        _event(0, "02.000000", "ERROR", "first failure on rank 0", 2),
        _event(1, "03.000000", "ERROR", "get socket timeout", 3),
        _event(0, "04.000000", "ERROR", "second failure on rank 0", 4),
        _event(1, "05.000000", "ERROR", "operation timed out", 5),
        _event(1, "06.000000", "ERROR", "time out again", 6),
    )
    diagnosis = Diagnosis(inputs=IngestSummary((), (), ()), findings=(), events=events)
    lanes = {lane.name: [(e.kind, e.line) for e in lane.events]
             for lane in key_events(diagnosis)}
    assert lanes == {"rank 0": [("first-error", 2)],
                     "rank 1": [("first-error", 3), ("timeout", 5)]}


def test_neutralize_shows_every_control_character():
    for code in [*range(0x20), 0x7F, *range(0x80, 0xA0)]:
        if chr(code) in "\t\n":
            continue
        shown = neutralize(f"a{chr(code)}b")
        assert shown == f"a\\x{code:02x}b"
    assert neutralize("a\r\nb") == "a\nb"
    assert neutralize("a\nb", keep_newlines=False) == "a\\nb"


# --- JSON ----------------------------------------------------------------------------------

def test_published_schema_is_a_valid_2020_12_schema():
    Draft202012Validator.check_schema(REPORT_SCHEMA)


@pytest.mark.parametrize("name", list(FIXTURES))
def test_json_validates_against_published_schema(name):
    assert report_errors(json.loads(render(FIXTURES[name](), "json"))) == []


def _break_missing(d):
    unchecked = next(f for f in d["findings"] if f["verdict"] == "not_evaluable")
    unchecked["missing"] = []  # not_evaluable without the advice


def _break_level(d):
    d["findings"][1]["level"] = "fatal"


def _break_ts(d):
    d["findings"][1]["evidence"][0]["ts"] = "2026-03-18 10:33:52"  # not ISO, no microseconds


def _break_extra_key(d):
    d["findings"][1]["evidence"][0]["colour"] = "red"


def _break_exit_code(d):
    d["summary"]["exit_code"] = 3


@pytest.mark.parametrize("breakage", [_break_missing, _break_level, _break_ts, _break_extra_key,
                                      _break_exit_code])
def test_json_schema_rejects_what_it_should(breakage):
    document = json.loads(render(not_evaluable_diagnosis(), "json"))
    assert report_errors(document) == []
    breakage(document)
    assert report_errors(document)


def test_json_content():
    document = json.loads(render(flagship_diagnosis(), "json"))
    assert document["schema_version"] == 2
    assert document["tool"]["name"] == "plogscan"
    assert document["inputs"]["files"] == 6 and document["inputs"]["unparsed_lines"] == 3
    assert document["inputs"]["skipped_files"] == [
        {"path": "logs/node-a/core.31207", "reason": "binary file (no text lines)"}]
    top = document["findings"][0]
    assert document["summary"]["top_finding"] == top["fingerprint"] == "c3a81f0d92e4b715"
    assert top["verdict"] == "match" and top["scope"]["ranks"] == [0]
    assert [e["step"] for e in top["evidence"]] == [
        "eager_entry", "reuse", "fault", "fault", "sync_error"]
    assert re.fullmatch(r"2026-03-18T10:33:51\.\d{6}", top["evidence"][1]["ts"])
    assert top["evidence"][4]["ts"] is None
    assert top["captures"]["kernel_name"] == "AlltoAllvQuantGroupedMatMul"
    summary = document["summary"]
    assert summary["by_level"] == {"info": 0, "warning": 0, "error": 2, "critical": 2}
    assert summary["by_verdict"] == {"match": 4, "not_evaluable": 0}
    assert (summary["exit_code"], summary["fail_on"]) == (1, "error")


def test_json_keeps_hostile_text_verbatim():
    document = json.loads(render(hostile_diagnosis(), "json"))
    messages = [e["message"] for e in document["findings"][0]["evidence"]]
    assert messages == list(HOSTILE_MESSAGES)


# --- Markdown --------------------------------------------------------------------------------

def _outside_fences(markdown: str) -> str:
    kept, fence = [], None
    for line in markdown.splitlines():
        run = re.match(r"^(`{3,})", line)
        if fence is None and run:
            fence = run.group(1)
        elif fence is not None and line.startswith(fence) and line.strip("`") == "":
            fence = None
        elif fence is None:
            kept.append(line)
    assert fence is None, "unterminated code fence"
    return "\n".join(kept)


def test_markdown_hostile_text_cannot_break_out():
    markdown = render(hostile_diagnosis(), "markdown")
    prose = _outside_fences(markdown)
    allowed = re.sub(r"</?sub>", "", prose)
    assert "<" not in allowed and ">" not in allowed.replace("&gt;", "")
    assert "@channel" not in prose and "](javascript" not in prose
    assert not re.search(r"(?m)^#+ .*heading", prose)
    for row in (line for line in prose.splitlines() if line.startswith("| ")):
        assert len(re.findall(r"(?<!\\)\|", row)) == 8, row  # 7 columns, no extra cell
    assert "\x1b" not in markdown and "\x00" not in markdown
    assert "<script>alert(1)</script>" in markdown  # verbatim, inside a code block


def test_markdown_fence_is_longer_than_any_backtick_run():
    block = fenced("a ```` b `````` c")
    assert block.startswith("```````text\n") and block.endswith("\n```````")


def test_markdown_content():
    markdown = render(flagship_diagnosis(), "markdown")
    assert markdown.startswith("## plogscan: FAIL: 2 critical, 2 error")
    assert "**Answer:** I1 `CCU001`" in markdown
    assert "Already have context, skip create, ctxSize is 3" in markdown
    assert "1. Workaround: run the MC2 fused operator" in markdown


# --- SARIF ---------------------------------------------------------------------------------

def test_sarif_schema_copy_is_the_official_one():
    data = (ROOT / "tests/schemas/sarif-schema-2.1.0.json").read_bytes()
    assert hashlib.sha256(data).hexdigest() == (  # as shipped; see tests/schemas/README.md
        "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e")
    Draft4Validator.check_schema(SARIF_SCHEMA)
    assert SARIF_SCHEMA["id"].endswith("/sarif-schema-2.1.0.json")
    assert "Static Analysis Results Format (SARIF) Version 2.1.0" in SARIF_SCHEMA["title"]


@pytest.mark.parametrize("name", list(FIXTURES))
def test_sarif_validates_against_official_schema(name):
    assert sarif_errors(json.loads(render(FIXTURES[name](), "sarif"))) == []


def test_sarif_schema_rejects_a_bad_log():
    log = json.loads(render(flagship_diagnosis(), "sarif"))
    log["runs"][0]["results"][0]["level"] = "critical"
    del log["runs"][0]["tool"]["driver"]["name"]
    assert len(sarif_errors(log)) == 2


def test_sarif_results_rules_and_locations():
    diagnosis = not_evaluable_diagnosis()
    run = json.loads(render(diagnosis, "sarif"))["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == sorted(r.id for r in diagnosis.rules_evaluated)
    ccu001 = rules[[r["id"] for r in rules].index("CCU001")]
    assert ccu001["defaultConfiguration"]["level"] == "error"
    assert ccu001["properties"]["category"] == "ccu-context-reuse"
    assert ccu001["help"]["text"].startswith("1. Workaround:")
    by_rule = {r["ruleId"]: r for r in run["results"]}
    assert len(run["results"]) == len(diagnosis.findings)
    unknown = by_rule["CCU001"]
    assert (unknown["kind"], unknown["level"]) == ("review", "none")
    assert "export ASCEND_GLOBAL_LOG_LEVEL=0" in unknown["message"]["text"]
    match = by_rule["CCU002"]
    assert (match["kind"], match["level"]) == ("fail", "error")
    assert match["partialFingerprints"] == {"plogscanFingerprint/v1": "5b0e9d41c7a2f386"}
    location = match["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == (
        "logs/node-a/rank_0/debug/plog/plog-31207_20260318103340117.log")
    assert location["region"] == {"startLine": 5012}
    assert match["relatedLocations"][0]["physicalLocation"]["region"] == {"startLine": 5013}
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]


def test_sarif_level_mapping():
    log = json.loads(render(flagship_diagnosis(), "sarif"))
    levels = {(r["ruleId"], r["level"]) for r in log["runs"][0]["results"]}
    assert levels == {("CCU001", "error"), ("CCU002", "error"), ("AIC001", "error")}
    hostile = json.loads(render(hostile_diagnosis(), "sarif"))["runs"][0]["results"]
    assert {(r["ruleId"], r["kind"], r["level"]) for r in hostile} == {
        ("XSS001", "fail", "warning"), ("XSS002", "review", "none")}


def test_sarif_uris_are_percent_escaped_relative_references():
    log = json.loads(render(hostile_diagnosis(), "sarif"))
    uris = [loc["physicalLocation"]["artifactLocation"]["uri"]
            for result in log["runs"][0]["results"]
            for loc in result.get("locations", []) + result.get("relatedLocations", [])]
    assert uris and all(re.fullmatch(r"[A-Za-z0-9._~%/-]+", uri) for uri in uris)
    assert uris[0] == "logs/we%20ird%7Cdir/%3Cb%3Eplog%3C/b%3E-666_%60x%60.log"


def test_sarif_marks_baseline_suppressions():
    results = json.loads(render(baselined_diagnosis(), "sarif"))["runs"][0]["results"]
    suppressed = [r for r in results if "suppressions" in r]
    assert [r["ruleId"] for r in suppressed] == ["CCU002"]
    assert suppressed[0]["suppressions"] == [{
        "kind": "external", "status": "accepted",
        "justification": "known CCU fault, tracked in ASC-1234"}]


# --- JUnit ---------------------------------------------------------------------------------

def _junit(diagnosis) -> ET.Element:
    return ET.fromstring(render(diagnosis, "junit").encode("utf-8"))


def test_junit_counts():
    root = _junit(flagship_diagnosis())
    cases = root.findall("./testsuite/testcase")
    # One case per incident (named by its root rule), then one per rule that found nothing.
    assert [c.get("name") for c in cases] == [
        "I1 CCU001 ccu.context-reuse-then-mc2-fault", "I2 CCU002 ccu.fused-kernel-fault",
        "I3 AIC001 aicore.exception", "HCCL010 hccl.notify-wait-timeout"]
    assert [c.get("classname") for c in cases][:2] == ["ccu-context-reuse", "ccu-exception"]
    assert [len(c.findall("failure")) for c in cases] == [1, 1, 1, 0]
    assert root.findall(".//skipped") == []
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("4", "3", "0")
    failure = cases[0].find("failure")
    assert "Follows from it:" in failure.text and "CCU001-2 CCU001 critical" in failure.text
    assert failure.get("message") == "Cached CCU context reused, then an MC2 fused-kernel fault"
    assert failure.get("type") == "critical"
    assert "logs/node-a/rank_0/debug/plog/plog-31207_20260318103340117.log:4410" in failure.text
    assert "1. Workaround:" in failure.text


def test_junit_not_evaluable_is_skipped_with_missing_text():
    # An unchecked CCU001 is part of the incident of the fault it is about; alone, it is a
    # skipped case with its advice.
    root = _junit(not_evaluable_diagnosis())
    case = root.find("./testsuite/testcase[@name='I1 CCU002 ccu.fused-kernel-fault']")
    assert "CCU001-1 CCU001 critical" in case.find("failure").text
    assert "not_evaluable" in case.find("failure").text
    diagnosis = not_evaluable_diagnosis()
    alone = replace(diagnosis, findings=tuple(f for f in diagnosis.findings
                                              if f.verdict is Verdict.NOT_EVALUABLE))
    root = _junit(alone)
    case = root.find("./testsuite/testcase[@name='I1 CCU001 ccu.context-reuse-then-mc2-fault']")
    skipped = case.find("skipped")
    assert case.find("failure") is None and skipped is not None
    assert "ASCEND_GLOBAL_LOG_LEVEL=0" in skipped.get("message")
    assert root.find("testsuite").get("skipped") == "1"


def test_junit_escapes_hostile_text():
    text = render(hostile_diagnosis(), "junit")
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f]", text)
    root = ET.fromstring(text.encode("utf-8"))
    failure = root.find(".//failure")
    assert "<script>alert(1)</script>" in failure.text  # escaped in XML, intact when parsed
    assert "]]></failure><x/>" in failure.text
    assert root.find(".//x") is None
    assert failure.get("message") == "Hostile <b>text</b> | in a title"


def test_junit_lists_suppressed_findings():
    root = _junit(baselined_diagnosis())
    case = root.find("./testsuite/testcase[@name='CCU002 ccu.fused-kernel-fault']")
    assert case.find("failure") is None
    assert "suppressed by baseline (known CCU fault" in case.find("system-out").text


# --- output directory ----------------------------------------------------------------------

def test_write_all(tmp_path):
    diagnosis = flagship_diagnosis()
    written = write_all(diagnosis, tmp_path / "out")
    assert [p.name for p in written] == [
        "report.html", "report.json", "report.md", "report.sarif", "report.xml"]
    for (fmt, _), path in zip(OUTPUT_FILES, written, strict=True):
        assert path.read_bytes() == render(diagnosis, fmt).encode("utf-8")


# --- suppressed findings in every format ----------------------------------------------------

def test_every_format_lists_suppressed_findings_and_expired_entries():
    diagnosis = baselined_diagnosis()
    text = render(diagnosis, "text")
    assert "SUPPRESSED BY BASELINE (1)" in text and "5b0e9d41c7a2f386" in text
    assert "known CCU fault, tracked in ASC-1234" in text
    assert "9e14a07b3d52c6f8 (AIC001: AI Core exception) expired on" in text
    markdown = render(diagnosis, "markdown")
    assert "### Suppressed by baseline (1)" in markdown and "**expired**" in markdown
    document = json.loads(render(diagnosis, "json"))
    assert [f["fingerprint"] for f in document["suppressed"]] == ["5b0e9d41c7a2f386"]
    assert document["suppressed"][0]["baseline_reason"] == "known CCU fault, tracked in ASC-1234"
    assert document["baseline_expired"][0]["expires"] == "2026-03-01"
    assert document["summary"]["suppressed"] == 1
    assert "CCU002" not in {f["rule"] for f in document["findings"]}


# --- baselines -----------------------------------------------------------------------------

def test_create_baseline_records_each_fingerprint_once():
    diagnosis = flagship_diagnosis()
    baseline = create_baseline(diagnosis, reason="known", expires=date(2027, 1, 1))
    assert [e.fingerprint for e in baseline.entries] == sorted(
        f.fingerprint for f in diagnosis.findings)
    assert {e.reason for e in baseline.entries} == {"known"}
    ccu001 = next(e for e in baseline.entries if e.fingerprint == "c3a81f0d92e4b715")
    assert (ccu001.rule, ccu001.title) == ("CCU001", diagnosis.findings[0].title)


def test_baseline_file_round_trip(tmp_path):
    baseline = baseline_for_flagship()
    path = tmp_path / "baseline.json"
    path.write_text(dumps_baseline(baseline), encoding="utf-8")
    assert load_baseline(path) == baseline
    document = json.loads(path.read_text())
    assert document["version"] == 1
    assert document["entries"][0] == {
        "fingerprint": "5b0e9d41c7a2f386", "rule": "CCU002", "title": "CCU / fused-kernel fault",
        "reason": "known CCU fault, tracked in ASC-1234", "expires": "2026-12-31"}
    assert dumps_baseline(load_baseline(path)) == path.read_text()


def test_apply_baseline_suppresses_and_reports_expired():
    diagnosis, gone, expired = apply_baseline(flagship_diagnosis(), baseline_for_flagship(),
                                              today=BASELINE_TODAY)
    assert [f.rule for f in gone] == ["CCU002"]
    assert [e.rule for e in expired] == ["AIC001"]
    assert {f.rule for f in diagnosis.findings} == {"CCU001", "AIC001"}
    assert diagnosis.exit_code == 1
    warning = expiry_warnings(expired)[0]
    assert "9e14a07b3d52c6f8" in warning and "expired on 2026-03-01" in warning


def test_baseline_expiry_day_is_inclusive_and_suppressing_all_clears_exit_code():
    findings = flagship_diagnosis().findings
    entries = tuple(BaselineEntry(f.fingerprint, f.rule, f.title, None, date(2026, 3, 20))
                    for f in findings)
    diagnosis, gone, expired = apply_baseline(flagship_diagnosis(), Baseline(entries),
                                              today=date(2026, 3, 20))
    assert (diagnosis.findings, len(gone), expired, diagnosis.exit_code) == ((), 4, [], 0)
    diagnosis, gone, expired = apply_baseline(flagship_diagnosis(), Baseline(entries),
                                              today=date(2026, 3, 21))
    assert (len(diagnosis.findings), gone, len(expired), diagnosis.exit_code) == (4, [], 4, 1)


def test_apply_baseline_counts_not_evaluable_for_the_exit_code():
    diagnosis = not_evaluable_diagnosis()
    ccu002 = next(f for f in diagnosis.findings if f.rule == "CCU002")
    entry = BaselineEntry(ccu002.fingerprint, ccu002.rule, ccu002.title)
    result, _, _ = apply_baseline(diagnosis, Baseline((entry,)), today=BASELINE_TODAY)
    assert [f.verdict for f in result.findings] == [Verdict.NOT_EVALUABLE]
    assert result.findings[0].level is Level.CRITICAL and result.exit_code == 1


@pytest.mark.parametrize(("content", "message", "line"), [
    ('{"version": 1, "entries": [\n  {"fingerprint": "a"\n   "rule": "R"}]}', "not valid JSON", 3),
    ('{"version": 2, "entries": []}', "unsupported baseline version 2", 0),
    ('{"version": 1, "entries": [{"fingerprint": "a", "rule": "R", "title": "t", '
     '"reson": "x"}]}', "entry 0: unknown key 'reson'", 0),
    ('{"version": 1, "entries": [{"fingerprint": "a", "rule": "R", "title": "t", '
     '"expires": "31.12.2026"}]}', "must be a date written YYYY-MM-DD", 0),
    ('{"version": 1, "entries": [{"rule": "R", "title": "t"}]}',
     "entry 0: 'fingerprint' must be a non-empty string", 0),
    ('[]', "exactly the keys 'version' and 'entries'", 0),
])
def test_load_baseline_errors_name_the_file(tmp_path, content, message, line):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(message)) as err:
        load_baseline(path)
    assert err.value.where.path == str(path) and err.value.where.line == line


def test_baseline_cli_rejects_past_expiry(tmp_path):
    result = CliRunner().invoke(cli, ["baseline", "create", str(tmp_path), "-o",
                                      str(tmp_path / "b.json"), "--expires", "2001-01-01"])
    assert result.exit_code == 2
    assert "2001-01-01 is in the past" in result.output
    assert not (tmp_path / "b.json").exists()


def test_baseline_cli_rejects_badly_written_expiry(tmp_path):
    result = CliRunner().invoke(cli, ["baseline", "create", str(tmp_path), "-o",
                                      str(tmp_path / "b.json"), "--expires", "31/12/2099"])
    assert result.exit_code == 2 and "'--expires'" in result.output
