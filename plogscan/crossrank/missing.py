"""Who is missing: ranks and hosts the job had but the input does not contain at all.

A communicator's size (``rankNum``, ``ranks``, ``rankSize``) gives its world; the ranks of it that
no process in the input announced were not collected. Hosts named by the logs (a heartbeat
culprit's server, a peer a rank could not reach) that no process of the input runs on were not
collected either. Ranks that are present but went silent are a different matter: they are
suspects (``silent-rank``), and the advice says what to look at on them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from plogscan.crossrank.facts import Facts
from plogscan.crossrank.graph import WaitGraph
from plogscan.crossrank.identity import Identities, ProcessKey
from plogscan.crossrank.suspects import Verdict
from plogscan.crossrank.words import say

MAX_LISTED = 4096
COLLECT = ("collect each missing host's CANN logs: $HOME/ascend/log (or ASCEND_PROCESS_LOG_PATH) "
           "with debug/ and run/ (plog/ and device-<id>/), and the job's stdout of every rank")


@dataclass(frozen=True)
class Missing:
    ranks: tuple[int, ...]
    hosts: tuple[str, ...]
    advice: tuple[str, ...]


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


def present_ips(ids: Identities) -> tuple[frozenset[str], frozenset[str]]:
    """The host IPs and the device IPs of every process of the input."""
    return (frozenset(i.host_ip for i in ids.processes.values() if i.host_ip),
            frozenset(i.device_ip for i in ids.processes.values() if i.device_ip))


def find(ids: Identities, members: frozenset[ProcessKey], facts: Facts, graph: WaitGraph,
         verdict: Verdict, lang: str = "en",
         known_ips: tuple[frozenset[str], frozenset[str]] | None = None) -> Missing:
    """What the attempt of ``members`` lacks; ``known_ips`` is ``present_ips(ids)`` when the
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
                ips = {e.target.rank: e.target.ip for e in graph.edges.values()
                       if e.target.key is None and e.target.rank is not None and e.target.ip}
                named = [say(lang, "rank {rank} (device IP {ip})", rank=r, ip=ips[r])
                         for r in ranks if r in ips]
                text = ("the input holds {present} of the {size} ranks of communicator {comm}; "
                        "ranks {ranks} are not in it ({named}): collect their logs" if named else
                        "the input holds {present} of the {size} ranks of communicator {comm}; "
                        "ranks {ranks} are not in it: collect their logs")
                advice.append(say(lang, text, present=len(present), size=size, comm=world,
                                  ranks=_ranges(ranks), named="; ".join(named[:8])))
    host_ips, device_ips = known_ips if known_ips is not None else present_ips(ids)
    hosts: set[str] = set()
    for beat in facts.heartbeats:
        ip = beat.culprit.partition("/")[0]
        if ip and ip not in host_ips and ip not in device_ips:
            hosts.add(ip)
    for edge in graph.edges.values():
        if edge.target.key is None and edge.target.ip and edge.target.rank is None \
                and edge.target.ip not in device_ips:
            hosts.add(edge.target.ip)
    if hosts:
        advice.append(say(lang, "hosts {hosts} are named by the logs but not in the input",
                          hosts=", ".join(sorted(hosts))))
    if ranks or hosts:
        advice.append(say(lang, COLLECT))
    silent = [s for s in verdict.suspects if any(r.signal == "silent-rank" for r in s.reasons)]
    for s in silent[:8]:
        advice.append(say(lang, "{label} is in the input but went silent while its peers waited: "
                          "check whether its process hung or exited (py-spy dump --pid, npu-smi "
                          "info, the job's stdout of that rank)",
                          label=ids.processes[s.key].label()))
    return Missing(tuple(ranks), tuple(sorted(hosts)), tuple(advice))
