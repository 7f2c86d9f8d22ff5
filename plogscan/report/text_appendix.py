"""The sections at the end of the terminal report, after the findings and the timeline.

Findings a baseline suppressed (and baseline entries that expired), the first ERROR templates
no finding explains, ingest health (what was read, skipped, or read with problems) and the
codes found in the evidence with their meanings. Every fixed word is in the diagnosis
language (``plogscan.report.i18n``); log text and paths are neutralized.
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.console import RenderableType
from rich.padding import Padding
from rich.rule import Rule
from rich.table import Table

from plogscan.model import Diagnosis, FileStats
from plogscan.report.i18n import count, ingest_text, level_word, listing, tr, verdict_word
from plogscan.report.text_finding import DIM, fit, numbered
from plogscan.report.view import (
    expired_entries,
    fmt_ts,
    join_ints,
    scope_parts,
    suppressed,
    suppression_reason,
)
from plogscan.report.wrap import Text
from plogscan.textsafe import neutralize

MAX_FILES = 20
MAX_UNEXPLAINED = 5


def _heading(text: str) -> Rule:
    return Rule(Text(text, style="bold"), align="left", characters="─")


def suppressed_section(diagnosis: Diagnosis) -> Iterator[RenderableType]:
    lang = diagnosis.lang
    found = suppressed(diagnosis)
    expired = expired_entries(diagnosis)
    if not found and not expired:
        return
    yield Text("")
    yield _heading(tr(lang, "SUPPRESSED BY BASELINE ({n})", n=len(found)))
    for finding in found:
        line = Text(f"{neutralize(finding.rule)}  ", style="bold")
        line.append(neutralize(finding.title))
        facts = [level_word(lang, finding.level), verdict_word(lang, finding.verdict),
                 *scope_parts(finding.scope, lang)]
        line.append("  " + tr(lang, "({facts})", facts=" · ".join(facts)), style=DIM)
        reason = suppression_reason(diagnosis, finding.fingerprint)
        text = "\n" + tr(lang, "fingerprint {fingerprint}",
                         fingerprint=neutralize(finding.fingerprint))
        if reason:
            text += tr(lang, " · reason: {reason}", reason=neutralize(reason))
        line.append(text, style=DIM)
        yield Padding(line, (0, 0, 0, 2))
    for entry in expired:
        yield Text(neutralize(tr(
            lang, "warning: baseline entry {fingerprint} ({rule}: {title}) expired on {date}; "
            "it no longer suppresses anything", fingerprint=entry.get("fingerprint"),
            rule=entry.get("rule"), title=entry.get("title"), date=entry.get("expires"))),
            style="yellow")


def file_problems(stats: FileStats, lang: str = "en") -> list[str]:
    """What went wrong while reading one file, in words (empty when nothing did)."""
    counters = (
        (stats.unparsed_lines, "{n} unparsed line", "{n} unparsed lines"),
        (stats.decode_errors, "{n} invalid UTF-8 sequence", "{n} invalid UTF-8 sequences"),
        (stats.nul_bytes, "{n} NUL byte", "{n} NUL bytes"),
        (stats.control_bytes, "{n} control byte", "{n} control bytes"),
        (stats.truncated_lines, "{n} line cut at 1022+ chars", "{n} line cut at 1022+ chars"),
        (stats.invalid_timestamps, "{n} invalid timestamp", "{n} invalid timestamps"),
        (stats.epoch_clock_records, "{n} record with an unsynchronised 1970 clock",
         "{n} records with an unsynchronised 1970 clock"),
    )
    words = [count(lang, n, one, many) for n, one, many in counters if n]
    return words + [ingest_text(lang, p) for p in stats.problems]


def unread_paths_section(diagnosis: Diagnosis) -> Iterator[RenderableType]:
    """The paths named on the command line that could not be read, with the system's reason.
    Shown whatever ``--details`` says: they are why the exit code is 2."""
    lang = diagnosis.lang
    errors = diagnosis.inputs.errors
    if not errors:
        return
    yield Text("")
    yield Text(tr(lang, "Named paths that could not be read"), style="bold red")
    yield Padding(numbered([tr(lang, "{path}: {reason}", path=e.path,
                               reason=ingest_text(lang, e.reason))
                            for e in errors], bullet="-"), (0, 0, 0, 2))


def ingest_health(diagnosis: Diagnosis) -> Iterator[RenderableType]:
    lang = diagnosis.lang
    inputs = diagnosis.inputs
    yield Text("")
    yield _heading(tr(lang, "INGEST HEALTH"))
    yield Text(" · ".join((
        tr(lang, "{files} read", files=count(lang, len(inputs.files), "{n} file", "{n} files")),
        count(lang, inputs.lines, "{n} line", "{n} lines"),
        count(lang, inputs.records, "{n} record", "{n} records"),
        count(lang, inputs.unparsed_lines, "{n} unparsed line", "{n} unparsed lines"),
        tr(lang, "{n} skipped", n=len(inputs.skipped)))))
    if inputs.skipped:
        yield Text(tr(lang, "Skipped files"), style="bold")
        yield Padding(numbered([tr(lang, "{path}: {reason}", path=s.path,
                                   reason=ingest_text(lang, s.reason))
                                for s in inputs.skipped], bullet="-"), (0, 0, 0, 2))
    troubled = [(f, file_problems(f, lang)) for f in sorted(inputs.files, key=lambda f: f.path)]
    troubled = [(f, words) for f, words in troubled if words]
    if troubled:
        yield Text(tr(lang, "Files with problems"), style="bold")
        yield Padding(numbered([tr(lang, "{path}: {reason}", path=f.path,
                                   reason=listing(lang, words))
                                for f, words in troubled[:MAX_FILES]], bullet="-"),
                      (0, 0, 0, 2))
        if len(troubled) > MAX_FILES:
            yield Text(tr(lang, "  … and {n} more files", n=len(troubled) - MAX_FILES),
                       style=DIM)
    if not inputs.skipped and not troubled and not inputs.errors:
        yield Text(tr(lang, "every line of every file was read and parsed"), style=DIM)


def unexplained_section(diagnosis: Diagnosis, width: int, limit: int = MAX_UNEXPLAINED
                        ) -> Iterator[RenderableType]:
    """The first few ERROR templates no finding explains (``Diagnosis.unexplained``)."""
    lang = diagnosis.lang
    templates = diagnosis.unexplained
    if not templates:
        return
    yield Text("")
    shown = templates[:limit]
    yield _heading(tr(lang, "UNEXPLAINED ERRORS (top {shown} of {total}, earliest first)",
                      shown=len(shown), total=count(lang, len(templates), "{n} template",
                                                    "{n} templates")))
    for index, t in enumerate(shown, 1):
        head = Text(f"{index:>2}. ", style="bold")
        head.append(fit(t.template, max(width - 4, 10)))
        yield head
        processes = t.processes
        ranks = t.ranks
        spread = tr(lang, "ranks {ranks}" if len(ranks) > 1 else "rank {ranks}",
                    ranks=join_ints(ranks)) if ranks else \
            tr(lang, "{n} process" if processes == 1 else "{n} processes", n=processes)
        facts = [f"{t.count:,}×", spread, tr(lang, "first {ts}", ts=fmt_ts(t.first_ts))]
        if t.module:
            facts.append(neutralize(t.module, keep_newlines=False))
        yield Text("    " + " · ".join(facts), style=DIM)
        example = t.example
        where = f"{neutralize(example.path, keep_newlines=False)}:{example.line}"
        room = max(width - 9, 10)
        if len(where) > room:  # keep the file name and line: cut the path from the left
            where = "…" + where[len(where) - room + 1:]
        yield Text("    " + tr(lang, "e.g. {where}", where=where), style=DIM)
        yield Text("         " + fit(example.message, max(width - 9, 10)))
    overflow = diagnosis.unexplained_overflow
    if overflow:
        yield Text(tr(lang, "  … {n} more ERROR records in templates not kept",
                      n=f"{overflow:,}"), style=DIM)


def codes_section(diagnosis: Diagnosis) -> Iterator[RenderableType]:
    """The codes in the findings' evidence and what they mean (``Diagnosis.codes``)."""
    codes = diagnosis.codes
    if not codes:
        return
    yield Text("")
    yield _heading(tr(diagnosis.lang, "CODES ({n})", n=len(codes)))
    grid = Table.grid(padding=(0, 2, 0, 0))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for code, meaning in sorted(codes.items()):
        grid.add_row(neutralize(str(code), keep_newlines=False),
                     Text(neutralize(meaning or tr(diagnosis.lang, "not in the code tables"),
                                     keep_newlines=False), style="" if meaning else DIM))
    yield Padding(grid, (0, 0, 0, 2))


MAX_CODES_NAMED = 3  # codes named in the one-line summary


def appendix_summary(diagnosis: Diagnosis) -> Iterator[RenderableType]:
    """One line for each appendix section (unexplained errors, ingest health, codes), pointing
    at ``--details``, which shows them in full."""
    lang = diagnosis.lang
    rows: list[tuple[str, str]] = []
    templates = diagnosis.unexplained
    if templates:
        records = sum(t.count for t in templates)
        rows.append((tr(lang, "Unexplained errors"), tr(
            lang, "{templates} ({records})",
            templates=count(lang, len(templates), "{n} template", "{n} templates"),
            records=count(lang, records, "{n} record", "{n} records"))))
    inputs = diagnosis.inputs
    troubled = sum(1 for f in inputs.files if file_problems(f, lang))
    health = [tr(lang, "{files} read", files=count(lang, len(inputs.files), "{n} file",
                                                    "{n} files")),
              tr(lang, "{n} skipped", n=len(inputs.skipped)),
              count(lang, inputs.unparsed_lines, "{n} unparsed line", "{n} unparsed lines")]
    if troubled:
        health.append(count(lang, troubled, "{n} file with problems", "{n} files with problems"))
    rows.append((tr(lang, "Ingest health"), " · ".join(health)))
    codes = diagnosis.codes
    if codes:
        named = ", ".join(neutralize(str(c), keep_newlines=False)
                          for c in sorted(codes)[:MAX_CODES_NAMED])
        more = tr(lang, ", … ({n} in all)", n=len(codes)) if len(codes) > MAX_CODES_NAMED else ""
        rows.append((tr(lang, "Codes"), tr(lang, "{codes}: their meanings with --details",
                                           codes=named + more)))
    yield Text("")
    yield _heading(tr(lang, "DETAILS (--details shows each in full)"))
    grid = Table.grid(padding=(0, 2, 0, 0))
    grid.add_column(no_wrap=True, style="bold")
    grid.add_column(overflow="fold")
    for key, value in rows:
        grid.add_row(Text(key), Text(value))
    yield Padding(grid, (0, 0, 0, 2))
