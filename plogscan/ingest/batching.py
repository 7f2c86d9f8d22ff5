"""Grouping work for the parse pool: small files into one parse task, reuse candidates into
one digest task, each group put into the in-flight queue in its place in the file order.

``Ingest`` hands every file to a ``Batcher``; a group is flushed when a large file or a reused
file comes, or when it is full. In a pool of worker threads a file the walk opened is read
through a duplicate of its descriptor (``held``), closed when its task is done: no file is
opened a second time.
"""

from __future__ import annotations

import dataclasses
import io
import os
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from typing import BinaryIO, NamedTuple

from plogscan.cache.digest import fd_digest, fd_digests, file_digest, file_digests
from plogscan.cache.entries import FileKey, Stored
from plogscan.ingest.chunks import Chunk, Cleaned, FileState, parse_task
from plogscan.ingest.contextlines import ContextSpec
from plogscan.ingest.facts import Reducer
from plogscan.ingest.filekeys import absolute, plain_file
from plogscan.ingest.ranges import Range, parse_range
from plogscan.ingest.smallfiles import (
    GROUP_BYTES,
    GROUP_FILES,
    SMALL_FILE_BYTES,
    GroupOutcome,
    parse_files,
)
from plogscan.parse.lineformats import FormatSet
from plogscan.parse.results import FileContext
from plogscan.schema import held_bytes


@dataclasses.dataclass(frozen=True)
class ParseSpec:
    """What every parse task of one run takes besides its chunk, range or files."""

    formats: FormatSet | None  # None: the built-in set (each worker loads it)
    shared: str | None  # the shared-memory directory worker processes hand tables back through
    encoded: bool  # batches in STORED_SCHEMA (for the Parquet writer) instead of EVENT_SCHEMA
    reducer: Reducer | None  # which records the workers hand on (``facts``)
    line_bytes: int  # the longest physical line kept (``--max-line-bytes``)
    digests: bool  # small-file groups hash each file's bytes for the extraction cache
    context: ContextSpec | None = None  # the lines around the records rules may use

    def task_args(self) -> tuple[FormatSet | None, str | None, bool, Reducer | None, int,
                                 ContextSpec | None]:
        """The arguments ``ranges.parse_range`` and ``chunks.parse_task`` take after the
        chunk and its file."""
        return (self.formats, self.shared, self.encoded, self.reducer, self.line_bytes,
                self.context)


@dataclasses.dataclass
class Reuse:
    """A file whose stored extraction is used once its digest (``index`` in the list that
    ``digest`` gives: digests are computed in groups) confirms its content; ``fd`` (a
    duplicate of the walk's descriptor) is where it is parsed from when it does not."""

    state: FileState
    key: FileKey
    stored: Stored
    digest: Future[list[str | None]]
    index: int = 0
    fd: int | None = None


def held(stream: BinaryIO) -> int | None:
    """A duplicate of the descriptor of a plain file the walk opened (no new open), or None
    for a stream that has none."""
    try:
        return os.dup(stream.fileno())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return None


def closed_when_done(future: Future, fds: list[int]) -> None:
    """Close ``fds`` once ``future`` is done, cancelled included (then no task reads them)."""
    if fds:
        future.add_done_callback(lambda _f: [os.close(fd) for fd in fds])


@dataclasses.dataclass
class Group:
    """Small files parsed as one task (``smallfiles``)."""

    states: list[FileState]
    future: Future[GroupOutcome]


class Batcher:
    """Gathers small files into parse groups and reuse candidates into digest groups, and
    puts each group into the in-flight queue in its place in the file order."""

    DIGESTS = 256  # files hashed per digest task
    # Stored extractions held while their digests are computed: past this many bytes the
    # group goes to the pool, so a tree of large reused files is not held in memory at once.
    REUSE_BYTES = 32 << 20

    def __init__(self, spec: ParseSpec, pool: Executor, inflight: deque,
                 small_bytes: int = SMALL_FILE_BYTES, local: bool = False) -> None:
        self.spec, self.pool, self.inflight = spec, pool, inflight
        self.local = local  # worker threads of this process: descriptors can be handed to them
        self.files: list[tuple[FileState, str, bytes | int | None]] = []
        self.size = 0
        self.reused: list[tuple[FileState, FileKey, Stored, int | None]] = []
        self.reused_bytes = 0
        self.small_bytes = small_bytes

    def small(self, state: FileState, file: SmallFile, stream: BinaryIO) -> None:
        self._flush_reused()
        path, size, whole = file
        if self.files and (self.size + size > GROUP_BYTES or len(self.files) >= GROUP_FILES):
            self._flush_files()
        read: bytes | int | None = whole
        if whole is None and self.local:
            read = held(stream)
        self.files.append((state, path, read))
        self.size += size

    def reuse(self, state: FileState, key: FileKey, stored: Stored, stream: BinaryIO) -> None:
        self._flush_files()
        self.reused.append((state, key, stored, held(stream) if self.local else None))
        self.reused_bytes += held_bytes(stored.records) + held_bytes(stored.facts)
        if len(self.reused) >= self.DIGESTS or self.reused_bytes >= self.REUSE_BYTES:
            self._flush_reused()

    def flush(self) -> None:
        self._flush_files()
        self._flush_reused()

    def _flush_files(self) -> None:
        if not self.files:
            return
        spec = self.spec
        future = self.pool.submit(parse_files, [(s.ctx, p, w) for s, p, w in self.files],
                                  spec.formats, spec.encoded, spec.reducer, spec.digests,
                                  spec.context)
        closed_when_done(future, [w for _, _, w in self.files if isinstance(w, int)])
        self.inflight.append(Group([s for s, _, _ in self.files], future))
        self.files, self.size = [], 0

    def _flush_reused(self) -> None:
        if not self.reused:
            return
        fds = [fd for _, _, _, fd in self.reused]
        if all(fd is not None for fd in fds):  # hashed through the walk's descriptors
            future = self.pool.submit(fd_digests, fds)
        else:
            future = self.pool.submit(file_digests, [key.path for _, key, _, _ in self.reused])
        for index, (state, key, stored, fd) in enumerate(self.reused):
            self.inflight.append(Reuse(state, key, stored, future, index, fd))
        self.reused, self.reused_bytes = [], 0


class SmallFile(NamedTuple):
    """A plain file small enough to be parsed in a group: its absolute path, its size and,
    when the walk's sniff read all of it, its bytes (``streams.PlainFile.whole``)."""

    path: str
    size: int
    whole: bytes | None


def small_file(stream: BinaryIO, limit: int = SMALL_FILE_BYTES, cwd: str | None = None
               ) -> SmallFile | None:
    """The ``SmallFile`` of a plain file small enough to be parsed in a group, else None."""
    plain = plain_file(stream)
    if plain is None or not 0 < plain[1].st_size <= limit:
        return None
    return SmallFile(absolute(plain[0], cwd), plain[1].st_size, getattr(stream, "whole", None))


def digest_task(pool: Executor, path: str, stream: BinaryIO, local: bool) -> Future:
    """The content digest of a plain file to store, as a task: computed through the walk's
    descriptor where it reaches the workers (``local``: threads of this process), else by
    path."""
    fd = held(stream) if local else None
    if fd is None:
        return pool.submit(file_digest, path)
    future = pool.submit(fd_digest, fd)
    closed_when_done(future, [fd])
    return future


def range_task(pool: Executor, part: Range, ctx: FileContext, stream: BinaryIO,
               spec: ParseSpec, local: bool) -> Future[Cleaned]:
    """A byte range's parse task; in a worker thread (``local``) it reads the walk's
    descriptor."""
    fd = held(stream) if local else None
    if fd is not None:
        part = dataclasses.replace(part, fd=fd)
    future = pool.submit(parse_range, part, ctx, *spec.task_args())
    closed_when_done(future, [fd] if fd is not None else [])
    return future


def chunk_tasks(pool: Executor, chunks: Iterator[tuple[Chunk, bool]], ctx: FileContext,
                spec: ParseSpec) -> Iterator[tuple[Callable[[], Future[Cleaned]], int, bool]]:
    """The parse tasks of a streamed file's chunks, each submitted when called: the task's
    submitter, the chunk's size and whether it is the file's last."""
    for chunk, is_last in chunks:
        yield ((lambda c=chunk: pool.submit(parse_task, c, ctx, *spec.task_args())),
               len(chunk.data), is_last)


def take_outcome(state: FileState, group: GroupOutcome, index: int) -> None:
    """What a small-file group's parse found for its ``index``-th file, put into that file's
    state: its counts and problems and, where its extraction is saved, its own records and
    facts cut from the group's tables, and its digest."""
    outcome = group.files[index]
    for name, value in outcome.stats.items():
        state.add(name, value)
    state.problems.extend(outcome.problems)
    if state.saving is not None:
        state.kept.append(group.file_records(index))
        if group.facts is not None:
            state.facts.append(group.file_facts(index))
        state.saving = (state.saving[0], outcome.digest)
