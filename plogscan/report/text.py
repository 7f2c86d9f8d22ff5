"""The terminal report (``--format text``, the default), built from rich renderables.

Sections, top to bottom: header (inputs, time span, ranks/hosts/processes and the log levels
each process wrote), verdict line, the cross-rank root cause (suspects, chain, victims, clock
offsets, attempts, missing ranks: ``text_rootcause``), the incidents (``text_incidents``) or,
with ``--all``, the findings grouped by severity (``text_finding``), a per-rank timeline of key
events, then ``text_appendix``: findings suppressed by a baseline, the first unexplained ERROR
templates, ingest health, and the codes found in the evidence with their meanings (one line
each unless ``--details``), and last the answer and the verdict line again. Every fixed
word is in the diagnosis language (``plogscan.report.i18n``); widths count terminal cells, so
Chinese lines fit the width too.

The console is fixed (width, no markup, highlighting or emoji, no environment lookups), so the
same diagnosis always gives the same bytes. ``color=False`` gives plain text without escape
sequences; the CLI chooses it when stdout is not a terminal or ``NO_COLOR`` is set.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime

from rich.cells import cell_len
from rich.console import Console, RenderableType
from rich.rule import Rule

from plogscan.model import Diagnosis, Finding
from plogscan.report.i18n import count, level_heading, listing, tr
from plogscan.report.text_appendix import (
    MAX_UNEXPLAINED,
    appendix_summary,
    codes_section,
    ingest_health,
    suppressed_section,
    unexplained_section,
    unread_paths_section,
)
from plogscan.report.text_finding import DIM, LEVEL_STYLES, finding_block, fit, hanging, pad
from plogscan.report.text_header import header
from plogscan.report.text_incidents import (
    answer_section,
    incident_details,
    not_evaluable_section,
)
from plogscan.report.text_rootcause import root_cause_section
from plogscan.report.timeline import key_events
from plogscan.report.verdict import answer
from plogscan.report.view import (
    LEVELS_DESC,
    complete,
    fmt_duration,
    report_findings,
    seconds_between,
    verdict_line,
)
from plogscan.report.wrap import Text
from plogscan.textsafe import neutralize

DEFAULT_WIDTH = 80
FOLDED_UNEXPLAINED = 3  # templates in the default view
FOLDED_LANES = 8  # timeline lanes in the default view
FOLDED_EVENTS = 5  # key events per lane in the default view
_TRAILING = re.compile(r"(?: |\x1b\[[0-9;]*m)+$")  # padding, possibly around style resets
_KIND_STYLES = {"step": "bold", "first-error": "bold red", "timeout": "bold yellow"}


MAX_PER_RULE = 3  # findings of one rule shown in full; the rest fold into one line


def make_console(width: int, color: bool) -> Console:
    """A console writing to memory, with every automatic behaviour switched off."""
    return Console(
        file=io.StringIO(), width=width, color_system="standard" if color else None,
        force_terminal=color, force_jupyter=False, force_interactive=False, no_color=not color,
        markup=False, highlight=False, emoji=False, legacy_windows=False, soft_wrap=False,
        tab_size=4, _environ={},
    )


def render(diagnosis: Diagnosis, *, verbose: bool = False, width: int | None = None,
           color: bool = False, show_all: bool = False, details: bool = False) -> str:
    """The whole terminal report as a string (ANSI styled only when ``color``).

    By default the answer comes first and the detail is folded (incidents, ``text_incidents``);
    ``show_all`` lists every finding unfolded instead, by level. The appendix (unexplained
    errors, ingest health, codes) is one line per section unless ``details`` (or ``show_all``)
    asks for it in full, or it holds the only findings. The report ends with the answer and
    the exit code, so they are on the last screen."""
    console = make_console(width or DEFAULT_WIDTH, color)
    for renderable in _sections(complete(diagnosis), verbose, console.width, show_all,
                                details or show_all):
        console.print(renderable)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    lines = (_TRAILING.sub(lambda m: m.group().replace(" ", ""), line)
             for line in output.splitlines())
    return "\n".join(lines) + "\n"


def _sections(diagnosis: Diagnosis, verbose: bool, width: int, show_all: bool,
              details: bool) -> Iterator[RenderableType]:
    yield Rule(tr(diagnosis.lang, "plogscan report"), characters="═", style="bold")
    yield header(diagnosis, show_all)
    yield Text("")
    style = "bold red" if diagnosis.exit_code else "bold green"
    yield Text(verdict_line(diagnosis), style=style)
    yield from answer_section(diagnosis, width)
    yield from root_cause_section(diagnosis, compact=not show_all)
    if show_all:
        yield from _findings(diagnosis, verbose)
    else:
        yield from incident_details(diagnosis, verbose, width)
        yield from not_evaluable_section(diagnosis)
    yield from _timeline(diagnosis, width, folded=not show_all)
    yield from suppressed_section(diagnosis)
    yield from unread_paths_section(diagnosis)
    if details or not diagnosis.findings:  # in full: asked for, or the only findings there are
        yield from unexplained_section(diagnosis, width,
                                       FOLDED_UNEXPLAINED if not show_all else MAX_UNEXPLAINED)
        yield from ingest_health(diagnosis)
        yield from codes_section(diagnosis)
    else:
        yield from appendix_summary(diagnosis)
    yield from closing(diagnosis, width)


def closing(diagnosis: Diagnosis, width: int) -> Iterator[RenderableType]:
    """The last lines: the incident to fix first and where it is, then the verdict line with
    the exit code (as pytest ends with its summary line)."""
    lang = diagnosis.lang
    yield Text("")
    style = "bold red" if diagnosis.exit_code else "bold green"
    yield Rule(characters="═", style=style)
    found = answer(diagnosis)
    if found is not None:
        prefix = Text(tr(lang, "Answer") + "  ", style="bold")
        prefix.append(f"{found.incident.id} ", style="bold")
        prefix.append(neutralize(found.incident.rule, keep_newlines=False),
                      style=LEVEL_STYLES[found.incident.level])
        prefix.append("  ")
        body = Text(neutralize(found.incident.title, keep_newlines=False))
        where = found.where if found.checked else listing(
            lang, [p for p in (found.where, tr(lang, "could not check")) if p])
        if where:
            body.append(" · " + neutralize(where, keep_newlines=False), style="bold")
        yield hanging(prefix, body)
    yield Text(verdict_line(diagnosis), style=style)


def _findings(diagnosis: Diagnosis, verbose: bool) -> Iterator[RenderableType]:
    findings = report_findings(diagnosis)
    index = 0
    for level in LEVELS_DESC:
        group = [f for f in findings if f.level is level]
        if not group:
            continue
        yield Text("")
        yield Rule(Text(tr(diagnosis.lang, "{level} ({n})",
                           level=level_heading(diagnosis.lang, level), n=len(group)),
                        style=LEVEL_STYLES[level]),
                   align="left", characters="─")
        shown_per_rule: dict[str, int] = {}
        folded: dict[str, list[Finding]] = {}
        for finding in group:
            index += 1
            seen = shown_per_rule.get(finding.rule, 0)
            if seen >= MAX_PER_RULE and not verbose:
                folded.setdefault(finding.rule, []).append(finding)
                continue
            shown_per_rule[finding.rule] = seen + 1
            if sum(shown_per_rule.values()) > 1:
                yield Text("")
            yield finding_block(finding, index, verbose=verbose, lang=diagnosis.lang)
        for rule, rest in folded.items():
            yield Text("")
            yield Text(_folded_line(rule, rest, diagnosis.lang), style="dim")


def _folded_line(rule: str, rest: list[Finding], lang: str) -> str:
    """One line for the findings of a rule beyond MAX_PER_RULE (a job of many ranks can give
    one per process): how many, and on which ranks or processes."""
    ranks = sorted({r for f in rest for r in f.scope.ranks})
    pids = sorted({p for f in rest for p in f.scope.pids})
    where = (tr(lang, "ranks {ranks}", ranks=_short_list(ranks, lang)) if ranks
             else tr(lang, "pids {pids}", pids=_short_list(pids, lang)) if pids else "")
    return tr(lang, "… {n} more {rule} findings{where} (--verbose or --format json lists all)",
              n=len(rest), rule=rule, where=tr(lang, " ({text})", text=where) if where else "")


def _short_list(values: list[int], lang: str, limit: int = 12) -> str:
    head = ", ".join(str(v) for v in values[:limit])
    return head + (tr(lang, ", … ({n} in all)", n=len(values)) if len(values) > limit else "")


def _clock(ts: datetime | None, same_day: bool) -> str:
    if ts is None:
        return "-"
    return ts.strftime("%H:%M:%S.%f" if same_day else "%m-%d %H:%M:%S.%f")[:-3]


def _timeline(diagnosis: Diagnosis, width: int, folded: bool = False
              ) -> Iterator[RenderableType]:
    """Key events per rank; ``folded`` (the default view) keeps the first lanes and the first
    events of each, and counts the rest."""
    lanes = key_events(diagnosis)
    if not lanes:
        return
    hidden_lanes = 0
    if folded:
        hidden_lanes = max(len(lanes) - FOLDED_LANES, 0)
        lanes = [replace(lane, events=lane.events[:FOLDED_EVENTS],
                         more=lane.more + max(len(lane.events) - FOLDED_EVENTS, 0))
                 for lane in lanes[:FOLDED_LANES]]
    stamps = {e.ts.date() for lane in lanes for e in lane.events if e.ts is not None}
    same_day = len(stamps) <= 1
    yield Text("")
    yield Rule(Text(tr(diagnosis.lang, "TIMELINE (key events per rank)"), style="bold"),
               align="left",
               characters="─")
    for lane in lanes:
        yield Text(neutralize(lane.name, keep_newlines=False), style="bold")
        rows = []
        previous = None
        for event in lane.events:
            delta = seconds_between(previous, event.ts) if previous and event.ts else None
            previous = event.ts or previous
            rows.append((_clock(event.ts, same_day),
                         "" if delta is None else fmt_duration(delta, signed=True),
                         fit(event.label, 22), event))
        clock_w = max(len(r[0]) for r in rows)
        delta_w = max(len(r[1]) for r in rows)
        label_w = max(cell_len(r[2]) for r in rows)
        for clock, delta, label, event in rows:
            line = Text(f"  {clock:<{clock_w}} ")
            line.append(f"{delta:>{delta_w}} ", style=DIM)
            line.append(pad(label, label_w) + " ", style=_KIND_STYLES.get(event.kind, ""))
            room = max(width - line.cell_len, 10)
            line.append(fit(event.message, room))
            yield line
        if lane.more:
            yield Text(count(diagnosis.lang, lane.more, "  … {n} more key event",
                             "  … {n} more key events"), style=DIM)
    if hidden_lanes:
        yield Text(tr(diagnosis.lang, "… {n} more ranks (--all shows every rank)",
                      n=hidden_lanes), style=DIM)
