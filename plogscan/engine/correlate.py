"""Match semantics over the small, ordered set of candidate records of one rule.

Single, threshold and sequence matching live here and only here; ``rules/README.md`` states
the same semantics and ``tests/engine/test_engine.py`` pins them. Input rows are sorted by
(ts, path, line), records without a timestamp last.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from plogscan.catalog.rule import Requires, Sequence, Single, Step, Threshold
from plogscan.engine.partialkeys import fold_partial_keys
from plogscan.engine.words import wanted_records, words
from plogscan.model import Verdict

MAX_PER_STEP = 20  # evidence records kept per step of one finding
_EPOCH = datetime(1, 1, 1)  # orders records without a timestamp (they sort last anyway)
_MISSING = object()


@dataclass
class Row:
    """One candidate record: its columns, the roles (steps) it fills, and their captures."""

    cols: dict[str, Any]
    roles: frozenset[str]
    caps: dict[str, dict[str, str]]
    order: int = 0  # position in (ts, path, line) order

    @property
    def ts(self) -> datetime | None:
        return self.cols["ts"]

    def value(self, name: str, role: str) -> Any:
        """A column, or a capture of the given role (None when absent or empty)."""
        if name in self.cols:
            return self.cols[name]
        return self.caps.get(role, {}).get(name) or None


@dataclass
class Occurrence:
    """What a rule concluded about one group, before it becomes a ``Finding``."""

    verdict: Verdict
    items: list[tuple[str, Row]]  # (step id, record), the evidence
    trigger: Row
    key_steps: list[tuple[str, Row]]  # first record of each step: the fingerprint input
    specials: dict[str, str] = field(default_factory=dict)
    missing: tuple[str, ...] = ()
    description: str | None = None  # replaces the rule's description (not_evaluable)


Check = Callable[[Requires, Any, Any], tuple[bool, str]]


def group_key(row: Row, role: str, by: tuple[str, ...], allow_null: bool) -> Any:
    """The group of ``row`` for ``role``; ``_MISSING`` when a key is missing and nulls are not
    allowed (such a record joins no group). A null ``host`` is never missing: logs collected
    from one machine carry no host name, and they all belong to that one unnamed host."""
    key = tuple(row.value(name, role) for name in by)
    if not allow_null and any((v is None or v == "") and name != "host"
                              for name, v in zip(by, key, strict=True)):
        return _MISSING
    return key


def sort_key(row: Row) -> tuple:
    """The (ts, path, line) order of candidate records; records without a timestamp last."""
    ts = row.cols["ts"]
    return (ts is None, ts or _EPOCH, row.cols["path"] or "", row.cols["line"] or 0)


def single(body: Single, rows: list[Row]) -> list[Occurrence]:
    """One finding per record, or per ``by`` group (see ``SingleGroups``). ``rows`` are in
    ``sort_key`` order."""
    if not body.by:
        return [bundle([row], "match", 1) for row in rows]
    groups = SingleGroups(body.by)
    for row in rows:
        groups.add(row)
    return groups.occurrences()


class _Sample:
    """One group's record count and its first records in (``sort_key``, arrival) order."""

    def __init__(self) -> None:
        self.count = 0
        self.entries: list[tuple[tuple, int, Row]] = []

    def add(self, row: Row, arrival: int, weight: int = 1) -> None:
        self.count += weight
        self.entries.append((sort_key(row), arrival, row))
        if len(self.entries) >= 4 * MAX_PER_STEP:
            self._trim()

    def _trim(self) -> None:
        self.entries.sort(key=lambda e: e[:2])
        del self.entries[MAX_PER_STEP:]

    def first(self) -> tuple:
        return min(e[:2] for e in self.entries)

    def merged(self, other: _Sample) -> _Sample:
        self.count += other.count
        self.entries += other.entries
        self._trim()
        return self

    def rows(self) -> list[Row]:
        self._trim()
        return [row for _, _, row in self.entries]


class SingleGroups:
    """The ``by`` groups of a ``Single`` rule, fed one record at a time in any order.

    A finding shows its group's record count and its first ``MAX_PER_STEP`` records, so only
    those are kept: memory grows with the number of groups, not with the number of records
    (a storm of one error in a long log stays small). A key with nulls (other than ``host``)
    joins the one other group that agrees with it on its non-null fields; when none or several
    do, it is a group of its own. So a pid-less stdout line joins its process's finding when
    that is unambiguous.
    """

    def __init__(self, by: tuple[str, ...]) -> None:
        self.by = by
        self._groups: dict[Any, _Sample] = {}
        self._arrivals = 0

    def add(self, row: Row) -> None:
        self._sample(row).add(row, self._arrivals)
        self._arrivals += 1

    def add_sampled(self, rows: list[Row], positions: Iterable[int], weights: Iterable[int],
                    size: int) -> None:
        """Records of one batch of ``size`` candidates, of which only ``rows`` were kept: each
        at its ``positions`` in the batch, standing for ``weights`` records (see
        ``arrowrows.first_of_groups``, which keeps every group's first records)."""
        for row, position, weight in zip(rows, positions, weights, strict=True):
            self._sample(row).add(row, self._arrivals + int(position), int(weight))
        self._arrivals += size

    def _sample(self, row: Row) -> _Sample:
        key = group_key(row, "match", self.by, True)
        sample = self._groups.get(key)
        if sample is None:
            sample = self._groups[key] = _Sample()
        return sample

    def occurrences(self) -> list[Occurrence]:
        # Groups in the order of their first records, as if all records had come sorted.
        groups = dict(sorted(self._groups.items(), key=lambda item: item[1].first()))
        fold_partial_keys(groups, self.by)
        return [bundle(sample.rows(), "match", sample.count) for sample in groups.values()]


def threshold(body: Threshold, rows: list[Row]) -> list[Occurrence]:
    """One finding per group whose densest window holds at least ``count`` records."""
    groups: dict[Any, list[Row]] = {}
    for row in rows:
        if body.within is not None and row.ts is None:
            continue
        key = group_key(row, "match", body.by, False)
        if key is not _MISSING:
            groups.setdefault(key, []).append(row)
    out = []
    for members in groups.values():
        best = _densest(members, body.within)
        if len(best) >= body.count:
            out.append(bundle(best, "match", len(best)))
    return out


def _densest(rows: list[Row], within: int | None) -> list[Row]:
    """The first window (first to last record <= within) holding the most records."""
    if within is None:
        return rows
    best, lo = (0, 0), 0
    for hi, row in enumerate(rows):
        while _us(row.ts, rows[lo].ts) > within:
            lo += 1
        if hi - lo + 1 > best[1] - best[0]:
            best = (lo, hi + 1)
    return rows[best[0]:best[1]]


def bundle(rows: list[Row], step: str, count: int) -> Occurrence:
    """An occurrence of ``count`` records of which ``rows`` (in ``sort_key`` order) are the
    first: at most ``MAX_PER_STEP`` of them become its evidence, the first its trigger."""
    items = [(step, r) for r in rows[:MAX_PER_STEP]]
    return Occurrence(Verdict.MATCH, items, rows[0], items[:1], {"count": str(count)})


def sequence(body: Sequence, rows: list[Row], requires: Requires | None, check: Check,
             assumed: Callable[[Row], Any] | None = None, lang: str = "en"
             ) -> list[Occurrence]:
    """Ordered steps per group; see ``_Group`` for the state machine.

    Records without a timestamp or without a group key take no part in matching, except the
    records of a file that names no process at all (an excerpt pasted from an issue): with
    ``assumed`` (row -> the file's key, or None) such a file is one group of its own, in line
    order, and the ``within`` window does not apply between records without a time. Unconsumed
    triggers (last-step records) in a group that lacks the ``requires`` evidence, and holds no
    record of an earlier step (which shows that the logs can show it), give one not_evaluable
    occurrence per group. Triggers that cannot be placed in a group do so per
    (host, pid) scope, and only when no other occurrence of the rule covers their host.
    """
    last = body.positive[-1].id
    groups: dict[Any, list[tuple[Row, frozenset[str]]]] = {}
    orphans: list[Row] = []
    for row in rows:
        for role in sorted(row.roles):
            key = group_key(row, role, body.by, False)
            file_key = assumed(row) if assumed is not None and (
                key is _MISSING or row.ts is None) else None
            if file_key is not None:
                key = ("assumed", file_key)
            if key is _MISSING or (row.ts is None and file_key is None):
                if role == last:
                    orphans.append(row)
                continue
            entries = groups.setdefault(key, [])
            if entries and entries[-1][0] is row:
                entries[-1] = (row, entries[-1][1] | {role})
            else:
                entries.append((row, frozenset({role})))
    out: list[Occurrence] = []
    pending: list[list[Row]] = []
    earlier = frozenset(step.id for step in body.positive[:-1])
    for key, entries in groups.items():
        if isinstance(key, tuple) and key[:1] == ("assumed",):  # one file: in line order
            entries.sort(key=lambda e: e[0].cols["line"] or 0)
            for n, (row, _roles) in enumerate(entries):
                row.order = n
        state = _Group(body)
        for row, roles in entries:
            state.feed(row, roles)
        if state.done is not None:
            out.append(state.occurrence(entries))
        elif state.triggers and not any(roles & earlier for _row, roles in entries):
            # A record of an earlier step in the group shows that the logs can show it,
            # whatever its header says (a pasted line has none): the answer is a real "no".
            pending.append(state.triggers)
    if requires is None:
        return out
    out.extend(_not_evaluable(body, pending, requires, check, lang))
    covered = {r.cols["host"] for occ in out for _, r in occ.items}
    scopes: dict[Any, list[Row]] = {}
    for row in orphans:
        host = row.cols["host"]
        if (host is None and not out) or (host is not None and host not in covered):
            scopes.setdefault((host, row.cols["pid"]), []).append(row)
    out.extend(_not_evaluable(body, list(scopes.values()), requires, check, lang))
    return out


def _not_evaluable(body: Sequence, pending: list[list[Row]], requires: Requires,
                   check: Check, lang: str = "en") -> list[Occurrence]:
    last = body.positive[-1].id
    need = body.positive[0].id
    out = []
    for triggers in pending:
        lacking = []
        for row in triggers:
            if requires.when is not None and "when" not in row.roles:
                continue
            if _holds(requires, row):  # the rule holds the evidence it requires
                continue
            ok, scope = check(requires, row.cols["host"], row.cols["pid"])
            if not ok:
                lacking.append((row, scope))
        if not lacking:
            continue
        gap = words(lang, "no {what} were found for {scope}", what=wanted_records(requires, lang),
                    scope=lacking[0][1])
        text = words(lang, "Step '{last}' of this rule occurred ({n}), but {gap}, so it cannot "
                     "be decided whether step '{need}' came before it.", last=last,
                     n=words.count(lang, len(lacking), "{n} record", "{n} records"), gap=gap,
                     need=need)
        note = words(lang, "{gap}; this rule needs them to see step '{need}' before '{last}'",
                     gap=gap, need=need, last=last)
        items = [(last, r) for r, _ in lacking[:MAX_PER_STEP]]
        out.append(Occurrence(Verdict.NOT_EVALUABLE, items, lacking[0][0], items[:1],
                              {"count": str(len(lacking))}, (note, *requires.advice), text))
    return out


def _holds(req: Requires, row: Row) -> bool:
    """Whether a record the rule already holds is itself the evidence ``req`` asks for."""
    c = row.cols
    return ((not req.levels or c.get("level") in req.levels)
            and (not req.modules or c.get("module") in req.modules)
            and (not req.kinds or c.get("kind") in req.kinds))


class _Group:
    """Earliest completion of the positive steps of one group, keeping for each stage (number
    of steps filled) only the partial match with the latest start: it dominates the others for
    both the window and the ``absent`` checks. After completion, later records of the last step
    are kept as further evidence; records of the last step that complete nothing are triggers
    for the not_evaluable check."""

    def __init__(self, body: Sequence) -> None:
        self.body = body
        self.pos: list[Step] = list(body.positive)
        self.absent_before: list[set[str]] = [set() for _ in self.pos]
        k = 0
        for step in body.steps:
            if step.absent:
                self.absent_before[k].add(step.id)
            else:
                k += 1
        self.partial: dict[int, list[tuple[str, Row]]] = {}
        self.done: list[tuple[str, Row]] | None = None
        self.trailing: list[Row] = []
        self.triggers: list[Row] = []

    def feed(self, row: Row, roles: frozenset[str]) -> None:
        last = self.pos[-1].id
        if self.done is not None:
            if last in roles:
                self.trailing.append(row)
            return
        if "until" in roles:
            self.partial.clear()
            return
        within = self.body.within
        for stage in list(self.partial):
            start = self.partial[stage][0][1]
            killed = bool(self.absent_before[stage] & roles)
            timed = row.ts is not None and start.ts is not None
            if killed or (within is not None and timed and _us(row.ts, start.ts) > within):
                del self.partial[stage]
        for stage in sorted(self.partial, reverse=True):
            step = self.pos[stage]
            if step.id not in roles:
                continue
            chain = [*self.partial[stage], (step.id, row)]
            if stage + 1 == len(self.pos):
                self.done = chain
            else:
                self._keep(stage + 1, chain)
            return
        if self.pos[0].id in roles:
            self._keep(1, [(self.pos[0].id, row)])
        elif last in roles:
            self.triggers.append(row)

    def _keep(self, stage: int, chain: list[tuple[str, Row]]) -> None:
        old = self.partial.get(stage)
        if old is None or chain[0][1].order >= old[0][1].order:
            self.partial[stage] = chain

    def occurrence(self, entries: list[tuple[Row, frozenset[str]]]) -> Occurrence:
        assert self.done is not None
        first, trigger = self.done[0][1], self.done[-1][1]
        items = list(self.done)
        for ctx in self.body.context:
            before = [r for r, roles in entries if ctx.id in roles and r.order < first.order]
            items.extend((ctx.id, r) for r in before[-ctx.limit:])
        last = self.pos[-1].id
        items.extend((last, r) for r in self.trailing[: MAX_PER_STEP - 1])
        items.sort(key=lambda item: item[1].order)
        count = 1 + len(self.trailing)
        specials = {"count": str(count)}
        if trigger.ts is not None and first.ts is not None:  # unknown: the text leaves it out
            specials["elapsed"] = format_span(_us(trigger.ts, first.ts))
        return Occurrence(Verdict.MATCH, items, trigger, list(self.done), specials)


def _us(later: datetime | None, earlier: datetime | None) -> int:
    assert later is not None and earlier is not None
    delta = later - earlier
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def format_span(us: int) -> str:
    """Microseconds as ``0.052s``, ``2m03.500s`` or ``1h02m03s``."""
    seconds = us / 1_000_000
    if seconds < 60:
        return f"{seconds:.3f}s"
    minutes, sec = divmod(seconds, 60)
    if minutes < 60:
        return f"{int(minutes)}m{sec:06.3f}s"
    hours, minutes = divmod(int(minutes), 60)
    return f"{hours}h{minutes:02d}m{int(sec):02d}s"
