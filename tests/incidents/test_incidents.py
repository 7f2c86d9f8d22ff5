"""Incidents: one root cause with everything that follows from it, and the answer first.

Every finding belongs to exactly one incident; the flagship sample is one incident on both
ranks whose first screen names the rule, the ranks and the workaround; each multi-rank sample
gives one incident per failing attempt; ids are stable; the order puts a specific cause before
the wrappers and waits it produces.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime

import pytest

from plogscan.baseline import Baseline, BaselineEntry, apply_baseline
from plogscan.incidents import build
from plogscan.model import Evidence, Finding, Level, Scope, Verdict
from plogscan.report import render
from tests.helpers import REPO_ROOT, diagnosed

ROOT = REPO_ROOT
SAMPLES = sorted(p for p in (ROOT / "samples").iterdir() if p.is_dir() and not
                 p.name.startswith(("_", ".")))
MULTI_RANK = ("notify-wait-cascade", "link-chain-silent-rank", "op-index-mismatch",
              "clock-skew-earliest-error", "restart-two-attempts", "notify-wait-undetermined")


@pytest.fixture(scope="module")
def diagnoses():
    return {p.name: diagnosed([str(p)], context_lines=0) for p in SAMPLES}


@pytest.mark.parametrize("sample", [p.name for p in SAMPLES])
def test_every_finding_belongs_to_exactly_one_incident(diagnoses, sample: str) -> None:
    diagnosis = diagnoses[sample]
    ids = [f.id for f in diagnosis.findings]
    assert len(set(ids)) == len(ids) and all(ids)
    members = [m for incident in diagnosis.incidents for m in incident.members]
    assert sorted(members) == sorted(ids)
    # Findings come incident by incident, root first.
    assert ids == members
    for incident in diagnosis.incidents:
        root = next(f for f in diagnosis.findings if f.id == incident.root)
        assert (incident.rule, incident.level, incident.title) == (root.rule, root.level,
                                                                   root.title)


def test_the_flagship_is_one_incident_on_both_ranks(diagnoses) -> None:
    diagnosis = diagnoses["ccu-reuse-before-mc2"]
    (incident,) = diagnosis.incidents
    assert incident.rule == "CCU001" and incident.scope.ranks == (0, 1)
    assert len(incident.same_rule) == 1  # CCU001 on the other rank
    symptoms = {f.rule for f in diagnosis.findings if f.id in incident.symptoms}
    assert {"CCU002", "AIC001"} <= symptoms  # explained by CCU001, folded under it


def test_the_flagship_report_answers_on_its_first_screen(diagnoses) -> None:
    text = render(diagnoses["ccu-reuse-before-mc2"], "text", width=80)
    lines = text.splitlines()
    assert len(lines) <= 150, len(lines)
    first = "\n".join(lines[:40])
    assert "CCU001" in first and "ranks 0, 1" in first
    assert "Workaround: run the MC2 fused operator" in first
    assert max(len(line) for line in lines) <= 80
    every = render(diagnoses["ccu-reuse-before-mc2"], "text", width=80, show_all=True)
    assert len(every.splitlines()) > len(lines)  # --all unfolds every finding


@pytest.mark.parametrize("sample", MULTI_RANK)
def test_a_multi_rank_sample_gives_one_incident_per_failing_attempt(diagnoses,
                                                                    sample: str) -> None:
    diagnosis = diagnoses[sample]
    failing = [a.id for a in diagnosis.crossrank.attempts if a.failed]
    assert sorted(i.attempt for i in diagnosis.incidents) == failing


def test_the_victims_fold_into_the_root_incident(diagnoses) -> None:
    diagnosis = diagnoses["notify-wait-cascade"]
    (incident,) = diagnosis.incidents
    assert incident.scope.ranks == tuple(range(8))
    assert len(incident.victims) == 7
    waited = [f for f in diagnosis.findings if f.rank_role == "victim"]
    assert waited and all(f.id in incident.symptoms for f in waited)


def test_ids_are_stable_across_reruns() -> None:
    sample = str(ROOT / "samples" / "restart-two-attempts")
    first = json.loads(render(diagnosed([sample], context_lines=0), "json"))
    again = json.loads(render(diagnosed([sample], context_lines=0), "json"))
    assert [f["id"] for f in first["findings"]] == [f["id"] for f in again["findings"]]
    assert first["incidents"] == again["incidents"]


def test_baseline_suppressed_findings_stay_outside_incidents(diagnoses) -> None:
    diagnosis = diagnoses["ccu-reuse-before-mc2"]
    gone = {f.fingerprint for f in diagnosis.findings if f.rule == "AIC001"}
    baseline = Baseline(tuple(BaselineEntry(fp, "AIC001", "t", None, None) for fp in gone))
    kept, suppressed, _ = apply_baseline(diagnosis, baseline)
    assert suppressed and all(f.rule == "AIC001" for f in suppressed)
    members = {m for incident in kept.incidents for m in incident.members}
    assert members == {f.id for f in kept.findings}
    assert not any(f.rule == "AIC001" for f in kept.findings)


def _finding(rule: str, level: Level, pid: int, *, line: int, explains: tuple[str, ...] = (),
             role: str = "root-cause", links: tuple[str, ...] = (),
             verdict: Verdict = Verdict.MATCH) -> Finding:
    ts = datetime(2026, 5, 1, 8, 0, line)
    ev = Evidence(path=f"p{pid}.log", line=line, ts=ts, message="m", step="match", pid=pid)
    return Finding(fingerprint=f"{rule}{pid}{line}", rule=rule, name=rule.lower(), title=rule,
                   category="c", level=level, verdict=verdict, description="", scope=Scope(
                       pids=(pid,)), first_ts=ts, last_ts=ts, evidence=(ev,), remediation=(),
                   role=role, links=links, explains=explains, missing=("x",) if
                   verdict is Verdict.NOT_EVALUABLE else ())


def test_a_specific_cause_roots_its_consequences_whatever_their_levels() -> None:
    cause = _finding("SPEC", Level.WARNING, 1, line=5, explains=("WRAP",))
    wrapper = _finding("WRAP", Level.CRITICAL, 1, line=2)
    elsewhere = _finding("WRAP", Level.CRITICAL, 2, line=3)  # another process, same attempt
    findings, incidents = build([wrapper, elsewhere, cause])
    (incident,) = incidents
    assert incident.rule == "SPEC" and incident.symptoms == ("WRAP-1", "WRAP-2")
    assert [f.id for f in findings] == ["SPEC-1", "WRAP-1", "WRAP-2"]
    # In another attempt the cause explains nothing: the wrapper is an incident of its own.
    later = replace(elsewhere, attempt=2)
    _, incidents = build([wrapper, later, cause])
    assert [(i.rule, i.attempt) for i in incidents] == [("WRAP", 2), ("SPEC", None)]  # level


def test_a_symptom_without_its_cause_comes_after_real_roots() -> None:
    wrapper = _finding("WRAP", Level.CRITICAL, 1, line=1, role="symptom", links=("GONE",))
    real = _finding("REAL", Level.WARNING, 2, line=9)
    _, incidents = build([wrapper, real])
    assert [i.rule for i in incidents] == ["REAL", "WRAP"]


def test_an_unchecked_rule_joins_the_fault_it_is_about_and_causes_nothing() -> None:
    unchecked = _finding("CHK", Level.CRITICAL, 1, line=4, explains=("FAULT",),
                         verdict=Verdict.NOT_EVALUABLE)
    fault = _finding("FAULT", Level.ERROR, 1, line=4)
    findings, incidents = build([unchecked, fault])
    (incident,) = incidents
    assert incident.rule == "FAULT" and incident.symptoms == ("CHK-1",)
    assert [f.id for f in findings] == ["FAULT-1", "CHK-1"]


def test_a_circle_of_explains_still_gives_every_finding_one_incident() -> None:
    a = _finding("A", Level.ERROR, 1, line=1, explains=("B",))
    b = _finding("B", Level.ERROR, 1, line=2, explains=("A",))
    findings, incidents = build([a, b])
    assert sorted(m for i in incidents for m in i.members) == sorted(f.id for f in findings)


def test_json_incidents_name_findings_by_id(diagnoses) -> None:
    document = json.loads(render(diagnoses["notify-wait-cascade"], "json"))
    ids = {f["id"] for f in document["findings"]}
    for incident in document["incidents"]:
        assert {incident["root"], *incident["same_rule"], *incident["symptoms"]} <= ids
    assert document["summary"]["top_finding"] == next(
        f["fingerprint"] for f in document["findings"] if f["id"] ==
        document["incidents"][0]["root"])


def test_the_header_folds_to_one_line_per_host_past_sixteen_processes(diagnoses) -> None:
    from plogscan.model import ProcessInfo

    diagnosis = diagnoses["notify-wait-cascade"]
    many = tuple(ProcessInfo(host=f"node-{i // 8}", pid=1000 + i, rank=i, device=i % 8,
                             levels=("ERROR", "INFO"), first_ts=None, last_ts=None)
                 for i in range(40))
    text = render(replace(diagnosis, processes=many), "text")
    assert "RANKS" in text and "node-0  0–7" in text and "node-4  32–39" in text
    assert "pid 1000" not in text and " 1000 " not in text
    every = render(replace(diagnosis, processes=many), "text", show_all=True)
    assert "RANKS" not in every and "1031" in every  # one line per process (the first 32)
