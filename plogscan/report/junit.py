"""The JUnit XML report (``--format junit``), which CI UIs (GitLab, Jenkins, GitHub test
reporters) display natively.

One ``testsuite`` named ``plogscan``; one ``testcase`` per rule evaluated (``classname`` = the
rule's category, ``name`` = ``ID dotted.name``). For that rule:

* each matching finding adds a ``<failure>`` (``message`` = title, ``type`` = level, text =
  scope, evidence lines ``path:line ts message`` and the numbered remediation);
* a ``not_evaluable`` finding, when the rule has no match, makes the case ``<skipped>`` with
  the missing-evidence text (with a match, it is listed in ``<system-out>`` instead, since a
  case cannot be both failed and skipped);
* findings suppressed by a baseline are listed in ``<system-out>`` and do not fail the case.

The suite's ``failures`` and ``skipped`` count test cases. ElementTree escapes markup; control
characters that XML 1.0 forbids are written as visible escapes first (``safe.neutralize``).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from plogscan.model import Diagnosis, Finding, Verdict
from plogscan.report.view import (
    clip,
    fmt_ts,
    ordered_findings,
    scope_parts,
    suppressed,
    suppression_reason,
)
from plogscan.textsafe import neutralize

MAX_EVIDENCE = 20


def _clean(value: str) -> str:
    return neutralize(value)


def _finding_text(finding: Finding) -> str:
    lines = []
    scope = ", ".join(scope_parts(finding.scope))
    lines.append(f"{finding.level.value} · {finding.verdict.value} · {finding.category}"
                 + (f" · {scope}" if scope else "") + f" · fingerprint {finding.fingerprint}")
    if finding.description:
        lines += ["", finding.description]
    if finding.missing:
        lines += ["", "Missing evidence:"] + [f"- {item}" for item in finding.missing]
    if finding.evidence:
        lines += ["", "Evidence:"]
        for ev in finding.evidence[:MAX_EVIDENCE]:
            lines.append(f"[{ev.step}] {ev.path}:{ev.line} {fmt_ts(ev.ts)}")
            lines.append("    " + clip(ev.message).replace("\n", "\n    "))
        if len(finding.evidence) > MAX_EVIDENCE:
            lines.append(f"... {len(finding.evidence) - MAX_EVIDENCE} more evidence records")
    if finding.remediation:
        lines += ["", "Remediation:"]
        lines += [f"{n}. {step}" for n, step in enumerate(finding.remediation, 1)]
    return _clean("\n".join(lines))


def _cases(diagnosis: Diagnosis) -> list[tuple[str, str, str]]:
    """(rule id, classname, name) for every rule evaluated or named by a finding, by id."""
    cases = {r.id: (r.id, r.category, f"{r.id} {r.name}") for r in diagnosis.rules_evaluated}
    for f in (*diagnosis.findings, *suppressed(diagnosis)):
        cases.setdefault(f.rule, (f.rule, f.category, f"{f.rule} {f.name}"))
    return [cases[key] for key in sorted(cases)]


def render(diagnosis: Diagnosis) -> str:
    """The JUnit XML document, newline-terminated and byte-stable."""
    findings = ordered_findings(diagnosis.findings)
    hidden = suppressed(diagnosis)
    suite = ET.Element("testsuite", name="plogscan")
    props = ET.SubElement(suite, "properties")
    for key, value in (("fail_on", diagnosis.fail_on), ("exit_code", str(diagnosis.exit_code)),
                       ("inputs", ", ".join(diagnosis.inputs.paths))):
        ET.SubElement(props, "property", name=key, value=_clean(value))
    failed = skipped = 0
    cases = _cases(diagnosis)
    for rule_id, classname, name in cases:
        case = ET.SubElement(suite, "testcase", classname=_clean(classname), name=_clean(name),
                             time="0")
        mine = [f for f in findings if f.rule == rule_id]
        matches = [f for f in mine if f.verdict is Verdict.MATCH]
        unknown = [f for f in mine if f.verdict is Verdict.NOT_EVALUABLE]
        out: list[str] = []
        for finding in matches:
            failure = ET.SubElement(case, "failure", message=_clean(finding.title),
                                    type=finding.level.value)
            failure.text = _finding_text(finding)
        if matches:
            failed += 1
            out += [f"not evaluable: {_finding_text(f)}" for f in unknown]
        elif unknown:
            skipped += 1
            skip = ET.SubElement(case, "skipped", message=_clean(
                "not evaluable: " + " ".join(m for f in unknown for m in f.missing)))
            skip.text = "\n\n".join(_finding_text(f) for f in unknown)
        for finding in (f for f in hidden if f.rule == rule_id):
            reason = suppression_reason(diagnosis, finding.fingerprint)
            out.append(f"suppressed by baseline{f' ({reason})' if reason else ''}: "
                       + _finding_text(finding))
        if out:
            ET.SubElement(case, "system-out").text = _clean("\n\n".join(out))
    counts = {"tests": len(cases), "failures": failed, "errors": 0, "skipped": skipped,
              "time": "0"}
    suite.attrib.update({k: str(v) for k, v in counts.items()})
    root = ET.Element("testsuites", name="plogscan",
                      **{k: str(v) for k, v in counts.items()})
    root.append(suite)
    ET.indent(root, space="  ")
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"
