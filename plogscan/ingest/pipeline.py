"""Stream log files into event-table record batches, in parallel, with bounded memory.

Each input is cut into chunks of about 8 MiB that end on a line boundary. A plain file is cut
into byte ranges (only a small window around each cut is read here) and every worker reads its
own range; compressed files and archive members are read and decompressed by the main process
and their chunks sent to the workers. Workers are threads by default; as processes (where
``fork`` works) they hand their tables back through shared memory (``handoff``). Either way
they parse with Arrow and numpy kernels. Results are stitched back in order (``stitch``), so a
record that spans two chunks comes out whole. At most a few chunks are in flight at any time,
whatever the input size.

Small plain files go to the workers in groups and are parsed as one (``smallfiles``). With a
``Reducer`` (``diagnose``) workers hand back only the records it keeps plus the facts of all
(``facts``); with a ``FileStore`` too, unchanged files are read from it (``cache.entries``).
The pool may be a cluster's (``cluster``): the tasks are the same.

Every physical line is accounted for in ``FileStats``: it is inside exactly one record
(``record_lines``), or blank (``blank_lines``). ``lines == record_lines + blank_lines``.
Limits (``limits.Limits``) bound what one run reads; each one that bites is kept in
``IngestSummary.limits`` (the first ``MAX_LIMIT_HITS`` of them, then a count).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any, BinaryIO

import pyarrow as pa

from plogscan.cache.digest import content_digest
from plogscan.cache.entries import FileKey, FileStore
from plogscan.ingest import handoff
from plogscan.ingest.accounting import Accounting, cut_lines_note, file_stats
from plogscan.ingest.batching import (
    Batcher,
    Group,
    ParseSpec,
    Reuse,
    chunk_tasks,
    digest_task,
    range_task,
    small_file,
    take_outcome,
)
from plogscan.ingest.chunks import (
    CHUNK_BYTES,
    Cleaned,
    FileState,
    read_chunks,
    with_last,
)
from plogscan.ingest.classify import KindMemo
from plogscan.ingest.contextlines import ContextSpec, kept_schema, with_context_columns
from plogscan.ingest.cores import inflight_limit, worker_count
from plogscan.ingest.facts import Reducer
from plogscan.ingest.filekeys import file_key
from plogscan.ingest.limits import LimitHit, Limits
from plogscan.ingest.pool import parse_pool
from plogscan.ingest.ranges import Range, note_growth, plan_ranges
from plogscan.ingest.smallfiles import SMALL_FILE_BYTES
from plogscan.ingest.stitch import Stitcher, nonempty_batches, reduced_batches
from plogscan.ingest.stored import cheaper_parsed, joined_records, reopened, saved_extraction
from plogscan.ingest.walk import Lister
from plogscan.model import FileStats, IngestSummary, SkippedFile
from plogscan.parse.formatcheck import builtin_formats
from plogscan.parse.lineformats import FormatSet
from plogscan.parse.results import FileContext
from plogscan.schema import table_schema


class Ingest:
    """Parse inputs into record batches; ``summary`` holds the accounting afterwards."""

    def __init__(self, fset: FormatSet | None = None, workers: int | None = None,
                 chunk_bytes: int = CHUNK_BYTES,
                 on_progress: Callable[[str, int], None] | None = None,
                 processes: bool = False, encoded: bool = False,
                 reducer: Reducer | None = None,
                 on_facts: Callable[[pa.Table], None] | None = None,
                 store: FileStore | None = None, executor: Any = None,
                 limits: Limits | None = None, kinds: KindMemo | None = None,
                 digests: dict[str, str] | None = None,
                 context: ContextSpec | None = None) -> None:
        # The line formats are loaded when a file is parsed: a rerun that reads every file
        # from the cache needs none (``_fset`` None: the built-in ones).
        self._fset = fset
        self._limits = limits or Limits()
        self._books = Accounting()
        # The content digest of each plain file, by absolute path: the ones known already
        # are not computed again, and every one computed is kept here (``walk.Lister``).
        self._digests = digests
        # With ``context``, the records rules may use come with the lines around them, taken
        # by the workers from the bytes they parse (``contextlines``): no file is read again.
        self._context = context
        # With a reducer, workers hand on only the records it keeps, and the facts of all
        # records go to ``on_facts`` (see ``facts``); the accounting stays whole.
        self._reducer, self._on_facts = reducer, on_facts
        # With a reducer and a store, unchanged plain files are read from the store instead
        # of parsed, and what was parsed is saved there (``cache.entries``).
        self._store = store if reducer is not None else None
        self._reused_files = 0
        self._kinds = kinds  # the kinds sniffed by earlier runs (``classify.remembered_kind``)
        self._executor = executor  # a cluster's (``cluster.DaskExecutor``), else a local pool
        self._cwd: str | None = None
        self._processes = processes
        self._encoded = encoded  # batches in STORED_SCHEMA (for the Parquet writer)
        self._schema = table_schema(encoded)
        self._workers = worker_count(workers)
        self._chunk_bytes = chunk_bytes
        self._on_progress = on_progress
        self._spec: ParseSpec | None = None  # what every parse task of the running pool takes
        self._stitcher = Stitcher(  # each file's chunks put back together in order
            self._schema, lambda: self._formats, on_facts, reducer is not None)
        self._local = False  # the running pool's workers are threads of this process
        self._cancelled = False  # set by ``cancel``: no more input is read

    @property
    def summary(self) -> IngestSummary:
        """What was read and skipped, and the limits that bit, so far."""
        return self._books.summary

    @property
    def limits(self) -> Limits:
        return self._limits

    @property
    def reused_files(self) -> int:
        """Files whose stored extraction was used instead of parsing them."""
        return self._reused_files

    def cancel(self) -> None:
        """Stop reading: the batches end at the next chunk or file (for a consumer in another
        thread that stopped early, ``prefetch``: the reading would go on to the input's end)."""
        self._cancelled = True

    def absorb(self, files: Iterable[FileStats], skipped: Iterable[SkippedFile],
               limits: Iterable[LimitHit] = (), errors: Iterable[SkippedFile] = ()) -> None:
        """Add accounting made by an earlier run (stored in an event table)."""
        self._books.absorb(files, skipped, limits, errors)

    def record_limit(self, hit: LimitHit) -> None:
        """Keep a limit that bit (the first ``MAX_LIMIT_HITS``; later ones are counted)."""
        self._books.record_limit(hit)

    def record_inputs(self, paths: Sequence[str]) -> None:
        """The paths the run was given (event tables included), as the summary names them."""
        self._books.record_inputs(paths)

    def hand_on(self, batch: pa.RecordBatch) -> Iterator[pa.RecordBatch]:
        """A ready-made batch (an event table's) reduced as the workers reduce a parsed chunk:
        with a reducer, the facts of all its rows to ``on_facts`` and only the kept rows
        yielded; else the batch as it is."""
        if self._context is not None:
            batch = with_context_columns(batch)
        yield from reduced_batches(batch, self._reducer, self._on_facts)

    def batches(self, paths: Sequence[str] | Lister) -> Iterator[pa.RecordBatch]:
        """Every record of every input, file by file, in line order: the inputs of a walk
        (``walk.Lister``; made here from ``paths`` when none is given)."""
        from plogscan.ingest.sources import Skipped
        from plogscan.ingest.walkchild import walk_inputs

        listing = paths if isinstance(paths, Lister) else Lister(paths, self._limits)
        self._books.record_inputs(listing.args)

        def items() -> Iterator[tuple[FileContext, BinaryIO]]:
            for item in walk_inputs(listing, self._limits, self.record_limit, self._kinds,
                                    block=self._chunk_bytes):
                if isinstance(item, Skipped):
                    self._books.skip(item.path, item.reason, item.named)
                    if self._on_progress:
                        self._on_progress("skipped", 0)
                    continue
                source, stream = item
                yield FileContext(source.path, source.kind.value, source.host, source.rank,
                                  source.device, source.encoding), stream

        yield from self.batches_from(items())

    def batches_from(self, inputs: Iterable[tuple[FileContext, BinaryIO]]
                     ) -> Iterator[pa.RecordBatch]:
        """Like ``batches`` for already opened streams (used by ``parse_text``)."""
        pool = parse_pool(self._workers, self._processes, self._executor)
        # The pool is shut down (its workers done) before the hand-off directory is removed,
        # so no worker can write into it after it is gone, even when the run stops early.
        with handoff.Handoff(isinstance(pool, ProcessPoolExecutor)) as box, pool:
            self._spec = ParseSpec(self._task_formats, box.directory, self._encoded,
                                   self._reducer, self._limits.line_bytes,
                                   self._store is not None, self._context)
            try:
                for batch in self._run(pool, inputs):
                    yield with_context_columns(batch) if self._context else batch
            except BaseException:
                # Ctrl-C or a failed write: queued chunks are dropped, not parsed, so the
                # workers stop at once (the ones running finish their chunk).
                with contextlib.suppress(Exception):
                    pool.shutdown(wait=False, cancel_futures=True)
                raise

    def _run(self, pool: Executor, inputs: Iterable[tuple[FileContext, BinaryIO]]
             ) -> Iterator[pa.RecordBatch]:
        inflight: deque = deque()
        slots = getattr(pool, "slots", None) or self._workers
        limit = inflight_limit(slots)
        self._local = isinstance(pool, ThreadPoolExecutor)  # descriptors reach its workers
        # small files and digests, in groups
        batch = Batcher(self._spec, pool, inflight, local=self._local)
        cwd = self._cwd = os.getcwd()  # paths sent to workers are absolute
        for ctx, stream in inputs:
            if self._cancelled:
                return
            state = FileState(ctx)
            # a group does not cut long lines: a file that may hold one is read alone
            small = small_file(stream, min(SMALL_FILE_BYTES, self._limits.line_bytes), cwd)
            # The line limit changes what a file's extraction holds: it is part of the key.
            key = (file_key(stream, (ctx, self._limits.line_bytes), cwd)
                   if self._store is not None and not cheaper_parsed(ctx, small) else None)
            stored = self._store.find(key) if key is not None and self._store else None
            if stored is not None:  # used once its digest is confirmed
                batch.reuse(state, key, stored, stream)
            else:
                if key is not None and small is None:
                    state.saving = key, self._digest(pool, key, stream)
                elif key is not None:
                    state.saving = key, None  # the group's worker hashes the bytes
                elif small is not None and small.whole is not None:
                    self._keep_digest(small.path, content_digest(small.whole).hexdigest())
                if small is not None:
                    batch.small(state, small, stream)
                else:
                    batch.flush()
                    yield from self._parse(pool, state, stream, inflight, limit)
            while len(inflight) > limit:
                yield from self._drain(inflight, pool)
        batch.flush()
        while inflight:
            yield from self._drain(inflight, pool)

    def _digest(self, pool: Executor, key: FileKey, stream: BinaryIO) -> Any:
        """The content digest of a plain file to store (a future, or the digest when it is
        known already): computed through the walk's descriptor where it reaches the
        workers, else by path."""
        known = self._digests.get(key.path) if self._digests is not None else None
        return known if known is not None else digest_task(pool, key.path, stream, self._local)

    def _keep_digest(self, path: str, digest: str | None) -> None:
        if self._digests is not None and digest is not None:
            self._digests[path] = digest

    def _parse(self, pool: Executor, state: FileState, stream: BinaryIO,
               inflight: deque, limit: int) -> Iterator[pa.RecordBatch]:
        """Submit the parse tasks of one file, draining the oldest as the queue fills."""
        ctx = state.ctx
        ranges = plan_ranges(stream, self._chunk_bytes, self._cwd)
        chunks = read_chunks(stream, state, self._chunk_bytes, self._limits.line_bytes)
        tasks = (self._range_tasks(pool, ranges, ctx, state, stream) if ranges else
                 chunk_tasks(pool, with_last(chunks, self._radius), ctx, self._spec))
        submitted = 0
        for submit, size, is_last in tasks:
            if self._cancelled:
                return
            inflight.append((state, submit(), is_last))
            submitted += 1
            if self._on_progress:
                self._on_progress("bytes", size)
            while len(inflight) > limit:
                yield from self._drain(inflight, pool)
        state.add("decode_errors", getattr(stream, "decode_errors", 0))
        if ranges:
            note_growth(stream, ranges[-1].end, state)
        if not submitted:  # nothing to parse: finish it in its place in the order
            while inflight:
                yield from self._drain(inflight, pool)
            self._finish(state)

    def _range_tasks(self, pool: Executor, ranges: list[Range], ctx: FileContext,
                     state: FileState, stream: BinaryIO
                     ) -> Iterator[tuple[Callable[[], Future[Cleaned]], int, bool]]:
        for index, part in enumerate(ranges):
            state.add("bytes", part.end - part.start)
            yield ((lambda p=part: range_task(pool, p, ctx, stream, self._spec, self._local)),
                   part.end - part.start, index == len(ranges) - 1)

    @property
    def _formats(self) -> FormatSet:
        return self._fset if self._fset is not None else builtin_formats()

    @property
    def _task_formats(self) -> FormatSet | None:
        """Formats to send with each chunk: none for the built-in set (workers load it)."""
        if self._fset is None:
            return None
        return None if self._fset is builtin_formats() else self._fset

    def _drain(self, inflight: deque, pool: Executor) -> Iterator[pa.RecordBatch]:
        """Finish the oldest item in flight (with a reused file, the reused files after it
        whose digests were computed by the same task)."""
        item = inflight.popleft()
        if isinstance(item, Reuse):
            run = [item]
            while inflight and isinstance(inflight[0], Reuse) and inflight[0].digest is item.digest:
                run.append(inflight.popleft())
            yield from self._reuse(run, pool)
            return
        if isinstance(item, Group):
            yield from self._group(item)
            return
        state, future, is_last = item
        cleaned = future.result()
        yield from self._stitcher.merge(state, cleaned)
        if is_last:
            yield from self._stitcher.flush(state)
            self._finish(state)

    def _reuse(self, run: list[Reuse], pool: Executor) -> Iterator[pa.RecordBatch]:
        """Stored extractions, used where a file's content is still the one stored, else the
        file parsed again here, in its place in the order. Consecutive reused files are
        handed on together: their facts as one table, then their records as one."""
        digests = run[0].digest.result()
        same: list[Reuse] = []
        for item in run:
            digest = digests[item.index]
            self._keep_digest(item.key.path, digest)
            if digest is not None and digest == item.stored.digest:
                if item.fd is not None:
                    os.close(item.fd)
                same.append(item)
                continue
            yield from self._stored(same)
            same = []
            state = item.state
            state.saving = item.key, digest  # the content just hashed: the one parsed now
            inflight: deque = deque()
            try:
                with reopened(item) as stream:
                    yield from self._parse(pool, state, stream, inflight, 1 << 30)
                    while inflight:
                        yield from self._drain(inflight, pool)
            except OSError as err:
                state.problems.append(f"cannot read: {err.strerror or err}")
                self._finish(state)
        yield from self._stored(same)

    def _stored(self, items: list[Reuse]) -> Iterator[pa.RecordBatch]:
        if not items:
            return
        self._reused_files += len(items)
        facts = [item.stored.facts for item in items if item.stored.facts.num_rows]
        if self._on_facts is not None and facts:
            self._on_facts(pa.concat_tables(facts).combine_chunks())
        for item in items:
            if self._on_progress:
                self._on_progress("bytes", item.stored.stats.bytes)
                self._on_progress("file", 0)
            self._books.files.append(dataclasses.replace(item.stored.stats,
                                                         path=item.state.ctx.path))
        yield from joined_records(item.stored.records for item in items)

    def _group(self, item: Group) -> Iterator[pa.RecordBatch]:
        """The files of a small-file group, finished in order; their records as one table."""
        group = item.future.result()
        if group.facts is not None and group.facts.num_rows and self._on_facts is not None:
            self._on_facts(group.facts)  # the group's facts at once, not file by file
        for i, state in enumerate(item.states):
            if self._on_progress:
                self._on_progress("bytes", group.files[i].stats.get("bytes", 0))
            take_outcome(state, group, i)
            self._finish(state)
        if group.records.num_rows:  # the group's records as one batch (see coalesced)
            yield from nonempty_batches(group.records)

    @property
    def _stored_schema(self) -> pa.Schema:
        """The schema of the records handed on (and kept for the cache)."""
        return kept_schema(self._schema) if self._context is not None else self._schema

    @property
    def _radius(self) -> int:
        return self._context.radius if self._context is not None else 0

    def _finish(self, state: FileState) -> None:
        detail = cut_lines_note(state, self._limits.line_bytes)
        if detail is not None:
            state.problems.append(detail)
            self.record_limit(self._limits.hit("line_bytes", state.ctx.path, detail))
        stats = file_stats(state)
        self._books.files.append(stats)
        if state.saving is not None and self._store is not None and not state.problems:
            key, content = saved_extraction(self._store, state, stats, self._stored_schema)
            self._keep_digest(key.path, content)
        state.kept, state.facts = [], []
        if self._on_progress:
            self._on_progress("file", 0)
