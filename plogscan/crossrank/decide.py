"""The one decision: the root cause of an attempt, read off its wait graph (docs/crossrank.md).

1. Some processes are ends by what they logged themselves, and their own waits are kept in
   the graph but not followed: one whose real (non-timeout) error comes before its waits, one
   HCCL's cluster heartbeat locates (``Stuck``/``Lost``/``ERROR CQE``), one the others are
   ahead of (a smaller op index, a minority tag, a collective it never entered).
2. From every process that failed, the waits are followed to their ends (``graph.ends``).
3. Each end is classed by the first rule that holds, in this order: ``error`` (it logged a real
   error), ``heartbeat`` (the heartbeat locates it), ``behind``, ``own-stream`` (it waits only
   for its own secondary stream), ``silent`` (it logged nothing while others waited for it),
   ``cycle`` (a cycle of link set-up waits: a mutual wait), ``missing`` (a peer the input does
   not contain: collect its logs). A missing peer reached by one failed link alone names that
   link (``link``): its end in the input first, then the peer. An end that only timed out and
   whose waits lead nowhere, and a ring of Notify Waits, single out nobody: they are notes.
4. Suspect groups are ordered by that class; errors by the earliest on aligned clocks, the
   others by their support. Support counts the independent agreeing evidence: the processes
   whose waits lead there, and the end's own signal. Confidence is the strength of the
   support (``1 - 0.7**support``) times the group's share of all support.
5. The verdict is ``localized`` when one group is first by class, by an error earlier than the
   clocks' uncertainty, or by 1.5 times the next group's support; ``ambiguous`` otherwise;
   ``undetermined`` when no end qualifies. Victims are the other processes that failed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from plogscan.crossrank.build import Builder
from plogscan.crossrank.clock import Clock
from plogscan.crossrank.config import holders, mismatches
from plogscan.crossrank.facts import Facts
from plogscan.crossrank.graph import LINK_KINDS, Edge, WaitGraph
from plogscan.crossrank.identity import Identities, ProcessKey
from plogscan.crossrank.resolve import Node
from plogscan.crossrank.words import say

CLASSES = ("error", "heartbeat", "behind", "own-stream", "silent", "cycle", "link", "missing")
LEAD_RATIO = 1.5
MAX_CHAIN = 32
MAX_EVIDENCE = 3
DECAY = 0.7  # each agreeing piece of evidence leaves this share of the doubt


@dataclass
class Group:
    """One suspect group: an end of the graph (or a failed link to a peer outside the input)."""

    end: str  # its class, one of CLASSES
    nodes: list[Node]  # the suspects, in order
    waiters: list[ProcessKey] = field(default_factory=list)
    support: int = 0
    first_ts: int | None = None  # its first real error, aligned (class error)
    reasons: dict[tuple, list[tuple[str, str, tuple[tuple[str, int], ...]]]] = field(
        default_factory=dict)  # node identity -> (signal, text, evidence)

    def reason(self, node: Node, signal: str, text: str,
               evidence: tuple[tuple[str, int], ...] = ()) -> None:
        self.reasons.setdefault(node.identity(), []).append((signal, text,
                                                            evidence[:MAX_EVIDENCE]))


@dataclass
class Decision:
    verdict: str
    groups: list[Group]
    victims: list[ProcessKey]
    chain: list[Node]
    notes: list[str]
    graph: WaitGraph
    failed: bool


class Decider:
    """The decision over one attempt's facts."""

    def __init__(self, ids: Identities, facts: Facts, clock: Clock, builder: Builder,
                 lang: str = "en") -> None:
        self.ids, self.facts, self.clock, self.builder, self.lang = (
            ids, facts, clock, builder, lang)
        self.notes = builder.notes

    def label(self, node: Node) -> str:
        return self.ids.processes[node.key].label() if node.key is not None else node.label()

    def decide(self) -> Decision:
        facts = self.facts
        graph = self.builder.graph()
        failed = sorted(set(facts.errors) | set(facts.timeouts) | set(facts.waits))
        if not facts.failed:
            return Decision("undetermined", [], [], [], list(self.notes), graph, False)
        graph.cut(self._ends_by_themselves(graph))
        self._graph = graph
        back = graph.reverse()
        found = graph.ends(failed)
        seen = {n for end in found for n in end}
        found += [(node,) for k in failed if (node := Node(k).identity()) not in graph.nodes
                  and node not in seen]
        groups = [g for end in found if (g := self._group(graph, back, end)) is not None]
        groups.sort(key=self._order)
        self._config(groups)
        verdict = self._verdict(groups)
        named = {n.key for g in groups for n in g.nodes if n.key is not None}
        victims = sorted((k for k in failed if k not in named), key=self._rank)
        chain = self._chain(graph, back, groups[0]) if groups else []
        return Decision(verdict, groups, victims, chain, list(self.notes), graph, True)

    # ------------------------------------------------------------------ step 1

    def _ends_by_themselves(self, graph: WaitGraph) -> set[ProcessKey]:
        out = set(self.builder.named) | set(self.builder.behind)
        first_wait: dict[ProcessKey, int] = {}
        for e in graph.edges:
            if e.ts is not None and e.kind not in ("op-index", "op-tag", "collective"):
                first_wait[e.source] = min(first_wait.get(e.source, e.ts), e.ts)
        for key in self.facts.errors:
            first = self.facts.first_error(key)
            if first is not None and first.ts is not None and key in first_wait \
                    and first.ts < first_wait[key]:
                out.add(key)
        return out

    # ------------------------------------------------------------------ step 3

    def _group(self, graph: WaitGraph, back: dict, end: tuple) -> Group | None:
        nodes = [graph.nodes.get(n) or Node(n[1]) for n in end]
        waiters = graph.waiters(end, back)
        direct = [e for n in end for e in back.get(n, []) if e.source not in
                  {m.key for m in nodes}]
        if len(nodes) > 1:
            inside = [e for n in end for e in graph.out.get(n, [])]
            if all(e.kind in LINK_KINDS for e in inside):
                group = Group("cycle", self._ring(nodes), waiters, len(nodes) + len(waiters))
                names = " → ".join(self.label(n) for n in (*group.nodes, group.nodes[0]))
                for node in group.nodes:
                    own = tuple(e.where for e in graph.out.get(node.identity(), []))
                    group.reason(node, "cycle", say(self.lang, "mutual wait at link set-up: "
                                                    "{names}", names=names), own)
                self._waited(group, group.nodes[0], direct)
                return group
            self.builder.note(say(self.lang, "the waits of {labels} form a ring in which every "
                                  "rank waited for the next: it singles out none of them",
                                  labels=", ".join(self.label(n) for n in nodes[:8])))
            return None
        node = nodes[0]
        if node.key is None:
            return self._missing(node, waiters, direct)
        key = node.key
        end_class = self._class(graph, key, waiters)
        if end_class is None:
            if waiters:
                self.builder.note(say.count(
                    self.lang, len(waiters), "the wait of {n} rank ends at {label}, which only "
                    "timed out and names no peer the input holds", "the waits of {n} ranks end "
                    "at {label}, which only timed out and names no peer the input holds",
                    label=self.label(node)))
            return None
        group = Group(end_class, [node], waiters, len(waiters) + 1)
        self._own_reason(group, node, graph)
        self._waited(group, node, direct)
        return group

    def _class(self, graph: WaitGraph, key: ProcessKey, waiters: list[ProcessKey]
               ) -> str | None:
        facts = self.facts
        if key in facts.errors:
            return "error"
        if key in self.builder.named:
            return "heartbeat"
        if key in self.builder.behind:
            return "behind"
        if graph.out.get(Node(key).identity()):
            return "own-stream"
        if facts.silent(key) and waiters:
            return "silent"
        return None

    def _own_reason(self, group: Group, node: Node, graph: WaitGraph) -> None:
        key = node.key
        assert key is not None
        if group.end == "error":
            first = self.facts.first_error(key)
            assert first is not None
            group.first_ts = first.ts
            group.reason(node, "error-vs-timeout", say(
                self.lang, "{text}: a real error, not a timeout; it outranks every rank that "
                "only waited", text=first.text), first.evidence)
        elif group.end == "heartbeat":
            self._heartbeat_reason(group, node, graph)
        elif group.end == "behind":
            for kind, text, where in self.builder.behind[key]:
                signal = {"op-index": "index-mismatch", "op-tag": "tag-mismatch"}.get(
                    kind, "collective-mismatch")
                group.reason(node, signal, text, (where,))
            group.support += len(self.builder.behind[key]) - 1
        elif group.end == "own-stream":
            own = tuple(e.where for e in graph.out.get(node.identity(), []))
            group.reason(node, "own-stream", say(
                self.lang, "it waits for its own secondary stream (remote rank: local): the "
                "task on its other stream never finished"), own)
        elif group.end == "silent":
            ident = self.ids.processes[key]
            text = say.count(self.lang, len(group.waiters), "it logged neither an error nor a "
                             "timeout while {n} rank waited for it", "it logged neither an "
                             "error nor a timeout while {n} ranks waited for it")
            last = self.clock.align(ident, ident.last_ts)
            waiting = set(group.waiters)
            waits = [e.ts for e in graph.edges if e.source in waiting and e.ts is not None]
            if last is not None and waits and last < min(waits):
                text = say(self.lang, "{text}; its last record is {delta} before the first "
                           "timeout", text=text, delta=_us(min(waits) - last))
            group.reason(node, "silent-rank", text, ())

    def _heartbeat_reason(self, group: Group, node: Node, graph: WaitGraph) -> None:
        beats = [e for e in graph.edges if e.kind == "heartbeat"
                 and e.target.identity() == node.identity()]
        culprit = self.builder.locations.get(node.identity(), node.label())
        status = beats[0].detail if beats and beats[0].detail else say(self.lang, "abnormal")
        group.reason(node, "heartbeat", say(
            self.lang, "HCCL's cluster heartbeat names it ({culprit}, {status})",
            culprit=culprit, status=status), tuple(e.where for e in beats))

    def _waited(self, group: Group, node: Node, direct: list[Edge]) -> None:
        if not group.waiters:
            return
        kinds = Counter(e.kind for e in direct)
        text = say.count(self.lang, len(group.waiters), "the chain of waits ends here: the wait "
                         "of {n} rank leads to it (directly: {kinds})", "the chain of waits "
                         "ends here: the waits of {n} ranks lead to it (directly: {kinds})",
                         kinds=", ".join(f"{say(self.lang, k)} {c}"
                                         for k, c in sorted(kinds.items())))
        group.reason(node, "wait-chain", text, tuple(e.where for e in direct))

    def _missing(self, node: Node, waiters: list[ProcessKey], direct: list[Edge]
                 ) -> Group | None:
        if not waiters:
            return None
        single = len({e.source for e in direct}) == 1 and len(waiters) == 1 and all(
            e.kind in LINK_KINDS for e in direct)
        if single:
            near = Node(waiters[0])
            group = Group("link", [near, node], waiters, 1)
            text = say(self.lang, "its link to {peer} failed and the input does not contain "
                       "{peer}: one end of the link is here, the other is to collect",
                       peer=node.label())
            group.reason(near, "wait-chain", text, tuple(e.where for e in direct))
            group.reason(node, "missing-peer", text, tuple(e.where for e in direct))
            return group
        group = Group("missing", [node], waiters, len(waiters))
        if any(e.kind == "heartbeat" for e in direct):  # HCCL's own location of the failure
            self._heartbeat_reason(group, node, self._graph)
            group.support += 1
        group.reason(node, "missing-peer", say.count(
            self.lang, len(waiters), "{n} rank waits for it and the input does not contain it: "
            "collect its logs", "{n} ranks wait for it and the input does not contain it: "
            "collect its logs"), tuple(e.where for e in direct))
        self._waited(group, node, direct)
        return group

    def _ring(self, nodes: list[Node]) -> list[Node]:
        """A cycle's members in wait order, from the one that reported first."""
        def first(node: Node) -> tuple:
            key = node.key
            times = [p.ts for p in (*self.facts.errors.get(key, ()),
                                    *self.facts.timeouts.get(key, ())) if p.ts is not None]
            return (min(times) if times else 1 << 62, repr(key))
        inside = {n.identity() for n in nodes}
        start = min(nodes, key=first)
        order = [start]
        out = self._graph.out
        while len(order) < len(nodes):
            last = order[-1]
            following = sorted((e.target for e in out.get(last.identity(), [])
                                if e.target.identity() in inside and e.target not in order),
                               key=repr)
            if not following:
                order += [n for n in sorted(nodes, key=repr) if n not in order]
                break
            order.append(following[0])
        return order

    # ------------------------------------------------------------------ steps 4 and 5

    def _order(self, group: Group) -> tuple:
        first = group.nodes[0]
        rank = self._rank(first.key) if first.key is not None else 1 << 30
        timed = group.first_ts if group.end == "error" and group.first_ts is not None else 1 << 62
        return (CLASSES.index(group.end), timed, -group.support, rank, repr(first.identity()))

    def _verdict(self, groups: list[Group]) -> str:
        if not groups:
            return "undetermined"
        if len(groups) == 1:
            return "localized"
        top, second = groups[0], groups[1]
        if CLASSES.index(top.end) < CLASSES.index(second.end):
            return "localized"
        if top.end == "error" and top.first_ts is not None and second.first_ts is not None:
            margin = self._margin(top) + self._margin(second)
            if second.first_ts - top.first_ts > margin:
                node = top.nodes[0]
                top.reason(node, "earliest-error", say(
                    self.lang, "the earliest non-timeout error of the attempt on aligned clocks, "
                    "{delta} before the next one ({label}; clock uncertainty ±{margin})",
                    delta=_us(second.first_ts - top.first_ts), label=self.label(second.nodes[0]),
                    margin=_us(margin)), self._error_where(node))
                top.support += 1
                return "localized"
            return "ambiguous"
        return "localized" if top.support >= LEAD_RATIO * second.support else "ambiguous"

    def _error_where(self, node: Node) -> tuple[tuple[str, int], ...]:
        first = self.facts.first_error(node.key) if node.key is not None else None
        return first.evidence if first is not None else ()

    def _margin(self, group: Group) -> int:
        key = group.nodes[0].key
        return self.clock.uncertainty(self.ids.processes[key].clock_host) if key else 0

    def confidences(self, groups: list[Group]) -> list[float]:
        total = sum(g.support for g in groups) or 1
        return [round((1 - DECAY ** g.support) * g.support / total, 2) for g in groups]

    def _config(self, groups: list[Group]) -> None:
        """A setting a suspect holds against most ranks supports it (it names no suspect)."""
        settings = self.facts.settings
        for m in mismatches(settings, self.ids):
            if len(m.values) < 2 or len(m.values[0].ranks) <= len(m.values[1].ranks):
                continue
            for value in m.values[1:]:
                keys, where = holders(settings, m.key, value.value)
                for g in groups:
                    for node in g.nodes:
                        if node.key in keys:
                            g.reason(node, "config-mismatch", say(
                                self.lang, "{key} is {value} here and {common} on the other "
                                "ranks", key=m.key, value=value.value or say(self.lang, "(empty)"),
                                common=m.values[0].value), where)

    # ------------------------------------------------------------------ chain

    def _chain(self, graph: WaitGraph, back: dict, group: Group) -> list[Node]:
        if group.end == "cycle":
            return [*group.nodes, group.nodes[0]]
        if group.end == "link":
            return list(group.nodes)
        path = graph.chain(group.nodes[0].identity(), back)[-MAX_CHAIN:]
        return path if len(path) > 1 else []

    def _rank(self, key: ProcessKey | None) -> tuple:
        ident = self.ids.processes.get(key) if key is not None else None
        rank = ident.rank if ident is not None and ident.rank is not None else 1 << 30
        return (rank, repr(key))


def _us(delta: int) -> str:
    seconds = abs(delta) / 1e6
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.3f} s"
