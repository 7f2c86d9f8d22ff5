"""The signals of root-cause localization, each a reason on a process with evidence lines.

``Signals`` reads one attempt's ``Facts`` and wait graph and puts reasons on a board:
``error-vs-timeout``, ``earliest-error``, ``heartbeat``, ``wait-chain``, ``cycle``, ``own-stream``,
``index-mismatch``, ``tag-mismatch``, ``silent-rank``, ``collective-mismatch`` and
``config-mismatch`` (see ``plogscan.crossrank.suspects`` for what each means and weighs).
The reasons' and notes' sentences are in the diagnosis language (``plogscan.crossrank.words``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from plogscan.crossrank.clock import Clock
from plogscan.crossrank.collectives import Divergence
from plogscan.crossrank.facts import Facts
from plogscan.crossrank.graph import WaitGraph, Walk
from plogscan.crossrank.identity import Identities, ProcessKey
from plogscan.crossrank.summary import Summary, TaskState
from plogscan.crossrank.words import say

WEIGHTS = {
    "error-vs-timeout": 3.0, "earliest-error": 2.0, "heartbeat": 3.0, "wait-chain": 2.0,
    "cycle": 3.0, "index-mismatch": 3.0, "tag-mismatch": 1.5, "own-stream": 2.0,
    "silent-rank": 2.0, "collective-mismatch": 3.0, "config-mismatch": 0.5,
}
MAX_EVIDENCE = 3


@dataclass(frozen=True)
class Reason:
    signal: str
    text: str
    evidence: tuple[tuple[str, int], ...]


class Board:
    def __init__(self) -> None:
        self.reasons: dict[ProcessKey, list[Reason]] = {}
        self.group: dict[ProcessKey, object] = {}

    def add(self, key: ProcessKey, signal: str, text: str,
            evidence: tuple[tuple[str, int], ...] = ()) -> None:
        have = self.reasons.setdefault(key, [])
        if not any(r.signal == signal for r in have):
            have.append(Reason(signal, text, evidence[:MAX_EVIDENCE]))

    def score(self, key: ProcessKey) -> float:
        return sum(WEIGHTS[r.signal] for r in self.reasons.get(key, ()))


def _us(delta: int) -> str:
    seconds = abs(delta) / 1e6
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.3f} s"


class Signals:
    def __init__(self, summary: Summary, ids: Identities, clock: Clock, facts: Facts,
                 graph: WaitGraph, lang: str = "en") -> None:
        self.summary, self.ids, self.clock, self.facts, self.graph = (
            summary, ids, clock, facts, graph)
        self.lang = lang
        self.board = Board()
        self.notes: list[str] = []
        self.walks: dict[ProcessKey, Walk] = {}

    def label(self, key: ProcessKey | None) -> str:
        return self.ids.processes[key].label() if key in self.ids.processes else "?"

    def rank_label(self, key: ProcessKey) -> str:
        ident = self.ids.processes[key]
        return f"rank {ident.rank}" if ident.rank is not None else ident.label()

    def first_ts(self, key: ProcessKey) -> int:
        """The aligned time of a process's first error or timeout (late when unknown)."""
        times = [p.ts for p in (*self.facts.errors.get(key, ()), *self.facts.timeouts.get(
            key, ())) if p.ts is not None]
        return min(times) if times else 1 << 62

    def ring(self, cycle: tuple[ProcessKey, ...]) -> list[ProcessKey]:
        """A cycle's members in wait order, from the one that reported first."""
        first = min(cycle, key=lambda k: (self.first_ts(k), k))
        start = cycle.index(first)
        return [*cycle[start:], *cycle[:start]]

    # ------------------------------------------------------------------ signals

    def errors(self) -> None:
        facts = self.facts
        firsts = []
        for key, problems in sorted(facts.errors.items()):
            timed = [p for p in problems if p.ts is not None]
            first = min(timed, key=lambda p: p.ts) if timed else problems[0]  # type: ignore
            self.board.add(key, "error-vs-timeout", say(
                self.lang, "{text}: a real error, not a timeout; it outranks every rank that "
                "only waited", text=first.text), first.evidence)
            if first.ts is not None:
                firsts.append((first.ts, key, first))
        firsts.sort(key=lambda f: (f[0], f[1]))
        if not firsts:
            return
        ts, key, first = firsts[0]
        host = self.ids.processes[key].clock_host
        if len(firsts) == 1:
            if facts.timeouts:
                self.board.add(key, "earliest-error", say(
                    self.lang, "the only non-timeout error of the attempt"), first.evidence)
            return
        ts2, key2, _ = firsts[1]
        margin = self.clock.uncertainty(host) + self.clock.uncertainty(
            self.ids.processes[key2].clock_host)
        if ts2 - ts > margin:
            self.board.add(key, "earliest-error", say(
                self.lang, "the earliest non-timeout error of the attempt on aligned clocks, "
                "{delta} before the next one ({label}; clock uncertainty ±{margin})",
                delta=_us(ts2 - ts), label=self.label(key2), margin=_us(margin)), first.evidence)

    def heartbeats(self) -> None:
        for beat in self.facts.heartbeats:
            key = self._culprit(beat.culprit)
            where = ((beat.stream.path, beat.line),)
            if key is None:
                self.notes.append(say(
                    self.lang, "the cluster heartbeat names {culprit} ({status}), which the "
                    "input does not contain", culprit=beat.culprit, status=beat.status))
                continue
            self.board.add(key, "heartbeat", say(
                self.lang, "HCCL's cluster heartbeat names it ({culprit}, {status})",
                culprit=beat.culprit, status=beat.status or say(self.lang, "abnormal")), where)

    def _culprit(self, text: str) -> ProcessKey | None:
        ip, _, ident_id = text.partition("/")
        number = int(ident_id) if ident_id.strip().isdigit() else None
        members = sorted(self.facts.members)
        tests = (
            lambda i: i.host_ip == ip and number is not None and number in (
                i.phy_device, i.device),
            lambda i: i.host_ip == ip and number is not None and i.rank == number,
            lambda i: i.device_ip == ip,
            lambda i: not ident_id and i.host_ip == ip,
        )
        for test in tests:
            found = [k for k in members if test(self.ids.processes[k])]
            if len(found) == 1:
                return found[0]
        return None

    def waits(self) -> None:
        graph = self.graph
        for key, wait, why in graph.invalid:
            self.notes.append(say(self.lang, "{label} waits for a peer that cannot exist: {why} "
                                  "({where})", label=self.label(key), why=why,
                                  where=f"{wait.stream.path}:{wait.line}"))
        ends: dict[ProcessKey, list[ProcessKey]] = {}
        self.walks = graph.walks()
        done_cycles: set[tuple[ProcessKey, ...]] = set()
        for start in sorted(graph.edges):
            walk = self.walks[start]
            if walk.end == "cycle":
                if walk.cycle in done_cycles:
                    continue
                done_cycles.add(walk.cycle)
                if len(walk.cycle) == 1:
                    self.board.add(walk.cycle[0], "own-stream", say(
                        self.lang, "it waits for its own secondary stream (remote rank: local): "
                        "the task on its other stream never finished"),
                        self._where(walk.cycle[0]))
                elif walk.link_cycle:
                    ring = self.ring(walk.cycle)
                    names = " → ".join(self.label(k) for k in (*ring, ring[0]))
                    for member in walk.cycle:
                        self.board.add(member, "cycle", say(
                            self.lang, "mutual wait at link set-up: {names}", names=names),
                            self._where(member))
                        self.board.group[member] = frozenset(walk.cycle)
                continue
            if walk.last is not None:
                ends.setdefault(walk.last, []).append(start)
        for end, starts in sorted(ends.items()):
            last = self.walks.get(end)
            missing = last.missing if last is not None and last.end == "missing" else None
            victims = [s for s in starts if s != end]
            if missing is not None:
                peer = missing.ip or f"rank {missing.rank}"
                text = say(self.lang, "the chain of waits ends here: it waits for {peer} (rank "
                           "{rank}), which the input does not contain" if missing.ip
                           and missing.rank is not None else "the chain of waits ends here: it "
                           "waits for {peer}, which the input does not contain", peer=peer,
                           rank=missing.rank)
            elif end in self.facts.errors or end not in self.facts.timeouts:
                text = say.count(self.lang, len(victims), "the chain of waits ends here: {n} "
                                 "rank waits for it and it waits for nobody", "the chain of "
                                 "waits ends here: {n} ranks wait for it and it waits for nobody")
            else:
                continue
            if victims:
                text = say(self.lang, "{text} ({labels} and {n} more)" if len(victims) > 4
                           else "{text} ({labels})", text=text, n=len(victims) - 4,
                           labels=", ".join(self.label(v) for v in victims[:4]))
            self.board.add(end, "wait-chain", text, self._where(end, victims))

    def _where(self, key: ProcessKey, others: list[ProcessKey] | None = None
               ) -> tuple[tuple[str, int], ...]:
        out = []
        for k in [key, *(others or [])]:
            edge = self.graph.edges.get(k)
            if edge is not None:
                out.append((edge.wait.stream.path, edge.wait.line))
        return tuple(out)

    def positions(self) -> None:
        by_comm: dict[str, dict[ProcessKey, TaskState]] = {}
        for key, tasks in self.facts.tasks.items():
            for t in tasks:
                comm = t.comm or self.ids.processes[key].world
                if comm:
                    by_comm.setdefault(comm, {}).setdefault(key, t)
        for _comm, firsts in sorted(by_comm.items()):
            if len(firsts) < 2:
                continue
            indexed = {k: t.index for k, t in firsts.items() if t.index is not None}
            if len(set(indexed.values())) > 1:
                low, high = min(indexed.values()), max(indexed.values())
                ahead = sorted(k for k, i in indexed.items() if i == high)
                for key in sorted(k for k, i in indexed.items() if i == low):
                    t = firsts[key]
                    text = ("its failed task is at op index {low} while {ranks} is at {high}: "
                            "{behind} behind (the smallest index is the likely root)"
                            if len(ahead) == 1 else "its failed task is at op index {low} while "
                            "{ranks} are at {high}: {behind} behind (the smallest index is the "
                            "likely root)")
                    behind = say.count(self.lang, high - low, "{n} collective",
                                       "{n} collectives")
                    self.board.add(key, "index-mismatch", say(
                        self.lang, text, low=low, high=high, behind=behind,
                        ranks=", ".join(self.rank_label(k) for k in ahead[:4])),
                        ((t.stream.path, t.line),))
            tags = Counter(t.tag for t in firsts.values())
            if len(tags) > 1:
                (common, n), (_, m) = tags.most_common(2)
                if n > m:
                    for key, t in sorted(firsts.items()):
                        if t.tag != common:
                            self.board.add(key, "tag-mismatch", say(
                                self.lang, "its failed task runs under tag {tag} while the "
                                "others run {common}: a different collective", tag=t.tag,
                                common=common), ((t.stream.path, t.line),))

    def silence(self) -> None:
        facts = self.facts
        waiting = set(facts.timeouts)
        if not waiting:
            return
        comms: dict[str, list[ProcessKey]] = {}
        for key in facts.members:
            for m in self.ids.processes[key].comms:
                comms.setdefault(m.comm, []).append(key)
        first_wait = min((p.ts for ps in facts.timeouts.values() for p in ps
                          if p.ts is not None), default=None)
        for comm, keys in sorted(comms.items()):
            if not waiting & set(keys):
                continue
            for key in sorted(keys):
                if key in waiting or key in facts.errors:
                    continue
                ident = self.ids.processes[key]
                last = self.clock.align(ident, ident.last_ts)
                text = say(self.lang, "rank {rank} of communicator {comm} logged neither an "
                           "error nor a timeout while its peers waited",
                           rank=ident.rank_in(comm), comm=comm)
                if last is not None and first_wait is not None and last < first_wait:
                    text = say(self.lang, "{text}; its last record is {delta} before the first "
                               "timeout", text=text, delta=_us(first_wait - last))
                self.board.add(key, "silent-rank", text, ())

    def odd_ranks(self) -> None:
        div = self.facts.divergence
        if div is not None:
            for key in div.keys:
                self.board.add(key, "collective-mismatch", _divergence_text(
                    div, self.ids.processes[key].rank_in(div.comm), self.lang), div.evidence)
        for mismatch in self.facts.config:
            if len(mismatch.values) < 2 or len(mismatch.values[0].keys) <= len(
                    mismatch.values[1].keys):
                continue
            common = mismatch.values[0].value
            for value in mismatch.values[1:]:
                for key in value.keys:
                    self.board.add(key, "config-mismatch", say(
                        self.lang, "{key} is {value} here and {common} on the other ranks",
                        key=mismatch.key, value=value.value or say(self.lang, "(empty)"),
                        common=common), value.evidence)


def _divergence_text(div: Divergence, rank: int | None, lang: str = "en") -> str:
    mine = next((v for r, v in div.by_rank if r == rank), None)
    if div.kind == "missing" or mine is None:
        return say(lang, "it never entered collective {seq} of communicator {comm}, which the "
                   "other ranks entered", seq=div.seq, comm=div.comm)
    others = Counter(v for r, v in div.by_rank if r != rank and v is not None)
    common = others.most_common(1)[0][0] if others else None
    what = {"op": 0, "count": 1, "dtype": 2}[div.kind]
    theirs = common[what] if common else "?"
    return say(lang, "collective {seq} of communicator {comm}: it entered {kind} {mine} where "
               "the others entered {theirs}", seq=div.seq, comm=div.comm,
               kind=say(lang, div.kind), mine=mine[what], theirs=theirs)
