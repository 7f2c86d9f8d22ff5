"""Who each process is: rank, device, host, addresses, communicators, taken from content first.

A process is a host process, and the file names it: the pid in ``plog-<pid>_<ts>.log`` (or
``plog-parser-<pid>-<n>.log``, ``device-<pid>_<ts>.log``, a ``device-app-<pid>/`` directory, a
``==> path <==`` section of a pasted concatenation) owns every record of the file, whatever pid
its lines print: device logs are written by the device's aicpu_scheduler under its own pid,
and collections rewrite the pids in the lines. The pid a line prints is kept with its record
(the event table's ``pid``); a line pid other than the file's makes a process of its own only
when the file's pid writes there too and the other pid announces an identity of its own (its
own ``SetupAgent``, a listening address, a rank). A file whose name holds no pid is keyed by
the pids of its lines; records without any pid join the process of their file section, else
the one process of their host with the rank their line names (``[rank1]:``, ``rank_1/``), else
the only process of their host; failing all of those they are a process of their own,
``assumed``.

Each field comes from every announcement the process makes, content first: the communicator
announcements (``SetupAgent``, ``HcclCommInitRootInfo``, ``hcclCommInitInfo``, key info, group
rank), its addresses (``hostIp[..]``, ``local address``, ``listen on ip[..] .. devPhyId[..]``,
the node a connection detector runs on), the own rank of a socket wait; then the record
columns the parser filled (``(PID:…, Device:…, RankID:…)``, ``[rankN]:``); then the path
(``worker-1``, ``rank_3``, ``device-2``). Rank-table rows (``userRank[1], deviceIp[..],
hostIp[..]``) may name any rank: they fill the process of that rank, and they are kept in
``directory`` for the wait graph to resolve addresses by.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass

from plogscan.crossrank.summary import Announce, StreamKey, StreamStats, Summary
from plogscan.pathhints import path_hints

WORLD = "hccl_world_group"
# Announcement kinds in the order their rank is trusted (the rendezvous line first).
_KIND_ORDER = ("setup-agent", "init-entry", "init-success", "comm-info", "key-info-local",
               "group-rank", "hcom-init", "key-info", "own-rank", "address", "rank-info")
_KIND_RANK = {k: i for i, k in enumerate(_KIND_ORDER)}
_DEVICE_LOG = re.compile(r"(?:^|[/!])device-(?:app-)?\d+_\d+\.log$")
# The announcements by which a line pid other than its file's claims a process of its own.
_OWN_KINDS = frozenset({"setup-agent", "init-entry", "init-success", "comm-info",
                        "key-info-local", "hcom-init", "own-rank", "address"})


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
    addresses: frozenset[str] = frozenset()  # every IP it announced as its own
    root_ip: str | None = None  # the host of the root-info server it set up with

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
        self._by_stream: dict[StreamKey, list[Announce]] = {}
        self.of_stream: dict[StreamKey, ProcessKey] = {}
        self.processes: dict[ProcessKey, Identity] = {}
        self.directory: dict[tuple[str | None, int], _Entry] = {}
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

    def of_record(self, path: str, line: int, pid: int | None, rank: int | None = None
                  ) -> Identity | None:
        """The process of a record (``rank``: the rank a record without pid names)."""
        key = self.of_stream.get(StreamKey(path, self.segment_of(path, line), pid,
                                           rank if pid is None else None))
        if key is None and pid is None and rank is not None:
            key = self.of_stream.get(StreamKey(path, self.segment_of(path, line), None))
        return self.processes.get(key) if key is not None else None

    # ------------------------------------------------------------------ building

    def _build(self, summary: Summary) -> None:
        by_stream: dict[StreamKey, list[Announce]] = {}
        for a in summary.announces:
            by_stream.setdefault(a.stream, []).append(a)
        self._by_stream = by_stream
        writes_own = {(s.key.path, s.key.segment) for s in summary.streams
                      if s.key.pid is not None and s.key.pid == self.hints(
                          s.key.path, s.key.segment).pid}
        members: dict[ProcessKey, list[StreamStats]] = {}
        pidless: list[StreamStats] = []
        for stream in summary.streams:
            key = self._process_key(stream, writes_own)
            if key is None:
                pidless.append(stream)
            else:
                self.of_stream[stream.key] = key
                members.setdefault(key, []).append(stream)
        for key, streams in members.items():
            self.processes[key] = self._identity(key, streams)
        if pidless:
            self._place_pidless(summary, pidless, members)
        self.directory = self._directory(summary)

    def _process_key(self, stream: StreamStats, writes_own: set[tuple[str, int]]
                     ) -> ProcessKey | None:
        """The process a stream belongs to (None: its records carry no pid, placed later)."""
        k = stream.key
        hints = self.hints(k.path, k.segment)
        host = hints.host or stream.host or ""
        if hints.pid is None:
            return ProcessKey(host, k.pid) if k.pid is not None else None
        if k.pid is None or k.pid == hints.pid or hints.device_log \
                or stream.kind == "device-app":
            return ProcessKey(host, hints.pid)
        own = (k.path, k.segment) in writes_own and any(
            a.kind in _OWN_KINDS for a in self._by_stream.get(k, ()))
        return ProcessKey(host, k.pid if own else hints.pid)

    def _place_pidless(self, summary: Summary, pidless: list[StreamStats],
                       members: dict[ProcessKey, list[StreamStats]]) -> None:
        """Records without a pid join the one process of their file section, else the one
        process of their host with their rank, else the only process of their host; the rest
        are processes of their own (one per file section and rank), ``assumed``."""
        section: dict[tuple[str, int], set[ProcessKey]] = {}
        for key, streams in members.items():
            for s in streams:
                section.setdefault((s.key.path, s.key.segment), set()).add(key)
        on_host: dict[str, list[ProcessKey]] = {}
        for key in members:
            on_host.setdefault(key.host, []).append(key)
        joined: dict[ProcessKey, list[StreamStats]] = {}
        for stream in pidless:
            k = stream.key
            host = self.hints(k.path, k.segment).host or stream.host or ""
            rank = k.rank if k.rank is not None else stream.rank
            owners = section.get((k.path, k.segment), set())
            if len(owners) != 1 and host in on_host:
                same = [p for p in on_host[host] if rank is not None
                        and self.processes[p].rank == rank]
                owners = set(same) if same else (set(on_host[host])
                                                 if len(on_host[host]) == 1 else set())
            if len(owners) == 1:
                key = next(iter(owners))
            else:
                name = f"{k.path}#{k.segment}" if k.segment else k.path
                key = ProcessKey(host, -1, f"{name}#rank{k.rank}" if k.rank is not None
                                 else name)
            self.of_stream[k] = key
            joined.setdefault(key, []).append(stream)
        for key, streams in joined.items():
            self.processes[key] = self._identity(key, [*members.get(key, ()), *streams])

    def _directory(self, summary: Summary) -> dict[tuple[str | None, int], _Entry]:
        """(communicator, rank) -> the addresses a rank-table row names for that rank."""
        out: dict[tuple[str | None, int], _Entry] = {}
        for a in summary.announces:
            if a.kind != "rank-info" or a.rank is None:
                continue
            key = self.of_stream.get(a.stream)
            comm = self.processes[key].world if key in self.processes else None
            out.setdefault((comm, a.rank), _Entry(a.device_ip, a.server_ip, a.phy_device))
        return out

    def _identity(self, key: ProcessKey, streams: list[StreamStats]) -> Identity:
        announces = [a for s in streams for a in self._by_stream.get(s.key, ())] \
            if self._by_stream else []
        if len(streams) == 1 and not announces:  # most processes of a big job
            return self._quiet_identity(key, streams[0])
        hints = [self.hints(s.key.path, s.key.segment) for s in streams]
        comms: tuple[Membership, ...] = ()
        world = rank = device = phy_device = device_ip = host_ip = root_ip = None
        addresses: set[str] = set()
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
            if rank is None:
                rank = next((a.rank for a in ordered if a.kind == "own-rank"
                             and a.rank is not None), None)
            own = [a for a in ordered if a.kind != "rank-info"]
            tables = {a.rank for a in ordered if a.kind == "rank-info"}
            if rank is None and len(tables) == 1:  # it printed one rank's row: its own
                rank = next(iter(tables))
            own += [a for a in ordered if a.kind == "rank-info" and a.rank == rank]
            device = next((a.logic_device for a in own if a.logic_device is not None), None)
            phy_device = next((a.phy_device for a in own if a.phy_device is not None), None)
            device_ip = next((a.device_ip for a in own if a.device_ip), None)
            host_ip = next((a.server_ip for a in own if a.server_ip), None)
            addresses = {ip for a in own for ip in (a.device_ip, a.server_ip, a.listen_ip)
                         if ip}
            root_ip = next((a.root_ip for a in ordered if a.root_ip), None)
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
            records=sum(s.records for s in streams), errors=sum(s.errors for s in streams),
            addresses=frozenset(addresses), root_ip=root_ip)

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


@dataclass(frozen=True)
class _Entry:
    """The addresses a rank-table row gives one rank."""

    device_ip: str | None
    host_ip: str | None
    phy_device: int | None


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
