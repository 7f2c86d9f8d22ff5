"""The incidents of the terminal report: the answer first, then each incident's detail.

The answer (one card per incident, in the order to fix them) fits the first screen::

    ANSWER · 1 incident ─────────────────────────────────────────────────
    I1  CCU001  MC2 fused kernel failed after HCCL reused a cached CCU context
        critical · ranks 0–1 · devices 0–1 · host 172.16.40.7
        root cause 172.16.40.7 device-0 (rank 0) · localized · confidence 0.62
        reuse  rank 1 · …/plog-276432_20260317140211674.log:2755
               Already have context, skip create, ctxSize is 1
        do     Workaround: run the MC2 fused operator ... before the first eager ...
        also   CCU002 ×2 · AIC001 ×2 · RT003 ×2 · RT001 ×2 · AIC002 ×2

The detail follows: the root finding (evidence folded, ``+N more``), the same rule on other
ranks as one line with its ranks, each symptom as one line. Findings that could not be
checked get a section of their own with their advice. ``--all`` (``text.render``) shows every
finding unfolded instead.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from plogscan.model import Diagnosis, Evidence, Finding, Incident, RootCause, Suspect, Verdict
from plogscan.report.i18n import level_word, step_word, tr, verdict_word
from plogscan.report.text_finding import DIM, LEVEL_STYLES, finding_block, fit, numbered
from plogscan.report.text_rootcause import chain_text
from plogscan.report.view import complete, int_ranges, report_findings
from plogscan.textsafe import neutralize

MAX_CARDS = 5  # incidents with a card of their own; the rest get one line each
TELLING = 3  # evidence lines on a card
DETAIL_EVIDENCE = 3  # evidence records of a root in the detail, before "+N more"
DETAIL_LINES = 3  # lines of one evidence message in the detail
MAX_SYMPTOM_LINES = 12


def _safe(text: str) -> str:
    return neutralize(text, keep_newlines=False)


def _where(scope_ranks: Sequence[int], devices: Sequence[int], hosts: Sequence[str],
           pids: Sequence[int], lang: str) -> list[str]:
    parts = []
    if scope_ranks:
        parts.append(tr(lang, "ranks {ranks}" if len(scope_ranks) > 1 else "rank {ranks}",
                        ranks=int_ranges(scope_ranks)))
    if devices:
        parts.append(tr(lang, "devices {devices}" if len(devices) > 1 else "device {devices}",
                        devices=int_ranges(devices)))
    if hosts:
        shown = ", ".join(_safe(h) for h in hosts[:3])
        more = tr(lang, " and {n} more", n=len(hosts) - 3) if len(hosts) > 3 else ""
        parts.append(tr(lang, "hosts {hosts}" if len(hosts) > 1 else "host {hosts}",
                        hosts=shown + more))
    if not scope_ranks and pids:
        parts.append(tr(lang, "pids {pids}" if len(pids) > 1 else "pid {pids}",
                        pids=int_ranges(pids)))
    return parts


def telling_evidence(finding: Finding, limit: int = TELLING) -> list[Evidence]:
    """The few records that say most: the first record of each step (a sequence rule's
    story), then the next records, up to ``limit``."""
    chosen: list[Evidence] = []
    steps: set[str] = set()
    for ev in finding.evidence:
        if ev.step not in steps:
            steps.add(ev.step)
            chosen.append(ev)
    for ev in finding.evidence:
        if len(chosen) >= limit:
            break
        if ev not in chosen:
            chosen.append(ev)
    order = {id(ev): i for i, ev in enumerate(finding.evidence)}
    return sorted(chosen[:limit], key=lambda ev: order[id(ev)])


def _located(ev: Evidence, room: int) -> str:
    where = f"{_safe(ev.path)}:{ev.line}"
    if len(where) > room:  # keep the file name and line: cut the path from the left
        where = "…" + where[len(where) - room + 1:]
    return where


def _suspect_of(root_cause: RootCause | None, members: Sequence[Finding]) -> Suspect | None:
    """The attempt's first suspect when this incident holds a finding about it."""
    if root_cause is None or not root_cause.suspects:
        return None
    suspect = root_cause.suspects[0]
    if not suspect.present:  # a peer outside the input has no findings
        return None
    for finding in members:
        if suspect.pid is not None and suspect.pid in finding.scope.pids:
            return suspect
        if suspect.rank is not None and suspect.rank in finding.scope.ranks and (
                not finding.scope.hosts or suspect.host in finding.scope.hosts):
            return suspect
    return None


def _attempt_root_cause(diagnosis: Diagnosis, incident: Incident) -> RootCause | None:
    xr = diagnosis.crossrank
    if xr is None:
        return None
    for attempt in xr.attempts:
        if attempt.id == incident.attempt:
            return attempt.root_cause
    return xr.root_cause


def _counts(findings: Sequence[Finding]) -> str:
    """``CCU002 ×2 · AIC001 ×2``: each rule once, in report order, with its count."""
    counts: dict[str, int] = {}
    for finding in findings:
        counts[finding.rule] = counts.get(finding.rule, 0) + 1
    return " · ".join(_safe(rule) + (f" ×{n}" if n > 1 else "") for rule, n in counts.items())


def _grid() -> Table:
    grid = Table.grid(padding=(0, 2, 0, 0))
    grid.add_column(no_wrap=True, style="bold")
    grid.add_column(overflow="fold")
    return grid


def _card(diagnosis: Diagnosis, incident: Incident, by_id: dict[str, Finding],
          width: int) -> RenderableType:
    lang = diagnosis.lang
    root = by_id[incident.root]
    members = [by_id[i] for i in incident.members]
    head = Text(f"{incident.id}  ", style="bold")
    head.append(_safe(incident.rule), style=LEVEL_STYLES[incident.level])
    head.append("  ")
    head.append(neutralize(incident.title), style="bold")
    scope = incident.scope
    facts = [level_word(lang, incident.level),
             *_where(scope.ranks, scope.devices, scope.hosts, scope.pids, lang)]
    if root.verdict is Verdict.NOT_EVALUABLE:
        facts.append(tr(lang, "could not check"))
    body: list[RenderableType] = [Text(" · ".join(facts), style=DIM, overflow="fold")]
    rows: list[tuple[str, str | Text | None]] = []  # (key, value); None: an evidence row
    root_cause = _attempt_root_cause(diagnosis, incident)
    suspect = _suspect_of(root_cause, members)
    if suspect is not None and root_cause is not None:
        who = _safe(suspect.label) + (tr(lang, " (rank {rank})", rank=suspect.rank)
                                      if suspect.rank is not None else "")
        rows.append((tr(lang, "root"), tr(lang, "{who} · {verdict} · confidence {value}",
                                          who=who, verdict=verdict_word(lang, root_cause.verdict),
                                          value=f"{suspect.confidence:.2f}")))
        if root_cause.chain:
            rows.append((tr(lang, "chain"), chain_text(root_cause, lang)))
    if incident.victims:
        ranks = [v.rank for v in incident.victims if v.rank is not None]
        rows.append((tr(lang, "waited"), tr(lang, "{n} ranks only waited ({ranks})",
                                            n=len(incident.victims),
                                            ranks=int_ranges(ranks) if ranks else "-")))
    telling = telling_evidence(root)
    keys = [key for key, _ in rows] + [_safe(step_word(lang, ev.step)) for ev in telling]
    keys += [tr(lang, "do"), tr(lang, "also")]
    room = max(width - 4 - max(cell_len(k) for k in keys) - 2, 20)
    for ev in telling:
        text = Text(_located(ev, room), style="underline", no_wrap=True)
        text.append("\n")
        text.append(fit(ev.message, room), style="")
        rows.append((_safe(step_word(lang, ev.step)), text))
    advice = root.remediation[0] if root.remediation else (root.missing[0] if root.missing
                                                           else None)
    if advice:
        rows.append((tr(lang, "do"), Text(neutralize(advice), overflow="fold")))
    others = [by_id[i] for i in incident.symptoms]
    if others:
        rows.append((tr(lang, "also"), Text(_counts(others), overflow="fold")))
    grid = _grid()
    for key, value in rows:
        grid.add_row(key, value)
    body.append(grid)
    return Group(head, Padding(Group(*body), (0, 0, 0, 4)))


def _one_line(incident: Incident, lang: str) -> Text:
    line = Text(f"{incident.id}  ", style="bold")
    line.append(_safe(incident.rule), style=LEVEL_STYLES[incident.level])
    line.append("  " + fit(incident.title, 60))
    where = _where(incident.scope.ranks, incident.scope.devices, (), incident.scope.pids, lang)
    if where:
        line.append("  (" + " · ".join(where) + ")", style=DIM)
    return line


def answer_section(diagnosis: Diagnosis, width: int) -> Iterator[RenderableType]:
    """The first screen's answer: one card per incident (the first ``MAX_CARDS``)."""
    diagnosis = complete(diagnosis)
    incidents = diagnosis.incidents
    if not incidents:
        return
    lang = diagnosis.lang
    by_id = {f.id: f for f in diagnosis.findings}
    yield Text("")
    title = tr(lang, "ANSWER · {n} incident" if len(incidents) == 1 else
               "ANSWER · {n} incidents", n=len(incidents))
    yield Rule(Text(title, style="bold"), align="left", characters="─")
    for number, incident in enumerate(incidents):
        if number < MAX_CARDS:
            if number:
                yield Text("")
            yield _card(diagnosis, incident, by_id, width)
        else:
            yield _one_line(incident, lang)


def _same_rule_line(findings: Sequence[Finding], lang: str) -> Text:
    ranks = sorted({r for f in findings for r in f.scope.ranks})
    pids = sorted({p for f in findings for p in f.scope.pids})
    where = _where(ranks, (), (), pids, lang)
    text = "also on {where} ({n} finding)" if len(findings) == 1 else \
        "also on {where} ({n} findings)"
    return Text(tr(lang, text, n=len(findings), where=", ".join(where) or "-"), style="bold",
                overflow="fold")


def _symptom_lines(findings: Sequence[Finding], lang: str, width: int) -> list[Text]:
    """One line per rule among the symptoms: its id, level, title, where."""
    by_rule: dict[str, list[Finding]] = {}
    for finding in findings:
        by_rule.setdefault(finding.rule, []).append(finding)
    lines = []
    for rule, group in by_rule.items():
        first = group[0]
        ranks = sorted({r for f in group for r in f.scope.ranks})
        pids = sorted({p for f in group for p in f.scope.pids})
        where = " · ".join(_where(ranks, (), (), pids, lang))
        line = Text(f"{_safe(rule):<9}", style=LEVEL_STYLES[first.level])
        count = f" ×{len(group)}" if len(group) > 1 else ""
        line.append(f" {level_word(lang, first.level)}{count}  ", style=DIM)
        room = max(width - line.cell_len - cell_len(where) - 10, 20)
        line.append(fit(first.title, room))
        if where:
            line.append(f"  {where}", style=DIM)
        lines.append(line)
    return lines


def incident_details(diagnosis: Diagnosis, verbose: bool, width: int
                     ) -> Iterator[RenderableType]:
    """Each incident's detail: its root finding folded, then one line per related rule."""
    diagnosis = complete(diagnosis)
    lang = diagnosis.lang
    by_id = {f.id: f for f in diagnosis.findings}
    for incident in diagnosis.incidents:
        root = by_id[incident.root]
        yield Text("")
        yield Rule(Text(tr(lang, "INCIDENT {id} · {rule}", id=incident.id, rule=incident.rule),
                        style=LEVEL_STYLES[incident.level]), align="left", characters="─")
        yield finding_block(root, incident.id, verbose=verbose, lang=lang,
                            max_evidence=None if verbose else DETAIL_EVIDENCE,
                            message_lines=None if verbose else DETAIL_LINES,
                            references=False)
        same = [by_id[i] for i in incident.same_rule]
        symptoms = [by_id[i] for i in incident.symptoms
                    if by_id[i].verdict is Verdict.MATCH]
        rows: list[RenderableType] = []
        if same:
            rows.append(_same_rule_line(same, lang))
        if symptoms:
            rows.append(Text(tr(lang, "Follows from it"), style="bold"))
            lines = _symptom_lines(symptoms, lang, width - 6)
            rows += lines[:MAX_SYMPTOM_LINES]
            if len(lines) > MAX_SYMPTOM_LINES:
                rows.append(Text(tr(lang, "… {n} more rules (--all lists them)",
                                    n=len(lines) - MAX_SYMPTOM_LINES), style=DIM))
        if rows:
            yield Padding(Group(Text(""), *rows), (0, 0, 0, 4))


def not_evaluable_section(diagnosis: Diagnosis) -> Iterator[RenderableType]:
    """The checks that could not run, with what would make them runnable."""
    lang = diagnosis.lang
    unchecked = [f for f in report_findings(diagnosis) if f.verdict is Verdict.NOT_EVALUABLE]
    if not unchecked:
        return
    yield Text("")
    yield Rule(Text(tr(lang, "COULD NOT CHECK: EVIDENCE MISSING ({n})", n=len(unchecked)),
                    style="bold magenta"), align="left", characters="─")
    shown: set[tuple[str, tuple[str, ...]]] = set()
    for finding in unchecked:
        key = (finding.rule, finding.missing)
        ranks = sorted({r for f in unchecked if (f.rule, f.missing) == key
                        for r in f.scope.ranks})
        if key in shown:
            continue
        shown.add(key)
        head = Text(f"{_safe(finding.rule)}  ", style="bold")
        head.append(neutralize(finding.title))
        where = _where(ranks, (), (), finding.scope.pids if not ranks else (), lang)
        if where:
            head.append("  (" + " · ".join(where) + ")", style=DIM)
        yield Padding(Group(head, Padding(numbered(finding.missing, bullet="•"),
                                          (0, 0, 0, 2))), (0, 0, 0, 2))
