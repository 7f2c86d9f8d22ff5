"""One finding of the terminal report, as rich renderables.

Layout (fits 80 columns; every piece of log text is neutralized first)::

    [1] CCU001  Cached CCU context reused, then an MC2 fused-kernel fault
        critical · match · ccu-context-reuse · ccu.context-reuse-then-mc2-fault
        rank 0 · pid 31207 · host node-a · device 0
        10:33:51.000217 → 10:33:52.237466 (1.237 s)

        <description>

        Evidence
        reuse       logs/.../plog-31207_20260318103340117.log:4410
                    2026-03-18 10:33:51.002231 · +2.014 ms · HCCL DEBUG
                    Already have context, skip create, ctxSize is 3
        Remediation
        1. Workaround: ...
        fingerprint c3a81f0d92e4b715

A symptom finding adds ``symptom of: AIC001, CCU002`` under the summary (a root cause with
links: ``linked: ...``). Headings come in the report language (``plogscan.report.i18n``).
"""

from __future__ import annotations

import re
from dataclasses import replace

from rich.cells import cell_len, get_character_cell_size
from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table

from plogscan.headline import naming_line
from plogscan.model import Evidence, Finding, Level, Verdict
from plogscan.report.i18n import level_word, step_word, tr, verdict_word
from plogscan.report.view import (
    clip,
    fmt_duration,
    fmt_ts,
    scope_parts,
    seconds_between,
    step_deltas,
)
from plogscan.report.wrap import Text
from plogscan.textsafe import neutralize, one_line

LEVEL_STYLES = {
    Level.CRITICAL: "bold white on red",
    Level.ERROR: "bold red",
    Level.WARNING: "bold yellow",
    Level.INFO: "bold cyan",
}
VERDICT_STYLES = {Verdict.MATCH: "bold", Verdict.NOT_EVALUABLE: "bold magenta"}
HIGHLIGHT = "bold magenta"
DIM = "dim"
INDENT = 4
FOLDED_PATH_CHARS = 74  # an evidence location on one line of the folded view
# Error codes worth catching the eye: ACL/RT 5-6 digit codes, CANN Exxxx, torch_npu ERRxxxxx.
_CODES = r"\b(?:[1-5]0\d{4}|E[A-Z0-9]\d{4}|ERR\d{5})\b"


def fit(text: str, cells: int) -> str:
    """The first line of ``text``, neutralized, cut with an ellipsis to ``cells`` terminal
    columns (a Chinese character takes two; ``textsafe.one_line`` counts characters)."""
    line = one_line(text)
    if cell_len(line) <= cells:
        return line
    kept, used = [], 0
    for ch in line:
        used += get_character_cell_size(ch)
        if used > max(cells - 1, 0):
            break
        kept.append(ch)
    return "".join(kept) + "…"


def pad(text: str, cells: int) -> str:
    """``text`` padded with spaces to ``cells`` terminal columns."""
    return text + " " * max(cells - cell_len(text), 0)


def highlighter(finding: Finding) -> re.Pattern[str]:
    """Key phrases of a finding's messages: its captured values and error codes."""
    values = sorted({neutralize(v, keep_newlines=False) for _, v in finding.captures
                     if len(v.strip()) >= 2}, key=lambda v: (-len(v), v))
    alternatives = [rf"(?<!\w){re.escape(v)}(?!\w)" for v in values] + [_CODES]
    return re.compile("|".join(alternatives))


def _message(text: str, pattern: re.Pattern[str], lang: str = "en") -> Text:
    out = Text(neutralize(clip(text, lang=lang)), overflow="fold")
    out.highlight_regex(pattern, HIGHLIGHT)
    return out


def _evidence_item(ev: Evidence, delta: float | None, pattern: re.Pattern[str],
                   verbose: bool, path_room: int | None = None, lang: str = "en"
                   ) -> RenderableType:
    head = Text(neutralize(step_word(lang, ev.step), keep_newlines=False), style="bold",
                overflow="fold")
    meta = [] if delta is None else [fmt_duration(delta, signed=True)]
    meta.append(fmt_ts(ev.ts))
    who = " ".join(neutralize(x, keep_newlines=False) for x in (ev.module, ev.level) if x)
    if who:
        meta.append(who)
    head.append("  " + " · ".join(meta), style=DIM)
    loc = f"{neutralize(ev.path, keep_newlines=False)}:{ev.line}"
    if ev.line_count > 1:
        loc += f"-{ev.line + ev.line_count - 1}"
    if path_room is not None and len(loc) > path_room:  # keep the file name: cut from the left
        loc = "…" + loc[len(loc) - path_room + 1:]
    body = Text(loc, style="underline", overflow="fold")
    if not verbose:
        body.append("\n")
        body.append_text(_message(ev.message, pattern, lang))
        return Group(head, Padding(body, (0, 0, 0, 2)))
    width = len(str(max([ev.line, *(n for n, _ in ev.context_after)])))
    for number, line in ev.context_before:
        body.append(f"\n{number:>{width}} │ {neutralize(line, keep_newlines=False)}", DIM)
    body.append(f"\n{ev.line:>{width}} ▶ ", style="bold")
    body.append_text(_message(ev.message, pattern, lang))
    for number, line in ev.context_after:
        body.append(f"\n{number:>{width}} │ {neutralize(line, keep_newlines=False)}", DIM)
    return Group(head, Padding(body, (0, 0, 0, 2)))


def _evidence(finding: Finding, verbose: bool, limit: int | None = None,
              lines: int | None = None, lang: str = "en") -> RenderableType:
    """The evidence records; past ``limit`` of them one line counts the rest, and each message
    keeps its first ``lines`` lines (the whole record with ``--all``)."""
    pattern = highlighter(finding)
    pairs = list(zip(finding.evidence, step_deltas(finding.evidence), strict=True))
    shown = pairs if limit is None else pairs[:limit]
    room = None if lines is None else FOLDED_PATH_CHARS
    items = [_evidence_item(ev if lines is None else _first_lines(ev, lines), delta, pattern,
                            verbose, room, lang) for ev, delta in shown]
    if len(pairs) > len(shown):
        items.append(Text(tr(lang, "+{n} more evidence records (--all shows them)",
                             n=len(pairs) - len(shown)), style=DIM))
    return Group(*items)


def _first_lines(ev: Evidence, lines: int) -> Evidence:
    """The first ``lines`` lines of the message; when the line that names the record comes
    later (a table's data row, a traceback's exception line), it takes the last place."""
    head = ev.message.split("\n")
    if len(head) <= lines:
        return ev
    key = naming_line(ev.message)
    if key < lines:
        return replace(ev, message="\n".join([*head[:lines], "…"]))
    kept = [*head[:lines - 1], "…", head[key]] + (["…"] if key < len(head) - 1 else [])
    return replace(ev, message="\n".join(kept))


def numbered(items: tuple[str, ...] | list[str], bullet: str | None = None) -> Table:
    """A list with hanging indents: ``1. text`` (or ``• text`` with a bullet)."""
    table = Table.grid(padding=(0, 1, 0, 0))
    table.add_column(no_wrap=True, justify="right")
    table.add_column(overflow="fold")
    for index, item in enumerate(items, 1):
        table.add_row(bullet or f"{index}.", Text(neutralize(item), overflow="fold"))
    return table


def hanging(prefix: Text, body: Text) -> Table:
    """``prefix`` then ``body``, the lines ``body`` wraps onto indented under its first one."""
    table = Table.grid(padding=(0, 0, 0, 0))
    table.add_column(no_wrap=True)
    table.add_column(overflow="fold")
    table.add_row(prefix, body)
    return table


def _headline(finding: Finding, index: int | str) -> Table:
    prefix = Text(f"[{index}] ", style="bold")
    prefix.append(neutralize(finding.rule, keep_newlines=False),
                  style=LEVEL_STYLES[finding.level])
    prefix.append("  ")
    return hanging(prefix, Text(neutralize(finding.title), style="bold"))


def cross_rank_parts(finding: Finding, lang: str = "en") -> list[str]:
    """What the cross-rank analysis says of a finding's ranks, and an assumed identity."""
    parts = []
    if finding.rank_role == "root-cause":
        parts.append(tr(lang, "suspect rank"))
    elif finding.rank_role == "victim":
        parts.append(tr(lang, "victim (waited)"))
    if finding.scope.identity == "assumed":
        parts.append(tr(lang, "identity assumed"))
    return parts


def _summary_lines(finding: Finding, lang: str = "en") -> Text:
    lines = Text()
    lines.append(level_word(lang, finding.level), style=LEVEL_STYLES[finding.level])
    lines.append(" · ")
    lines.append(verdict_word(lang, finding.verdict), style=VERDICT_STYLES[finding.verdict])
    lines.append(" · " + " · ".join(neutralize(x, keep_newlines=False)
                                    for x in (finding.category, finding.name)))
    scope = scope_parts(finding.scope, lang) + cross_rank_parts(finding, lang)
    if scope:
        lines.append("\n" + neutralize(" · ".join(scope), keep_newlines=False), style=DIM)
    if finding.first_ts is not None:
        span = fmt_ts(finding.first_ts)
        if finding.last_ts is not None and finding.last_ts != finding.first_ts:
            elapsed = fmt_duration(seconds_between(finding.first_ts, finding.last_ts))
            span += f" → {fmt_ts(finding.last_ts)} ({elapsed})"
        lines.append("\n" + span, style=DIM)
    return lines


def role_line(finding: Finding, lang: str = "en") -> str | None:
    """``symptom of: AIC001`` / ``linked: CCU002`` / ``symptom``; None for a plain root cause."""
    links = ", ".join(finding.links)
    if finding.role == "symptom":
        return tr(lang, "symptom of: {links}", links=links) if links else tr(lang, "symptom")
    return tr(lang, "linked: {links}", links=links) if links else None


def finding_block(finding: Finding, index: int | str, *, verbose: bool,
                  lang: str = "en", max_evidence: int | None = None,
                  message_lines: int | None = None, references: bool = True
                  ) -> RenderableType:
    """Everything the terminal shows about one finding (fixed words in ``lang``).

    ``max_evidence`` and ``message_lines`` fold long evidence (the default view);
    ``references`` off leaves the reference list to ``--all`` and the other formats."""
    body: list[RenderableType] = [_summary_lines(finding, lang)]
    role = role_line(finding, lang)
    if role is not None:
        body.append(Text(neutralize(role, keep_newlines=False), style="bold", overflow="fold"))
    if finding.description:
        body += [Text(""), Text(neutralize(finding.description), overflow="fold")]
    if finding.verdict is Verdict.NOT_EVALUABLE and finding.missing:
        body += [Text(""), Text(tr(lang, "Not evaluable: missing evidence"),
                                style="bold magenta"),
                 numbered(finding.missing, bullet="•")]
    if finding.evidence:
        body += [Text(""), Text(tr(lang, "Evidence"), style="bold"),
                 _evidence(finding, verbose, max_evidence, message_lines, lang)]
    if finding.remediation:
        body += [Text(tr(lang, "Remediation"), style="bold"), numbered(finding.remediation)]
    if finding.references and references:
        body += [Text(tr(lang, "References"), style="bold"),
                 numbered(finding.references, bullet="-")]
    body.append(Text(tr(lang, "fingerprint {fingerprint}",
                        fingerprint=neutralize(finding.fingerprint)), style=DIM))
    return Group(_headline(finding, index), Padding(Group(*body), (0, 0, 0, INDENT)))
