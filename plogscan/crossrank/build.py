"""The edges of one attempt's wait graph, from what its processes reported (``Facts``).

* Each wait record (``summary.Wait``) becomes an edge from its process to the peer it names
  (``resolve``): a socket link (``LINK_ERROR_INFO`` rows, a transport set-up, the connection
  detector), a P2P link, a Notify Wait (``remote rank:[N]``; ``[local]`` is the process's own
  stream), a RoCE operation (ERROR CQE), a root-info rendezvous or torch's TCP store.
* A record that names no peer (``remote rank:[unknown]``) points at the ranks of its
  communicator that logged nothing at all, when there are a few; a root-info server that
  timed out waiting points at the ranks its list of connected ranks lacks.
* Each heartbeat that locates a failure (``Stuck``, ``Lost``, ``ERROR CQE``) is an edge from the
  process that logged it to the location (``IP/ID``: host IP and physical device).
* The ranks' positions: the ranks at a larger op index, under the majority tag, or that entered
  a collective another rank never entered, waited for the ranks that are behind.

What cannot be placed is a note: a rank outside its communicator, a record naming its own
process, a heartbeat location that is no rank of a communicator whose ranks are all present.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from plogscan.crossrank.clock import Clock
from plogscan.crossrank.facts import Facts
from plogscan.crossrank.graph import Edge, WaitGraph
from plogscan.crossrank.identity import Identities, Identity, ProcessKey
from plogscan.crossrank.patterns import CULPRIT_STATUS, int_or_none, ip_of
from plogscan.crossrank.resolve import Node, Resolver
from plogscan.crossrank.summary import Summary, TaskState, Wait
from plogscan.crossrank.words import say
from plogscan.model import CollectiveMismatch

NEAR_LINES = 5  # a wait's communicator may be named this many lines away (same stream)
MAX_FANOUT = 8  # silent ranks one record without a named peer may point at
MAX_UNCONNECTED = 64  # ranks a root-info server's list may leave out, one edge each
MAX_NOTES = 64
MAX_POSITION_EDGES = 16_384  # edges from the ranks ahead to the ranks behind, in one attempt


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


def wait_comm(index: Mapping, wait: Wait, ident: Identity) -> str | None:
    """The communicator of a wait: its own tag, a neighbouring task or group record, or the
    process's world communicator."""
    if wait.comm and any(m.comm == wait.comm for m in ident.comms):
        return wait.comm
    best = None
    for line, comm in index.get(wait.stream, []):
        if comm and abs(line - wait.line) <= NEAR_LINES and (
                best is None or abs(line - wait.line) < abs(best[0] - wait.line)):
            best = (line, comm)
    if best is not None:
        return best[1]
    return wait.comm or ident.world


class Builder:
    """The wait graph of one attempt and what could not be placed in it."""

    def __init__(self, ids: Identities, facts: Facts, clock: Clock, index: Mapping,
                 lang: str = "en") -> None:
        self.ids, self.facts, self.clock, self.index, self.lang = ids, facts, clock, index, lang
        self.resolve = Resolver(ids, facts.members, lang)
        self.notes: list[str] = []
        self.edges: dict[tuple, Edge] = {}  # (source, target, kind) -> the first record
        self.named: set[ProcessKey] = set()  # processes a heartbeat locates
        self.locations: dict[tuple, str] = {}  # node -> the heartbeat's IP/ID for it
        # process -> (kind, why, where) for each way the others are ahead of it
        self.behind: dict[ProcessKey, list[tuple[str, str, tuple[str, int]]]] = {}
        self._silent: dict[str, list[ProcessKey]] | None = None

    def note(self, text: str) -> None:
        if len(self.notes) < MAX_NOTES and text not in self.notes:
            self.notes.append(text)

    def add(self, source: ProcessKey, target: Node, kind: str, where: tuple[str, int],
            ts: int | None, comm: str | None = None, detail: str = "") -> None:
        self.edges.setdefault((source, target.identity(), kind),
                              Edge(source, target, kind, where, ts, comm, detail))

    def graph(self) -> WaitGraph:
        self._waits()
        self._heartbeats()
        self._positions()
        return WaitGraph(self.edges.values())

    # ------------------------------------------------------------------ waits

    def _waits(self) -> None:
        facts = self.facts
        for key in sorted(facts.waits):
            ident = self.ids.processes[key]
            for wait in facts.waits[key]:
                comm = wait_comm(self.index, wait, ident)
                where = (wait.stream.path, wait.line)
                ts = self.clock.align(ident, wait.ts)
                if wait.unnamed:
                    for target in self._unnamed(key, ident, wait, comm):
                        self.add(key, target, wait.kind, where, ts, comm, wait.detail)
                    continue
                node = self.resolve.wait(wait, ident, comm)
                if isinstance(node, str):
                    self.note(say(self.lang, "{label} waits for a peer that cannot exist: {why} "
                                  "({where})", label=ident.label(), why=node,
                                  where=f"{where[0]}:{where[1]}"))
                elif node is not None and node.key == key and not wait.own_stream:
                    self.note(say(self.lang, "{label}: a record names its own process as the "
                                  "peer it waited for ({where})", label=ident.label(),
                                  where=f"{where[0]}:{where[1]}"))
                elif node is not None:
                    self.add(key, node, wait.kind, where, ts, comm, wait.detail)

    def _unnamed(self, key: ProcessKey, ident: Identity, wait: Wait, comm: str | None
                 ) -> list[Node]:
        """Whom a wait that names no peer may mean: the ranks a root-info server's list of
        connected ranks lacks, else the ranks of its communicator that logged nothing."""
        if wait.kind == "rendezvous" and wait.detail == "root-info server" and ident.root_ip:
            found = self.resolve.host_root(ident.root_ip, ident)
            return [] if isinstance(found, str) or found == key else [
                Node(found) if found is not None else Node(None, ident.root_ip)]
        if wait.kind == "rendezvous" and self.facts.rosters.get(key):
            rosters = self.facts.rosters[key]
            connected = {r for roster in rosters for r in roster.ranks}
            size = max((r.size for r in rosters if r.size), default=None) or \
                self.resolve.sizes.get(comm)
            if size:
                lacking = sorted(set(range(size)) - connected)
                nodes = [self.resolve.rank(comm, r) for r in lacking[:MAX_UNCONNECTED]]
                return [n for n in nodes if isinstance(n, Node)]
        if self._silent is None:  # communicator -> its ranks that logged nothing, once
            self._silent = {}
            for k in sorted(self.facts.members):
                if self.facts.silent(k):
                    for m in self.ids.processes[k].comms:
                        self._silent.setdefault(m.comm, []).append(k)
        silent = [k for k in self._silent.get(comm, ()) if k != key]
        return [Node(k) for k in silent] if len(silent) <= MAX_FANOUT else []

    # ------------------------------------------------------------------ heartbeats

    def _heartbeats(self) -> None:
        for reporter, beat in self.facts.heartbeats:
            if not CULPRIT_STATUS.search(beat.status or "lost"):
                continue
            ip_text, _, number = beat.culprit.partition("/")
            ip = ip_of(ip_text) or ip_text.strip()
            device = int_or_none(number)
            target = self._location(reporter, ip, device, beat.culprit)
            if target is None:
                continue
            self.locations.setdefault(target.identity(), beat.culprit)
            if target.key == reporter:
                self.named.add(reporter)
                continue
            if target.key is not None:
                self.named.add(target.key)
            ident = self.ids.processes[reporter]
            self.add(reporter, target, "heartbeat", (beat.stream.path, beat.line),
                     self.clock.align(ident, beat.ts), ident.world, beat.status)

    def _location(self, reporter: ProcessKey, ip: str, device: int | None, text: str
                  ) -> Node | None:
        """The process a heartbeat location names; a peer outside the input; or None when it
        can be no rank of the reporter's communicators, all of whose ranks are present."""
        r = self.resolve
        found = r.host_device(ip, device) if device is not None else None
        if found is None:
            found = r.address(ip) if device is None or ip in r.by_address else None
        if found is not None:
            return Node(found)
        ident = self.ids.processes[reporter]
        comms = [m.comm for m in ident.comms] or [ident.world]
        if ip in r.by_host and comms and all(r.complete(c) for c in comms):
            self.note(say(self.lang, "the cluster heartbeat names {culprit}, which is no rank "
                          "of {label}'s communicators: all their ranks are in the input",
                          culprit=text, label=ident.label()))
            return None
        return Node(None, ip, device=device)

    # ------------------------------------------------------------------ positions

    def _positions(self) -> None:
        by_comm: dict[str, dict[ProcessKey, TaskState]] = {}
        for key, tasks in self.facts.tasks.items():
            for t in tasks:
                comm = t.comm or self.ids.processes[key].world
                if comm:
                    by_comm.setdefault(comm, {}).setdefault(key, t)
        for comm, firsts in sorted(by_comm.items()):
            if len(firsts) < 2:
                continue
            indexed = {k: t.index for k, t in firsts.items() if t.index is not None}
            if len(set(indexed.values())) > 1:
                low, high = min(indexed.values()), max(indexed.values())
                ahead = sorted(k for k, i in indexed.items() if i == high)
                text = ("its failed task is at op index {low} while {ranks} is at {high}: "
                        "{behind} behind (the smallest index is the likely root)"
                        if len(ahead) == 1 else "its failed task is at op index {low} while "
                        "{ranks} are at {high}: {behind} behind (the smallest index is the "
                        "likely root)")
                behind = say.count(self.lang, high - low, "{n} collective", "{n} collectives")
                self._behind(comm, "op-index", firsts,
                             [k for k, i in indexed.items() if i == low],
                             [k for k, i in indexed.items() if i != low],
                             say(self.lang, text, low=low, high=high, behind=behind,
                                 ranks=", ".join(self._rank_label(k) for k in ahead[:4])))
            tags = Counter(t.tag for t in firsts.values())
            if len(tags) > 1:
                (common, n), (_, m) = tags.most_common(2)
                if n > m:
                    odd = [k for k, t in firsts.items() if t.tag != common]
                    for key in odd:
                        self._behind(comm, "op-tag", firsts, [key],
                                     [k for k, t in firsts.items() if t.tag == common],
                                     say(self.lang, "its failed task runs under tag {tag} while "
                                         "the others run {common}: a different collective",
                                         tag=firsts[key].tag, common=common))
        div = self.facts.divergence
        if div is not None:
            where = div.evidence[0] if div.evidence else ("", 0)
            m = div.mismatch
            for target in div.keys:
                rank = self.ids.processes[target].rank_in(m.communicator)
                self.behind.setdefault(target, []).append(
                    ("collective", _divergence_text(m, rank, self.lang), where))
                step = max(1, len(div.others) * len(div.keys) // MAX_POSITION_EDGES)
                for source in div.others[::step]:
                    self.add(source, Node(target), "collective", where, None, m.communicator,
                             m.kind)

    def _rank_label(self, key: ProcessKey) -> str:
        ident = self.ids.processes[key]
        return f"rank {ident.rank}" if ident.rank is not None else ident.label()

    def _behind(self, comm: str, kind: str, firsts: Mapping[ProcessKey, TaskState],
                behind: list[ProcessKey], ahead: list[ProcessKey], text: str) -> None:
        """Edges from the ranks ahead to each rank behind (an even sample of the ranks ahead
        past ``MAX_POSITION_EDGES``, so that many ranks behind cost no square)."""
        if len(behind) > len(ahead):  # most ranks behind: nothing singles out a side
            return
        ahead = sorted(ahead)
        step = max(1, len(ahead) * len(behind) // MAX_POSITION_EDGES)
        for target in sorted(behind):
            t = firsts[target]
            self.behind.setdefault(target, []).append((kind, text, (t.stream.path, t.line)))
            for source in ahead[::step]:
                s = firsts[source]
                self.add(source, Node(target), kind, (s.stream.path, s.line),
                         self.clock.align(self.ids.processes[source], s.ts), comm,
                         f"index {s.index} / {t.index}" if kind == "op-index"
                         else f"tag {s.tag} / {t.tag}")


def _divergence_text(m: CollectiveMismatch, rank: int | None, lang: str = "en") -> str:
    mine = next((v for r, v in m.by_rank if r == rank), None)
    if m.kind == "missing" or mine is None:
        return say(lang, "it never entered collective {seq} of communicator {comm}, which the "
                   "other ranks entered", seq=m.seq, comm=m.communicator)
    others = Counter(v for r, v in m.by_rank if r != rank and v is not None)
    common = others.most_common(1)[0][0] if others else None
    field = {"op": "op", "count": "count", "dtype": "dtype"}[m.kind]
    theirs = getattr(common, field) if common is not None else "?"
    return say(lang, "collective {seq} of communicator {comm}: it entered {kind} {mine} where "
               "the others entered {theirs}", seq=m.seq, comm=m.communicator,
               kind=say(lang, m.kind), mine=getattr(mine, field), theirs=theirs)
