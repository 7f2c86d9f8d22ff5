"""Root-cause localization: the signals of one attempt fused into ranked suspects.

Signals (each a reason with its evidence lines; weights in ``WEIGHTS``):

* ``error-vs-timeout``: a rank with a real error (a matched finding at level error or above
  that is not a timeout, a wrapper or a report about another rank; an AI CPU task exception
  of a copy task) outranks every rank that only timed out;
* ``earliest-error``: the earliest of those errors on aligned clocks, when it is earlier than
  the next one by more than the clocks' uncertainty;
* ``heartbeat``: the culprit HCCL's cluster heartbeat names (``crimer rank``,
  ``Cluster Exception Location``);
* ``wait-chain``: where the chains of waits end (a rank that waits for nobody, or the last
  rank in the input before a peer that is not); ``cycle``: every rank of a link-setup wait
  cycle (a ring of Notify Waits in which every rank timed out says nothing by itself);
* ``index-mismatch``, ``tag-mismatch``: the ranks whose failed task sat at a smaller op index or
  under a minority tag; ``own-stream``: a rank waiting for its own secondary stream;
* ``silent-rank``: a rank of the communicator that logged neither an error nor a timeout
  while the others waited;
* ``collective-mismatch``, ``config-mismatch``: the odd ranks of ``collectives`` and ``config``.

A suspect's confidence is its share of the total score times the strength of the evidence
(``STRONG`` or more is full strength); ranks of one wait cycle share one share. The verdict is
``localized`` when one suspect (or one cycle) clearly leads, ``ambiguous`` when several are
close, ``undetermined`` when nothing singles out a device.
"""

from __future__ import annotations

from dataclasses import dataclass

from plogscan.crossrank.graph import Node
from plogscan.crossrank.identity import ProcessKey
from plogscan.crossrank.signals import Reason, Signals

STRONG = 5.0
LEAD_SHARE = 0.6  # a suspect group with this share of the score, and LEAD_RATIO times the next
LEAD_RATIO = 1.5
MIN_SCORE = 1.5  # below this nothing singles out a device
MAX_CHAIN = 32


@dataclass(frozen=True)
class Suspect:
    key: ProcessKey
    confidence: float
    score: float
    reasons: tuple[Reason, ...]
    communicator: str | None


@dataclass(frozen=True)
class Verdict:
    verdict: str  # localized | ambiguous | undetermined
    suspects: tuple[Suspect, ...]
    victims: tuple[ProcessKey, ...]
    chain: tuple[Node, ...]
    failed: bool
    notes: tuple[str, ...] = ()  # waits that point nowhere, unmapped heartbeat culprits


class Localizer(Signals):
    """Signals, fused into a verdict."""

    # ------------------------------------------------------------------ fusion

    def verdict(self) -> Verdict:
        facts = self.facts
        if not facts.failed:
            return Verdict("undetermined", (), (), (), False, tuple(self.notes))
        self.errors()
        self.heartbeats()
        self.waits()
        self.positions()
        self.silence()
        self.odd_ranks()
        board = self.board
        scored = {k: board.score(k) for k in board.reasons}
        scored = {k: s for k, s in scored.items() if s > 0}
        order = sorted(scored, key=lambda k: (-scored[k], self.first_ts(k), self._rank(k), k))
        groups: dict[object, list[ProcessKey]] = {}
        for key in order:
            groups.setdefault(board.group.get(key, key), []).append(key)
        group_score = {g: max(scored[k] for k in ks) for g, ks in groups.items()}
        total = sum(group_score.values()) or 1.0
        ranked = sorted(group_score, key=lambda g: (-group_score[g], order.index(groups[g][0])))
        suspects = []
        for g in ranked:
            share = group_score[g] / total
            strength = min(1.0, group_score[g] / STRONG)
            for key in groups[g]:
                suspects.append(Suspect(key, round(share * strength, 2), scored[key],
                                        tuple(board.reasons[key]), self._comm(key)))
        top = group_score[ranked[0]] if ranked else 0.0
        second = group_score[ranked[1]] if len(ranked) > 1 else 0.0
        if not ranked or top < MIN_SCORE:
            verdict = "undetermined"
            suspects = []
        elif len(ranked) == 1 or (top / total >= LEAD_SHARE and top >= LEAD_RATIO * second):
            verdict = "localized"
        else:
            verdict = "ambiguous"
        named = {s.key for s in suspects}
        victims = tuple(sorted((k for k in facts.timeouts if k not in named),
                               key=lambda k: (self._rank(k), k)))
        chain = self._chain(suspects[0].key) if suspects else ()
        return Verdict(verdict, tuple(suspects), victims, chain, True, tuple(self.notes))

    def _rank(self, key: ProcessKey) -> int:
        rank = self.ids.processes[key].rank
        return rank if rank is not None else 1 << 30

    def _comm(self, key: ProcessKey) -> str | None:
        edge = self.graph.edges.get(key)
        if edge is not None and edge.comm:
            return edge.comm
        tasks = self.facts.tasks.get(key)
        if tasks and tasks[0].comm:
            return tasks[0].comm
        return self.ids.processes[key].world

    def _chain(self, root: ProcessKey) -> tuple[Node, ...]:
        walk = self.walks.get(root)
        if walk is not None and walk.end == "cycle" and walk.link_cycle and len(walk.cycle) > 1:
            ring = self.ring(walk.cycle)
            return tuple(Node(k) for k in (*ring, ring[0]))
        path = [Node(k) for k in self.graph.pointing_at(root)][-MAX_CHAIN:]
        if walk is not None and walk.end == "missing" and walk.last == root and walk.missing:
            path.append(walk.missing)
        return tuple(path) if len(path) > 1 else ()


