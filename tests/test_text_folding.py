"""The terminal report folds the findings of one rule beyond three into one line, so a job of
a thousand ranks that all time out stays readable; --verbose and JSON keep every finding."""

from __future__ import annotations

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


def test_findings_of_one_rule_beyond_three_fold_into_one_line() -> None:
    diagnosis = _many(40)
    rule = diagnosis.findings[0].rule
    text = render(diagnosis, "text", width=100)
    assert f"… 37 more {rule} findings (ranks 3, 4, 5" in text
    assert "(37 in all)" in text
    assert text.count(f"] {rule} ") == 3
    verbose = render(diagnosis, "text", width=100, verbose=True)
    assert verbose.count(f"] {rule} ") == 40 and "more " + rule not in verbose
