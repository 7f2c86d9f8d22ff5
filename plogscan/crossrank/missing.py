"""Who is missing: ranks and hosts the job had but the input does not contain at all.

A communicator's size (``rankNum``, ``ranks``, ``rankSize``) gives its world; the ranks of it that
no process in the input announced were not collected. Peers the wait graph names that no
process of the input is (a heartbeat location, a peer a rank could not reach) were not
collected either: each suspect outside the input says which rank or host to collect. An
address that a process of the input announced as its own (its host IP, its device IP, one it
listens on) is never missing. Ranks that are present but went silent are suspects in their
own right, and the advice says what to look at on them.
"""

from __future__ import annotations

from collections import Counter

from plogscan.crossrank.decide import Decision
from plogscan.crossrank.identity import Identities, ProcessKey
from plogscan.crossrank.resolve import Node
from plogscan.crossrank.words import say
from plogscan.model import MissingReport

MAX_LISTED = 4096
COLLECT = ("collect each missing host's CANN logs: $HOME/ascend/log (or ASCEND_PROCESS_LOG_PATH) "
           "with debug/ and run/ (plog/ and device-<id>/), and the job's stdout of every rank")


def _ranges(values: list[int]) -> str:
    out, start, prev = [], None, None
    for v in values:
        if start is None:
            start = prev = v
        elif v == prev + 1:  # type: ignore[operator]
            prev = v
        else:
            out.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = prev = v
    if start is not None:
        out.append(f"{start}" if start == prev else f"{start}-{prev}")
    return ", ".join(out)


def present_ips(ids: Identities) -> frozenset[str]:
    """Every address a process of the input announced as its own."""
    return frozenset(ip for i in ids.processes.values()
                     for ip in (*i.addresses, i.host_ip, i.device_ip) if ip)


def find(ids: Identities, members: frozenset[ProcessKey], decision: Decision,
         lang: str = "en", known: frozenset[str] | None = None) -> MissingReport:
    """What the attempt of ``members`` lacks; ``known`` is ``present_ips(ids)`` when the
    caller has it (computed once for all attempts)."""
    idents = [ids.processes[k] for k in sorted(members)]
    worlds = Counter(i.world for i in idents if i.world)
    advice: list[str] = []
    ranks: list[int] = []
    if worlds:
        world = worlds.most_common(1)[0][0]
        sizes = [m.size for i in idents for m in i.comms if m.comm == world and m.size]
        present = {r for i in idents if (r := i.rank_in(world)) is not None}
        if sizes:
            size = max(sizes)
            ranks = sorted(set(range(size)) - present)[:MAX_LISTED]
            if ranks:
                ips = {n.rank: n.ip for e in decision.graph.edges
                       if (n := e.target).key is None and n.rank is not None and n.ip}
                named = [say(lang, "rank {rank} (device IP {ip})", rank=r, ip=ips[r])
                         for r in ranks if r in ips]
                text = ("the input holds {present} of the {size} ranks of communicator {comm}; "
                        "ranks {ranks} are not in it ({named}): collect their logs" if named else
                        "the input holds {present} of the {size} ranks of communicator {comm}; "
                        "ranks {ranks} are not in it: collect their logs")
                advice.append(say(lang, text, present=len(present), size=size, comm=world,
                                  ranks=_ranges(ranks), named="; ".join(named[:8])))
    known = known if known is not None else present_ips(ids)
    hosts: set[str] = set()
    for e in decision.graph.edges:
        node = e.target
        if node.key is None and node.ip and node.rank is None and node.ip not in known:
            hosts.add(node.ip)
    for group in decision.groups:
        for node in group.nodes:
            if node.key is None:
                advice.append(say.count(
                    lang, len(group.waiters), "missing: collect the logs of {peer}, which the "
                    "wait of {n} rank leads to", "missing: collect the logs of {peer}, which the "
                    "waits of {n} ranks lead to", peer=_peer(node)))
    if hosts:
        advice.append(say.count(lang, len(hosts), "host {hosts} is named by the logs but not in "
                                "the input", "hosts {hosts} are named by the logs but not in the "
                                "input", hosts=", ".join(sorted(hosts))))
    if ranks or hosts:
        advice.append(say(lang, COLLECT))
    silent = [n for g in decision.groups if g.end == "silent" for n in g.nodes]
    for node in silent[:8]:
        advice.append(say(lang, "{label} is in the input but went silent while its peers waited: "
                          "check whether its process hung or exited (py-spy dump --pid, npu-smi "
                          "info, the job's stdout of that rank)",
                          label=ids.processes[node.key].label()))  # type: ignore[index]
    return MissingReport(tuple(ranks), tuple(sorted(hosts)), tuple(advice))


def _peer(node: Node) -> str:
    if node.rank is not None:
        return f"rank {node.rank}" + (f" ({node.ip})" if node.ip else "")
    return node.label()
