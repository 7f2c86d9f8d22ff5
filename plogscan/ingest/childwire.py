"""What crosses from the walk's child process to the main one (``walkchild``): events pickled
in batches onto a pipe, the bytes of streams in blocks, and the descriptors of the plain files
the child opened, passed over a Unix socket (``SCM_RIGHTS``) so that the main process reads
the very file the child checked without opening it again.

The child sends a batch's descriptors right after the batch, in the order of its ``file``
events; the main process takes one for each ``file`` event as it reaches it, so neither side
waits for the other while holding what the other needs.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

BATCH_EVENTS = 64  # events pickled together
BATCH_BYTES = 256 << 10  # ... unless their bytes reach this first
BATCH_SECONDS = 0.02  # ... or this long has passed since the last batch was sent
PIPE_BUFFER = 1 << 16

Event = tuple[Any, ...]


class WalkFailed(RuntimeError):
    """The child process stopped without finishing the walk (a bug, or it was killed)."""


class Sender:
    """Events pickled in batches onto the pipe, and the descriptors of their files after each
    batch on the socket ``files``."""

    def __init__(self, fd: int, files: socket.socket) -> None:
        self._out = os.fdopen(fd, "wb", buffering=PIPE_BUFFER)
        self._files = files
        self._events: list[Event] = []
        self._fds: list[int] = []  # of the batch's file events, in order
        self._bytes = 0
        self._sent = time.monotonic()

    def add(self, event: Event, size: int = 0, fd: int | None = None) -> None:
        """Queue ``event`` (with ``fd``, a descriptor this sender closes once it is sent)."""
        self._events.append(event)
        if fd is not None:
            self._fds.append(fd)
        self._bytes += size
        if (len(self._events) >= BATCH_EVENTS or self._bytes >= BATCH_BYTES
                or time.monotonic() - self._sent >= BATCH_SECONDS):
            self.flush()

    def flush(self) -> None:
        if self._events:
            pickle.dump(self._events, self._out, pickle.HIGHEST_PROTOCOL)
            self._events, self._bytes = [], 0
        self._out.flush()
        fds, self._fds = self._fds, []
        for fd in fds:
            try:
                socket.send_fds(self._files, [b"f"], [fd])
            finally:
                os.close(fd)
        self._sent = time.monotonic()


def received_file(files: socket.socket, name: str) -> BinaryIO:
    """The next file the child sent, as a plain file named ``name`` (not opened here)."""
    from plogscan.ingest.streams import PlainFile

    _, fds, _, _ = socket.recv_fds(files, 1, 1)
    if len(fds) != 1:
        raise WalkFailed("the walk of the inputs sent a file without its descriptor")
    raw = io.FileIO(fds[0], "r")
    raw.name = name  # type: ignore[misc]  # as ``open`` names it: ranges are planned by it
    return PlainFile(raw)  # type: ignore[return-value]


def send_stream(stream: BinaryIO, sender: Sender, block: int) -> None:
    """The stream's bytes in reads of ``block``, then how it ended."""
    while True:
        try:
            data = stream.read(block)
        except Exception as err:  # what the consumer's read would have raised, sent on
            sender.add(("fail", portable(err), getattr(stream, "decode_errors", 0)))
            return
        if not data:
            sender.add(("end", getattr(stream, "decode_errors", 0)))
            return
        sender.add(("data", data), len(data))
        sender.flush()  # a block is large: sent at once, so it is held once


def portable(err: Exception) -> Exception:
    """``err`` when it survives pickling as itself, else an ``OSError`` that says the same.

    Its traceback and chain are dropped first: the main process raises it afresh, and a
    pickler that follows them (``distributed`` installs ``tblib``'s, which does) would recurse
    for ever through ``raise err from err``."""
    err.__traceback__ = err.__cause__ = err.__context__ = None
    with contextlib.suppress(Exception):  # not picklable: described instead
        copy = pickle.loads(pickle.dumps(err, pickle.HIGHEST_PROTOCOL))
        if type(copy) is type(err) and str(copy) == str(err):
            return err
    return OSError(f"{type(err).__name__}: {err}")


def events(pipe: io.BufferedReader) -> Iterator[Event]:
    while True:
        try:
            batch = pickle.load(pipe)
        except EOFError:
            raise WalkFailed("the walk of the inputs stopped before it was done "
                             "(its process ended)") from None
        yield from batch


class Piped(io.RawIOBase):
    """A stream the child read: its blocks as they come, then its end or its error."""

    def __init__(self, events: Iterator[Event], control: Callable[[Event], None]) -> None:
        super().__init__()
        self._events = events
        self._control = control
        self._buffer = b""
        self._ended = False
        self.decode_errors = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            parts = []
            while self._fill():
                parts.append(self._take(len(self._buffer)))
            return b"".join(parts)
        return self._take(size) if self._fill() else b""

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def drain(self) -> None:
        """Skip what the consumer left unread, up to the stream's end."""
        with contextlib.suppress(Exception):
            while self._fill():
                self._buffer = b""

    def _take(self, size: int) -> bytes:
        out, self._buffer = self._buffer[:size], self._buffer[size:]
        return out

    def _fill(self) -> bool:
        """Whether bytes are buffered, after reading up to the next block if none are."""
        while not self._buffer and not self._ended:
            event = next(self._events)
            tag = event[0]
            if tag == "data":
                self._buffer = event[1]
            elif tag == "end":
                self._ended, self.decode_errors = True, event[1]
            elif tag == "fail":
                self._ended, self.decode_errors = True, event[2]
                raise event[1]
            else:
                self._control(event)
        return bool(self._buffer)
