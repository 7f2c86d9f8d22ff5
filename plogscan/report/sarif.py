"""The SARIF 2.1.0 report (``--format sarif``), for code-scanning UIs and SARIF viewers.

One run; ``tool.driver.rules`` holds one descriptor per rule evaluated (title, description,
remediation as help, category, default level). Each finding is one result:

* ``ruleId``/``ruleIndex``; ``level`` from the finding's level: critical and error -> ``error``,
  warning -> ``warning``, info -> ``note``;
* a ``not_evaluable`` finding has ``kind: "review"`` (a person must look: the logs could not
  rule the cause in or out) and therefore, as SARIF §3.27.10 requires for any kind other than
  ``fail``, ``level: "none"``; matches have ``kind: "fail"``;
* ``locations``: the first evidence record (path relative as given, percent-escaped, region
  ``startLine``); the other evidence records are ``relatedLocations`` named after their step;
* ``partialFingerprints["plogscanFingerprint/v1"]``: the finding's stable fingerprint;
* ``properties.incident``: the incident the finding belongs to (``I1``...); a finding that is
  not its incident's root also carries the root's first evidence record as its last
  ``relatedLocations`` entry, named ``root cause: <rule> (<incident>)``;
* findings suppressed by a baseline are results too, with an ``external`` suppression and the
  baseline's reason as justification, so viewers show them as dismissed.

Skipped input files become warning notifications of the invocation.
"""

from __future__ import annotations

from urllib.parse import quote

from plogscan import __version__
from plogscan.model import Diagnosis, Evidence, Finding, Level, RuleInfo, Verdict
from plogscan.report.i18n import ingest_text, listing, step_word, tr
from plogscan.report.view import (
    complete,
    report_findings,
    scope_parts,
    suppressed,
    suppression_reason,
)
from plogscan.textsafe import json_text, neutralize

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT_KEY = "plogscanFingerprint/v1"
LEVELS = {Level.CRITICAL: "error", Level.ERROR: "error", Level.WARNING: "warning",
          Level.INFO: "note"}


def render(diagnosis: Diagnosis) -> str:
    """The SARIF log as JSON text, newline-terminated and byte-stable."""
    return json_text(sarif_log(diagnosis))


def sarif_log(diagnosis: Diagnosis) -> dict:
    """The SARIF log as plain data."""
    rules = _rules(diagnosis)
    index = {rule["id"]: n for n, rule in enumerate(rules)}
    diagnosis = complete(diagnosis)
    lang = diagnosis.lang
    by_id = {f.id: f for f in diagnosis.findings}
    incident_of = {member: incident for incident in diagnosis.incidents
                   for member in incident.members}
    results = []
    for finding in report_findings(diagnosis):
        result = _result(finding, index, None, lang)
        incident = incident_of.get(finding.id)
        if incident is not None:
            result["properties"]["incident"] = incident.id
            root = by_id[incident.root]
            if root is not finding and root.evidence:
                related = result.setdefault("relatedLocations", [])
                location = _location(root.evidence[0], lang, index=len(finding.evidence))
                location["message"] = _text(tr(lang, "root cause: {rule} ({incident})",
                                               rule=root.rule, incident=incident.id))
                related.append(location)
        results.append(result)
    results += [_result(f, index, suppression_reason(diagnosis, f.fingerprint) or "", lang)
                for f in suppressed(diagnosis)]
    notifications = [
        {"level": "error", "message": {"text": neutralize(tr(
            lang, "{path}: {reason}", path=e.path, reason=ingest_text(lang, e.reason)))},
         "locations": [{"physicalLocation": {"artifactLocation": _artifact(e.path)}}]}
        for e in diagnosis.inputs.errors
    ] + [
        {"level": "warning", "message": {"text": neutralize(tr(
            lang, "skipped {path}: {reason}", path=s.path, reason=ingest_text(lang, s.reason)))},
         "locations": [{"physicalLocation": {"artifactLocation": _artifact(s.path)}}]}
        for s in diagnosis.inputs.skipped
    ]
    invocation = {"executionSuccessful": diagnosis.exit_code < 2, "exitCode": diagnosis.exit_code}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "plogscan", "version": __version__,
                                "semanticVersion": __version__, "rules": rules}},
            "invocations": [invocation],
            "results": results,
        }],
    }


def _text(value: str) -> dict:
    return {"text": neutralize(value) or "-"}


def _help(remediation: tuple[str, ...], lang: str) -> dict:
    steps = [f"{n}. {neutralize(step)}" for n, step in enumerate(remediation, 1)]
    return {"text": "\n".join(steps) if steps else tr(lang,
                                                      "No remediation recorded for this rule.")}


def _descriptor(rule_id: str, name: str, title: str, description: str, category: str,
                level: Level, remediation: tuple[str, ...], references: tuple[str, ...],
                lang: str) -> dict:
    descriptor = {
        "id": rule_id,
        "name": name,
        "shortDescription": _text(title),
        "fullDescription": _text(description or title),
        "help": _help(remediation, lang),
        "defaultConfiguration": {"level": LEVELS[level]},
        "properties": {"category": category, "severity": level.value, "tags": [category]},
    }
    links = [r for r in references if r.startswith(("https://", "http://"))]
    if links:
        descriptor["helpUri"] = links[0]
    return descriptor


def _rules(diagnosis: Diagnosis) -> list[dict]:
    """Descriptors of every rule evaluated, plus any rule a finding names that is not listed."""
    known: dict[str, RuleInfo | Finding] = {r.id: r for r in diagnosis.rules_evaluated}
    for finding in (*diagnosis.findings, *suppressed(diagnosis)):
        known.setdefault(finding.rule, finding)
    rules = []
    for rule_id in sorted(known):
        item = known[rule_id]
        if isinstance(item, RuleInfo):
            rules.append(_descriptor(item.id, item.name, item.title, item.description,
                                     item.category, item.level, item.remediation,
                                     item.references, diagnosis.lang))
        else:
            rules.append(_descriptor(item.rule, item.name, item.title, "", item.category,
                                     item.level, item.remediation, item.references,
                                     diagnosis.lang))
    return rules


def _artifact(path: str) -> dict:
    """An artifactLocation for a log path: relative URI reference, percent-escaped."""
    if path.startswith("/"):
        return {"uri": "file://" + quote(path, safe="/", errors="surrogatepass")}
    return {"uri": quote(path, safe="/", errors="surrogatepass")}


def _location(ev: Evidence, lang: str, *, index: int | None = None) -> dict:
    location: dict = {"physicalLocation": {"artifactLocation": _artifact(ev.path)}}
    if ev.line >= 1:
        region = {"startLine": ev.line}
        if ev.line_count > 1:
            region["endLine"] = ev.line + ev.line_count - 1
        location["physicalLocation"]["region"] = region
    if index is not None:
        location["id"] = index
        location["message"] = _text(step_word(lang, ev.step))
    return location


def _message(finding: Finding, lang: str) -> str:
    scope = listing(lang, scope_parts(finding.scope, lang))
    head = finding.title + (tr(lang, " ({text})", text=scope) if scope else "")
    if finding.verdict is Verdict.NOT_EVALUABLE:
        head = tr(lang, "{head}: not evaluable", head=head)
        if finding.missing:
            head = tr(lang, "{head}. Missing: {missing}", head=head,
                      missing=" ".join(finding.missing))
    if finding.description:
        head = tr(lang, "{head}. {description}", head=head, description=finding.description)
    return head


def _result(finding: Finding, rule_index: dict[str, int], suppression: str | None,
            lang: str) -> dict:
    evaluable = finding.verdict is Verdict.MATCH
    result: dict = {
        "ruleId": finding.rule,
        "ruleIndex": rule_index[finding.rule],
        "kind": "fail" if evaluable else "review",
        "level": LEVELS[finding.level] if evaluable else "none",
        "message": _text(_message(finding, lang)),
        "partialFingerprints": {FINGERPRINT_KEY: finding.fingerprint},
        "properties": {
            "category": finding.category, "severity": finding.level.value,
            "verdict": finding.verdict.value, "name": finding.name,
            "ranks": list(finding.scope.ranks), "pids": list(finding.scope.pids),
            "hosts": list(finding.scope.hosts), "devices": list(finding.scope.devices),
        },
    }
    if finding.evidence:
        result["locations"] = [_location(finding.evidence[0], lang)]
        related = [_location(ev, lang, index=n) for n, ev in enumerate(finding.evidence[1:], 1)]
        if related:
            result["relatedLocations"] = related
    if suppression is not None:
        entry: dict = {"kind": "external", "status": "accepted"}
        if suppression:
            entry["justification"] = neutralize(suppression)
        result["suppressions"] = [entry]
    return result
