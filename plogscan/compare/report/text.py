"""The terminal report of ``plogscan diff``: the answer first, then each kind of difference.

The answer names what only the failing run logged, most consistently first, with the record
that shows it, and where the runs first part on one rank. The sections after it list the
templates each run logged that the other did not, where each rank diverges, the findings,
codes, levels, modules and settings only one run has, and the processes with no counterpart;
each item with its evidence (file:line, time, level, module and the record's first line).
Log text is neutralized: control characters and bidi overrides become visible escapes.
"""

from __future__ import annotations

from rich.cells import cell_len

from plogscan.compare.model import (
    BAD,
    GOOD,
    Comparison,
    Divergence,
    FindingDiff,
    Line,
    Logged,
    SettingDiff,
    Side,
    Slot,
    TemplateDiff,
    ValueDiff,
)
from plogscan.compare.report.view import (
    answer_divergence,
    answer_template,
    answer_words,
    common_words,
    divergence_words,
    shown,
    slot_label,
    slots_label,
    spread_words,
)
from plogscan.compare.words import say
from plogscan.model import Level
from plogscan.report.i18n import level_word, listing, verdict_word
from plogscan.report.view import fmt_ts
from plogscan.textsafe import one_line

WIDTH = 100
MESSAGE_CHARS = 160  # of a template or a record's first line on one report line
_INDENT = "      "


def render(c: Comparison, limit: int = 10) -> str:
    lang = c.lang
    out = [_rule(say(lang, "plogscan diff"))]
    out += [_side(lang, c.good), _side(lang, c.bad), ""]
    out += _answer(c)
    out += _templates(c, BAD, limit) + _templates(c, GOOD, limit)
    out += _divergences(c, limit)
    for run in (BAD, GOOD):
        out += _findings(c, run, limit) + _values(c, run, limit)
    out += _settings(c, limit) + _unmatched(c)
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


def _rule(title: str) -> str:
    left = max(WIDTH - cell_len(title) - 2, 0)
    return "═" * (left // 2) + f" {title} " + "═" * (left - left // 2)


def _heading(title: str) -> list[str]:
    """A section heading ruled to the report's width (a CJK character takes two columns)."""
    return [f"{title} " + "─" * max(WIDTH - cell_len(title) - 1, 3)]


def _side(lang: str, side: Side) -> str:
    parts = [say.count(lang, len(side.processes), "{n} process", "{n} processes"),
             say.count(lang, side.records, "{n} record", "{n} records"),
             say(lang, "{n} failing", n=side.failing),
             say.count(lang, side.findings, "{n} finding", "{n} findings")]
    line = f"{side.run.upper():<5} {one_line(side.path)}  " + " · ".join(parts)
    notes = []
    if side.dropped_templates:
        notes.append(say(lang, "{n} templates past the cap of distinct templates were not "
                               "compared ({records} records)", n=f"{side.dropped_templates:,}",
                         records=f"{side.dropped_records:,}"))
    if side.unattributed:
        notes.append(say(lang, "{n} records belong to no known process and were not compared",
                         n=f"{side.unattributed:,}"))
    return "\n".join([line, *(f"      {note}" for note in notes)])


def _evidence(line: Line, lang: str, indent: str = _INDENT) -> list[str]:
    where = f"{slot_label(lang, line.slot)}  {one_line(line.path)}:{line.line}"
    head = " ".join(p for p in (fmt_ts(line.ts) if line.ts else "", line.level or "",
                                one_line(line.module or "")) if p)
    return [f"{indent}{where}  {head}".rstrip(),
            f"{indent}  {one_line(line.message, MESSAGE_CHARS)}"]


def _answer(c: Comparison) -> list[str]:
    lang = c.lang
    out = _heading(say(lang, "ANSWER"))
    if not c.differs:
        return [*out, say(lang, "No differences: both runs logged the same templates in the "
                                "same order, with the same codes, levels, modules, settings "
                                "and findings."), ""]
    first = answer_template(c)
    out.append(answer_words(c, first))
    if first is not None:
        out.append(f"  {one_line(first.template, MESSAGE_CHARS)}")
        for line in first.evidence[:1]:
            out += _evidence(line, lang, "    ")
    split = answer_divergence(c)
    if split is not None and split.good is not None and split.bad is not None:
        out.append(divergence_words(lang, split))
        for logged in (split.bad, split.good):
            out.append(f"  {one_line(logged.template, MESSAGE_CHARS)}")
            out += _evidence(logged.line, lang, "    ")
    rest = _rest(c)
    if rest:
        out.append(say(lang, "The runs differ in what else they logged: {what}",
                       what=listing(lang, rest)))
    return [*out, ""]


def _rest(c: Comparison) -> list[str]:
    lang = c.lang
    parts = []
    findings = [sum(f.run == run for f in c.findings) for run in (BAD, GOOD)]
    if any(findings):
        parts.append(say.count(lang, findings[0], "1 finding only in BAD, {m} only in GOOD",
                               "{n} findings only in BAD, {m} only in GOOD", m=findings[1]))
    values = [sum(v.run == run for v in c.values) for run in (BAD, GOOD)]
    if any(values):
        parts.append(say.count(lang, values[0], "1 code, level or module only in BAD, {m} only "
                               "in GOOD", "{n} codes, levels or modules only in BAD, {m} only "
                               "in GOOD", m=values[1]))
    if c.settings:
        parts.append(say.count(lang, len(c.settings), "1 setting with another value",
                               "{n} settings with other values"))
    if c.unmatched:
        parts.append(say.count(lang, len(c.unmatched), "1 process with no counterpart",
                               "{n} processes with no counterpart"))
    return parts


def _more(lang: str, left: int) -> list[str]:
    return [say(lang, "… {n} more (--limit 0 or --format json lists them all)", n=left)] \
        if left else []


def _templates(c: Comparison, run: str, limit: int) -> list[str]:
    lang = c.lang
    items = c.templates_of(run)
    if not items:
        return []
    title = (say(lang, "LOGGED BY BAD, NOT BY GOOD ({n} templates, most consistent first)",
                 n=len(items)) if run == BAD
             else say(lang, "LOGGED BY GOOD, NOT BY BAD ({n} templates)", n=len(items)))
    out = _heading(title)
    listed, left = shown(items, limit)
    for number, t in enumerate(listed, 1):
        out += _template(c, number, t)
    return [*out, *_more(lang, left), ""]


def _template(c: Comparison, number: int, t: TemplateDiff) -> list[str]:
    lang = c.lang
    facts = [*spread_words(lang, c, t), slots_label(lang, t.slots),
             say(lang, "first {ts}", ts=fmt_ts(t.first_ts))]
    out = [f"{number:>3}  {one_line(t.template, MESSAGE_CHARS)}",
           f"{'':5}{' · '.join(facts)}"]
    for line in t.evidence:
        out += _evidence(line, lang, "       ")
    return out


def _divergences(c: Comparison, limit: int) -> list[str]:
    lang = c.lang
    if not c.divergences:
        return []
    out = _heading(say(lang, "WHERE EACH RANK DIVERGES"))
    listed, left = shown(c.divergences, limit)
    for d in listed:
        out += _divergence(lang, d)
    return [*out, *_more(lang, left), ""]


def _divergence(lang: str, d: Divergence) -> list[str]:
    out = [f"{slot_label(lang, d.slot)}  "
           + common_words(lang, d)]
    out += _logged(lang, say(lang, "GOOD logs"), d.good)
    out += _logged(lang, say(lang, "BAD logs"), d.bad)
    if d.only_bad is not None:
        out += _logged(lang, say(lang, "first only in BAD"), d.only_bad)
    return out


def _logged(lang: str, label: str, logged: Logged | None) -> list[str]:
    if logged is None:
        return ["  " + say(lang, "{label}: {what}", label=label,
                           what=say(lang, "(nothing more)"))]
    return ["  " + say(lang, "{label}: {what}", label=label,
                       what=one_line(logged.template, MESSAGE_CHARS)),
            *_evidence(logged.line, lang, "    ")]


def _findings(c: Comparison, run: str, limit: int) -> list[str]:
    lang = c.lang
    items = tuple(f for f in c.findings if f.run == run)
    if not items:
        return []
    out = _heading(say(lang, "FINDINGS ONLY IN {run} ({n})", run=run.upper(), n=len(items)))
    listed, left = shown(items, limit)
    for f in listed:
        out += _finding(lang, f)
    return [*out, *_more(lang, left), ""]


def _finding(lang: str, f: FindingDiff) -> list[str]:
    ranks = slots_label(lang, [Slot(rank, 0) for rank in f.ranks])
    head = "  ".join(p for p in (f.rule, level_word(lang, Level(f.level)),
                                 verdict_word(lang, f.verdict), ranks, f"×{f.count}") if p)
    out = [f"  {head}", f"    {one_line(f.title, MESSAGE_CHARS)}"]
    for line in f.evidence[:1]:
        out += _evidence(line, lang)
    return out


def _values(c: Comparison, run: str, limit: int) -> list[str]:
    lang = c.lang
    items = tuple(v for v in c.values if v.run == run)
    if not items:
        return []
    out = _heading(say(lang, "CODES, LEVELS AND MODULES ONLY IN {run} ({n})", run=run.upper(),
                       n=len(items)))
    listed, left = shown(items, limit)
    for v in listed:
        out += _value(lang, v)
    return [*out, *_more(lang, left), ""]


def _value(lang: str, v: ValueDiff) -> list[str]:
    kind = {"code": say(lang, "code"), "level": say(lang, "level"),
            "module": say(lang, "module")}[v.kind]
    head = f"  {kind} {one_line(v.value)}  " + " · ".join([
        say.count(lang, v.processes, "{n} process", "{n} processes"),
        say.count(lang, v.records, "{n} record", "{n} records")])
    out = [head]
    if v.meaning:
        out.append(f"    {one_line(v.meaning, MESSAGE_CHARS)}")
    for line in v.evidence[:1]:
        out += _evidence(line, lang)
    return out


def _settings(c: Comparison, limit: int) -> list[str]:
    lang = c.lang
    if not c.settings:
        return []
    out = _heading(say(lang, "SETTINGS THAT DIFFER ({n})", n=len(c.settings)))
    listed, left = shown(c.settings, limit)
    for s in listed:
        out += _setting(lang, s)
    return [*out, *_more(lang, left), ""]


def _setting(lang: str, s: SettingDiff) -> list[str]:
    out = [f"  {one_line(s.key)}"]
    for run, values in ((GOOD, s.good), (BAD, s.bad)):
        for v in values:
            value = say(lang, "not printed") if v.value is None else f"[{one_line(v.value)}]"
            where = slots_label(lang, v.slots)
            out.append(f"    {run.upper():<5} {value}" + (f"  {where}" if where else ""))
            for line in v.evidence[:1]:
                out += _evidence(line, lang, "          ")
    return out


def _unmatched(c: Comparison) -> list[str]:
    lang = c.lang
    if not c.unmatched:
        return []
    out = _heading(say(lang, "PROCESSES WITH NO COUNTERPART ({n})", n=len(c.unmatched)))
    for run in (BAD, GOOD):
        slots = [slot for r, slot in c.unmatched if r == run]
        if slots:
            out.append(f"  {run.upper():<5} {slots_label(lang, slots)}")
    return [*out, ""]
