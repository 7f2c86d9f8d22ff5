"""The terminal report (``--format text``, the default), built from rich renderables.

Sections, top to bottom: header (inputs, time span, ranks/hosts/processes and the log levels
each process wrote), verdict line, the cross-rank root cause (suspects, chain, victims, clock
offsets, attempts, missing ranks: ``text_rootcause``), findings grouped by severity (see
``text_finding``), a
per-rank timeline of key events, findings suppressed by a baseline, the first unexplained
ERROR templates, ingest health, and the codes found in the evidence with their meanings.

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

from rich.console import Console, RenderableType
from rich.padding import Padding
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from plogscan.model import Diagnosis, FileStats, Finding
from plogscan.report.i18n import level_heading, tr
from plogscan.report.text_finding import DIM, LEVEL_STYLES, finding_block, numbered
from plogscan.report.text_header import header, plural
from plogscan.report.text_incidents import (
    answer_section,
    incident_details,
    not_evaluable_section,
)
from plogscan.report.text_rootcause import root_cause_section
from plogscan.report.timeline import key_events
from plogscan.report.view import (
    LEVELS_DESC,
    complete,
    expired_entries,
    fmt_duration,
    fmt_ts,
    join_ints,
    report_findings,
    scope_parts,
    seconds_between,
    suppressed,
    suppression_reason,
    verdict_line,
)
from plogscan.textsafe import neutralize, one_line

DEFAULT_WIDTH = 80
MAX_FILES = 20
MAX_UNEXPLAINED = 5
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
           color: bool = False, show_all: bool = False) -> str:
    """The whole terminal report as a string (ANSI styled only when ``color``).

    By default the answer comes first and the detail is folded (incidents, ``text_incidents``);
    ``show_all`` lists every finding unfolded instead, by level."""
    console = make_console(width or DEFAULT_WIDTH, color)
    for renderable in _sections(complete(diagnosis), verbose, console.width, show_all):
        console.print(renderable)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    lines = (_TRAILING.sub(lambda m: m.group().replace(" ", ""), line)
             for line in output.splitlines())
    return "\n".join(lines) + "\n"


def _sections(diagnosis: Diagnosis, verbose: bool, width: int, show_all: bool
              ) -> Iterator[RenderableType]:
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
    yield from _suppressed(diagnosis)
    yield from _unexplained(diagnosis, width,
                            FOLDED_UNEXPLAINED if not show_all else MAX_UNEXPLAINED)
    yield from _ingest_health(diagnosis)
    yield from _codes(diagnosis)


def _findings(diagnosis: Diagnosis, verbose: bool) -> Iterator[RenderableType]:
    findings = report_findings(diagnosis)
    index = 0
    for level in LEVELS_DESC:
        group = [f for f in findings if f.level is level]
        if not group:
            continue
        yield Text("")
        yield Rule(Text(f"{level_heading(diagnosis.lang, level)} ({len(group)})",
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
    where = (tr(lang, "ranks {ranks}", ranks=_short_list(ranks)) if ranks
             else tr(lang, "pids {pids}", pids=_short_list(pids)) if pids else "")
    return tr(lang, "… {n} more {rule} findings{where} (--verbose or --format json lists all)",
              n=len(rest), rule=rule, where=f" ({where})" if where else "")


def _short_list(values: list[int], limit: int = 12) -> str:
    head = ", ".join(str(v) for v in values[:limit])
    return head + (f", … ({len(values)} in all)" if len(values) > limit else "")


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
                         one_line(event.label, 22), event))
        clock_w = max(len(r[0]) for r in rows)
        delta_w = max(len(r[1]) for r in rows)
        label_w = max(len(r[2]) for r in rows)
        for clock, delta, label, event in rows:
            line = Text(f"  {clock:<{clock_w}} ")
            line.append(f"{delta:>{delta_w}} ", style=DIM)
            line.append(f"{label:<{label_w}} ", style=_KIND_STYLES.get(event.kind, ""))
            room = max(width - len(line), 10)
            line.append(one_line(event.message, room))
            yield line
        if lane.more:
            yield Text(tr(diagnosis.lang, "  … {n} more key events", n=lane.more), style=DIM)
    if hidden_lanes:
        yield Text(tr(diagnosis.lang, "… {n} more ranks (--all shows every rank)",
                      n=hidden_lanes), style=DIM)


def _suppressed(diagnosis: Diagnosis) -> Iterator[RenderableType]:
    found = suppressed(diagnosis)
    expired = expired_entries(diagnosis)
    if not found and not expired:
        return
    yield Text("")
    yield Rule(Text(tr(diagnosis.lang, "SUPPRESSED BY BASELINE ({n})", n=len(found)),
                    style="bold"), align="left",
               characters="─")
    for finding in found:
        line = Text(f"{neutralize(finding.rule)}  ", style="bold")
        line.append(neutralize(finding.title))
        line.append(f"  ({finding.level.value} · {finding.verdict.value}"
                    + "".join(f" · {p}" for p in scope_parts(finding.scope)) + ")", style=DIM)
        reason = suppression_reason(diagnosis, finding.fingerprint)
        line.append(f"\nfingerprint {neutralize(finding.fingerprint)}"
                    + (f" · reason: {neutralize(reason)}" if reason else ""), style=DIM)
        yield Padding(line, (0, 0, 0, 2))
    for entry in expired:
        yield Text(neutralize(
            f"warning: baseline entry {entry.get('fingerprint')} ({entry.get('rule')}: "
            f"{entry.get('title')}) expired on {entry.get('expires')}; it no longer "
            "suppresses anything"), style="yellow")


def file_problems(stats: FileStats) -> list[str]:
    """What went wrong while reading one file, in words (empty when nothing did)."""
    counters = (
        (stats.unparsed_lines, "unparsed line"), (stats.decode_errors, "invalid UTF-8 sequence"),
        (stats.nul_bytes, "NUL byte"), (stats.truncated_lines, "line cut at 1022+ chars"),
        (stats.invalid_timestamps, "invalid timestamp"),
        (stats.epoch_clock_records, "record with an unsynchronised 1970 clock"),
    )
    words = [f"{n:,} {what}{'s' if n != 1 and not what.endswith('chars') else ''}"
             for n, what in counters if n]
    return words + list(stats.problems)


def _ingest_health(diagnosis: Diagnosis) -> Iterator[RenderableType]:
    inputs = diagnosis.inputs
    yield Text("")
    yield Rule(Text(tr(diagnosis.lang, "INGEST HEALTH"), style="bold"), align="left",
               characters="─")
    yield Text(f"{plural(len(inputs.files), 'file')} read · {plural(inputs.lines, 'line')} · "
               f"{plural(inputs.records, 'record')} · "
               f"{plural(inputs.unparsed_lines, 'unparsed line')} · "
               f"{len(inputs.skipped)} skipped")
    if inputs.skipped:
        yield Text("Skipped files", style="bold")
        yield Padding(numbered([f"{s.path}: {s.reason}" for s in inputs.skipped], bullet="-"),
                      (0, 0, 0, 2))
    troubled = [(f, file_problems(f)) for f in sorted(inputs.files, key=lambda f: f.path)]
    troubled = [(f, words) for f, words in troubled if words]
    if troubled:
        yield Text("Files with problems", style="bold")
        yield Padding(numbered([f"{f.path}: {', '.join(words)}" for f, words in
                                troubled[:MAX_FILES]], bullet="-"), (0, 0, 0, 2))
        if len(troubled) > MAX_FILES:
            yield Text(f"  … and {len(troubled) - MAX_FILES} more files", style=DIM)
    if not inputs.skipped and not troubled:
        yield Text("every line of every file was read and parsed", style=DIM)


def _unexplained(diagnosis: Diagnosis, width: int, limit: int = MAX_UNEXPLAINED
                 ) -> Iterator[RenderableType]:
    """The first few ERROR templates no finding explains (``Diagnosis.extra["unexplained"]``)."""
    templates = diagnosis.extra.get("unexplained")
    if not isinstance(templates, list) or not templates:
        return
    yield Text("")
    shown = templates[:limit]
    yield Rule(Text(tr(diagnosis.lang, "UNEXPLAINED ERRORS (top {shown} of {total} templates, "
                       "earliest first)", shown=len(shown), total=len(templates)),
                    style="bold"), align="left", characters="─")
    for index, t in enumerate(shown, 1):
        head = Text(f"{index:>2}. ", style="bold")
        head.append(one_line(t["template"], max(width - 4, 10)))
        yield head
        processes = t["processes"]
        ranks = t["ranks"]
        spread = f"rank{'s' if len(ranks) > 1 else ''} {join_ints(ranks)}" if ranks else \
            f"{processes} process{'' if processes == 1 else 'es'}"
        facts = [f"{t['count']:,}×", spread, f"first {fmt_ts(t['first_ts'])}"]
        if t["module"]:
            facts.append(neutralize(t["module"], keep_newlines=False))
        yield Text("    " + " · ".join(facts), style=DIM)
        example = t["example"]
        where = f"{neutralize(example['path'], keep_newlines=False)}:{example['line']}"
        room = max(width - 9, 10)
        if len(where) > room:  # keep the file name and line: cut the path from the left
            where = "…" + where[len(where) - room + 1:]
        yield Text(f"    e.g. {where}", style=DIM)
        yield Text("         " + one_line(example["message"], max(width - 9, 10)))
    overflow = diagnosis.extra.get("unexplained_overflow")
    if isinstance(overflow, int) and overflow:
        yield Text(f"  … {overflow:,} more ERROR records in templates not kept", style=DIM)


def _codes(diagnosis: Diagnosis) -> Iterator[RenderableType]:
    """The codes in the findings' evidence and what they mean (``Diagnosis.extra["codes"]``)."""
    codes = diagnosis.extra.get("codes")
    if not isinstance(codes, dict) or not codes:
        return
    yield Text("")
    yield Rule(Text(tr(diagnosis.lang, "CODES ({n})", n=len(codes)), style="bold"),
               align="left", characters="─")
    grid = Table.grid(padding=(0, 2, 0, 0))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for code, meaning in sorted(codes.items()):
        grid.add_row(neutralize(str(code), keep_newlines=False),
                     Text(neutralize(meaning or "not in the code tables", keep_newlines=False),
                          style="" if meaning else DIM))
    yield Padding(grid, (0, 0, 0, 2))
