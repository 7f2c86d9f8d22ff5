"""The wait-for graph of one attempt: who waited for whom, and where following the waits ends.

Every record that says "I waited for X" is an ``Edge`` from its process to X, with the kind of
wait and the record as evidence (``build`` makes them). X is a process of the input or a
``resolve.Node`` outside it. Some edges are kept but not followed (``followed`` false): the
waits of a process that is an end by what it logged itself (``decide`` says which).

``WaitGraph.ends`` follows the edges: the strongly connected components that no followed edge
leaves, reached from the processes that failed. An end is one node (a process that waits for
nobody, a peer outside the input), a process waiting only on itself (its own stream), or a
cycle. ``waiters`` says who reaches an end, ``chain`` the longest way there.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from plogscan.crossrank.identity import ProcessKey
from plogscan.crossrank.resolve import Node

# Kinds of wait that set up a link between two ends (both ends wait on the link).
LINK_KINDS = frozenset({"socket", "p2p"})
# Kinds that come from the ranks' positions rather than from a record of a wait.
POSITION_KINDS = frozenset({"op-index", "op-tag", "collective"})


@dataclass(frozen=True)
class Edge:
    source: ProcessKey
    target: Node
    kind: str  # socket | p2p | notify | roce | rendezvous | heartbeat | op-index | ...
    where: tuple[str, int]  # the record: (path, line)
    ts: int | None = None  # aligned
    comm: str | None = None
    detail: str = ""
    followed: bool = True


class WaitGraph:
    """The edges of one attempt, and the ends they lead to."""

    def __init__(self, edges: Iterable[Edge] = ()) -> None:
        self.edges: list[Edge] = list(edges)
        self._index()

    def _index(self) -> None:
        self.out: dict[tuple, list[Edge]] = {}
        self.nodes: dict[tuple, Node] = {}
        for e in self.edges:
            source = Node(e.source)
            self.nodes.setdefault(source.identity(), source)
            self.nodes.setdefault(e.target.identity(), e.target)
            if e.followed:
                self.out.setdefault(source.identity(), []).append(e)

    def cut(self, keys: set[ProcessKey]) -> None:
        """Keep the edges of ``keys`` but stop following them."""
        self.edges = [replace(e, followed=False) if e.source in keys and e.followed else e
                      for e in self.edges]
        self._index()

    # ------------------------------------------------------------------ following

    def components(self) -> dict[tuple, int]:
        """Node -> its strongly connected component over the followed edges (Tarjan,
        iterative), numbered in the order they complete (a component's successors first)."""
        index: dict[tuple, int] = {}
        low: dict[tuple, int] = {}
        on: set[tuple] = set()
        stack: list[tuple] = []
        comp: dict[tuple, int] = {}
        counter = done = 0
        for root in sorted(self.nodes, key=repr):
            if root in index:
                continue
            work = [(root, 0)]
            while work:
                node, i = work.pop()
                if i == 0:
                    index[node] = low[node] = counter
                    counter += 1
                    stack.append(node)
                    on.add(node)
                edges = self.out.get(node, [])
                if i < len(edges):
                    work.append((node, i + 1))
                    nxt = edges[i].target.identity()
                    if nxt not in index:
                        work.append((nxt, 0))
                    elif nxt in on:
                        low[node] = min(low[node], index[nxt])
                    continue
                if work and work[-1][1] > 0:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    while True:
                        member = stack.pop()
                        on.discard(member)
                        comp[member] = done
                        if member == node:
                            break
                    done += 1
        return comp

    def ends(self, starts: Iterable[ProcessKey]) -> list[tuple[tuple, ...]]:
        """The components no followed edge leaves that the ``starts`` reach (each a tuple of
        node identities, sorted), in a stable order."""
        comp = self.components()
        members: dict[int, list[tuple]] = {}
        for node, number in comp.items():
            members.setdefault(number, []).append(node)
        leaves = {comp[n] for n in comp if all(comp[e.target.identity()] == comp[n]
                                              for e in self.out.get(n, []))}
        seen: set[tuple] = set()
        found: set[int] = set()
        frontier = [n for k in starts if (n := Node(k).identity()) in comp]
        while frontier:
            node = frontier.pop()
            if node in seen:
                continue
            seen.add(node)
            if comp[node] in leaves:
                found.add(comp[node])
            frontier.extend(e.target.identity() for e in self.out.get(node, []))
        return sorted((tuple(sorted(members[c], key=repr)) for c in found), key=repr)

    def reverse(self) -> dict[tuple, list[Edge]]:
        back: dict[tuple, list[Edge]] = {}
        for e in self.edges:
            if e.followed:
                back.setdefault(e.target.identity(), []).append(e)
        return back

    def waiters(self, end: tuple[tuple, ...], back: dict[tuple, list[Edge]] | None = None
                ) -> list[ProcessKey]:
        """The processes outside ``end`` whose followed waits lead into it."""
        back = back if back is not None else self.reverse()
        inside = set(end)
        seen: set[tuple] = set(end)
        frontier = list(end)
        out: list[ProcessKey] = []
        while frontier:
            node = frontier.pop()
            for e in back.get(node, []):
                source = Node(e.source).identity()
                if source in seen:
                    continue
                seen.add(source)
                if source not in inside:
                    out.append(e.source)
                frontier.append(source)
        return sorted(out)

    def chain(self, end: tuple, back: dict[tuple, list[Edge]] | None = None) -> list[Node]:
        """The longest way of followed waits into ``end`` (a node identity): from the process
        farthest from it to it; ties go to the smallest process key."""
        back = back if back is not None else self.reverse()
        parent: dict[tuple, tuple] = {}
        frontier, seen, deepest = [end], {end}, end
        while frontier:
            nxt = []
            for node in frontier:
                sources = sorted({e.source for e in back.get(node, [])})
                for source in sources:
                    ident = Node(source).identity()
                    if ident not in seen:
                        seen.add(ident)
                        parent[ident] = node
                        nxt.append(ident)
            if nxt:
                deepest = min(nxt, key=repr)
            frontier = nxt
        path = [deepest]
        while path[-1] != end:
            path.append(parent[path[-1]])
        return [self.nodes.get(n) or Node(n[1]) for n in path]
