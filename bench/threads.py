"""CPU seconds of each thread of one plogscan run: what the parse workers spend, and what the
rest of the process spends beside them (the main thread's rules or writer, the reading thread's
stitching and cross-rank summary, Arrow's own threads), which sets how far the run can grow
with cores.

    python bench/threads.py diagnose TREE --no-cache --format json -o /tmp/r.json -q
    python bench/threads.py ingest TREE -o /tmp/e.parquet -q --workers 1

The command runs in this process (as the console script runs it); a thread samples
``/proc/self/task`` every 0.1 s and keeps each thread's last CPU time, by its Python name
(``plogscan-parse`` for the parse workers; ``other`` for threads Python did not start, such as
Arrow's). CPU time barely depends on what else the machine runs, unlike wall time, so the
split holds on a shared machine. With the parse workers' CPU seconds ``P`` and the whole
process's ``C``, two cores can make a run at most ``2P / C`` times faster than one worker (one
worker already overlaps the rest on the second core; ``speedup_bound``); with many cores the
busiest thread besides the workers, which does its work alone, is the floor.
"""

from __future__ import annotations

import collections
import os
import sys
import threading
import time

PARSE = "plogscan-parse"
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu(tid: int) -> float | None:
    """User and system seconds of thread ``tid`` of this process."""
    try:
        with open(f"/proc/self/task/{tid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / _TICK


def _name(thread_name: str) -> str:
    """Worker threads of one pool under one name (``plogscan-parse_3`` -> ``plogscan-parse``)."""
    base, _, index = thread_name.rpartition("_")
    return base if base and index.isdigit() else thread_name


class Sampler:
    """Each thread's latest CPU seconds, by name, sampled until ``stop``."""

    def __init__(self, every: float = 0.1) -> None:
        self.every = every
        self.seen: dict[int, tuple[str, float]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sampler", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> dict[str, float]:
        self._stop.set()
        self._thread.join()
        self._sample()
        totals: collections.Counter[str] = collections.Counter()
        for name, cpu in self.seen.values():
            totals[name] += cpu
        totals.pop("sampler", None)
        return dict(totals.most_common())

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            time.sleep(self.every)

    def _sample(self) -> None:
        names = {t.native_id: _name(t.name) for t in threading.enumerate()}
        for entry in os.listdir("/proc/self/task"):
            tid = int(entry)
            cpu = _cpu(tid)
            if cpu is not None:
                known = self.seen.get(tid, ("other", 0.0))[0]
                self.seen[tid] = (names.get(tid, known), cpu)


def report(totals: dict[str, float], wall: float) -> str:
    """The threads' CPU seconds and what they bound."""
    total = sum(totals.values())
    parse = totals.get(PARSE, 0.0)
    lines = [f"wall {wall:.2f} s, CPU {total:.2f} s"]
    lines += [f"  {name:24s} {cpu:8.2f} s  {cpu / total:4.0%}" for name, cpu in totals.items()]
    if parse and total:
        lines.append(f"two cores against one worker: at most {speedup_bound(totals):.2f}x "
                     f"(the parse is {parse / total:.0%} of the CPU)")
    return "\n".join(lines)


def speedup_bound(totals: dict[str, float], cores: int = 2) -> float:
    """How much faster ``cores`` workers on as many cores can be than one worker, from the
    CPU seconds of a run's threads: one worker takes at least its parse, the busiest other
    thread, and the whole CPU over the cores (the rest overlaps it there); ``cores`` workers
    at least the busiest other thread and the whole over the cores."""
    total = sum(totals.values())
    parse = totals.get(PARSE, 0.0)
    busiest = max((cpu for name, cpu in totals.items() if name != PARSE), default=0.0)
    many = max(total / cores, busiest)
    return max(parse, many) / many if many else 1.0


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    from plogscan.cli import cli, collect_less, keep_pandas_out

    keep_pandas_out()
    collect_less()
    sampler = Sampler()
    sampler.start()
    begun = time.perf_counter()
    code = 0
    try:
        cli.main(args=argv, prog_name="plogscan", standalone_mode=False)
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    wall = time.perf_counter() - begun
    print(report(sampler.stop(), wall), file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
