"""Read one record's message into the anchor records of the summary.

``read_anchor`` is called only for the rows ``patterns.PREFILTER`` selected; it recognises
every shape of ``plogscan.crossrank.patterns`` a message holds and hands each result to the
sink's ``add(list_name, item)``, which applies the caps.
"""

from __future__ import annotations

import re
from typing import Protocol

from plogscan.crossrank import patterns as p
from plogscan.crossrank.links import link_rows
from plogscan.crossrank.summary import (
    Announce,
    Fault,
    Heartbeat,
    Marker,
    Roster,
    Setting,
    StreamKey,
    TaskState,
    Wait,
)

_SIZE_KEYS = ("rankNum", "ranks", "totalRanks", "rankSize", "rank_size")
_RANK_KEYS = ("rank", "rankId", "userRank", "rankID")
_LOGIC_KEYS = ("logicDevId", "deviceLogicId", "logicDeviceId", "devLogicId")
_PHY_KEYS = ("phydevId", "devicePhyId", "phyDevId", "devPhyId")
_SERVER_KEYS = ("server", "hostIp", "serverId")
_LEADING_INT = re.compile(r"\s*(\d+)")


class Sink(Protocol):
    def add(self, name: str, item: object) -> None: ...


def read_anchor(sink: Sink, key: StreamKey, line: int, ts: int | None, msg: str) -> None:
    """Add every anchor that ``msg`` (the message of the record at ``line``) holds."""
    announce = _announce(key, line, ts, msg)
    if announce is not None:
        sink.add("announces", announce)
    for address in _addresses(key, line, ts, msg, announce):
        sink.add("announces", address)
    for wait in _waits(sink, key, line, ts, msg):
        sink.add("waits", wait)
    task = _task(key, line, ts, msg)
    if task is not None:
        sink.add("tasks", task)
    for beat in _heartbeats(key, line, ts, msg):
        sink.add("heartbeats", beat)
    for setting in _settings(key, line, ts, msg):
        sink.add("settings", setting)
    if p.RESUME.search(msg):
        sink.add("markers", Marker(key, line, ts, "resume"))
    elif p.PROCESS_START.search(msg):
        sink.add("markers", Marker(key, line, ts, "start"))
    if p.REMOTE_REPORT.search(msg):
        sink.add("faults", Fault(key, line, ts, "SUSPECT REMOTE ERROR", remote=True))


def first_int(text: str | None) -> int | None:
    """The leading number of ``text`` (``3 4294967295`` -> 3); None when there is none."""
    if text is None:
        return None
    m = _LEADING_INT.match(text)
    return p.int_or_none(m.group(1)) if m else None


def comm_name(identifier: str | None) -> str | None:
    """A communicator name: ``hccl-1382-5-17543-hccl_world_group`` -> ``hccl_world_group``."""
    if not identifier:
        return None
    m = p.COMM_ID.match(identifier)
    return m.group("name") if m else identifier


def tag_comm(tag: str | None) -> str | None:
    """The communicator named in a collective tag: ``AllReduce_<identifier>`` -> identifier."""
    if not tag:
        return None
    _head, sep, rest = tag.partition("_")
    return rest if sep and rest else None


def _line_of(msg: str, match: re.Match[str]) -> str:
    start = msg.rfind("\n", 0, match.start()) + 1
    end = msg.find("\n", match.end())
    return msg[start:] if end < 0 else msg[start:end]


def _announce(key: StreamKey, line: int, ts: int | None, msg: str) -> Announce | None:
    m = p.ANNOUNCE.search(msg)
    if m is None:
        return None
    text = _line_of(msg, m)
    word = m.group(0)
    pairs: dict[str, str] = {}
    for name, value in p.PAIR.findall(text):
        pairs.setdefault(name, value)

    def pick(names: tuple[str, ...]) -> str | None:
        return next((pairs[n] for n in names if n in pairs), None)

    comm = comm_name(pairs.get("identifier"))
    if word.startswith("SetupAgent"):
        kind = "setup-agent"
    elif word.startswith("Entry-"):
        kind = "init-entry"
    elif "success" in word:
        kind = "init-success"
    elif word.startswith("hcclCommInitInfo"):
        kind = "comm-info"
        comm = comm or comm_name(pairs.get("commId"))
    elif word.startswith("[Communicator"):
        kind = "key-info"
    elif word.startswith("[LocalRank"):
        kind = "key-info-local"
    elif word.startswith("groupRank"):
        kind = "group-rank"
        g = p.GROUP_COLON.search(text)
        comm = g.group("group") if g else comm
    else:
        kind = "hcom-init"
        b = p.BRACKET_COMM_ID.search(text)
        comm = comm or (comm_name(b.group(1)) if b else None)
    rank = first_int(pick(_RANK_KEYS))
    if kind == "key-info":
        rank = None
    return Announce(
        stream=key, line=line, ts=ts, kind=kind, comm=comm or None, rank=rank,
        size=first_int(pick(_SIZE_KEYS)), logic_device=first_int(pick(_LOGIC_KEYS)),
        phy_device=first_int(pick(_PHY_KEYS)), device_ip=p.ip_of(pairs.get("deviceIp")),
        server_ip=p.ip_of(pick(_SERVER_KEYS)),
        root_ip=p.ip_of(pairs.get("ip")) if kind == "init-entry" else None)


def _addresses(key: StreamKey, line: int, ts: int | None, msg: str,
               announce: Announce | None) -> list[Announce]:
    """What a record says about its own process's addresses outside a communicator
    announcement: ``hostIp[..]``, ``local address ..``, ``listen on ip[..] .. devPhyId[..]``,
    the node a connection detector runs on, the own rank of a socket wait, the local end of
    a TCP-store socket; and rank-table rows (``userRank[1], deviceIp[..], hostIp[..]``), which
    may name any rank (kind ``rank-info``)."""
    out = []
    if announce is None and ("hostIp[" in msg or "devPhyId[" in msg or "local address" in msg
                             or "isten on ip[" in msg):
        pairs: dict[str, str] = {}
        for name, value in p.PAIR.findall(msg):
            pairs.setdefault(name, value)
        local = p.LOCAL_ADDRESS.search(msg)
        listen = p.LISTEN_ON.search(msg)
        rank = first_int(next((pairs[n] for n in _RANK_KEYS if n in pairs), None))
        out.append(Announce(
            key, line, ts, "rank-info" if rank is not None else "address", None, rank, None,
            logic_device=first_int(next((pairs[n] for n in _LOGIC_KEYS if n in pairs), None)),
            phy_device=first_int(next((pairs[n] for n in _PHY_KEYS if n in pairs), None)),
            device_ip=p.ip_of(pairs.get("deviceIp")),
            server_ip=p.ip_of(pairs.get("hostIp")) or (p.ip_of(local.group("ip")) if local
                                                      else None),
            listen_ip=p.ip_of(listen.group("ip")) if listen else None))
    node = p.THIS_NODE.search(msg) if "This node" in msg else None
    if node:
        out.append(Announce(key, line, ts, "address", None, None, None,
                            phy_device=p.int_or_none(node.group("device")),
                            server_ip=p.ip_of(node.group("ip"))))
    own = p.SOCKET_WAIT.search(msg) if "socket establish" in msg else None
    if own:
        out.append(Announce(key, line, ts, "own-rank", None, p.int_or_none(own.group("rank")),
                            None))
    store = p.STORE_WAIT.search(msg) if "waitForInput" in msg else None
    if store:
        out.append(Announce(key, line, ts, "address", None, None, None,
                            server_ip=p.ip_of(store.group("local"))))
    return out


def _waits(sink: Sink, key: StreamKey, line: int, ts: int | None, msg: str) -> list[Wait]:
    """Every "I waited for X" the record says (formats.md §7 rows 7-11)."""
    out: list[Wait] = [
        Wait(key, line + row.offset, ts, "socket", None, row.dest_rank, peer_ip=row.dest_ip,
             local_rank=row.src_rank, local_ip=row.src_ip,
             detail=f"{row.role} {row.status}".strip())
        for row in link_rows(msg)]
    tag = p.TAG.search(msg)
    comm = tag_comm(tag.group("tag")) if tag else None
    task = p.TASK_TYPE.search(msg)
    if task and task.group("type").strip() not in p.WAIT_TASK_TYPES:
        # a failed copy or reduce names its remote rank: its own failure, not a wait
        sink.add("faults", Fault(key, line, ts, task.group("type").strip()))
    else:
        for pattern in (p.REMOTE_RANK, p.EI0002_REMOTE):
            r = pattern.search(msg)
            if r:
                peer = r.group("peer").strip()
                rank = p.int_or_none(peer)
                out.append(Wait(key, line, ts, "notify", comm, rank,
                                own_stream=peer.lower() == "local", detail="Notify Wait",
                                unnamed=rank is None and peer.lower() != "local"))
                break
    a = p.AICPU_BASE.search(msg) if "base information is" in msg else None
    if a:
        task_type = a.group("type").strip()
        if task_type in p.WAIT_TASK_TYPES:
            rank = p.int_or_none(a.group("peer"))
            out.append(Wait(key, line, ts, "notify", None, rank,
                            local_rank=p.int_or_none(a.group("local")), detail=task_type,
                            unnamed=rank is None))
        else:
            sink.add("faults", Fault(key, line, ts, task_type))
    t = p.TRANSPORT.search(msg) if "remoteUserrank" in msg else None
    if t:
        out.append(Wait(key, line, ts, "socket", comm, p.int_or_none(t.group("peer")),
                        peer_ip=p.ip_of(t.group("ip")), detail="transport set-up"))
    for d in p.DST_RANK.finditer(msg) if "dstRank" in msg else ():
        for device in d.group("devices").split(","):
            out.append(Wait(key, line, ts, "socket", comm, None, peer_host=p.ip_of(d.group("ip")),
                            peer_device=p.int_or_none(device), local_ip=d.group("src_ip"),
                            detail="connect timeout detect"))
    for pattern in (p.P2P_TIMEOUT, p.P2P_ENABLE) if "P2P" in msg or "p2p" in msg else ():
        m = pattern.search(msg)
        if m:
            out.append(Wait(key, line, ts, "p2p", comm, None,
                            peer_device=p.int_or_none(m.group("device")), detail="P2P"))
    if any(text in msg for text in p.RENDEZVOUS_LITERALS):
        out.extend(_rendezvous(sink, key, line, ts, msg))
    for c in p.CQE_REMOTE.finditer(msg) if "remoteIP" in msg else ():
        ip = p.ip_of(c.group("ip")) or p.ip_of(c.group("bare"))
        host = p.ip_of(c.group("host"))
        if ip or host:
            out.append(Wait(key, line, ts, "roce", comm, None, peer_ip=ip, peer_host=host,
                            detail="ERROR CQE"))
    return out


def _rendezvous(sink: Sink, key: StreamKey, line: int, ts: int | None, msg: str
                ) -> list[Wait]:
    """Root-info rendezvous: an agent waits for the server it could not reach, the server for
    the ranks that never connected (named, or left out of its list of connected ranks); and
    torch's TCP store, which every rank waits on at start-up."""
    out = []
    server = p.CONNECT_SERVER.search(msg)
    if server or p.TOPO_AGENT.search(msg):
        out.append(Wait(key, line, ts, "rendezvous", None, None,
                        peer_host=p.ip_of(server.group("ip")) if server else None,
                        detail="root-info server", unnamed=server is None))
    agents = p.FAILED_AGENTS.search(msg)
    if agents:
        for rank in agents.group("ranks").split(","):
            if (number := p.int_or_none(rank)) is not None:
                out.append(Wait(key, line, ts, "rendezvous", None, number,
                                detail="root-info agent"))
    if p.TOPO_SERVER.search(msg):
        out.append(Wait(key, line, ts, "rendezvous", None, None, detail="root-info agents",
                        unnamed=True))
    connected = p.CONNECTED.search(msg)
    if connected:
        ranks = tuple(int(r) for r in re.findall(r"\[(\d+)\]", connected.group("ranks")))
        sink.add("rosters", Roster(key, line, ts, "connected", ranks))
    need = p.NEED_RANKS.search(msg)
    if need:
        sink.add("rosters", Roster(key, line, ts, "need", size=p.int_or_none(need.group("size"))))
    store = p.STORE_WAIT.search(msg)
    if store:
        out.append(Wait(key, line, ts, "rendezvous", None, None, peer_host=p.ip_of(store["ip"]),
                        local_ip=p.ip_of(store["local"]), detail="TCP store"))
    return out


def _task(key: StreamKey, line: int, ts: int | None, msg: str) -> TaskState | None:
    m = p.BASE_INFO.search(msg)
    if m:
        return TaskState(key, line, ts, tag_comm(m.group("tag")), m.group("tag"),
                         p.int_or_none(m.group("index")), m.group("type"))
    m = p.OPDATA.search(msg)
    if m:
        return TaskState(key, line, ts, m.group("group").strip() or None, m.group("tag").strip(),
                         p.int_or_none(m.group("index")), "")
    return None


def _heartbeats(key: StreamKey, line: int, ts: int | None, msg: str) -> list[Heartbeat]:
    out: list[Heartbeat] = []
    if not any(text in msg for text in p.HEARTBEAT_LITERALS):
        return out
    for pattern in (p.CRIMER, p.TRACE_RANK, p.LOCATION, p.LOST_PAIR):
        for m in pattern.finditer(msg):
            out.append(Heartbeat(key, line + msg.count("\n", 0, m.start()), ts,
                                 m.group("crimer").strip(), (m.group("status") or "").strip(),
                                 m.group("informer")))
    for m in p.SERVER_DEVICE.finditer(msg):
        out.append(Heartbeat(key, line + msg.count("\n", 0, m.start()), ts,
                             f"{m.group('ip').strip()}/{m.group('id')}", m.group("status"), None))
    return out


def _settings(key: StreamKey, line: int, ts: int | None, msg: str) -> list[Setting]:
    out: list[Setting] = []
    seen: set[str] = set()
    patterns = p.SETTINGS if any(text in msg for text in p.SETTINGS_LITERALS) else ()
    for pattern in patterns:
        for m in pattern.finditer(msg):
            name = p.KEY_ALIASES.get(m.group("key"), m.group("key"))
            if name in seen:
                continue
            seen.add(name)
            groups = m.groupdict()
            value = (groups.get("value") or "") + (groups.get("unit") or "")
            if not value and "is not set" in m.group(0):
                value = "(not set)"
            out.append(Setting(key, line, ts, name, value, groups.get("source")))
    if "get ASCEND_" in msg:
        for m in p.ASCEND_ENV.finditer(msg):
            if m.group("key") not in seen:
                seen.add(m.group("key"))
                out.append(Setting(key, line, ts, m.group("key"), m.group("value"), None))
    return out
