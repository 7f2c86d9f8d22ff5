"""A ``decide.Decision`` as the report states it: ``plogscan.model.RootCause``.

Processes become ranks, hosts and devices (their ``Identity``), peers outside the input what
the logs name them by; every suspect, victim and chain hop carries the label reports show
(``<host> device-<id>``, the physical id when logged). The wait graph keeps at most
``MAX_EDGES`` edges, shared out among the kinds, and counts the rest.
"""

from __future__ import annotations

from collections import Counter

from plogscan.crossrank.decide import Decider, Decision
from plogscan.crossrank.graph import WaitGraph as Graph
from plogscan.crossrank.identity import Identities, ProcessKey
from plogscan.crossrank.resolve import Node
from plogscan.model import (
    EvidenceRef,
    GraphEdge,
    GraphNode,
    Hop,
    Party,
    RootCause,
    Suspect,
    SuspectReason,
    WaitGraph,
)

MAX_EDGES = 10_000


def party(ids: Identities, key: ProcessKey) -> Party:
    i = ids.processes[key]
    return Party(i.rank, i.host, i.device, i.pid, i.label())


def hop(ids: Identities, node: Node) -> Hop:
    if node.key is None:  # a peer outside the input: only what the logs name it by
        return Hop(None, None, None, node.ip, node.label())
    i = ids.processes[node.key]
    return Hop(i.rank, i.host, i.device, i.device_ip, i.label())


def root_cause(ids: Identities, decider: Decider, decision: Decision, attempt: int
               ) -> RootCause:
    comms = _comms(decision.graph)
    suspects = []
    for group, confidence in zip(decision.groups, decider.confidences(decision.groups),
                                 strict=True):
        for node in group.nodes:
            reasons = tuple(SuspectReason(signal, text, tuple(EvidenceRef(p, n)
                                                               for p, n in evidence))
                            for signal, text, evidence in group.reasons.get(node.identity(), ()))
            found = comms.get(node.identity())
            suspects.append(_suspect(ids, node, group.end, confidence, reasons, attempt,
                                     found.most_common(1)[0][0] if found else None))
    return RootCause(decision.verdict, tuple(suspects),
                     tuple(party(ids, k) for k in decision.victims),
                     tuple(hop(ids, n) for n in decision.chain), tuple(decision.notes),
                     graph_view(ids, decision.graph))


def _suspect(ids: Identities, node: Node, end: str, confidence: float,
             reasons: tuple[SuspectReason, ...], attempt: int, comm: str | None) -> Suspect:
    if node.key is None:
        host_ip = node.ip if node.device is not None else None
        return Suspect(
            rank=node.rank, host=node.host, host_ip=host_ip, device=None,
            phy_device=node.device, pid=None, attempt=attempt, communicator=node.comm or comm,
            confidence=confidence, reasons=reasons, label=node.label(), end=end, present=False,
            device_ip=node.ip if host_ip is None else None)
    i = ids.processes[node.key]
    return Suspect(
        rank=i.rank, host=i.host, host_ip=i.host_ip, device=i.device, phy_device=i.phy_device,
        pid=i.pid, attempt=attempt, communicator=comm or i.world, confidence=confidence,
        reasons=reasons, label=i.label(), end=end, present=True, device_ip=i.device_ip)


def _comms(graph: Graph) -> dict[tuple, Counter]:
    """Node -> the communicators of the waits into and out of it (a suspect's is the
    commonest)."""
    out: dict[tuple, Counter] = {}
    for e in graph.edges:
        if e.comm:
            for node in (e.target.identity(), Node(e.source).identity()):
                out.setdefault(node, Counter())[e.comm] += 1
    return out


def graph_view(ids: Identities, graph: Graph) -> WaitGraph:
    """The graph as reports show it: node ids unique, edges grouped by kind, capped."""
    by_kind: dict[str, list] = {}
    for e in graph.edges:
        by_kind.setdefault(e.kind, []).append(e)
    kept = []
    room = MAX_EDGES
    kinds = sorted(by_kind, key=lambda k: len(by_kind[k]))
    for n, kind in enumerate(kinds):  # the smallest kinds whole, the rest share what is left
        share = room // (len(kinds) - n)
        edges = sorted(by_kind[kind], key=lambda e: (repr(e.source), repr(e.target.identity()),
                                                     e.where))
        kept += edges[:share]
        room -= min(share, len(edges))
    kept.sort(key=lambda e: (e.kind, repr(e.source), repr(e.target.identity()), e.where))
    names: dict[tuple, str] = {}
    taken: Counter = Counter()
    nodes = []
    for e in kept:
        for node in (Node(e.source), e.target):
            ident = node.identity()
            if ident in names:
                continue
            item = _node(ids, node)
            base = item.label if item.pid is None else f"{item.label} (pid {item.pid})"
            name = item.label if taken[item.label] == 0 else base
            while taken[name]:
                name = f"{base} #{taken[name] + 1}"
            taken[item.label] += 1
            taken[name] += 1
            names[ident] = name
            nodes.append(GraphNode(name, item.label, item.present, item.rank, item.host,
                                   item.device, item.pid, item.ip))
    edges = tuple(GraphEdge(names[Node(e.source).identity()], names[e.target.identity()],
                            e.kind, EvidenceRef(*e.where), e.followed) for e in kept)
    return WaitGraph(tuple(sorted(nodes, key=lambda n: n.id)), edges,
                     len(graph.edges) - len(kept))


def _node(ids: Identities, node: Node) -> GraphNode:
    if node.key is None:
        return GraphNode("", node.label(), False, node.rank, node.host, node.device, None,
                         node.ip)
    i = ids.processes[node.key]
    return GraphNode("", i.label(), True, i.rank, i.host, i.device, i.pid, i.device_ip)
