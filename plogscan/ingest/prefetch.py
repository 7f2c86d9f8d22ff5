"""``prefetched``: the items of an iterator, produced by a thread of its own a few items ahead.

``diagnose`` reads its record batches (from the parse workers or the extraction cache) and
summarizes them for the reports while the rules run on the batch before: both stages are
mostly Arrow kernels, which run without the GIL, so on two cores they overlap. At most
``depth`` items wait between the two, so memory stays bounded.

The iterator runs entirely in the producing thread, including its clean-up: when the consumer
stops early (an error, Ctrl-C, a generator closed), the producer stops at its next item and
closes the iterator there. A consumer that stops early calls ``on_stop``, which tells a
producer that yields seldom (its records all dropped) to stop at its next chunk, and waits for
it ``STOP_WAIT`` seconds at most: one blocked in a read of a pipe whose writer is slow or quiet
would otherwise keep Ctrl-C waiting for ever. An error of the iterator is raised in the
consumer.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

T = TypeVar("T")
_END = object()
_POLL = 0.05  # seconds between looks at the stop flag while the queue is full
STOP_WAIT = 2.0  # seconds a consumer that stopped early waits for the producer to stop


def prefetched(items: Iterator[T], depth: int = 2, name: str = "plogscan-read",
               on_stop: Callable[[], None] | None = None) -> Iterator[T]:
    """The items of ``items`` in order, ``depth`` at most produced ahead by a thread.
    ``on_stop`` is called when the consumer stops before the end, so that a producer that
    is between two items (reading input that yields no item for a while) stops too."""
    handoff: queue.Queue[tuple[bool, object]] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(entry: tuple[bool, object]) -> bool:
        while not stop.is_set():
            try:
                handoff.put(entry, timeout=_POLL)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not put((True, item)):
                    break
            else:
                put((True, _END))
        except BaseException as err:  # raised again where the items are consumed
            put((False, err))
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                try:
                    close()
                except BaseException as err:  # the consumer sees it
                    put((False, err))

    thread = threading.Thread(target=produce, name=name, daemon=True)
    thread.start()
    ended = False
    try:
        while True:
            ok, item = handoff.get()
            if not ok:
                assert isinstance(item, BaseException)
                raise item
            if item is _END:
                ended = True
                return
            yield item  # type: ignore[misc]
    finally:
        stop.set()
        if on_stop is None or ended:
            thread.join()
        else:
            on_stop()
            # It stops at its next chunk or file; one blocked in reading input that does not
            # come (a quiet pipe) is left to end with the process: the thread is a daemon.
            thread.join(STOP_WAIT)
