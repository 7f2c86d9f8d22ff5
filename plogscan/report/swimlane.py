"""Geometry of the HTML report's rank x time swimlane chart, computed in Python.

The report draws the chart as inline SVG without JavaScript, so every lane, marker, arrow and
tick is placed here; the template only turns these numbers into elements.

Lane key (one lane per key, in this order; ``timeline.lane_of``, shared with the terminal
report): ``rank N`` when the record's rank is known (from its line or, here, from its process);
otherwise ``<host> pid P`` when its pid is known; otherwise its file path.
Lanes come from the process list, the events table and the findings' evidence, so a rank that
logged no error still has a lane. Records without a timestamp get no marker; the chart says how
many were left out. Arrows: each matched finding's evidence step i -> step i+1, and the
root-cause rank's first evidence -> every other rank's first error at or after it.

With the cross-rank analysis (``Diagnosis.crossrank``) every mark sits at its aligned time
(``ts_aligned``: the host clocks' offsets removed), the suspects' lanes are marked ``root`` and
the victims' ``victim``, the wait chain is drawn hop by hop (a peer the input does not contain
gets a lane of its own), and the caption names the reference clock and each host's offset.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise
from typing import NamedTuple

from plogscan.model import Diagnosis, Verdict
from plogscan.report import view
from plogscan.report.i18n import listing, step_word, tr
from plogscan.report.ranks import (
    ERROR_LEVELS,
    WARNING_LEVELS,
    first_errors,
    naive_utc,
    rank_resolver,
)
from plogscan.report.timeline import TIMEOUT_CODES, lane_of

WIDTH = 1000.0  # SVG user units; the SVG scales to the page width through its viewBox
GUTTER = 150.0  # lane labels
RIGHT = 20.0
LANE_HEIGHT = 30.0
TOP = 8.0
AXIS_HEIGHT = 34.0
MAX_LABEL = 22
CHAR_WIDTH = 8.0  # width of a label character (bold capitals and digits) at the chart's size
LABEL_ASCENT = 10.0  # a label's box above and below its baseline
LABEL_DESCENT = 3.0
MAX_MARKERS = 1500  # above this, markers merge over wider time columns (keeps the file small)
MAX_TOOLTIP = 200
# "timeout", "timed out", "time out", "TimeOut"; not the aicore "timeout or trap error" text.
TIMEOUT_RE = re.compile(r"time[sd]?[ _-]?out(?! or trap)", re.IGNORECASE)
# Candidate tick steps in seconds; the smallest one giving at most 8 intervals wins.
_STEPS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30,
          60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400)
# Tick label units: (steps below this many seconds, unit, factor from seconds)
_UNITS = ((1.0, "ms", 1000.0), (60.0, "s", 1.0), (3600.0, "min", 1 / 60))
_DRAW_ORDER = {"warning": 0, "error": 1, "timeout": 2, "step": 3}  # later kinds drawn on top


@dataclass(frozen=True)
class Lane:
    index: int
    kind: str  # "rank" | "process" | "file" | "missing"
    key: str  # full lane name, shown as tooltip
    label: str  # possibly shortened for the gutter
    y: float  # centre line
    role: str = ""  # "root" | "victim" | "" (cross-rank analysis)
    incidents: tuple[str, ...] = ()  # ids of the incidents with evidence in this lane


@dataclass(frozen=True)
class Marker:
    lane: int
    kind: str  # "error" | "warning" | "timeout" | "step"
    x: float
    y: float
    text: str  # tooltip
    label: str = ""  # rule id (and step) written next to a step marker
    label_x: float = 0.0
    label_y: float = 0.0
    anchor: str = "start"
    hover: bool = False  # the label would overlap another: shown only on pointing


@dataclass(frozen=True)
class Arrow:
    kind: str  # "sequence" (evidence step i -> i+1) | "spread" (root-cause rank -> other
    # ranks) | "chain" (a wait chain hop: the waiting rank -> the rank it waits for)
    x1: float
    y1: float
    x2: float
    y2: float
    text: str


@dataclass(frozen=True)
class Tick:
    x: float
    label: str


@dataclass(frozen=True)
class Swimlane:
    width: float
    height: float
    plot_left: float
    plot_right: float
    axis_y: float
    lanes: tuple[Lane, ...]
    markers: tuple[Marker, ...]
    arrows: tuple[Arrow, ...]
    ticks: tuple[Tick, ...]
    start: datetime | None
    span: str
    undrawn: int  # distinct records (path, line) without a timestamp
    clock: str = ""  # the reference clock and each host's offset, for the caption


class _Point(NamedTuple):
    key: tuple
    ts: datetime | None
    kind: str
    text: str
    label: str
    where: tuple[str, int]


def _event_kind(level: str | None, message: str, codes: tuple[str, ...]) -> str | None:
    level = (level or "").upper()
    if level not in ERROR_LEVELS and level not in WARNING_LEVELS:
        return None  # evidence records at other levels are drawn as steps
    if TIMEOUT_RE.search(message) or any(code in TIMEOUT_CODES for code in codes):
        return "timeout"
    return "error" if level in ERROR_LEVELS else "warning"


def _points(diagnosis: Diagnosis) -> tuple[set[tuple], list[_Point], list[list]]:
    resolve = rank_resolver(diagnosis)
    lang = diagnosis.lang

    def key(rank, host, pid, path) -> tuple:
        return lane_of(resolve(rank, host, pid), host, pid, path)

    lanes = {key(p.rank, p.host, p.pid, "") for p in diagnosis.processes}
    points: list[_Point] = []
    for ev in diagnosis.events:
        lanes.add(key(ev.rank, ev.host, ev.pid, ev.path))
        kind = _event_kind(ev.level, ev.message, ev.codes)
        if kind:
            text = f"{ev.level} {ev.path}:{ev.line} {ev.message[:160]}"
            points.append(_Point(key(ev.rank, ev.host, ev.pid, ev.path), _when(ev), kind, text,
                                 "", (ev.path, ev.line)))
    chains = []
    for finding in view.report_findings(diagnosis):
        chain = []
        for item in finding.evidence:
            lane = key(item.rank, item.host, item.pid, item.path)
            lanes.add(lane)
            step = step_word(lang, item.step)
            text = f"{finding.rule} {step}: {item.path}:{item.line} {item.message[:160]}"
            label = finding.rule if item.step == "match" else f"{finding.rule} {step}"
            points.append(_Point(lane, _when(item), "step", text, label, (item.path, item.line)))
            if _when(item) is not None:
                chain.append((lane, naive_utc(_when(item)), step))
        if finding.verdict is Verdict.MATCH:
            chains.append(chain)
    return lanes, points, chains


def _incident_lanes(diagnosis: Diagnosis) -> dict[tuple, list[str]]:
    """Lane -> ids of the incidents whose findings have evidence in it (for highlighting)."""
    diagnosis = view.complete(diagnosis)
    by_id = {f.id: f for f in diagnosis.findings}
    out: dict[tuple, list[str]] = {}
    for incident in diagnosis.incidents:
        for member in incident.members:
            for item in by_id[member].evidence:
                ids = out.setdefault(lane_of(item.rank, item.host, item.pid, item.path), [])
                if incident.id not in ids:
                    ids.append(incident.id)
    return out


def _when(item) -> datetime | None:
    """A record's time on the reference clock when known, else as logged."""
    return item.ts_aligned if item.ts_aligned is not None else item.ts


def layout(diagnosis: Diagnosis, root: tuple[int, datetime] | None) -> Swimlane:
    """Place lanes, markers, arrows and ticks for ``diagnosis``; ``root`` is the summary's
    root-cause rank and the time of its first evidence (spread arrows start there)."""
    lane_keys, points, chains = _points(diagnosis)
    incident_lanes = _incident_lanes(diagnosis)
    roles, hops = _cross_rank(diagnosis)
    lane_keys |= set(roles) | {h for h, _ in hops}
    ordered = sorted(lane_keys)
    lanes = tuple(
        Lane(i, ("rank", "process", "file", "missing")[key[0]], key[-1],
             key[-1] if len(key[-1]) <= MAX_LABEL else "…" + key[-1][1 - MAX_LABEL:],
             TOP + LANE_HEIGHT * i + LANE_HEIGHT / 2, roles.get(key, ""),
             tuple(incident_lanes.get(key, ())))
        for i, key in enumerate(ordered))
    index = {key: i for i, key in enumerate(ordered)}
    axis_y = TOP + LANE_HEIGHT * len(lanes)
    undrawn = len({p.where for p in points if p.ts is None}
                  - {p.where for p in points if p.ts is not None})
    stamps = [naive_utc(p.ts) for p in points if p.ts is not None]
    plot_left, plot_right = GUTTER, WIDTH - RIGHT
    if not stamps:
        return Swimlane(WIDTH, axis_y + AXIS_HEIGHT, plot_left, plot_right, axis_y, lanes, (),
                        (), (), None, "", undrawn)
    start = min(stamps)
    span = (max(stamps) - start).total_seconds()
    scale = (plot_right - plot_left) / (span if span > 0 else 1.0)

    def x_at(offset: float) -> float:
        return round(plot_left + offset * scale, 1)

    def x_of(ts: datetime) -> float:
        return x_at((naive_utc(ts) - start).total_seconds())

    def y_of(key: tuple) -> float:
        return lanes[index[key]].y

    lang = diagnosis.lang
    arrows = _sequence_arrows(chains, x_of, y_of)
    if root is not None:
        arrows += _spread_arrows(diagnosis, root, x_of, y_of)
    arrows += _chain_arrows(hops, points, x_of, y_of, lang)
    return Swimlane(WIDTH, axis_y + AXIS_HEIGHT, plot_left, plot_right, axis_y, lanes,
                    _markers(points, index, lanes, x_of, lang), arrows, _ticks(span, x_at), start,
                    view.fmt_duration(span), undrawn, _clock_caption(diagnosis))


def _cross_rank(diagnosis: Diagnosis) -> tuple[dict[tuple, str], list[tuple[tuple, str]]]:
    """Lane roles (root, victim) and the chain's hops as (lane, label)."""
    xr = diagnosis.crossrank
    if xr is None:
        return {}, []
    rc = xr.root_cause
    roles: dict[tuple, str] = {}
    for v in rc.victims:
        roles[lane_of(v.rank, v.host, v.pid, "")] = "victim"
    for s in rc.suspects:
        if s.present:  # a peer outside the input has no lane
            roles[lane_of(s.rank, s.host, s.pid, "")] = "root"
    hops = []
    for h in rc.chain:
        if h.rank is None and h.host is None:
            hops.append(((3, 0, h.ip or "", tr(diagnosis.lang, "{label} (not in the input)",
                                               label=h.label)), h.label))
        else:
            hops.append((lane_of(h.rank, h.host, None, ""), h.label))
    return roles, hops


def _chain_arrows(hops, points, x_of, y_of, lang: str) -> tuple[Arrow, ...]:
    """One arrow per hop of the wait chain, at the waiting lane's first error or timeout."""
    first: dict[tuple, datetime] = {}
    for p in points:
        if p.ts is not None and p.kind in ("error", "timeout", "step"):
            ts = naive_utc(p.ts)
            if p.key not in first or ts < first[p.key]:
                first[p.key] = ts
    arrows = []
    for (k1, l1), (k2, l2) in pairwise(hops):
        t1 = first.get(k1)
        if t1 is None:
            continue
        t2 = first.get(k2, t1)
        arrows.append(Arrow("chain", x_of(t1), y_of(k1), x_of(max(t1, t2)), y_of(k2),
                            tr(lang, "{waiting} waits for {peer}", waiting=l1, peer=l2)))
    return tuple(arrows)


def _clock_caption(diagnosis: Diagnosis) -> str:
    xr = diagnosis.crossrank
    if xr is None or not xr.clock.offsets:
        return ""
    lang = diagnosis.lang
    parts = [f"{o.host} {o.offset_us / 1e6:+.3f} s ±{o.uncertainty_us / 1e6:.3f} s"
             + tr(lang, " ({text})", text=tr(lang, o.basis)) for o in xr.clock.offsets]
    return tr(lang, "Aligned to the clock of {reference}: {offsets}.",
              reference=xr.clock.reference or "-", offsets=listing(lang, parts))


def _num(value: float) -> str:
    text = f"{round(value, 3):.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _ticks(span: float, x_at) -> tuple[Tick, ...]:
    """Ticks at a round step in one real unit (ms, s, min or h) picked from the span."""
    step = next((s for s in _STEPS if span / s <= 8), _STEPS[-1])
    factor, unit = next(((f, u) for limit, u, f in _UNITS if step < limit), (1 / 3600, "h"))
    count = int(span / step + 1e-9)
    return tuple(Tick(x_at(k * step), f"{_num(k * step * factor)} {unit}")
                 for k in range(count + 1))


def _markers(points, index, lanes, x_of, lang: str) -> tuple[Marker, ...]:
    """One marker per (lane, kind, time column): columns start one unit wide and double until
    at most MAX_MARKERS remain, so thousands of errors stay a small SVG. Each step marker is
    labelled by its rule (``_labelled``)."""
    column_width = 1
    while True:
        cells: dict[tuple[int, str, int], list[tuple[datetime, str, str]]] = {}
        for p in points:
            if p.ts is not None:
                cell = (index[p.key], p.kind, int(x_of(p.ts) // column_width))
                cells.setdefault(cell, []).append((naive_utc(p.ts), p.text, p.label))
        if len(cells) <= MAX_MARKERS or column_width > WIDTH:
            break
        column_width *= 2
    markers = []
    placed: list[tuple[float, float, float, float]] = []  # label boxes drawn so far
    for lane, kind, column in sorted(cells, key=lambda c: (c[0], c[2], _DRAW_ORDER[c[1]])):
        items = sorted(cells[(lane, kind, column)])
        ts, text, label = items[0]
        text = text if len(text) <= MAX_TOOLTIP else text[:MAX_TOOLTIP - 1] + "…"
        if len(items) > 1:
            text = text + tr(lang, " (+{n} more here)", n=len(items) - 1)
        x, y = x_of(ts), lanes[lane].y
        if kind != "step":
            markers.append(Marker(lane, kind, x, y, text))
            continue
        markers.append(_labelled(lane, x, y, text, label, placed))
    markers.sort(key=lambda m: (_DRAW_ORDER[m.kind], m.lane, m.x, m.text))
    return tuple(markers)


def _labelled(lane: int, x: float, y: float, text: str, label: str,
              placed: list[tuple[float, float, float, float]]) -> Marker:
    """A step marker with its label above or below it where the label's box meets no label
    drawn before; else the label shows only while the marker is pointed at."""
    width = CHAR_WIDTH * len(label) + 4
    anchor, left = ("start", x + 7) if x + 7 + width <= WIDTH else ("end", x - 7 - width)
    label_x = x + 7 if anchor == "start" else x - 7
    for dy in (-7.0, 13.0):
        box = (left, y + dy - LABEL_ASCENT, left + width, y + dy + LABEL_DESCENT)
        if all(box[2] <= a[0] or box[0] >= a[2] or box[3] <= a[1] or box[1] >= a[3]
               for a in placed):
            placed.append(box)
            return Marker(lane, "step", x, y, text, label, label_x, y + dy, anchor)
    return Marker(lane, "step", x, y, text, label, label_x, y - 7.0, anchor, hover=True)


def _sequence_arrows(chains, x_of, y_of) -> tuple[Arrow, ...]:
    arrows = set()
    for chain in chains:
        for (k1, t1, s1), (k2, t2, s2) in pairwise(chain):
            x1, x2, y1, y2 = x_of(t1), x_of(t2), y_of(k1), y_of(k2)
            if (x1, y1) != (x2, y2):
                text = f"{s1} → {s2}: {view.fmt_duration((t2 - t1).total_seconds(), signed=True)}"
                arrows.add(Arrow("sequence", x1, y1, x2, y2, text))
    return tuple(sorted(arrows, key=lambda a: (a.x1, a.y1, a.x2, a.y2, a.text)))


def _spread_arrows(diagnosis, root, x_of, y_of) -> tuple[Arrow, ...]:
    lang = diagnosis.lang
    root_rank, root_ts = root[0], naive_utc(root[1])
    arrows = []
    for rank, ts in sorted(first_errors(diagnosis).items()):
        if rank != root_rank and ts >= root_ts:
            text = tr(lang, "rank {root} went wrong first; rank {rank} logged its first error "
                      "{delay} later", root=root_rank, rank=rank,
                      delay=view.fmt_duration((ts - root_ts).total_seconds()))
            arrows.append(Arrow("spread", x_of(root_ts), y_of(lane_of(root_rank, None, None, "")),
                                x_of(ts), y_of(lane_of(rank, None, None, "")), text))
    return tuple(arrows)
