"""The HTML report: one self-contained file to attach to a ticket or an email.

Everything is inlined (CSS, the small script, the SVG swimlane chart); nothing is fetched. Log text
is attacker-controllable, so the template runs under Jinja2 autoescape, the script never turns
text into markup (it only hides and reorders rows rendered here), and a Content-Security-Policy
meta tag allows no remote load and runs only the inline script whose sha256 it names.
Output depends on the Diagnosis alone: no clock, everything sorted.
"""

from __future__ import annotations

import base64
import hashlib
from datetime import datetime
from functools import lru_cache
from importlib import resources

import jinja2
from markupsafe import Markup

from plogscan import __version__
from plogscan.headline import headline
from plogscan.model import Diagnosis, EventRow, Evidence, Finding, Verdict
from plogscan.report import ranks, swimlane, view
from plogscan.report.i18n import (
    count,
    ingest_text,
    level_word,
    listing,
    step_word,
    tr,
    verdict_word,
)
from plogscan.report.verdict import (
    MAX_VICTIMS_SHOWN,
    CrossRankVerdict,
    answer,
    chain_text,
    crossrank_verdict,
    party_name,
    waited_text,
)
from plogscan.textsafe import neutralize

MAX_EVENT_ROWS = 2000  # keeps the file small; evidence and errors are kept first
MAX_FILE_ROWS = 1000
MAX_MESSAGE = 2000  # characters of a message shown in the events table
MAX_EVIDENCE = 10000  # characters of an evidence record
MAX_CONTEXT = 1000  # characters of one context line
_ASSETS = "report/assets"


def render(diagnosis: Diagnosis, *, verbose: bool = False) -> str:
    """The report for ``diagnosis`` as one HTML document; ``verbose`` opens every evidence
    block (context lines are always included, collapsed by default)."""
    script, css = _asset("report.js"), _asset("report.css")
    root = ranks.root_cause(diagnosis)
    findings = view.report_findings(diagnosis)
    lang = diagnosis.lang
    context = {
        **_words(lang),
        "csp": content_security_policy(script),
        "script": Markup(script),  # our own asset, checked by _asset; hashed in the CSP
        "css": Markup(css),
        "version": __version__,
        "verbose": verbose,
        "summary": _summary(diagnosis, findings),
        "chart": swimlane.layout(diagnosis, root[:2] if root else None),
        "lane_height": swimlane.LANE_HEIGHT,
        "findings": [_finding_view(i, f, lang) for i, f in enumerate(findings, 1)],
        "incidents": _incidents_view(diagnosis, findings),
        "suppressed": [(f, view.suppression_reason(diagnosis, f.fingerprint))
                       for f in view.suppressed(diagnosis)],
        "expired": view.expired_entries(diagnosis),
        "events": _events_view(diagnosis),
        "ingest": _ingest_view(diagnosis),
        "processes": _processes_view(diagnosis),
        "unexplained": _unexplained_view(diagnosis),
    }
    return _template().render(**context)


HTML_LANG = {"en": "en", "zh": "zh-CN"}  # the document's lang attribute


def _words(lang: str) -> dict:
    """What the template calls for its fixed words, bound to the report language. ``t`` gives
    our own text as markup (written as it is, like the template's own words) with its values
    neutralized and escaped."""
    def t(text: str, /, **values: object) -> Markup:
        safe = {k: neutralize(v) if isinstance(v, str) and not isinstance(v, Markup) else v
                for k, v in values.items()}
        return Markup(tr(lang, text)).format(**safe) if safe else Markup(tr(lang, text))

    return {
        "lang": HTML_LANG.get(lang, lang),
        "t": t,
        "level": lambda level: level_word(lang, level),
        "verdict": lambda verdict: verdict_word(lang, verdict),
        "step": lambda name: step_word(lang, name),
        "reason": lambda text: ingest_text(lang, text),
        "waited": lambda n: waited_text(n, lang),
        "chain": lambda hops: chain_text(hops, lang),
        "max_victims": MAX_VICTIMS_SHOWN,
        "listing": lambda items: listing(lang, list(items)),
        "count": lambda n, one, many: count(lang, n, one, many),
    }


def script_hash(script: str) -> str:
    """The CSP source expression allowing exactly this inline script."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def content_security_policy(script: str) -> str:
    """No remote loads of any kind; inline styles; only the given inline script runs."""
    return ("default-src 'none'; style-src 'unsafe-inline'; "
            f"script-src '{script_hash(script)}'; img-src data:; "
            "base-uri 'none'; form-action 'none'")


def _asset(name: str) -> str:
    text = resources.files("plogscan").joinpath(f"{_ASSETS}/{name}").read_text("utf-8")
    if "</" in text or "<!--" in text:  # would end or confuse the inline <script>/<style>
        raise ValueError(f"{name}: must not contain '</' or '<!--' (it is inlined)")
    return text


@lru_cache(maxsize=1)
def _template() -> jinja2.Template:
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, finalize=_finalize,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["ts"] = fmt_ts
    source = resources.files("plogscan").joinpath(f"{_ASSETS}/report.html.j2")
    return env.from_string(source.read_text("utf-8"))


def _finalize(value: object) -> object:
    """Every printed string shows control and bidi characters as escapes (see ``safe``);
    autoescape then makes it inert markup. Our own assets arrive as Markup and pass as they are."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return neutralize(value)
    return value


def fmt_ts(ts: datetime | None) -> str:
    """Timestamps as logged, to the microsecond; empty when unknown."""
    return "" if ts is None else view.fmt_ts(ts)


def _clip(text: str, limit: int, lang: str = "en") -> str:
    return view.clip(text, limit, lang)


def _ts_key(ts: datetime | None) -> tuple:
    return (1, datetime.min) if ts is None else (0, ranks.naive_utc(ts))


def _summary(diagnosis: Diagnosis, findings: list[Finding]) -> dict:
    """The verdict counts matched findings only; the answer is the first incident, the one to
    fix first (``report.verdict.answer``), linked to its root finding."""
    lang = diagnosis.lang
    matched = [f for f in findings if f.verdict is Verdict.MATCH]
    pending = [f for f in findings if f.verdict is Verdict.NOT_EVALUABLE]
    by_level = [(lv, sum(1 for f in matched if f.level is lv)) for lv in view.LEVELS_DESC]
    by_level = [(lv, n) for lv, n in by_level if n]
    found = answer(diagnosis)
    if not matched:
        verdict = tr(lang, "clean")
    elif len(by_level) == 1:
        verdict = tr(lang, "{n} {level} finding" if len(matched) == 1 else
                     "{n} {level} findings", n=len(matched),
                     level=level_word(lang, by_level[0][0]))
    else:
        verdict = tr(lang, "{findings}: {levels}",
                     findings=tr(lang, "{n} findings", n=len(matched)),
                     levels=listing(lang, [tr(lang, "{n} {level}", n=n,
                                              level=level_word(lang, lv))
                                           for lv, n in by_level]))
    first, last = view.time_span(diagnosis)
    return {
        "verdict": verdict,
        "line": view.verdict_line(diagnosis),
        "status": max(matched, key=lambda f: f.level.rank).level.value if matched else "clean",
        "not_evaluable": tr(lang, "{n} check" if len(pending) == 1 else "{n} checks",
                            n=len(pending)) if pending else "",
        "top_anchor": f"finding-{findings.index(found.root) + 1}" if found is not None else "",
        "answer": found,
        "crossrank": _crossrank_view(diagnosis),
        "inputs": tr(lang, "{files}, {records}, {processes}",
                     files=count(lang, len(diagnosis.inputs.files), "{n} file", "{n} files"),
                     records=count(lang, diagnosis.inputs.records, "{n} record", "{n} records"),
                     processes=count(lang, len(diagnosis.processes), "{n} process",
                                     "{n} processes")),
        "ranks": ranks.distinct_ranks(diagnosis),
        "span": (fmt_ts(first), fmt_ts(last)) if first is not None else None,
    }


def _crossrank_view(diagnosis: Diagnosis) -> CrossRankVerdict | None:
    """The cross-rank verdict for the summary card (None when nothing failed): worded as the
    terminal and Markdown reports word it (``report.verdict``)."""
    return crossrank_verdict(diagnosis)


def _evidence_view(item: Evidence, delta: float | None, lang: str) -> dict:
    where = ", ".join(part for part in (
        tr(lang, "rank {ranks}", ranks=item.rank) if item.rank is not None else "",
        item.host or "", tr(lang, "pid {pids}", pids=item.pid) if item.pid is not None else "",
        tr(lang, "device {devices}", devices=item.device) if item.device is not None else "")
        if part)
    return {
        "item": item, "where": where,
        "delta": "" if delta is None else view.fmt_duration(delta, signed=True),
        "message": _clip(item.message, MAX_EVIDENCE, lang),
        "headline": _clip(headline(item.message), MAX_CONTEXT, lang),
        "before": [(n, _clip(t, MAX_CONTEXT, lang)) for n, t in item.context_before],
        "after": [(n, _clip(t, MAX_CONTEXT, lang)) for n, t in item.context_after],
    }


def _finding_view(number: int, finding: Finding, lang: str) -> dict:
    deltas = view.step_deltas(finding.evidence)
    evidence = [_evidence_view(item, delta, lang)
                for item, delta in zip(finding.evidence, deltas, strict=True)]
    scope = view.scope_parts(finding.scope, lang)
    return {"anchor": f"finding-{number}", "f": finding, "evidence": evidence, "scope": scope,
            "scope_text": tr(lang, "; ").join(scope)}


def _incidents_view(diagnosis: Diagnosis, findings: list[Finding]) -> list[dict]:
    """An incident card each: its root finding, and what follows from it (collapsed)."""
    diagnosis = view.complete(diagnosis)
    lang = diagnosis.lang
    views = {f.id: _finding_view(n, f, lang) for n, f in enumerate(findings, 1)}
    out = []
    for incident in diagnosis.incidents:
        members = [views[i] for i in (*incident.same_rule, *incident.symptoms)]
        counts: dict[str, int] = {}
        for v in members:
            counts[v["f"].rule] = counts.get(v["f"].rule, 0) + 1
        out.append({
            "i": incident, "root": views[incident.root], "members": members,
            "summary": " · ".join(rule + (f" ×{n}" if n > 1 else "")
                                  for rule, n in counts.items()),
            "scope": view.scope_parts(incident.scope, lang),
            "victims": [party_name(v.label, v.rank, lang) for v in incident.victims],
        })
    return out


def _events_view(diagnosis: Diagnosis) -> dict:
    """The rows of the events table: evidence records first, then errors, then the rest,
    up to MAX_EVENT_ROWS, shown in (time, path, line) order."""
    cited = {(i.path, i.line) for f in diagnosis.findings for i in f.evidence}

    def priority(ev: EventRow) -> int:
        if (ev.path, ev.line) in cited:
            return 0
        return 1 if (ev.level or "").upper() in ranks.ERROR_LEVELS else 2

    def order(ev: EventRow) -> tuple:
        return (_ts_key(ev.ts), ev.path, ev.line, ev.message)

    everything = sorted(diagnosis.events, key=order)
    kept = sorted(sorted(everything, key=priority)[:MAX_EVENT_ROWS], key=order)
    resolve = ranks.rank_resolver(diagnosis)
    rows = [{"e": ev, "level": _level_name(ev.level),
             "rank": resolve(ev.rank, ev.host, ev.pid), "cited": (ev.path, ev.line) in cited,
             "message": _clip(ev.message, MAX_MESSAGE, diagnosis.lang)} for ev in kept]
    return {"rows": rows, "total": len(everything), "dropped": len(everything) - len(kept),
            "engine_truncated": diagnosis.events_truncated,
            "levels": sorted({row["level"] for row in rows})}


def _level_name(level: str | None) -> str:
    """Upper-case letters and digits only: the value doubles as a CSS class and filter key."""
    name = "".join(ch for ch in (level or "").upper() if ch.isascii() and ch.isalnum())
    return name or "NONE"


def _ingest_view(diagnosis: Diagnosis) -> dict:
    inputs = diagnosis.inputs
    files = sorted(inputs.files, key=lambda f: f.path)
    return {
        "paths": sorted(inputs.paths),
        "files": files[:MAX_FILE_ROWS],
        "files_dropped": max(0, len(files) - MAX_FILE_ROWS),
        "skipped": sorted(inputs.skipped, key=lambda s: (s.path, s.reason)),
        "errors": list(inputs.errors),
        "lines": inputs.lines, "records": inputs.records, "unparsed": inputs.unparsed_lines,
        "clock": [f for f in files if f.invalid_timestamps or f.epoch_clock_records],
        "problems": [(f.path, p) for f in files for p in f.problems],
    }


MAX_UNEXPLAINED = 10


def _unexplained_view(diagnosis: Diagnosis) -> dict:
    """ERROR templates no finding explains (``Diagnosis.unexplained``), earliest first."""
    templates = diagnosis.unexplained or ()
    rows = [{"template": _clip(str(t.template), MAX_CONTEXT, diagnosis.lang),
             "count": t.count,
             "ranks": ", ".join(str(r) for r in t.ranks) or "-",
             "first": fmt_ts(t.first_ts),
             "where": f"{t.example.path}:{t.example.line}"}
            for t in templates[:MAX_UNEXPLAINED]]
    return {"rows": rows, "total": len(templates)}


def _processes_view(diagnosis: Diagnosis) -> list:
    return sorted(diagnosis.processes, key=lambda p: (
        p.rank is None, p.rank if p.rank is not None else 0, p.host or "", p.pid))
