"""Read one record's message into the anchor records of the summary.

``read_anchor`` is called only for the rows ``patterns.PREFILTER`` selected; it recognises
every shape of ``plogscan.crossrank.patterns`` a message holds and hands each result to the
sink's ``add(list_name, item)``, which applies the caps.
"""

from __future__ import annotations

import re
from typing import Protocol

from plogscan.crossrank import patterns as p
from plogscan.crossrank.summary import (
    Announce,
    Fault,
    Heartbeat,
    Marker,
    Setting,
    StreamKey,
    TaskState,
    Wait,
)

_SIZE_KEYS = ("rankNum", "ranks", "totalRanks", "rankSize", "rank_size")
_RANK_KEYS = ("rank", "rankId", "userRank", "rankID")
_LOGIC_KEYS = ("logicDevId", "deviceLogicId", "logicDeviceId")
_PHY_KEYS = ("phydevId", "devicePhyId", "phyDevId")
_SERVER_KEYS = ("server", "hostIp", "serverId")
_LEADING_INT = re.compile(r"\s*(\d+)")


class Sink(Protocol):
    def add(self, name: str, item: object) -> None: ...


def read_anchor(sink: Sink, key: StreamKey, line: int, ts: int | None, msg: str) -> None:
    """Add every anchor that ``msg`` (the message of the record at ``line``) holds."""
    announce = _announce(key, line, ts, msg)
    if announce is not None:
        sink.add("announces", announce)
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
        server_ip=p.ip_of(pick(_SERVER_KEYS)))


def _waits(sink: Sink, key: StreamKey, line: int, ts: int | None, msg: str) -> list[Wait]:
    out: list[Wait] = []
    for m in p.LINK_ROW.finditer(msg):  # each data row of a LINK_ERROR_INFO table
        out.append(Wait(key, line, ts, "link", None, p.int_or_none(m.group("dest_rank")),
                        peer_ip=m.group("dest_ip"), local_rank=p.int_or_none(m.group("src_rank")),
                        local_ip=m.group("src_ip"),
                        detail=f"{m.group('role')} {m.group('status')}".strip()))
    tag = p.TAG.search(msg)
    comm = tag_comm(tag.group("tag")) if tag else None
    for pattern in (p.REMOTE_RANK, p.EI0002_REMOTE):
        r = pattern.search(msg)
        if r:
            peer = r.group("peer").strip()
            out.append(Wait(key, line, ts, "notify", comm, p.int_or_none(peer),
                            own_stream=peer.lower() == "local", detail="Notify Wait"))
            break
    a = p.AICPU_BASE.search(msg)
    if a:
        task_type = a.group("type").strip()
        if task_type in p.WAIT_TASK_TYPES:
            out.append(Wait(key, line, ts, "notify", None, p.int_or_none(a.group("peer")),
                            local_rank=p.int_or_none(a.group("local")), detail=task_type))
        else:
            sink.add("faults", Fault(key, line, ts, task_type))
    for pattern, kind in ((p.TRANSPORT, "link"), (p.SOCKET_WAIT, "link")):
        t = pattern.search(msg)
        if t:
            ip = t.groupdict().get("ip")
            out.append(Wait(key, line, ts, kind, comm, p.int_or_none(t.group("peer")),
                            peer_ip=ip or None, detail="link setup"))
    d = p.DST_RANK.search(msg)
    if d:
        out.append(Wait(key, line, ts, "link", comm, None, peer_ip=d.group("ip"),
                        detail=f"device {d.group('device')}"))
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
    out = []
    for m in p.CRIMER.finditer(msg):
        out.append(Heartbeat(key, line, ts, m.group("crimer"), m.group("status"),
                             m.group("informer")))
    for m in p.LOCATION.finditer(msg):
        out.append(Heartbeat(key, line, ts, m.group("crimer"), m.group("status") or "",
                             m.group("informer")))
    for m in p.LOST_PAIR.finditer(msg):
        out.append(Heartbeat(key, line, ts, m.group("crimer"), m.group("status"),
                             m.group("informer")))
    for m in p.CQE_REMOTE.finditer(msg):
        out.append(Heartbeat(key, line, ts, m.group("crimer"), "ERROR CQE", None))
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
