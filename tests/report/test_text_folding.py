"""The terminal report folds a job of a thousand ranks into a few lines: the findings of one
rule on many ranks are one incident, shown once with its ranks; ``--all`` folds the findings
of one rule beyond three into one line; JSON keeps every finding."""

from __future__ import annotations

import json
from dataclasses import replace

from plogscan.report import render
from tests.report_fixtures import flagship_diagnosis


def _many(count: int):
    base = flagship_diagnosis()
    finding = base.findings[0]
    clones = tuple(replace(finding, fingerprint=f"{i:016x}",
                           scope=replace(finding.scope, ranks=(i,), pids=(1000 + i,)))
                   for i in range(count))
    return replace(base, findings=clones)


def test_one_rule_on_many_ranks_is_one_incident_shown_once() -> None:
    diagnosis = _many(40)
    rule = diagnosis.findings[0].rule
    text = render(diagnosis, "text", width=100)
    assert "ANSWER · 1 incident" in text
    assert "ranks 0–39" in text  # the incident's ranks, as a range
    assert "also on ranks 1–39 (39 findings)" in text
    assert text.count(f"] {rule} ") == 1
    document = json.loads(render(diagnosis, "json"))
    assert len(document["findings"]) == 40
    (incident,) = document["incidents"]
    assert len(incident["same_rule"]) == 39 and incident["symptoms"] == []


def test_all_folds_the_findings_of_one_rule_beyond_three_into_one_line() -> None:
    diagnosis = _many(40)
    rule = diagnosis.findings[0].rule
    text = render(diagnosis, "text", width=100, show_all=True)
    assert f"… 37 more {rule} findings (ranks 3, 4, 5" in text
    assert "(37 in all)" in text
    assert text.count(f"] {rule} ") == 3
    verbose = render(diagnosis, "text", width=100, verbose=True, show_all=True)
    assert verbose.count(f"] {rule} ") == 40 and "more " + rule not in verbose
