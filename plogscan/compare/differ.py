"""Two read runs -> their ``Comparison``, in two steps: the numbers, then the evidence.

``Plan`` works out every difference from the runs' folded tables (``spread``,
``divergence``), their settings (the values the configuration check reads, per process:
``crossrank.config``) and their findings, and notes the records its evidence needs
(``Plan.wanted``: path and line per run). Once those are read (``evidence``),
``Plan.comparison`` builds the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

import numpy as np

from plogscan.codes import describe
from plogscan.compare.divergence import Split, Step, splits
from plogscan.compare.evidence import MAX_MESSAGE, Record
from plogscan.compare.model import (
    BAD,
    GOOD,
    Comparison,
    Divergence,
    FindingDiff,
    Line,
    Logged,
    SettingDiff,
    SettingValue,
    Side,
    Slot,
    TemplateDiff,
    ValueDiff,
    other,
)
from plogscan.compare.runs import Run
from plogscan.compare.spread import (
    First,
    Ranked,
    first_records,
    only_in,
    ranked_bad,
    ranked_good,
    spreads,
)
from plogscan.crossrank.config import PER_RANK
from plogscan.model import ROLE_RANK, Evidence, Finding, Level

MAX_TEMPLATES = 200  # templates listed per direction
MAX_VALUES = 200  # codes, levels or modules listed per kind and run
TEMPLATE_EVIDENCE = 3  # records shown per template (its first, in that many processes)
MAX_SLOTS = 1024  # processes named per template (the first to log it); all are counted
FINDING_EVIDENCE = 3
_EPOCH = datetime(1970, 1, 1)

Found = Mapping[str, Mapping[tuple[str, int], Record]]  # run -> (path, line) -> record


class Plan:
    """The differences of two runs, before their evidence records are read."""

    def __init__(self, good: Run, bad: Run, lang: str = "en") -> None:
        self.runs = {GOOD: good, BAD: bad}
        self.lang = lang
        self.wanted: dict[str, set[tuple[str, int]]] = {GOOD: set(), BAD: set()}
        failing = {run: np.array([p.failing for p in r.processes], bool)
                   for run, r in self.runs.items()}
        tables = {run: r.profile.tables for run, r in self.runs.items()}
        spread = {run: spreads(tables[run]["template"], failing[run]) for run in self.runs}
        counts = {run: len(r.processes) for run, r in self.runs.items()}
        self.ranked = {
            BAD: ranked_bad(spread[BAD], spread[GOOD], counts[BAD], int(failing[BAD].sum()),
                            counts[GOOD])[:MAX_TEMPLATES],
            GOOD: ranked_good(spread[GOOD], spread[BAD], counts[GOOD],
                              counts[BAD])[:MAX_TEMPLATES]}
        # the processes that logged each listed template, the first few as its evidence
        self.holders = {run: first_records(tables[run]["template"],
                                           (r.value for r in self.ranked[run]),
                                           min(counts[run], MAX_SLOTS))
                        for run in self.runs}
        for run, held in self.holders.items():
            self._want(run, {value: firsts[:TEMPLATE_EVIDENCE] for value, firsts in held.items()})
        self.distinct = {run: len(spread[run]) for run in self.runs}
        slots = {run: {p.slot: i for i, p in enumerate(r.processes)}
                 for run, r in self.runs.items()}
        self.unmatched = tuple((run, slot) for run in (BAD, GOOD)
                               for slot in sorted(set(slots[run]) - set(slots[other(run)]),
                                                  key=Slot.order))
        self.splits = splits(tables[GOOD]["template"], tables[BAD]["template"], slots[GOOD],
                             slots[BAD])
        for split in self.splits:
            for run, step in ((GOOD, split.good), (BAD, split.bad), (BAD, split.only_bad)):
                if step is not None:
                    self._want(run, {step.value: [step.first]})
        self.values = self._values(tables, failing)
        self.settings = self._settings()

    # ------------------------------------------------------------------ the numbers

    def _want(self, run: str, firsts: dict[str, list[First]]) -> dict[str, list[First]]:
        for found in firsts.values():
            self.wanted[run].update((f.path, f.line) for f in found)
        return firsts

    def _values(self, tables: dict, failing: dict) -> list[tuple[str, str, str, object, list]]:
        out = []
        for kind in ("code", "level", "module"):
            spread = {run: spreads(tables[run][kind], failing[run]) for run in self.runs}
            for run in (BAD, GOOD):
                only = only_in(spread[run], spread[other(run)])[:MAX_VALUES]
                firsts = self._want(run, first_records(tables[run][kind],
                                                       (v for v, _ in only), 1))
                out += [(kind, value, run, s, firsts.get(value, [])) for value, s in only]
        return out

    def _settings(self) -> list[tuple[str, dict[str, dict[str | None, list]]]]:
        """Per setting whose values differ: run -> value -> [(process, path, line)]."""
        printed = {run: _printed(r) for run, r in self.runs.items()}
        out = []
        for key in sorted(set(printed[GOOD]) | set(printed[BAD])):
            values = {run: printed[run].get(key) or {None: []} for run in self.runs}
            if set(values[GOOD]) == set(values[BAD]):
                continue
            for run, per in values.items():
                for holders in per.values():
                    self.wanted[run].update((path, line) for _, path, line in holders[:1])
            out.append((key, values))
        return out

    # ------------------------------------------------------------------ the result

    def comparison(self, found: Found) -> Comparison:
        """The result, with the evidence records ``found`` (run -> (path, line) -> record)."""
        lines = _Lines(self.runs, found)
        templates = [self._template(run, r, lines) for run in (BAD, GOOD)
                     for r in self.ranked[run]]
        divergences = [_divergence(split, lines) for split in self.splits]
        values = [ValueDiff(kind, value, run, s.processes, s.records,
                            describe(value, self.lang) if kind == "code" else None,
                            tuple(lines.at(run, f) for f in firsts))
                  for kind, value, run, s, firsts in sorted(
                      self.values, key=lambda v: (v[2] != BAD, v[0] != "code", v[0]))]
        settings = [SettingDiff(key, _setting_values(GOOD, values[GOOD], lines),
                                _setting_values(BAD, values[BAD], lines))
                    for key, values in self.settings]
        return Comparison(
            good=self._side(GOOD), bad=self._side(BAD), templates=tuple(templates),
            divergences=tuple(divergences), values=tuple(values), settings=tuple(settings),
            findings=tuple(self._findings(lines)), unmatched=self.unmatched, lang=self.lang)

    def _template(self, run: str, r: Ranked, lines: _Lines) -> TemplateDiff:
        spread = r.spread
        holders = self.holders[run].get(r.value, [])
        return TemplateDiff(
            template=r.value, run=run, failing=spread.failing, processes=spread.processes,
            other=r.other.processes if r.other else 0, records=spread.records,
            other_records=r.other.records if r.other else 0, score=r.score,
            first_ts=_time(spread.first.ts),
            slots=tuple(sorted({lines.slot(run, f.process) for f in holders} - {None},
                               key=Slot.order)),  # type: ignore[arg-type]
            evidence=tuple(lines.at(run, f) for f in holders[:TEMPLATE_EVIDENCE]))

    def _side(self, run: str) -> Side:
        r = self.runs[run]
        return Side(run=run, path=r.path, processes=r.processes, records=r.profile.records,
                    templates=self.distinct[run], findings=len(r.diagnosis.findings),
                    dropped_templates=r.profile.dropped_templates,
                    dropped_records=r.profile.dropped_records,
                    unattributed=r.profile.unattributed)

    def _findings(self, lines: _Lines) -> list[FindingDiff]:
        groups = {run: _finding_groups(r.diagnosis.findings) for run, r in self.runs.items()}
        out: list[tuple[int, FindingDiff]] = []  # (role rank, finding): causes first
        for run in (BAD, GOOD):
            for (rule, verdict), found in groups[run].items():
                if (rule, verdict) in groups[other(run)]:
                    continue
                head = found[0]
                times = [f.first_ts for f in found if f.first_ts is not None]
                out.append((ROLE_RANK.get(head.role, 0), FindingDiff(
                    run=run, rule=rule, name=head.name, title=head.title,
                    level=head.level.value, verdict=verdict, count=len(found),
                    ranks=tuple(sorted({r for f in found for r in f.scope.ranks})),
                    first_ts=min(times) if times else None,
                    evidence=tuple(lines.evidence(run, ev)
                                   for ev in head.evidence[:FINDING_EVIDENCE]))))
        out.sort(key=lambda p: (p[1].run != BAD, -Level(p[1].level).rank, p[0],
                                p[1].first_ts is None, p[1].first_ts or _EPOCH, p[1].rule,
                                p[1].verdict))
        return [f for _, f in out]


class _Lines:
    """Evidence ``Line``s from the records read back and from findings' evidence."""

    def __init__(self, runs: Mapping[str, Run], found: Found) -> None:
        self.runs = runs
        self.found = found

    def slot(self, run: str, process: int) -> Slot | None:
        processes = self.runs[run].processes
        return processes[process].slot if 0 <= process < len(processes) else None

    def line(self, run: str, process: int, path: str, line: int) -> Line:
        record = self.found[run].get((path, line)) or Record(None, None, None, "")
        return Line(run, self.slot(run, process), path, line, record.ts, record.level,
                    record.module, record.message)

    def at(self, run: str, first: First) -> Line:
        return self.line(run, first.process, first.path, first.line)

    def evidence(self, run: str, ev: Evidence) -> Line:
        r = self.runs[run]
        ident = r.context.identity(ev.path, ev.line, ev.pid)
        process = r.index.get(ident.key, -1) if ident is not None else -1
        return Line(run, self.slot(run, process), ev.path, ev.line, ev.ts, ev.level,
                    ev.module, ev.message[:MAX_MESSAGE])


def _setting_values(run: str, values: Mapping[str | None, list[tuple[int, str, int]]],
                    lines: _Lines) -> tuple[SettingValue, ...]:
    """One run's values of a setting, the most widely held first, each with the processes
    that printed it and where the first of them did."""
    out = []
    for value, holders in sorted(values.items(), key=lambda vh: (-len(vh[1]), vh[0] or "")):
        slots = {lines.slot(run, process) for process, _, _ in holders} - {None}
        out.append(SettingValue(value, tuple(sorted(slots, key=Slot.order)),  # type: ignore
                                tuple(lines.line(run, p, path, n) for p, path, n in holders[:1])))
    return tuple(out)


def _divergence(split: Split, lines: _Lines) -> Divergence:
    def logged(run: str, step: Step | None) -> Logged | None:
        return Logged(step.value, lines.at(run, step.first)) if step is not None else None

    return Divergence(split.slot, split.common, logged(GOOD, split.good),
                      logged(BAD, split.bad), logged(BAD, split.only_bad))


def _printed(run: Run) -> dict[str, dict[str | None, list[tuple[int, str, int]]]]:
    """setting -> value -> the processes that printed it (with where), settings that differ
    from rank to rank left out."""
    out: dict[str, dict[str | None, list[tuple[int, str, int]]]] = {}
    for key, per in sorted(run.context.settings.items()):
        process = run.index.get(key)
        if process is None:
            continue
        for name, (value, (path, line)) in sorted(per.items()):
            if name not in PER_RANK:
                out.setdefault(name, {}).setdefault(value, []).append((process, path, line))
    return out


def _finding_groups(findings: tuple[Finding, ...]) -> dict[tuple[str, str], list[Finding]]:
    groups: dict[tuple[str, str], list[Finding]] = {}
    for f in findings:
        groups.setdefault((f.rule, f.verdict.value), []).append(f)
    return groups


def _time(us: int | None) -> datetime | None:
    return None if us is None else _EPOCH + timedelta(microseconds=us)
