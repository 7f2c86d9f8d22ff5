"""Who each process is: rank, device, host, communicators, taken from content first.

A process is a host process: the ``(host, pid)`` of its plogs. Its streams are the records it
wrote in each file, and a device log named after a host pid (``device-<pid>_<ts>.log``, written
by the device's aicpu_scheduler under its own pid) belongs to that host process, as does each
section of a pasted ``==> path <==`` concatenation to the process its path names. What one
record says (``SetupAgent ... rank[2] ... logicDevId[1]`` in the run plog) holds for every record
of the process (its debug plog, its device log).

Precedence for each field: a communicator announcement in the content, then the record
columns the parser filled from the content (``(PID:…, Device:…, RankID:…)``, ``[rankN]:``),
then the path (``worker-1``, ``rank_3``, ``device-2``). A file whose records carry no pid at all
(an excerpt pasted from an issue) is a process of its own, and its identity is ``assumed``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass

from plogscan.crossrank.summary import Announce, StreamKey, StreamStats, Summary
from plogscan.ingest.pathhints import path_hints

WORLD = "hccl_world_group"
# Announcement kinds in the order their rank is trusted (the rendezvous line first).
_KIND_ORDER = ("setup-agent", "init-entry", "init-success", "comm-info", "key-info-local",
               "group-rank", "hcom-init", "key-info")
_KIND_RANK = {k: i for i, k in enumerate(_KIND_ORDER)}
_DEVICE_LOG = re.compile(r"(?:^|[/!])device-(?:app-)?\d+_\d+\.log$")


@dataclass(frozen=True, order=True)
class ProcessKey:
    """``(host, pid)`` of a host process; ``file`` names the file (and section) standing in
    for a process whose records carry no pid."""

    host: str
    pid: int
    file: str = ""

    @property
    def assumed(self) -> bool:
        return bool(self.file)


@dataclass(frozen=True)
class Membership:
    comm: str
    rank: int | None
    size: int | None


@dataclass(frozen=True)
class Identity:
    key: ProcessKey
    host: str | None  # the tree's name for the host, else its IP
    host_ip: str | None
    rank: int | None  # rank in the world communicator when known
    device: int | None  # logical device id
    phy_device: int | None
    device_ip: str | None
    pid: int | None  # host process id
    source: str  # content | path | assumed
    comms: tuple[Membership, ...]
    world: str | None  # the communicator ``rank`` is counted in
    streams: tuple[StreamKey, ...]
    first_ts: int | None
    last_ts: int | None
    records: int
    errors: int

    @property
    def clock_host(self) -> str:
        """The clock domain: every process of one host shares its clock."""
        return self.host or self.host_ip or ""

    def rank_in(self, comm: str | None) -> int | None:
        for m in self.comms:
            if m.comm == comm:
                return m.rank
        return None

    def label(self) -> str:
        """``worker-1 device-3`` (physical id when logged, as ascend-fd names devices)."""
        device = self.phy_device if self.phy_device is not None else self.device
        parts = [self.host or self.host_ip or ""]
        if device is not None:
            parts.append(f"device-{device}")
        elif self.rank is not None:
            parts.append(f"rank {self.rank}")
        elif self.pid is not None:
            parts.append(f"pid {self.pid}")
        return " ".join(p for p in parts if p) or (self.key.file or "?")


@dataclass(frozen=True)
class _Hints:
    host: str | None
    rank: int | None
    device: int | None
    pid: int | None
    device_log: bool


class Identities:
    """Processes and the maps from streams and records to them."""

    def __init__(self, summary: Summary) -> None:
        self._headers: dict[str, list[int]] = {}
        self._names: dict[tuple[str, int], str] = {}
        for seg in summary.segments:
            self._headers.setdefault(seg.path, []).append(seg.line)
            self._names[(seg.path, seg.index)] = seg.name
        self._hints: dict[tuple[str, int], _Hints] = {}
        self.of_stream: dict[StreamKey, ProcessKey] = {}
        self.processes: dict[ProcessKey, Identity] = {}
        self._build(summary)
        # (path, section) -> the clock host of its processes (the first stream's, in the
        # summary's order); path -> its section header lines
        self.file_host: dict[tuple[str, int], str] = {}
        self.segmented: dict[str, list[int]] = self._headers
        # (host as the table names it, pid as the records carry it) -> process
        self.by_record_pid: dict[tuple[str, int], ProcessKey] = {}
        for stream in summary.streams:
            k = stream.key
            key = self.of_stream[k]
            if (k.path, k.segment) not in self.file_host:
                self.file_host[(k.path, k.segment)] = self.processes[key].clock_host
            if k.pid is not None:
                self.by_record_pid.setdefault((stream.host or "", k.pid), key)

    def hints(self, path: str, segment: int) -> _Hints:
        key = (path, segment)
        found = self._hints.get(key)
        if found is None:
            name = self._names.get(key, path) if segment else path
            host, rank, device, pid = path_hints(name)
            found = self._hints[key] = _Hints(host, rank, device, pid,
                                              bool(_DEVICE_LOG.search(name)))
        return found

    def segment_of(self, path: str, line: int) -> int:
        lines = self._headers.get(path)
        return bisect.bisect_right(lines, line) if lines else 0

    def of_record(self, path: str, line: int, pid: int | None) -> Identity | None:
        key = self.of_stream.get(StreamKey(path, self.segment_of(path, line), pid))
        return self.processes.get(key) if key is not None else None

    # ------------------------------------------------------------------ building

    def _build(self, summary: Summary) -> None:
        by_stream: dict[StreamKey, list[Announce]] = {}
        for a in summary.announces:
            by_stream.setdefault(a.stream, []).append(a)
        members: dict[ProcessKey, list[StreamStats]] = {}
        pidless: list[StreamStats] = []
        for stream in summary.streams:
            key = self._process_key(stream)
            if key is None:
                pidless.append(stream)
            else:
                self.of_stream[stream.key] = key
                members.setdefault(key, []).append(stream)
        owners_of: dict[tuple[str, int], set[ProcessKey]] = {}
        for stream in summary.streams if pidless else ():
            if stream.key.pid is not None and stream.key in self.of_stream:
                owners_of.setdefault((stream.key.path, stream.key.segment), set()).add(
                    self.of_stream[stream.key])
        for stream in pidless:  # a pid-less record joins the one process of its file section
            k = stream.key
            owners = set(owners_of.get((k.path, k.segment), ()))
            if len(owners) == 1:
                key = owners.pop()
            else:
                host = self.hints(k.path, k.segment).host or stream.host or ""
                key = ProcessKey(host, -1, f"{k.path}#{k.segment}" if k.segment else k.path)
            self.of_stream[k] = key
            members.setdefault(key, []).append(stream)
        for key, streams in members.items():
            announces = [a for s in streams for a in by_stream.get(s.key, ())] \
                if by_stream else []
            self.processes[key] = self._identity(key, streams, announces)

    def _process_key(self, stream: StreamStats) -> ProcessKey | None:
        k = stream.key
        hints = self.hints(k.path, k.segment)
        host = hints.host or stream.host or ""
        pid = hints.pid if (hints.device_log or stream.kind == "device-app") and hints.pid \
            else (k.pid if k.pid is not None else hints.pid)
        return ProcessKey(host, pid) if pid is not None else None

    def _identity(self, key: ProcessKey, streams: list[StreamStats],
                  announces: list[Announce]) -> Identity:
        if len(streams) == 1 and not announces:  # most processes of a big job
            return self._quiet_identity(key, streams[0])
        hints = [self.hints(s.key.path, s.key.segment) for s in streams]
        comms: tuple[Membership, ...] = ()
        world = rank = device = phy_device = device_ip = host_ip = None
        if announces:  # most processes of a big job announce nothing: skip the lookups
            comms = _memberships(announces)
            world = next((m.comm for m in comms if m.comm == WORLD), None)
            if world is None and comms:
                world = max(comms, key=lambda m: (m.size or 0, m.rank is not None)).comm
            rank = next((m.rank for m in comms if m.comm == world and m.rank is not None),
                        None)
            if rank is None:
                rank = next((m.rank for m in comms if m.rank is not None), None)
            ordered = _ordered(announces)
            device = next((a.logic_device for a in ordered if a.logic_device is not None), None)
            phy_device = next((a.phy_device for a in ordered if a.phy_device is not None), None)
            device_ip = next((a.device_ip for a in ordered if a.device_ip), None)
            host_ip = next((a.server_ip for a in ordered if a.server_ip), None)
        content = bool(announces)
        if rank is None:
            rank, from_content = _column(streams, hints, "rank")
            content = content or from_content
        if device is None:
            device, from_content = _column(streams, hints, "device")
            content = content or from_content
        source = "assumed" if key.assumed else "content" if content else "path"
        host = key.host or host_ip
        times = [t for s in streams for t in (s.first_ts, s.last_ts) if t is not None]
        return Identity(
            key=key, host=host or None, host_ip=host_ip, rank=rank, device=device,
            phy_device=phy_device, device_ip=device_ip,
            pid=None if key.assumed else key.pid, source=source, comms=comms, world=world,
            streams=tuple(s.key for s in streams) if len(streams) == 1 else tuple(
                sorted((s.key for s in streams), key=StreamKey.order)),
            first_ts=min(times) if times else None, last_ts=max(times) if times else None,
            records=sum(s.records for s in streams), errors=sum(s.errors for s in streams))

    def _quiet_identity(self, key: ProcessKey, stream: StreamStats) -> Identity:
        """``_identity`` of a process that announces nothing and wrote one stream: its rank
        and device are the stream's (from content where they differ from the path's), else
        the path's."""
        streams, hints = [stream], [self.hints(stream.key.path, stream.key.segment)]
        rank, rank_content = _column(streams, hints, "rank")
        device, device_content = _column(streams, hints, "device")
        content = rank_content or device_content
        times = [t for t in (stream.first_ts, stream.last_ts) if t is not None]
        return Identity(
            key=key, host=key.host or None, host_ip=None, rank=rank, device=device,
            phy_device=None, device_ip=None, pid=None if key.assumed else key.pid,
            source="assumed" if key.assumed else "content" if content else "path", comms=(),
            world=None, streams=(stream.key,), first_ts=min(times) if times else None,
            last_ts=max(times) if times else None, records=stream.records,
            errors=stream.errors)


def _ordered(announces: Iterable[Announce]) -> list[Announce]:
    return sorted(announces, key=lambda a: (_KIND_RANK.get(a.kind, 99), a.stream.order(),
                                            a.line))


def _memberships(announces: list[Announce]) -> tuple[Membership, ...]:
    """Each communicator the process announced, with its rank and size in it."""
    if not announces:
        return ()
    latest_comm: dict[StreamKey, tuple[str | None, int | None]] = {}
    filled: list[Announce] = []
    for a in sorted(announces, key=lambda a: (a.stream.order(), a.line)):
        if a.kind == "key-info":
            latest_comm[a.stream] = (a.comm, a.size)
        elif a.kind == "key-info-local":
            comm, size = latest_comm.get(a.stream, (None, None))
            a = Announce(a.stream, a.line, a.ts, a.kind, comm, a.rank, size or a.size,
                         a.logic_device, a.phy_device, a.device_ip, a.server_ip)
        filled.append(a)
    found: dict[str, Membership] = {}
    for a in _ordered(filled):
        if not a.comm:
            continue
        old = found.get(a.comm)
        if old is None:
            found[a.comm] = Membership(a.comm, a.rank, a.size)
        elif old.rank is None or old.size is None:
            found[a.comm] = Membership(a.comm, old.rank if old.rank is not None else a.rank,
                                       old.size if old.size is not None else a.size)
    return tuple(sorted(found.values(), key=lambda m: m.comm))


def _column(streams: list[StreamStats], hints: list[_Hints], name: str
            ) -> tuple[int | None, bool]:
    """The rank or device the parser put in the records, and whether it came from content
    (it differs from what the path says, or the path says nothing)."""
    for stream, hint in zip(streams, hints, strict=True):
        value = getattr(stream, name)
        if value is not None:
            return value, value != getattr(hint, name)
    for hint in hints:
        value = getattr(hint, name)
        if value is not None:
            return value, False
    return None, False
