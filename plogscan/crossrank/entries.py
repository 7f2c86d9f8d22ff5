"""Collective entry logs in the cross-rank summary: numbered per stream and communicator,
sampled with numpy.

``Entry-Hccl<Op>: tag[<Op>_<communicator>], … count[C], dataType[D]`` (``HCCL_ENTRY_LOG_ENABLE=1``)
is written once per collective, so a long job has many. Per stream and communicator the first
``FIRST_ENTRIES`` and the last ``LAST_ENTRIES`` are kept with the total count
(``collectives`` aligns them by sequence number); past ``MAX_ENTRY_TRACKS`` pairs of stream and
communicator the entries are only counted as dropped.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.crossrank import patterns as p
from plogscan.crossrank.summary import Entry, StreamKey

FIRST_ENTRIES = 16
LAST_ENTRIES = 48
MAX_ENTRY_TRACKS = 16_384  # (stream, communicator) pairs: at most 1 Mi entries in all
_ENTRY_RE2 = r"Entry-Hccl(?P<op>[A-Za-z]+):\s*tag\[(?P<tag>[^\]]*)\]"
_COUNT_RE2 = r"count\[(?P<count>[0-9]+)\]"
_DTYPE_RE2 = r"dataType\[(?P<dtype>[^\]]*)\]"


@dataclass
class _Track:
    """The collectives one stream entered on one communicator."""

    count: int = 0
    first: list[Entry] = field(default_factory=list)
    last: deque[Entry] = field(default_factory=lambda: deque(maxlen=LAST_ENTRIES))


class Entries:
    """The entry logs of every stream and communicator, within their caps."""

    def __init__(self, drop: Callable[[str, int], None]) -> None:
        self._tracks: dict[tuple[StreamKey, str], _Track] = {}
        self._drop = drop

    def read(self, cols: dict[str, pa.Array], segment: np.ndarray | None, idx: np.ndarray,
             pranks: pa.Array) -> None:
        """Number and sample the entry rows ``idx`` of a batch (``pranks``: the rank of each
        row without a pid)."""
        take = pa.array(idx)
        message = cols["message"].take(take)
        found = pc.extract_regex(message, _ENTRY_RE2)
        valid = found.is_valid().to_numpy(zero_copy_only=False)
        if not valid.any():
            return
        ops = found.field("op").to_pylist()
        tags = found.field("tag").to_pylist()
        comms = [_entry_comm(op, tag) if ok else None
                 for op, tag, ok in zip(ops, tags, valid, strict=True)]
        keep = np.array([c is not None for c in comms])
        if not keep.any():
            return
        idx, rows = idx[keep], np.flatnonzero(keep)
        paths = cols["path"].take(pa.array(idx)).to_pylist()
        pids = cols["pid"].take(pa.array(idx)).to_pylist()
        pranks = pranks.take(pa.array(idx)).to_pylist()
        segs = segment[idx] if segment is not None else np.zeros(len(idx), np.int64)
        groups: dict[tuple[StreamKey, str], list[int]] = {}
        for j, (path, pid, prank, seg) in enumerate(zip(paths, pids, pranks, segs,
                                                        strict=True)):
            groups.setdefault((StreamKey(path or "", int(seg), pid, prank),
                               comms[rows[j]] or ""), []).append(j)
        lines = cols["line"].take(pa.array(idx)).to_numpy(zero_copy_only=False)
        ts = pc.cast(cols["ts"].take(pa.array(idx)), pa.int64())
        counts = pc.extract_regex(message.take(pa.array(rows)), _COUNT_RE2)
        dtypes = pc.extract_regex(message.take(pa.array(rows)), _DTYPE_RE2)
        for (key, comm), members in groups.items():  # one group per stream and communicator
            track = self._tracks.get((key, comm))
            if track is None:
                if len(self._tracks) >= MAX_ENTRY_TRACKS:
                    self._drop("entries", len(members))
                    continue
                track = self._tracks[(key, comm)] = _Track()
            order = sorted(members, key=lambda j: lines[j])
            base, n = track.count, len(order)
            chosen = [(k, j) for k, j in enumerate(order)
                      if base + k < FIRST_ENTRIES or k >= n - LAST_ENTRIES]
            for k, j in chosen:
                r = rows[j]
                entry = Entry(key, int(lines[j]), ts[j].as_py(), comm, base + k + 1, ops[r],
                              p.int_or_none(_field(counts, j, "count"), 1 << 62),
                              _field(dtypes, j, "dtype"))
                if base + k < FIRST_ENTRIES:
                    track.first.append(entry)
                else:
                    track.last.append(entry)
            track.count += n

    def kept(self) -> tuple[tuple[Entry, ...], tuple[tuple[StreamKey, str, int], ...]]:
        """The kept entries and each stream and communicator's count, in stream order."""
        entries: list[Entry] = []
        counts = []
        for (key, comm), track in sorted(self._tracks.items(),
                                         key=lambda kv: (kv[0][0].order(), kv[0][1])):
            entries.extend(track.first)
            entries.extend(e for e in track.last if e.seq > FIRST_ENTRIES)
            counts.append((key, comm, track.count))
        return tuple(entries), tuple(counts)


def _field(found: pa.StructArray, j: int, name: str) -> str | None:
    if not found[j].is_valid:
        return None
    value = found.field(name)[j].as_py()
    return value or None


def _entry_comm(op: str | None, tag: str | None) -> str | None:
    """The communicator of an entry log: its tag without the ``<Op>_`` prefix (None when the
    entry is not a collective, such as ``Entry-HcclCommInitRootInfo``)."""
    if not op or not tag or p.NOT_COLLECTIVE.match(op):
        return None
    _head, sep, rest = tag.partition("_")
    return rest if sep and rest else tag
