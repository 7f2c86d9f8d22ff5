"""The key events of a run, lane by lane: what the terminal report's timeline shows.

A lane is one rank (``rank N``) when the rank is known, else one process (``host pid P``), else
one file: the same lane key as the HTML swimlane. Its key events are the first error, the
steps of every matched finding (the flagship's reuse -> fault, for example; a fallback's only
when it leads an incident) and the first timeouts, in time order, capped so the timeline
stays compact. Records come from ``Diagnosis.events`` and the findings' evidence, which are
small by construction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from plogscan.headline import STRUCTURE, headline
from plogscan.model import Diagnosis, EventRow, Evidence, Verdict
from plogscan.report.i18n import step_word, tr
from plogscan.report.view import report_findings

# "timeout", "time out", "timed out"; not "...WithTimeout" (an API name) or "HCCL_EXEC_TIMEOUT".
TIMEOUT_RE = re.compile(r"\btime[sd]?[ -]?out", re.IGNORECASE)
TIMEOUT_CODES = frozenset({"507014", "507034", "507046", "507047", "507048", "507915",
                           "107019", "107020", "207020", "EI0002", "EI0006", "EI0015"})
ERROR_LEVELS = frozenset({"ERROR", "CRITICAL", "FATAL"})
STRUCTURE_RE = re.compile(STRUCTURE)
MAX_PER_LANE = 10
MAX_STEPS_PER_FINDING = 6
MAX_TIMEOUTS_PER_LANE = 2


@dataclass(frozen=True)
class KeyEvent:
    """One line of the timeline."""

    ts: datetime | None
    kind: str  # "step" | "first-error" | "timeout"
    label: str  # "CCU001 reuse", "first error", "timeout" (in the diagnosis language)
    path: str
    line: int
    message: str


@dataclass(frozen=True)
class Lane:
    """One rank's (or process's, or file's) key events, and how many were left out."""

    name: str
    events: tuple[KeyEvent, ...]
    more: int = 0


def lane_of(rank: int | None, host: str | None, pid: int | None, path: str) -> tuple:
    """Sort key and name of the lane a record belongs to."""
    if rank is not None:
        return (0, rank, "", f"rank {rank}")
    if pid is not None:
        return (1, pid, host or "", f"{host + ' ' if host else ''}pid {pid}")
    return (2, 0, path, path)


def _is_timeout(event: EventRow) -> bool:
    return bool(TIMEOUT_RE.search(event.message)) or any(c in TIMEOUT_CODES for c in event.codes)


def _time_key(event: KeyEvent) -> tuple:
    return (event.ts is None, event.ts or datetime.min, event.path, event.line)


def _lane(item: EventRow | Evidence) -> tuple:
    return lane_of(item.rank, item.host, item.pid, item.path)


def _structure(message: str) -> bool:
    """A record named by structure alone (a table's ruler or column header no table took in)
    is no error of its own."""
    return bool(STRUCTURE_RE.search(headline(message)))


def key_events(diagnosis: Diagnosis) -> list[Lane]:
    """The lanes in lane order, each with its key events in time order."""
    lang = diagnosis.lang
    lanes: dict[tuple, dict[tuple[str, int], KeyEvent]] = {}

    def add(lane: tuple, event: KeyEvent) -> None:
        lanes.setdefault(lane, {}).setdefault((event.path, event.line), event)

    # Finding steps first, so a record that is both a step and the first error keeps its step.
    # A fallback's reading of a record another finding explains adds no event of its own.
    roots = {incident.root for incident in diagnosis.incidents}
    for finding in report_findings(diagnosis):
        if finding.verdict is not Verdict.MATCH or (
                finding.role == "fallback" and finding.id not in roots):
            continue
        for ev in finding.evidence[:MAX_STEPS_PER_FINDING]:
            add(_lane(ev), KeyEvent(ev.ts, "step", f"{finding.rule} {step_word(lang, ev.step)}",
                                    ev.path,
                                    ev.line, ev.message))
    first_error: dict[tuple, EventRow] = {}
    timeouts: dict[tuple, list[EventRow]] = {}
    for event in diagnosis.events:  # already in (ts, path, line) order
        lane = _lane(event)
        if ((event.level or "").upper() in ERROR_LEVELS and lane not in first_error
                and not _structure(event.message)):
            first_error[lane] = event
        if _is_timeout(event) and len(timeouts.setdefault(lane, [])) < MAX_TIMEOUTS_PER_LANE:
            timeouts[lane].append(event)
    for lane, event in first_error.items():
        add(lane, KeyEvent(event.ts, "first-error", tr(lang, "first error"), event.path,
                           event.line, event.message))
    for lane, events in timeouts.items():
        for event in events:
            add(lane, KeyEvent(event.ts, "timeout", tr(lang, "timeout"), event.path,
                               event.line, event.message))
    result = []
    for lane in sorted(lanes):
        events = sorted(lanes[lane].values(), key=_time_key)
        result.append(Lane(lane[3], tuple(events[:MAX_PER_LANE]),
                           max(len(events) - MAX_PER_LANE, 0)))
    return result
