"""The Markdown report (``--format markdown``): a compact summary for a ticket body or a CI step
summary (``$GITHUB_STEP_SUMMARY``).

It holds the verdict line, the answer (the incident to fix first and where it is), the
cross-rank verdict (suspects with their reasons, chain, victims, missing ranks: the same as the
terminal, HTML and JSON reports), a table of the incidents (one root cause each, in the order to fix
them), an incident card each (the root finding's evidence as a code block and its
remediation; what follows from it collapsed in a ``<details>`` block), and the findings a
baseline suppressed.

Log text is hostile and GitHub renders inline HTML, so:

* outside code, ``&``, ``<`` and ``>`` become entities, Markdown punctuation is backslash-escaped
  and ``@`` is written as an entity, so log text can add no tag, link, heading or mention;
* table cells also escape ``|`` and put newlines on one line;
* evidence goes in fenced blocks whose fence is longer than any backtick run inside them;
* control characters are written as visible escapes everywhere (``safe.neutralize``).
"""

from __future__ import annotations

import re

from plogscan import __version__
from plogscan.model import Diagnosis, Finding, Incident, Verdict
from plogscan.report.i18n import (
    count,
    ingest_text,
    level_word,
    listing,
    step_word,
    tr,
    verdict_word,
)
from plogscan.report.text_finding import role_line
from plogscan.report.verdict import (
    MAX_VICTIMS_SHOWN,
    answer,
    chain_text,
    crossrank_verdict,
    waited_text,
)
from plogscan.report.view import (
    complete,
    expired_entries,
    fmt_duration,
    fmt_ts,
    int_ranges,
    report_findings,
    scope_parts,
    step_deltas,
    suppressed,
    suppression_reason,
    verdict_line,
)
from plogscan.textsafe import neutralize, one_line

MAX_DETAILED = 10  # findings shown with evidence and remediation
MAX_TABLE = 25  # findings listed in the table
MAX_EVIDENCE = 8  # evidence records per finding
MAX_MESSAGE = 1000  # characters of one evidence message

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]#|~])")
_BACKTICKS = re.compile(r"`+")


def text(value: str) -> str:
    """Inline-safe Markdown for a piece of untrusted text (may span lines)."""
    value = neutralize(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    value = _MD_SPECIAL.sub(r"\\\1", value).replace("@", "&#64;")
    # A line starting with "-", "+", "1." or "=" could become a list or a heading underline.
    value = re.sub(r"(?m)^(\s*)(\d+)([.)])", r"\1\2\\\3", value)
    return re.sub(r"(?m)^(\s*)([-+=])", r"\1\\\2", value)


def cell(value: str) -> str:
    """Table-cell-safe Markdown: ``text`` on a single line."""
    return text(value).replace("\n", " ").strip() or " "


def fenced(body: str, info: str = "text") -> str:
    """``body`` in a code fence longer than any backtick run it contains."""
    body = neutralize(body)
    longest = max((len(run) for run in _BACKTICKS.findall(body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body}\n{fence}"


def render(diagnosis: Diagnosis) -> str:
    """The Markdown document, newline-terminated."""
    findings = report_findings(diagnosis)
    lang = diagnosis.lang
    out = [f"## plogscan: {text(verdict_line(diagnosis))}", ""]
    found = answer(diagnosis)
    if found is not None:
        where = found.where if found.checked else listing(
            lang, [p for p in (found.where, tr(lang, "could not check")) if p])
        out += [f"**{tr(lang, 'Answer:')}** {found.incident.id} `{_code_span(found.root.rule)}` "
                f"{text(found.incident.title)}" + (f" · **{text(where)}**" if where else ""), ""]
    out += _crossrank(diagnosis)
    if findings:
        diagnosis = complete(diagnosis)
        by_id = {f.id: f for f in diagnosis.findings}
        incidents = diagnosis.incidents
        out += _table(incidents, by_id, lang)
        for incident in incidents[:MAX_DETAILED]:
            out += _incident(incident, by_id, lang)
        if len(incidents) > MAX_DETAILED:
            out += [tr(lang, "_{n} more incidents: see the full report._",
                       n=len(incidents) - MAX_DETAILED), ""]
    else:
        out += [tr(lang, "No findings from {n} rules evaluated.",
                   n=len(diagnosis.rules_evaluated)), ""]
    out += _suppressed(diagnosis)
    out += _unexplained(diagnosis)
    inputs = diagnosis.inputs
    if inputs.errors:
        out += [f"**{tr(lang, 'Named paths that could not be read')}**", ""]
        out += [f"- `{_code_span(e.path)}`: {text(ingest_text(lang, e.reason))}"
                for e in inputs.errors]
        out.append("")
    out.append("<sub>" + tr(lang, "plogscan {version} read {files}, {lines} ({unparsed} "
                            "unparsed); skipped {skipped}.", version=__version__,
                            files=count(lang, len(inputs.files), "{n} file", "{n} files"),
                            lines=count(lang, inputs.lines, "{n} line", "{n} lines"),
                            unparsed=f"{inputs.unparsed_lines:,}",
                            skipped=count(lang, len(inputs.skipped), "{n} file", "{n} files"))
               + "</sub>")
    return "\n".join(out).rstrip("\n") + "\n"


MAX_UNEXPLAINED = 5


def _crossrank(diagnosis: Diagnosis) -> list[str]:
    """The cross-rank verdict: suspects with their reasons, the chain, the victims, the
    missing ranks and what to collect (as the terminal and HTML reports word it)."""
    found = crossrank_verdict(diagnosis)
    if found is None:
        return []
    lang = diagnosis.lang
    out = [f"### {text(tr(lang, 'Root cause'))} · {text(found.verdict_word)}", ""]
    if found.verdict == "undetermined":
        out += [text(tr(lang, "The logs cannot single out a device: every rank only waited, "
                        "and nothing marks one of them as first or odd.")), ""]
    for index, suspect in enumerate(found.suspects, 1):
        out.append(f"{index}. **{text(suspect.label)}** · {text(' · '.join(suspect.facts))}")
        out += [f"   - {text(signal)}: {text(one_line(sentence))}"
                for signal, sentence in suspect.reasons]
    if found.suspects:
        out.append("")
    facts = []
    if found.chain:
        facts.append((tr(lang, "Chain"), chain_text(found.chain, lang)))
    if found.victims:
        more = len(found.victims) - MAX_VICTIMS_SHOWN
        facts.append((tr(lang, "Victims"), tr(
            lang, "{text}: {names}", text=waited_text(len(found.victims), lang),
            names=listing(lang, list(found.victims[:MAX_VICTIMS_SHOWN]))
            + (tr(lang, " and {n} more", n=more) if more > 0 else ""))))
    facts += [(tr(lang, "Missing"), item) for item in found.collect]
    facts += [(tr(lang, "Note"), item) for item in found.notes]
    out += [f"- **{text(key)}:** {text(one_line(value))}" for key, value in facts]
    return [*out, ""] if facts else out


def _unexplained(diagnosis: Diagnosis) -> list[str]:
    """ERROR templates no finding explains, earliest first: a new failure mode still shows."""
    templates = diagnosis.unexplained
    if not templates:
        return []
    lang = diagnosis.lang
    shown = templates[:MAX_UNEXPLAINED]
    out = [f"### {tr(lang, 'Unexplained errors')}", ""]
    for t in shown:
        ranks = t.ranks
        example = t.example
        spread = tr(lang, "ranks {ranks}" if len(ranks) > 1 else "rank {ranks}",
                    ranks=int_ranges(ranks)) if ranks else count(
            lang, t.processes, "{n} process", "{n} processes")
        out.append("- " + tr(lang, "{count}× ({spread}) first {ts}, e.g. {where}",
                             count=f"{t.count:,}", spread=text(spread),
                             ts=text(fmt_ts(t.first_ts)),
                             where=f"`{_code_span(example.path)}:{example.line}`"))
        out += ["", fenced(one_line(t.template)), ""]
    if len(templates) > len(shown):
        out += [tr(lang, "_{n} more templates: see the JSON report._",
                   n=len(templates) - len(shown)), ""]
    return out


def _code_span(value: str, *, in_table: bool = False) -> str:
    """Content for an inline code span delimited by single backticks (no backtick inside)."""
    value = neutralize(value, keep_newlines=False).replace("`", "'")
    return value.replace("|", "\\|") if in_table else value


def _table(incidents: tuple[Incident, ...], by_id: dict[str, Finding], lang: str) -> list[str]:
    rows = [tr(lang, "| Incident | Level | Rule | Title | Scope | Findings | First seen |"),
            "|---|---|---|---|---|---|---|"]
    for incident in incidents[:MAX_TABLE]:
        rule = _code_span(incident.rule, in_table=True)
        scope = listing(lang, scope_parts(incident.scope, lang))
        rows.append(f"| {incident.id} | {level_word(lang, incident.level)} | `{rule}` | "
                    f"{cell(incident.title)} | {cell(scope)} | {len(incident.members)} | "
                    f"{fmt_ts(incident.first_ts)} |")
    if len(incidents) > MAX_TABLE:
        rows.append(f"| … | | | {tr(lang, '{n} more', n=len(incidents) - MAX_TABLE)} | | | |")
    return [*rows, ""]


def _incident(incident: Incident, by_id: dict[str, Finding], lang: str) -> list[str]:
    """An incident card: its root finding in full, then what follows from it, collapsed."""
    root = by_id[incident.root]
    out = _details(root, incident.id, lang)
    members = [by_id[i] for i in (*incident.same_rule, *incident.symptoms)]
    if incident.victims:
        ranks = [v.rank for v in incident.victims if v.rank is not None]
        waited = waited_text(len(incident.victims), lang)
        out += [f"**{text(waited)}**" + (tr(lang, " ({text})", text=text(int_ranges(ranks)))
                                          if ranks else ""), ""]
    if not members:
        return out
    counts: dict[str, int] = {}
    for finding in members:
        counts[finding.rule] = counts.get(finding.rule, 0) + 1
    summary = " · ".join(f"{_code_span(rule)}" + (f" ×{n}" if n > 1 else "")
                         for rule, n in counts.items())
    out += ["<details>", "<summary>" + tr(lang, "Follows from it: {summary} ({n})",
                                          summary=text(summary), n=len(members)) + "</summary>",
            "",
            tr(lang, "| Finding | Level | Rule | Title | Verdict | Scope |"),
            "|---|---|---|---|---|---|"]
    for f in members:
        out.append(f"| {_code_span(f.id, in_table=True)} | {level_word(lang, f.level)} | "
                   f"`{_code_span(f.rule, in_table=True)}` | {cell(f.title)} | "
                   f"{verdict_word(lang, f.verdict)} | "
                   f"{cell(listing(lang, scope_parts(f.scope, lang)))} |")
    return [*out, "", "</details>", ""]


def _evidence_block(finding: Finding, lang: str) -> str:
    lines = []
    shown = finding.evidence[:MAX_EVIDENCE]
    for ev, delta in zip(shown, step_deltas(shown), strict=True):
        when = fmt_ts(ev.ts) + (f" ({fmt_duration(delta, signed=True)})" if delta is not None
                                else "")
        who = " ".join(x for x in (ev.module, ev.level) if x)
        lines.append(f"[{step_word(lang, ev.step)}] {ev.path}:{ev.line}  {when}  {who}".rstrip())
        message = ev.message if len(ev.message) <= MAX_MESSAGE else ev.message[:MAX_MESSAGE] + "…"
        lines.append("  " + message.replace("\n", "\n  "))
    if len(finding.evidence) > MAX_EVIDENCE:
        lines.append(tr(lang, "… {n} more evidence records",
                        n=len(finding.evidence) - MAX_EVIDENCE))
    return fenced("\n".join(lines))


def _details(finding: Finding, label: int | str, lang: str) -> list[str]:
    scope = listing(lang, scope_parts(finding.scope, lang)) or tr(lang, "no scope")
    out = [f"### {label}. `{_code_span(finding.rule)}` {text(finding.title)}", "",
           f"**{level_word(lang, finding.level)}** · {verdict_word(lang, finding.verdict)} · "
           f"{text(finding.category)} · {text(scope)} · "
           + tr(lang, "fingerprint {fingerprint}",
                fingerprint=f"`{_code_span(finding.fingerprint)}`"), ""]
    role = role_line(finding, lang)
    if role is not None:
        out += [f"_{text(role)}_", ""]
    if finding.description:
        out += [text(finding.description), ""]
    if finding.verdict is Verdict.NOT_EVALUABLE and finding.missing:
        out += [tr(lang, "**Not evaluable, missing evidence:**"), ""]
        out += [f"- {text(item)}" for item in finding.missing] + [""]
    if finding.evidence:
        out += [tr(lang, "**Evidence**"), "", _evidence_block(finding, lang), ""]
    if finding.remediation:
        out += [tr(lang, "**Remediation**"), ""]
        out += [f"{n}. {text(step)}" for n, step in enumerate(finding.remediation, 1)] + [""]
    return out


def _suppressed(diagnosis: Diagnosis) -> list[str]:
    lang = diagnosis.lang
    found = suppressed(diagnosis)
    expired = expired_entries(diagnosis)
    if not found and not expired:
        return []
    out = [tr(lang, "### Suppressed by baseline ({n})", n=len(found)), ""]
    for f in found:
        reason = suppression_reason(diagnosis, f.fingerprint)
        scope = listing(lang, scope_parts(f.scope, lang)) or tr(lang, "no scope")
        out.append(f"- `{_code_span(f.rule)}` {text(f.title)} "
                   + tr(lang, "({level}; {scope}) fingerprint {fingerprint}",
                        level=level_word(lang, f.level), scope=text(scope),
                        fingerprint=f"`{_code_span(f.fingerprint)}`")
                   + (f": {text(reason)}" if reason else ""))
    for entry in expired:
        out.append("- " + tr(lang, "**expired** baseline entry {fingerprint} ({rule}) on {date}: "
                             "it no longer suppresses anything",
                             fingerprint=f"`{_code_span(str(entry.get('fingerprint')))}`",
                             rule=text(str(entry.get("rule"))),
                             date=text(str(entry.get("expires")))))
    return [*out, ""]
