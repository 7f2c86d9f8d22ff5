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
from plogscan.crossrank.words import say

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
    """Where the chain of waits from a process ends: at a process that waits for nobody
    (``process``), at a peer the input does not contain (``missing``), or in a cycle."""

    end: str  # process | missing | cycle
    last: ProcessKey | None = None  # the last process of the chain in the input
    missing: Node | None = None  # the peer outside the input (end "missing")
    cycle: tuple[ProcessKey, ...] = ()  # members of the closing cycle, in wait order
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
    waits that point nowhere. ``index`` is ``comm_index`` of the whole summary when the caller
    has it (a wait's communicator may be named by a record of another process's stream)."""

    def __init__(self, summary: Summary, ids: Identities, members: frozenset[ProcessKey],
                 waits: dict[ProcessKey, list[Wait]], lang: str = "en",
                 index: dict | None = None) -> None:
        self.ids = ids
        self.lang = lang
        self.members = members
        self.invalid: list[tuple[ProcessKey, Wait, str]] = []
        self.edges: dict[ProcessKey, Edge] = {}
        index = comm_index(summary) if index is None else index  # stream -> communicators
        by_ip = {i.device_ip: k for k in sorted(members) if (i := ids.processes[k]).device_ip}
        # (communicator, rank) -> process; (None, rank) is the world rank
        self._by_rank: dict[tuple[str | None, int], ProcessKey] = {}
        self._sizes: dict[str | None, int] = {}
        for k in sorted(members, reverse=True):  # the smallest key wins a tie
            ident = ids.processes[k]
            if ident.rank is not None:
                self._by_rank[(None, ident.rank)] = k
            for m in ident.comms:
                if m.rank is not None:
                    self._by_rank[(m.comm, m.rank)] = k
                if m.size is not None:
                    for name in {m.comm, None if m.comm == ident.world else m.comm}:
                        self._sizes[name] = max(self._sizes.get(name, 0), m.size)
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
        size = self._sizes.get(comm)
        if wait.peer_rank is not None:
            if size is not None and wait.peer_rank >= size:
                text = ("rank {peer} is not in communicator {comm} of {size} ranks ({ip})"
                        if comm else "rank {peer} is not in its communicator of {size} ranks "
                        "({ip})")
                return say(self.lang, text, peer=wait.peer_rank, comm=comm, size=size,
                           ip=wait.peer_ip or say(self.lang, "no IP"))
            found = self._by_rank.get((comm, wait.peer_rank))
            if found is not None:
                return Node(found, wait.peer_ip, wait.peer_rank)
            return Node(None, wait.peer_ip, wait.peer_rank)
        if wait.peer_ip:
            return Node(None, wait.peer_ip)
        return None

    def walks(self) -> dict[ProcessKey, Walk]:
        """Where the chain of every waiting process ends; each edge is followed once."""
        result: dict[ProcessKey, Walk] = {}
        for start in sorted(self.edges):
            if start in result:
                continue
            path: list[ProcessKey] = []
            index: dict[ProcessKey, int] = {}
            current = start
            while True:
                if current in result:
                    outcome = result[current]
                    break
                if current in index:
                    cycle = tuple(path[index[current]:])
                    link = all(self.edges[k].wait.kind == "link" for k in cycle)
                    outcome = Walk("cycle", cycle=cycle, link_cycle=link)
                    break
                edge = self.edges.get(current)
                if edge is None:
                    outcome = Walk("process", last=current)
                    break
                index[current] = len(path)
                path.append(current)
                if edge.target.key is None:
                    outcome = Walk("missing", last=current, missing=edge.target)
                    break
                current = edge.target.key
            for node in path:
                result[node] = outcome
        return result

    def pointing_at(self, target: ProcessKey) -> list[ProcessKey]:
        """The longest chain of present processes that ends at ``target`` (``[target]`` when
        nobody waits for it); ties go to the smallest process key."""
        reverse: dict[ProcessKey, list[ProcessKey]] = {}
        for source, edge in self.edges.items():
            if edge.target.key is not None and edge.target.key != source:
                reverse.setdefault(edge.target.key, []).append(source)
        parent: dict[ProcessKey, ProcessKey] = {}
        frontier, seen, deepest = [target], {target}, target
        while frontier:
            nxt = []
            for node in frontier:
                for source in sorted(reverse.get(node, [])):
                    if source not in seen:
                        seen.add(source)
                        parent[source] = node
                        nxt.append(source)
            if nxt:
                deepest = min(nxt)
            frontier = nxt
        chain = [deepest]
        while chain[-1] != target:
            chain.append(parent[chain[-1]])
        return chain

