"""What the cross-rank stage concluded about the ranks together: root cause (suspects, victims,
chain, the wait graph they come from), clock offsets, attempts, collectives, settings and
missing ranks."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

# Identity fields may be None where the logs do not say; ``host`` is the tree's name for a host
# (``worker-1``), else its IP.


@dataclass(frozen=True)
class EvidenceRef:
    path: str
    line: int


@dataclass(frozen=True)
class SuspectReason:
    signal: str  # error-vs-timeout, earliest-error, heartbeat, wait-chain, cycle, ...
    text: str
    evidence: tuple[EvidenceRef, ...] = ()


@dataclass(frozen=True)
class Suspect:
    rank: int | None
    host: str | None
    host_ip: str | None
    device: int | None  # logical id
    phy_device: int | None
    pid: int | None  # host process id
    attempt: int | None
    communicator: str | None
    confidence: float  # 0..1, two decimals
    reasons: tuple[SuspectReason, ...]
    label: str  # "worker-1 device-3" (physical id when logged)
    # The rule of the decision that named it (docs/crossrank.md): error | heartbeat | behind |
    # silent | cycle | link | own-stream | missing.
    end: str = "error"
    present: bool = True  # False: a peer the input does not contain (collect its logs)
    device_ip: str | None = None


@dataclass(frozen=True)
class Party:
    """A rank the analysis names without suspecting it (a victim)."""

    rank: int | None
    host: str | None
    device: int | None
    pid: int | None
    label: str


@dataclass(frozen=True)
class Hop:
    """One step of a wait chain; a peer the input does not contain carries only its IP."""

    rank: int | None
    host: str | None
    device: int | None
    ip: str | None
    label: str


@dataclass(frozen=True)
class GraphNode:
    """A node of the wait graph: a process of the input, or a peer it names that the input
    does not contain (``present`` false: an IP, an ``IP/device``, a rank)."""

    id: str  # unique within its graph; the label, with the pid when two share one
    label: str
    present: bool
    rank: int | None = None
    host: str | None = None
    device: int | None = None
    pid: int | None = None
    ip: str | None = None


@dataclass(frozen=True)
class GraphEdge:
    """One record that says its process waited for another: ``source`` waited for ``target``."""

    source: str  # node ids
    target: str
    kind: str  # socket | p2p | notify | roce | heartbeat | rendezvous | op-index | op-tag | ...
    evidence: EvidenceRef | None = None
    followed: bool = True  # False: the waits of a process that is an end by its own records


@dataclass(frozen=True)
class WaitGraph:
    """The wait-for graph of one attempt, edges grouped by kind, at most a capped number of
    them (``truncated`` counts the rest)."""

    nodes: tuple[GraphNode, ...] = ()
    edges: tuple[GraphEdge, ...] = ()
    truncated: int = 0


@dataclass(frozen=True)
class RootCause:
    verdict: str  # localized | ambiguous | undetermined
    suspects: tuple[Suspect, ...] = ()
    victims: tuple[Party, ...] = ()
    chain: tuple[Hop, ...] = ()  # victim first, root last; a cycle repeats its first hop
    notes: tuple[str, ...] = ()  # what the analysis could not place
    graph: WaitGraph = WaitGraph()


@dataclass(frozen=True)
class ClockOffset:
    host: str
    offset_us: int  # host clock minus reference clock
    uncertainty_us: int
    pairs: int
    basis: str  # rendezvous | collective-entry | heartbeat | override
    # False: too weak to move a record (too few pairs, or an uncertainty near its size); it
    # is reported and not applied to aligned times.
    applied: bool = True


@dataclass(frozen=True)
class ClockFlag:
    host: str
    kind: str  # epoch-1970 | offset-exceeds-timeout
    detail: str


@dataclass(frozen=True)
class ClockReport:
    reference: str | None
    offsets: tuple[ClockOffset, ...] = ()
    flags: tuple[ClockFlag, ...] = ()


@dataclass(frozen=True)
class AttemptReport:
    id: int
    first_ts: datetime | None  # aligned
    last_ts: datetime | None
    pids: tuple[int, ...]
    hosts: tuple[str, ...]
    ranks: tuple[int, ...]
    root_cause: RootCause
    failed: bool


@dataclass(frozen=True)
class CollectiveCall:
    op: str
    count: int | None
    dtype: str | None


@dataclass(frozen=True)
class CommunicatorSequence:
    communicator: str
    ranks: tuple[int, ...]
    collectives: int


@dataclass(frozen=True)
class CollectiveMismatch:
    communicator: str
    seq: int  # counts the communicator's collectives from 1
    kind: str  # op | count | dtype | missing
    by_rank: tuple[tuple[int, CollectiveCall | None], ...]
    odd_ranks: tuple[int, ...]


@dataclass(frozen=True)
class CollectivesReport:
    communicators: tuple[CommunicatorSequence, ...] = ()
    first_mismatch: CollectiveMismatch | None = None


@dataclass(frozen=True)
class SettingValue:
    value: str
    ranks: tuple[int, ...]


@dataclass(frozen=True)
class SettingMismatch:
    key: str
    values: tuple[SettingValue, ...]


@dataclass(frozen=True)
class ShortTimeout:
    key: str
    value_s: float
    gap_s: float
    ranks: tuple[int, ...]
    what: str


@dataclass(frozen=True)
class ConfigReport:
    mismatches: tuple[SettingMismatch, ...] = ()
    too_short: tuple[ShortTimeout, ...] = ()


@dataclass(frozen=True)
class MissingReport:
    ranks: tuple[int, ...] = ()
    hosts: tuple[str, ...] = ()
    advice: tuple[str, ...] = ()


@dataclass(frozen=True)
class CrossRank:
    root_cause: RootCause
    clock: ClockReport
    attempts: tuple[AttemptReport, ...] = ()
    collectives: CollectivesReport = CollectivesReport()
    config: ConfigReport = ConfigReport()
    missing: MissingReport = MissingReport()
    attempts_omitted: int = 0  # attempts past the listing cap: analysed, only counted
    failed_attempts_omitted: int = 0  # of those, the ones that failed
