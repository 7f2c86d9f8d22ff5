"""Whom a wait names: a process of the input, a peer the input does not contain, or nobody.

A record names its peer by what it knows of it (``summary.Wait``): an address (a device IP, or
any address the peer announced), a host IP with a physical device id (``IP/ID``, as HCCL's
heartbeat and connection detector write it), a physical device id on the waiter's own host (a
P2P link), a rank in a communicator, or only a host (a rendezvous server, torch's TCP store).
``Resolver`` maps each of those to the process that announced it (``identity``): addresses
first, then host and device, then rank in the communicator of the wait. What it cannot map is a
``Node`` without a process, named by what the record gave (``124.0.0.21``, ``192.168.0.15/6``,
``rank 11``); a rank that cannot be in its communicator (``3.0.0.0(3)`` in a 3-rank one) is no
node at all, only a note.
"""

from __future__ import annotations

from dataclasses import dataclass

from plogscan.crossrank.identity import Identities, Identity, ProcessKey
from plogscan.crossrank.summary import Wait
from plogscan.crossrank.words import say


@dataclass(frozen=True)
class Node:
    """A process of the input (``key``), or a peer outside it, named by what the logs give."""

    key: ProcessKey | None
    ip: str | None = None  # the peer's device IP, or its host IP with ``device``
    rank: int | None = None
    device: int | None = None  # physical device id
    comm: str | None = None
    host: str | None = None  # the waiter's host, for a device named on it (P2P)

    @property
    def present(self) -> bool:
        return self.key is not None

    def identity(self) -> tuple:
        """What makes two mentions of a peer outside the input the same peer."""
        if self.key is not None:
            return ("process", self.key)
        if self.rank is not None:
            return ("rank", self.comm, self.rank)
        return ("address", self.ip, self.device, self.host)

    def label(self) -> str:
        """How a report names a peer outside the input: ``124.0.0.21``, ``192.168.0.15/6``,
        ``worker-0 device-3``, ``rank 11``."""
        if self.ip and self.device is not None:
            return f"{self.ip}/{self.device}"
        if self.ip:
            return self.ip
        if self.device is not None:
            return " ".join(p for p in (self.host, f"device-{self.device}") if p)
        return f"rank {self.rank}" if self.rank is not None else "?"


class Resolver:
    """The processes of one attempt by every name a wait may use."""

    def __init__(self, ids: Identities, members: frozenset[ProcessKey], lang: str = "en"
                 ) -> None:
        self.ids = ids
        self.lang = lang
        self.by_address: dict[str, list[ProcessKey]] = {}
        self.by_host: dict[str, list[ProcessKey]] = {}
        self.by_host_device: dict[tuple[str, int], ProcessKey] = {}
        self.by_rank: dict[tuple[str | None, int], ProcessKey] = {}
        self.sizes: dict[str | None, int] = {}
        self.present: dict[str | None, set[int]] = {}
        for k in sorted(members, reverse=True):  # the smallest key wins a tie
            ident = ids.processes[k]
            for ip in (ident.addresses | {ident.device_ip}) - {ident.host_ip, None}:
                self.by_address.setdefault(ip, []).append(k)
            for host in {ident.host_ip, ident.clock_host} - {None, ""}:
                self.by_host.setdefault(host, []).append(k)
                for device in (ident.phy_device, ident.device):
                    if device is not None:
                        self.by_host_device.setdefault((host, device), k)
                if ident.phy_device is not None:  # the physical id wins over a logical one
                    self.by_host_device[(host, ident.phy_device)] = k
            if ident.rank is not None:
                self.by_rank[(None, ident.rank)] = k
                self.present.setdefault(None, set()).add(ident.rank)
            for m in ident.comms:
                if m.rank is not None:
                    self.by_rank[(m.comm, m.rank)] = k
                    self.present.setdefault(m.comm, set()).add(m.rank)
                if m.size is not None:
                    for name in {m.comm, None if m.comm == ident.world else m.comm}:
                        self.sizes[name] = max(self.sizes.get(name, 0), m.size)
        self.by_table: dict[str, tuple[str | None, int]] = {}  # device IP -> its rank
        for (comm, rank), entry in ids.directory.items():
            if entry.device_ip:
                self.by_table.setdefault(entry.device_ip, (comm, rank))

    def complete(self, comm: str | None) -> bool:
        """Whether every rank of a communicator of known size is in the input."""
        size = self.sizes.get(comm)
        return size is not None and len(self.present.get(comm, ())) >= size

    # ------------------------------------------------------------------ one name

    def rank(self, comm: str | None, rank: int, ip: str | None = None) -> Node | str:
        """Rank ``rank`` of ``comm``: its process, a peer outside the input, or why it
        cannot exist."""
        size = self.sizes.get(comm)
        if size is not None and rank >= size:
            text = ("rank {peer} is not in communicator {comm} of {size} ranks ({ip})"
                    if comm else "rank {peer} is not in its communicator of {size} ranks ({ip})")
            return say(self.lang, text, peer=rank, comm=comm, size=size,
                       ip=ip or say(self.lang, "no IP"))
        found = self.by_rank.get((comm, rank))
        if found is None and comm is not None and (comm, rank) not in self.by_rank:
            found = self.by_rank.get((None, rank)) if comm not in self.sizes else None
        return Node(found, ip, rank, comm=comm) if found is not None else Node(
            None, ip, rank, comm=comm)

    def address(self, ip: str, rank: int | None = None) -> ProcessKey | None:
        """The process an address names: its device or listening address; a host IP when one
        process of the input runs there (of ``rank``, when its rank is known)."""
        found = self.by_address.get(ip)
        if found and len(set(found)) == 1:
            return found[0]
        hosts = self.by_host.get(ip)
        if hosts and len(set(hosts)) == 1 and (
                rank is None or self.ids.processes[hosts[0]].rank in (None, rank)):
            return hosts[0]
        table = self.by_table.get(ip)
        if table is not None:
            return self.by_rank.get(table) or self.by_rank.get((None, table[1]))
        return None

    def host_device(self, host: str, device: int) -> ProcessKey | None:
        return self.by_host_device.get((host, device))

    def host_root(self, host: str, waiter: Identity) -> ProcessKey | str | None:
        """The process a wait for a host alone means: the rendezvous root of the waiter's
        communicator (its rank 0) when it runs there, else the host's only process; a host
        of several other processes names none of them (a note)."""
        keys = sorted(set(self.by_host.get(host, ())))
        if not keys:
            return None
        root = self.by_rank.get((waiter.world, 0)) or self.by_rank.get((None, 0))
        if root in keys:
            return root
        if len(keys) == 1:
            return keys[0]
        return say(self.lang, "host {host} runs {n} processes of the input and the record does "
                   "not say which", host=host, n=len(keys))

    # ------------------------------------------------------------------ a wait

    def wait(self, wait: Wait, waiter: Identity, comm: str | None) -> Node | str | None:
        """The peer of ``wait`` (None: the record names none; a string: why it points
        nowhere)."""
        if wait.own_stream:
            return Node(waiter.key)
        if wait.peer_ip:
            found = self.address(wait.peer_ip, wait.peer_rank)
            if found is not None:
                return Node(found, wait.peer_ip, wait.peer_rank)
        if wait.peer_host and wait.peer_device is not None:
            found = self.host_device(wait.peer_host, wait.peer_device)
            if found is not None:
                return Node(found)
            if wait.peer_rank is None:
                return Node(None, wait.peer_host, device=wait.peer_device)
        if wait.peer_device is not None and not wait.peer_host:  # a P2P link on its host
            found = self.host_device(waiter.clock_host, wait.peer_device)
            return Node(found) if found is not None else Node(
                None, device=wait.peer_device, host=waiter.host or waiter.host_ip)
        if wait.peer_rank is not None:
            return self.rank(comm, wait.peer_rank, wait.peer_ip)
        if wait.peer_ip:
            return Node(None, wait.peer_ip)
        if wait.peer_host:
            found = self.host_root(wait.peer_host, waiter)
            return Node(None, wait.peer_host) if found is None else (
                found if isinstance(found, str) else Node(found))
        return None
