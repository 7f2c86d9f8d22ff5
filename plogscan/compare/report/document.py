"""The JSON document of ``plogscan diff --format json``: everything the comparison found.

Keys are sorted and the document indented (``textsafe.json_text``), so the same two inputs
always give byte-identical output; log text is kept verbatim (JSON escaping makes it safe).
Timestamps are ISO 8601 with microseconds, as the logs wrote them. A process is named by its
slot: ``{"rank": 3, "nth": 0}`` (``nth`` counts the processes of one rank from 0; ``rank`` is
null for processes that name none, numbered by ``nth`` in the order they started).
``kind`` and ``schema_version`` identify the document; the version changes only when a field
is removed or changes meaning.
"""

from __future__ import annotations

from plogscan import __version__
from plogscan.compare.model import (
    BAD,
    GOOD,
    Comparison,
    Divergence,
    FindingDiff,
    Line,
    Logged,
    Process,
    SettingDiff,
    SettingValue,
    Side,
    Slot,
    TemplateDiff,
    ValueDiff,
)
from plogscan.report.view import iso_ts
from plogscan.textsafe import json_text

KIND = "plogscan-diff"
SCHEMA_VERSION = 1


def render(c: Comparison) -> str:
    return json_text(document(c))


def document(c: Comparison) -> dict:
    by_run = (BAD, GOOD)
    return {
        "kind": KIND, "schema_version": SCHEMA_VERSION,
        "tool": {"name": "plogscan", "version": __version__},
        "differs": c.differs,
        "good": _side(c.good), "bad": _side(c.bad),
        "templates": {run: [_template(t) for t in c.templates_of(run)] for run in by_run},
        "divergences": [_divergence(d) for d in c.divergences],
        **{f"{kind}s": {run: [_value(v) for v in c.values if v.kind == kind and v.run == run]
                        for run in by_run} for kind in ("code", "level", "module")},
        "settings": [_setting(s) for s in c.settings],
        "findings": {run: [_finding(f) for f in c.findings if f.run == run] for run in by_run},
        "unmatched": {run: [_slot(s) for r, s in c.unmatched if r == run] for run in by_run},
    }


def _slot(slot: Slot | None) -> dict | None:
    return None if slot is None else {"rank": slot.rank, "nth": slot.nth}


def _line(line: Line) -> dict:
    return {"process": _slot(line.slot), "path": line.path, "line": line.line,
            "ts": iso_ts(line.ts), "level": line.level, "module": line.module,
            "message": line.message}


def _process(p: Process) -> dict:
    return {"process": _slot(p.slot), "host": p.host, "pid": p.pid, "device": p.device,
            "failing": p.failing, "records": p.records}


def _side(side: Side) -> dict:
    return {"path": side.path, "processes": [_process(p) for p in side.processes],
            "failing": side.failing, "records": side.records, "templates": side.templates,
            "findings": side.findings, "dropped_templates": side.dropped_templates,
            "dropped_records": side.dropped_records, "unattributed": side.unattributed}


def _template(t: TemplateDiff) -> dict:
    return {"template": t.template, "only": t.only, "score": t.score, "failing": t.failing,
            "processes": t.processes, "other_processes": t.other, "records": t.records,
            "other_records": t.other_records, "first_ts": iso_ts(t.first_ts),
            "slots": [_slot(s) for s in t.slots], "evidence": [_line(e) for e in t.evidence]}


def _logged(logged: Logged | None) -> dict | None:
    return None if logged is None else {"template": logged.template,
                                        "evidence": _line(logged.line)}


def _divergence(d: Divergence) -> dict:
    return {"process": _slot(d.slot), "common": d.common, "good": _logged(d.good),
            "bad": _logged(d.bad), "first_only_bad": _logged(d.only_bad)}


def _value(v: ValueDiff) -> dict:
    out = {"value": v.value, "processes": v.processes, "records": v.records,
           "evidence": [_line(e) for e in v.evidence]}
    if v.kind == "code":
        out["meaning"] = v.meaning
    return out


def _setting_value(v: SettingValue) -> dict:
    return {"value": v.value, "processes": [_slot(s) for s in v.slots],
            "evidence": [_line(e) for e in v.evidence]}


def _setting(s: SettingDiff) -> dict:
    return {"key": s.key, GOOD: [_setting_value(v) for v in s.good],
            BAD: [_setting_value(v) for v in s.bad]}


def _finding(f: FindingDiff) -> dict:
    return {"rule": f.rule, "name": f.name, "title": f.title, "level": f.level,
            "verdict": f.verdict, "count": f.count, "ranks": list(f.ranks),
            "first_ts": iso_ts(f.first_ts), "evidence": [_line(e) for e in f.evidence]}
