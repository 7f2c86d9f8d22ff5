"""Per slot, where the two runs first log something else.

Each process's templates are put in the order it first logged them (its first record's
aligned time, then path and line). Two processes of one slot log the same templates in the
same order up to a point; the first template one of them logs there that the other logs much
later or never is where the runs diverge on that rank (in the founding case: the eager
collective's first record where the passing run logs the fused operator's). "Much later" is
more than ``SAME_PLACE`` places away: records a few microseconds apart in different files, or
a job stdout stamped in whole milliseconds beside plogs stamped in microseconds, can come in
either order without meaning anything. Besides it, the first template the BAD process logged
that the GOOD one never did, however the two orders compare. Template texts are numbered once
for both runs, so the sequences are numpy arrays compared whole, one slot at a time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.compare.model import Slot
from plogscan.compare.spread import First

SAME_PLACE = 5  # places a template may move between the two orders and count as in place
ORDER = [("process", "ascending"), ("ts", "ascending"), ("path", "ascending"),
         ("line", "ascending")]


@dataclass(frozen=True)
class Step:
    """A template at one place of a process's sequence."""

    value: str
    first: First


@dataclass(frozen=True)
class Split:
    slot: Slot
    common: int
    good: Step | None
    bad: Step | None
    only_bad: Step | None


class _Sequences:
    """Every process's templates of one run, in the order first logged."""

    def __init__(self, table: pa.Table, numbers: pa.Array) -> None:
        ordered = table.take(pc.sort_indices(table, sort_keys=ORDER))
        self.table = ordered
        self.ids = pc.index_in(ordered.column("value"), value_set=numbers).to_numpy(
            zero_copy_only=False)
        process = ordered.column("process").to_numpy()
        self.starts = {int(p): (int(s), int(e)) for p, s, e in zip(
            *_bounds(process), strict=True)}

    def of(self, process: int) -> tuple[int, np.ndarray]:
        start, end = self.starts.get(process, (0, 0))
        return start, self.ids[start:end]

    def step(self, row: int) -> Step:
        r = self.table.slice(row, 1).to_pylist()[0]
        return Step(r["value"], First(r["process"], r["ts"], r["path"], r["line"]))


def _bounds(process: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if not len(process):
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    starts = np.flatnonzero(np.r_[True, process[1:] != process[:-1]])
    ends = np.r_[starts[1:], len(process)]
    return process[starts], starts, ends


def splits(good: pa.Table, bad: pa.Table, good_slots: Mapping[Slot, int],
           bad_slots: Mapping[Slot, int]) -> list[Split]:
    """The slots both runs have, each with where its two processes diverge (none when they
    logged the same templates in the same order)."""
    numbers = pc.unique(pa.chunked_array([good.column("value"), bad.column("value")],
                                         pa.string()))
    g_seq, b_seq = _Sequences(good, numbers), _Sequences(bad, numbers)
    out = []
    for slot in sorted(set(good_slots) & set(bad_slots), key=Slot.order):
        g_start, g = g_seq.of(good_slots[slot])
        b_start, b = b_seq.of(bad_slots[slot])
        at_g, at_b = _places(g, len(numbers)), _places(b, len(numbers))
        moved = np.r_[np.flatnonzero(at_g[b] > np.arange(len(b)) + SAME_PLACE),
                      np.flatnonzero(at_b[g] > np.arange(len(g)) + SAME_PLACE)]
        new = np.flatnonzero(at_g[b] == _NEVER)
        if not len(moved) and not len(new):
            continue
        common = int(moved.min()) if len(moved) else min(len(g), len(b))
        out.append(Split(
            slot, common,
            g_seq.step(g_start + common) if common < len(g) else None,
            b_seq.step(b_start + common) if common < len(b) else None,
            b_seq.step(b_start + int(new[0])) if len(new) else None))
    return out


_NEVER = np.iinfo(np.int64).max // 2


def _places(sequence: np.ndarray, numbers: int) -> np.ndarray:
    """Where each numbered template stands in ``sequence`` (``_NEVER`` where it is not)."""
    places = np.full(numbers, _NEVER, np.int64)
    places[sequence] = np.arange(len(sequence))
    return places
