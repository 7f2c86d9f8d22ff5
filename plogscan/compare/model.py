"""The result of comparing two runs (``Comparison``): frozen values, no I/O.

The reporters of ``compare.report`` see these values only. A run is ``GOOD`` (the passing
one, the reference) or ``BAD`` (the failing one). Times are as the logs wrote them, on the
clock of the run's reference host (``crossrank.clock``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

GOOD = "good"
BAD = "bad"


def other(run: str) -> str:
    return BAD if run == GOOD else GOOD


@dataclass(frozen=True)
class Slot:
    """Where a process stands in its run, to match it with the other run's process: its rank
    (``nth`` counts the processes of one rank, in the order they started: a restarted job has
    several), else its place among the processes that name no rank (``rank`` None)."""

    rank: int | None
    nth: int

    def order(self) -> tuple[bool, int, int]:
        return (self.rank is None, self.rank or 0, self.nth)


@dataclass(frozen=True)
class Process:
    """One process of a run: its slot and who it is in that run."""

    slot: Slot
    host: str | None
    pid: int | None
    device: int | None
    failing: bool  # it logged an ERROR record or holds a finding at error or above
    records: int


@dataclass(frozen=True)
class Line:
    """An evidence record of one run."""

    run: str
    slot: Slot | None  # the process it belongs to (None: no known process)
    path: str
    line: int
    ts: datetime | None
    level: str | None
    module: str | None
    message: str


@dataclass(frozen=True)
class Side:
    """One of the two runs as read."""

    run: str
    path: str  # as the user named it
    processes: tuple[Process, ...]  # in slot order
    records: int  # records folded into templates
    templates: int  # distinct templates kept
    findings: int
    dropped_templates: int = 0  # templates past the cap: not compared
    dropped_records: int = 0  # their records
    unattributed: int = 0  # records of no known process: not compared

    @property
    def failing(self) -> int:
        return sum(p.failing for p in self.processes)


@dataclass(frozen=True)
class TemplateDiff:
    """A message template that one run (``run``) logged and the other did not, or logged in
    fewer of its processes."""

    template: str
    run: str
    failing: int  # failing processes of ``run`` that logged it
    processes: int  # processes of ``run`` that logged it
    other: int  # processes of the other run that logged it
    records: int
    other_records: int
    score: float  # share of ``run``'s failing processes (BAD) or processes (GOOD) minus
    # the share of the other run's processes: 1.0 separates the runs completely
    first_ts: datetime | None  # its first record in ``run``
    slots: tuple[Slot, ...]  # the processes of ``run`` that logged it (the first 1,024)
    evidence: tuple[Line, ...]

    @property
    def only(self) -> bool:
        """No process of the other run logged it."""
        return self.other == 0


@dataclass(frozen=True)
class Logged:
    """A template at a point of one process, with the record that first logged it there."""

    template: str
    line: Line


@dataclass(frozen=True)
class Divergence:
    """Where the process of one slot logs something else in the two runs: the templates in
    the order each process first logged them agree for ``common`` templates, then differ
    (``good`` and ``bad``, None where that process logged no more); ``only_bad`` is the first
    template the BAD process logged that the GOOD one never did."""

    slot: Slot
    common: int
    good: Logged | None
    bad: Logged | None
    only_bad: Logged | None


@dataclass(frozen=True)
class ValueDiff:
    """An error code, a level or a module that only one run has."""

    kind: str  # code | level | module
    value: str
    run: str
    processes: int
    records: int
    meaning: str | None  # a code's one-line meaning in the comparison's language
    evidence: tuple[Line, ...]


@dataclass(frozen=True)
class SettingValue:
    value: str | None  # None: the processes of ``slots`` did not print it
    slots: tuple[Slot, ...]
    evidence: tuple[Line, ...]


@dataclass(frozen=True)
class SettingDiff:
    """A setting (``HCCL_*``, a log-level variable) whose values differ between the runs."""

    key: str
    good: tuple[SettingValue, ...]
    bad: tuple[SettingValue, ...]


@dataclass(frozen=True)
class FindingDiff:
    """Findings of one rule and verdict that only one run has."""

    run: str
    rule: str
    name: str
    title: str
    level: str
    verdict: str
    count: int
    ranks: tuple[int, ...]
    first_ts: datetime | None
    evidence: tuple[Line, ...]


@dataclass(frozen=True)
class Comparison:
    """Everything ``plogscan diff`` found, in the order it reports it."""

    good: Side
    bad: Side
    templates: tuple[TemplateDiff, ...]  # BAD's first (most consistent first), then GOOD's
    divergences: tuple[Divergence, ...]  # in slot order
    values: tuple[ValueDiff, ...]  # BAD's first
    settings: tuple[SettingDiff, ...]  # by key
    findings: tuple[FindingDiff, ...]  # BAD's first, most severe first
    unmatched: tuple[tuple[str, Slot], ...] = ()  # processes with no counterpart in the other
    lang: str = "en"

    @property
    def differs(self) -> bool:
        return bool(self.templates or self.divergences or self.values or self.settings
                    or self.findings or self.unmatched)

    def side(self, run: str) -> Side:
        return self.bad if run == BAD else self.good

    def templates_of(self, run: str) -> tuple[TemplateDiff, ...]:
        return tuple(t for t in self.templates if t.run == run)
