"""The JUnit XML report (``--format junit``), which CI UIs (GitLab, Jenkins, GitHub test
reporters) display natively.

One ``testsuite`` named ``plogscan``, with one ``testcase`` per incident and one per rule that
found nothing:

* an incident's case (``classname`` = its category, ``name`` = ``I1 CCU001 dotted.name``, its
  root rule) fails with the root finding (``message`` = title, ``type`` = level, text = scope,
  evidence lines ``path:line ts message`` and the numbered remediation) followed by the
  findings that follow from it, one line each; an incident whose root could not be checked
  (``not_evaluable``) is ``<skipped>`` with the missing-evidence text instead;
* a rule evaluated without any finding is a passing case (``name`` = ``ID dotted.name``), so
  the suite shows what was checked;
* findings suppressed by a baseline are listed in their rule's ``<system-out>`` and fail
  nothing.

The suite's ``failures`` and ``skipped`` count test cases. ElementTree escapes markup; control
characters that XML 1.0 forbids are written as visible escapes first (``safe.neutralize``).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from plogscan.model import Diagnosis, Finding, RuleInfo, Verdict
from plogscan.report.view import (
    clip,
    complete,
    fmt_ts,
    report_findings,
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


def _member_line(finding: Finding) -> str:
    scope = ", ".join(scope_parts(finding.scope))
    return (f"- {finding.id} {finding.rule} {finding.level.value}: {finding.title}"
            + (f" ({scope})" if scope else "") + f" [{finding.verdict.value}]")


def render(diagnosis: Diagnosis) -> str:
    """The JUnit XML document, newline-terminated and byte-stable."""
    diagnosis = complete(diagnosis)
    by_id = {f.id: f for f in report_findings(diagnosis)}
    hidden = suppressed(diagnosis)
    suite = ET.Element("testsuite", name="plogscan")
    props = ET.SubElement(suite, "properties")
    for key, value in (("fail_on", diagnosis.fail_on), ("exit_code", str(diagnosis.exit_code)),
                       ("inputs", ", ".join(diagnosis.inputs.paths))):
        ET.SubElement(props, "property", name=key, value=_clean(value))
    failed = skipped = tests = 0
    for incident in diagnosis.incidents:
        root = by_id[incident.root]
        tests += 1
        case = ET.SubElement(suite, "testcase", classname=_clean(incident.category),
                             name=_clean(f"{incident.id} {root.rule} {root.name}"), time="0")
        members = [by_id[i] for i in (*incident.same_rule, *incident.symptoms)]
        body = _finding_text(root)
        if members:
            body += _clean("\n\nFollows from it:\n" + "\n".join(_member_line(f)
                                                               for f in members))
        if root.verdict is Verdict.MATCH:
            failed += 1
            failure = ET.SubElement(case, "failure", message=_clean(root.title),
                                    type=incident.level.value)
            failure.text = body
        else:
            skipped += 1
            skip = ET.SubElement(case, "skipped", message=_clean(
                "not evaluable: " + " ".join(root.missing)))
            skip.text = body
    found = {f.rule for f in by_id.values()}
    quiet = {r.id: r for r in diagnosis.rules_evaluated if r.id not in found}
    for f in hidden:
        if f.rule not in found and f.rule not in quiet:
            quiet[f.rule] = RuleInfo(f.rule, f.name, f.title, f.category, f.level, "")
    for rule_id in sorted(quiet):
        rule = quiet[rule_id]
        tests += 1
        case = ET.SubElement(suite, "testcase", classname=_clean(rule.category),
                             name=_clean(f"{rule.id} {rule.name}"), time="0")
        out = []
        for finding in (f for f in hidden if f.rule == rule_id):
            reason = suppression_reason(diagnosis, finding.fingerprint)
            out.append(f"suppressed by baseline{f' ({reason})' if reason else ''}: "
                       + _finding_text(finding))
        if out:
            ET.SubElement(case, "system-out").text = _clean("\n\n".join(out))
    counts = {"tests": tests, "failures": failed, "errors": 0, "skipped": skipped,
              "time": "0"}
    suite.attrib.update({k: str(v) for k, v in counts.items()})
    root = ET.Element("testsuites", name="plogscan",
                      **{k: str(v) for k, v in counts.items()})
    root.append(suite)
    ET.indent(root, space="  ")
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"
