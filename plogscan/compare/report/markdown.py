"""The Markdown report of ``plogscan diff``: for a ticket or a CI step summary.

The answer first, then a table per kind of difference and the evidence records in fenced
blocks. Log text is hostile and Markdown renders inline HTML, so it goes through the escaping
of the diagnosis's Markdown report (``report.markdown``): entities for ``&<>``, backslashes
for Markdown punctuation, ``|`` escaped in cells, code fences longer than any backtick run.
"""

from __future__ import annotations

from plogscan import __version__
from plogscan.compare.model import BAD, GOOD, Comparison, Line, TemplateDiff
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
from plogscan.report.i18n import level_word, verdict_word
from plogscan.report.markdown import cell, fenced, text
from plogscan.report.view import fmt_ts
from plogscan.textsafe import neutralize

MAX_MESSAGE = 1000  # characters of one evidence record


def render(c: Comparison, limit: int = 10) -> str:
    lang = c.lang
    out = [f"## {say(lang, 'plogscan diff')}", ""]
    for side in (c.good, c.bad):
        out.append(f"- **{side.run.upper()}** {_code(side.path)}: "
                   + cell(" · ".join([
                       say.count(lang, len(side.processes), "{n} process", "{n} processes"),
                       say.count(lang, side.records, "{n} record", "{n} records"),
                       say(lang, "{n} failing", n=side.failing)])))
    out += ["", *_answer(c), ""]
    for run in (BAD, GOOD):
        out += _templates(c, run, limit)
    out += _divergences(c, limit) + _findings(c, limit) + _values(c, limit)
    out += _settings(c, limit)
    out.append(f"<sub>plogscan {__version__}</sub>")
    return "\n".join(out) + "\n"


def _evidence(lines: list[Line] | tuple[Line, ...], lang: str) -> str:
    body = "\n".join(
        f"{slot_label(lang, e.slot)}  {e.path}:{e.line}  {fmt_ts(e.ts) if e.ts else ''} "
        f"{e.level or ''} {e.module or ''}\n  {e.message[:MAX_MESSAGE]}"
        for e in lines)
    return fenced(body)


def _answer(c: Comparison) -> list[str]:
    lang = c.lang
    out = [f"### {say(lang, 'ANSWER')}", ""]
    if not c.differs:
        return [*out, text(say(lang, "No differences: both runs logged the same templates in "
                                     "the same order, with the same codes, levels, modules, "
                                     "settings and findings."))]
    first = answer_template(c)
    if first is None:
        out.append(text(answer_words(c, first)))
    else:
        words = answer_words(c, first)
        out += [text(words), "", fenced(first.template), "", _evidence(first.evidence[:1], lang)]
    split = answer_divergence(c)
    if split is not None and split.good is not None and split.bad is not None:
        out += ["", text(divergence_words(lang, split)), "",
                _evidence([split.bad.line, split.good.line], lang)]
    return out


def _code(value: str) -> str:
    """An inline code span in a table cell: one line, no backtick, ``|`` escaped (GitHub
    keeps a code span's text as it is, so only these can break out of it)."""
    value = neutralize(value, keep_newlines=False).replace("`", "'").replace("|", "\\|")
    return f"`{value}`" if value.strip() else " "


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(row) + " |" for row in rows), ""]


def _more(lang: str, left: int) -> list[str]:
    return [text(say(lang, "… {n} more (--limit 0 or --format json lists them all)", n=left)),
            ""] if left else []


def _templates(c: Comparison, run: str, limit: int) -> list[str]:
    lang = c.lang
    items = c.templates_of(run)
    if not items:
        return []
    title = (say(lang, "LOGGED BY BAD, NOT BY GOOD ({n} templates, most consistent first)",
                 n=len(items)) if run == BAD
             else say(lang, "LOGGED BY GOOD, NOT BY BAD ({n} templates)", n=len(items)))
    listed, left = shown(items, limit)
    rows = [_template_row(c, n, t) for n, t in enumerate(listed, 1)]
    return [f"### {cell(title)}", "", *_table(
        ["#", say(lang, "Template"), say(lang, "Runs"), say(lang, "Ranks"),
         say(lang, "First logged")], rows), *_more(lang, left)]


def _template_row(c: Comparison, number: int, t: TemplateDiff) -> list[str]:
    lang = c.lang
    return [str(number), _code(t.template),
            cell(" · ".join(spread_words(lang, c, t))), cell(slots_label(lang, t.slots)),
            cell(fmt_ts(t.first_ts))]


def _divergences(c: Comparison, limit: int) -> list[str]:
    lang = c.lang
    if not c.divergences:
        return []
    out = [f"### {cell(say(lang, 'WHERE EACH RANK DIVERGES'))}", ""]
    listed, left = shown(c.divergences, limit)
    for d in listed:
        out.append(f"- **{cell(slot_label(lang, d.slot))}** "
                   + cell(common_words(lang, d)))
        for label, logged in ((say(lang, "GOOD logs"), d.good), (say(lang, "BAD logs"), d.bad),
                              (say(lang, "first only in BAD"), d.only_bad)):
            what = _code(logged.template) if logged else cell(say(lang, "(nothing more)"))
            out.append("  - " + say(lang, "{label}: {what}", label=cell(label), what=what))
        lines = [x.line for x in (d.good, d.bad, d.only_bad) if x is not None]
        out += ["", _evidence(lines, lang), ""]
    return [*out, *_more(lang, left)]


def _findings(c: Comparison, limit: int) -> list[str]:
    lang = c.lang
    out: list[str] = []
    for run in (BAD, GOOD):
        items = tuple(f for f in c.findings if f.run == run)
        if not items:
            continue
        listed, left = shown(items, limit)
        rows = [[cell(f.rule), cell(level_word(lang, Level(f.level))),
                 cell(verdict_word(lang, f.verdict)), cell(", ".join(map(str, f.ranks))),
                 str(f.count), cell(f.title)] for f in listed]
        title = say(lang, "FINDINGS ONLY IN {run} ({n})", run=run.upper(), n=len(items))
        header = [say(lang, "Rule"), say(lang, "Level"), say(lang, "Verdict"),
                  say(lang, "Ranks"), "#", say(lang, "Title")]
        out += [f"### {cell(title)}", "", *_table(header, rows), *_more(lang, left)]
    return out


def _values(c: Comparison, limit: int) -> list[str]:
    lang = c.lang
    out: list[str] = []
    kinds = {"code": say(lang, "code"), "level": say(lang, "level"), "module": say(lang, "module")}
    for run in (BAD, GOOD):
        items = tuple(v for v in c.values if v.run == run)
        if not items:
            continue
        listed, left = shown(items, limit)
        rows = [[cell(kinds[v.kind]), _code(v.value), cell(v.meaning or ""), str(v.processes),
                 str(v.records)] for v in listed]
        title = say(lang, "CODES, LEVELS AND MODULES ONLY IN {run} ({n})", run=run.upper(),
                    n=len(items))
        header = [say(lang, "Kind"), say(lang, "Value"), say(lang, "Meaning"),
                  say(lang, "Processes"), say(lang, "Records")]
        out += [f"### {cell(title)}", "", *_table(header, rows), *_more(lang, left)]
    return out


def _settings(c: Comparison, limit: int) -> list[str]:
    lang = c.lang
    if not c.settings:
        return []
    listed, left = shown(c.settings, limit)
    rows = []
    for s in listed:
        values = {run: "; ".join(
            f"{say(lang, 'not printed') if v.value is None else v.value} "
            f"({slots_label(lang, v.slots)})" for v in values)
            for run, values in ((GOOD, s.good), (BAD, s.bad))}
        rows.append([_code(s.key), cell(values[GOOD]), cell(values[BAD])])
    return [f"### {cell(say(lang, 'SETTINGS THAT DIFFER ({n})', n=len(c.settings)))}", "",
            *_table([say(lang, "Setting"), "GOOD", "BAD"], rows), *_more(lang, left)]
