"""How far each value (a template, a code, a level, a module) spread over a run's processes,
and how consistently it separates two runs.

A template separates the runs when the failing run logged it in every one of its failing
processes and the passing run in none of its processes: its score is the share of BAD's
failing processes that logged it minus the share of GOOD's processes that did (1.0 at best).
Ties go to the share of all of BAD's processes, then to the template logged first. The other
way round, a template GOOD logged in more of its processes than BAD did is something the
failing run never got to (or did otherwise): the share of GOOD's processes minus the share of
BAD's. A template both runs logged counts only when the shares differ by ``MIN_GAP`` or
more. Everything here works on the folded per-process tables of ``profile``: one Arrow
group-by per run and kind, then a Python step per distinct value (at most ``MAX_VALUES``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.compare.profile import FIRST

_NEVER = 1 << 62  # sorts a value that has no time after every one that has
# A template both runs logged separates them only when the shares differ by this much: runs of
# other sizes or lengths spread their common templates a little differently.
MIN_GAP = 0.5


@dataclass(frozen=True)
class First:
    """The first record of a value in one process."""

    process: int
    ts: int | None  # µs, aligned
    path: str
    line: int

    def order(self) -> tuple[int, str, int]:
        return (_NEVER if self.ts is None else self.ts, self.path, self.line)


@dataclass(frozen=True)
class Spread:
    processes: int  # processes that logged the value
    failing: int  # failing processes that logged it
    records: int
    first: First  # its first record in the run


def spreads(table: pa.Table, failing: np.ndarray) -> dict[str, Spread]:
    """value -> its spread over the run; ``failing[i]`` says whether process i failed."""
    if table.num_rows == 0:
        return {}
    flags = failing[table.column("process").to_numpy()] if len(failing) else np.zeros(0, bool)
    ordered = table.append_column("failing", pa.array(flags.astype(np.int64)))
    ordered = ordered.take(pc.sort_indices(ordered, sort_keys=FIRST))
    grouped = ordered.group_by("value", use_threads=False).aggregate([
        ("process", "count"), ("failing", "sum"), ("count", "sum"), ("ts", "first"),
        ("path", "first"), ("line", "first"), ("process", "first")])
    return {g["value"]: Spread(g["process_count"], g["failing_sum"], g["count_sum"],
                               First(g["process_first"], g["ts_first"], g["path_first"],
                                     g["line_first"]))
            for g in grouped.to_pylist()}


@dataclass(frozen=True)
class Ranked:
    value: str
    score: float
    spread: Spread  # in the run it separates toward
    other: Spread | None  # in the other run


def ranked_bad(bad: dict[str, Spread], good: dict[str, Spread], bad_processes: int,
               bad_failing: int, good_processes: int) -> list[Ranked]:
    """BAD's templates that separate the runs, most consistent first, then first logged."""
    failing_total = bad_failing or bad_processes  # no process failed: every one counts
    out = []
    for value, spread in bad.items():
        theirs = good.get(value)
        in_good = (theirs.processes if theirs else 0) / max(good_processes, 1)
        counted = spread.failing if bad_failing else spread.processes
        score = counted / max(failing_total, 1) - in_good
        wide = spread.processes / max(bad_processes, 1) - in_good
        if _separates(max(score, wide), theirs is not None):
            out.append((-score, -wide, spread.first.order(), value, Ranked(
                value, round(score, 6), spread, theirs)))
    return [item[-1] for item in sorted(out, key=lambda item: item[:4])]


def ranked_good(good: dict[str, Spread], bad: dict[str, Spread], good_processes: int,
                bad_processes: int) -> list[Ranked]:
    """GOOD's templates that BAD logged in fewer of its processes, widest first."""
    out = []
    for value, spread in good.items():
        theirs = bad.get(value)
        score = (spread.processes / max(good_processes, 1)
                 - (theirs.processes if theirs else 0) / max(bad_processes, 1))
        if _separates(score, theirs is not None):
            out.append((-score, spread.first.order(), value,
                        Ranked(value, round(score, 6), spread, theirs)))
    return [item[-1] for item in sorted(out, key=lambda item: item[:3])]


def _separates(gap: float, shared: bool) -> bool:
    """A template only one run logged separates the runs by any gap in shares; one both
    logged, by ``MIN_GAP`` or more."""
    return gap >= MIN_GAP if shared else gap > 0


def only_in(mine: dict[str, Spread], theirs: dict[str, Spread]) -> list[tuple[str, Spread]]:
    """The values only one run has, first logged first."""
    return sorted(((v, s) for v, s in mine.items() if v not in theirs),
                  key=lambda vs: (vs[1].first.order(), vs[0]))


def first_records(table: pa.Table, values: Iterable[str], per_value: int
                  ) -> dict[str, list[First]]:
    """The first record of each of ``values`` in its first ``per_value`` processes."""
    wanted = list(dict.fromkeys(values))
    if not wanted or table.num_rows == 0:
        return {}
    rows = table.filter(pc.is_in(table.column("value"), value_set=pa.array(wanted,
                                                                          pa.string())))
    rows = rows.take(pc.sort_indices(rows, sort_keys=FIRST))
    out: dict[str, list[First]] = {}
    for r in rows.select(["value", "process", "ts", "path", "line"]).to_pylist():
        found = out.setdefault(r["value"], [])
        if len(found) < per_value:
            found.append(First(r["process"], r["ts"], r["path"], r["line"]))
    return out
