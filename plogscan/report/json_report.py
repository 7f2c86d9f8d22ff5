"""The JSON report (``--format json``): a versioned document for machines.

Its shape is published as a JSON Schema in ``plogscan/schema/report.schema.json`` (validated by
the tests for every document they produce). ``schema_version`` changes only when a field is
removed or changes meaning; new fields may appear without it. Timestamps are ISO 8601 with
microseconds, as written in the logs (no time zone unless the log had one). Keys are sorted
and the document is indented, so the same diagnosis always gives byte-identical output.
Log text is kept verbatim: JSON escaping makes it safe, and consumers get the real bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from plogscan import __version__
from plogscan.model import (
    Diagnosis,
    Evidence,
    FileStats,
    Finding,
    Incident,
    ProcessInfo,
    RuleInfo,
    UnexplainedTemplate,
)
from plogscan.report.crossrank_json import party_dict, sections
from plogscan.report.view import (
    complete,
    counts_by_level,
    counts_by_verdict,
    expired_entries,
    iso_ts,
    report_findings,
    seconds_between,
    suppressed,
    suppression_reason,
)
from plogscan.textsafe import json_text

SCHEMA_VERSION = 2
MAX_FILE_STATS = 20000  # files whose accounting is listed one by one; past it only counted


def schema_path() -> Path:
    """Where the published JSON Schema of this document lives (shipped with the package)."""
    return Path(__file__).resolve().parent.parent / "schema" / "report.schema.json"


def render(diagnosis: Diagnosis) -> str:
    """The JSON document, newline-terminated."""
    return json_text(document(diagnosis))


def document(diagnosis: Diagnosis) -> dict:
    """The report as plain JSON-ready data."""
    findings = report_findings(diagnosis)
    hidden = suppressed(diagnosis)
    return _with_extras(diagnosis, {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "plogscan", "version": __version__},
        "inputs": _inputs(diagnosis),
        "processes": [_process(p) for p in _ordered_processes(diagnosis.processes)],
        "rules_evaluated": [_rule(r) for r in sorted(diagnosis.rules_evaluated,
                                                     key=lambda r: r.id)],
        "findings": [finding_dict(f) for f in findings],
        "incidents": [incident_dict(i) for i in complete(diagnosis).incidents],
        "suppressed": [
            {**finding_dict(f), "baseline_reason": suppression_reason(diagnosis, f.fingerprint)}
            for f in hidden
        ],
        "baseline_expired": [
            {key: entry.get(key) for key in ("fingerprint", "rule", "title", "reason", "expires")}
            for entry in expired_entries(diagnosis)
        ],
        "summary": {
            "findings": len(findings),
            "by_level": counts_by_level(findings),
            "by_verdict": counts_by_verdict(findings),
            "suppressed": len(hidden),
            "exit_code": diagnosis.exit_code,
            "fail_on": diagnosis.fail_on,
            "top_finding": findings[0].fingerprint if findings else None,
        },
        **sections(diagnosis),
    })


def _with_extras(diagnosis: Diagnosis, doc: dict) -> dict:
    """Add the optional keys ``codes``, ``unexplained`` and ``processes_omitted`` when the
    diagnosis carries them."""
    if diagnosis.codes is not None:
        doc["codes"] = dict(diagnosis.codes)
    if diagnosis.unexplained is not None:
        doc["unexplained"] = [_unexplained(t) for t in diagnosis.unexplained]
    if diagnosis.processes_omitted > 0:
        doc["processes_omitted"] = diagnosis.processes_omitted
    return doc


def _unexplained(template: UnexplainedTemplate) -> dict:
    example = template.example
    return {
        "template": template.template, "count": template.count,
        "ranks": list(template.ranks), "processes": template.processes,
        "first_ts": iso_ts(template.first_ts), "last_ts": iso_ts(template.last_ts),
        "module": template.module,
        "example": {"path": example.path, "line": example.line,
                    "ts": iso_ts(example.ts), "message": example.message},
    }


def _inputs(diagnosis: Diagnosis) -> dict:
    inputs = diagnosis.inputs
    listed = listed_files(inputs.files)
    omitted = {"file_stats_omitted": len(inputs.files) - len(listed)} \
        if len(listed) < len(inputs.files) else {}
    return {
        "paths": list(inputs.paths),
        "files": len(inputs.files),
        "lines": inputs.lines,
        "records": inputs.records,
        "unparsed_lines": inputs.unparsed_lines,
        "errors": [{"path": e.path, "reason": e.reason} for e in inputs.errors],
        "skipped_files": [{"path": s.path, "reason": s.reason} for s in inputs.skipped],
        "file_stats": [_file(f) for f in listed],
        **omitted,
        "limits": [{"limit": h.limit, "option": h.option, "value": h.value, "path": h.path,
                    "detail": h.detail} for h in inputs.limits],
    }


def listed_files(files: Sequence[FileStats], cap: int | None = None) -> list[FileStats]:
    """The files whose accounting the report lists one by one, in path order: all of them up
    to ``MAX_FILE_STATS``; past it, the files with something to say first (problems, unparsed
    or cut lines, decode errors, NUL bytes, bad clocks), then the others in path order. The
    totals (files, lines, records, unparsed lines) always count every file; a tree of 100,000
    one-line files would otherwise make a report of 50 MB, most of it zeros."""
    cap = MAX_FILE_STATS if cap is None else cap
    ordered = sorted(files, key=lambda f: f.path)
    if len(ordered) <= cap:
        return ordered
    notable = [f for f in ordered if _notable(f)][:cap]
    rest = [f for f in ordered if not _notable(f)][:cap - len(notable)]
    return sorted(notable + rest, key=lambda f: f.path)


def _notable(f: FileStats) -> bool:
    return bool(f.problems or f.unparsed_lines or f.decode_errors or f.nul_bytes
                or f.control_bytes
                or f.truncated_lines or f.invalid_timestamps or f.epoch_clock_records)


def _file(stats: FileStats) -> dict:
    return {
        "path": stats.path, "kind": stats.kind, "bytes": stats.bytes, "lines": stats.lines,
        "records": stats.records, "record_lines": stats.record_lines,
        "blank_lines": stats.blank_lines, "unparsed_lines": stats.unparsed_lines,
        "decode_errors": stats.decode_errors, "nul_bytes": stats.nul_bytes,
        "control_bytes": stats.control_bytes,
        "truncated_lines": stats.truncated_lines,
        "invalid_timestamps": stats.invalid_timestamps,
        "epoch_clock_records": stats.epoch_clock_records, "problems": list(stats.problems),
        "encoding": stats.encoding,
    }


def _ordered_processes(processes: tuple[ProcessInfo, ...]) -> list[ProcessInfo]:
    return sorted(processes, key=lambda p: (p.rank is None, p.rank or 0, p.host or "", p.pid))


def _process(proc: ProcessInfo) -> dict:
    return {"host": proc.host, "pid": proc.pid, "rank": proc.rank, "device": proc.device,
            "levels": list(proc.levels), "first_ts": iso_ts(proc.first_ts),
            "last_ts": iso_ts(proc.last_ts)}


def _rule(rule: RuleInfo) -> dict:
    return {"id": rule.id, "name": rule.name, "title": rule.title, "category": rule.category,
            "level": rule.level.value}


def _evidence(ev: Evidence) -> dict:
    return {
        "path": ev.path, "line": ev.line, "line_count": ev.line_count, "ts": iso_ts(ev.ts),
        "ts_aligned": iso_ts(ev.ts_aligned),
        "message": ev.message, "step": ev.step, "level": ev.level, "module": ev.module,
        "pid": ev.pid, "rank": ev.rank, "host": ev.host, "device": ev.device,
        "context_before": [{"line": n, "text": t} for n, t in ev.context_before],
        "context_after": [{"line": n, "text": t} for n, t in ev.context_after],
    }


def incident_dict(incident: Incident) -> dict:
    """One incident: its root, what follows from it, where, and the ranks that only waited."""
    return {
        "id": incident.id,
        "root": incident.root,
        "same_rule": list(incident.same_rule),
        "symptoms": list(incident.symptoms),
        "rule": incident.rule,
        "title": incident.title,
        "category": incident.category,
        "level": incident.level.value,
        "attempt": incident.attempt,
        "scope": {"ranks": list(incident.scope.ranks), "hosts": list(incident.scope.hosts),
                  "devices": list(incident.scope.devices), "pids": list(incident.scope.pids)},
        "victims": [party_dict(v) for v in incident.victims],
        "first_ts": iso_ts(incident.first_ts),
        "last_ts": iso_ts(incident.last_ts),
    }


def finding_dict(finding: Finding) -> dict:
    """One finding as JSON-ready data (also used for suppressed findings)."""
    return {
        "id": finding.id or None,
        "fingerprint": finding.fingerprint,
        "rule": finding.rule,
        "name": finding.name,
        "title": finding.title,
        "category": finding.category,
        "level": finding.level.value,
        "verdict": finding.verdict.value,
        "role": finding.role,
        "rank_role": finding.rank_role,
        "attempt": finding.attempt,
        "links": list(finding.links),
        "explains": list(finding.explains),
        "description": finding.description,
        "scope": {"hosts": list(finding.scope.hosts), "ranks": list(finding.scope.ranks),
                  "pids": list(finding.scope.pids), "devices": list(finding.scope.devices),
                  "identity": finding.scope.identity},
        "first_ts": iso_ts(finding.first_ts),
        "last_ts": iso_ts(finding.last_ts),
        "duration_s": seconds_between(finding.first_ts, finding.last_ts),
        "evidence": [_evidence(ev) for ev in finding.evidence],
        "remediation": list(finding.remediation),
        "references": list(finding.references),
        "missing": list(finding.missing),
        "captures": dict(finding.captures),
    }
