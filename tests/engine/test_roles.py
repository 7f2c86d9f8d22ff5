"""Root cause versus symptom: findings carry ``role``, ``links`` and ``explains``, the engine and
every report order them the same way (root causes before what they explain, then level; a
symptom is never the top finding while a root cause of its level exists), and the reports show
the chain."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import jsonschema

from plogscan.catalog.checks import check
from plogscan.catalog.rule import RuleSet
from plogscan.catalog.ruleset import rule_from_text
from plogscan.model import (
    Finding,
    Level,
    Scope,
    Verdict,
    explainers,
    finding_order,
    order_findings,
)
from plogscan.report import render
from plogscan.report.json_report import schema_path
from plogscan.report.view import finding_key, ordered_findings
from tests.helpers import diagnosed

ROOT_RULE = """\
id: TST501
name: test.root
title: Kernel out of bounds
category: operator-oob
level: error
description: The kernel went out of bounds.
remediation: [Fix the kernel input.]
match: {message|contains: 'out of range'}
by: [host, pid]
"""
SYMPTOM_RULE = """\
id: TST502
name: test.wrapper
title: Model execution failed
category: runtime-error
level: {level}
role: symptom
links: [TST501]
description: A wrapper code was logged.
remediation: [Read the root-cause finding.]
match: {{message|contains: 'model execute failed'}}
by: [host, pid]
"""
# The symptom is logged FIRST: time alone would make it the top finding.
LOG = (
    "[ERROR] ASCENDCL(61001,python3):2026-05-07-09:10:11.000.001 [model.cpp:100]61001 "
    "Run:model execute failed, runtime result = 507011\n"
    "[ERROR] RUNTIME(61001,python3):2026-05-07-09:10:12.000.001 [kernel.cc:200]61001 "
    "Check:Index 70000 out of range [0, 65536)\n"
)


def _diagnosed_root_and_symptom(tmp_path: Path, level: str = "error"):
    log = tmp_path / "plog-61001_20260507091000000.log"
    log.write_text(LOG, encoding="utf-8")
    rules = RuleSet((rule_from_text(ROOT_RULE), rule_from_text(SYMPTOM_RULE.format(level=level))))
    return diagnosed([str(log)], rules=rules, context_lines=0)


def _finding(rule: str, role: str, level: Level, second: int) -> Finding:
    return Finding(
        fingerprint=f"{rule}-{second}", rule=rule, name="x.y", title=rule, category="c",
        level=level, verdict=Verdict.MATCH, description="", scope=Scope(),
        first_ts=datetime(2026, 1, 1, 0, 0, second), last_ts=None, evidence=(),
        remediation=(), role=role)


def test_findings_carry_role_and_links(tmp_path: Path) -> None:
    diagnosis = _diagnosed_root_and_symptom(tmp_path)
    by_rule = {f.rule: f for f in diagnosis.findings}
    assert (by_rule["TST501"].role, by_rule["TST501"].links) == ("root-cause", ())
    assert (by_rule["TST502"].role, by_rule["TST502"].links) == ("symptom", ("TST501",))


def test_root_cause_comes_before_an_earlier_symptom_of_the_same_level(tmp_path: Path) -> None:
    diagnosis = _diagnosed_root_and_symptom(tmp_path)
    assert [f.rule for f in diagnosis.findings] == ["TST501", "TST502"]  # engine order
    assert [f.rule for f in ordered_findings(diagnosis.findings)] == ["TST501", "TST502"]
    symptom = next(f for f in diagnosis.findings if f.rule == "TST502")
    assert symptom.first_ts < diagnosis.findings[0].first_ts


def test_a_root_comes_before_a_symptom_it_explains_whatever_the_levels(tmp_path: Path) -> None:
    diagnosis = _diagnosed_root_and_symptom(tmp_path, level="critical")
    assert [f.rule for f in diagnosis.findings] == ["TST501", "TST502"]


def test_level_still_comes_first_between_findings_that_explain_nothing_of_each_other() -> None:
    findings = [_finding("A", "root-cause", Level.ERROR, 1),
                replace(_finding("B", "symptom", Level.CRITICAL, 2), links=("X",))]
    assert [f.rule for f in order_findings(findings)] == ["B", "A"]


def test_explains_puts_the_explaining_finding_first() -> None:
    # C explains A: C goes right before A although A's level is higher; D, which nothing
    # explains, keeps its place by level and time; the symptom S (linking A) follows A.
    findings = [
        _finding("A", "root-cause", Level.CRITICAL, 1),
        replace(_finding("C", "root-cause", Level.ERROR, 5), explains=("A", "Z")),
        _finding("D", "root-cause", Level.CRITICAL, 9),
        replace(_finding("S", "symptom", Level.ERROR, 0), links=("A",)),
        _finding("W", "root-cause", Level.WARNING, 2),
    ]
    assert explainers(findings) == {"A": {"C"}, "S": {"A"}}
    expected = ["C", "A", "D", "S", "W"]
    assert [f.rule for f in order_findings(findings)] == expected
    assert [f.rule for f in ordered_findings(findings)] == expected


def test_a_chain_puts_its_root_on_top_and_other_findings_keep_their_places() -> None:
    # R explains M, M explains L; two findings of L (at t=1 and t=8) and an unrelated X.
    findings = [
        replace(_finding("L", "root-cause", Level.CRITICAL, 1), fingerprint="L1"),
        replace(_finding("L", "root-cause", Level.CRITICAL, 8), fingerprint="L8"),
        replace(_finding("M", "root-cause", Level.ERROR, 3), explains=("L",)),
        replace(_finding("R", "root-cause", Level.INFO, 4), explains=("M",)),
        _finding("X", "root-cause", Level.CRITICAL, 5),
    ]
    assert [f.fingerprint for f in order_findings(findings)] == [
        "R-4", "M-3", "L1", "X-5", "L8"]


def test_a_circle_of_explanations_falls_back_to_the_plain_order() -> None:
    findings = [replace(_finding("A", "root-cause", Level.ERROR, 1), explains=("B",)),
                replace(_finding("B", "root-cause", Level.CRITICAL, 2), explains=("A",))]
    assert sorted(f.rule for f in order_findings(findings)) == ["A", "B"]
    assert len(order_findings(findings)) == 2


def test_explains_from_rule_data_reaches_the_findings(tmp_path: Path) -> None:
    log = tmp_path / "plog-61001_20260507091000000.log"
    log.write_text(LOG, encoding="utf-8")
    wrapper = SYMPTOM_RULE.format(level="critical").replace("role: symptom\nlinks: [TST501]\n", "")
    root = ROOT_RULE + "explains: [TST502]\n"
    diagnosis = diagnosed([str(log)],
                          rules=RuleSet((rule_from_text(root), rule_from_text(wrapper))),
                          context_lines=0)
    assert [(f.rule, f.explains) for f in diagnosis.findings] == [
        ("TST501", ("TST502",)), ("TST502", ())]
    document = json.loads(render(diagnosis, "json"))
    jsonschema.validate(document, json.loads(schema_path().read_text()))
    assert [f["explains"] for f in document["findings"]] == [["TST502"], []]


def test_rules_that_explain_each_other_in_a_circle_are_an_error() -> None:
    first = rule_from_text(ROOT_RULE + "explains: [TST502]\n")
    second = rule_from_text(SYMPTOM_RULE.format(level="error").replace(
        "role: symptom\nlinks: [TST501]\n", "explains: [TST501]\n"))
    issues = [i for i in check(RuleSet((first, second)), []) if "circle" in str(i.error)]
    assert len(issues) == 1
    assert "TST501 -> TST502 -> TST501" in str(issues[0].error)
    assert not [i for i in check(RuleSet((first,)), [], known_ids=["TST502"])
                if "circle" in str(i.error)]


def test_explains_naming_an_unknown_rule_is_an_error() -> None:
    rule = rule_from_text(ROOT_RULE + "explains: [TST999]\n")
    assert any("explains unknown rule TST999" in str(i.error) for i in check(RuleSet((rule,)), []))


def test_one_order_for_engine_and_reports() -> None:
    findings = [
        _finding("B", "symptom", Level.ERROR, 1), _finding("A", "root-cause", Level.ERROR, 5),
        _finding("C", "root-cause", Level.WARNING, 0), _finding("D", "root-cause", Level.ERROR, 3),
        replace(_finding("E", "root-cause", Level.ERROR, 2), verdict=Verdict.NOT_EVALUABLE),
        replace(_finding("F", "symptom", Level.ERROR, 9), first_ts=None),
    ]
    expected = ["D", "A", "E", "B", "F", "C"]
    assert [f.rule for f in sorted(findings, key=finding_order)] == expected
    assert [f.rule for f in ordered_findings(findings)] == expected
    assert all(finding_key(f) == finding_order(f) for f in findings)


def test_reports_show_the_chain(tmp_path: Path) -> None:
    diagnosis = _diagnosed_root_and_symptom(tmp_path)
    text = render(diagnosis, "text", width=100)
    assert "ANSWER · 1 incident" in text and "I1  TST501" in text
    assert text.index("INCIDENT I1 · TST501") < text.index("Follows from it") < \
        text.index("TST502    error  Model execution failed")
    every = render(diagnosis, "text", width=100, show_all=True)
    assert "symptom of: TST501" in every
    assert every.index("[1] TST501") < every.index("[2] TST502")
    markdown = render(diagnosis, "markdown")
    assert "<summary>Follows from it: TST502 (1)</summary>" in markdown
    assert "**Answer:** I1 `TST501`" in markdown
    document = json.loads(render(diagnosis, "json"))
    jsonschema.validate(document, json.loads(schema_path().read_text()))
    assert [(f["rule"], f["role"], f["links"]) for f in document["findings"]] == [
        ("TST501", "root-cause", []), ("TST502", "symptom", ["TST501"])]
    assert [(i["root"], i["symptoms"]) for i in document["incidents"]] == [
        ("TST501-1", ["TST502-1"])]
    html = render(diagnosis, "html")
    assert html.count('<span class="badge role-symptom">symptom</span>') == 1
    assert "symptom of <code>TST501</code>" in html


def _builtin_top(tmp_path: Path, name: str, text: str) -> list[str]:
    log = tmp_path / name
    log.write_text(text, encoding="utf-8")
    return [f.rule for f in diagnosed([str(log)], context_lines=0).findings]


def test_an_environment_failure_outranks_the_device_and_hccl_failures_it_causes(
        tmp_path: Path) -> None:
    text = (
        "RuntimeError: create_config:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:98 HCCL "
        "function error: hcclCommInitRootInfoConfig(numRanks, &rootInfo, rank, config, "
        "&(comm->hcclComm_)), error code is 7\n"
        "[ERROR] 2026-09-01-10:00:01 (PID:5012, Device:0, RankID:0) ERR02200 DIST call hccl api "
        "failed.\n"
        "RuntimeError: Initialize:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:150 NPU "
        "function error: c10_npu::SetDevice(device_id_), error code is 507033\n"
        "E30006: 2026-09-01-10:00:02.000.100 Failed to verify the OPP\n"
    )
    rules = _builtin_top(tmp_path, "train.log", text)
    assert rules[0] == "ENV004", rules
    assert {"HCCL019", "DEV001", "FWK006"} <= set(rules)


def test_a_lost_heartbeat_outranks_the_device_busy_code_that_follows(tmp_path: Path) -> None:
    text = (
        "[ERROR] RUNTIME(8120,python3):2026-09-02-11:00:00.000.001 [api_c_device.cc:40]8120 "
        "rtSetDevice: open device 2 failed, runtime result = 507033\n"
        "[ERROR] TDT(8120,python3):2026-09-02-11:00:05.000.001 [tsd_client.cpp:600][HeartBeat]"
        "[tid:8130] [TsdClient] deviceId[2] heartbeat lost, no response from device for 30s\n"
    )
    rules = _builtin_top(tmp_path, "plog-8120_20260902110000000.log", text)
    assert rules[:2] == ["NET003", "DEV001"], rules
