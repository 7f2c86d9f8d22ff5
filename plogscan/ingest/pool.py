"""The pool the parse tasks run in: a cluster's, worker threads (the default) or worker
processes."""

from __future__ import annotations

import multiprocessing
import sys
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any

from plogscan.parse.formatcheck import builtin_formats


def parse_pool(workers: int, processes: bool, executor: Any = None) -> Executor:
    """The cluster's executor when one was given. Else worker threads by default: on the
    2-core benchmark machine they use less CPU in all than processes (no hand-off, no
    per-file columns rebuilt) and finish sooner, though the parse holds the GIL between
    kernels. Worker processes when asked for, there are several workers and fork is
    available."""
    if executor is not None:
        return executor
    forkable = "fork" in multiprocessing.get_all_start_methods()
    if workers > 1 and processes and forkable:
        builtin_formats()  # loaded before the workers fork, so that they inherit it
        context = multiprocessing.get_context("fork")
        from concurrent.futures import ProcessPoolExecutor  # a run in threads never loads it

        try:
            return ProcessPoolExecutor(workers, mp_context=context,
                                       initializer=_ignore_interrupts)
        except (NotImplementedError, ImportError, OSError):
            pass  # no working semaphores (no /dev/shm, sandboxes): threads still work
    return ThreadPoolExecutor(workers, thread_name_prefix="plogscan-parse")


def in_processes(pool: Executor) -> bool:
    """Whether ``pool`` runs its tasks in worker processes (asked of the module only when
    some pool of processes was made)."""
    process = sys.modules.get("concurrent.futures.process")
    return process is not None and isinstance(pool, process.ProcessPoolExecutor)


def _ignore_interrupts() -> None:
    """In a worker process: Ctrl-C is the main process's to handle (it drops the queued
    chunks and shuts the pool down), so a worker prints no traceback of its own."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
