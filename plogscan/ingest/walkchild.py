"""The walk of the inputs run in a forked child process, beside the parse.

On a tree of many logs the walk is a cost per file paid in the interpreter: opening each one,
reading its head and sniffing what it is (``classify``). On 3,825 plogs of a 1,024-rank job
that was a third of the time the main process held the GIL (0.44 ms a file for 64 KiB
heads), on 20,000 small plogs 45 us a file; meanwhile the parse workers and the rules waited
for the lock. ``walk_inputs`` walks in process at first; once the walk has taken
``ALONE_SECONDS`` it forks, and the child, which carries the walk's state, goes on with it on
the other core and hands on what it yields in the same order:

* a skipped file as it is;
* a plain file on disk as its ``Source`` and the descriptor the child opened it with (under
  the walk's check, ``sniff.open_checked``: still that regular file, no symlink swapped in),
  passed over a Unix socket (``childwire``): the main process reads that very file, by
  ranges or whole, without opening it again. The bytes of a small file the sniff read whole
  come with it, so it is not read twice;
* any other stream (standard input aside: decompressed files, archive members, pipes, text in
  another encoding) as its bytes, in the blocks the parse would have read (``block``), then
  its decode-error count, or the error its read raised, raised again at the same byte;
* each limit that bit (``on_limit``), at its place among those.

The child goes on with the same walker, so the order, the limits, the duplicates and the
skip reasons are the walker's own; only where it reports limits and keeps kinds is swapped
(``sniff.Walker`` looks both up at each use). Events cross a pipe in pickled batches; the
pipe's capacity is the only buffer, so the child runs at most a batch or so ahead and memory
(and the descriptors in flight) stays bounded.

With the extraction cache's kind memo (``classify.remembered_kind``), the child looks kinds
up in a copy of the memo's entries taken at the fork (an SQLite connection cannot cross one)
and sends back what it used and what it sniffed anew, for the main process to keep.

The child is used where it can pay: on Linux (``fork``), for a directory or a glob, and
without ``-`` (standard input stays the main process's), once the walk is long enough to be
worth a fork. A failed fork, or a memo of more than ``MEMO_ENTRIES`` kinds, leaves the walk
in process.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import time
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol, cast

from plogscan.ingest.childwire import (
    PIPE_BUFFER,
    Event,
    Piped,
    Sender,
    WalkFailed,
    events,
    received_file,
    send_stream,
)
from plogscan.ingest.chunks import CHUNK_BYTES
from plogscan.ingest.classify import KindMemo
from plogscan.ingest.limits import LimitHit, Limits
from plogscan.ingest.sniff import Walker, WalkItem
from plogscan.ingest.sources import Skipped
from plogscan.ingest.streams import PlainFile
from plogscan.ingest.walk import Lister, is_pattern

MEMO_ENTRIES = 100_000  # kinds copied for the child at most (about 30 MB)
# The walk forks once it has taken this long here: a walk of a few large files never does (a
# fork costs its copy-on-write faults: about 3% of ingesting 8 files of 64 MiB).
ALONE_SECONDS = 0.05



class ForkableMemo(KindMemo, Protocol):
    """A kind memo the child can use: its entries copied, and uses and new kinds noted."""

    def kinds_found(self, limit: int) -> dict[str, tuple[str, float]] | None: ...

    def kind_used(self, key: str, last: float) -> None: ...


def worth_a_child(paths: Sequence[str], kinds: KindMemo | None = None) -> bool:
    """Whether ``walk_inputs`` walks ``paths`` in a child process (see the module's text)."""
    return (sys.platform.startswith("linux") and hasattr(os, "fork")
            and (kinds is None or hasattr(kinds, "kinds_found")) and "-" not in paths
            and any(os.path.isdir(p) or is_pattern(p) for p in paths))


def walk_inputs(paths: Sequence[str] | Lister, limits: Limits | None = None,
                on_limit: Callable[[LimitHit], None] | None = None,
                kinds: KindMemo | None = None, *, block: int = CHUNK_BYTES,
                apart: bool | None = None, alone_seconds: float | None = None,
                alone_items: int | None = None) -> Iterator[WalkItem]:
    """``sniff.iter_inputs(paths, limits, on_limit, kinds)``, or the same over the entries of
    a ``walk.Lister`` (its walk, which others may have asked for whole already). When
    ``apart`` (by default: when ``worth_a_child``), the walk goes on in a child process once
    it has taken ``alone_seconds`` of this one's time (by default ``ALONE_SECONDS``) or
    yielded ``alone_items`` items: the child is a fork, so it carries on from where the walk
    stood. ``block`` is the size of the reads the consumer makes of a stream that is not a
    plain file."""
    limits = limits or Limits()
    listing = paths if isinstance(paths, Lister) else Lister(paths, limits)
    if apart is None:
        apart = worth_a_child(listing.args, kinds)
    if alone_seconds is None:
        alone_seconds = ALONE_SECONDS
    walker = Walker(limits, on_limit, kinds)
    items = walker.inputs(listing)
    with contextlib.closing(items):
        spent, count = 0.0, 0
        while True:
            if apart and (spent >= alone_seconds
                          or (alone_items is not None and count >= alone_items)):
                child = _fork(walker, items, block)
                if child is not None:
                    items.close()  # this process's copy of the walk: the child's goes on
                    yield from _from_child(*child, on_limit, kinds)
                    return
                apart = False  # no child: the walk stays here
            begun = time.perf_counter()
            item = next(items, None)
            spent += time.perf_counter() - begun
            if item is None:
                return
            count += 1
            yield item


def _fork(walker: Walker, items: Iterator[WalkItem], block: int
          ) -> tuple[int, int, socket.socket, dict[str, tuple[str, float]] | None] | None:
    """Fork a child that goes on with ``items`` (``walker``'s walk) and sends what it yields;
    its pid, the read end of its pipe, the socket its files come through and the kinds copied
    for it. None when it cannot be started, or the kind memo cannot be copied."""
    known: dict[str, tuple[str, float]] | None = None
    if walker.kinds is not None:
        found = getattr(walker.kinds, "kinds_found", None)
        known = found(MEMO_ENTRIES) if found is not None else None
        if known is None:
            return None
    try:
        read_fd, write_fd = os.pipe()
    except OSError:
        return None
    try:
        files, child_files = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return None
    try:
        with warnings.catch_warnings():
            # Python 3.12+ warns of a fork with threads running: the child runs only the walk
            # (no lock of the other threads is taken there), and leaves with os._exit.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        files.close()
        child_files.close()
        return None
    if pid == 0:  # the child: walk, send, and leave without running the parent's clean-up
        try:
            os.close(read_fd)
            files.close()
            _walk_and_send(walker, items, block, known, write_fd, child_files)
        finally:
            os._exit(1)  # even on a Ctrl-C before its handler was set: never the parent's code
    os.close(write_fd)
    child_files.close()
    return pid, read_fd, files, known


def _from_child(pid: int, read_fd: int, files: socket.socket,
                known: dict[str, tuple[str, float]] | None,
                on_limit: Callable[[LimitHit], None] | None, kinds: KindMemo | None
                ) -> Iterator[WalkItem]:
    """What the child sends, as the walk's items; the child reaped at the end."""
    done = False
    with os.fdopen(read_fd, "rb", buffering=PIPE_BUFFER) as pipe, files:
        try:
            memo = cast(ForkableMemo, kinds) if known is not None else None
            yield from _received(events(pipe), files, on_limit, memo)
            done = True  # the child said so, and leaves by itself
        finally:
            if not done:  # an error, or the consumer stopped early: nothing more is wanted
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.waitpid(pid, 0)


# -- in the child ----------------------------------------------------------------------------


class _CopiedMemo:
    """The kind memo in the child: kinds looked up in the copy of its entries; what was used
    and what was sniffed anew is sent to the main process, which keeps it."""

    def __init__(self, known: dict[str, tuple[str, float]], sender: Sender) -> None:
        self._known = known
        self._sender = sender

    def find_kind(self, key: str) -> str | None:
        found = self._known.get(key)
        if found is None:
            return None
        self._sender.add(("kind used", key, found[1]))
        return found[0]

    def save_kind(self, key: str, kind: str) -> None:
        self._sender.add(("kind", key, kind))


def _walk_and_send(walker: Walker, items: Iterator[WalkItem], block: int,
                   known: dict[str, tuple[str, float]] | None, fd: int,
                   files: socket.socket) -> None:
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's
        sender = Sender(fd, files)
        walker.on_limit = lambda hit: sender.add(("limit", hit))
        walker.kinds = _CopiedMemo(known, sender) if known is not None else None
        try:
            for item in items:
                if isinstance(item, Skipped):
                    sender.add(("skip", item))
                    continue
                source, stream = item
                if type(stream) is PlainFile and stream.key is not None:
                    whole = stream.whole
                    sender.add(("file", source, stream.name, whole), len(whole or b""),
                               os.dup(stream.fileno()))
                else:
                    sender.add(("stream", source))
                    send_stream(stream, sender, block)
            sender.add(("done",))
            sender.flush()
            code = 0
        except BrokenPipeError:
            code = 0  # the main process stopped reading: nothing more is wanted
        except BaseException:
            with contextlib.suppress(BaseException):
                sender.add(("error", traceback.format_exc()))
                sender.flush()
    finally:
        os._exit(code)


# -- in the main process ---------------------------------------------------------------------


def _received(events: Iterator[Event], files: socket.socket,
              on_limit: Callable[[LimitHit], None] | None, kinds: ForkableMemo | None
              ) -> Iterator[WalkItem]:
    def control(event: Event) -> None:
        tag = event[0]
        if tag == "limit":
            if on_limit is not None:
                on_limit(event[1])
        elif tag == "kind" and kinds is not None:
            kinds.save_kind(event[1], event[2])
        elif tag == "kind used" and kinds is not None:
            kinds.kind_used(event[1], event[2])
        elif tag == "error":
            raise WalkFailed(f"the walk of the inputs failed:\n{event[1]}")
        else:
            raise WalkFailed(f"the walk of the inputs sent {event[0]!r} out of place")

    for event in events:
        tag = event[0]
        if tag == "skip":
            yield event[1]
        elif tag == "file":
            _, source, name, whole = event
            handle = received_file(files, name)
            handle.whole = whole  # type: ignore[attr-defined]
            with handle:
                yield source, handle
        elif tag == "stream":
            stream = Piped(events, control)
            try:
                yield event[1], stream
            finally:
                stream.drain()
        elif tag == "done":
            return
        else:
            control(event)


