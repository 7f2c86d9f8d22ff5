"""The head of the terminal report: inputs, time span, and who the logs show (one line per
process, or per host past ``FOLD_PROCESSES`` processes in the default view), in the diagnosis
language."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table

from plogscan.model import Diagnosis, ProcessInfo
from plogscan.report.i18n import count, ingest_text, tr
from plogscan.report.text_finding import DIM
from plogscan.report.view import fmt_duration, fmt_ts, int_ranges, seconds_between, time_span
from plogscan.report.wrap import Text
from plogscan.textsafe import neutralize

MAX_PROCESSES = 32
FOLD_PROCESSES = 16  # past this the default view shows one line per host
MAX_HOST_LINES = 16


def _kv(table: Table, key: str, value: str | Text) -> None:
    table.add_row(Text(key, style="bold"), value if isinstance(value, Text) else
                  Text(value, overflow="fold"))


def _hosts_table(procs: Sequence[ProcessInfo], lang: str) -> RenderableType:
    """The processes folded to one line per host: its ranks, devices, processes and levels."""
    by_host: dict[str, list[ProcessInfo]] = {}
    for proc in procs:
        by_host.setdefault(proc.host or "-", []).append(proc)
    table = Table(box=None, pad_edge=False, show_edge=False, padding=(0, 2, 0, 0),
                  header_style="bold")
    for name, kwargs in (("HOST", {}), ("RANKS", {"overflow": "fold"}),
                         ("DEVS", {"overflow": "fold"}), ("PROCS", {"justify": "right"}),
                         ("LOG LEVELS", {"overflow": "fold"})):
        table.add_column(tr(lang, name), **kwargs)
    hosts = sorted(by_host)
    for host in hosts[:MAX_HOST_LINES]:
        group = by_host[host]
        ranks = int_ranges(p.rank for p in group if p.rank is not None) or "-"
        devices = int_ranges(p.device for p in group if p.device is not None) or "-"
        levels = sorted({level for p in group for level in p.levels})
        table.add_row(neutralize(host, keep_newlines=False), ranks, devices, str(len(group)),
                      neutralize(" ".join(levels) or "-", keep_newlines=False))
    if len(hosts) <= MAX_HOST_LINES:
        return table
    return Group(table, Text(tr(lang, "… and {n} more hosts (--all lists every process)",
                                n=len(hosts) - MAX_HOST_LINES), style=DIM))


def header(diagnosis: Diagnosis, show_all: bool = False) -> RenderableType:
    inputs = diagnosis.inputs
    grid = Table.grid(padding=(0, 2, 0, 0))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    lang = diagnosis.lang
    _kv(grid, tr(lang, "Inputs"),
        ", ".join(neutralize(p, keep_newlines=False) for p in inputs.paths))
    if inputs.errors:
        _kv(grid, tr(lang, "Not read"), Text("; ".join(
            tr(lang, "{path}: {reason}", path=neutralize(e.path, keep_newlines=False),
               reason=ingest_text(lang, e.reason)) for e in inputs.errors),
            style="bold red", overflow="fold"))
    _kv(grid, tr(lang, "Files"), " · ".join((
        tr(lang, "{n} read", n=len(inputs.files)), tr(lang, "{n} skipped", n=len(inputs.skipped)),
        count(lang, inputs.lines, "{n} line", "{n} lines"),
        count(lang, inputs.records, "{n} record", "{n} records"),
        count(lang, inputs.unparsed_lines, "{n} unparsed line", "{n} unparsed lines"))))
    first, last = time_span(diagnosis)
    span = "-" if first is None else f"{fmt_ts(first)} → {fmt_ts(last)}"
    if first is not None and last is not None:
        span += f" ({fmt_duration(seconds_between(first, last))})"
    _kv(grid, tr(lang, "Time span"), span)
    procs = diagnosis.processes
    ranks = {p.rank for p in procs if p.rank is not None}
    hosts = {p.host for p in procs if p.host}
    _kv(grid, tr(lang, "Seen"), " · ".join((
        count(lang, len(ranks), "{n} rank", "{n} ranks"),
        count(lang, len(hosts), "{n} host", "{n} hosts"),
        tr(lang, "{n} process" if len(procs) == 1 else "{n} processes", n=len(procs)))))
    if not procs:
        return grid
    if len(procs) > FOLD_PROCESSES and not show_all:
        return Group(grid, Text(""), _hosts_table(procs, lang))
    table = Table(box=None, pad_edge=False, show_edge=False, padding=(0, 2, 0, 0),
                  header_style="bold")
    for name, kwargs in (("RANK", {"justify": "right"}), ("HOST", {}),
                         ("PID", {"justify": "right"}), ("DEV", {"justify": "right"}),
                         ("LOG LEVELS", {"overflow": "fold"})):
        table.add_column(tr(lang, name), **kwargs)
    ordered = sorted(procs, key=lambda p: (p.rank is None, p.rank or 0, p.host or "", p.pid))
    for proc in ordered[:MAX_PROCESSES]:
        table.add_row("-" if proc.rank is None else str(proc.rank),
                      neutralize(proc.host or "-", keep_newlines=False), str(proc.pid),
                      "-" if proc.device is None else str(proc.device),
                      neutralize(" ".join(proc.levels) or "-", keep_newlines=False))
    parts: list[RenderableType] = [grid, Text(""), table]
    more = len(ordered) - MAX_PROCESSES if len(ordered) > MAX_PROCESSES else 0
    omitted = diagnosis.processes_omitted
    if more or omitted:
        parts.append(Text(tr(lang, "… and {n} more processes", n=more + omitted)
                          + (tr(lang, " ({omitted} past the {described} described, only counted)",
                                omitted=omitted, described=len(procs)) if omitted else ""),
                          style=DIM))
    return Group(*parts)


