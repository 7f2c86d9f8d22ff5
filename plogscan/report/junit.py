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
from plogscan.report.i18n import (
    count,
    ingest_text,
    level_word,
    listing,
    step_word,
    tr,
    verdict_word,
)
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


def _finding_text(finding: Finding, lang: str) -> str:
    lines = []
    scope = listing(lang, scope_parts(finding.scope, lang))
    lines.append(f"{level_word(lang, finding.level)} · {verdict_word(lang, finding.verdict)} · "
                 f"{finding.category}" + (f" · {scope}" if scope else "") + " · "
                 + tr(lang, "fingerprint {fingerprint}", fingerprint=finding.fingerprint))
    if finding.description:
        lines += ["", finding.description]
    if finding.missing:
        lines += ["", tr(lang, "Missing evidence:")] + [f"- {item}" for item in finding.missing]
    if finding.evidence:
        lines += ["", tr(lang, "Evidence:")]
        for ev in finding.evidence[:MAX_EVIDENCE]:
            lines.append(f"[{step_word(lang, ev.step)}] {ev.path}:{ev.line} {fmt_ts(ev.ts)}")
            lines.append("    " + clip(ev.message, lang=lang).replace("\n", "\n    "))
        if len(finding.evidence) > MAX_EVIDENCE:
            lines.append(tr(lang, "... {n} more evidence records",
                            n=len(finding.evidence) - MAX_EVIDENCE))
    if finding.remediation:
        lines += ["", tr(lang, "Remediation:")]
        lines += [f"{n}. {step}" for n, step in enumerate(finding.remediation, 1)]
    return _clean("\n".join(lines))


def _member_line(finding: Finding, lang: str) -> str:
    scope = listing(lang, scope_parts(finding.scope, lang))
    return (f"- {finding.id} {finding.rule} {level_word(lang, finding.level)}: {finding.title}"
            + (tr(lang, " ({text})", text=scope) if scope else "")
            + f" [{verdict_word(lang, finding.verdict)}]")


def render(diagnosis: Diagnosis) -> str:
    """The JUnit XML document, newline-terminated and byte-stable."""
    diagnosis = complete(diagnosis)
    lang = diagnosis.lang
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
        body = _finding_text(root, lang)
        if members:
            body += _clean("\n\n" + tr(lang, "Follows from it:") + "\n"
                           + "\n".join(_member_line(f, lang) for f in members))
        if root.verdict is Verdict.MATCH:
            failed += 1
            failure = ET.SubElement(case, "failure", message=_clean(root.title),
                                    type=incident.level.value)
            failure.text = body
        else:
            skipped += 1
            skip = ET.SubElement(case, "skipped", message=_clean(
                tr(lang, "not evaluable: {missing}", missing=" ".join(root.missing))))
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
            out.append((tr(lang, "suppressed by baseline ({reason}): ", reason=reason) if reason
                        else tr(lang, "suppressed by baseline: ")) + _finding_text(finding, lang))
        if out:
            ET.SubElement(case, "system-out").text = _clean("\n\n".join(out))
    errors = 0
    if diagnosis.inputs.errors:  # the run is incomplete: an error, as a test that could not run
        errors = 1
        tests += 1
        case = ET.SubElement(suite, "testcase", classname="inputs",
                             name=_clean(tr(lang, "Named paths that could not be read")),
                             time="0")
        error = ET.SubElement(case, "error", type="input", message=_clean(count(
            lang, len(diagnosis.inputs.errors), "{n} named path could not be read",
            "{n} named paths could not be read")))
        error.text = _clean("\n".join(tr(lang, "{path}: {reason}", path=e.path,
                                          reason=ingest_text(lang, e.reason))
                                       for e in diagnosis.inputs.errors))
    counts = {"tests": tests, "failures": failed, "errors": errors, "skipped": skipped,
              "time": "0"}
    suite.attrib.update({k: str(v) for k, v in counts.items()})
    root = ET.Element("testsuites", name="plogscan",
                      **{k: str(v) for k, v in counts.items()})
    root.append(suite)
    ET.indent(root, space="  ")
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"
