"""``ingest.prefetch.prefetched``: the same items in the same order, an error raised where the
items are consumed, a bounded lead, and the iterator run and closed in its own thread."""

from __future__ import annotations

import threading
import time

import pytest

from plogscan.ingest.prefetch import prefetched


def test_items_come_in_order():
    assert list(prefetched(iter(range(1000)), depth=3)) == list(range(1000))


def test_an_empty_iterator_gives_nothing():
    assert list(prefetched(iter(()))) == []


def test_an_error_of_the_iterator_is_raised_in_the_consumer_after_the_items_before_it():
    def items():
        yield 1
        yield 2
        raise ValueError("bad record batch")

    seen = []
    with pytest.raises(ValueError, match="bad record batch"):
        for item in prefetched(items()):
            seen.append(item)
    assert seen == [1, 2]


def test_the_producer_runs_at_most_depth_items_ahead():
    produced = []

    def items():
        for i in range(100):
            produced.append(i)
            yield i

    stream = prefetched(items(), depth=2)
    assert next(stream) == 0
    time.sleep(0.3)  # time for the producer to run ahead as far as it may
    # One item taken, two waiting, one more produced and waiting to be put.
    assert len(produced) <= 4
    stream.close()


def test_stopping_early_closes_the_iterator_in_its_own_thread():
    closed_in = []
    runs_in = set()

    def items():
        try:
            for i in range(1000):
                runs_in.add(threading.current_thread().name)
                yield i
        finally:
            closed_in.append(threading.current_thread().name)

    stream = prefetched(items(), depth=2, name="test-reader")
    assert [next(stream) for _ in range(3)] == [0, 1, 2]
    stream.close()
    assert closed_in == ["test-reader"]
    assert runs_in == {"test-reader"}
    assert not any(t.name == "test-reader" for t in threading.enumerate())


def test_an_error_in_the_consumer_stops_the_producer():
    def items():
        i = 0
        while True:
            yield i
            i += 1

    with pytest.raises(RuntimeError):
        for item in prefetched(items(), name="test-endless"):
            if item == 5:
                raise RuntimeError("the rules failed")
    assert not any(t.name == "test-endless" for t in threading.enumerate())


def test_a_consumer_that_stops_stops_a_producer_between_items() -> None:
    """A producer that reads on without yielding (a pipe whose lines are all dropped) would
    keep the consumer's close waiting for ever: ``on_stop`` tells it to stop."""
    cancelled = threading.Event()

    def items():
        yield 1
        while not cancelled.is_set():  # input read on, nothing to hand on yet
            time.sleep(0.01)

    consumer = prefetched(items(), on_stop=cancelled.set)
    assert next(consumer) == 1
    closing = threading.Thread(target=consumer.close, daemon=True)
    closing.start()
    closing.join(timeout=60)
    assert not closing.is_alive() and cancelled.is_set()


def test_a_consumer_that_read_to_the_end_does_not_stop_the_producer() -> None:
    stopped = []
    assert list(prefetched(iter(range(10)), on_stop=lambda: stopped.append(True))) == list(
        range(10))
    assert stopped == []
