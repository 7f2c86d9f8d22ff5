"""The wait graph of one attempt: who waits for whom, and where the chains end.

Each waiting process points at the peer its first wait record names: the ``dest_ip(rank)`` of a
LINK_ERROR_INFO row, the ``remote rank`` of a Notify Wait task exception, the ``remoteRank`` of
an AI CPU one, the rank of a transport or socket wait. A peer is found by its device IP, else
by its rank in the communicator of the wait (the tag or the group of the neighbouring records,
else the process's world communicator). A rank outside the communicator (``3.0.0.0(3)`` in a
3-rank communicator) points nowhere; a valid rank the input does not contain is a ``missing``
node that carries what the logs say about it (its IP, its rank).
"""

from __future__ import annotations

from dataclasses import dataclass

from plogscan.crossrank.identity import Identities, Identity, ProcessKey
from plogscan.crossrank.summary import Summary, Wait

NEAR_LINES = 5  # a wait's communicator may be named this many lines away (same stream)


@dataclass(frozen=True)
class Node:
    key: ProcessKey | None  # None: a peer the input does not contain
    ip: str | None = None
    rank: int | None = None


@dataclass(frozen=True)
class Edge:
    source: ProcessKey
    target: Node
    wait: Wait
    comm: str | None


@dataclass(frozen=True)
class Walk:
    start: ProcessKey
    hops: tuple[Node, ...]  # start first
    end: str  # process | missing | cycle
    cycle: tuple[ProcessKey, ...] = ()  # members of the closing cycle
    link_cycle: bool = False  # every edge of the cycle is a link-setup wait


def wait_comm(summary_index: dict, wait: Wait, ident: Identity) -> str | None:
    """The communicator of a wait: its own tag, a neighbouring task or group record, or the
    process's world communicator."""
    if wait.comm and any(m.comm == wait.comm for m in ident.comms):
        return wait.comm
    near = summary_index.get(wait.stream, [])
    best = None
    for line, comm in near:
        if comm and abs(line - wait.line) <= NEAR_LINES and (
                best is None or abs(line - wait.line) < abs(best[0] - wait.line)):
            best = (line, comm)
    if best is not None:
        return best[1]
    return wait.comm or ident.world


def comm_index(summary: Summary) -> dict:
    """stream -> [(line, communicator)] of task and group-rank records."""
    index: dict = {}
    for t in summary.tasks:
        if t.comm:
            index.setdefault(t.stream, []).append((t.line, t.comm))
    for a in summary.announces:
        if a.kind == "group-rank" and a.comm:
            index.setdefault(a.stream, []).append((a.line, a.comm))
    return index


class WaitGraph:
    """Edges of the processes in ``members`` (first resolvable wait of each) and notes on
    waits that point nowhere."""

    def __init__(self, summary: Summary, ids: Identities, members: frozenset[ProcessKey],
                 waits: dict[ProcessKey, list[Wait]]) -> None:
        self.ids = ids
        self.members = members
        self.invalid: list[tuple[ProcessKey, Wait, str]] = []
        self.edges: dict[ProcessKey, Edge] = {}
        index = comm_index(summary)
        by_ip = {i.device_ip: k for k in members if (i := ids.processes[k]).device_ip}
        for key in sorted(waits):
            ident = ids.processes[key]
            for wait in waits[key]:
                comm = wait_comm(index, wait, ident)
                node = self._resolve(wait, ident, comm, by_ip)
                if node is None:
                    continue
                if isinstance(node, str):
                    self.invalid.append((key, wait, node))
                    continue
                self.edges[key] = Edge(key, node, wait, comm)
                break

    def _resolve(self, wait: Wait, ident: Identity, comm: str | None,
                 by_ip: dict[str, ProcessKey]) -> Node | str | None:
        if wait.own_stream:
            return Node(ident.key)
        if wait.peer_ip and wait.peer_ip in by_ip:
            return Node(by_ip[wait.peer_ip], wait.peer_ip, wait.peer_rank)
        size = _size(self.ids, self.members, comm)
        if wait.peer_rank is not None:
            if size is not None and wait.peer_rank >= size:
                where = f"communicator {comm}" if comm else "its communicator"
                return (f"rank {wait.peer_rank} is not in {where} of {size} ranks "
                        f"({wait.peer_ip or 'no IP'})")
            for k in sorted(self.members):
                if self.ids.processes[k].rank_in(comm) == wait.peer_rank or (
                        comm is None and self.ids.processes[k].rank == wait.peer_rank):
                    return Node(k, wait.peer_ip, wait.peer_rank)
            return Node(None, wait.peer_ip, wait.peer_rank)
        if wait.peer_ip:
            return Node(None, wait.peer_ip)
        return None

    def walk(self, start: ProcessKey, limit: int = 4096) -> Walk:
        hops = [Node(start)]
        seen = {start: 0}
        kinds: list[str] = []
        current = start
        while current in self.edges and len(hops) < limit:
            edge = self.edges[current]
            node = edge.target
            kinds.append(edge.wait.kind)
            hops.append(node)
            if node.key is None:
                return Walk(start, tuple(hops), "missing")
            if node.key in seen:
                members = tuple(h.key for h in hops[seen[node.key]:-1] if h.key is not None)
                link = all(k == "link" for k in kinds[seen[node.key]:])
                return Walk(start, tuple(hops), "cycle", members, link)
            seen[node.key] = len(hops) - 1
            current = node.key
        return Walk(start, tuple(hops), "process")

    def pointing_at(self, target: ProcessKey) -> list[list[ProcessKey]]:
        """Every chain of present processes that ends at ``target`` (longest first)."""
        reverse: dict[ProcessKey, list[ProcessKey]] = {}
        for source, edge in self.edges.items():
            if edge.target.key is not None and edge.target.key != source:
                reverse.setdefault(edge.target.key, []).append(source)
        chains: list[list[ProcessKey]] = []
        frontier = [[target]]
        seen = {target}
        while frontier:
            nxt = []
            for path in frontier:
                for source in sorted(reverse.get(path[0], [])):
                    if source in seen:
                        continue
                    seen.add(source)
                    nxt.append([source, *path])
            chains.extend(nxt)
            frontier = nxt
        chains.sort(key=lambda c: (-len(c), c))
        return chains


def _size(ids: Identities, members: frozenset[ProcessKey], comm: str | None) -> int | None:
    sizes = [m.size for k in members for m in ids.processes[k].comms
             if m.size is not None and (m.comm == comm or (comm is None and m.comm ==
                                                          ids.processes[k].world))]
    return max(sizes) if sizes else None
