"""The head of the terminal report: inputs, time span, and who the logs show (one line per
process, or per host past ``FOLD_PROCESSES`` processes in the default view)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from plogscan.model import Diagnosis, ProcessInfo
from plogscan.report.i18n import tr
from plogscan.report.text_finding import DIM
from plogscan.report.view import fmt_duration, fmt_ts, int_ranges, seconds_between, time_span
from plogscan.textsafe import neutralize

MAX_PROCESSES = 32
FOLD_PROCESSES = 16  # past this the default view shows one line per host
MAX_HOST_LINES = 16


def plural(count: int, word: str) -> str:
    """``1 host``, ``2 hosts``, with thousands separators."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def _kv(table: Table, key: str, value: str | Text) -> None:
    table.add_row(Text(key, style="bold"), value if isinstance(value, Text) else
                  Text(value, overflow="fold"))


def _hosts_table(procs: Sequence[ProcessInfo]) -> RenderableType:
    """The processes folded to one line per host: its ranks, devices, processes and levels."""
    by_host: dict[str, list[ProcessInfo]] = {}
    for proc in procs:
        by_host.setdefault(proc.host or "-", []).append(proc)
    table = Table(box=None, pad_edge=False, show_edge=False, padding=(0, 2, 0, 0),
                  header_style="bold")
    for name, kwargs in (("HOST", {}), ("RANKS", {"overflow": "fold"}),
                         ("DEVS", {"overflow": "fold"}), ("PROCS", {"justify": "right"}),
                         ("LOG LEVELS", {"overflow": "fold"})):
        table.add_column(name, **kwargs)
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
    return Group(table, Text(f"… and {len(hosts) - MAX_HOST_LINES} more hosts "
                             "(--all lists every process)", style=DIM))


def header(diagnosis: Diagnosis, show_all: bool = False) -> RenderableType:
    inputs = diagnosis.inputs
    grid = Table.grid(padding=(0, 2, 0, 0))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    lang = diagnosis.lang
    _kv(grid, tr(lang, "Inputs"),
        ", ".join(neutralize(p, keep_newlines=False) for p in inputs.paths))
    _kv(grid, tr(lang, "Files"), f"{len(inputs.files)} read · {len(inputs.skipped)} skipped · "
                       f"{plural(inputs.lines, 'line')} · {plural(inputs.records, 'record')} · "
                       f"{plural(inputs.unparsed_lines, 'unparsed line')}")
    first, last = time_span(diagnosis)
    span = "-" if first is None else f"{fmt_ts(first)} → {fmt_ts(last)}"
    if first is not None and last is not None:
        span += f" ({fmt_duration(seconds_between(first, last))})"
    _kv(grid, tr(lang, "Time span"), span)
    procs = diagnosis.processes
    ranks = {p.rank for p in procs if p.rank is not None}
    hosts = {p.host for p in procs if p.host}
    _kv(grid, tr(lang, "Seen"), f"{plural(len(ranks), 'rank')} · {plural(len(hosts), 'host')} · "
                      f"{len(procs)} process{'' if len(procs) == 1 else 'es'}")
    if not procs:
        return grid
    if len(procs) > FOLD_PROCESSES and not show_all:
        return Group(grid, Text(""), _hosts_table(procs))
    table = Table(box=None, pad_edge=False, show_edge=False, padding=(0, 2, 0, 0),
                  header_style="bold")
    for name, kwargs in (("RANK", {"justify": "right"}), ("HOST", {}),
                         ("PID", {"justify": "right"}), ("DEV", {"justify": "right"}),
                         ("LOG LEVELS", {"overflow": "fold"})):
        table.add_column(name, **kwargs)
    ordered = sorted(procs, key=lambda p: (p.rank is None, p.rank or 0, p.host or "", p.pid))
    for proc in ordered[:MAX_PROCESSES]:
        table.add_row("-" if proc.rank is None else str(proc.rank),
                      neutralize(proc.host or "-", keep_newlines=False), str(proc.pid),
                      "-" if proc.device is None else str(proc.device),
                      neutralize(" ".join(proc.levels) or "-", keep_newlines=False))
    parts: list[RenderableType] = [grid, Text(""), table]
    more = len(ordered) - MAX_PROCESSES if len(ordered) > MAX_PROCESSES else 0
    omitted = diagnosis.extra.get("processes_omitted") or 0
    if more or omitted:
        parts.append(Text(f"… and {more + omitted} more processes"
                          + (f" ({omitted} past the {len(procs)} described, only counted)"
                             if omitted else ""), style=DIM))
    return Group(*parts)


