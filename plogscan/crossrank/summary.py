"""The per-process summary gathered during the one pass over the event table.

``Gatherer`` (``plogscan.crossrank.gather``) fills a ``Summary`` from the record batches the
engine reads; everything after that works on these values only and never sees a record
again. The summary is small and bounded: per stream (the records of one process within one
file or pasted section) a few counters, and a capped number of the records that say who a rank
is, whom it waits for, where its collectives are, and what it was configured with.

Times are integers: microseconds since 1970 of the timestamp as written (no time zone), so
clock arithmetic is exact. ``None`` means the record had no timestamp.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_STREAMS = 100_000  # streams a summary describes; the records of the others are counted


@dataclass(frozen=True)
class StreamKey:
    """The records of one process (``pid`` as the header gives it) within one file, or within
    one section of a pasted concatenation (``segment`` > 0; 0 is the file itself). Records
    that carry no pid are told apart by the rank their line names (``[rank3]:``), if any."""

    path: str
    segment: int
    pid: int | None
    rank: int | None = None  # only for records without a pid

    def order(self) -> tuple:
        """A sort key (a missing pid sorts last)."""
        return (self.path, self.segment, self.pid is None, self.pid or 0, self.rank is None,
                self.rank or 0)


@dataclass(frozen=True)
class Segment:
    """A ``==> name <==`` section of a pasted concatenation: its records start after ``line``."""

    path: str
    index: int
    line: int
    name: str


@dataclass(frozen=True)
class StreamStats:
    key: StreamKey
    kind: str  # source kind of the file (``plogscan.schema.SourceKind``)
    host: str | None  # the table's host (from the path)
    rank: int | None  # the smallest rank the records carry (content or path)
    device: int | None
    first_ts: int | None
    last_ts: int | None
    first_line: int
    last_line: int
    records: int
    errors: int  # ERROR records
    epoch_records: int  # records stamped in 1970 (an unsynchronised device clock)


@dataclass(frozen=True)
class Announce:
    """A record that says which rank of which communicator its process is."""

    stream: StreamKey
    line: int
    ts: int | None
    # setup-agent | init-entry | init-success | comm-info | key-info(-local) | group-rank |
    # hcom-init
    kind: str
    comm: str | None
    rank: int | None
    size: int | None
    logic_device: int | None = None
    phy_device: int | None = None
    device_ip: str | None = None
    server_ip: str | None = None  # the host IP of the announcing process
    listen_ip: str | None = None  # an address it listens on (host or device NIC)
    root_ip: str | None = None  # the root-info server it meets the others at (``host ip[..]``)


@dataclass(frozen=True)
class Wait:
    """A record that says its process waited for a peer: a link it could not set up, a notify
    it did not receive, an RDMA operation that failed, a rendezvous it could not reach.

    The peer is named by whatever the record gives: its rank (in ``comm`` when known), an
    address of it (``peer_ip``: its device IP, or any of its addresses), its host IP
    (``peer_host``) and physical device id (``peer_device``; on the waiter's own host when no
    host is named, as P2P links are)."""

    stream: StreamKey
    line: int
    ts: int | None
    kind: str  # socket | p2p | notify | roce | rendezvous
    comm: str | None
    peer_rank: int | None
    peer_ip: str | None = None
    own_stream: bool = False  # ``remote rank:[local]``: it waits for its own secondary stream
    local_rank: int | None = None
    local_ip: str | None = None
    detail: str = ""  # status / role / task type as logged
    peer_host: str | None = None
    peer_device: int | None = None
    unnamed: bool = False  # the record names no peer (``remote rank [unknown]``, a server's wait)


@dataclass(frozen=True)
class TaskState:
    """Where a failed task's collective was: its tag and op index, and the task type."""

    stream: StreamKey
    line: int
    ts: int | None
    comm: str | None
    tag: str
    index: int | None
    task_type: str


@dataclass(frozen=True)
class Heartbeat:
    """HCCL's cluster heartbeat naming a culprit (``IP/ID``) and who noticed."""

    stream: StreamKey
    line: int
    ts: int | None
    culprit: str
    status: str
    informer: str | None


@dataclass(frozen=True)
class Roster:
    """Ranks a root-info server lists: those that connected (``connected``) or how many it
    needs (``need``, in ``size``)."""

    stream: StreamKey
    line: int
    ts: int | None
    kind: str  # connected | need
    ranks: tuple[int, ...] = ()
    size: int | None = None


@dataclass(frozen=True)
class Entry:
    """One collective a process entered (``Entry-Hccl<Op>``), numbered per communicator."""

    stream: StreamKey
    line: int
    ts: int | None
    comm: str
    seq: int  # 1 for the first collective of this communicator in this stream
    op: str
    count: int | None
    dtype: str | None


@dataclass(frozen=True)
class Setting:
    stream: StreamKey
    line: int
    ts: int | None
    key: str
    value: str
    source: str | None  # default | environment | None when the line does not say


@dataclass(frozen=True)
class Marker:
    """A lifetime event of a process: ``start`` (trace attr init) or ``resume``
    (``HcclCommResume``)."""

    stream: StreamKey
    line: int
    ts: int | None
    kind: str


@dataclass(frozen=True)
class Fault:
    """A failed task that is not a wait (an SDMA copy, a memcpy...) named by a task-exception
    record, and records that report a failure elsewhere (``remote`` true)."""

    stream: StreamKey
    line: int
    ts: int | None
    text: str  # the failed task's type (``SDMA``): "<type> task exception" in the results
    remote: bool = False


@dataclass(frozen=True)
class Summary:
    """Everything the cross-rank stage knows about the input."""

    streams: tuple[StreamStats, ...] = ()  # in ``StreamKey.order`` (identities rely on it)
    segments: tuple[Segment, ...] = ()
    announces: tuple[Announce, ...] = ()
    waits: tuple[Wait, ...] = ()
    tasks: tuple[TaskState, ...] = ()
    heartbeats: tuple[Heartbeat, ...] = ()
    entries: tuple[Entry, ...] = ()  # a bounded sample: the first and the last per stream
    entry_counts: tuple[tuple[StreamKey, str, int], ...] = ()  # collectives per stream, comm
    settings: tuple[Setting, ...] = ()
    markers: tuple[Marker, ...] = ()
    faults: tuple[Fault, ...] = ()
    rosters: tuple[Roster, ...] = ()
    dropped: tuple[tuple[str, int], ...] = ()  # (what, records left out by its cap)
