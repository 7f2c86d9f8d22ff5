"""How many parse workers a run uses: by default one per core this process may run on.

The count is not capped: a host with more cores gets more workers. Each worker holds the
chunk it parses (``inflight_limit``: a few more wait for the consumer), so memory
grows with the count. Past the cores, more workers add that memory but no speed when the
inputs are in the page cache; on slow storage (a network file system) the extra threads wait
on reads while others parse, so the command line warns and goes on."""

from __future__ import annotations

import os

from plogscan.errors import InputError

# Chunks queued per worker: enough that workers keep busy while the consumer writes a Parquet
# row group (about four chunks' worth of rows), few enough to keep memory bounded.
INFLIGHT_PER_WORKER = 4
# Past this many workers, each adds one chunk in flight (the one it parses), not a full share:
# the consumer, not the workers, sets the pace there, and more results waiting for it would
# only hold memory (a host of 64 cores would otherwise keep 256 parsed chunks in flight).
AHEAD_WORKERS = 4


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, as a container's cpuset limits
    it), else the host's count."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # no affinity call (macOS, Windows)
        return os.cpu_count() or 1


def worker_count(workers: int | None) -> int:
    """``workers`` as asked, or one per usable core when it is None or 0."""
    return workers if workers and workers > 0 else usable_cores()


def check_workers(workers: int | None) -> None:
    """``InputError`` for a count that is neither None nor a whole number from 1 up."""
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise InputError(f"workers must be a positive whole number, not {workers!r}",
                         help="workers: None (one per usable core) or any count from 1 up")


def inflight_limit(workers: int, per_worker: int = INFLIGHT_PER_WORKER) -> int:
    """How many chunks ``workers`` workers keep in flight: ``per_worker`` each for the first
    ``AHEAD_WORKERS``, one each past them."""
    return per_worker * min(workers, AHEAD_WORKERS) + max(workers - AHEAD_WORKERS, 0)
